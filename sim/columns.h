// sim/columns.h — one column of a results row, its declaration, and how numbers are written in
// it.
//
// Every layer that reports results speaks this vocabulary: the timing columns (sim/timing.h),
// a device's own columns (devices/device.h) and the rows the application writes
// (experiments/run/row.h). Each column is declared once, by the component that fills it, as a
// ColumnSpec — name, unit, a one-line definition and when a row carries it — the way keys are
// declared (sim/params.h KeySpec); docs/reference/columns.md is rendered from the declarations
// (experiments/columns.h columns_reference_markdown()). Numbers are written so that they read
// back as the same value: an integer in decimal, a double as the shortest text that parses back
// to it ({fmt}'s "{}"), and no value (NaN, or nothing measured) as an empty field.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace flashpq {

/// One column of a results row. `numeric` columns are written unquoted in JSON Lines; an empty
/// numeric text means "no value" (null), e.g. a hit ratio with no get requests.
struct Column {
  std::string name;
  std::string text;
  bool numeric = false;
};

/// A results row: the columns of the sections its cell uses, in declared order
/// (docs/reference/columns.md).
using ResultRow = std::vector<Column>;

/// The declaration of a results column, built by chaining:
/// column("wa_ftl").units("ratio").desc("NAND pages programmed / host pages written").
struct ColumnSpec {
  /// The column's name: snake_case, the unit in the name where it has one (`latency_p99_us`).
  std::string name;
  /// Written unquoted in JSON Lines (a number, or a JSON object such as fio's clat_ns); an empty
  /// text is null. Otherwise a JSON string.
  bool numeric = true;
  /// "bytes", "requests", "objects", "pages", "us", "ns", "seconds", "ratio", "MiB/s",
  /// "requests/s", … or "" (none: a name, a flag, a text).
  std::string unit;
  /// One line: what it holds — the formula where there is one, with its source.
  std::string description;
  /// When a row of its section carries it, in words ("frameworks that write device blocks");
  /// empty: every row of its section. The rule itself is the filling component's.
  std::string when;
  /// Carried only by a row where it has a value, known once the cell has run (`error`; what a
  /// block device met: `block_notes`, the drive's counters): the one exception to a results
  /// file's header being known before its first row (experiments/results.h: the first such row
  /// adds it to a CSV header).
  bool if_set = false;

  ColumnSpec() = default;
  explicit ColumnSpec(std::string column_name) : name(std::move(column_name)) {}

  ColumnSpec& units(std::string u) {
    unit = std::move(u);
    return *this;
  }
  ColumnSpec& desc(std::string text) {
    description = std::move(text);
    return *this;
  }
  ColumnSpec& only(std::string condition) {
    when = std::move(condition);
    return *this;
  }
  /// Carried only where it has a value (see if_set); `condition` says when it has one.
  ColumnSpec& only_if_set(std::string condition) {
    when = std::move(condition);
    if_set = true;
    return *this;
  }
  /// A text column (a JSON string in JSON Lines).
  ColumnSpec& text() {
    numeric = false;
    return *this;
  }
  /// This column holding `value`.
  Column with(std::string value) const { return Column{name, std::move(value), numeric}; }
};

/// Starts a column declaration (see ColumnSpec).
inline ColumnSpec column(std::string name) {
  return ColumnSpec(std::move(name));
}

/// A part of a results row (docs/reference/columns.md renders one table per section).
struct ColumnSection {
  /// Short name ("cache", "simflash", "timing").
  std::string name;
  /// Heading of the reference's section.
  std::string title;
  /// When a row carries the section, in words.
  std::string when;
  std::vector<ColumnSpec> columns;
};

/// Decimal text of v.
std::string format_number(uint64_t v);
/// The shortest text that reads back as v; empty for NaN ("no value").
std::string format_number(double v);

}  // namespace flashpq
