// tests/experiments/test_collect.cpp — merging a sweep's shards (experiments/collect.h): the
// rows of shards run with --cells equal one whole run's, in cell order; missing and failed cells
// are reported; a file that is not a results file, or of another format, is refused and nothing
// is written.
#include <catch2/catch.hpp>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "experiments/collect.h"
#include "experiments/experiment.h"
#include "experiments/results.h"
#include "experiments/sweep.h"
#include "tests/test_util.h"

namespace flashpq::test_collect {
namespace {

using namespace flashpq::testing;  // tests/test_util.h
namespace fs = std::filesystem;
using Catch::Contains;

const std::string kTrace = FLASHPQ_SOURCE_DIR "/traces/data/adaptsize-request.oracleGeneral.zst";

std::string six_cells() {
  return "name: six\ntrace:\n  path: " + kTrace +
         "\nwarmup: 0.2\nmatrix:\n  cache.capacity: [0.05, 0.1, 0.2]\n"
         "  policy.name: [fifo, lru]\n";
}

std::vector<std::vector<std::string>> rows_of(const std::string& path) {
  auto csv = parse_csv(slurp(path));
  for (size_t c = 0; c < csv[0].size(); ++c) {
    if (csv[0][c] != "wall_seconds") continue;
    for (size_t r = 1; r < csv.size(); ++r) csv[r][c].clear();
  }
  return csv;
}

// Runs the cells `ranges` of `ex` into `path`.
void run_part(const Experiment& ex, const std::string& ranges, const std::string& path) {
  SweepOptions o;
  o.progress_seconds = 0;
  o.cells = parse_cell_ranges(ranges);
  std::ostringstream log;
  REQUIRE(run_experiment(ex, path, log, o) == 0);
}

TEST_CASE("collect: shards merge into the rows of one run, in cell order", "[collect]") {
  TempDir dir;
  const Experiment ex = load_experiment(dir.write("six.yaml", six_cells()), {});
  REQUIRE(ex.cells.size() == 6);
  run_part(ex, "0-5", dir.file("whole.csv"));
  run_part(ex, "4-5", dir.file("s0.csv"));  // shards in any order
  run_part(ex, "0,2", dir.file("s1.csv"));
  run_part(ex, "1,3", dir.file("s2.csv"));
  std::ostringstream log;
  const CollectReport r = collect_results(
      ex, {dir.file("s0.csv"), dir.file("s1.csv"), dir.file("s2.csv"), dir.file("none.csv")},
      dir.file("out/all.csv"), log);
  CHECK(r.rows == 6);
  CHECK(r.missing.empty());
  CHECK(r.failed.empty());
  CHECK(r.inputs_absent == 1);
  CHECK(rows_of(dir.file("out/all.csv")) == rows_of(dir.file("whole.csv")));
  CHECK_THAT(log.str(), Contains("6 rows from 3 files") && Contains("1 inputs absent"));

  SECTION("a shard missing: its cells named, the others written") {
    std::ostringstream l;
    const CollectReport m =
        collect_results(ex, {dir.file("s0.csv"), dir.file("s2.csv")}, dir.file("part.csv"), l);
    CHECK(m.missing == std::vector<size_t>{0, 2});
    CHECK(m.rows == 4);
    CHECK_THAT(l.str(), Contains("2 cells missing: 0,2"));
  }
  SECTION("a failed row gives way to a finished one") {
    auto csv = parse_csv(slurp(dir.file("s1.csv")));
    std::string text;
    for (size_t r0 = 0; r0 < csv.size(); ++r0) {
      // cell 0's row: failed (an error column added, as the first failed row adds it)
      csv[r0].push_back(r0 == 0 ? "error" : r0 == 1 ? "boom" : "");
      for (size_t k = 0; k < csv[r0].size(); ++k) {
        if (k != 0) text += ',';
        text += csv_field(csv[r0][k]);
      }
      text += '\n';
    }
    dir.write("failed.csv", text);
    std::ostringstream l;
    const CollectReport f = collect_results(ex, {dir.file("failed.csv")}, dir.file("f.csv"), l);
    CHECK(f.failed == std::vector<size_t>{0});
    const CollectReport g =
        collect_results(ex, {dir.file("failed.csv"), dir.file("whole.csv")}, dir.file("g.csv"), l);
    CHECK(g.failed.empty());
    CHECK(rows_of(dir.file("g.csv")) == rows_of(dir.file("whole.csv")));
  }
  SECTION("not a results file, or another format: refused, nothing written") {
    dir.write("other.csv", "a,b\n1,2\n");
    std::ostringstream l;
    CHECK_THROWS_WITH(
        collect_results(ex, {dir.file("s0.csv"), dir.file("other.csv")}, dir.file("x.csv"), l),
        Contains("other.csv: not a results file: no 'experiment' column"));
    CHECK_FALSE(fs::exists(dir.file("x.csv")));
    CHECK_THROWS_WITH(collect_results(ex, {dir.file("s0.csv")}, dir.file("x.jsonl"), l),
                      Contains("collect files of one format"));
    CHECK_FALSE(fs::exists(dir.file("x.jsonl")));
  }
}

}  // namespace
}  // namespace flashpq::test_collect
