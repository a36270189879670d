// tests/traces/format_test_util.h — helpers of the trace format tests: read a trace whole, and
// run one small experiment on two traces with flashpq to compare their rows.
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
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

// A word for the shell, single-quoted.
inline std::string shell_quoted(const std::string& s) {
  std::string out = "'";
  for (const char ch : s) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

// What a flashpq process did.
struct Run {
  int status = -1;  // exit status, or -1 if it did not exit normally
  std::string out, err;
};

// Runs `ENV flashpq ARGS` in `cwd` (ENV: "VAR=value ..." or "env -u VAR", prefixed to the
// command) and captures its output in files outside `cwd`, in `scratch`.
inline Run run_flashpq(const std::string& cwd, const std::string& args, const std::string& env,
                       const TempDir& scratch) {
  const std::string out = scratch.file("flashpq.stdout"), err = scratch.file("flashpq.stderr");
  const std::string cmd = "cd " + shell_quoted(cwd) + " && " + env + " " +
                          shell_quoted(FLASHPQ_BINARY) + " " + args + " >" + shell_quoted(out) +
                          " 2>" + shell_quoted(err);
  const int rc = std::system(cmd.c_str());
  Run r;
  r.status = rc != -1 && WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

// The names of the entries of `dir`, recursively, sorted (hidden ones included).
inline std::vector<std::string> listing(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    names.push_back(std::filesystem::relative(e.path(), dir).string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace flashpq::format_test
