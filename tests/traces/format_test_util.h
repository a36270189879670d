// tests/traces/format_test_util.h — helpers of the trace format tests: read a trace whole, and
// run one small experiment on two traces with flashpq to compare their rows.
#pragma once

#include <cstdlib>
#include <string>
#include <vector>

#include "tests/test_util.h"
#include "traces/trace_reader.h"

namespace flashpq::format_test {

using namespace flashpq::testing;

inline const std::string kFixtures = FLASHPQ_SOURCE_DIR "/tests/data/traces";

inline std::vector<Request> read_all(const TraceConfig& c) {
  auto reader = open_trace(c);
  std::vector<Request> out, batch(3);  // small batches: a reader's state across reads
  for (size_t n; (n = reader->read(batch)) != 0;)
    out.insert(out.end(), batch.begin(), batch.begin() + n);
  return out;
}

inline bool same(const std::vector<Request>& a, const std::vector<Request>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].time_ns != b[i].time_ns || a[i].key != b[i].key ||
        a[i].size_bytes != b[i].size_bytes || a[i].op != b[i].op) {
      return false;
    }
  }
  return true;
}

// The data rows of `flashpq run` on an LRU cache of half the working set over each trace
// (`trace_keys`: YAML lines of the trace section), the columns that name the trace left out.
inline std::vector<std::vector<std::string>> rows_of(const TempDir& dir, const std::string& name,
                                                     const std::string& trace_keys) {
  const std::string yaml = dir.write(name + ".yaml", "trace:\n" + trace_keys +
                                                         "cache: {capacity: 0.5}\n"
                                                         "policy: {name: lru}\n");
  const std::string out = dir.file(name + ".csv");
  const std::string cmd = std::string(FLASHPQ_BINARY) + " run " + yaml + " -o " + out + " > " +
                          dir.file(name + ".log") + " 2>&1";
  if (std::system(cmd.c_str()) != 0) return {};
  auto csv = parse_csv(slurp(out));
  std::vector<std::vector<std::string>> kept;
  for (const auto& row : csv) {
    std::vector<std::string> r;
    for (size_t j = 0; j < row.size(); ++j) {
      const std::string& h = csv[0][j];
      if (h.rfind("trace.", 0) == 0 || h == "trace_hash" || h == "wall_seconds" ||
          h == "experiment") {
        continue;
      }
      r.push_back(row[j]);
    }
    kept.push_back(r);
  }
  return kept;
}

}  // namespace flashpq::format_test
