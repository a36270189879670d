// experiments/columns.h — the results columns as a whole: the order every results header
// follows, and the reference users read (docs/reference/columns.md).
//
// The columns are declared by the components that fill them and listed in row order by
// result_column_sections() (experiments/run/row.h); this file only puts them together.
#pragma once

#include <string>
#include <vector>

namespace flashpq {

/// The union of `lists` of column names, in the declared row order (result_column_order()):
/// the header of a results file whose rows carry these columns. Names not declared (a file
/// written by another FlashPQ version) follow the declared ones, in the order first met.
std::vector<std::string> merge_columns(const std::vector<std::vector<std::string>>& lists);

/// Whether the column `name` is carried only by rows where it has a value (ColumnSpec::if_set:
/// error, a block device's block_notes and drive counters). Merging files (--resume, collect),
/// such a column no kept row has a value in is left out: no row carries it.
bool column_if_set(const std::string& name);

/// The reference of every results column, as Markdown: one section per part of a row (when a
/// row carries it), one table row per column (name, unit, definition, when). The text of
/// docs/reference/columns.md (a test checks the file equals it).
std::string columns_reference_markdown();

}  // namespace flashpq
