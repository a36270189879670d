// tests/experiments/test_session.cpp — a cache driven request by request (experiments/session.h)
// against the cell that runs the same cache on the same requests (a second implementation: the
// sweep's replay), and the experiment read from text (experiments/experiment.h).
#include <catch2/catch.hpp>
#include <filesystem>
#include <vector>

#include "experiments/experiment.h"
#include "experiments/session.h"
#include "tests/cell_test_util.h"
#include "traces/trace_reader.h"

namespace flashpq {
namespace {

// 60,000 gets of 5,000 keys (Zipf 0.9), sizes from the generator's distribution.
const std::string kTrace =
    "trace:\n  format: generator\n  generator: zipf\n  objects: 5000\n  alpha: 0.9\n"
    "  requests: 60000\n";

std::map<std::string, std::string> session_stats(CacheSession& s) {
  std::map<std::string, std::string> m;
  for (const Column& c : s.stats()) m[c.name] = c.text;
  return m;
}

}  // namespace

TEST_CASE("session: a cache replaying a cell's requests gives the cell's row", "[session]") {
  // The sections of the cell, and a capacity in bytes the session can take.
  const std::string sections = GENERATE(
      std::string("policy:\n  name: lru\n"), std::string("policy:\n  name: s3fifo\n"),
      std::string("policy:\n  name: wtinylfu\n"),
      std::string("policy:\n  name: gdsf\nadmission:\n  name: tinylfu\n"),
      std::string("policy:\n  name: fifo\nframework:\n  name: ripq\n  block_size: 64KiB\n"
                  "device:\n  name: simflash\n  profile: tiny\n  size_to_cache: true\n"),
      std::string(
          "policy:\n  name: fifo\nframework:\n  name: blockcache\n  blockcache_region_size: 64KiB\n"
          "device:\n  name: simflash\n  profile: tiny\n  size_to_cache: true\n"));
  INFO(sections);
  const std::string body = sections + "cache:\n  capacity: 2MiB\n";
  const testing::RowMap row = testing::run_one(kTrace + body);
  REQUIRE((row.count("error") == 0 || row.at("error").empty()));

  // The session is told what the cell read from its trace's summary.
  testing::TempDir dir;
  const Experiment ex =
      load_experiment(dir.write("c.yaml", "seed: 1\nwarmup: 0\n" + kTrace + body), {});
  const TraceSummary summary = summarize_trace(ex.cells[0].trace);
  SessionShape shape;
  shape.max_object_bytes = summary.max_object_bytes;
  shape.expected_objects =
      static_cast<uint64_t>(testing::num(row, "cache_capacity_bytes")) /
      std::max<uint64_t>(1, summary.working_set_bytes / summary.unique_objects);
  CacheSession session("seed: 1\n" + body, "<test>", shape);

  const std::unique_ptr<TraceReader> reader = open_trace(ex.cells[0].trace);
  std::vector<Request> batch(1000);
  std::vector<uint8_t> hits(batch.size());
  uint64_t hit_count = 0;
  for (size_t n; (n = reader->read(batch)) != 0;) {
    session.access({batch.data(), n}, hits.data());
    for (size_t i = 0; i < n; ++i) hit_count += hits[i];
  }
  const auto stats = session_stats(session);
  CHECK(hit_count == static_cast<uint64_t>(testing::num(row, "hits")));
  for (const char* k : {"hits", "get_requests", "bytes_hit", "evictions", "miss_bytes_inserted",
                        "object_hit_ratio", "byte_hit_ratio", "compulsory_misses"}) {
    INFO(k);
    CHECK(std::stod(stats.at(k)) == testing::num(row, k));
  }
  if (row.count("wa_ftl") != 0) {
    CHECK(std::stod(stats.at("wa_ftl")) == Approx(testing::num(row, "wa_ftl")).epsilon(1e-12));
    CHECK(std::stod(stats.at("wa_implementation")) ==
          Approx(testing::num(row, "wa_implementation")).epsilon(1e-12));
  }
}

TEST_CASE("session: what has no meaning without a trace is refused", "[session]") {
  const SessionShape shape;
  auto refused = [&](const std::string& yaml, const std::string& says) {
    INFO(yaml);
    CHECK_THROWS_WITH(CacheSession(yaml, "<test>", shape), Catch::Contains(says));
  };
  refused("cache:\n  capacity: 0.1\n", "expected a size");
  refused("cache:\n  capacity: 1MiB\nframework:\n  name: direct\n", "builds no cache");
  refused("cache:\n  capacity: 1MiB\npolicy:\n  name: belady\n", "future");
  refused("cache:\n  capacity: 1MiB\npolicy:\n  name: pfoo_l\n", "future");
  refused("cache:\n  capacity: 1MiB\ntrace:\n  path: x\n", "'trace' does not apply");
  refused("cache:\n  capacity: 1MiB\nmatrix:\n  cache.capacity: [1MiB, 2MiB]\n",
          "'matrix' does not apply");
  refused("cache:\n  capacity: [1MiB, 2MiB]\n", "expected a scalar");
  // The schema's own message, naming the text and the key.
  refused("cache:\n  capacity: 1MiB\npolicy:\n  name: slru\n  segmnets: 3\n", "segmnets");
}

TEST_CASE("session: gets, sets and deletes, counted as a row counts them", "[session]") {
  CacheSession s("cache:\n  capacity: 1000\n", "<test>", SessionShape{});
  const std::vector<Request> r = {{0, 1, 100, Op::kGet},    {0, 1, 100, Op::kGet},
                                  {0, 1, 100, Op::kDelete}, {0, 1, 100, Op::kGet},
                                  {0, 2, 100, Op::kSet},    {0, 2, 100, Op::kGet}};
  std::vector<uint8_t> hits(r.size());
  s.access(r, hits.data());
  CHECK(hits == std::vector<uint8_t>{0, 1, 0, 0, 0, 1});
  const auto stats = session_stats(s);
  CHECK(stats.at("get_requests") == "4");
  CHECK(stats.at("set_requests") == "1");
  CHECK(stats.at("delete_requests") == "1");
  CHECK(stats.at("hits") == "2");
  CHECK(stats.at("object_hit_ratio") == "0.5");
  CHECK(stats.at("objects") == "2");
}

TEST_CASE("experiment text: messages name it, relative paths are the working directory's",
          "[session][experiments]") {
  CHECK_THROWS_WITH(load_experiment_text("trace:\n  path: t.oracleGeneral\npolicy:\n  nmae: lru\n",
                                         "<string>", {}),
                    Catch::StartsWith("<string>:4:") && Catch::Contains("nmae"));
  testing::TempDir dir;
  dir.write("t.csv", "1,1\n2,1\n");
  const std::filesystem::path cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir.path());
  const Experiment ex = load_experiment_text(
      "trace:\n  path: t.csv\n  format: csv\n  key_col: 1\n  size_col: 2\ncache:\n  capacity: 1\n",
      "<string>", {{"cache.capacity", "[1, 2]"}});
  std::filesystem::current_path(cwd);
  REQUIRE(ex.cells.size() == 2);
  CHECK(ex.name == "experiment");
  CHECK(ex.cells[0].trace.path() == (dir.path() / "t.csv").string());
}

}  // namespace flashpq
