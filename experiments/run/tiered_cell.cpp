// experiments/run/tiered_cell.cpp — the functional runner of a hierarchy (engine/tiers.h): a
// DRAM tier over the cell's cache over a backing store, counts only.
#include <chrono>

#include "devices/null_device.h"
#include "engine/tiers.h"
#include "experiments/run/measure.h"
#include "experiments/run/replay.h"
#include "experiments/run/runners.h"
#include "traces/prefetch_reader.h"

namespace flashpq {

Measurement run_tiered(const CellConfig& cell, const CellPlan& plan, Device& device) {
  Measurement m;
  const auto t0 = std::chrono::steady_clock::now();  // wall_seconds only
  HitStats stats;
  stats.reserve(plan.trace_objects);
  // The DRAM tier: the tier's policy (its keys at their defaults) on an exact queue, placing
  // nothing on a device.
  CacheConfig dram_config = plan.cache;
  dram_config.capacity_bytes = plan.tiers.dram_capacity_bytes;
  dram_config.validate();
  const FrameworkConfig exact{"exact", {}};
  NullDevice dram_device;
  with_policy(PolicyConfig{cell.tiers.dram_policy, {}}, [&](auto dram_policy) {
    with_framework(exact, dram_config, std::move(dram_policy), dram_device, [&](auto& dram) {
      with_policy(cell.policy, [&](auto policy) {
        with_framework(cell.framework, plan.cache, std::move(policy), device, [&](auto& flash) {
          // Objects DRAM is expected to hold: the cache's estimate scaled by the capacities.
          dram.reserve(static_cast<size_t>(1 + static_cast<double>(plan.expected_objects) *
                                                   static_cast<double>(dram_config.capacity_bytes) /
                                                   static_cast<double>(plan.cache.capacity_bytes)));
          flash.reserve(plan.expected_objects);
          TieredCache tiers(plan.tiers, dram, flash);
          PrefetchReader prefetch(open_cell_trace(cell, plan));
          ProgressReader reader(prefetch, plan.progress, plan.interrupt);
          m.replayed = replay_stream(tiers, reader, stats, plan.warmup_requests,
                                     [&] { end_warmup(m, device, tiers); });
          finish(m, tiers, device);
        });
      });
    });
  });
  m.counted = stats.counters();
  m.tiered = true;
  m.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return m;
}

}  // namespace flashpq
