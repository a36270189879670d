#include "experiments/sweep.h"

#include <filesystem>
#include <map>
#include <ostream>

#include "engine/cache.h"
#include "engine/framework.h"
#include "experiments/results.h"
#include "experiments/run/cell_runner.h"
#include "experiments/run/row.h"
#include "fmt/format.h"
#include "policies/registry.h"
#include "traces/trace_summary.h"

namespace flashpq {

namespace {

// Two cells read the same requests iff these agree: the format and every trace key's value,
// the seed and the device geometry a generator reads.
std::string trace_identity(const TraceConfig& t) {
  std::string id = t.format;
  for (const auto& [k, v] : t.params.values()) id += '\x1f' + k + '=' + v;
  return fmt::format("{}\x1f{}\x1f{}\x1f{}", id, t.seed, t.device.capacity_bytes,
                     t.device.logical_block_bytes);
}

// A cell's identity in a results file: its experiment and the text of every parameter.
std::string cell_identity(const std::string& experiment,
                          const std::vector<std::pair<std::string, std::string>>& parameters) {
  std::string id = experiment;
  for (const auto& [k, v] : parameters) id += '\x1f' + v;  // unit separator: not in any value
  return id;
}

// Opens the results writer; with `resume`, reads `output` back first and counts in `done` the
// identities of the cells that have a finished row.
ResultsWriter open_results(const Experiment& ex, const std::string& output, bool resume,
                           std::map<std::string, size_t>& done, std::ostream& log) {
  if (!resume || !std::filesystem::exists(output) || ex.cells.empty()) {
    return ResultsWriter(output);
  }
  const StoredResults stored = read_results(output);
  // The columns this run writes, and the parameter columns that identify a cell.
  std::vector<std::string> columns;
  for (const auto& c : failed_row(ex.cells.front(), "")) columns.push_back(c.name);
  if (stored.columns.empty() && stored.rows.empty()) return ResultsWriter(output);
  if (stored.columns != columns) {
    size_t k = 0;
    while (k < columns.size() && k < stored.columns.size() && columns[k] == stored.columns[k]) ++k;
    throw std::runtime_error(fmt::format(
        "{}: cannot resume: its columns are not the ones this run writes (column {}: '{}' in the "
        "file, '{}' now); choose another --output, or run without --resume to replace it",
        output, k + 1, k < stored.columns.size() ? stored.columns[k] : "(none)",
        k < columns.size() ? columns[k] : "(none)"));
  }
  std::vector<std::string> kept;
  size_t dropped = 0;
  for (const StoredRow& row : stored.rows) {
    if (!row.fields.at("error").empty()) {
      ++dropped;
      continue;
    }
    std::vector<std::pair<std::string, std::string>> parameters;
    for (const auto& [k, v] : ex.cells.front().parameters) {
      parameters.emplace_back(k, row.fields.at(k));
    }
    ++done[cell_identity(row.fields.at("experiment"), parameters)];
    kept.push_back(row.text);
  }
  log << fmt::format("flashpq: resuming {}: {} finished rows kept, {} failed rows to run again{}\n",
                     output, kept.size(), dropped,
                     stored.truncated_tail ? ", an unfinished last row dropped" : "");
  return ResultsWriter(output, columns, kept);
}

}  // namespace

size_t run_experiment(const Experiment& ex, const std::string& output, std::ostream& log,
                      bool resume) {
  std::map<std::string, size_t> done;  // identity -> finished rows not yet matched to a cell
  ResultsWriter writer = open_results(ex, output, resume, done, log);
  std::map<std::string, TraceSummary> summaries;
  size_t failed = 0;
  for (const CellConfig& cell : ex.cells) {
    if (!done.empty()) {
      const auto it = done.find(cell_identity(cell.experiment, cell.parameters));
      if (it != done.end() && it->second > 0) {
        --it->second;
        log << fmt::format("[{}/{}] finished before\n", cell.index + 1, ex.cells.size());
        continue;
      }
    }
    ResultRow row;
    std::string label;
    // The cell's capacity, policy, framework and device (no cache, no capacity or policy).
    const bool cache = framework_builds_cache(cell.framework.name);
    for (const auto& [k, v] : cell.parameters) {
      const bool shown = k == framework_section().selector || k == device_section().selector ||
                         (cache && (k == policy_section().selector || k == kCapacityKey.name));
      if (shown) label += fmt::format(" {}={}", k, v);
    }
    try {
      const std::string id = trace_identity(cell.trace);
      auto it = summaries.find(id);
      if (it == summaries.end()) it = summaries.emplace(id, summarize_trace(cell.trace)).first;
      row = run_cell(cell, it->second);
      // The headline metrics: hit ratios of a cache, write amplification of a flash device.
      std::string metrics;
      for (const auto& c : row) {
        for (const char* name :
             {"object_hit_ratio", "byte_hit_ratio", "wa_implementation", "wa_ftl", "wa_combined"}) {
          if (c.name == name && !c.text.empty()) metrics += fmt::format(" {}={}", name, c.text);
        }
      }
      log << fmt::format("[{}/{}]{} {}\n", cell.index + 1, ex.cells.size(), label, metrics);
      for (const auto& c : row) {
        if (c.name != "notes" || c.text.empty()) continue;
        for (size_t at = 0; at < c.text.size();) {  // one line per note
          const size_t end = std::min(c.text.find("; ", at), c.text.size());
          log << fmt::format("[{}/{}] warning: {}\n", cell.index + 1, ex.cells.size(),
                             c.text.substr(at, end - at));
          at = end + 2;
        }
      }
    } catch (const std::exception& e) {
      ++failed;
      row = failed_row(cell, e.what());
      log << fmt::format("[{}/{}]{}  FAILED: {}\n", cell.index + 1, ex.cells.size(), label,
                         e.what());
    }
    writer.write(row);
  }
  return failed;
}

}  // namespace flashpq
