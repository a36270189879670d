// experiments/sweep.h — runs every cell of an experiment in order and writes its rows.
#pragma once

#include <iosfwd>
#include <string>

#include "experiments/experiment.h"

namespace flashpq {

/// Runs the cells of `ex` sequentially, writing each row to `output` as it finishes. Each
/// distinct trace is summarised once. A cell that fails records its error in its row and the
/// sweep goes on. Progress goes to `log`, one line per cell. Returns the number of failed
/// cells.
///
/// resume = false: `output` is created or truncated. resume = true and `output` exists: its rows
/// are read back (read_results()) and every cell with a finished row — same experiment name and
/// the same text for every parameter, error empty — is skipped. The file is rewritten with the
/// finished rows (failed rows are dropped, their cells run again; rows of cells no longer in
/// the matrix are kept; an unfinished last record is dropped), then the other cells' rows are
/// appended. Throws std::runtime_error if the results file cannot be read or written, or if
/// its columns are not the ones this run writes (it is then left untouched).
size_t run_experiment(const Experiment& ex, const std::string& output, std::ostream& log,
                      bool resume = false);

}  // namespace flashpq
