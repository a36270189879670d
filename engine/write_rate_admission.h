// engine/write_rate_admission.h — flash admission at a target write rate: random admission
// whose probability follows the flash tier's write rate (a hierarchy's
// `tiers.flash_admission: rate_limited`, engine/tiers.h).
//
// Source: CacheLib navy's dynamic random admission policy (cachelib/navy/admission_policy/
// DynamicRandomAP.h and .cpp; CacheBench's knob navyAdmissionWriteRateMB sets its target),
// read and written anew here:
//   probability(size) = clamp(base(size) × factor, 0, 1); an object is admitted iff the
//                       probability is 1 or a uniform draw in [0, 1) is below it;
//   base(size)        = (fls(base_size) / fls(size))^size_decay, fls(x) the 1-based index of the
//                       most significant set bit (folly::findLastSet): objects larger than
//                       base_size are penalised, as hits count per object;
//   every update_interval (checked at each decision, as navy checks in accept()):
//     observed   = (bytes written − bytes written at the last update) / elapsed seconds;
//                  when it is 0 the factor stays;
//     target now = (target × (seconds since start + one day) − bytes written) / one day, or 0
//                  when that is negative, at most max_rate (0 = no cap): the rate that would
//                  meet the daily write budget one day from now;
//     factor     = clamp(factor × clamp(target now / observed, 1 − window, 1 + window),
//                        0.001, 10).
// What differs from navy: time is FlashPQ's clock in ns (the request's time: the trace's
// timestamps in a functional cell, the arrival time in a timed one), not the steady clock in
// whole seconds, so rates are exact quotients; the draw comes from the caller's seeded stream,
// not a minstd_rand; the start is the first decision's time. max_rate 0 means no cap (navy's
// comment says so; its code would cap at 0).
#pragma once

#include <cstdint>

namespace flashpq {

/// The controller's constants (tiers.admission_* keys, engine/tiers.cpp; defaults navy's).
struct WriteRateAdmissionConfig {
  /// The target write rate averaged over a day, bytes/s, > 0 (navy targetRate).
  double target_rate_bytes_s = 0;
  /// The largest target the controller steers to, bytes/s; 0 = no cap (navy maxRate: 160 MiB/s).
  double max_rate_bytes_s = 160.0 * 1024 * 1024;
  /// Time between two updates of the factor, ns, > 0 (navy updateInterval: 60 s).
  uint64_t update_interval_ns = 60'000'000'000;
  /// The factor's initial value, in [0.001, 10] (navy probabilitySeed: 1).
  double probability_seed = 1;
  /// The object size whose base probability is 1, bytes, > 0 (navy baseSize: 4096).
  uint32_t base_size_bytes = 4096;
  /// The exponent that flattens the size penalty, in [0, 1] (navy probabilitySizeDecay: 0.3).
  double size_decay = 0.3;
  /// The factor changes by at most this fraction per update, in (0, 1) (navy changeWindow:
  /// 0.25).
  double change_window = 0.25;

  /// Throws std::invalid_argument quoting the first value out of its range.
  void validate() const;
};

/// The controller. Not thread-safe.
class WriteRateAdmission {
 public:
  static constexpr double kFactorLowerBound = 0.001;
  static constexpr double kFactorUpperBound = 10;
  static constexpr uint64_t kDayNs = 86'400'000'000'000;

  /// REQUIRES: config.validate() passed.
  explicit WriteRateAdmission(const WriteRateAdmissionConfig& config);

  /// Before each decision: `now_ns` the time now (non-decreasing), `bytes_written` the flash
  /// tier's bytes written so far (non-decreasing). The first call starts the clock; later calls
  /// update the factor once update_interval has passed since the last update.
  void tick(uint64_t now_ns, uint64_t bytes_written);

  /// The admission probability of an object of `size_bytes` (> 0), in [0, 1].
  double probability(uint32_t size_bytes) const;
  /// base(size) above.
  double base_probability(uint32_t size_bytes) const;

  double factor() const { return factor_; }
  /// The last update's target and observed rates, bytes/s (0 before the first update).
  double target_rate_now_bytes_s() const { return target_now_; }
  double observed_rate_bytes_s() const { return observed_; }
  uint64_t updates() const { return updates_; }

 private:
  WriteRateAdmissionConfig config_;
  unsigned base_bits_;  // fls(base_size)
  bool started_ = false;
  uint64_t start_ns_ = 0;
  uint64_t update_ns_ = 0;
  uint64_t bytes_last_update_ = 0;
  double factor_;
  double target_now_ = 0;
  double observed_ = 0;
  uint64_t updates_ = 0;
};

}  // namespace flashpq
