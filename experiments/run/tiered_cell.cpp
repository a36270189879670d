// experiments/run/tiered_cell.cpp — the runners of a hierarchy (experiments/run/tiered_cell.h),
// each through the kernel of its flash tier's cache type (experiments/run/kernels.h).
#include "devices/block/block_device.h"
#include "devices/simflash/simflash_device.h"
#include "experiments/run/kernels.h"
#include "experiments/run/measure.h"
#include "experiments/run/runners.h"

namespace flashpq {

namespace {

// The kernels of the flash tier's cache: the cell's policy on its framework, no admission of
// its own (tiers.flash_admission decides; a requirement of the runners).
const CellKernels& flash_tier(const CellConfig& cell) {
  return cell_kernels(cell.policy.name, "none", cell.framework.name);
}

}  // namespace

Measurement run_tiered(const CellConfig& cell, const CellPlan& plan, Device& device) {
  return flash_tier(cell).tiered(cell, plan, device, nullptr);
}

Measurement run_tiered_on_wall_clock(const CellConfig& cell, const CellPlan& plan,
                                     BlockDevice& device) {
  return flash_tier(cell).tiered(cell, plan, device, &device);
}

Measurement run_tiered_simulated(const CellConfig& cell, const CellPlan& plan, Device& device,
                                 ServiceModel& model) {
  return flash_tier(cell).tiered_simulated(cell, plan, device, model);
}

}  // namespace flashpq
