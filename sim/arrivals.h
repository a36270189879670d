// sim/arrivals.h — open-loop arrival processes of the timed mode: when each request arrives.
//
// Source: docs/DESIGN.md "Time". Four open-loop processes (the closed loop, N
// clients each issuing its next request when the previous one completes, is driven by the
// simulated-time runner, experiments/run/simulated_runner.h, from completions):
//   trace     request i arrives at (t_i − t_0) × time_scale, t_i its trace timestamp, t_0 the
//             first request's: the trace's own inter-arrival times, stretched or compressed;
//   constant  request i arrives at i / rate_rps seconds (fio's rate_iops with a fixed period);
//   poisson   inter-arrival times are independent and exponential of mean 1 / rate_rps (a
//             Poisson process of intensity rate_rps; Law, "Simulation Modeling and Analysis",
//             §6.12.1), drawn from a seeded RngStream;
//   token_bucket  a token bucket of `burst` tokens, full at time 0 and refilled at rate_rps,
//             in front of an unbounded backlog, as CacheBench throttles its workers to
//             opRatePerSec with a burst of opRateBurstSize (CacheLib's CacheBench docs, "Tuning
//             the workload and cache parameters"): request i arrives at 0 for i < burst, else
//             at (i + 1 − burst) / rate_rps. burst 1 is the constant process.
// Every process starts with request 0 at time 0. Times are integer nanoseconds, rounded to the
// nearest; the constant and poisson processes round an exact running sum (no accumulated
// rounding drift). Arrival times never decrease: a trace timestamp earlier than its
// predecessor's (an unsorted trace) arrives together with its predecessor, since requests are
// issued in trace order.
#pragma once

#include <cstdint>

#include "sim/rng.h"
#include "sim/timing.h"

namespace flashpq {

class OpenLoopArrivals {
 public:
  /// Validates `config` (std::invalid_argument as TimingConfig::validate) and throws
  /// std::invalid_argument if its arrival process is closed_loop. `seed` seeds the poisson
  /// process (stream RngStream::kArrivalStream); the other processes draw nothing.
  OpenLoopArrivals(const TimingConfig& config, uint64_t seed);

  /// The arrival time, in ns, of the next request, whose trace timestamp is trace_time_ns (read
  /// by the trace process only). Nondecreasing from call to call.
  uint64_t next(uint64_t trace_time_ns);

  /// Requests given an arrival time so far.
  uint64_t count() const { return count_; }

 private:
  ArrivalProcess process_;
  double time_scale_;
  double period_ns_;  // 1e9 / rate_rps
  uint64_t burst_;    // token_bucket
  RngStream rng_;
  uint64_t count_ = 0;
  uint64_t origin_ns_ = 0;  // trace: t_0
  uint64_t last_ns_ = 0;
  double poisson_ns_ = 0;  // poisson: the exact running sum of the gaps
};

}  // namespace flashpq
