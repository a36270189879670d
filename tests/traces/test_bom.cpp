// tests/traces/test_bom.cpp — a UTF-8 byte order mark (EF BB BF) at the start of a text file,
// as some editors and spreadsheets write it, is skipped: every text trace format (csv,
// kvcache_csv, twitter, msr, cachelib_block, fio_iolog; plain and compressed) reads the same
// requests with and without it and counts lines the same; the experiment YAML loader and the
// results reader of --resume and collect read the same file with and without it.
#include <zlib.h>

#include <catch2/catch.hpp>
#include <fstream>

#include "experiments/experiment.h"
#include "experiments/results.h"
#include "tests/traces/format_test_util.h"

namespace flashpq::test_bom {
namespace {

using namespace format_test;
using Catch::Contains;
using testing::TempDir;

const std::string kBom = "\xEF\xBB\xBF";

std::string bytes_of(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

// The config `c` on the file `path`.
TraceConfig on(TraceConfig c, const std::string& path) {
  c.params.set("trace.path", path);
  return c;
}

TEST_CASE("BOM: every text trace format reads the same requests with and without it",
          "[traces][bom]") {
  TempDir dir;
  TraceConfig csv = trace_file("", "csv");
  csv.params.set("trace.key_col", 1);
  csv.params.set("trace.size_col", 2);
  csv.params.set("trace.key_is_numeric", true);
  TraceConfig csv_header = csv;
  csv_header.params.set("trace.header", true);
  struct Case {
    const char* name;
    TraceConfig config;
    std::string text;
  };
  const std::vector<Case> cases = {
      {"csv", csv, "3,100\n17,20\n3,100\n"},
      {"csv with a header", csv_header, "key,size\n3,100\n17,20\n"},
      {"kvcache_csv", trace_file("", "kvcache_csv"), "key,op,size\nk1,GET,10\nk2,SET,20\n"},
      {"twitter", trace_file("", "twitter"), bytes_of(kFixtures + "/twitter.csv")},
      {"msr", trace_file("", "msr"), bytes_of(kFixtures + "/msr.csv")},
      {"cachelib_block", trace_file("", "cachelib_block"),
       bytes_of(kFixtures + "/cachelib_block.csv")},
      {"fio_iolog", trace_file("", "fio_iolog"),
       "fio version 3 iolog\n0 f add\n7 f read 512 4096\n9 f write 0 512\n"},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const auto plain = read_all(on(c.config, dir.write("plain.txt", c.text)));
    REQUIRE(plain.size() >= 2);
    const std::string with_bom = dir.write("bom.txt", kBom + c.text);
    CHECK(same(read_all(on(c.config, with_bom)), plain));
    // Compressed, the mark is in the decompressed text: skipped too.
    gzFile f = gzopen(dir.file("bom.txt.gz").c_str(), "wb");
    REQUIRE(f != nullptr);
    const std::string bytes = kBom + c.text;
    REQUIRE(gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size())) ==
            static_cast<int>(bytes.size()));
    REQUIRE(gzclose(f) == Z_OK);
    CHECK(same(read_all(on(c.config, dir.file("bom.txt.gz"))), plain));
  }
}

TEST_CASE("BOM: the first line is line 1, its first field without the mark", "[traces][bom]") {
  TempDir dir;
  TraceConfig csv = trace_file(dir.write("bad.csv", kBom + "x7,100\n"), "csv");
  csv.params.set("trace.key_col", 1);
  csv.params.set("trace.key_is_numeric", true);
  CHECK_THROWS_WITH(read_all(csv), Contains("bad.csv:1:") && Contains("found 'x7'"));
  // Only at the start: a mark inside the text is data (here, a key that is not a number).
  TraceConfig later = trace_file(dir.write("later.csv", "7,1\n" + kBom + "8,1\n"), "csv");
  later.params.set("trace.key_col", 1);
  later.params.set("trace.key_is_numeric", true);
  CHECK_THROWS_WITH(read_all(later), Contains("later.csv:2:"));
  // The content check sees text behind the mark, and the first line without it.
  CHECK(trace_content(dir.file("bad.csv")).text);
  CHECK_THAT(trace_content(dir.file("bad.csv")).what, Contains("first line 'x7,100'"));
}

TEST_CASE("BOM: the experiment YAML loads the same with and without it", "[traces][bom]") {
  TempDir dir;
  const std::string yaml =
      "name: bom\n"
      "trace: {path: " FLASHPQ_SOURCE_DIR
      "/traces/data/adaptsize-request.oracleGeneral.zst}\n"
      "cache: {capacity: 0.1}\n"
      "policy: {name: lru}\n"
      "matrix: {cache.capacity: [0.1, 0.2]}\n";
  const Experiment plain = load_experiment(dir.write("plain.yaml", yaml), {});
  const Experiment marked = load_experiment(dir.write("bom.yaml", kBom + yaml), {});
  CHECK(plain.name == "bom");
  CHECK(marked.name == plain.name);
  REQUIRE(marked.cells.size() == 2);
  REQUIRE(plain.cells.size() == 2);
  for (size_t i = 0; i < 2; ++i) CHECK(marked.cells[i].parameters == plain.cells[i].parameters);
}

TEST_CASE("BOM: a results file reads back the same with and without it", "[traces][bom]") {
  TempDir dir;
  const std::string csv = "cell,policy,hit_ratio\n0,lru,0.5\n1,lfu,0.25\n";
  const std::string jsonl =
      "{\"cell\": 0, \"policy\": \"lru\"}\n{\"cell\": 1, \"policy\": \"lfu\"}\n";
  for (const auto& [name, text] : {std::pair{"r.csv", csv}, std::pair{"r.jsonl", jsonl}}) {
    INFO(name);
    const StoredResults plain = read_results(dir.write(std::string("plain-") + name, text));
    const StoredResults marked = read_results(dir.write(std::string("bom-") + name, kBom + text));
    REQUIRE(plain.columns.size() >= 2);
    CHECK(plain.columns[0] == "cell");
    CHECK(marked.columns == plain.columns);
    REQUIRE(marked.rows.size() == plain.rows.size());
    for (size_t i = 0; i < plain.rows.size(); ++i) {
      CHECK(marked.rows[i].fields == plain.rows[i].fields);
      CHECK(marked.rows[i].text == plain.rows[i].text);  // --resume writes it back as it is
    }
  }
}

}  // namespace
}  // namespace flashpq::test_bom
