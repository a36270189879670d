// experiments/run/measure.h — what the runners share: the plan of a cell, the building of its
// cache, and what a run measured.
//
// run_cell() (experiments/run/cell_runner.h) plans a cell, picks its runner
// (experiments/run/runners.h) — functional, simulated time, or the wall clock — which builds
// the device and replays the trace through the cache (or, with framework direct, straight onto
// the device), and turns the Measurement into a results row (experiments/run/row.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "devices/device.h"
#include "engine/cache.h"
#include "engine/framework.h"
#include "engine/tiers.h"
#include "experiments/config/cell_config.h"
#include "experiments/run/stats.h"
#include "policies/registry.h"
#include "sim/columns.h"
#include "sim/timing.h"
#include "traces/trace_summary.h"

namespace flashpq {

/// What a cell resolves to once its trace is summarised.
struct CellPlan {
  /// The cache section with the capacity resolved (bytes, objects in unit-size mode).
  CacheConfig cache;
  /// Requests before this index (0-based, in trace order) are not measured: the trace's
  /// preconditioning requests, then the warm-up fraction of the rest.
  uint64_t warmup_requests = 0;
  /// Objects a full cache is expected to hold: the index reserve and TinyLFU's sketch size.
  uint64_t expected_objects = 1;
  /// Framework direct: no cache, requests go straight to the device.
  bool direct = false;
  /// The trace's distinct keys (sizes the seen-key set of the hit statistics).
  uint64_t trace_objects = 0;
  /// The trace's working set, bytes (sizes a simflash backing store).
  uint64_t trace_working_set_bytes = 0;
  /// The hierarchy, its DRAM capacity resolved (bytes, objects in unit-size mode); mode none
  /// for a cache alone.
  TiersConfig tiers;
  /// What the framework does with this cache (engine/queue.h): B resolved, device bytes
  /// addressed, its notes.
  FrameworkLayout layout;
  /// The framework section the runners build with: the cell's, framework.block_size replaced
  /// by B in bytes as the layout resolved it (auto sees the trace's largest object; a queue
  /// built from the cell's text could not).
  FrameworkConfig framework;
  /// The cell's device: its keys as written, or sized for the cache (device.size_to_cache);
  /// the runners build this one.
  DeviceConfig device;
  /// The device's bounds once sized (the row's device_exported_bytes).
  DeviceBounds device_bounds;
  /// Warnings on a legal but misleading configuration (the framework's, then the cell's), one
  /// sentence each: logged, and joined by "; " in the row's notes column.
  std::vector<std::string> notes;
  /// Where the runner counts the requests it has read, for a sweep's progress line (relaxed
  /// stores, once per batch); null = not counted. Never reaches the row.
  std::atomic<uint64_t>* progress = nullptr;
  /// When it becomes true, the runner stops at its next batch of requests by throwing
  /// CellInterrupted (a sweep stopped by SIGINT or SIGTERM); null = never. Never reaches the row.
  const std::atomic<bool>* interrupt = nullptr;
  /// Read only the trace's first `request_limit` requests (0 = all): flashpq plan's timed
  /// sample. Never set for a row.
  uint64_t request_limit = 0;
};

/// A trace reader that ends after `limit` requests (flashpq plan's timed sample).
class LimitReader final : public TraceReader {
 public:
  /// REQUIRES: inner non-null.
  LimitReader(std::unique_ptr<TraceReader> inner, uint64_t limit)
      : inner_(std::move(inner)), left_(limit) {}
  size_t read(std::span<Request> out) override {
    if (left_ == 0) return 0;
    const size_t n =
        inner_->read(out.first(static_cast<size_t>(std::min<uint64_t>(out.size(), left_))));
    left_ -= n;
    return n;
  }
  const std::string& path() const override { return inner_->path(); }
  uint64_t preconditioning_requests() const override { return inner_->preconditioning_requests(); }

 private:
  std::unique_ptr<TraceReader> inner_;
  uint64_t left_;
};

/// A cell stopped before its end because its sweep was interrupted (CellPlan::interrupt).
class CellInterrupted : public std::runtime_error {
 public:
  CellInterrupted() : std::runtime_error("interrupted") {}
};

/// A trace reader that adds each batch's size to a counter (a sweep's progress line) as the
/// runner consumes it, and stops the cell when `interrupt` turns true: one relaxed atomic add
/// and one relaxed load per batch, nothing per request. It reads `inner`, which it does not own;
/// a null counter counts nothing, a null flag never stops.
class ProgressReader final : public TraceReader {
 public:
  /// REQUIRES: `inner`, `*counter` and `*interrupt` outlive the reader.
  ProgressReader(TraceReader& inner, std::atomic<uint64_t>* counter,
                 const std::atomic<bool>* interrupt = nullptr)
      : inner_(inner), counter_(counter), interrupt_(interrupt) {}
  /// Throws CellInterrupted once the flag is set.
  size_t read(std::span<Request> out) override {
    if (interrupt_ != nullptr && interrupt_->load(std::memory_order_relaxed)) {
      throw CellInterrupted();
    }
    const size_t n = inner_.read(out);
    if (counter_ != nullptr) counter_->fetch_add(n, std::memory_order_relaxed);
    return n;
  }
  const std::string& path() const override { return inner_.path(); }
  uint64_t preconditioning_requests() const override { return inner_.preconditioning_requests(); }

 private:
  TraceReader& inner_;
  std::atomic<uint64_t>* counter_;
  const std::atomic<bool>* interrupt_;
};

/// The cell's trace, opened for its replay (its first plan.request_limit requests when set).
/// The runners read it through a ProgressReader on plan.progress. Throws as open_trace().
inline std::unique_ptr<TraceReader> open_cell_trace(const CellConfig& cell, const CellPlan& plan) {
  std::unique_ptr<TraceReader> reader = open_trace(cell.trace);
  if (plan.request_limit != 0) {
    reader = std::make_unique<LimitReader>(std::move(reader), plan.request_limit);
  }
  return reader;
}

/// Counters that accumulate; a row reports their growth after the warm-up.
struct RunCounters {
  FrameworkCounters framework;
  DeviceCounters device;
  uint64_t miss_bytes = 0;
  uint64_t rejections = 0;
  /// A hierarchy's (engine/tiers.h); zero for a cache alone.
  TierCounters tiers;
  /// A flash engine's lookups that its Bloom filter passed for a key it does not hold, each a
  /// wasted device read (engine/bighash/); zero for the others.
  uint64_t bloom_false_positive_reads = 0;
};

/// What a runner measured, for the row.
struct Measurement {
  /// Requests replayed, warm-up included.
  uint64_t replayed = 0;
  /// Simulated time: the events the discrete-event engine handled, warm-up included (the row's
  /// sim_events; with wall_seconds, the engine's events per second). 0 otherwise.
  uint64_t sim_events = 0;
  /// Hit accounting after the warm-up (framework direct: requests, reads, writes, trims and
  /// bytes only).
  HitCounters counted;
  /// The counters at the end of the warm-up and at the end of the run.
  RunCounters warm, end;
  /// The cache at the end of the run.
  uint64_t objects = 0, used_bytes = 0, index_bytes = 0, queue_bytes = 0, admission_bytes = 0;
  /// DRAM of the design's index at the end: a flash engine's own accounting
  /// (modelled_dram_index_bytes(): navy's Bloom filters, index entries), else index_bytes.
  uint64_t dram_index_bytes = 0;
  /// False when the framework wrote nothing to the device (exact without placement, W-TinyLFU):
  /// no implementation WA.
  bool places_objects = true;
  /// Whether a hierarchy ran (its columns are filled).
  bool tiered = false;
  /// nhc modes: the controller's load_admit at the end of the run (engine/nhc.h).
  std::optional<double> nhc_load_admit;
  /// Timed runs: the timing after the warm-up.
  std::optional<TimingMetrics> timing;
  /// The series file's path as the row names it (CellConfig::stats_file); empty without one.
  std::string stats_file;
  /// The runner's own columns (the wall clock's fio names), named as runner_column_names().
  std::vector<Column> runner_columns;
  /// Seconds of the host's monotonic clock the run took (never reaches other columns).
  double wall_seconds = 0;
};

/// Resolves the cache capacity and the warm-up against the trace's summary, the framework's
/// layout, the device (sized for the cache when its keys ask), and the notes. Throws
/// std::invalid_argument for a capacity out of range, a framework that rejects it, or a device
/// smaller than the device bytes its framework addresses.
CellPlan plan_cell(const CellConfig& cell, const TraceSummary& summary);

/// How many objects a cache of `capacity_bytes` is expected to hold on a trace: the capacity in
/// unit-size mode, else the capacity over the trace's mean object size (working set ÷ unique
/// objects, floored, at least 1 byte); at least 1. It sizes the index reserve and TinyLFU's
/// sketch (an object count, never bytes: engine/admission.h); run_cell and `flashpq bench` both
/// use it, so they build the same sketch.
uint64_t expected_cached_objects(uint64_t capacity_bytes, bool unit_size,
                                 const TraceSummary& summary);

/// The counters of `cache` and `device` now. For W-TinyLFU (a cache of its own, no queue), the
/// framework counters it keeps.
template <class C>
RunCounters run_counters(const C& cache, const Device& device) {
  RunCounters r;
  if constexpr (requires { cache.queue().counters(); }) {
    r.framework = cache.queue().counters();
  } else {
    r.framework.evicted_objects = cache.evictions();
    r.framework.evicted_bytes = cache.evicted_bytes();
    r.framework.superseded_bytes = cache.superseded_bytes();
    r.framework.placed_bytes = cache.miss_bytes_inserted();
  }
  r.device = device.counters();
  r.miss_bytes = cache.miss_bytes_inserted();
  r.rejections = cache.admission_rejections();
  if constexpr (requires { cache.tier_counters(); }) r.tiers = cache.tier_counters();
  if constexpr (requires { cache.queue().engine_counters().bloom_false_positive_reads; }) {
    r.bloom_false_positive_reads = cache.queue().engine_counters().bloom_false_positive_reads;
  }
  // An engine that admits on its own (Kangaroo's random admission before its log).
  if constexpr (requires { cache.queue().engine_counters().admission_rejections; }) {
    r.rejections += cache.queue().engine_counters().admission_rejections;
  }
  return r;
}

/// The device's counters now, for framework direct (no cache).
inline RunCounters run_counters(const Device& device) {
  RunCounters r;
  r.device = device.counters();
  return r;
}

/// The end of the warm-up: takes the counters the row reports growth from, and starts the
/// device's measured interval.
template <class... C>
void end_warmup(Measurement& m, Device& device, const C&... cache) {
  m.warm = run_counters(cache..., device);
  device.begin_measurement();
}

/// The end of the run: the final counters and the cache's size and DRAM.
template <class C>
void finish(Measurement& m, const C& cache, const Device& device) {
  m.end = run_counters(cache, device);
  m.objects = cache.object_count();
  m.used_bytes = cache.used_bytes();
  m.index_bytes = cache.index_bytes();
  m.queue_bytes = cache.queue_bytes();
  m.admission_bytes = cache.admission_bytes();
  m.places_objects = cache.places_objects();
  if constexpr (requires { cache.queue().modelled_dram_index_bytes(); }) {
    m.dram_index_bytes = cache.queue().modelled_dram_index_bytes();
  } else {
    m.dram_index_bytes = m.index_bytes;
  }
}

/// Counts request r of framework direct after the warm-up: requests; reads, writes and trims
/// (as get, set and delete requests); bytes.
inline void count_direct(HitCounters& counted, const Request& r) {
  counted.requests++;
  (r.op == Op::kGet   ? counted.get_requests
   : r.op == Op::kSet ? counted.set_requests
                      : counted.delete_requests)++;
  counted.bytes_requested += r.size_bytes;
}

}  // namespace flashpq
