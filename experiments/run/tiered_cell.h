// experiments/run/tiered_cell.h — the runners of a hierarchy (engine/tiers.h): a DRAM tier
// over the cell's cache over a backing store; functional (counts only), on the wall clock with
// the flash tier on a real device, or in simulated time on simflash with a fixed_latency or
// simflash backing device (devices/backing.h) and, in the nhc modes, NHC's controller
// (engine/nhc.h). Templates over the flash tier's policy and framework: each is compiled in that
// cache type's kernel unit (experiments/run/kernels.h); tiered_cell.cpp dispatches to them.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <type_traits>

#include "devices/backing.h"
#include "devices/block/block_device.h"
#include "devices/null_device.h"
#include "devices/simflash/simflash_device.h"
#include "engine/exact/exact_framework.h"
#include "engine/nhc.h"
#include "engine/tiers.h"
#include "experiments/run/backing_store.h"
#include "experiments/run/dram_tier.h"
#include "experiments/run/interval_stats.h"
#include "experiments/run/measure.h"
#include "experiments/run/replay.h"
#include "experiments/run/simulated_runner.h"
#include "experiments/run/wall_cell.h"
#include "traces/prefetch_reader.h"

namespace flashpq {

namespace tiered {

// Builds the hierarchy of `cell` over `device`, its flash tier a Cache of policy P on framework
// F's queue, and calls fn(tiers).
template <class P, class F, class Fn>
void with_tiers(const CellConfig& cell, const CellPlan& plan, Device& device, Fn&& fn) {
  // The DRAM tier: the tier's policy (its keys at their defaults) on an exact queue, placing
  // nothing on a device. Without one (tiers.dram false) it is built at 1 byte and never used.
  CacheConfig dram_config = plan.cache;
  dram_config.capacity_bytes = plan.tiers.dram ? plan.tiers.dram_capacity_bytes : 1;
  dram_config.validate();
  auto run = [&](auto& dram) {
    Cache<P, typename F::template Queue<P>> flash(plan.cache, plan.framework, P(cell.policy),
                                                  device);
    // Objects DRAM is expected to hold: the cache's estimate scaled by the capacities.
    if (plan.tiers.dram) {
      dram.reserve(static_cast<size_t>(1 + static_cast<double>(plan.expected_objects) *
                                               static_cast<double>(dram_config.capacity_bytes) /
                                               static_cast<double>(plan.cache.capacity_bytes)));
    }
    flash.reserve(plan.expected_objects);
    TiersConfig tiers_config = plan.tiers;
    tiers_config.flash_expected_objects = plan.expected_objects;
    TieredCache tiers(tiers_config, dram, flash);
    fn(tiers);
  };
  // Two DRAM types per flash cache type, not one per DRAM policy (each would carry a whole
  // hierarchy): LRU and SLRU, built by type and inlined (LRU is the default and the common
  // case; LRU as SLRU-1, the same decisions), and every other policy behind AnyCache
  // (experiments/run/dram_tier.h: one indirect call per DRAM operation), compiled once.
  const PolicyConfig dram_policy{cell.tiers.dram_policy, {}};
  auto erased = [&] {
    AnyCache dram = make_dram_tier(dram_policy, dram_config);
    run(dram);
  };
  if (is_owning_policy(dram_policy.name)) return erased();
  with_policy_as_base(dram_policy, [&](auto policy) {
    using DP = decltype(policy);
    if constexpr (std::is_same_v<DP, SlruPolicy>) {
      const FrameworkConfig exact{"exact", {}};
      NullDevice dram_device;
      Cache<DP, ExactFramework::Queue<DP>> dram(dram_config, exact, std::move(policy), dram_device);
      run(dram);
    } else {
      erased();
    }
  });
}

// A hierarchy's series counters (experiments/run/interval_stats.h): `counts` (requests and
// hits, kept by the runner), the device's bytes and the tiers'.
inline IntervalCounters tier_snapshot(const IntervalCounters& counts, const Device& device,
                                      const TierCounters& t, const ServiceModel* model = nullptr) {
  IntervalCounters c = counts;
  add_device_counters(c, device, model);
  c.dram_hits = t.dram_hits;
  c.flash_hits = t.flash_hits;
  c.backing_bytes_read = t.backing_read_bytes;
  c.backing_bytes_written = t.backing_write_bytes;
  c.offloaded_reads = t.offloaded_reads;
  return c;
}

// The functional runner, or with `wall` the wall-clock runner on that device (the same one).
template <class P, class F>
Measurement tiered_replay_kernel(const CellConfig& cell, const CellPlan& plan, Device& device,
                                 BlockDevice* wall) {
  Measurement m;
  TimingMetrics timing;
  const auto t0 = std::chrono::steady_clock::now();  // wall_seconds only
  HitStats stats;
  stats.reserve(plan.trace_objects);
  // stats.interval_s on the wall clock: the series and its counts.
  std::optional<IntervalStats> series;
  if (wall && cell.stats.enabled()) {
    series.emplace(cell.stats.interval_ns, cell.stats_path, IntervalStats::Shape::kTiered);
  }
  IntervalCounters counts;
  // backing.device block (the wall clock): its I/O inside each request's timed access.
  std::optional<DeviceBacking> store;
  if (wall && cell.backing.kind == BackingKind::kBlock) {
    store.emplace(cell.backing, plan.trace_objects, plan.trace_working_set_bytes, cell.seed,
                  cell.device.force_destroy);
    store->fill();
  }
  with_tiers<P, F>(cell, plan, device, [&](auto& tiers) {
    using T = std::remove_reference_t<decltype(tiers)>;
    if (store) tiers.set_backing_listener(&DeviceBacking::on_backing, &*store);
    PrefetchReader prefetch(open_cell_trace(cell, plan));
    ProgressReader reader(prefetch, plan.progress, plan.interrupt);
    std::optional<WallTimedCache<T>> timed;
    if (wall) timed.emplace(tiers, plan.warmup_requests, timing, device.io_log());
    auto snapshot = [&] { return tier_snapshot(counts, device, tiers.tier_counters()); };
    WallSeries<T, decltype(snapshot)> replayed{
        tiers,    timed ? &*timed : nullptr, series ? &*series : nullptr, counts,
        snapshot, plan.warmup_requests};
    if (wall) wall->begin_nvme_measurement();
    m.replayed = replay_stream(replayed, reader, stats, plan.warmup_requests,
                               [&] { end_warmup(m, device, tiers); });
    if (wall) wall->end_nvme_measurement();
    if (series && timed) series->finish(timed->last_end_ns(), snapshot());
    finish(m, tiers, device);
  });
  m.counted = stats.counters();
  m.tiered = true;
  if (series) m.stats_file = cell.stats_file;
  if (wall) {
    if (timing.requests) m.timing = timing;
    m.runner_columns = fio_columns(timing, LatencyHistogram{});
  }
  m.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return m;
}

// Each request is issued at its arrival (experiments/run/simulated_runner.h): the hierarchy
// applies it; the flash tier's NAND operations go to the dies and channels; the backing store's
// bytes, read and written by this request, go to the fixed_latency server, whose completion
// time run_timed waits for too; with tiers.dram_latency_us every request also spends that long in
// DRAM (overlapping the rest). Work a request causes is charged to it: an insertion into
// flash on a miss, a flush on eviction (a model of synchronous movement; Open CAS inserts on the
// request's path too). The NHC controller wakes at the first arrival at or after its wake-up
// time and sees the bytes completed so far.
template <class P, class F>
Measurement tiered_simulated_kernel(const CellConfig& cell, const CellPlan& plan, Device& device,
                                    ServiceModel& model) {
  Measurement m;
  const auto t0 = std::chrono::steady_clock::now();  // wall_seconds only
  HitStats stats;
  stats.reserve(plan.trace_objects);
  FixedLatencyServer backing(cell.backing);
  // backing.device simflash: a second device on the same clock, filled before the run.
  std::optional<DeviceBacking> store;
  if (cell.backing.kind == BackingKind::kSimFlash) {
    store.emplace(cell.backing, plan.trace_objects, plan.trace_working_set_bytes, cell.seed,
                  cell.device.force_destroy);
    store->fill();
  }
  // Its clock: the second device's service model, without its host side.
  const std::unique_ptr<ServiceModel> second =
      store ? store->service_model(ServiceModel::Options{kSecondDeviceIds, false}) : nullptr;
  std::optional<NhcController> nhc;
  if (plan.tiers.nhc()) nhc.emplace(plan.tiers.nhc_config);
  uint64_t served_bytes = 0;  // completed requests' payload, warm-up included
  const uint64_t dram_latency_ns = plan.tiers.dram ? plan.tiers.dram_latency_ns : 0;
  // stats.interval_s: the series (experiments/run/interval_stats.h) and its counts.
  std::optional<IntervalStats> series;
  if (cell.stats.enabled()) {
    series.emplace(cell.stats.interval_ns, cell.stats_path, IntervalStats::Shape::kTiered);
  }
  IntervalCounters counts;
  with_tiers<P, F>(cell, plan, device, [&](auto& tiers) {
    PrefetchReader prefetch(open_cell_trace(cell, plan));
    ProgressReader reader(prefetch, plan.progress, plan.interrupt);
    bool warm_taken = false;
    if (store) tiers.set_backing_listener(&DeviceBacking::on_backing, &*store);
    auto snapshot = [&] {
      IntervalCounters c = tier_snapshot(counts, device, tiers.tier_counters(), &model);
      if (nhc) c.nhc_load_admit = nhc->load_admit();
      return c;
    };
    auto issue = [&](const Request& q, uint64_t i, uint64_t now_ns) -> uint64_t {
      if (series) {
        series->advance(now_ns, snapshot);
        series->issued(i < plan.warmup_requests);
      }
      if (i == plan.warmup_requests) {
        end_warmup(m, device, tiers);
        warm_taken = true;
      }
      if (nhc && now_ns >= nhc->next_wake_ns()) {
        const uint64_t reads = tiers.reads();
        nhc->wake(now_ns,
                  reads == 0
                      ? 0.0
                      : static_cast<double>(tiers.read_misses()) / static_cast<double>(reads),
                  served_bytes);
        tiers.set_nhc(nhc->data_admit(), nhc->load_admit());
      }
      const TierCounters& tc = tiers.tier_counters();
      const uint64_t read_before = tc.backing_read_bytes;
      const uint64_t write_before = tc.backing_write_bytes;
      Request at = q;  // the hierarchy's clock (rate_limited admission) is the arrival time
      at.time_ns = now_ns;
      const bool hit = tiers.access(at);
      count_op(counts, q, hit);
      if (i >= plan.warmup_requests) {
        stats.record(q, hit);
      } else {
        stats.record_warmup(q, hit);
      }
      if (store) return now_ns + dram_latency_ns;  // its NAND work is on the clock already
      return std::max(now_ns + dram_latency_ns,
                      backing.submit(now_ns, tc.backing_read_bytes - read_before,
                                     tc.backing_write_bytes - write_before));
    };
    const TimedRunResult r = run_timed(
        model, cell.timing, plan.warmup_requests, cell.seed, reader, issue,
        [&](uint64_t, uint64_t arrival_ns, uint64_t completion_ns, uint64_t bytes, OpClass op) {
          served_bytes += bytes;
          if (series) {
            series->advance(completion_ns, snapshot);
            series->completed(op, completion_ns - arrival_ns);
          }
        },
        second.get());
    if (!warm_taken) end_warmup(m, device, tiers);
    if (series) series->finish(r.end_ns, snapshot());
    stats.flush();
    finish(m, tiers, device);
    m.timing = r.metrics;
    m.replayed = r.requests;
    m.sim_events = r.events;
    if (nhc) m.nhc_load_admit = nhc->load_admit();
  });
  m.counted = stats.counters();
  m.tiered = true;
  if (series) m.stats_file = cell.stats_file;
  m.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return m;
}

}  // namespace tiered

}  // namespace flashpq
