// tests/experiments/test_plan.cpp — flashpq plan (experiments/plan.h): duplicate cells (keys
// their components do not read), the work and memory summed per cell, one timed sample per
// class of cells, and what it prints.
#include <catch2/catch.hpp>
#include <sstream>
#include <string>

#include "experiments/experiment.h"
#include "experiments/plan.h"
#include "experiments/run/cell_runner.h"
#include "experiments/run/measure.h"
#include "tests/test_util.h"
#include "traces/trace_summary.h"

namespace flashpq {
namespace {

using namespace flashpq::testing;  // tests/test_util.h
using Catch::Contains;

const std::string kTrace = FLASHPQ_SOURCE_DIR "/traces/data/adaptsize-request.oracleGeneral.zst";

TEST_CASE("plan: cells differing only in a key their framework ignores are duplicates", "[plan]") {
  TempDir dir;
  // exact does not read insertion_points: its two cells compute the same thing; ripq's differ.
  const Experiment ex = load_experiment(
      dir.write("d.yaml", "name: d\ntrace:\n  path: " + kTrace +
                              "\ncache: {capacity: 0.1}\nmatrix:\n  framework.name: [exact, ripq]\n"
                              "  framework.insertion_points: [2, 4]\n"),
      {});
  REQUIRE(ex.cells.size() == 4);
  PlanOptions o;
  o.sample_requests = 5000;
  o.summaries.enabled = false;
  std::ostringstream log, out;
  const SweepPlan p = plan_sweep(ex, o, log);
  REQUIRE(p.duplicates.size() == 1);
  CHECK(p.duplicates[0] == std::vector<size_t>{0, 1});
  const uint64_t requests = summarize_trace(ex.cells[0].trace).requests;
  CHECK(p.requests == 4 * requests);
  REQUIRE(p.cells.size() == 4);
  for (const CellEstimate& e : p.cells) {
    CHECK(e.sampled);
    CHECK(e.seconds > 0);
    CHECK(e.memory_bytes ==
          estimate_cell_memory(ex.cells[e.cell], summarize_trace(ex.cells[0].trace)));
  }
  CHECK(p.samples == 2);  // one class per framework: same trace, device, timing and policy
  print_plan(ex, p, o, out);
  CHECK_THAT(out.str(), Contains("experiment d: 4 cells") &&
                            Contains("cell 0: framework.name=exact framework.insertion_points=2") &&
                            Contains("1 cells repeat another cell's computation") &&
                            Contains("cells 0, 1: differ only in framework.insertion_points") &&
                            Contains(std::to_string(4 * requests) + " requests"));
}

TEST_CASE("plan: a matrix without repeats has no duplicates", "[plan]") {
  TempDir dir;
  const Experiment ex = load_experiment(
      dir.write("n.yaml",
                "name: n\ntrace:\n  path: " + kTrace +
                    "\nmatrix:\n  cache.capacity: [0.05, 0.1]\n  policy.name: [fifo, lru]\n"),
      {});
  PlanOptions o;
  o.sample_requests = 5000;
  o.summaries.enabled = false;
  std::ostringstream log, out;
  const SweepPlan p = plan_sweep(ex, o, log);
  CHECK(p.duplicates.empty());
  CHECK(p.samples == 2);  // fifo and lru
  print_plan(ex, p, o, out);
  CHECK_THAT(out.str(), Contains("duplicates: none"));
}

}  // namespace
}  // namespace flashpq

namespace flashpq {
namespace {

TEST_CASE("plan: no bundled experiment runs a cell twice", "[plan]") {
  for (const char* name : {"quickstart", "ripq_paper", "ripq_k", "flash_fig2", "sim_vs_real",
                           "sim_vs_real_io", "bench/jobs16", "paper/fig2", "paper/fig8",
                           "paper/fig9", "paper/cache_size", "paper/block_size", "tiers"}) {
    INFO(name);
    const Experiment ex =
        load_experiment(std::string(FLASHPQ_SOURCE_DIR "/experiments/") + name + ".yaml", {});
    CHECK(!ex.cells.empty());
    CHECK(duplicate_cells(ex).empty());
  }
}

TEST_CASE("plan: the paper's cache matrices run with no warning and 256 blocks at C/256",
          "[plan][slow]") {
  for (const char* name : {"fig8", "fig9", "cache_size", "block_size"}) {
    INFO(name);
    const Experiment ex =
        load_experiment(std::string(FLASHPQ_SOURCE_DIR "/experiments/paper/") + name + ".yaml", {});
    const TraceSummary summary = summarize_trace(ex.cells.front().trace);
    for (const CellConfig& cell : ex.cells) {
      INFO("cell " << cell.index);
      const CellPlan plan = plan_cell(cell, summary);
      CHECK(plan.notes.empty());
      if (plan.layout.block_bytes != 0) {
        CHECK(plan.cache.capacity_bytes / plan.layout.block_bytes >= 64);
        if (cell.framework.params.text("framework.block_size") == "0.00390625") {
          CHECK(plan.cache.capacity_bytes / plan.layout.block_bytes >= 256);
        }
      }
    }
  }
}

}  // namespace
}  // namespace flashpq
