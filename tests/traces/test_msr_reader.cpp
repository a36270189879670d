// tests/traces/test_msr_reader.cpp — the msr format (traces/msr_reader.cpp): a fixture written by
// hand from the MSR Cambridge trace format, times and keys computed by hand (filetime ticks of
// 100 ns from the first row; key = disk × 2^48 + offset), the same requests as a generic CSV,
// split into pages by split_blocks, and malformed rows as errors.
#include <zlib.h>

#include <catch2/catch.hpp>
#include <fstream>

#include "tests/traces/format_test_util.h"

namespace flashpq::test_msr_reader {
namespace {

using namespace format_test;
using testing::TempDir;

TraceConfig msr_as_csv() {
  TraceConfig csv = trace_file(kFixtures + "/msr_as_csv.csv", "csv");
  csv.params.set("trace.header", "true");
  csv.params.set("trace.time_col", "1");
  csv.params.set("trace.time_unit", "ns");
  csv.params.set("trace.key_col", "2");
  csv.params.set("trace.size_col", "3");
  csv.params.set("trace.op_col", "4");
  return csv;
}

TEST_CASE("msr: requests as the format defines them", "[msr]") {
  const auto r = read_all(trace_file(kFixtures + "/msr.csv", "msr"));
  REQUIRE(r.size() == 4);  // the row of size 0 is skipped
  // (128166372016382155 - 128166372003061629) × 100 ns = 1,332,052,600 ns.
  CHECK(r[1].time_ns == 1'332'052'600);
  CHECK(r[2].key == (uint64_t{1} << 48));  // disk 1, offset 0
  CHECK(r[0].key == 3'216'470'016);
  CHECK(r[0].op == Op::kGet);
  CHECK(r[1].op == Op::kSet);
  CHECK(r[3].size_bytes == 8192);
  CHECK(same(r, read_all(msr_as_csv())));
}

TEST_CASE("msr: the same requests as a generic CSV give the same rows", "[msr]") {
  TempDir dir;
  const auto a = rows_of(dir, "msr", "  path: " + kFixtures + "/msr.csv\n  format: msr\n");
  const auto b = rows_of(dir, "cv",
                         "  path: " + kFixtures +
                             "/msr_as_csv.csv\n  format: csv\n  header: true\n  time_col: 1\n"
                             "  time_unit: ns\n  key_col: 2\n  size_col: 3\n  op_col: 4\n");
  REQUIRE(a.size() == 2);
  CHECK(a == b);
}

TEST_CASE("msr: split_blocks turns block I/O into page requests", "[msr]") {
  TraceConfig c = trace_file(kFixtures + "/msr.csv", "msr");
  c.params.set("trace.transforms", "split_blocks page_size=4KiB");
  const auto p = read_all(c);
  // 16 KiB at 3216470016 (page 785271): 4 pages; 4 KiB: 1; 512 B on disk 1: 1; 8 KiB at 8192: 2.
  REQUIRE(p.size() == 8);
  CHECK(p[0].key == 785'271);
  CHECK(p[3].key == 785'274);
  CHECK(p[4].key == 785'271);
  CHECK(p[5].key == (uint64_t{1} << 48) / 4096);
  CHECK(p[6].key == 2);
  CHECK(p[7].key == 3);
}

// `text` gzip-compressed (one member), by zlib's gz* functions.
std::string gzip(const TempDir& dir, const std::string& name, const std::string& text) {
  const std::string path = dir.file(name);
  gzFile f = gzopen(path.c_str(), "wb");
  REQUIRE(f != nullptr);
  REQUIRE(gzwrite(f, text.data(), static_cast<unsigned>(text.size())) ==
          static_cast<int>(text.size()));
  REQUIRE(gzclose(f) == Z_OK);
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST_CASE("msr: gzip-compressed, one member or several, reads as plain", "[msr]") {
  TempDir dir;
  std::ifstream in(kFixtures + "/msr.csv", std::ios::binary);
  const std::string text(std::istreambuf_iterator<char>(in), {});
  gzip(dir, "msr.csv.gz", text);
  const auto plain = read_all(trace_file(kFixtures + "/msr.csv", "msr"));
  CHECK(same(read_all(trace_file(dir.file("msr.csv.gz"), "msr")), plain));
  // Two members (the first rows, then the rest) decode as one stream, as gzip -d does.
  const size_t cut = text.find('\n', text.size() / 2) + 1;
  const std::string both =
      gzip(dir, "a.gz", text.substr(0, cut)) + gzip(dir, "b.gz", text.substr(cut));
  dir.write("two.csv.gz", both);
  CHECK(same(read_all(trace_file(dir.file("two.csv.gz"), "msr")), plain));
  // Cut short: an error naming the compressed byte offset.
  const std::string one = gzip(dir, "c.gz", text);
  dir.write("cut.csv.gz", one.substr(0, one.size() - 12));
  CHECK_THROWS_WITH(read_all(trace_file(dir.file("cut.csv.gz"), "msr")),
                    Catch::Contains("truncated gzip member"));
}

TEST_CASE("msr: malformed rows are errors naming file, line and field", "[msr]") {
  TempDir dir;
  auto error_of = [&](const std::string& text) {
    const std::string path = dir.write("bad.csv", text);
    try {
      read_all(trace_file(path, "msr"));
    } catch (const TraceError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(
      error_of("1,hm,0,Read,0,4096,1\n2,hm,0,Read,0,-4096,1\n"),
      Catch::Contains("bad.csv:2") && Catch::Contains("'Size'") && Catch::Contains("'-4096'"));
  CHECK_THAT(error_of("1,hm,0,Trim,0,4096,1\n"),
             Catch::Contains("bad.csv:1") && Catch::Contains("'Type'"));
  CHECK_THAT(error_of("1,hm,0,Read,0,4096\n"), Catch::Contains("expected 7 fields"));
}

}  // namespace
}  // namespace flashpq::test_msr_reader
