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

/// Runs every request of `source` on `device` in simulated time (see the header comment).
///  * source: an object with `size_t read(std::span<Request> out)` filling out and returning the
///    count, 0 at the end (TraceReader, PrefetchReader, SpanSource). Request::time_ns is the
///    trace timestamp the trace arrival process reads.
///  * issue: called as issue(const Request&, uint64_t index) at the request's arrival, in source
///    order; it performs the request's device operations on `device` (directly or through a
///    cache whose framework writes to `device`). Called through the template, never virtually.
///    Or it is called as issue(const Request&, uint64_t index, uint64_t now_ns) and returns
///    the time, ns (≥ now_ns), at which work the request caused elsewhere completes (now_ns
///    when there is none): a hierarchy's backing device.
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
  timing.validate();
  if (timing.mode != TimingMode::kSimulated) {
    throw std::invalid_argument(std::string("run_timed: timing.mode must be simulated, got ") +
                                timing_mode_name(timing.mode));
  }
  constexpr uint32_t kNone = 0xFFFFFFFFu;
  struct Slot {
    uint64_t index;
    uint64_t arrival_ns;
    uint64_t bytes;
    uint32_t outstanding;   // flash jobs not yet finished
    uint32_t outstanding2;  // the second device's jobs not yet finished
    uint32_t parts;         // parts not yet finished: the flash side, the second device's, the work
                            // issue returned
    uint32_t client;        // closed loop; or the free-list link when free
    OpClass op;
    bool measured;
  };

  const bool closed = timing.arrival == ArrivalProcess::kClosedLoop;
  FlashTiming flash(device.ftl().config());
  const SimFlashConfig& fc = device.ftl().config();
  const auto host_overhead_ns = static_cast<uint64_t>(std::llround(fc.host_overhead_us * 1e3));
  const auto host_command_ns = static_cast<uint64_t>(std::llround(fc.host_command_us * 1e3));
  // ns per payload byte over the host link (0: instant).
  const double link_ns_per_byte =
      fc.host_link_mib_s > 0 ? 1e9 / (fc.host_link_mib_s * 1048576.0) : 0.0;
  const bool host_side = host_overhead_ns != 0 || host_command_ns != 0 || link_ns_per_byte != 0;
  uint64_t controller_free_ns = 0;  // when the controller finishes its last request
  EventQueue events;
  std::vector<FlashOp> log;
  log.reserve(4096);
  detail::OpLogGuard guard(device.ftl(), &log);
  // The second device's events carry ids from kSecondIds on (FlashTiming's id_base).
  constexpr uint32_t kSecondIds = 1u << 30;
  std::optional<FlashTiming> flash2;
  std::vector<FlashOp> log2;
  std::optional<detail::OpLogGuard> guard2;
  if (second != nullptr) {
    flash2.emplace(second->ftl().config(), kSecondIds);
    log2.reserve(4096);
    guard2.emplace(second->ftl(), &log2);
  }
  RequestReader<Source> reader(source);
  std::vector<Slot> slots;
  uint32_t free_slot = kNone;
  uint32_t in_flight = 0;
  uint64_t first_arrival_ns = 0;
  uint64_t last_completion_ns = 0;
  TimedRunResult result;
  TimingMetrics& m = result.metrics;

  auto complete = [&](uint32_t s) {
    const uint64_t now = events.now();
    Slot& slot = slots[s];
    if constexpr (std::is_invocable_v<Observe&, uint64_t, uint64_t, uint64_t, uint64_t, OpClass>) {
      observe(slot.index, slot.arrival_ns, now, slot.bytes, slot.op);
    } else if constexpr (std::is_invocable_v<Observe&, uint64_t, uint64_t, uint64_t, uint64_t>) {
      observe(slot.index, slot.arrival_ns, now, slot.bytes);
    } else {
      observe(slot.index, slot.arrival_ns, now);
    }
    if (slot.measured) {
      m.record(slot.op, now - slot.arrival_ns, slot.bytes);
      last_completion_ns = std::max(last_completion_ns, now);
    }
    --in_flight;
    if (closed) events.schedule(now + timing.think_time_ns, EventKind::kClientReady, slot.client);
    slot.client = free_slot;
    free_slot = s;
  };

  auto issue_now = [&](const Request& r, uint32_t client) {
    const uint64_t index = result.requests++;
    uint32_t s;
    if (free_slot != kNone) {
      s = free_slot;
      free_slot = slots[s].client;
    } else {
      s = static_cast<uint32_t>(slots.size());
      slots.emplace_back();
    }
    const bool measured = index >= warmup_requests;
    if (index == warmup_requests) first_arrival_ns = events.now();
    slots[s] = Slot{index, events.now(), r.size_bytes, 0, 0, 0, client, op_class(r), measured};
    result.max_in_flight = std::max(result.max_in_flight, ++in_flight);
    log.clear();
    log2.clear();
    if (FioIoLog* io_log = device.io_log()) io_log->set_now_ns(events.now());
    uint64_t elsewhere_ns = 0;
    if constexpr (std::is_invocable_v<Issue&, const Request&, uint64_t, uint64_t>) {
      elsewhere_ns = issue(r, index, events.now());
    } else {
      issue(r, index);
    }
    const uint32_t jobs = flash.submit(log, s, events);
    const uint32_t jobs2 = flash2 ? flash2->submit(log2, s, events) : 0;
    slots[s].outstanding = jobs;
    slots[s].outstanding2 = jobs2;
    slots[s].parts =
        (jobs != 0 ? 1u : 0u) + (jobs2 != 0 ? 1u : 0u) + (elsewhere_ns > events.now() ? 1u : 0u);
    if (slots[s].parts == 0) {
      complete(s);  // no NAND operation: no host overhead either
    } else if (elsewhere_ns > events.now()) {
      events.schedule(elsewhere_ns, EventKind::kElsewhereDone, s);
    }
  };
  auto part_done = [&](uint32_t s) {
    if (--slots[s].parts == 0) complete(s);
  };

  Request pending;
  std::optional<OpenLoopArrivals> arrivals;
  if (closed) {
    for (uint32_t c = 0; c < timing.clients; ++c) events.schedule(0, EventKind::kClientReady, c);
  } else {
    arrivals.emplace(timing, seed);
    if (reader.next(pending)) {
      events.schedule(arrivals->next(pending.time_ns), EventKind::kArrival, 0);
    }
  }

  while (!events.empty()) {
    const Event e = events.pop();
    switch (e.kind) {
      case EventKind::kArrival: {
        const Request r = pending;
        issue_now(r, 0);
        if (reader.next(pending)) {
          events.schedule(arrivals->next(pending.time_ns), EventKind::kArrival, 0);
        }
        break;
      }
      case EventKind::kClientReady: {
        Request r;
        if (reader.next(r)) issue_now(r, e.id);  // else the client retires
        break;
      }
      case EventKind::kDieDone:
      case EventKind::kChannelDone:
        if (flash2 && e.id >= kSecondIds) {
          for (const uint32_t s : flash2->handle(e, events)) {
            if (--slots[s].outstanding2 == 0) part_done(s);
          }
          break;
        }
        for (const uint32_t s : flash.handle(e, events)) {
          if (--slots[s].outstanding != 0) continue;
          if (!host_side) {
            part_done(s);
            continue;
          }
          // The controller serves requests in the order their flash work finished.
          const uint64_t service =
              host_command_ns + static_cast<uint64_t>(std::llround(
                                    link_ns_per_byte * static_cast<double>(slots[s].bytes)));
          controller_free_ns = std::max(controller_free_ns, events.now()) + service;
          events.schedule(controller_free_ns + host_overhead_ns, EventKind::kRequestDone, s);
        }
        break;
      case EventKind::kRequestDone:
      case EventKind::kElsewhereDone:
        part_done(e.id);
        break;
    }
  }

  result.events = events.popped();
  result.end_ns = events.now();
  result.flash = flash.counters();
  if (m.requests != 0) m.interval_ns = last_completion_ns - first_arrival_ns;
  return result;
}

/// run_timed without an observer.
template <class Source, class Issue>
TimedRunResult run_timed(SimFlashDevice& device, const TimingConfig& timing,
                         uint64_t warmup_requests, uint64_t seed, Source& source, Issue&& issue) {
  return run_timed(device, timing, warmup_requests, seed, source, std::forward<Issue>(issue),
                   [](uint64_t, uint64_t, uint64_t) {});
}

}  // namespace flashpq
