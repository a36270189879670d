// sim/bench.h — `flashpq bench`: requests per second of each policy on the exact framework.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace flashpq {

struct BenchConfig {
  /// oracleGeneral trace (plain or zstd). REQUIRES: non-empty.
  std::string trace_path;
  /// Cache size as a fraction of the working set, in (0, 1]. Default 0.1.
  double capacity_fraction = 0.1;
  /// Policies to measure. Default all four.
  std::vector<std::string> policies = {"fifo", "lru", "slru", "gdsf"};
  /// L for slru and gdsf. Default 3.
  uint32_t segments = 3;
  /// Timed repetitions per measurement; the best is reported. Default 3.
  int repeat = 3;
  /// Also measure replay streamed from the file (zstd decoding included). Default true.
  bool streamed = true;
};

/// Decodes the trace into memory, then for each policy replays it `repeat` times through a
/// fresh cache with full hit accounting and prints requests/s (in memory: policy cost alone;
/// streamed: decoding included). Prints a table to `out`; returns 0.
int run_bench(const BenchConfig& config, std::ostream& out);

}  // namespace flashpq
