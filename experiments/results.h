// experiments/results.h — writes results rows as CSV or JSON Lines (by the file's extension).
//
// Every row is written and flushed as soon as its cell finishes, so an interrupted sweep keeps
// the rows it finished, and `flashpq run --resume` reads them back (read_results()) to run only
// the cells that have none. Rows carry the columns of their cells' sections
// (experiments/run/row.h): a CSV file's header is the union of its rows' columns in the
// declared order (experiments/columns.h merge_columns()), a field a row does not carry empty; a
// JSON Lines row carries its own keys only. Both read in one line of pandas
// (pd.read_csv(path), pd.read_json(path, lines=True)).
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
/// A CSV row has a field for every column of the header; a JSON line only for its keys.
struct StoredRow {
  std::map<std::string, std::string> fields;
  std::string text;

  /// The text of column `name`; "" when the row does not carry it.
  const std::string& field(const std::string& name) const;
};

/// A results file read back by read_results().
struct StoredResults {
  /// The column names: the CSV header; the JSON lines' keys (in their order when every line
  /// has the same, else their union in the declared order: merge_columns()).
  std::vector<std::string> columns;
  std::vector<StoredRow> rows;
  /// True if the file ended in a record without its line break (a write the sweep did not
  /// finish); that record is not in `rows`.
  bool truncated_tail = false;
};

/// Reads a results file that ResultsWriter wrote: CSV (RFC 4180: quoted fields may hold commas,
/// quotes and line breaks) or JSON Lines (each line parsed by yaml-cpp, JSON being YAML; lines
/// may carry different keys). Throws std::runtime_error naming the file and line if it cannot
/// be read, if a record is malformed (other than an unfinished last one), or if a CSV record
/// has another number of fields than the header.
StoredResults read_results(const std::string& path);

class ResultsWriter {
 public:
  /// Creates (truncates) `path`, creating its parent directories, with the header `columns`
  /// (CSV: written at once; empty: the first row's columns, written with it; JSON Lines: no
  /// header). ".jsonl" or ".json" selects JSON Lines, anything else CSV. Throws
  /// std::runtime_error if the file cannot be created.
  explicit ResultsWriter(const std::string& path, const std::vector<std::string>& columns = {});

  /// Rewrites `path` with the header `columns` and the rows `kept`, then appends. A CSV row is
  /// written anew from its fields under `columns` (a column it lacks empty; an empty field of a
  /// column `columns` lacks dropped), a JSON line as it was. The rewrite goes to PATH.tmp,
  /// which replaces `path` only once complete, so the old file survives a failure. Throws
  /// std::runtime_error on an I/O error, std::logic_error if a CSV row has a value in a column
  /// `columns` lacks.
  ResultsWriter(const std::string& path, const std::vector<std::string>& columns,
                const std::vector<StoredRow>& kept);

  /// Appends one row and flushes; returns its text as written (without the line break, as
  /// StoredRow::text). A CSV row leaves the header's columns it does not carry empty; a row
  /// carrying a column the header lacks (an if_set column: error, block_notes …) first rewrites
  /// the file, as the resume constructor does, with the header merge_columns() of both (every
  /// row before it gets an empty field). Throws std::runtime_error on a write error (the rows
  /// before it stay whole), std::logic_error if the row names a column twice.
  std::string write(const ResultRow& row);

  /// Replaces `path` (through PATH.tmp, renamed over it once complete) with the header
  /// `columns` and `texts`, rows already written under `columns` (as texts() holds them), in
  /// this order. Throws std::runtime_error on an I/O error.
  static void replace(const std::string& path, const std::vector<std::string>& columns,
                      const std::vector<std::string>& texts);

  /// The header: the columns written so far (CSV) or the union of the rows' (JSON Lines).
  const std::vector<std::string>& columns() const { return columns_; }
  /// The rows' texts in file order, as the file holds them now.
  const std::vector<std::string>& texts() const { return texts_; }

  const std::string& path() const { return path_; }

 private:
  // Writes the header and texts_ to PATH.tmp, renames it over path_, reopens for appending.
  void rewrite();

  std::string path_;
  bool json_ = false;
  bool header_written_ = false;
  std::ofstream out_;
  std::vector<std::string> columns_;
  std::vector<std::string> texts_;
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
