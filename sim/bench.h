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
  /// Frameworks to measure each policy on. Default exact and ripq.
  std::vector<std::string> frameworks = {"exact", "ripq"};
  /// ripq: insertion points K. Default 8.
  uint32_t insertion_points = 8;
  /// ripq, sipq: block size as a fraction of the cache capacity. Default 1/256 (§6 setting).
  double block_fraction = 1.0 / 256;
  /// Timed repetitions per measurement; the best is reported. Default 3.
  int repeat = 3;
  /// Also measure replay streamed from the file (zstd decoding included), and the reader alone
  /// (the "decode" row: the streamed rows' ceiling). Default true.
  bool streamed = true;
};

/// Decodes the trace into memory, then for each framework and policy replays it `repeat` times
/// through a fresh cache with full hit accounting and prints requests/s (in memory: policy and
/// framework cost alone; streamed: decoding included, on a second thread). Prints a table to
/// `out`; returns 0. Throws std::invalid_argument for an unknown policy or framework.
int run_bench(const BenchConfig& config, std::ostream& out);

}  // namespace flashpq
