#include "experiments/sweep.h"

#include <map>
#include <ostream>

#include "experiments/results.h"
#include "fmt/format.h"
#include "sim/cell_runner.h"
#include "traces/trace_summary.h"

namespace flashpq {

namespace {

// Two cells read the same requests iff these agree.
std::string trace_identity(const TraceConfig& t) {
  if (t.format == "generator") return t.device_io.identity();
  return fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}|{}", t.path, t.format, t.time_col, t.key_col,
                     t.size_col, t.op_col, t.has_header, t.delimiter, t.key_is_numeric,
                     t.time_unit_ns);
}

}  // namespace

size_t run_experiment(const Experiment& ex, const std::string& output, std::ostream& log) {
  ResultsWriter writer(output);
  std::map<std::string, TraceSummary> summaries;
  size_t failed = 0;
  for (const CellConfig& cell : ex.cells) {
    ResultRow row;
    std::string label;
    for (const auto& [k, v] : cell.parameters) {
      if (cell.framework.name == "direct" && (k == "policy.name" || k == "cache.capacity")) {
        continue;  // no cache
      }
      if (k == "policy.name" || k == "cache.capacity" || k == "framework.name" ||
          k == "device.name") {
        label += fmt::format(" {}={}", k, v);
      }
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
