// experiments/config/runner_requirements.cpp — the runners' and hierarchies' requirements
// (experiments/config/runner_requirements.h).
#include "experiments/config/runner_requirements.h"

#include <string>

#include "devices/backing.h"
#include "devices/device.h"
#include "engine/admission.h"
#include "engine/cache.h"
#include "engine/framework.h"
#include "engine/tiers.h"
#include "policies/registry.h"
#include "sim/timing.h"

namespace flashpq {

const std::vector<Requirement>& runner_requirements() {
  const std::string& mode = kTimingModeKey.name;
  const std::string& arrival = kTimingArrivalKey.name;
  const std::string& device = device_section().selector;
  const std::string& framework = framework_section().selector;
  // The devices each clock runs on, by what their types declare (DeviceType::clock).
  static const std::vector<std::string> simulated =
      device_names_with_clock(DeviceClock::kSimulated);
  static const std::vector<std::string> wall = device_names_with_clock(DeviceClock::kWall);
  auto either = [](const std::vector<std::string>& names) {
    std::string s;
    for (size_t i = 0; i < names.size(); ++i) s += (i == 0 ? "" : " or ") + names[i];
    return s;
  };
  static const std::vector<Requirement> rules = {
      {{{mode, {"simulated"}, false}},
       device,
       simulated,
       "timing.mode simulated needs device " + either(simulated) + " for simulated time"},
      {{{mode, {"wall"}, false}},
       device,
       wall,
       "timing.mode wall needs device " + either(wall) + " for wall-clock time"},
      {{{mode, {"wall"}, false}, {framework, {"direct"}, true}},
       arrival,
       {"closed_loop"},
       "a cache serves one request at a time on the wall clock: closed_loop with 1 client"},
      {{{mode, {"wall"}, false}, {framework, {"direct"}, true}, {arrival, {"closed_loop"}, false}},
       kTimingClientsKey.name,
       {"1"},
       "a cache serves one request at a time on the wall clock: closed_loop with 1 client"},
  };
  static const std::vector<Requirement> all = [] {
    std::vector<Requirement> r = rules;
    // A hierarchy (engine/tiers.h) counts, without a clock, over a cache of priority policy.
    const std::vector<Condition> tiered = {{kTiersModeKey.name, {"none"}, true}};
    r.push_back(
        {{{kTiersModeKey.name, {"none"}, true}, {device_section().selector, {"block"}, false}},
         kBackingDeviceKey.name,
         {"counted", "block"},
         "on the wall clock a hierarchy's backing store is counted or a real device "
         "(fixed_latency and simflash are simulated)"});
    r.push_back({{{kTiersModeKey.name, {"nhc_wa", "nhc_wb"}, false}},
                 kTimingModeKey.name,
                 {"simulated"},
                 "NHC's controller measures throughput: timing.mode simulated"});
    r.push_back(
        {{{kTiersModeKey.name, {"none"}, true}, {kTimingModeKey.name, {"simulated"}, false}},
         kBackingDeviceKey.name,
         {"fixed_latency", "simflash"},
         "a timed hierarchy needs a backing device that takes time"});
    r.push_back({{{kBackingDeviceKey.name, {"block"}, false}},
                 device_section().selector,
                 {"block"},
                 "a block backing store runs on the wall clock, under a flash tier on a real "
                 "device"});
    r.push_back({{{kBackingDeviceKey.name, {"counted"}, true}},
                 kTiersModeKey.name,
                 {"wt", "wb", "wa", "wo", "pt", "nhc_wa", "nhc_wb"},
                 "a backing device sits under a hierarchy (tiers.mode)"});
    std::vector<std::string> caching, priority;
    for (const std::string& f : framework_names()) {
      if (framework_builds_cache(f)) caching.push_back(f);
    }
    for (const std::string& p : policy_names()) {
      if (!is_cache_policy(p)) priority.push_back(p);
    }
    r.push_back({tiered, framework_section().selector, caching, "the flash tier is a cache"});
    r.push_back({tiered, policy_section().selector, priority,
                 "the flash tier runs a priority policy on its framework"});
    r.push_back({tiered,
                 admission_section().selector,
                 {"none"},
                 "tiers.flash_admission decides what enters flash"});
    r.push_back(
        {tiered, kOnSizeChangeKey.name, {"keep"}, "a hierarchy keeps a cached copy's size"});
    return r;
  }();
  return all;
}

}  // namespace flashpq
