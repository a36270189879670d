// engine/nhc.cpp — the NHC feedback controller (engine/nhc.h), a state machine that follows
// ocf-mf src/engine/mf_monitor.c step by step: each usleep() there is a return here with
// next_wake_ns_ set, and the state says where to resume.
#include "engine/nhc.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace flashpq {

void NhcConfig::validate() const {
  const double n = 1.0 / step;
  if (!(step > 0 && step <= 0.5) || std::fabs(n - std::round(n)) > 1e-9) {
    throw std::invalid_argument(
        "key 'tiers.nhc_step': expected a step in (0, 0.5] dividing 1 (0.01, 0.05, 0.1), found " +
        std::to_string(step));
  }
  if (interval_ns == 0) {
    throw std::invalid_argument("key 'tiers.nhc_interval_us': expected more than 0, found 0");
  }
  if (stable_interval_ns == 0) {
    throw std::invalid_argument(
        "key 'tiers.nhc_stable_interval_us': expected more than 0, found 0");
  }
  if (!(stable_threshold >= 0 && stable_threshold <= 1)) {
    throw std::invalid_argument(
        "key 'tiers.nhc_stable_threshold': expected a number in [0, 1], found " +
        std::to_string(stable_threshold));
  }
  if (!(workload_change >= 0 && workload_change <= 1)) {
    throw std::invalid_argument(
        "key 'tiers.nhc_workload_change': expected a number in [0, 1], found " +
        std::to_string(workload_change));
  }
}

NhcController::NhcController(const NhcConfig& config)
    : config_(config), top_(static_cast<int>(std::lround(1.0 / config.step))), level_(top_) {}

void NhcController::wake(uint64_t now_ns, double read_miss_ratio, uint64_t served_bytes) {
  miss_ = read_miss_ratio;
  served_ = served_bytes;
  if (counters_.restarts == 0) {  // the monitor thread's first instant
    start(now_ns);
    return;
  }
  // The throughput of the measurement that just ended: bytes completed per ns over it
  // (mf_monitor.c's _get_throughput: cache + core over the last interval).
  auto tp = [&] {
    ++counters_.measurements;
    const uint64_t elapsed = now_ns - measure_start_ns_;
    return elapsed == 0
               ? 0.0
               : static_cast<double>(served_ - measure_start_bytes_) / static_cast<double>(elapsed);
  };
  switch (state_) {
    case State::kWaitStable:  // monitor_wait_stable, after its usleep
      last_miss_ = base_miss_;
      base_miss_ = miss_;
      check_stable(now_ns);
      return;
    case State::kTp2:
      tp2_ = tp();
      la3_ = la2_ + 1;
      if (la3_ > top_) {
        tp3_ = -0.1;
        after_tp3(now_ns);
      } else {
        measure(la3_, State::kTp3, now_ns);
      }
      return;
    case State::kTp3:
      tp3_ = tp();
      after_tp3(now_ns);
      return;
    case State::kTp1:
      tp1_ = tp();
      level_ = la2_;  // "Recover."
      slope(now_ns);
      return;
    case State::kSlopeTp3:
      tp3_ = tp();
      slope(now_ns);
      return;
    case State::kSlopeTp1:
      tp1_ = tp();
      slope(now_ns);
      return;
  }
}

// monitor_func's loop: classic caching, then wait for a stable miss ratio.
void NhcController::start(uint64_t now) {
  ++counters_.restarts;
  data_admit_ = true;
  level_ = top_;
  last_miss_ = -0.1;
  base_miss_ = miss_;  // the latest reading (monitor_wait_stable's miss_ratio)
  check_stable(now);
}

void NhcController::check_stable(uint64_t now) {
  if (base_miss_ < last_miss_ - config_.stable_threshold ||
      base_miss_ > last_miss_ + config_.stable_threshold) {
    state_ = State::kWaitStable;
    next_wake_ns_ = now + config_.stable_interval_ns;
    return;
  }
  // Stable: base_miss_ is the base miss ratio; data admission off, tuning starts.
  data_admit_ = false;
  second_chance_ = true;
  tune(now);
}

// One iteration of monitor_tune_load_admit's outer loop.
void NhcController::tune(uint64_t now) {
  la2_ = level_;
  measure(la2_, State::kTp2, now);
}

void NhcController::after_tp3(uint64_t now) {
  la1_ = la2_ - 1;
  if (la1_ < 0) {
    tp1_ = -0.1;
    level_ = la2_;
    slope(now);
  } else {
    measure(la1_, State::kTp1, now);
  }
}

// The slope-following loop.
void NhcController::slope(uint64_t now) {
  if (miss_ > base_miss_ + config_.workload_change) {  // workload change: quit and re-optimize
    start(now);
    return;
  }
  if (tp2_ >= tp1_ && tp2_ >= tp3_) {
    level_ = la2_;
    intensity(now);
    return;
  }
  if (tp3_ >= tp1_ && tp3_ >= tp2_) {
    if (la3_ >= top_) {
      level_ = top_;
      intensity(now);
      return;
    }
    la1_ = la2_;
    tp1_ = tp2_;
    la2_ = la3_;
    tp2_ = tp3_;
    la3_ = la3_ + 1;
    if (la3_ > top_) {
      tp3_ = -0.1;
      slope(now);
    } else {
      measure(la3_, State::kSlopeTp3, now);
    }
    return;
  }
  // tp1 is the best.
  if (la1_ <= 0) {
    level_ = 0;
    intensity(now);
    return;
  }
  la3_ = la2_;
  tp3_ = tp2_;
  la2_ = la1_;
  tp2_ = tp1_;
  la1_ = la1_ - 1;
  if (la1_ < 0) {
    tp1_ = -0.1;
    slope(now);
  } else {
    measure(la1_, State::kSlopeTp1, now);
  }
}

// The intensity check after a climb: load_admit at 1 means the load does not fill the cache
// device; a second chance, then classic caching again.
void NhcController::intensity(uint64_t now) {
  ++counters_.climbs;
  if (level_ == top_) {
    if (!second_chance_) {
      start(now);
      return;
    }
    second_chance_ = false;
  }
  tune(now);
}

void NhcController::measure(int level, State then, uint64_t now) {
  level_ = level;
  state_ = then;
  measure_start_ns_ = now;
  measure_start_bytes_ = served_;
  next_wake_ns_ = now + config_.interval_ns;
}

}  // namespace flashpq
