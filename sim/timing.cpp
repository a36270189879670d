#include "sim/timing.h"

namespace flashpq {

namespace {
constexpr const char* kModes[] = {"none", "simulated", "wall"};
constexpr const char* kArrivals[] = {"closed_loop", "trace", "constant", "poisson"};
}  // namespace

const char* timing_mode_name(TimingMode mode) { return kModes[static_cast<int>(mode)]; }

TimingMode parse_timing_mode(const std::string& name) {
  for (int i = 0; i < 3; ++i)
    if (name == kModes[i]) return static_cast<TimingMode>(i);
  throw std::invalid_argument("timing.mode must be one of none, simulated, wall; got '" + name +
                              "'");
}

const char* arrival_process_name(ArrivalProcess process) {
  return kArrivals[static_cast<int>(process)];
}

ArrivalProcess parse_arrival_process(const std::string& name) {
  for (int i = 0; i < 4; ++i)
    if (name == kArrivals[i]) return static_cast<ArrivalProcess>(i);
  throw std::invalid_argument(
      "timing.arrival must be one of closed_loop, trace, constant, poisson; got '" + name + "'");
}

}  // namespace flashpq
