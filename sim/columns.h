// sim/columns.h — one column of a results row, and how numbers are written in it.
//
// Every layer that reports results speaks this vocabulary: the timing columns (sim/timing.h),
// a device's own columns (devices/device.h) and the rows the application writes
// (experiments/run/row.h). Numbers are written so that they read back as the same value: an
// integer in decimal, a double as the shortest text that parses back to it ({fmt}'s "{}"), and
// no value (NaN, or nothing measured) as an empty field.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace flashpq {

/// One column of a results row. `numeric` columns are written unquoted in JSON Lines; an empty
/// numeric text means "no value" (null), e.g. a hit ratio with no get requests.
struct Column {
  std::string name;
  std::string text;
  bool numeric = false;
};

/// A results row: the same columns, in the same order, for every cell of every experiment.
using ResultRow = std::vector<Column>;

/// Decimal text of v.
std::string format_number(uint64_t v);
/// The shortest text that reads back as v; empty for NaN ("no value").
std::string format_number(double v);

}  // namespace flashpq
