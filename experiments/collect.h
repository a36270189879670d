// experiments/collect.h — merges the results files of a sweep's parts (cluster tasks' shards,
// an earlier results file) into one, in cell order; and finds the cell a stored row is the row
// of (collect and `flashpq run --resume`).
#pragma once

#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "experiments/experiment.h"
#include "experiments/results.h"

namespace flashpq {

/// Finds the cell a stored row is the row of: the same experiment and, for every parameter the
/// cell's row carries (row_parameters(), experiments/run/row.h), the same text. A parameter the
/// cell's row does not carry is not compared: a key no selected component reads cannot change
/// what the cell computes, and a row of the earlier all-columns format shows such keys (at
/// their defaults, or as written). A parameter whose column the row lacks altogether (a file
/// written before the key existed) compares as the key's default. Cells that differ only in such
/// keys compute the same thing and match the same rows; claim() hands each of them its own.
class CellMatcher {
 public:
  /// Over `cells`; positions are indices into it. The cells must outlive the matcher.
  explicit CellMatcher(const std::vector<const CellConfig*>& cells);

  /// The first position, in order, of an unclaimed cell that `row` matches; std::nullopt if
  /// none. Cells whose rows carry more parameters are tried first: where a row matches cells
  /// of two parameter sets (they agree on the keys both carry), the one that compares more.
  std::optional<size_t> find(const StoredRow& row) const { return lookup(row, false); }
  /// Whether `row` matches any cell, claimed or not.
  bool matches(const StoredRow& row) const { return lookup(row, true).has_value(); }
  /// Marks position `pos` as having its row: find() skips it from now on.
  void claim(size_t pos) { claimed_.at(pos) = true; }

 private:
  std::optional<size_t> lookup(const StoredRow& row, bool claimed_too) const;

  struct KeySet {
    std::vector<std::string> keys;
    std::map<std::string, std::vector<size_t>> positions;  // identity -> positions, ascending
  };
  std::vector<KeySet> sets_;
  std::vector<bool> claimed_;
};

/// What collect_results() found.
struct CollectReport {
  size_t rows = 0;              // rows written
  std::vector<size_t> missing;  // cells of the matrix without a row
  std::vector<size_t> failed;   // cells whose only row carries an error
  size_t inputs_absent = 0;     // inputs that do not exist (tasks that never ran)
};

/// Reads every existing file of `inputs` (results files of `ex`, read by read_results(); an
/// unfinished last record is dropped) and writes `output`: one row per cell of `ex`, in cell
/// order — a finished row (error empty) where any input has one, else a failed one — then the
/// finished rows of cells not in `ex`, in input order. The inputs may carry different columns
/// (shards of different cells): the output's header is the union of the inputs' headers
/// (merge_columns(), experiments/columns.h), a CSV row's columns its input lacks empty.
/// `output` may be one of the inputs; it is replaced through a temporary file only once
/// complete. The log gets one line: rows, inputs, missing and failed cells (as ranges). Throws
/// std::runtime_error naming the file if an input cannot be read, is not a results file (no
/// `experiment` or `cell` column) or is of the other format than `output`; then nothing is
/// written.
CollectReport collect_results(const Experiment& ex, const std::vector<std::string>& inputs,
                              const std::string& output, std::ostream& log);

}  // namespace flashpq
