// sim/block_cell.h — what the cell runner does differently on the `block` device: framework
// direct replays through the wall-clock runner (devices/block/wall_runner.h); a cache
// framework is timed request by request on the wall clock; the row gets the device's columns
// and fio's names (issue 5 items 2 and 5).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "devices/block/block_device.h"
#include "experiments/experiment.h"
#include "experiments/run/cell_runner.h"
#include "experiments/run/stats.h"
#include "sim/timing.h"

namespace flashpq {

/// What a cell on the block device measured besides the common counters.
struct BlockCellMetrics {
  /// Latency = completion − arrival (fio's lat_ns); see run_wall, or WallTimedCache.
  TimingMetrics timing;
  /// Completion − submission (fio's clat_ns).
  LatencyHistogram clat;
  NvmeWriteDelta nvme;
};

/// The arrival process of framework direct on a block device: the timing section's with
/// timing.mode wall; otherwise (none: a real device is timed anyway) closed loop with as many
/// clients as device.queue_depth, fio's iodepth.
TimingConfig block_timing(const CellConfig& cell);

/// Framework direct on a block device: checks every request of the trace first (aligned,
/// within the capacity: nothing is issued if one is not), then replays it with run_wall.
/// Fills `counted` as replay_direct does; calls on_warmup_end() before request
/// warmup_requests. Returns the number of requests replayed.
uint64_t replay_direct_wall(BlockDevice& device, const CellConfig& cell, uint64_t warmup_requests,
                            HitCounters& counted, const std::function<void()>& on_warmup_end,
                            BlockCellMetrics& metrics);

/// A cache whose every access is timed on the wall clock: closed loop with one client, each
/// request's latency from the start to the end of Cache::access (its device I/O included).
/// Forwards access() only (what replay_stream calls).
template <class C>
class WallTimedCache {
 public:
  WallTimedCache(C& cache, uint64_t warmup_requests, TimingMetrics& metrics)
      : c_(cache), warmup_(warmup_requests), m_(metrics) {}
  bool access(const Request& r) {
    const uint64_t t0 = now();
    const bool hit = c_.access(r);
    const uint64_t t1 = now();
    if (i_++ >= warmup_) {
      if (first_ == UINT64_MAX) first_ = t0;
      m_.record(op_class(r), t1 - t0, r.size_bytes);
      m_.interval_ns = t1 - first_;
    }
    return hit;
  }

 private:
  static uint64_t now() {
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::steady_clock::now().time_since_epoch())
                                     .count());
  }
  C& c_;
  uint64_t warmup_;
  TimingMetrics& m_;
  uint64_t i_ = 0;
  uint64_t first_ = UINT64_MAX;
};

/// The block columns of a row, in order: block_engine, block_o_direct, block_notes,
/// block_logical_block_bytes, verify_blocks_checked, verify_blocks_unchecked,
/// nvme_host_bytes_written, nvme_media_bytes_written, wa_device, and fio's names: iops,
/// bw_bytes, clat_ns, lat_ns (the last two JSON objects, fio_latency_json). Empty when `device`
/// is null (another device), and the timing ones when `metrics` is null. The timing columns
/// and latency_histogram of the wall clock are the cell runner's, shared with simulated time.
std::vector<Column> block_columns(const BlockDevice* device, const BlockCellMetrics* metrics);

/// The names of block_columns(), for failed rows.
std::vector<std::string> block_column_names();

}  // namespace flashpq
