// experiments/curves.h — whole curves in one pass: `flashpq mrc` (docs/guide/curves.md).
//
// A sweep over cache sizes is the sweep researchers run most. Instead of one full cell per size,
// a curve is computed over one read of the trace, by one of three methods:
//   * exact_lru — the LRU stack distances of every request (engine/lru_stack.h; Mattson et al.
//     1970), object-wise in unit-size mode and byte-wise otherwise, read at any number of sizes.
//     Equal to the LRU cells (policy lru, framework exact) when the trace has no delete, no key
//     that changes size and (with sizes) no request larger than the size: the row's
//     curve_exact says so per point.
//   * shards — SHARDS (Waldspurger, Park, Garthwaite, Ahmad, "Efficient MRC Construction with
//     SHARDS", FAST'15): the stack distances of the requests whose key hashes below a
//     threshold, rescaled by 1/R. Fixed rate (§3: R = T/P, P = 2^24, the hash XXH3-64 of the
//     key, as the `sample` transform; with SHARDS_adj, §4.3) or fixed size (§4.2, SHARDS_max:
//     at most `sample_keys` keys, the largest hash evicted and the threshold lowered to it).
//   * minisim — miniature simulation (Waldspurger, Saemundsson, Ahmad, Park, "Cache Modeling
//     and Optimization using Miniature Simulations", USENIX ATC'17): the trace sampled once
//     at rate R (the `sample` transform), then one cell per size at R × the size on the sample,
//     for every policy, admission, framework and device the cell's keys name (functional mode),
//     so write-amplification columns come out as curves too.
// Every row carries the method, the sampling rate and whether the point is exact; its other
// columns are the results rows' (docs/reference/columns.md).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "experiments/experiment.h"
#include "sim/columns.h"

namespace flashpq {

/// How a curve is computed.
struct CurveMethod {
  /// exact_lru, shards or minisim.
  std::string method = "exact_lru";
  /// shards (fixed rate) and minisim: the sampling rate R in (0, 1].
  double rate = 0.01;
  /// shards: the fixed-size sample's most keys (SHARDS_max); 0 = fixed rate.
  uint64_t sample_keys = 0;
};

/// What `flashpq mrc TRACE` is asked.
struct CurveOptions : CurveMethod {
  /// The trace file (any format trace.format reads).
  std::string trace_path;
  /// The sizes, as cache.capacity reads them: bytes with a unit, or with a decimal point a
  /// fraction of the working set. At least one.
  std::vector<std::string> sizes;
  /// The cell's keys (--set KEY=VALUE): policy, framework, device, cache.unit_size, warmup, …
  std::vector<Override> overrides;
};

/// Computes the curve `options` asks for, one row per size in the order given. Progress and
/// warnings (an inexact point and why) go to `log`. Throws ConfigError for a bad key or size,
/// std::invalid_argument for a method that does not fit the cell (exact_lru and shards compute
/// LRU: another policy.name or framework.name is refused, naming minisim), TraceError for an
/// unreadable trace.
std::vector<ResultRow> compute_curve(const CurveOptions& options, std::ostream& log);

/// The curves of an experiment (`flashpq mrc EXP.yaml`): its cells grouped by every parameter
/// but cache.capacity (a matrix over policies and sizes: one curve per policy, at its sizes), a
/// curve per group, the rows in the order of each group's first cell. Throws as
/// compute_curve().
std::vector<ResultRow> compute_experiment_curves(const Experiment& experiment,
                                                 const CurveMethod& method, std::ostream& log);

/// The columns of `rows` in order of first appearance (minisim's wa_ columns differ between
/// frameworks): a curve file's header.
std::vector<std::string> curve_columns(const std::vector<ResultRow>& rows);

/// Writes `rows` to the results file `path` (.csv, or .jsonl for JSON Lines) under the header
/// curve_columns(rows). Throws std::runtime_error as ResultsWriter (experiments/results.h).
void write_curves(const std::vector<ResultRow>& rows, const std::string& path);

/// The curve of `cells`, cells alike but for cache.capacity, one row each, in order. Throws as
/// compute_curve().
std::vector<ResultRow> curve_of_cells(const CurveMethod& method,
                                      const std::vector<CellConfig>& cells, std::ostream& log);

}  // namespace flashpq
