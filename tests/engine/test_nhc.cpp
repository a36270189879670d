// Tests of engine/nhc.h, the NHC feedback controller: driven with synthetic devices whose
// throughput is a known function of load_admit, it must climb to the function's maximum
// (within a step), fall back to classic caching when the load does not saturate the cache
// device, and follow mf_monitor.c's stability and workload-change rules.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <stdexcept>

#include "engine/nhc.h"

namespace flashpq::test_nhc {
namespace {

// Runs the controller for `seconds` of simulated time: every `tick_ns` the served bytes grow by
// rate(load_admit) × tick (bytes per ns) and the controller wakes when due; miss(t) gives the
// read miss ratio at time t. Returns the controller.
NhcController drive(const NhcConfig& cfg, double seconds, const std::function<double(double)>& rate,
                    const std::function<double(uint64_t)>& miss, uint64_t tick_ns = 100'000) {
  NhcController c(cfg);
  double served = 0;
  for (uint64_t t = 0; t <= static_cast<uint64_t>(seconds * 1e9); t += tick_ns) {
    if (t >= c.next_wake_ns()) c.wake(t, miss(t), static_cast<uint64_t>(served));
    served += rate(c.load_admit()) * static_cast<double>(tick_ns);
  }
  return c;
}

double constant_miss(uint64_t) {
  return 0.01;
}

// A cache device of capacity C and a backing device of capacity B (bytes per ns) under an
// offered load L: the cache serves min(C, l·L), the backing store min(B, (1 − l)·L). With L
// beyond both the total is best at l* = 1 − B/L as long as l*·L ≥ C... here the peak is where
// both saturate: the total is C + B on [1 − B/L, C/L].
double two_devices(double l, double cache, double backing, double offered) {
  return std::min(cache, l * offered) + std::min(backing, (1 - l) * offered);
}

TEST_CASE(
    "nhc: starts in classic caching and turns data admission off once the miss ratio is "
    "stable",
    "[nhc]") {
  NhcConfig cfg;
  NhcController c(cfg);
  CHECK(c.data_admit());
  CHECK(c.load_admit() == 1.0);
  CHECK(c.next_wake_ns() == 0);
  c.wake(0, 0.5, 0);  // first reading: compared with -0.1, never stable
  CHECK(c.data_admit());
  CHECK(c.next_wake_ns() == cfg.stable_interval_ns);
  c.wake(cfg.stable_interval_ns, 0.2, 100);  // 0.5 → 0.2: not stable
  CHECK(c.data_admit());
  CHECK(c.next_wake_ns() == 2 * cfg.stable_interval_ns);
  c.wake(2 * cfg.stable_interval_ns, 0.201, 200);  // within 0.0015: stable
  CHECK_FALSE(c.data_admit());
  // Tuning starts by measuring load_admit 1 for one interval.
  CHECK(c.load_admit() == 1.0);
  CHECK(c.next_wake_ns() == 2 * cfg.stable_interval_ns + cfg.interval_ns);
  CHECK(c.counters().restarts == 1);
}

TEST_CASE("nhc: climbs to the load_admit that maximizes the served throughput", "[nhc]") {
  NhcConfig cfg;
  cfg.step = 0.01;
  // A cache device of 30 units, a backing device of 10, offered 47 (the NHC demo's 30 MiB/s
  // cache, 10 MiB/s core, 12,000 × 4 KiB requests/s): the total rises until the backing
  // device saturates at l = 1 − 10/47 = 0.787 and falls once the cache device is not saturated
  // below l = 30/47 = 0.638. Between, both devices are full: a plateau at 40.
  const NhcController c = drive(
      cfg, 20, [](double l) { return two_devices(l, 30, 10, 47); }, constant_miss);
  // At any instant the controller may be measuring a neighbour of where it settled: one step
  // off the plateau at most, 40 − 0.47.
  INFO("load_admit " << c.load_admit());
  CHECK(c.load_admit() <= 0.80 + 1e-9);
  CHECK(c.load_admit() >= 0.62 - 1e-9);
  CHECK(two_devices(c.load_admit(), 30, 10, 47) >= 39.5);
  // load_admit 1 (classic caching) would serve 30.
  CHECK(two_devices(1, 30, 10, 47) == 30);
  CHECK_FALSE(c.data_admit());
  CHECK(c.counters().restarts == 1);
  CHECK(c.counters().climbs > 0);

  // A single peak: throughput 100 − |l − 0.37| × 100: the controller settles on 0.37 ± one step.
  const NhcController p = drive(
      cfg, 20, [](double l) { return 100 - std::fabs(l - 0.37) * 100; }, constant_miss);
  CHECK(std::fabs(p.load_admit() - 0.37) <= 0.01 + 1e-9);
}

TEST_CASE("nhc: a load that does not saturate the cache device returns to classic caching",
          "[nhc]") {
  NhcConfig cfg;
  // Below saturation every request is served whatever l is: the throughput is the offered
  // load. No neighbour is better than l = 1, so the climb ends at 1, twice, and classic caching
  // restarts (data admission on); l never goes below 1 − step (the neighbour measured).
  double lowest = 1;
  NhcController c(cfg);
  double served = 0;
  for (uint64_t t = 0; t <= 3'000'000'000; t += 100'000) {
    if (t >= c.next_wake_ns()) c.wake(t, 0.01, static_cast<uint64_t>(served));
    lowest = std::min(lowest, c.load_admit());
    served += 20.0 * 100'000;
  }
  CHECK(c.counters().restarts >= 3);
  CHECK(lowest >= 0.99 - 1e-9);
}

TEST_CASE("nhc: a miss ratio above base + workload_change restarts classic caching", "[nhc]") {
  NhcConfig cfg;
  // Stable at 0.01 until 1 s, then 0.3: a slope check comes at least every three measurements
  // (75 ms) and restarts classic caching (data admission on, load_admit 1), which lasts at
  // least the 100 ms to the next stable reading: at 1.09 s it is on.
  const NhcController c = drive(
      cfg, 1.09, [](double l) { return two_devices(l, 30, 10, 47); },
      [](uint64_t t) { return t < 1'000'000'000 ? 0.01 : 0.3; });
  CHECK(c.counters().restarts == 2);
  CHECK(c.data_admit());
  CHECK(c.load_admit() == 1.0);
}

TEST_CASE("nhc: the same inputs give the same decisions", "[nhc]") {
  NhcConfig cfg;
  auto rate = [](double l) { return two_devices(l, 30, 10, 47); };
  const NhcController a = drive(cfg, 5, rate, constant_miss);
  const NhcController b = drive(cfg, 5, rate, constant_miss);
  CHECK(a.load_admit() == b.load_admit());
  CHECK(a.counters().measurements == b.counters().measurements);
}

TEST_CASE("nhc: bad constants are refused, quoting the value", "[nhc]") {
  NhcConfig cfg;
  cfg.step = 0.03;  // 1/0.03 is not an integer
  CHECK_THROWS_WITH(cfg.validate(), Catch::Contains("tiers.nhc_step") && Catch::Contains("0.03"));
  cfg = NhcConfig{};
  cfg.interval_ns = 0;
  CHECK_THROWS_WITH(cfg.validate(), Catch::Contains("tiers.nhc_interval_us"));
  cfg = NhcConfig{};
  cfg.workload_change = 2;
  CHECK_THROWS_WITH(cfg.validate(), Catch::Contains("tiers.nhc_workload_change"));
  CHECK_NOTHROW(NhcConfig{}.validate());
}

}  // namespace
}  // namespace flashpq::test_nhc
