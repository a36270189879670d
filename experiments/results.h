// experiments/results.h — writes results rows as CSV or JSON Lines (by the file's extension).
//
// Every row is written and flushed as soon as its cell finishes, so an interrupted sweep keeps
// the rows it finished, and `flashpq run --resume` reads them back (read_results()) to run only
// the cells that have none. All rows of one file must have the same columns (run_cell guarantees
// it); a mismatch is a programming error and throws std::logic_error.
#pragma once

#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "sim/columns.h"

namespace flashpq {

/// True if `path` names a JSON Lines results file (".jsonl" or ".json"); CSV otherwise.
bool is_json_results(const std::string& path);

/// One row read back from a results file: its fields by column name (JSON null reads as ""),
/// and its text exactly as written (one CSV record or one JSON line, without the line break).
struct StoredRow {
  std::map<std::string, std::string> fields;
  std::string text;
};

/// A results file read back by read_results().
struct StoredResults {
  /// The column names: the CSV header, or the keys of the first JSON line, in order.
  std::vector<std::string> columns;
  std::vector<StoredRow> rows;
  /// True if the file ended in a record without its line break (a write the sweep did not
  /// finish); that record is not in `rows`.
  bool truncated_tail = false;
};

/// Reads a results file that ResultsWriter wrote: CSV (RFC 4180: quoted fields may hold commas,
/// quotes and line breaks) or JSON Lines (each line parsed by yaml-cpp, JSON being YAML).
/// Throws std::runtime_error naming the file and line if it cannot be read, if a record is
/// malformed (other than an unfinished last one), or if a row has other columns than the first.
StoredResults read_results(const std::string& path);

class ResultsWriter {
 public:
  /// Creates (truncates) `path`, creating its parent directories. ".jsonl" or ".json" selects
  /// JSON Lines, anything else CSV. Throws std::runtime_error if the file cannot be created.
  explicit ResultsWriter(const std::string& path);

  /// Resumes `path`: rewrites it with the CSV header of `columns` (none for JSON Lines) and the
  /// rows `kept` (texts as StoredRow::text), then appends. The rewrite goes to PATH.tmp, which
  /// replaces `path` only once complete, so the old file survives a failure. Rows written
  /// later must have exactly `columns`. Throws std::runtime_error on an I/O error.
  ResultsWriter(const std::string& path, const std::vector<std::string>& columns,
                const std::vector<std::string>& kept);

  /// Appends one row and flushes; returns its text as written (without the line break, as
  /// StoredRow::text). Throws std::runtime_error on a write error.
  std::string write(const ResultRow& row);

  /// The columns written so far (empty before the first row of a new file).
  const std::vector<std::string>& columns() const { return columns_; }

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  bool json_ = false;
  std::ofstream out_;
  std::vector<std::string> columns_;
};

/// Quotes a CSV field when it holds a delimiter, quote or line break (RFC 4180).
std::string csv_field(const std::string& text);

/// One CSV record: its fields, its text without the line break, the line it starts on.
struct CsvRecord {
  std::vector<std::string> fields;
  std::string text;
  size_t line = 0;
};
/// Splits CSV text into records (RFC 4180, as csv_field() writes them). A last record without
/// its line break is left out and truncated_tail set. Throws std::runtime_error naming
/// path:line for a quote inside an unquoted field.
std::vector<CsvRecord> split_csv(const std::string& data, const std::string& path,
                                 bool& truncated_tail);

}  // namespace flashpq
