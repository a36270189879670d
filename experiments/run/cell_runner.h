// experiments/run/cell_runner.h — runs one experiment cell: trace → cache → stats → one results
// row.
//
// run_cell() plans the cell against its trace's summary (experiments/run/measure.h), hands it
// to the runner its timing mode and device select (experiments/run/runners.h), which builds the
// device and measures, and builds the row (experiments/run/row.h).
#pragma once

#include <string>

#include "experiments/config/cell_config.h"
#include "sim/columns.h"
#include "traces/trace_summary.h"

namespace flashpq {

/// Runs `cell` on its trace, whose one-pass summary is `summary`, and returns its row:
/// identity (experiment, cell), every parameter under its dotted key, resolved values
/// (cache_capacity_bytes, warmup_requests), provenance (flashpq_version, trace_hash, seed and
/// the trace's totals) and every metric with its unit in the name (docs/DESIGN.md "Results").
/// The row is a pure function of the cell and the trace bytes, except `wall_seconds` (and the
/// timing of a real device). Throws on failure (the sweep records the message in the row's
/// `error` column).
ResultRow run_cell(const CellConfig& cell, const TraceSummary& summary);

}  // namespace flashpq
