// experiments/run/runners.cpp — runner selection and requirements (experiments/run/runners.h).
#include "experiments/run/runners.h"

#include "devices/device.h"
#include "engine/framework.h"
#include "sim/timing.h"

namespace flashpq {

RunnerKind runner_for(const CellConfig& cell) {
  if (cell.timing.mode == TimingMode::kSimulated) return RunnerKind::kSimulated;
  if (cell.timing.mode == TimingMode::kWall || device_type(cell.device.name).wall_clock) {
    return RunnerKind::kWall;
  }
  return RunnerKind::kFunctional;
}

const std::vector<Requirement>& runner_requirements() {
  const std::string& mode = kTimingModeKey.name;
  const std::string& arrival = kTimingArrivalKey.name;
  const std::string& device = device_section().selector;
  const std::string& framework = framework_section().selector;
  static const std::vector<Requirement> rules = {
      {{{mode, {"simulated"}, false}},
       device,
       {"simflash"},
       "timing.mode simulated needs device simflash for simulated time"},
      {{{mode, {"wall"}, false}},
       device,
       {"block"},
       "timing.mode wall needs device block for wall-clock time"},
      {{{mode, {"wall"}, false}, {framework, {"direct"}, true}},
       arrival,
       {"closed_loop"},
       "a cache serves one request at a time on the wall clock: closed_loop with 1 client"},
      {{{mode, {"wall"}, false}, {framework, {"direct"}, true}, {arrival, {"closed_loop"}, false}},
       kTimingClientsKey.name,
       {"1"},
       "a cache serves one request at a time on the wall clock: closed_loop with 1 client"},
  };
  return rules;
}

const std::vector<std::string>& runner_column_names() {
  static const std::vector<std::string> names = {"iops", "bw_bytes", "clat_ns", "lat_ns"};
  return names;
}

}  // namespace flashpq
