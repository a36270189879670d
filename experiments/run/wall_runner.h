// experiments/run/wall_runner.h — device workloads on a real device, timed by the wall clock:
// every request is one block I/O (get → read, set → write, delete → discard) at byte offset
// key × offset_unit_bytes, length size_bytes, kept in flight through io_uring.
//
// Source: docs/DESIGN.md "Time" (real mode) and the direct framework (engine/direct/direct.h).
//   * closed_loop: `clients` clients, each issuing its next request when its previous one
//     completed (+ think_time_ns); at most min(clients, queue_depth) in flight — fio's iodepth
//     with iodepth_batch_complete_min = 1.
//   * trace / constant / poisson: requests arrive at their scheduled wall times, the times the
//     simulated-time runner uses (sim/arrivals.h: trace timestamps × time_scale relative to the
//     first request; every 1/rate_rps; exponential gaps of mean 1/rate_rps from the seeded
//     stream; rounded to whole ns, never decreasing), and are submitted then, or as soon as a
//     slot frees up: queueing delay is part of their latency (no coordinated omission).
//   * Ordering: a request that overlaps an I/O in flight, when either writes or discards,
//     waits until that I/O completes (no stale reads, no reordered writes); the requests after
//     it wait too (in-order issue). A request longer than max_io_bytes is issued as pieces in
//     parallel and completes with its last piece. A discard is issued synchronously once
//     nothing overlapping is in flight.
//   * Latency = completion − arrival: fio's lat_ns (slat + clat). clat (completion −
//     submission: when the request was queued for the io_uring_enter that sent it; for psync,
//     the start of its pread/pwrite) is kept too, as fio's clat_ns.
//     Completions are stamped once per batch reaped (as fio stamps per batch of events).
//   * Warm-up: the first warmup_requests requests run but are not measured; the measured
//     interval runs from the first measured arrival to the last measured completion.
//   * Validation: every request is checked (aligned to the logical block size, within the
//     capacity, size > 0) before any I/O is issued when the requests are a span; a generic
//     source is checked as it is read, before its request is issued. Misaligned requests are
//     rejected with std::invalid_argument, never read-modify-written.
#pragma once

#include <time.h>

#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "devices/block/block_device.h"
#include "engine/direct/direct.h"
#include "engine/request.h"
#include "experiments/run/request_source.h"
#include "sim/arrivals.h"
#include "sim/latency_histogram.h"
#include "sim/timing.h"

namespace flashpq {

/// Options of run_wall beyond the timing section.
struct WallOptions {
  /// A request's byte offset is key × offset_unit_bytes. Default 1. REQUIRES: ≥ 1.
  uint64_t offset_unit_bytes = 1;
  /// Requests before this index run but are not measured. Default 0.
  uint64_t warmup_requests = 0;
  /// Stop admitting requests after this many seconds, then drain (fio's runtime with
  /// time_based). 0 (default) = until the source is exhausted.
  double max_seconds = 0;
  /// Seed of the Poisson arrival process (the stream RngStream::kArrivalStream of this seed, as
  /// in simulated time). Default 1.
  uint64_t seed = 1;
};

/// What run_wall measured.
struct WallResult {
  /// Histograms of completion − arrival (fio's lat_ns), requests, bytes (reads and writes),
  /// measured interval.
  TimingMetrics timing;
  /// Completion − submission of every measured request (fio's clat_ns).
  LatencyHistogram clat;
  /// Requests issued, warm-up included.
  uint64_t requests_issued = 0;
  /// Requests that had to wait for an overlapping I/O in flight.
  uint64_t overlap_waits = 0;
  /// True when max_seconds stopped the run before the source was exhausted.
  bool stopped_by_time = false;
};

/// Checks every request (direct_io_of, engine/direct/direct.h) before anything runs.
void validate_requests(const BlockDevice& dev, std::span<const Request> requests,
                       uint64_t offset_unit_bytes);

/// CLOCK_MONOTONIC in ns (the clock of steady_clock and of clock_nanosleep below).
inline uint64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(ts.tv_nsec);
}

namespace detail {

void sleep_until_ns(uint64_t t_ns);

/// A FIFO of at most `capacity` values in a fixed array.
class Ring {
 public:
  explicit Ring(uint32_t capacity) : v_(capacity) {}
  bool empty() const { return n_ == 0; }
  uint64_t front() const { return v_[head_]; }
  void pop_front() {
    head_ = head_ + 1 == v_.size() ? 0 : head_ + 1;
    --n_;
  }
  /// REQUIRES: fewer than capacity values.
  void push_back(uint64_t x) {
    size_t i = head_ + n_;
    if (i >= v_.size()) i -= v_.size();
    v_[i] = x;
    ++n_;
  }

 private:
  std::vector<uint64_t> v_;
  size_t head_ = 0, n_ = 0;
};

}  // namespace detail

/// Runs `source` (anything with `bool next(Request&)`) on `dev` under `timing`'s arrival
/// process (timing.mode is not read: this is the wall-clock mode). Returns the measurements
/// after the warm-up; counts every request in dev.counters(). Throws std::invalid_argument for
/// a bad request or timing config, std::system_error for an I/O error, VerifyError for a
/// verify mismatch (I/O in flight is drained first).
/// REQUIRES: no I/O of dev in flight; called from the thread that created dev.
/// observe(index, arrival_ns, completion_ns) is called as each request completes, warm-up
/// included, with times in ns after the run's start (tests compare the arrival times with the
/// simulated-time runner's).
/// on_warmup_end() is called once, just before request warmup_requests is issued (after the
/// last one when the warm-up covers them all), so the caller can snapshot counters there.
template <class Source, class OnWarmupEnd, class Observe>
WallResult run_wall(BlockDevice& dev, const TimingConfig& timing, Source& source,
                    uint64_t warmup_requests, const WallOptions& options,
                    OnWarmupEnd&& on_warmup_end, Observe&& observe) {
  timing.validate();
  if (options.offset_unit_bytes == 0) {
    throw std::invalid_argument(kOffsetUnitKey.name + ": expected at least 1 byte, found 0");
  }
  struct Inflight {
    uint64_t index;  // in source order
    uint64_t offset, end, arrival_ns, submit_ns;
    uint64_t next;          // next byte to issue
    uint32_t pieces;        // issued, not completed
    uint32_t active_index;  // position in `active`
    bool write, measured;
  };
  const uint32_t nslots = dev.slots();
  std::vector<Inflight> table(nslots);
  std::vector<uint32_t> free_entries, active, slot_owner(nslots, UINT32_MAX);
  for (uint32_t i = nslots; i-- > 0;) free_entries.push_back(i);
  active.reserve(nslots);
  uint32_t active_writes = 0;

  const bool closed = timing.arrival == ArrivalProcess::kClosedLoop;
  // psync runs each I/O inside start(): one request per round, so that its completion is
  // stamped right after it.
  const bool serial = dev.engine() == IoEngineKind::kPsync;
  // Open loop: the arrival processes of the simulated-time runner (sim/arrivals.h), so a seed
  // gives the same arrival times on the wall clock as in simulated time.
  std::optional<OpenLoopArrivals> open;
  if (!closed) open.emplace(timing, options.seed);
  WallResult out;
  TimingMetrics& m = out.timing;
  const uint64_t t0 = monotonic_ns();
  const uint64_t deadline =
      options.max_seconds > 0 ? t0 + static_cast<uint64_t>(options.max_seconds * 1e9) : UINT64_MAX;
  // Closed loop: when each idle client issues its next request, oldest first (at most
  // `clients` of them: a fixed ring, no allocation per request).
  detail::Ring ready(timing.clients);
  for (uint32_t c = 0; c < timing.clients; ++c) ready.push_back(t0);
  uint64_t first_measured_arrival = UINT64_MAX, last_measured_completion = 0;

  bool have = false, exhausted = false, counted_wait = false;
  Request req;
  DirectIo io{};
  uint64_t arrival = 0, index = 0;
  uint32_t cur = UINT32_MAX;  // the request whose pieces are being issued

  auto overlaps = [&](const DirectIo& x) {
    const bool exclusive = x.kind != DirectIo::kRead;
    if (!exclusive && active_writes == 0) return false;
    const uint64_t end = x.offset + x.len;
    for (const uint32_t e : active) {
      const Inflight& f = table[e];
      if ((exclusive || f.write) && x.offset < f.end && f.offset < end) return true;
    }
    return false;
  };
  auto record = [&](uint64_t arrival_ns, uint64_t submit_ns, uint64_t done_ns, DirectIo::Kind k,
                    uint64_t bytes) {
    m.record(k == DirectIo::kRead    ? OpClass::kRead
             : k == DirectIo::kWrite ? OpClass::kWrite
                                     : OpClass::kOther,
             done_ns - arrival_ns, bytes);
    out.clat.record(done_ns - submit_ns);
    first_measured_arrival = std::min(first_measured_arrival, arrival_ns);
    last_measured_completion = std::max(last_measured_completion, done_ns);
  };

  try {
    for (;;) {
      // 1. Issue: the pieces of the current request, then new requests while they may go.
      uint64_t now = monotonic_ns();
      for (;;) {
        if (cur != UINT32_MAX) {
          Inflight& f = table[cur];
          bool started = false;
          while (f.next < f.end) {
            const uint32_t slot = dev.acquire_slot();
            if (slot == UINT32_MAX) break;
            const auto piece =
                static_cast<uint32_t>(std::min<uint64_t>(dev.max_io_bytes(), f.end - f.next));
            dev.start(slot, f.write, f.next, piece);
            started = true;
            slot_owner[slot] = cur;
            f.next += piece;
            f.pieces++;
          }
          // Submit at once, request by request, as fio does (iodepth_batch_submit = 1):
          // holding the I/Os issued after a burst of completions back for one batch adds
          // their wait to the device's latency (about 5 % of the IOPS of random 4 KiB reads
          // at queue depth 32 on a virtio disk).
          if (started) dev.submit_and_wait(0, -1);
          if (f.next < f.end) break;  // waits for slots
          cur = UINT32_MAX;
        }
        if (!have) {
          if (exhausted) break;
          if (now >= deadline) {
            out.stopped_by_time = true;
            exhausted = true;
            break;
          }
          if (!source.next(req)) {
            exhausted = true;
            break;
          }
          io = direct_io_of(dev, req, options.offset_unit_bytes, index);
          if (!closed) arrival = t0 + open->next(req.time_ns);
          have = true;
          counted_wait = false;
        }
        if (closed) {
          if (ready.empty()) break;  // every client is waiting for a completion
          arrival = ready.front();
        }
        if (arrival > now) break;  // not yet
        if (free_entries.empty()) break;
        if (overlaps(io)) {
          if (!counted_wait) out.overlap_waits++, counted_wait = true;
          break;
        }
        if (serial && dev.in_flight() > 0) break;
        if (closed) ready.pop_front();
        const bool measured = index >= warmup_requests;
        if (index == warmup_requests) on_warmup_end();
        dev.check_fault(io.kind == DirectIo::kRead    ? FaultInjector::kRead
                        : io.kind == DirectIo::kWrite ? FaultInjector::kWrite
                                                      : FaultInjector::kTrim,
                        io.offset, io.len);
        if (FioIoLog* io_log = dev.io_log()) {  // the request as issued (its pieces are not)
          io_log->set_now_ns(now - t0);
          io_log->record(io.kind == DirectIo::kRead    ? FioIoLog::kRead
                         : io.kind == DirectIo::kWrite ? FioIoLog::kWrite
                                                       : FioIoLog::kTrim,
                         io.offset, io.len);
        }
        ++index;
        have = false;
        out.requests_issued++;
        if (io.kind == DirectIo::kTrim) {
          dev.discard(io.offset, io.len);
          dev.count_request_trim(io.len);
          const uint64_t done = monotonic_ns();
          if (measured) record(arrival, now, done, io.kind, 0);
          observe(index - 1, arrival - t0, done - t0);
          if (closed) ready.push_back(done + timing.think_time_ns);
          now = done;
          continue;
        }
        if (io.kind == DirectIo::kWrite)
          dev.count_request_write(io.len);
        else
          dev.count_request_read(io.len);
        const uint32_t e = free_entries.back();
        free_entries.pop_back();
        table[e] = Inflight{index - 1,
                            io.offset,
                            io.offset + io.len,
                            arrival,
                            now,
                            io.offset,
                            0,
                            static_cast<uint32_t>(active.size()),
                            io.kind == DirectIo::kWrite,
                            measured};
        active.push_back(e);
        active_writes += io.kind == DirectIo::kWrite;
        cur = e;
      }

      // 2. Submit and wait: for a completion, or until the next arrival is due.
      if (dev.in_flight() == 0) {
        if (exhausted && !have) break;
        if (have && !closed && arrival > monotonic_ns()) detail::sleep_until_ns(arrival);
        // (closed loop with think time: the next client wakes up at ready.front())
        if (have && closed && !ready.empty() && ready.front() > monotonic_ns()) {
          detail::sleep_until_ns(ready.front());
        }
        continue;
      }
      const uint64_t submit = monotonic_ns();
      int64_t timeout = -1;
      const uint64_t due = have ? (closed ? (ready.empty() ? 0 : ready.front()) : arrival) : 0;
      if (due > submit) timeout = static_cast<int64_t>(due - submit);
      dev.submit_and_wait(1, timeout);

      // 3. Reap.
      const uint64_t done = monotonic_ns();
      dev.reap([&](uint32_t slot) {
        const uint32_t e = slot_owner[slot];
        Inflight& f = table[e];
        if (--f.pieces > 0 || f.next < f.end) return;
        if (f.measured) {
          record(f.arrival_ns, f.submit_ns, done, f.write ? DirectIo::kWrite : DirectIo::kRead,
                 f.end - f.offset);
        }
        observe(f.index, f.arrival_ns - t0, done - t0);
        if (closed) ready.push_back(done + timing.think_time_ns);
        // Remove from `active` (swap with the last).
        const uint32_t pos = f.active_index;
        active[pos] = active.back();
        table[active[pos]].active_index = pos;
        active.pop_back();
        active_writes -= f.write;
        free_entries.push_back(e);
      });
    }
  } catch (...) {
    // Leave nothing in flight: the device drains what is left when it is destroyed, but the
    // caller may go on using it.
    while (dev.in_flight() > 0) {
      try {
        dev.submit_and_wait(1, -1);
      } catch (...) {
        break;
      }
      try {
        dev.reap([](uint32_t) {});
      } catch (...) {
      }
    }
    throw;
  }
  if (index <= warmup_requests) on_warmup_end();  // the warm-up covered every request
  if (m.requests > 0) m.interval_ns = last_measured_completion - first_measured_arrival;
  return out;
}

/// As above, observing nothing.
template <class Source, class OnWarmupEnd>
WallResult run_wall(BlockDevice& dev, const TimingConfig& timing, Source& source,
                    uint64_t warmup_requests, const WallOptions& options,
                    OnWarmupEnd&& on_warmup_end) {
  return run_wall(dev, timing, source, warmup_requests, options,
                  std::forward<OnWarmupEnd>(on_warmup_end), [](uint64_t, uint64_t, uint64_t) {});
}

/// As above, without a warm-up callback.
template <class Source>
WallResult run_wall(BlockDevice& dev, const TimingConfig& timing, Source& source,
                    uint64_t warmup_requests, const WallOptions& options = {}) {
  return run_wall(dev, timing, source, warmup_requests, options, [] {});
}

/// run_wall over a span of requests, all validated before the first I/O.
WallResult run_wall(BlockDevice& dev, const TimingConfig& timing, std::span<const Request> requests,
                    uint64_t warmup_requests, const WallOptions& options = {});

}  // namespace flashpq
