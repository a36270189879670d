// experiments/plan.h — `flashpq plan FILE`: what a sweep would run, before it runs.
//
// The number of cells, a few of them expanded (the keys that vary), the cells that repeat
// another cell's computation (they differ only in keys no selected component reads, or not at
// all), the work (requests summed over the cells), the estimated memory per cell
// (estimate_cell_memory()) and the estimated time, from a timed sample of the first cell of
// each class of cells (same trace, framework, device, timing mode, policy and admission:
// sample_cell_cost()). Cells timed on the wall clock (a real device) are not sampled.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "experiments/experiment.h"
#include "traces/summary_cache.h"

namespace flashpq {

struct PlanOptions {
  /// Requests of each timed sample (the fit runs this many, then twice as many).
  uint64_t sample_requests = 100000;
  /// At most this many classes are sampled; beyond, classes merge (policy and admission
  /// ignored).
  size_t max_samples = 64;
  /// The workers of the sweep to be run, for the elapsed-time estimate.
  unsigned jobs = 1;
  /// Cells shown expanded.
  size_t shown = 3;
  SummaryCacheOptions summaries;
};

/// The estimate of one cell.
struct CellEstimate {
  size_t cell = 0;
  uint64_t requests = 0;
  uint64_t memory_bytes = 0;
  double seconds = 0;    // wall-clock seconds on one core; 0 if not sampled
  bool sampled = false;  // false: see not_sampled
  /// Why the cell's class was not sampled: timed on the wall clock (a sample would write a
  /// real device), the cell fails, or the sample failed; empty when sampled.
  std::string not_sampled;
};

/// What run would find wrong with cells before replaying them (plan_cell(): capacity, warm-up,
/// the framework's blocks, the device's size; an unreadable trace), and its warnings (the
/// notes a row would carry): each distinct message once, with the cells it concerns.
struct CellFindings {
  std::string message;
  std::vector<size_t> cells;
};

struct SweepPlan {
  std::vector<CellEstimate> cells;
  /// Cells that would fail (their rows would carry the error), by message, in order of first
  /// cell.
  std::vector<CellFindings> failures;
  /// Warnings, by message, in order of first cell.
  std::vector<CellFindings> warnings;
  /// Groups of cells (indices, ascending) that compute the same thing; each group's first cell
  /// is the one to keep.
  std::vector<std::vector<size_t>> duplicates;
  size_t samples = 0;  // timed samples run
  uint64_t requests = 0;
  double seconds = 0;  // summed over the cells
};

/// Groups of cells of `ex` (indices, ascending; groups in order of their first cell) that
/// compute the same thing: they differ only in keys no selected component reads, or not at all.
std::vector<std::vector<size_t>> duplicate_cells(const Experiment& ex);

/// Plans the sweep of `ex`: summarises its traces (through the summary cache), runs every check
/// `flashpq run` runs before replaying a cell (plan_cell(), experiments/run/measure.h) and
/// gathers what would fail and the warnings, finds duplicate cells, estimates memory and time.
/// A trace that cannot be read fails its cells, as in a run. Progress goes to `log`.
SweepPlan plan_sweep(const Experiment& ex, const PlanOptions& options, std::ostream& log);

/// Prints `plan` for a reader: cells, a few expanded, the cells that would fail and the
/// warnings (each message once, with its cells), duplicates with the keys that differ, work,
/// memory and time (on one core and with options.jobs workers). `flashpq plan` exits 1 when
/// plan.failures is not empty, as `flashpq run` would.
void print_plan(const Experiment& ex, const SweepPlan& plan, const PlanOptions& options,
                std::ostream& out);

}  // namespace flashpq
