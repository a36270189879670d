// experiments/run/functional_cell.cpp — the functional runner (experiments/run/runners.h): no
// clock, counts only.
#include <chrono>

#include "engine/direct/direct.h"
#include "experiments/run/direct.h"
#include "experiments/run/replay.h"
#include "experiments/run/runners.h"
#include "traces/prefetch_reader.h"

namespace flashpq {

Measurement run_functional(const CellConfig& cell, const CellPlan& plan, Device& device) {
  if (plan.tiers.enabled()) return run_tiered(cell, plan, device);
  Measurement m;
  const auto t0 = std::chrono::steady_clock::now();  // wall_seconds only
  if (plan.direct) {
    PrefetchReader prefetch(open_cell_trace(cell, plan));  // decoding overlaps the replay
    ProgressReader reader(prefetch, plan.progress, plan.interrupt);
    m.replayed =
        replay_direct(device, reader, DirectConfig::from(cell.framework.params).offset_unit_bytes,
                      plan.warmup_requests, m.counted, [&] { end_warmup(m, device); });
    m.end = run_counters(device);
  } else {
    HitStats stats;
    stats.reserve(plan.trace_objects);
    with_cell_cache(cell, plan, device, [&](auto& c) {
      PrefetchReader prefetch(open_cell_trace(cell, plan));
      ProgressReader reader(prefetch, plan.progress, plan.interrupt);
      m.replayed =
          replay_stream(c, reader, stats, plan.warmup_requests, [&] { end_warmup(m, device, c); });
      finish(m, c, device);
    });
    m.counted = stats.counters();
  }
  m.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return m;
}

}  // namespace flashpq
