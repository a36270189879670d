// sim/cell_runner.h — runs one experiment cell: trace → cache → stats → one results row.
#pragma once

#include <string>
#include <vector>

#include "experiments/experiment.h"
#include "traces/trace_summary.h"

namespace flashpq {

/// One column of a results row. `numeric` columns are written unquoted in JSON Lines; an empty
/// numeric text means "no value" (null), e.g. a hit ratio with no get requests.
struct Column {
  std::string name;
  std::string text;
  bool numeric = false;
};

/// A results row: the same columns, in the same order, for every cell of every experiment.
using ResultRow = std::vector<Column>;

/// Runs `cell` on its trace, whose one-pass summary is `summary`, and returns its row:
/// identity (experiment, cell), every parameter under its dotted key, resolved values
/// (cache_capacity_bytes, warmup_requests), provenance (flashpq_version, trace_hash, seed and
/// the trace's totals) and every metric with its unit in the name (DESIGN.md "Results").
/// The row is a pure function of the cell and the trace bytes, except `wall_seconds`.
/// Throws on failure (the sweep records the message in the row's `error` column).
ResultRow run_cell(const CellConfig& cell, const TraceSummary& summary);

/// How many objects a cache of `capacity_bytes` is expected to hold on a trace: the capacity in
/// unit-size mode, else the capacity over the trace's mean object size (working set ÷ unique
/// objects, floored, at least 1 byte); at least 1. It sizes the index reserve and TinyLFU's
/// sketch (an object count, never bytes: engine/admission.h); run_cell and `flashpq bench` both
/// use it, so they build the same sketch.
uint64_t expected_cached_objects(uint64_t capacity_bytes, bool unit_size,
                                 const TraceSummary& summary);

/// The row of a cell that failed: the same columns, metrics empty, `error` set.
ResultRow failed_row(const CellConfig& cell, const std::string& error);

}  // namespace flashpq
