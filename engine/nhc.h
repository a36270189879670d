// engine/nhc.h — the feedback controller of non-hierarchical caching (NHC): how much of the
// load that hits the cache device it keeps, and how much it sends to the backing ("core")
// device.
//
// Source: Wu et al., "The Storage Hierarchy is Not a Hierarchy: Optimizing Caching on Modern
// Storage Devices with Orthus", FAST '21, §3 (NHC: data admission, then load admission tuned
// by feedback), and its implementation in Orthus-CAS, the NHC demo's OCF fork
// (github.com/josehu07/nhc-demo, its README and src/engine/mf_monitor.c, whose constants are the
// defaults here). The controller has two switches the hierarchy reads per request:
//   data_admit   misses populate the cache (classic caching) — on while the cache warms up;
//   load_admit   the share of the reads that hit the cache device and are served by it; the
//                rest are served by the backing device (mf_monitor.c: "p <= load_admit").
// Its loop, as mf_monitor.c's monitor_func, each step a wake-up in simulated time:
//   1. classic caching (data_admit on, load_admit 1), until the read miss ratio is stable: two
//      readings `stable_interval` apart differ by at most `stable_threshold`
//      (monitor_wait_stable); that miss ratio is the base;
//   2. data_admit off; tuning (monitor_tune_load_admit): measure the served throughput (bytes
//      completed by both devices over `interval`) at load_admit l, l + step and l − step; then
//      follow the slope — move one step towards the better neighbour and measure the next one
//      — until l is the best of the three, or l reaches 0 or 1;
//   3. after each climb: if the read miss ratio exceeds base + `workload_change`, the workload
//      changed: back to 1; if l is 1 (the load does not saturate the cache device) twice in a
//      row, back to 1 (classic caching); else climb again from l.
// load_admit is kept as an integer number of steps (1/step of them), so 1 and 0 are reached
// exactly (mf_monitor.c's doubles compare l + step with 1.0).
//
// The controller knows nothing of devices or requests: the caller reports the cumulative read
// miss ratio and served bytes when the clock reaches next_wake_ns() (at the first request issued
// at or after it).
#pragma once

#include <cstdint>

namespace flashpq {

/// The controller's constants (mf_monitor.c's names in the comments).
struct NhcConfig {
  /// LOAD_ADMIT_TUNING_STEP: the step of load_admit, in (0, 0.5]; 1/step must be an integer.
  double step = 0.01;
  /// MEASURE_THROUGHPUT_INTERVAL_US: how long each load_admit is measured, ns, > 0.
  uint64_t interval_ns = 25'000'000;
  /// WAIT_STABLE_THRESHOLD: the miss ratio is stable when two readings differ by at most this.
  double stable_threshold = 0.0015;
  /// WAIT_STABLE_SLEEP_INTERVAL_US: between two readings of the miss ratio, ns, > 0.
  uint64_t stable_interval_ns = 100'000'000;
  /// WORKLOAD_CHANGE_THRESHOLD: a miss ratio above base + this restarts classic caching.
  double workload_change = 0.2;

  /// Throws std::invalid_argument quoting the bad value.
  void validate() const;
};

/// What the controller did (a row's and a test's view).
struct NhcCounters {
  /// Load-admission measurements taken, and tuning rounds (climbs) finished.
  uint64_t measurements = 0;
  uint64_t climbs = 0;
  /// Times classic caching (re)started, the first included.
  uint64_t restarts = 0;
};

/// The NHC feedback controller (see the header comment). Not thread-safe.
class NhcController {
 public:
  /// REQUIRES: config.validate() passed. Starts in classic caching at time 0.
  explicit NhcController(const NhcConfig& config);

  bool data_admit() const { return data_admit_; }
  /// In [0, 1]: steps × step.
  double load_admit() const { return static_cast<double>(level_) * config_.step; }
  /// The time, ns, at which the controller next needs wake().
  uint64_t next_wake_ns() const { return next_wake_ns_; }
  const NhcCounters& counters() const { return counters_; }

  /// Advances the controller to now_ns (≥ next_wake_ns()): read_miss_ratio is the cache's read
  /// miss ratio since it started, in [0, 1]; served_bytes the bytes completed by all devices
  /// since the start (non-decreasing).
  void wake(uint64_t now_ns, double read_miss_ratio, uint64_t served_bytes);

 private:
  enum class State : uint8_t { kWaitStable, kTp2, kTp3, kTp1, kSlopeTp3, kSlopeTp1 };

  void start(uint64_t now);
  void check_stable(uint64_t now);
  void tune(uint64_t now);
  void after_tp3(uint64_t now);
  void slope(uint64_t now);
  void intensity(uint64_t now);
  void measure(int level, State then, uint64_t now);

  NhcConfig config_;
  int top_;  // 1/step
  int level_;
  bool data_admit_ = true;
  State state_ = State::kWaitStable;
  uint64_t next_wake_ns_ = 0;
  NhcCounters counters_;
  // What wake() was given last.
  double miss_ = 0;
  uint64_t served_ = 0;
  // Wait-stable and tuning state (mf_monitor.c's locals).
  double last_miss_ = -0.1;
  double base_miss_ = 0;
  bool second_chance_ = true;
  int la1_ = 0, la2_ = 0, la3_ = 0;
  double tp1_ = 0, tp2_ = 0, tp3_ = 0;
  uint64_t measure_start_ns_ = 0;
  uint64_t measure_start_bytes_ = 0;
};

}  // namespace flashpq
