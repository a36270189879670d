// experiments/run/runners.cpp — runner selection and requirements (experiments/run/runners.h).
#include "experiments/run/runners.h"

namespace flashpq {

RunnerKind runner_for(const CellConfig& cell) {
  if (cell.timing.mode == TimingMode::kSimulated) return RunnerKind::kSimulated;
  if (cell.timing.mode == TimingMode::kWall || device_type(cell.device.name).wall_clock) {
    return RunnerKind::kWall;
  }
  return RunnerKind::kFunctional;
}

const std::vector<Requirement>& runner_requirements() {
  static const std::vector<Requirement> rules = {
      {{{"timing.mode", {"simulated"}, false}},
       "device.name",
       {"simflash"},
       "timing.mode simulated needs device simflash for simulated time"},
      {{{"timing.mode", {"wall"}, false}},
       "device.name",
       {"block"},
       "timing.mode wall needs device block for wall-clock time"},
      {{{"timing.mode", {"wall"}, false}, {"framework.name", {"direct"}, true}},
       "timing.arrival",
       {"closed_loop"},
       "a cache serves one request at a time on the wall clock: closed_loop with 1 client"},
      {{{"timing.mode", {"wall"}, false},
        {"framework.name", {"direct"}, true},
        {"timing.arrival", {"closed_loop"}, false}},
       "timing.clients",
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
