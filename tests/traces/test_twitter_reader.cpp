// tests/traces/test_twitter_reader.cpp — the twitter format (traces/twitter_reader.cpp): a
// fixture written by hand from Twitter's cache-trace README, its requests computed by hand,
// the same requests as a generic CSV giving the same requests and the same results rows, and
// malformed rows as errors naming file, line and field.
#include <catch2/catch.hpp>

#include "tests/traces/format_test_util.h"

namespace flashpq::test_twitter_reader {
namespace {

using namespace format_test;
using testing::TempDir;

TEST_CASE("twitter: requests as the README defines them", "[twitter]") {
  const auto r = read_all(trace_file(kFixtures + "/twitter.csv", "twitter"));
  REQUIRE(r.size() == 7);  // the row with key and value sizes 0 is skipped
  // get, gets -> get; set, incr, replace -> set; delete -> delete. Size = key + value bytes.
  const Op ops[] = {Op::kGet, Op::kSet, Op::kGet, Op::kDelete, Op::kSet, Op::kSet, Op::kGet};
  const uint32_t sizes[] = {306, 105, 306, 3, 11, 314, 105};
  const uint64_t seconds[] = {0, 0, 1, 2, 3, 5, 7};
  for (size_t i = 0; i < r.size(); ++i) {
    INFO("request " << i);
    CHECK(r[i].op == ops[i]);
    CHECK(r[i].size_bytes == sizes[i]);
    CHECK(r[i].time_ns == seconds[i] * 1'000'000'000ull);
  }
  CHECK(r[0].key == hash_key("q:q:1:8WTfjZU"));
  CHECK(r[1].key == hash_key("key,with,comma"));  // commas inside the key kept
  CHECK(r[6].key == r[1].key);
  CHECK(r[5].key == r[0].key);
}

TEST_CASE("twitter: the same requests as a generic CSV give the same requests and rows",
          "[twitter]") {
  TraceConfig csv = trace_file(kFixtures + "/twitter_as_csv.csv", "csv");
  csv.params.set("trace.header", "true");
  csv.params.set("trace.delimiter", "|");
  csv.params.set("trace.time_col", "1");
  csv.params.set("trace.key_col", "2");
  csv.params.set("trace.size_col", "3");
  csv.params.set("trace.op_col", "4");
  csv.params.set("trace.key_is_numeric", "false");
  CHECK(same(read_all(trace_file(kFixtures + "/twitter.csv", "twitter")), read_all(csv)));
  TempDir dir;
  const auto a = rows_of(dir, "tw", "  path: " + kFixtures + "/twitter.csv\n  format: twitter\n");
  const auto b = rows_of(dir, "cv",
                         "  path: " + kFixtures +
                             "/twitter_as_csv.csv\n  format: csv\n  header: true\n"
                             "  delimiter: '|'\n  time_col: 1\n  key_col: 2\n  size_col: 3\n"
                             "  op_col: 4\n  key_is_numeric: false\n");
  REQUIRE(a.size() == 2);
  CHECK(a == b);
}

TEST_CASE("twitter: malformed rows are errors naming file, line and field", "[twitter]") {
  TempDir dir;
  auto error_of = [&](const std::string& text) {
    const std::string path = dir.write("bad.csv", text);
    try {
      read_all(trace_file(path, "twitter"));
    } catch (const TraceError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string six = error_of("0,a,1,2,1,get,0\n1,a,1,2,1,get\n");
  CHECK_THAT(six, Catch::Contains("bad.csv:2") && Catch::Contains("expected 7 fields") &&
                      Catch::Contains("found 6"));
  CHECK_THAT(error_of("0,a,1,2,1,fetch,0\n"), Catch::Contains("bad.csv:1") &&
                                                  Catch::Contains("'operation'") &&
                                                  Catch::Contains("'fetch'"));
  CHECK_THAT(error_of("0,a,x,2,1,get,0\n"),
             Catch::Contains("'key size'") && Catch::Contains("'x'"));
  CHECK_THAT(error_of("-1,a,1,2,1,get,0\n"), Catch::Contains("'timestamp'"));
}

}  // namespace
}  // namespace flashpq::test_twitter_reader
