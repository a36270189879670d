// experiments/run/interval_stats.h — a timed cell's statistics over time (`stats.interval_s`):
// one CSV row per interval of simulated time, in a file beside the results.
//
// CacheBench prints its progress statistics every interval while a run goes on (hit ratios,
// NVM bytes, latency percentiles; CacheBench's progress stats and `--progress_stats_file`), and
// its users plot them over time; this is FlashPQ's series of the same kind. The simulated
// runner (experiments/run/simulated_cell.cpp, tiered_cell.cpp) calls, in simulated-time order,
// advance(now) before it handles each arrival and each completion; completed() for each
// completion; finish() at the end. On the wall clock (a cache or hierarchy on a real device,
// timed request by request: WallSeries below) the clock is the host's, from the run's start.
// Interval k covers [k × T, (k + 1) × T) of the clock (simulated ns from 0): requests, hits and
// device bytes are counted where the request was issued (its arrival: the functional state advances
// then), latencies where it completed. Columns (units in the names; ratios empty when they have no
// denominator):
//   interval, time_s (the interval's end; the last may be shorter), warmup (1 while requests
//   before the end of the warm-up were being issued), requests (issued), get_requests,
//   set_requests, delete_requests, object_hit_ratio (get hits / gets), dram_hit_ratio and
//   flash_hit_ratio (a hierarchy's; empty for a cache alone), completed_requests,
//   throughput_rps (completed / interval), flash_bytes_written, flash_bytes_read (the cell's
//   device's host bytes), flash_write_mib_s, nand_bytes_written (the device's program bytes,
//   GC included), backing_bytes_read, backing_bytes_written, offloaded_reads,
//   offload_share (offloaded / flash hits), nhc_load_admit (the controller's share at the
//   interval's end), then for read (gets; device reads), write (sets; writes) and delete
//   (deletes; trims) the latency percentiles _p50_us, _p95_us, _p99_us, _p999_us of the
//   requests completed in the interval (LatencyHistogram, nearest rank within 1 %).
// The file is written to PATH.tmp and renamed to PATH when finished: an interrupted cell leaves
// no partial series under the final name.
#pragma once

#include <cmath>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "engine/request.h"
#include "experiments/config/stats_config.h"
#include "experiments/run/wall_cell.h"
#include "sim/latency_histogram.h"
#include "sim/params.h"
#include "sim/timing.h"

namespace flashpq {

/// What the series counts, each field cumulative from the start of the run (a level for
/// nhc_load_admit). The runner keeps it up to date; IntervalStats reports the growth per
/// interval.
struct IntervalCounters {
  uint64_t gets = 0;
  uint64_t sets = 0;
  uint64_t deletes = 0;
  uint64_t get_hits = 0;
  uint64_t dram_hits = 0;
  uint64_t flash_hits = 0;
  uint64_t flash_bytes_written = 0;
  uint64_t flash_bytes_read = 0;
  uint64_t nand_bytes_written = 0;
  uint64_t backing_bytes_read = 0;
  uint64_t backing_bytes_written = 0;
  uint64_t offloaded_reads = 0;
  /// NaN when there is no controller.
  double nhc_load_admit = std::nan("");
  /// False when the device reports no NAND bytes (a real device): the column stays empty.
  bool has_nand = true;
};

/// Counts request `r` (a get that hit when `hit`) in `c`.
inline void count_op(IntervalCounters& c, const Request& r, bool hit) {
  c.gets += r.op == Op::kGet;
  c.sets += r.op == Op::kSet;
  c.deletes += r.op == Op::kDelete;
  c.get_hits += hit;
}

class Device;
class ServiceModel;
/// Sets `c`'s device fields from `device`'s cumulative counters: host bytes written and read,
/// and the media bytes its simulated clock `model` counts (ServiceModel::media_bytes_written:
/// simflash's NAND bytes programmed); has_nand false without a model (a real device).
void add_device_counters(IntervalCounters& c, const Device& device,
                         const ServiceModel* model = nullptr);

/// The column names of a series file, in order.
const std::vector<std::string>& interval_stats_columns();

/// Writes one cell's series. Not thread-safe.
class IntervalStats {
 public:
  /// What the cell has: a cache (else framework direct: no hit ratios), a hierarchy (the
  /// per-tier columns).
  enum class Shape { kDirect, kCache, kTiered };
  /// Creates PATH.tmp (and PATH's parent directories). REQUIRES: interval_ns > 0. Throws
  /// std::invalid_argument if `path` is empty, std::runtime_error naming the file if it cannot
  /// be created.
  IntervalStats(uint64_t interval_ns, std::string path, Shape shape);
  ~IntervalStats();
  IntervalStats(const IntervalStats&) = delete;
  IntervalStats& operator=(const IntervalStats&) = delete;

  /// Closes every interval that ends at or before `now_ns`, reporting the growth of the
  /// counters snapshot() returns since the last closed interval (in the first of them; later
  /// ones are empty). snapshot is called only when an interval closes.
  template <class Snapshot>
  void advance(uint64_t now_ns, Snapshot&& snapshot) {
    if (now_ns < next_end_ns_) [[likely]]
      return;
    const IntervalCounters c = snapshot();
    while (now_ns >= next_end_ns_) close(next_end_ns_, c);
  }
  /// A request was issued; `warmup`: it is a warm-up request (the interval's warmup column).
  void issued(bool warmup) { warmup_seen_ = warmup_seen_ || warmup; }
  /// A request of class `op` completed (now) after `latency_ns`.
  void completed(OpClass op, uint64_t latency_ns) {
    ++completed_;
    if (op == OpClass::kRead) read_.record(latency_ns);
    if (op == OpClass::kWrite) write_.record(latency_ns);
    if (op == OpClass::kOther) delete_.record(latency_ns);
  }
  /// Closes the last interval at `end_ns` (shorter than the others unless it ends on a
  /// boundary; none when nothing happened since the last) and renames the file into place.
  /// Throws std::runtime_error on a write error.
  void finish(uint64_t end_ns, const IntervalCounters& c);

  /// Rows written so far.
  uint64_t intervals() const { return index_; }

 private:
  void close(uint64_t end_ns, const IntervalCounters& c);

  uint64_t interval_ns_;
  std::string path_;
  Shape shape_;
  std::ofstream out_;
  bool finished_ = false;
  uint64_t index_ = 0;
  uint64_t start_ns_ = 0;
  uint64_t next_end_ns_;
  bool warmup_seen_ = false;
  IntervalCounters last_;
  uint64_t completed_ = 0;
  LatencyHistogram read_;
  LatencyHistogram write_;
  LatencyHistogram delete_;
};

/// The replay target of a cache (or hierarchy) C: untimed when `timed` is null (the functional
/// runner); else timed on the wall clock (experiments/run/wall_cell.h) and, when `series` is
/// set, feeding it in wall time since the run began: a request counts where it started (its
/// device bytes too), its latency where it ended. snapshot() returns the cumulative counters
/// (IntervalCounters), including `counts`, which this keeps. One type for both runners: a
/// predictable branch per request instead of a second instantiation of every cache type.
template <class C, class Snapshot>
struct WallSeries {
  C& cache;
  WallTimedCache<C>* timed;
  IntervalStats* series;
  IntervalCounters& counts;
  Snapshot snapshot;
  uint64_t warmup_requests;
  uint64_t index = 0;
  bool access(const Request& r) {
    if (timed == nullptr) return cache.access(r);
    const bool hit = timed->access(r);
    if (series != nullptr) {
      series->advance(timed->last_start_ns(), snapshot);
      series->issued(index < warmup_requests);
      count_op(counts, r, hit);
      series->advance(timed->last_end_ns(), snapshot);
      series->completed(op_class(r), timed->last_end_ns() - timed->last_start_ns());
    }
    ++index;
    return hit;
  }
};

}  // namespace flashpq
