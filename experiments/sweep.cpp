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
      if (k == "policy.name" || k == "cache.capacity" || k == "framework.name") {
        label += fmt::format(" {}={}", k, v);
      }
    }
    try {
      const std::string id = trace_identity(cell.trace);
      auto it = summaries.find(id);
      if (it == summaries.end()) it = summaries.emplace(id, summarize_trace(cell.trace)).first;
      row = run_cell(cell, it->second);
      std::string ohr, bhr;
      for (const auto& c : row) {
        if (c.name == "object_hit_ratio") ohr = c.text;
        if (c.name == "byte_hit_ratio") bhr = c.text;
      }
      log << fmt::format("[{}/{}]{}  object_hit_ratio={} byte_hit_ratio={}\n", cell.index + 1,
                         ex.cells.size(), label, ohr, bhr);
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
