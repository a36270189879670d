// tests/traces/test_format_detection.cpp — a trace file's format by its content
// (traces/trace_reader.h, trace_content() and trace_format_for()): each magic number (.fpq, lcs,
// fio iolog; zstd and gzip compression) recognised whatever the file's name and whether a format
// is named; files without one decided by the format named, else the extension, else
// oracleGeneral; a named format the content contradicts, text read as binary and a compressed
// .fpq refused with the file, what it holds and what to write; the experiment loader and
// `flashpq trace info` deciding the same way.
#include <zlib.h>
#include <zstd.h>

#include <catch2/catch.hpp>
#include <fstream>

#include "experiments/config/cell_config.h"
#include "experiments/experiment.h"
#include "tests/traces/format_test_util.h"
#include "traces/fpq.h"
#include "traces/zstd_stream.h"

namespace flashpq::test_format_detection {
namespace {

using namespace format_test;
using Catch::Contains;
using testing::TempDir;

const std::string kBundled = FLASHPQ_SOURCE_DIR "/traces/data/adaptsize-request.oracleGeneral.zst";

std::string bytes_of(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

// `bytes` zstd-compressed (one frame, level 3).
std::string zstd_packed(const std::string& bytes) {
  std::string out(ZSTD_compressBound(bytes.size()), '\0');
  const size_t n = ZSTD_compress(out.data(), out.size(), bytes.data(), bytes.size(), 3);
  REQUIRE_FALSE(ZSTD_isError(n));
  out.resize(n);
  return out;
}

// `bytes` gzip-compressed (one member), by zlib's gz* functions, written to `path`.
std::string gzip_to(const std::string& path, const std::string& bytes) {
  gzFile f = gzopen(path.c_str(), "wb");
  REQUIRE(f != nullptr);
  REQUIRE(gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size())) ==
          static_cast<int>(bytes.size()));
  REQUIRE(gzclose(f) == Z_OK);
  return path;
}

// A generic CSV trace of keys and sizes, and the same requests as a .fpq file at `fpq_path`.
TraceConfig csv_trace(const TempDir& dir) {
  TraceConfig c = trace_file(dir.write("keys.csv", "17,100\n18,20\n17,100\n19,4096\n"), "csv");
  c.params.set("trace.key_col", 1);
  c.params.set("trace.size_col", 2);
  c.params.set("trace.key_is_numeric", true);
  return c;
}
std::string write_fpq_of(const TraceConfig& c, const std::string& fpq_path) {
  auto reader = open_trace(c);
  write_fpq(*reader, fpq_path, "test");
  return fpq_path;
}

TEST_CASE("format detection: a .fpq file by its magic, whatever its name", "[traces][format]") {
  TempDir dir;
  const TraceConfig csv = csv_trace(dir);
  const auto want = read_all(csv);
  REQUIRE(want.size() == 4);
  for (const char* name : {"t.fpq", "t.bin", "t.oracleGeneral.zst", "noext"}) {
    INFO(name);
    const std::string path = write_fpq_of(csv, dir.file(name));
    const TraceContent content = trace_content(path);
    CHECK(content.format == "fpq");
    CHECK(content.compression.empty());
    CHECK_THAT(content.what, Contains("FPQTRACE"));
    const TraceConfig t = trace_file(path);  // no format named
    CHECK(t.format == "fpq");
    CHECK(same(read_all(t), want));
    CHECK(trace_file(path, "fpq").format == "fpq");  // named as it is
  }
}

TEST_CASE("format detection: a named format the content contradicts is an error saying what to use",
          "[traces][format]") {
  TempDir dir;
  const std::string fpq = write_fpq_of(csv_trace(dir), dir.file("t.fpq"));
  // Before content decided, this read the .fpq header as oracleGeneral records ("record N ...
  // truncated").
  CHECK_THROWS_AS(trace_file(fpq, "oracleGeneral"), std::invalid_argument);
  CHECK_THROWS_WITH(trace_file(fpq, "oracleGeneral"),
                    Contains(fpq + ": the content is a .fpq trace (magic 'FPQTRACE' at byte 0)") &&
                        Contains("not oracleGeneral as trace.format says") &&
                        Contains("use trace.format fpq"));
  CHECK_THROWS_WITH(trace_file(fpq, "csv", "--format"),
                    Contains("not csv as --format says: use --format fpq"));
  const std::string lcs = kFixtures + "/lcs_v2.lcs";
  CHECK_THROWS_WITH(trace_file(lcs, "fpq"),
                    Contains("a libCacheSim lcs trace (magic 0x123456789abcdef0 at byte 0)") &&
                        Contains("use trace.format lcs"));
  const std::string iolog = dir.write("d.log", "fio version 3 iolog\n0 f add\n");
  CHECK_THROWS_WITH(trace_file(iolog, "msr"),
                    Contains("a fio iolog (first line 'fio version 3 iolog')") &&
                        Contains("use trace.format fio_iolog"));
}

TEST_CASE("format detection: lcs by its magic, plain, zstd- and gzip-compressed",
          "[traces][format]") {
  TempDir dir;
  const std::string fixture = kFixtures + "/lcs_v2.lcs";
  const auto want = read_all(trace_file(fixture, "lcs"));
  REQUIRE(want.size() == 5);
  const std::string raw = bytes_of(fixture);
  const std::string plain = dir.write("v2.trace", raw);
  const std::string zst = dir.write("v2.dat", zstd_packed(raw));  // no .zst: content decides
  const std::string gz = gzip_to(dir.file("v2.zst"), raw);        // a misleading .zst
  for (const auto& [path, compression] :
       {std::pair{plain, ""}, std::pair{zst, "zstd"}, std::pair{gz, "gzip"}}) {
    INFO(path);
    const TraceContent content = trace_content(path);
    CHECK(content.format == "lcs");
    CHECK(content.compression == compression);
    const TraceConfig t = trace_file(path);
    CHECK(t.format == "lcs");
    CHECK(same(read_all(t), want));
  }
  CHECK_THROWS_WITH(trace_file(zst, "oracleGeneral"),
                    Contains("the content is a zstd-compressed libCacheSim lcs trace"));
}

TEST_CASE("format detection: zstd and gzip by their magic numbers, not by the name",
          "[traces][format]") {
  TempDir dir;
  const auto want = read_all(trace_file(kBundled));
  REQUIRE(want.size() == 66'987);
  // The bundled .zst under a name without .zst, and its bytes gzip-compressed under a name
  // ending in .zst: both read as the same oracleGeneral requests.
  const std::string zst = dir.write("t.oracleGeneral", bytes_of(kBundled));
  CHECK(bytes_of(zst).substr(0, 4) == std::string("\x28\xb5\x2f\xfd", 4));
  std::string records;
  {
    ByteStream in(kBundled);
    std::vector<char> buf(1 << 16);
    for (size_t n; (n = in.read(buf.data(), buf.size())) != 0;) records.append(buf.data(), n);
  }
  const std::string gz = gzip_to(dir.file("t.bin.zst"), records);
  CHECK(bytes_of(gz).substr(0, 2) == std::string("\x1f\x8b", 2));
  CHECK(trace_content(zst).compression == "zstd");
  CHECK(trace_content(gz).compression == "gzip");
  for (const std::string& path : {zst, gz}) {
    INFO(path);
    CHECK(trace_content(path).format.empty());  // oracleGeneral has no magic
    const TraceConfig t = trace_file(path);
    CHECK(t.format == "oracleGeneral");
    CHECK(same(read_all(t), want));
  }
  // A .fpq is read in place: compressed, it is refused with the way out.
  const std::string fpq = write_fpq_of(csv_trace(dir), dir.file("t.fpq"));
  const std::string fpq_zst = dir.write("t.fpq.zst", zstd_packed(bytes_of(fpq)));
  CHECK(trace_content(fpq_zst).format == "fpq");
  CHECK_THROWS_WITH(trace_file(fpq_zst), Contains(fpq_zst + ": the content is a zstd-compressed "
                                                            ".fpq trace") &&
                                             Contains("zstd -d"));
}

TEST_CASE("format detection: a fio iolog by its first line", "[traces][format]") {
  TempDir dir;
  const std::string path =
      dir.write("dev.txt", "fio version 3 iolog\n0 /dev/x add\n5 /dev/x write 4096 512\n");
  const TraceConfig t = trace_file(path);
  CHECK(t.format == "fio_iolog");
  const auto r = read_all(t);
  REQUIRE(r.size() == 1);
  CHECK(r[0].key == 4096);
  CHECK(r[0].size_bytes == 512);
  CHECK(r[0].op == Op::kSet);
}

TEST_CASE(
    "format detection: without a magic, the format named, else the extension, else "
    "oracleGeneral",
    "[traces][format]") {
  TempDir dir;
  // Binary records without a magic (oracleGeneral): the name decides only when no format is.
  const std::string records = bytes_of(kFixtures + "/lcs_v1.oracleGeneral");
  const auto want = read_all(trace_file(kFixtures + "/lcs_v1.oracleGeneral", "oracleGeneral"));
  REQUIRE(want.size() == 5);
  const std::string bin = dir.write("a.bin", records);
  CHECK(trace_content(bin).format.empty());
  CHECK_FALSE(trace_content(bin).text);
  CHECK(trace_file(bin).format == "oracleGeneral");
  CHECK(same(read_all(trace_file(bin)), want));
  const std::string fpq_named = dir.write("a.fpq", records);
  CHECK(trace_file(fpq_named).format == "fpq");  // by the extension ...
  CHECK_THROWS_WITH(read_all(trace_file(fpq_named)),
                    Contains("a.fpq: 120 bytes: shorter than the 4096-byte .fpq header"));
  CHECK(trace_file(fpq_named, "oracleGeneral").format == "oracleGeneral");  // named: it wins
  CHECK(same(read_all(trace_file(fpq_named, "oracleGeneral")), want));
  CHECK(trace_file(dir.write("a.lcs.zst", records)).format == "lcs");
  CHECK(trace_file(dir.write("a.lcs.gz", records)).format == "lcs");
  // Text: any text format named is taken; none named is an error listing them.
  const std::string text = dir.write("keys.dat", "17\n18\n");
  CHECK(trace_content(text).text);
  CHECK(trace_file(text, "csv").format == "csv");
  CHECK(trace_file(text, "twitter").format == "twitter");
  CHECK_THROWS_WITH(trace_file(text), Contains(text + ": the content is text (first line '17')") &&
                                          Contains("name its format with trace.format") &&
                                          Contains("csv, kvcache_csv, twitter, msr"));
  // Empty, missing or not yet given: the format named, else oracleGeneral; never an error here.
  const std::string empty = dir.write("empty", "");
  CHECK(trace_content(empty).what == "empty");
  CHECK(trace_file(empty).format == "oracleGeneral");
  CHECK(trace_file(dir.file("missing.fpq")).format == "fpq");
  CHECK(trace_file(dir.file("missing"), "csv").format == "csv");
  CHECK(trace_file("", "msr").format == "msr");
  CHECK(trace_file("").format == "oracleGeneral");
}

// An experiment of one cell on `trace_keys` (YAML lines of the trace section).
std::string experiment_yaml(const TempDir& dir, const std::string& trace_keys) {
  return dir.write("x.yaml", "trace:\n" + trace_keys +
                                 "cache: {capacity: 0.5}\n"
                                 "policy: {name: lru}\n");
}

std::string parameter(const CellConfig& c, const std::string& name) {
  for (const auto& [k, v] : c.parameters) {
    if (k == name) return v;
  }
  FAIL("no parameter " << name);
  return "";
}

TEST_CASE("format detection: the experiment loader decides trace.format by the content",
          "[traces][format]") {
  TempDir dir;
  write_fpq_of(csv_trace(dir), dir.file("t.fpq"));
  // Not written: the content's (a relative path, from the YAML file's folder).
  const Experiment ex = load_experiment(experiment_yaml(dir, "  path: t.fpq\n"), {});
  REQUIRE(ex.cells.size() == 1);
  CHECK(ex.cells[0].trace.format == "fpq");
  CHECK(parameter(ex.cells[0], "trace.format") == "fpq");
  // Written and contradicted: an error at the line where it was written.
  CHECK_THROWS_WITH(
      load_experiment(experiment_yaml(dir, "  path: t.fpq\n  format: oracleGeneral\n"), {}),
      Contains("x.yaml:3") && Contains("key 'trace.format'") &&
          Contains("the content is a .fpq trace") && Contains("use trace.format fpq"));
  // Written and agreeing, or a text trace with its format: as written.
  CHECK(load_experiment(experiment_yaml(dir, "  path: t.fpq\n  format: fpq\n"), {})
            .cells[0]
            .trace.format == "fpq");
  CHECK(load_experiment(experiment_yaml(dir, "  path: keys.csv\n  format: csv\n  key_col: 1\n"), {})
            .cells[0]
            .trace.format == "csv");
  // A text trace without a format: an error at trace.path, naming the formats.
  CHECK_THROWS_WITH(load_experiment(experiment_yaml(dir, "  path: keys.csv\n"), {}),
                    Contains("x.yaml:2") && Contains("key 'trace.path'") &&
                        Contains("the content is text (first line '17,100')") &&
                        Contains("name its format with trace.format"));
}

TEST_CASE("format detection: flashpq trace info reads a .fpq without --format",
          "[traces][format][cli]") {
  TempDir dir, scratch;
  write_fpq_of(csv_trace(dir), dir.file("t.fpq"));
  const std::string env = "XDG_CACHE_HOME=" + shell_quoted(scratch.file("xdg"));
  const Run r = run_flashpq(dir.path().string(), "trace info t.fpq", env, scratch);
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, Contains("format fpq\n") && Contains("requests 4\n") &&
                        Contains("unique_objects 3\n") && Contains("working_set_bytes 4216\n"));
  const Run wrong =
      run_flashpq(dir.path().string(), "trace info t.fpq --format oracleGeneral", env, scratch);
  CHECK(wrong.status == 2);
  CHECK_THAT(wrong.err, Contains("t.fpq: the content is a .fpq trace") &&
                            Contains("not oracleGeneral as --format says: use --format fpq"));
}

}  // namespace
}  // namespace flashpq::test_format_detection
