// experiments/run/simulated_cell.cpp — the simulated-time runner of a cell
// (experiments/run/simulated_cell.h): framework direct here, a cache through its kernel.
#include "experiments/run/simulated_cell.h"

#include <chrono>

#include "engine/direct/direct.h"
#include "experiments/run/kernels.h"
#include "experiments/run/runners.h"

namespace flashpq {

Measurement run_simulated(const CellConfig& cell, const CellPlan& plan, Device& device,
                          ServiceModel& model) {
  if (plan.tiers.enabled()) return run_tiered_simulated(cell, plan, device, model);
  Measurement m;
  const auto t0 = std::chrono::steady_clock::now();  // wall_seconds only
  SimulatedCellRun run{cell, plan, device, model, m, std::nullopt, {}};
  if (cell.stats.enabled()) {
    run.series.emplace(cell.stats.interval_ns, cell.stats_path,
                       plan.direct ? IntervalStats::Shape::kDirect : IntervalStats::Shape::kCache);
  }
  if (plan.direct) {
    const uint64_t unit = DirectConfig::from(cell.framework.params).offset_unit_bytes;
    run.drive([&] { end_warmup(m, device); },
              [&](const Request& q, uint64_t i) {
                direct_issue(device, q, unit, i);
                count_op(run.counts, q, false);
                if (i >= plan.warmup_requests) count_direct(m.counted, q);
              });
    m.end = run_counters(device);
  } else {
    cell_kernels(cell.policy.name, cell.admission.name, cell.framework.name).simulated(run);
  }
  if (run.series) m.stats_file = cell.stats_file;
  m.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return m;
}

}  // namespace flashpq
