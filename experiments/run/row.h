// experiments/run/row.h — a cell's results row, from what its runner measured.
//
// The columns, the same in every row (docs/DESIGN.md "Results"): experiment and cell; every
// parameter under its dotted key (schema order); cache_capacity_bytes, block_size_bytes (B
// resolved, for frameworks that write blocks), device_exported_bytes (a bounded device's
// capacity, as sized for the cache) and warmup_requests;
// flashpq_version, trace_hash, trace_requests, trace_unique_objects, trace_working_set_bytes;
// the cache's metrics after the warm-up (requests … admission_bytes); every registered device's
// own columns (the cell's device fills its own: devices/device.h); the runners' own columns
// (the wall clock's fio names); the timing columns (sim/timing.h) and latency_histogram;
// wall_seconds; notes (warnings on a legal but misleading configuration, "; "-separated); error.
#pragma once

#include <string>

#include "devices/device.h"
#include "experiments/config/cell_config.h"
#include "experiments/run/measure.h"
#include "sim/columns.h"
#include "traces/trace_summary.h"

namespace flashpq {

/// The row of `cell`, measured as `m` on `device`.
ResultRow build_row(const CellConfig& cell, const TraceSummary& summary, const CellPlan& plan,
                    const Measurement& m, const Device& device);

/// The row of a cell that failed: the same columns, metrics empty, `error` set.
ResultRow failed_row(const CellConfig& cell, const std::string& error);

}  // namespace flashpq
