// experiments/run/simulated_runner.h — the simulated-time run of a request stream on a device
// with a simulated clock (DeviceClock::kSimulated: its service model, devices/service_model.h).
//
// Source: docs/DESIGN.md "Time" (the simulated mode). The runner owns the event queue
// (sim/des.h) and the arrivals; the device's service model owns what the device does with time
// (simflash's: its dies, channels and host side, devices/simflash/simflash_service.h); the
// caller owns the device, the request source and the functional "issue" step. For each request,
// in source order:
//   1. it arrives — open loop: at the time the arrival process gives (sim/arrivals.h); closed
//      loop: when one of the `clients` clients is free (all start at time 0; a client issues its
//      next request think_time_ns after its previous one completed);
//   2. it is issued at its arrival: the model begins recording, and the runner calls
//      issue(request, index), which performs the request's device operations through the Device
//      interface (a cache access, a direct read or write…);
//   3. the model queues what they cost at that instant (submit);
//   4. it completes when the model reports its device work done (latency = completion −
//      arrival); a request whose operations take no time completes at its arrival: latency 0.
//      When issue returns a time (a hierarchy's backing device, devices/backing.h: the time
//      its share of the request completes), the request completes at the later of that time
//      and its device side's completion; a second device on the same clock (a hierarchy's
//      backing store on simflash) is a second model whose events carry ids from
//      kSecondDeviceIds.
// The functional state (cache, FTL maps) advances at issue time, in issue order; only the
// device's service is timed.
//
// Measured (TimingMetrics), for the requests at index ≥ warmup_requests (0-based, in issue
// order, which is source order): the latency histograms (all; read = op get; write = op set),
// requests, payload bytes (Request::size_bytes) and the interval from the first measured
// arrival to the last measured completion.
//
// Cost: the functional mode never comes here (the op log stays unset, so the FTL pays one
// never-taken branch per NAND operation, as before). Here: two events per page operation and
// one or two per request; no allocation per request once the pools have grown. The device's
// model is reached through its interface: two indirect calls per request (begin, submit) and
// one per device event (handle), which is what lets any device with a clock run here; against
// the simflash timing called directly, `flashpq bench --des --profile tiny --requests 4000000`
// took 1.035× the time (median of 10 alternating pairs, range 0.88-1.13).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "devices/service_model.h"
#include "devices/simflash/flash_timing.h"
#include "devices/simflash/simflash_device.h"
#include "devices/simflash/simflash_service.h"
#include "engine/request.h"
#include "experiments/run/request_source.h"
#include "experiments/run/stats.h"
#include "sim/arrivals.h"
#include "sim/des.h"
#include "sim/timing.h"

namespace flashpq {

/// What a timed run measured.
struct TimedRunResult {
  /// After the warm-up (see the header comment).
  TimingMetrics metrics;
  /// Requests issued, warm-up included.
  uint64_t requests = 0;
  /// Events handled (arrivals, client wake-ups, die and channel completions): the figure the
  /// DES throughput benchmark divides by the wall time.
  uint64_t events = 0;
  /// The clock at the last event, ns.
  uint64_t end_ns = 0;
  /// Most requests in flight at once (issued, not completed).
  uint32_t max_in_flight = 0;
};

/// A run on a simflash device (run_timed's simflash overload): also what its dies and channels
/// did over the whole run, warm-up included.
struct SimFlashTimedRunResult : TimedRunResult {
  FlashTimingCounters flash;
};

/// The event ids of a second device on the clock start here (ServiceModel::Options::id_base).
inline constexpr uint32_t kSecondDeviceIds = 1u << 30;

/// A batched request source seen through one function pointer (one indirect call per batch of
/// requests, never per request): what the simulated run reads.
struct BatchSource {
  size_t (*read)(void* context, std::span<Request> out) = nullptr;
  void* context = nullptr;
  /// A source with `size_t read(std::span<Request>)` (TraceReader, PrefetchReader, SpanSource).
  /// REQUIRES: `source` outlives the BatchSource.
  template <class Source>
  static BatchSource of(Source& source) {
    return {[](void* c, std::span<Request> out) -> size_t {
              return static_cast<Source*>(c)->read(out);
            },
            &source};
  }
};

/// Called when a request completes, warm-up included: (index, arrival_ns, completion_ns,
/// payload_bytes, op class), through a function pointer (one indirect call per completion).
struct CompletionObserver {
  void (*call)(void* context, uint64_t index, uint64_t arrival_ns, uint64_t completion_ns,
               uint64_t bytes, OpClass op) = nullptr;
  void* context = nullptr;
  /// `observe` called as observe(index, arrival_ns, completion_ns[, bytes[, op]]) — whichever
  /// it takes. REQUIRES: `observe` outlives the CompletionObserver.
  template <class Observe>
  static CompletionObserver of(Observe& observe) {
    return {[](void* c, uint64_t index, uint64_t arrival_ns, uint64_t completion_ns, uint64_t bytes,
               OpClass op) {
              Observe& o = *static_cast<Observe*>(c);
              if constexpr (std::is_invocable_v<Observe&, uint64_t, uint64_t, uint64_t, uint64_t,
                                                OpClass>) {
                o(index, arrival_ns, completion_ns, bytes, op);
              } else if constexpr (std::is_invocable_v<Observe&, uint64_t, uint64_t, uint64_t,
                                                       uint64_t>) {
                o(index, arrival_ns, completion_ns, bytes);
              } else {
                o(index, arrival_ns, completion_ns);
              }
            },
            &observe};
  }
};

/// The discrete-event engine of a simulated run (see the header comment), compiled once: the
/// caller drives it request by request — next() runs the clock to the next request to issue,
/// the caller performs the request's device operations, issued() queues the NAND operations
/// they logged — so that only that loop is instantiated per cache type (run_timed below).
class SimulatedReplay {
 public:
  /// `model`: the device's service model; `second`: a second device's on the same clock, its
  /// ids from kSecondDeviceIds (null: none). Throws std::invalid_argument if timing is invalid
  /// or its mode is not simulated.
  SimulatedReplay(ServiceModel& model, const TimingConfig& timing, uint64_t warmup_requests,
                  uint64_t seed, BatchSource source, CompletionObserver observe,
                  ServiceModel* second = nullptr);
  ~SimulatedReplay();
  SimulatedReplay(const SimulatedReplay&) = delete;
  SimulatedReplay& operator=(const SimulatedReplay&) = delete;

  /// Handles events until a request is to be issued: sets `r`, its index (issue order) and the
  /// clock, and returns true; false when every request has completed. After true, the caller
  /// performs the request's device operations and calls issued() before next() again.
  bool next(Request& r, uint64_t& index, uint64_t& now_ns);
  /// The request next() returned was performed; `elsewhere_ns` is when work it caused elsewhere
  /// completes (≤ now: none).
  void issued(uint64_t elsewhere_ns);
  /// The result, once next() has returned false.
  TimedRunResult finish();

 private:
  struct State;
  std::unique_ptr<State> s_;
};

/// Runs every request of `source` in simulated time on the device `model` times (see the header
/// comment).
///  * source: an object with `size_t read(std::span<Request> out)` filling out and returning the
///    count, 0 at the end (TraceReader, PrefetchReader, SpanSource). Request::time_ns is the
///    trace timestamp the trace arrival process reads.
///  * issue: called as issue(const Request&, uint64_t index) at the request's arrival, in source
///    order; it performs the request's device operations on the model's device (directly or
///    through a cache whose framework writes to it). Inlined into the loop below, never called
///    virtually. Or it is called as issue(const Request&, uint64_t index, uint64_t now_ns) and
///    returns the time, ns (≥ now_ns), at which work the request caused elsewhere completes
///    (now_ns when there is none): a hierarchy's backing device.
///  * seed: the cell's seed (the poisson process draws from its arrival stream).
///  * observe: called as observe(index, arrival_ns, completion_ns) when each request
///    completes, warm-up included (tests and traces of latencies; the overload without it
///    observes nothing); or, if it takes a fourth argument, observe(index, arrival_ns,
///    completion_ns, payload_bytes); or a fifth, observe(index, arrival_ns, completion_ns,
///    payload_bytes, op_class).
///  * second: a second device's service model on the same clock, made with id_base
///    kSecondDeviceIds (null: none): the operations issue performs on that device are timed
///    by it too, and the request completes when they are done (a hierarchy's backing store).
/// The device keeps its state (e.g. a functional fill before the run). Throws
/// std::invalid_argument if timing is invalid or its mode is not simulated; rethrows what issue
/// throws.
template <class Source, class Issue, class Observe>
TimedRunResult run_timed(ServiceModel& model, const TimingConfig& timing, uint64_t warmup_requests,
                         uint64_t seed, Source& source, Issue&& issue, Observe&& observe,
                         ServiceModel* second = nullptr) {
  SimulatedReplay run(model, timing, warmup_requests, seed, BatchSource::of(source),
                      CompletionObserver::of(observe), second);
  Request r;
  uint64_t index = 0, now_ns = 0;
  while (run.next(r, index, now_ns)) {
    if constexpr (std::is_invocable_v<Issue&, const Request&, uint64_t, uint64_t>) {
      run.issued(issue(r, index, now_ns));
    } else {
      issue(r, index);
      run.issued(0);
    }
  }
  return run.finish();
}

/// run_timed on a simflash device, timed by its service model (SimFlashServiceModel, made and
/// destroyed here: the FTL's op log is unset again on return), with what its dies and channels
/// did.
template <class Source, class Issue, class Observe>
SimFlashTimedRunResult run_timed(SimFlashDevice& device, const TimingConfig& timing,
                                 uint64_t warmup_requests, uint64_t seed, Source& source,
                                 Issue&& issue, Observe&& observe) {
  SimFlashServiceModel model(device, device, ServiceModel::Options{});
  SimFlashTimedRunResult r;
  static_cast<TimedRunResult&>(r) =
      run_timed(model, timing, warmup_requests, seed, source, std::forward<Issue>(issue),
                std::forward<Observe>(observe));
  r.flash = model.counters();
  return r;
}

/// run_timed on a simflash device without an observer.
template <class Source, class Issue>
SimFlashTimedRunResult run_timed(SimFlashDevice& device, const TimingConfig& timing,
                                 uint64_t warmup_requests, uint64_t seed, Source& source,
                                 Issue&& issue) {
  return run_timed(device, timing, warmup_requests, seed, source, std::forward<Issue>(issue),
                   [](uint64_t, uint64_t, uint64_t) {});
}

}  // namespace flashpq
