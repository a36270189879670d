// experiments/run/wall_cell.h — the wall-clock runner of a cell (experiments/run/runners.h), on
// a real device: framework direct replays through the wall-clock runner
// (experiments/run/wall_runner.h) with requests in flight; a cache framework is timed request
// by request. The row gets fio's names for the timing.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "devices/io_log.h"
#include "experiments/run/stats.h"
#include "sim/columns.h"
#include "sim/timing.h"

namespace flashpq {

/// A cache whose every access is timed on the wall clock: closed loop with one client, each
/// request's latency from the start to the end of Cache::access (its device I/O included).
/// Forwards access() only (what replay_stream calls).
template <class C>
class WallTimedCache {
 public:
  /// `io_log`, when set, is given each request's start, ns since construction, as the issue
  /// time of the device I/O the request causes.
  WallTimedCache(C& cache, uint64_t warmup_requests, TimingMetrics& metrics,
                 FioIoLog* io_log = nullptr)
      : c_(cache), warmup_(warmup_requests), m_(metrics), io_log_(io_log), origin_(now()) {}
  bool access(const Request& r) {
    const uint64_t t0 = now();
    if (io_log_) io_log_->set_now_ns(t0 - origin_);
    const bool hit = c_.access(r);
    const uint64_t t1 = now();
    last_start_ns_ = t0 - origin_;
    last_end_ns_ = t1 - origin_;
    if (i_++ >= warmup_) {
      if (first_ == UINT64_MAX) first_ = t0;
      m_.record(op_class(r), t1 - t0, r.size_bytes);
      m_.interval_ns = t1 - first_;
    }
    return hit;
  }
  /// The last access's start and end, ns since construction.
  uint64_t last_start_ns() const { return last_start_ns_; }
  uint64_t last_end_ns() const { return last_end_ns_; }

 private:
  static uint64_t now() {
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::steady_clock::now().time_since_epoch())
                                     .count());
  }
  C& c_;
  uint64_t warmup_;
  TimingMetrics& m_;
  FioIoLog* io_log_;
  uint64_t origin_;
  uint64_t i_ = 0;
  uint64_t first_ = UINT64_MAX;
  uint64_t last_start_ns_ = 0;
  uint64_t last_end_ns_ = 0;
};

struct CellConfig;
struct CellPlan;
struct Measurement;
class BlockDevice;

/// What run_on_wall_clock's replay of a cache (its type's kernel, experiments/run/kernels.h)
/// is given: the cell, its real device, the measurement to fill and the timing it accumulates.
struct WallCellRun {
  const CellConfig& cell;
  const CellPlan& plan;
  BlockDevice& device;
  Measurement& m;
  TimingMetrics& timing;
};

/// fio's names for the timing of a wall-clock run (runner_column_names()): iops, bw_bytes, and
/// the latency histograms clat_ns and lat_ns as fio's JSON objects (raw in JSON Lines, one
/// quoted field in CSV); `clat` empty when the runner has no submission time (a cache).
std::vector<Column> fio_columns(const TimingMetrics& timing, const LatencyHistogram& clat);

}  // namespace flashpq
