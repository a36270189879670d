// experiments/collect.cpp — merging results files (experiments/collect.h).
#include "experiments/collect.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <ostream>

#include "experiments/columns.h"
#include "experiments/config/schema.h"
#include "experiments/results.h"
#include "experiments/run/row.h"
#include "experiments/sweep.h"
#include "fmt/format.h"

namespace flashpq {

namespace {

// A row's identity under `keys`: its experiment and the texts of those columns.
std::string identity(const std::string& experiment, const std::vector<std::string>& values) {
  std::string id = experiment;
  for (const std::string& v : values) id += '\x1f' + v;  // unit separator: not in any value
  return id;
}

// The default text of every key of the schema, by name: what a row written before a key existed
// was computed with.
const std::map<std::string, std::string>& key_defaults() {
  static const std::map<std::string, std::string> defaults = [] {
    std::map<std::string, std::string> m;
    for (const SectionSpec* s : schema_section_specs()) {
      for (const KeySpec& k : s->keys) m.emplace(k.name, k.default_value);
      for (const ComponentSpec& c : s->components) {
        for (const KeySpec& k : c.keys) m.emplace(k.name, k.default_value);
      }
    }
    return m;
  }();
  return defaults;
}

}  // namespace

CellMatcher::CellMatcher(const std::vector<const CellConfig*>& cells) : claimed_(cells.size()) {
  for (size_t i = 0; i < cells.size(); ++i) {
    std::vector<std::string> keys, values;
    for (auto& [k, v] : row_parameters(*cells[i])) {
      keys.push_back(k);
      values.push_back(v);
    }
    auto it =
        std::find_if(sets_.begin(), sets_.end(), [&](const KeySet& s) { return s.keys == keys; });
    if (it == sets_.end()) {
      sets_.push_back(KeySet{keys, {}});
      it = sets_.end() - 1;
    }
    it->positions[identity(cells[i]->experiment, values)].push_back(i);
  }
  // More parameters first; among equals, the order first met.
  std::stable_sort(sets_.begin(), sets_.end(),
                   [](const KeySet& a, const KeySet& b) { return a.keys.size() > b.keys.size(); });
}

std::optional<size_t> CellMatcher::lookup(const StoredRow& row, bool claimed_too) const {
  for (const KeySet& s : sets_) {
    std::vector<std::string> values;
    for (const std::string& k : s.keys) {
      // A column the row lacks altogether is a key newer than the file: its default.
      const auto f = row.fields.find(k);
      if (f != row.fields.end()) {
        values.push_back(f->second);
      } else {
        const auto d = key_defaults().find(k);
        values.push_back(d != key_defaults().end() ? d->second : std::string());
      }
    }
    const auto it = s.positions.find(identity(row.field("experiment"), values));
    if (it == s.positions.end()) continue;
    for (const size_t pos : it->second) {
      if (claimed_too || !claimed_[pos]) return pos;
    }
  }
  return std::nullopt;
}

CollectReport collect_results(const Experiment& ex, const std::vector<std::string>& inputs,
                              const std::string& output, std::ostream& log) {
  CollectReport report;
  if (ex.cells.empty()) throw std::runtime_error("collect: the experiment has no cells");
  std::vector<const CellConfig*> cells;
  for (const CellConfig& cell : ex.cells) cells.push_back(&cell);
  CellMatcher matcher(cells);
  std::vector<std::optional<StoredRow>> rows(ex.cells.size());
  std::vector<StoredRow> others;
  std::vector<std::vector<std::string>> headers;
  size_t read = 0;
  for (const std::string& input : inputs) {
    if (!std::filesystem::exists(input)) {
      ++report.inputs_absent;
      continue;
    }
    if (is_json_results(input) != is_json_results(output)) {
      throw std::runtime_error(fmt::format(
          "{}: a {} file, but {} is {}: collect files of one format; nothing was written", input,
          is_json_results(input) ? "JSON Lines" : "CSV", output,
          is_json_results(output) ? "JSON Lines" : "CSV"));
    }
    StoredResults stored = read_results(input);
    if (stored.rows.empty()) continue;
    for (const char* needed : {"experiment", "cell"}) {
      if (std::find(stored.columns.begin(), stored.columns.end(), needed) == stored.columns.end()) {
        throw std::runtime_error(fmt::format(
            "{}: not a results file: no '{}' column (its columns: {}); nothing was written", input,
            needed, join_names(stored.columns)));
      }
    }
    ++read;
    headers.push_back(stored.columns);
    for (StoredRow& row : stored.rows) {
      const bool ok = row.field("error").empty();
      // A cell's first finished row is its row; a failed one only until a finished one comes.
      const std::optional<size_t> at = matcher.find(row);
      if (!at) {
        if (ok && !matcher.matches(row)) others.push_back(std::move(row));
        continue;  // a cell not in `ex`, or another row of a cell that has its finished row
      }
      auto& slot = rows[*at];
      if (ok) {
        slot = std::move(row);
        matcher.claim(*at);
      } else if (!slot) {
        slot = std::move(row);
      }
    }
  }
  std::vector<StoredRow> kept;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (!rows[i]) {
      report.missing.push_back(i);
      continue;
    }
    if (!rows[i]->field("error").empty()) report.failed.push_back(i);
    kept.push_back(std::move(*rows[i]));
  }
  for (auto& r : others) kept.push_back(std::move(r));
  report.rows = kept.size();
  // The inputs' columns, less those carried only with a value that no kept row has (the error
  // column of a failed row a finished one replaced).
  std::vector<std::string> columns;
  for (const std::string& c : merge_columns(headers)) {
    if (!column_if_set(c) || std::any_of(kept.begin(), kept.end(),
                                         [&](const StoredRow& r) { return !r.field(c).empty(); })) {
      columns.push_back(c);
    }
  }
  ResultsWriter(output, columns, kept);
  log << fmt::format("flashpq collect: {} rows from {} files into {}", report.rows, read, output);
  if (report.inputs_absent) log << fmt::format(", {} inputs absent", report.inputs_absent);
  if (!report.missing.empty()) {
    log << fmt::format("; {} cells missing: {}", report.missing.size(),
                       format_cell_ranges(report.missing));
  }
  if (!report.failed.empty()) {
    log << fmt::format("; {} cells failed: {}", report.failed.size(),
                       format_cell_ranges(report.failed));
  }
  log << "\n";
  return report;
}

}  // namespace flashpq
