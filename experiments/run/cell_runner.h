// experiments/run/cell_runner.h — runs one experiment cell: trace → cache → stats → one results
// row.
//
// run_cell() plans the cell against its trace's summary (experiments/run/measure.h), hands it
// to the runner its timing mode and device select (experiments/run/runners.h), which builds the
// device and measures, and builds the row (experiments/run/row.h).
#pragma once

#include <atomic>
#include <cstdint>
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
/// `progress`, when given, counts the requests read so far (a sweep's progress line); it does
/// not change the row. When `interrupt` turns true the cell stops at its next batch of requests
/// and throws CellInterrupted (experiments/run/measure.h).
ResultRow run_cell(const CellConfig& cell, const TraceSummary& summary,
                   std::atomic<uint64_t>* progress = nullptr,
                   const std::atomic<bool>* interrupt = nullptr);

/// An upper estimate of the memory, in bytes, that running `cell` on a trace summarised as
/// `summary` adds to the process: the hit statistics' seen-key set (32 B per distinct key of
/// the trace: a power-of-two table at most half full), the cache's index, lists and policy
/// state (96 B per expected object), TinyLFU's sketch and doorkeeper, a hierarchy's DRAM tier
/// (96 B per object it is expected to hold), nhit table and dirty map, simflash's maps (24 B per
/// exported page) and a fixed 48 MiB for the reader's prefetch ring, decode buffers and slack.
/// The sweep keeps the sum over running cells within `flashpq run --memory`; a test checks it
/// against the growth of the peak resident set of cells run in a child process. A cell whose
/// plan fails is estimated at the fixed part (it fails at once when run).
uint64_t estimate_cell_memory(const CellConfig& cell, const TraceSummary& summary);

/// The wall-clock cost of a cell, measured on a sample: seconds = setup_seconds +
/// seconds_per_request × requests.
struct CellCost {
  double setup_seconds = 0;
  double seconds_per_request = 0;
  double seconds(uint64_t requests) const {
    return setup_seconds + seconds_per_request * static_cast<double>(requests);
  }
};

/// Runs `cell` on the first `requests` and the first 4 × `requests` requests of its trace (the
/// warm-up as planned for the whole trace) and fits its cost from the two wall-clock times
/// (flashpq plan's timed sample; the setup clamped at 0; when the longer sample is not slower,
/// its whole time over its requests, an upper bound). Refuses (std::invalid_argument) a cell
/// timed on the wall clock: a sample would write a real device. Throws as run_cell().
CellCost sample_cell_cost(const CellConfig& cell, const TraceSummary& summary, uint64_t requests);

}  // namespace flashpq
