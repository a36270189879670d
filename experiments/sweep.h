// experiments/sweep.h — runs every cell of an experiment in order and writes its rows.
#pragma once

#include <iosfwd>
#include <string>

#include "experiments/experiment.h"

namespace flashpq {

/// Runs the cells of `ex` sequentially, writing each row to `output` as it finishes. Each
/// distinct trace is summarised once. A cell that fails records its error in its row and the
/// sweep goes on. Progress goes to `log`, one line per cell. Returns the number of failed
/// cells. Throws std::runtime_error only if the results file cannot be written.
size_t run_experiment(const Experiment& ex, const std::string& output, std::ostream& log);

}  // namespace flashpq
