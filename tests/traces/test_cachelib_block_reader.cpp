// tests/traces/test_cachelib_block_reader.cpp — the cachelib_block format
// (traces/cachelib_block_reader.cpp): a fixture in the header and rows of CacheLib's
// block_traces_{1,2}.csv, its requests computed by hand (op_count repeats, io_size 0 skipped),
// the same requests as a generic CSV, the real sample files, and errors.
#include <catch2/catch.hpp>

#include "tests/traces/format_test_util.h"

namespace flashpq::test_cachelib_block_reader {
namespace {

using namespace format_test;
using testing::TempDir;

TraceConfig as_csv() {
  TraceConfig csv = trace_file(kFixtures + "/cachelib_block_as_csv.csv", "csv");
  csv.params.set("trace.header", "true");
  csv.params.set("trace.time_col", "1");
  csv.params.set("trace.key_col", "2");
  csv.params.set("trace.size_col", "3");
  csv.params.set("trace.op_col", "4");
  csv.params.set("trace.key_is_numeric", "false");
  return csv;
}

TEST_CASE("cachelib_block: requests as CacheBench's block replay reads them", "[cachelib_block]") {
  const auto r = read_all(trace_file(kFixtures + "/cachelib_block.csv", "cachelib_block"));
  REQUIRE(r.size() == 4);  // op_count 2 repeats a row; io_size 0 is skipped
  CHECK(r[0].op == Op::kGet);
  CHECK(r[1].op == Op::kSet);
  CHECK(r[2].key == r[1].key);
  CHECK(r[3].key == r[0].key);
  CHECK(r[0].key == hash_key("12ce23eaa5534a38-9e05ce05bc10d4d0"));
  CHECK(r[0].size_bytes == 8'388'608);
  CHECK(r[0].time_ns == 1'702'511'878'000'000'000ull);
  CHECK(same(r, read_all(as_csv())));
  TempDir dir;
  const auto a = rows_of(
      dir, "cb", "  path: " + kFixtures + "/cachelib_block.csv\n  format: cachelib_block\n");
  const auto b = rows_of(dir, "cv",
                         "  path: " + kFixtures +
                             "/cachelib_block_as_csv.csv\n  format: csv\n  header: true\n"
                             "  time_col: 1\n  key_col: 2\n  size_col: 3\n  op_col: 4\n"
                             "  key_is_numeric: false\n");
  REQUIRE(a.size() == 2);
  CHECK(a == b);
}

#ifdef FLASHPQ_SHARED_TRACES
TEST_CASE("cachelib_block: CacheLib's sample traces expand as counted independently",
          "[cachelib_block]") {
  // Counted apart from FlashPQ: 999 rows each, 1,023 and 1,016 requests once op_count repeats
  // them (the sum of the op_count column).
  CHECK(read_all(trace_file(FLASHPQ_SHARED_TRACES "/cachelib/block_chunk/block_traces_1.csv",
                            "cachelib_block"))
            .size() == 1023);
  CHECK(read_all(trace_file(FLASHPQ_SHARED_TRACES "/cachelib/block_chunk/block_traces_2.csv",
                            "cachelib_block"))
            .size() == 1016);
}
#endif

TEST_CASE("cachelib_block: bad input is an error naming file, line and column",
          "[cachelib_block]") {
  TempDir dir;
  auto error_of = [&](const std::string& text) {
    const std::string path = dir.write("bad.csv", text);
    try {
      read_all(trace_file(path, "cachelib_block"));
    } catch (const TraceError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(error_of("op_time,block_id,op_name\n1,a,getChunkData.X\n"),
             Catch::Contains("bad.csv:1") && Catch::Contains("'io_size'"));
  CHECK_THAT(error_of("op_time,block_id,io_size,op_name\n1,a,5,deleteChunk\n"),
             Catch::Contains("bad.csv:2") && Catch::Contains("'op_name'") &&
                 Catch::Contains("'deleteChunk'"));
  CHECK_THAT(error_of("op_time,block_id,io_size,op_name,op_count\n1,a,5,putChunk.X,0\n"),
             Catch::Contains("'op_count'"));
}

}  // namespace
}  // namespace flashpq::test_cachelib_block_reader
