// experiments/run/simulated_runner.h — the simulated-time run of a request stream on a simflash
// device.
//
// Source: docs/DESIGN.md "Time" (the simulated mode). The runner owns the event queue
// (sim/des.h) and the dies and channels (devices/simflash/flash_timing.h); the caller owns the
// device, the request source and the functional "issue" step. For each request, in source
// order:
//   1. it arrives — open loop: at the time the arrival process gives (sim/arrivals.h); closed
//      loop: when one of the `clients` clients is free (all start at time 0; a client issues its
//      next request think_time_ns after its previous one completed);
//   2. it is issued at its arrival: the runner calls issue(request, index), which performs the
//      request's device operations through the Device interface (a cache access, a direct
//      read or write…) while the FTL appends the NAND operations they cause, GC included, to
//      the runner's op log;
//   3. those operations are queued on the dies and channels at that instant;
//   4. it completes when the last of them completes, then passes the device's host side, as a
//      calibrated profile sets it (SimFlashConfig; all 0 by default, which skips this step):
//      the controller, a FIFO server that holds each request for host_command_us plus its
//      payload over host_link_mib_s, then host_overhead_us, a delay in which requests
//      overlap: latency = completion − arrival. GC is
//      foreground: the request whose write triggered GC waits for the copies and erases that GC
//      logged (FEMU's ssd_write runs do_gc in the write path; MQSim triggers GC from the write
//      that depletes a plane's free blocks). A request that causes no NAND operation (a hit
//      in DRAM, a read of a page never written, a TRIM) completes at its arrival: latency 0.
//      When issue returns a time (a hierarchy's backing device, devices/backing.h: the time
//      its share of the request completes), the request completes at the later of that time
//      and its flash side's completion.
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
// one or two per request; no allocation per request once the pools have grown.
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

#include "devices/simflash/flash_timing.h"
#include "devices/simflash/simflash_device.h"
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
  /// What the dies and channels did over the whole run, warm-up included.
  FlashTimingCounters flash;
};

namespace detail {

// Points the FTL's op log at `log` for the guard's lifetime (exceptions included).
class OpLogGuard {
 public:
  OpLogGuard(Ftl& ftl, std::vector<FlashOp>* log) : ftl_(ftl) { ftl_.set_op_log(log); }
  ~OpLogGuard() { ftl_.set_op_log(nullptr); }
  OpLogGuard(const OpLogGuard&) = delete;
  OpLogGuard& operator=(const OpLogGuard&) = delete;

 private:
  Ftl& ftl_;
};

}  // namespace detail

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
  /// `second`: a second simflash device on the same clock (null: none). Throws
  /// std::invalid_argument if timing is invalid or its mode is not simulated. The FTLs' op logs
  /// point into this object until it is destroyed.
  SimulatedReplay(SimFlashDevice& device, const TimingConfig& timing, uint64_t warmup_requests,
                  uint64_t seed, BatchSource source, CompletionObserver observe,
                  SimFlashDevice* second = nullptr);
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

/// Runs every request of `source` on `device` in simulated time (see the header comment).
///  * source: an object with `size_t read(std::span<Request> out)` filling out and returning the
///    count, 0 at the end (TraceReader, PrefetchReader, SpanSource). Request::time_ns is the
///    trace timestamp the trace arrival process reads.
///  * issue: called as issue(const Request&, uint64_t index) at the request's arrival, in source
///    order; it performs the request's device operations on `device` (directly or through a
///    cache whose framework writes to `device`). Inlined into the loop below, never called
///    virtually. Or it is called as issue(const Request&, uint64_t index, uint64_t now_ns) and
///    returns the time, ns (≥ now_ns), at which work the request caused elsewhere completes
///    (now_ns when there is none): a hierarchy's backing device.
///  * seed: the cell's seed (the poisson process draws from its arrival stream).
///  * observe: called as observe(index, arrival_ns, completion_ns) when each request
///    completes, warm-up included (tests and traces of latencies; the overload without it
///    observes nothing); or, if it takes a fourth argument, observe(index, arrival_ns,
///    completion_ns, payload_bytes); or a fifth, observe(index, arrival_ns, completion_ns,
///    payload_bytes, op_class).
///  * second: a second simflash device (null: none) whose NAND operations, logged while issue
///    runs, go to its own dies and channels on the same clock; the request completes when they
///    have too (a hierarchy's backing store on simflash). Its host side is not modelled.
/// The device keeps its state (e.g. a functional fill before the run). Throws
/// std::invalid_argument if timing is invalid or its mode is not simulated; rethrows what issue
/// throws. The FTL's op log is unset again on return.
template <class Source, class Issue, class Observe>
TimedRunResult run_timed(SimFlashDevice& device, const TimingConfig& timing,
                         uint64_t warmup_requests, uint64_t seed, Source& source, Issue&& issue,
                         Observe&& observe, SimFlashDevice* second = nullptr) {
  SimulatedReplay run(device, timing, warmup_requests, seed, BatchSource::of(source),
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

/// run_timed without an observer.
template <class Source, class Issue>
TimedRunResult run_timed(SimFlashDevice& device, const TimingConfig& timing,
                         uint64_t warmup_requests, uint64_t seed, Source& source, Issue&& issue) {
  return run_timed(device, timing, warmup_requests, seed, source, std::forward<Issue>(issue),
                   [](uint64_t, uint64_t, uint64_t) {});
}

}  // namespace flashpq
