// sim/timing.h — the `timing:` section of an experiment and the timing metrics of a row.
//
// Source: docs/DESIGN.md "Time". A cell runs in one of three modes:
//   * functional (`timing.mode: none`, the default): no clock; counts only, as fast as the CPU
//     allows;
//   * simulated (`timing.mode: simulated`, simflash only): a discrete-event clock in integer
//     nanoseconds (sim/des.h); device operations occupy dies and channels (simflash timing);
//   * wall (`timing.mode: wall`, real devices): the host's monotonic clock times real I/O.
// Both timed modes share the arrival processes below, the log-linear histograms of
// sim/latency_histogram.h and the column names of timing_columns(), so a simulated row and a
// real row stand side by side.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "sim/columns.h"
#include "sim/latency_histogram.h"
#include "sim/params.h"

namespace flashpq {

enum class TimingMode : uint8_t { kNone, kSimulated, kWall };

/// How requests arrive (docs/DESIGN.md "Time").
enum class ArrivalProcess : uint8_t {
  /// N clients, each issuing its next request when the previous one completes (plus
  /// think_time_ns); N = the number of requests in flight, fio's iodepth.
  kClosedLoop,
  /// At the trace's timestamps, relative to the first request, multiplied by time_scale.
  kTrace,
  /// Open loop at a fixed rate: one request every 1/rate_rps seconds.
  kConstant,
  /// Open loop, Poisson: exponential inter-arrival times of mean 1/rate_rps (seeded RNG).
  kPoisson,
  /// Open loop through a token bucket of `burst` tokens refilled at rate_rps, fed by an
  /// unbounded backlog (CacheBench's opRatePerSec and opRateBurstSize).
  kTokenBucket,
};

/// "none", "simulated", "wall", in the order of TimingMode.
const std::vector<std::string>& timing_mode_names();
/// "closed_loop", "trace", "constant", "poisson", "token_bucket", in the order of
/// ArrivalProcess.
const std::vector<std::string>& arrival_process_names();
/// "none", "simulated", "wall".
const char* timing_mode_name(TimingMode mode);
/// Inverse of timing_mode_name. Throws std::invalid_argument listing the allowed values.
TimingMode parse_timing_mode(const std::string& name);
/// "closed_loop", "trace", "constant", "poisson", "token_bucket".
const char* arrival_process_name(ArrivalProcess process);
/// Inverse of arrival_process_name. Throws std::invalid_argument listing the allowed values.
ArrivalProcess parse_arrival_process(const std::string& name);

/// The `timing:` section.
struct TimingConfig {
  /// Default none (functional).
  TimingMode mode = TimingMode::kNone;
  /// Default closed_loop.
  ArrivalProcess arrival = ArrivalProcess::kClosedLoop;
  /// closed_loop: clients (requests in flight). Default 1. Range [1, 65536].
  uint32_t clients = 1;
  /// closed_loop: delay between a completion and that client's next request, ns. Default 0.
  uint64_t think_time_ns = 0;
  /// constant, poisson and token_bucket: requests per second. Default 1000. Range (0, 1e12].
  double rate_rps = 1000.0;
  /// token_bucket: the bucket's size in requests (tokens), full at time 0. Default 1 (the
  /// constant process). Range [1, 1e12].
  uint64_t burst = 1;
  /// trace: multiplies the trace's inter-arrival times (0.5 = twice as fast). Default 1.
  /// Range (0, 1e9].
  double time_scale = 1.0;

  /// Throws std::invalid_argument quoting the bad value.
  void validate() const {
    if (clients < 1 || clients > 65536)
      throw std::invalid_argument("timing.clients must be in [1, 65536], got " +
                                  std::to_string(clients));
    if (!(rate_rps > 0.0 && rate_rps <= 1e12))
      throw std::invalid_argument("timing.rate must be in (0, 1e12] requests/s, got " +
                                  std::to_string(rate_rps));
    if (burst < 1 || burst > uint64_t{1000000000000})
      throw std::invalid_argument("timing.burst must be in [1, 1e12] requests, got " +
                                  std::to_string(burst));
    if (!(time_scale > 0.0 && time_scale <= 1e9))
      throw std::invalid_argument("timing.time_scale must be in (0, 1e9], got " +
                                  std::to_string(time_scale));
  }
};

/// The `timing:` section (sim/params.h): timing.mode selects how a cell is timed; the timed
/// modes (simulated, wall) read timing.arrival, which selects an arrival process and its keys
/// (closed_loop: clients, think_time_us; constant and poisson: rate; trace: time_scale). Keys of
/// a mode or process not selected are errors when set, and their results columns stay empty.
/// Which runner times a mode, and the devices it needs, is the application's
/// (experiments/run/runners.h).
const SectionSpec& timing_section();
/// Keys of the section that rules elsewhere name: timing.mode (the section's selector),
/// timing.arrival (the timed modes' selector) and timing.clients (closed_loop's).
extern const KeySpec kTimingModeKey;
extern const KeySpec kTimingArrivalKey;
extern const KeySpec kTimingClientsKey;

/// The timing section decoded from `params` (unset keys take their defaults). Throws
/// std::invalid_argument quoting a bad value.
TimingConfig timing_config(const Params& params);

/// How a request counts in the per-operation latency histograms.
enum class OpClass : uint8_t { kRead, kWrite, kOther };

/// What a timed run measured after the warm-up. Request latency is arrival → completion of
/// the request's last device operation (queueing included). Histograms in ns.
struct TimingMetrics {
  LatencyHistogram all;    // every request
  LatencyHistogram read;   // requests that read (cache gets; device reads)
  LatencyHistogram write;  // requests that write (cache sets; device writes)
  LatencyHistogram other;  // the rest (cache deletes; device trims)
  /// Requests and payload bytes completed in the measured interval.
  uint64_t requests = 0;
  uint64_t bytes = 0;
  /// The measured interval in ns: from the first measured arrival to the last completion.
  uint64_t interval_ns = 0;

  /// Counts one measured request of class `op` that took latency_ns and carried payload_bytes:
  /// all, plus read, write or other by class, requests and bytes. The interval is the caller's
  /// to set.
  void record(OpClass op, uint64_t latency_ns, uint64_t payload_bytes) {
    all.record(latency_ns);
    if (op == OpClass::kRead) read.record(latency_ns);
    if (op == OpClass::kWrite) write.record(latency_ns);
    if (op == OpClass::kOther) other.record(latency_ns);
    ++requests;
    bytes += payload_bytes;
  }

  double seconds() const { return static_cast<double>(interval_ns) * 1e-9; }
  double throughput_rps() const {
    return interval_ns ? static_cast<double>(requests) / seconds() : 0.0;
  }
  double throughput_mib_s() const {
    return interval_ns ? static_cast<double>(bytes) / (1024.0 * 1024.0) / seconds() : 0.0;
  }
};

/// The timing columns of a results row, in this order (docs/reference/columns.md, units in the
/// names): for each of `latency` (every request), `read_latency` (gets; device reads),
/// `write_latency` (sets; device writes) and `delete_latency` (deletes; device trims), the
/// nearest-rank percentiles _p50_us, _p90_us, _p95_us, _p99_us, _p999_us, _p9999_us
/// (LatencyHistogram: within 1 % of the exact value), _mean_us and _max_us (exact); then
/// throughput_rps and throughput_mib_s (measured requests and payload MiB ÷ the measured
/// interval) and sim_seconds (the measured interval in seconds: simulated time in the simulated
/// mode, the monotonic clock's in the wall mode). Shared by both timed modes.
const std::vector<ColumnSpec>& timing_column_specs();
/// The names of timing_column_specs(), in order.
const std::vector<std::string>& timing_column_names();
/// The timing columns a row carries when the measured requests hold reads, writes and deletes
/// as given (OpClass): every request's latency and the throughputs always, each class's latency
/// columns only when the run measured requests of it (an empty histogram has no value).
std::vector<std::string> timing_column_names(bool reads, bool writes, bool deletes);
/// The `latency_histogram` column (latency_histogram_text()).
const ColumnSpec& latency_histogram_column();

/// The values of timing_column_names() for `m`, as (name, value) pairs in that order. NaN means
/// "no value" (the results writer leaves it empty): the latency columns of a histogram with no
/// request (e.g. read_latency_* when nothing was read) and the throughputs and sim_seconds when
/// no request was measured.
std::vector<std::pair<std::string, double>> timing_columns(const TimingMetrics& m);

/// The text of the `latency_histogram` column (of m.all; plots/flash.py draws latency CDFs
/// from it): one "value_ns:count" pair per non-empty bucket, space-separated, values strictly
/// ascending, value = the bucket's reported value clamped to the exact [min, max] (as
/// LatencyHistogram::cdf() and percentile_ns() report it), count > 0. Empty when h is empty.
std::string latency_histogram_text(const LatencyHistogram& h);

}  // namespace flashpq
