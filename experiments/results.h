// experiments/results.h — writes results rows as CSV or JSON Lines (by the file's extension).
//
// Every row is written and flushed as soon as its cell finishes, so an interrupted sweep keeps
// the rows it finished. All rows of one file must have the same columns (run_cell guarantees
// it); a mismatch is a programming error and throws std::logic_error.
#pragma once

#include <fstream>
#include <string>
#include <vector>

#include "sim/cell_runner.h"

namespace flashpq {

class ResultsWriter {
 public:
  /// Creates (truncates) `path`, creating its parent directories. ".jsonl" or ".json" selects
  /// JSON Lines, anything else CSV. Throws std::runtime_error if the file cannot be created.
  explicit ResultsWriter(const std::string& path);

  /// Appends one row and flushes. Throws std::runtime_error on a write error.
  void write(const ResultRow& row);

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  bool json_ = false;
  std::ofstream out_;
  std::vector<std::string> columns_;
};

/// Quotes a CSV field when it holds a delimiter, quote or line break (RFC 4180).
std::string csv_field(const std::string& text);

}  // namespace flashpq
