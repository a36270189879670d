// experiments/collect.h — merges the results files of a sweep's parts (cluster tasks' shards,
// an earlier results file) into one, in cell order.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "experiments/experiment.h"

namespace flashpq {

/// What collect_results() found.
struct CollectReport {
  size_t rows = 0;              // rows written
  std::vector<size_t> missing;  // cells of the matrix without a row
  std::vector<size_t> failed;   // cells whose only row carries an error
  size_t inputs_absent = 0;     // inputs that do not exist (tasks that never ran)
};

/// Reads every existing file of `inputs` (results files with the columns `ex` writes, read by
/// read_results(); an unfinished last record is dropped) and writes `output`: one row per cell
/// of `ex`, in cell order — a finished row (error empty) where any input has one, else a failed
/// one — then the finished rows of cells not in `ex`, in input order. `output` may be one of
/// the inputs; it is replaced through a temporary file only once complete. The log gets one
/// line: rows, inputs, missing and failed cells (as ranges). Throws std::runtime_error naming
/// the file if an input cannot be read or has other columns; then nothing is written.
CollectReport collect_results(const Experiment& ex, const std::vector<std::string>& inputs,
                              const std::string& output, std::ostream& log);

}  // namespace flashpq
