// experiments/run/runners.cpp — runner selection and requirements (experiments/run/runners.h).
#include "experiments/run/runners.h"

#include "devices/backing.h"
#include "devices/device.h"
#include "engine/framework.h"
#include "engine/tiers.h"
#include "policies/registry.h"
#include "sim/timing.h"

namespace flashpq {

RunnerKind runner_for(const CellConfig& cell) {
  if (cell.timing.mode == TimingMode::kSimulated) return RunnerKind::kSimulated;
  if (cell.timing.mode == TimingMode::kWall ||
      device_type(cell.device.name).clock == DeviceClock::kWall) {
    return RunnerKind::kWall;
  }
  return RunnerKind::kFunctional;
}

const std::vector<std::string>& runner_column_names() {
  static const std::vector<std::string> names = {"iops", "bw_bytes", "clat_ns", "lat_ns"};
  return names;
}

}  // namespace flashpq
