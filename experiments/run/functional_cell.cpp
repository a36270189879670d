// experiments/run/functional_cell.cpp — the functional runner (experiments/run/runners.h): no
// clock, counts only. Framework direct here; a cache's replay is its type's kernel
// (experiments/run/kernels.h: functional_cache_kernel, experiments/run/kernel_unit.h).
#include <chrono>

#include "engine/direct/direct.h"
#include "experiments/run/direct.h"
#include "experiments/run/kernels.h"
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
    cell_kernels(cell.policy.name, cell.admission.name, cell.framework.name)
        .functional(cell, plan, device, m);
  }
  m.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return m;
}

}  // namespace flashpq
