// sim/des.h — the discrete-event kernel of the timed mode: an integer-nanosecond clock and one
// event queue ordered by (time, sequence number). Its random numbers come from sim/rng.h.
//
// Source: docs/DESIGN.md "Time" ("a simulated clock in integer nanoseconds, one event queue ordered
// by (time, sequence number) so ties are deterministic, seeded RNGs only"). The queue is the
// textbook event list of a discrete-event simulator (Law, "Simulation Modeling and Analysis",
// 5th ed., §1.3): pop the earliest event, advance the clock to its time, handle it. Events that
// fall at the same nanosecond are handled in the order they were scheduled (the sequence number,
// assigned by schedule()), so a run never depends on how the heap breaks ties.
//
// Cost: an event is a 24-byte POD (time, sequence, a kind from the closed EventKind list, one
// 32-bit id); the queue is a 4-ary min-heap in a std::vector that is reused, so scheduling and
// popping allocate nothing once the vector has grown to the largest number of pending events
// (no std::function, no per-event heap allocation). A 4-ary heap halves the depth of a binary
// one and keeps the four children of a node in one or two cache lines (LaMarca & Ladner, "The
// influence of caches on the performance of heaps", ACM JEA 1, 1996).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace flashpq {

/// Every kind of event of the timed mode. The list is closed on purpose: an event is an enum and
/// an integer, dispatched with a switch, never a callback.
enum class EventKind : uint8_t {
  /// Open loop: the pending request arrives (id unused).
  kArrival,
  /// Closed loop: client `id` is ready to issue its next request.
  kClientReady,
  /// Die `id` (global index, devices/simflash/flash_timing.h) finished its array command.
  kDieDone,
  /// Channel `id` finished its transfer.
  kChannelDone,
  /// Request slot `id` finished its host side (SimFlashConfig::host_command_us,
  /// host_link_mib_s, host_overhead_us): it
  /// completes.
  kRequestDone,
  /// Request slot `id`'s work outside the flash device (a hierarchy's backing device,
  /// devices/backing.h) is done.
  kElsewhereDone,
};

/// One scheduled event. Trivially copyable, 24 bytes.
struct Event {
  uint64_t time_ns = 0;
  /// Assigned by EventQueue::schedule: events scheduled earlier come first among equal times.
  uint64_t seq = 0;
  uint32_t id = 0;
  EventKind kind = EventKind::kArrival;
};
static_assert(sizeof(Event) == 24);

/// The event list and the clock. Not thread-safe.
class EventQueue {
 public:
  /// The clock: the time of the event popped last (0 before the first pop).
  uint64_t now() const { return now_; }
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  /// Events popped so far.
  uint64_t popped() const { return popped_; }

  /// Schedules an event of `kind` for `id` at time_ns. Throws std::logic_error if time_ns is
  /// before now() (an event in the past would break causality).
  void schedule(uint64_t time_ns, EventKind kind, uint32_t id) {
    if (time_ns < now_) [[unlikely]] {
      throw std::logic_error("EventQueue::schedule: time " + std::to_string(time_ns) +
                             " ns is before now (" + std::to_string(now_) + " ns)");
    }
    heap_.push_back(Event{time_ns, next_seq_++, id, kind});
    sift_up(heap_.size() - 1);
  }

  /// Removes and returns the earliest event (smallest (time, seq)) and advances the clock to
  /// its time. REQUIRES: !empty().
  Event pop() {
    const Event top = heap_.front();
    const Event last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down(last);
    now_ = top.time_ns;
    ++popped_;
    return top;
  }

  /// Reserves room for n pending events.
  void reserve(size_t n) { heap_.reserve(n); }

 private:
  static bool before(const Event& a, const Event& b) {
    return a.time_ns != b.time_ns ? a.time_ns < b.time_ns : a.seq < b.seq;
  }
  void sift_up(size_t i) {
    const Event e = heap_[i];
    while (i > 0) {
      const size_t parent = (i - 1) / 4;
      if (!before(e, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }
  // Places `e` (the former last element) starting from the root.
  void sift_down(const Event& e) {
    const size_t n = heap_.size();
    size_t i = 0;
    for (;;) {
      const size_t first = 4 * i + 1;
      if (first >= n) break;
      size_t best = first;
      const size_t end = first + 4 < n ? first + 4 : n;
      for (size_t c = first + 1; c < end; ++c) {
        if (before(heap_[c], heap_[best])) best = c;
      }
      if (!before(heap_[best], e)) break;
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = e;
  }

  std::vector<Event> heap_;
  uint64_t now_ = 0;
  uint64_t next_seq_ = 0;
  uint64_t popped_ = 0;
};

}  // namespace flashpq
