// experiments/bench.h — `flashpq bench`: requests per second of each framework, policy and
// admission; `flashpq bench --des`: events per second of the discrete-event timed mode.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "traces/trace_reader.h"

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
  /// Framework keys as KEY=VALUE (framework.blockcache_region_size=1MiB), applied to every
  /// framework measured after the bench's own (so they override --insertion-points and
  /// --block-fraction). A key outside the framework: section, or a value its framework refuses,
  /// throws std::invalid_argument naming it. Default none.
  std::vector<std::string> framework_keys;
  /// ripq: insertion points K. Default 8.
  uint32_t insertion_points = 8;
  /// ripq, sipq: block size as a fraction of the cache capacity. Default 1/256 (§6 setting).
  double block_fraction = 1.0 / 256;
  /// Admission policies to measure each framework and policy with ("none", "tinylfu"), at
  /// their defaults (engine/admission.h). In memory they take turns within each repetition, so
  /// a change of the machine's load falls on all of them alike; when "none" is among them, every
  /// other row also prints its overhead: its best time over the best time of "none", minus 1
  /// (FlashPQ's target: at most 30 %). Default {"none"}.
  std::vector<std::string> admissions = {"none"};
  /// Timed repetitions per measurement; the best is reported. Default 3.
  int repeat = 3;
  /// Also measure replay streamed from the file (zstd decoding included), and the reader alone
  /// (the "decode" row: the streamed rows' ceiling). Default true.
  bool streamed = true;
};

/// Decodes the trace into memory, then for each framework and policy replays it `repeat` times
/// per admission (in turns, see `admissions`) through a fresh cache with full hit accounting and
/// prints requests/s (in memory: policy and framework cost alone; streamed: decoding included, on a
/// second thread). Prints a table to `out`; returns 0. Throws std::invalid_argument for an unknown
/// policy or framework.
int run_bench(const BenchConfig& config, std::ostream& out);

/// `flashpq bench --des`: the discrete-event engine's speed (target: ≥ 2 M events/s).
struct DesBenchConfig {
  /// simflash profile (simflash_profile_names()). Default "mqsim" (512 GiB physical, 8 KiB
  /// pages: ~0.5 GiB of page maps).
  std::string profile = "mqsim";
  /// Closed-loop clients (requests in flight). Default 32.
  uint32_t clients = 32;
  /// Timed uniform random page-sized writes. Default 1,000,000.
  uint64_t requests = 1'000'000;
  /// Functional uniform random page writes before the timed run, in multiples of the exported
  /// pages (after a sequential fill), so GC is near its steady state. Default 1.
  double precondition = 1.0;
  /// Seed of the write offsets. Default 1.
  uint64_t seed = 1;

  /// Throws std::invalid_argument quoting the bad value: an unknown profile, clients outside
  /// [1, 65536], requests = 0, precondition outside [0, 100].
  void validate() const;
};

/// Builds the profile's device, fills it sequentially and preconditions it (functional), then
/// runs `requests` uniform random page writes from `clients` closed-loop clients in simulated
/// time and prints the events handled, the CPU and wall seconds of the timed run, events and
/// requests per CPU second, and what the run simulated (throughput, WA, latency percentiles).
/// Returns 0. Throws std::invalid_argument as DesBenchConfig::validate.
int run_des_bench(const DesBenchConfig& config, std::ostream& out);

/// `flashpq trace bench`: how fast a trace source (any format or generator) yields requests.
struct TraceReadMeasurement {
  /// Requests yielded by one read.
  uint64_t requests = 0;
  /// The best wall-clock seconds of `repeat` full reads (open included), > 0.
  double seconds = 0;
  /// Sum of keys, sizes and ops over one read: equal for equal streams.
  uint64_t checksum = 0;
};

/// Reads `trace` start to end `repeat` (≥ 1) times on this thread, in batches of 4096 requests,
/// and returns the best. Throws what open_trace and the reader throw.
TraceReadMeasurement bench_trace_read(const TraceConfig& trace, int repeat);

}  // namespace flashpq
