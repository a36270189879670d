// experiments/collect.cpp — merging results files (experiments/collect.h).
#include "experiments/collect.h"

#include <filesystem>
#include <map>
#include <optional>
#include <ostream>

#include "experiments/results.h"
#include "experiments/run/row.h"
#include "experiments/sweep.h"
#include "fmt/format.h"

namespace flashpq {

CollectReport collect_results(const Experiment& ex, const std::vector<std::string>& inputs,
                              const std::string& output, std::ostream& log) {
  CollectReport report;
  if (ex.cells.empty()) throw std::runtime_error("collect: the experiment has no cells");
  std::vector<std::string> columns;
  for (const auto& c : failed_row(ex.cells.front(), "")) columns.push_back(c.name);
  // identity -> cell index
  std::map<std::string, size_t> cell_of;
  for (const CellConfig& cell : ex.cells) {
    std::string id = cell.experiment;
    for (const auto& [k, v] : cell.parameters) id += '\x1f' + v;
    cell_of.emplace(std::move(id), cell.index);
  }
  std::vector<std::optional<StoredRow>> rows(ex.cells.size());
  std::vector<std::string> others;
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
    const StoredResults stored = read_results(input);
    if (stored.rows.empty()) continue;
    if (stored.columns != columns) {
      throw std::runtime_error(fmt::format(
          "{}: not a results file of this experiment's columns ({} columns, {} expected); "
          "nothing was written",
          input, stored.columns.size(), columns.size()));
    }
    ++read;
    for (const StoredRow& row : stored.rows) {
      std::string id = row.fields.at("experiment");
      for (const auto& [k, v] : ex.cells.front().parameters) id += '\x1f' + row.fields.at(k);
      const bool ok = row.fields.at("error").empty();
      const auto it = cell_of.find(id);
      if (it == cell_of.end()) {
        if (ok) others.push_back(row.text);
        continue;
      }
      auto& slot = rows[it->second];
      if (!slot || (ok && !slot->fields.at("error").empty())) slot = row;
    }
  }
  std::vector<std::string> texts;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (!rows[i]) {
      report.missing.push_back(i);
      continue;
    }
    if (!rows[i]->fields.at("error").empty()) report.failed.push_back(i);
    texts.push_back(rows[i]->text);
  }
  for (auto& t : others) texts.push_back(std::move(t));
  report.rows = texts.size();
  ResultsWriter(output, columns, texts);
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
