// experiments/run/row.h — a cell's results row, from what its runner measured, and which
// columns it carries.
//
// Every column is declared once (sim/columns.h ColumnSpec), by the component that fills it: the
// identity, provenance, cache, hierarchy and status columns here, the parameters by the schema
// (sim/params.h KeySpec), a device's own by its registration (devices/device.h), the timing
// columns by sim/timing.h. The wall-clock runner's (fio's names, filled by fio_columns(),
// experiments/run/wall_cell.h, in runner_column_names()' order) are declared here too, for now;
// a test checks the two lists name the same columns. result_column_sections() lists them all in row
// order; docs/reference/columns.md is rendered from it (experiments/columns.h).
//
// A row carries the columns of the sections its cell uses, decided from the cell, its trace's
// summary and its plan — all known before the cell runs, so a sweep writes a results file's
// header before its first row (docs/DESIGN.md "Results"):
//   * identity: experiment, cell; the parameters its selected components read
//     (row_parameters());
//   * provenance, and the cache metrics (framework direct: the request and device I/O counts
//     only; a framework that places nothing on its device: no device I/O columns);
//   * the hierarchy's columns with tiers.mode not none;
//   * the device type's own columns when the cell does device I/O on it;
//   * the wall-clock runner's columns on the wall clock; the timing columns in timed cells;
//   * wall_seconds, notes when there are notes; error only in a failed cell's row, which
//     carries nothing else but its identity.
// A few columns are carried only where they have a value, known once the cell ran
// (ColumnSpec::if_set): error, and what a block device met (block_notes, the drive's
// nvme_*_bytes_written and wa_device).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "devices/device.h"
#include "experiments/config/cell_config.h"
#include "experiments/run/measure.h"
#include "sim/columns.h"
#include "traces/trace_summary.h"

namespace flashpq {

/// The row of `cell`, measured as `m` on `device`: the columns row_columns() names, in that
/// order, and the device's if_set columns the run gave a value, in declared order. Throws
/// std::logic_error if a column row_columns() names was not filled (a programming error).
ResultRow build_row(const CellConfig& cell, const TraceSummary& summary, const CellPlan& plan,
                    const Measurement& m, const Device& device);

/// The row of a cell that failed: its identity (experiment, cell, row_parameters()) and
/// `error`.
ResultRow failed_row(const CellConfig& cell, const std::string& error);

/// The parameters a row of `cell` carries, (dotted key, text) in schema order: every key a
/// selected component reads — the always-read keys (seed, warmup, cache.capacity, each
/// section's selector: framework.name, device.name …) included, so rows of different
/// components stand side by side, told apart by their selectors — each with a non-empty text;
/// and a key no selected component reads only when it holds another value than its default (a
/// matrix crossing framework.name with framework.insertion_points shows K in exact's rows, as
/// written; two cells that differ in a value written never share an identity, even where a
/// component reads a key it does not declare). Not carried: a strict key no selected component
/// reads (it has no value), an unread key at its default (the tiers.* keys of a cell without
/// tiers), a key a component left empty (device.blocks_per_plane sized per cell: see
/// device_exported_bytes).
std::vector<std::pair<std::string, std::string>> row_parameters(const CellConfig& cell);

/// The columns of the row build_row() writes for `cell` planned as `plan` on a trace summarised
/// as `summary`, in row order, without the if_set columns.
std::vector<std::string> row_columns(const CellConfig& cell, const TraceSummary& summary,
                                     const CellPlan& plan);

/// The columns of `cell`'s row as known before it runs: row_columns() with plan_cell()'s plan,
/// or failed_row()'s when `summary` is null (the trace could not be summarised) or plan_cell()
/// throws (the cell will fail). A cell that fails later adds `error` (if_set).
std::vector<std::string> planned_row_columns(const CellConfig& cell, const TraceSummary* summary);

/// Every column a row may carry, by section in row order: identity, parameters (every schema
/// key), provenance, cache, hierarchy, each device type's own (registration order; types without
/// columns left out), the wall-clock runner's, timing, status. Names are unique across sections
/// (checked at first use: std::logic_error otherwise).
const std::vector<ColumnSection>& result_column_sections();

/// The names of result_column_sections(), in order: the order every results header follows.
const std::vector<std::string>& result_column_order();

}  // namespace flashpq
