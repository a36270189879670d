#include "sim/arrivals.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace flashpq {

namespace {

const TimingConfig& open_loop(const TimingConfig& config) {
  config.validate();
  if (config.arrival == ArrivalProcess::kClosedLoop) {
    throw std::invalid_argument(
        "OpenLoopArrivals: timing.arrival must be trace, constant, poisson or token_bucket, got "
        "closed_loop "
        "(closed-loop clients are driven by completions)");
  }
  return config;
}

uint64_t to_ns(double ns) {
  // Rounded to the nearest; clamped so that absurd products saturate instead of overflowing.
  if (!(ns < 9.2e18)) return UINT64_MAX;  // llround is defined below 2^63 only
  return static_cast<uint64_t>(std::llround(std::max(0.0, ns)));
}

}  // namespace

OpenLoopArrivals::OpenLoopArrivals(const TimingConfig& config, uint64_t seed)
    : process_(open_loop(config).arrival),
      time_scale_(config.time_scale),
      period_ns_(1e9 / config.rate_rps),
      burst_(config.burst),
      rng_(seed, RngStream::kArrivalStream) {}

uint64_t OpenLoopArrivals::next(uint64_t trace_time_ns) {
  uint64_t t = 0;
  switch (process_) {
    case ArrivalProcess::kTrace:
      if (count_ == 0) origin_ns_ = trace_time_ns;
      t = trace_time_ns <= origin_ns_
              ? 0
              : to_ns(static_cast<double>(trace_time_ns - origin_ns_) * time_scale_);
      break;
    case ArrivalProcess::kConstant:
      t = to_ns(static_cast<double>(count_) * period_ns_);
      break;
    case ArrivalProcess::kPoisson:
      if (count_ != 0) poisson_ns_ += rng_.exponential(period_ns_);
      t = to_ns(poisson_ns_);
      break;
    case ArrivalProcess::kTokenBucket:
      // The bucket holds `burst` tokens at time 0 and gains one every period; the backlog
      // never empties, so request i takes the (i + 1)-th token: at 0 for i < burst, else when
      // token i + 1 − burst has been added, (i + 1 − burst) periods in.
      t = count_ < burst_ ? 0 : to_ns(static_cast<double>(count_ + 1 - burst_) * period_ns_);
      break;
    case ArrivalProcess::kClosedLoop:
      break;  // rejected by the constructor
  }
  t = std::max(t, last_ns_);
  last_ns_ = t;
  ++count_;
  return t;
}

}  // namespace flashpq
