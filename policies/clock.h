// policies/clock.h — CLOCK with an n-bit counter: one FIFO queue and a counter per object; an
// old object that was hit goes around again (to the newest end) with its counter decremented.
//
// Source: Corbató's CLOCK ("A paging experiment with the Multics system", 1968) as FIFO with
// reinsertion, i.e. second chance, for n = 1; the n-bit generalisation is libCacheSim's Clock
// (libCacheSim/cache/eviction/Clock.c, commit aa0fc40, parameter n-bit-counter, default 1),
// which this policy equals (measured on cloudPhysicsIO, w106 and adaptsize, unit-size and
// sized: tests/policies/test_libcachesim.cpp):
//   * hit:    counter(x) = min(counter(x) + 1, 2^n − 1) (nothing moves);
//   * insert: x enters at the head (the newest end) with counter 0;
//   * evict:  while the tail (the oldest) has counter > 0: its counter is decremented by 1 (not
//             reset) and it moves to the head; the tail with counter 0 is evicted.
// With n = 1 this is FIFO-reinsertion (second chance). The queue with its reinsertions is
// CLOCK's circular buffer and hand (the hand is the tail; a reinsertion advances it).
// Sized objects: eviction repeats until the new object fits (engine/exact/exact_queue_base.h),
// as libCacheSim's cache_get_base does; libCacheSim's Clock caches every object no larger than
// the cache (cache_can_insert_default), as FlashPQ does.
//
// Entry words: prev/next link the queue (prev toward the head), slot is the counter.
// victim() makes the reinsertions the next eviction would make and returns the tail with
// counter 0: a second call finds that tail again and moves nothing.
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/intrusive_list.h"
#include "engine/object_table.h"
#include "policies/policy.h"

namespace flashpq {

/// policy.clock_bits: n, the bits of CLOCK's counter (libCacheSim's n-bit-counter).
inline const KeySpec kClockBitsKey =
    key("policy.clock_bits", ValueType::kInt)
        .def("1")
        .range(1, 8)
        .units("bits")
        .desc(
            "CLOCK: bits of the per-object counter, capped at 2^n - 1 (1: second chance; "
            "libCacheSim n-bit-counter)");

class ClockPolicy {
 public:
  static const ComponentSpec& spec() {
    static const ComponentSpec s{
        "clock",
        "CLOCK with an n-bit counter (libCacheSim Clock; n = 1: FIFO-reinsertion, second "
        "chance)",
        {kClockBitsKey},
        {exact_framework_only("clock")},
        {},
        {}};
    return s;
  }
  static constexpr PriorityKind kKind = PriorityKind::kOwning;

  explicit ClockPolicy(const PolicyConfig& config)
      : max_count_((1u << config.params.get<uint32_t>(kClockBitsKey)) - 1) {}
  uint32_t grid() const { return 1; }

  void attach(ObjectTable&, uint64_t) {}

  template <class Q>
  void on_insert(Q& q, ObjectTable& t, Handle h) {
    q.admit(h);
    t[h].slot = 0;
    queue_.push_front(t, h);
  }
  template <class Q>
  void on_hit(Q&, ObjectTable& t, Handle h) {
    uint32_t& c = t[h].slot;
    if (c < max_count_) ++c;
  }
  template <class Q>
  void on_evict(Q&, ObjectTable&, Handle) {}

  /// Moves the oldest objects with a counter > 0 to the head, decrementing their counters,
  /// until the oldest has counter 0, and returns it (kNoHandle when empty).
  Handle victim(ObjectTable& t) {
    Handle o = queue_.tail;
    if (o == kNoHandle) return kNoHandle;
    while (t[o].slot != 0) {
      --t[o].slot;
      if (o != queue_.head) queue_.move_to_front(t, o);
      o = queue_.tail;
    }
    return o;
  }

  void unlink(ObjectTable& t, Handle h) { queue_.unlink(t, h); }

  /// The queue's two ends and the cap (the links and counters are in the entries).
  size_t memory_bytes() const { return sizeof(*this); }

  /// For tests: the queue (head the newest, tail the oldest), an object's counter, the cap.
  const IntrusiveList& queue() const { return queue_; }
  static uint32_t count(const ObjectTable& t, Handle h) { return t[h].slot; }
  uint32_t max_count() const { return max_count_; }

 private:
  IntrusiveList queue_;
  uint32_t max_count_;
};

}  // namespace flashpq
