// experiments/run/cell_runner.cpp — plan, runner, row (experiments/run/cell_runner.h).
#include "experiments/run/cell_runner.h"

#include <algorithm>
#include <cmath>

#include "devices/block/block_device.h"
#include "devices/simflash/simflash_device.h"
#include "experiments/run/row.h"
#include "experiments/run/runners.h"
#include "fmt/format.h"

namespace flashpq {

uint64_t expected_cached_objects(uint64_t capacity_bytes, bool unit_size,
                                 const TraceSummary& summary) {
  if (unit_size) return std::max<uint64_t>(1, capacity_bytes);
  const uint64_t mean_object_bytes =
      summary.unique_objects
          ? std::max<uint64_t>(1, summary.working_set_bytes / summary.unique_objects)
          : 1;
  return std::max<uint64_t>(1, capacity_bytes / mean_object_bytes);
}

CellPlan plan_cell(const CellConfig& cell, const TraceSummary& summary) {
  CellPlan plan;
  plan.cache = cell.cache;
  const uint64_t working_set =
      plan.cache.unit_size ? summary.unique_objects : summary.working_set_bytes;
  plan.cache.capacity_bytes = cell.capacity.resolve(working_set);
  plan.cache.validate();
  // Preconditioning requests (a generator's sequential fill) are always warm-up; the fraction
  // applies to what follows.
  const uint64_t fill = std::min(summary.preconditioning_requests, summary.requests);
  plan.warmup_requests =
      fill +
      static_cast<uint64_t>(std::floor(cell.warmup * static_cast<double>(summary.requests - fill)));
  plan.expected_objects =
      expected_cached_objects(plan.cache.capacity_bytes, plan.cache.unit_size, summary);
  plan.direct = !framework_builds_cache(cell.framework.name);
  plan.trace_objects = summary.unique_objects;
  return plan;
}

ResultRow run_cell(const CellConfig& cell, const TraceSummary& summary) {
  const CellPlan plan = plan_cell(cell, summary);
  // Each runner builds the device it needs (the loader checked that the cell's device is one).
  auto row = [&](Measurement m, const Device& device) {
    if (m.replayed != summary.requests) {
      throw std::runtime_error(
          fmt::format("{}: the trace yielded {} requests, but {} when summarised: did it change?",
                      cell.trace.path(), m.replayed, summary.requests));
    }
    return build_row(cell, summary, plan, m, device);
  };
  switch (runner_for(cell)) {
    case RunnerKind::kSimulated: {
      SimFlashDevice device(cell.device);
      return row(run_simulated(cell, plan, device), device);
    }
    case RunnerKind::kWall: {
      BlockDevice device(cell.device);
      return row(run_on_wall_clock(cell, plan, device), device);
    }
    case RunnerKind::kFunctional:
      break;
  }
  const std::unique_ptr<Device> device = make_device(cell.device);
  return row(run_functional(cell, plan, *device), *device);
}

}  // namespace flashpq
