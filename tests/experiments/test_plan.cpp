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

namespace flashpq::test_plan {
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
}  // namespace flashpq::test_plan

namespace flashpq::test_plan {
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

TEST_CASE("plan: refuses what run refuses, with run's messages, and warns as run's rows note",
          "[plan]") {
  TempDir dir;
  // Cell 0: RIPQ with 64 MiB blocks in a 26 MiB cache fails; cell 1: the default block size
  // (auto) on the same cache works; cell 2: SIPQ with a log of one 20 MiB block fails; cell 3:
  // exact at the whole working set works, with a note.
  const Experiment ex = load_experiment(
      dir.write("f.yaml", "name: f\ntrace:\n  path: " + kTrace +
                              "\nzip:\n  framework.name: [ripq, ripq, sipq, exact]\n"
                              "  framework.block_size: [64MiB, auto, 20MiB, auto]\n"
                              "  cache.capacity: [0.1, 0.1, 0.1, 1.0]\n"),
      {});
  REQUIRE(ex.cells.size() == 4);
  PlanOptions o;
  o.sample_requests = 2000;
  o.summaries.enabled = false;
  std::ostringstream log, out;
  const SweepPlan p = plan_sweep(ex, o, log);
  const TraceSummary summary = summarize_trace(ex.cells[0].trace);
  // What run says of each cell: its error, or its notes.
  std::vector<std::string> errors(4), notes(4);
  for (size_t i = 0; i < 4; ++i) {
    try {
      for (const Column& c : run_cell(ex.cells[i], summary)) {
        if (c.name == "notes") notes[i] = c.text;
      }
    } catch (const std::exception& e) {
      errors[i] = e.what();
    }
  }
  REQUIRE(!errors[0].empty());
  REQUIRE(errors[1].empty());
  REQUIRE(!errors[2].empty());
  REQUIRE(errors[3].empty());
  REQUIRE(!notes[3].empty());
  REQUIRE(p.failures.size() == 2);
  CHECK(p.failures[0].message == errors[0]);
  CHECK(p.failures[0].cells == std::vector<size_t>{0});
  CHECK(p.failures[1].message == errors[2]);
  CHECK(p.failures[1].cells == std::vector<size_t>{2});
  // Every note of a row is a warning of the plan for that cell, and nothing else is.
  size_t warned = 0;
  for (const CellFindings& w : p.warnings) {
    for (size_t c : w.cells) {
      CHECK_THAT(notes[c], Contains(w.message));
      ++warned;
    }
  }
  size_t noted = 0;
  for (const std::string& n : notes) {
    for (size_t i = 0; i < n.size();
         i = n.find("; ", i) == std::string::npos ? n.size() : n.find("; ", i) + 2) {
      ++noted;
    }
  }
  CHECK(warned == noted);
  // The failing cells are not sampled, and say why.
  CHECK(!p.cells[0].sampled);
  CHECK(p.cells[0].not_sampled == "the cell fails");
  CHECK(p.cells[1].sampled);
  print_plan(ex, p, o, out);
  CHECK_THAT(out.str(), Contains("cell 0: FAILED: " + errors[0]) &&
                            Contains("cell 2: FAILED: " + errors[2]) &&
                            Contains("2 of 4 cells would fail") &&
                            Contains("2 cells not sampled: the cell fails"));
}

TEST_CASE("plan: an unreadable trace fails its cells, as in a run", "[plan]") {
  TempDir dir;
  const std::string bad = dir.write("bad.csv", "1,2,3\nnot,a,number\n");
  const Experiment ex =
      load_experiment(dir.write("u.yaml", "name: u\ntrace:\n  path: " + bad +
                                              "\n  format: csv\n  key_col: 1\n  size_col: 2\n"
                                              "cache: {capacity: 1MiB}\n"),
                      {});
  PlanOptions o;
  o.summaries.enabled = false;
  std::ostringstream log;
  const SweepPlan p = plan_sweep(ex, o, log);
  REQUIRE(p.failures.size() == 1);
  CHECK_THAT(p.failures[0].message, Contains("bad.csv"));
  CHECK(p.cells.size() == 1);
  CHECK(!p.cells[0].sampled);
}

}  // namespace
}  // namespace flashpq::test_plan
