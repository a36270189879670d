// policies/sieve.h — SIEVE: one FIFO queue, a visited bit per object, and a hand that moves
// from the oldest object toward the newest.
//
// Source: Zhang, Yang, Yue, Vigfusson, Rashmi, "SIEVE is Simpler than LRU: an Efficient
// Turn-Key Eviction Algorithm for Web Caches", NSDI'24, §3 and Figure 2 (the algorithm):
//   * hit:    visited(x) = 1 (nothing moves);
//   * insert: x enters at the head (the newest end) with visited 0;
//   * evict:  o = hand, or the tail (the oldest) when the hand is unset; while visited(o):
//             visited(o) = 0 and o moves one step toward the head (past the head: the tail
//             again); o is evicted and the hand stays at o's newer neighbour.
// Equal to libCacheSim's Sieve (libCacheSim/cache/eviction/Sieve.c: its `pointer` is the hand;
// Sieve_remove_obj moves it to the removed object's newer neighbour, as unlink() here does for a
// delete or a replacement too). Sized objects: eviction repeats until the new object fits
// (engine/exact/exact_queue_base.h), as libCacheSim's cache_get_base does.
//
// Entry words: prev/next link the queue (prev toward the head), slot is the visited bit.
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/intrusive_list.h"
#include "engine/object_table.h"
#include "policies/policy.h"

namespace flashpq {

class SievePolicy {
 public:
  static const ComponentSpec& spec() {
    static const ComponentSpec s{
        "sieve", "SIEVE (NSDI'24): a FIFO queue, a visited bit, a moving hand",
        {},      {exact_framework_only("sieve")},
        {},      {}};
    return s;
  }
  static constexpr PriorityKind kKind = PriorityKind::kOwning;
  explicit SievePolicy(const PolicyConfig&) {}
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
    t[h].slot = 1;
  }
  template <class Q>
  void on_evict(Q&, ObjectTable&, Handle) {}

  /// Moves the hand to the next unvisited object, clearing the visited bits it passes, and
  /// returns it (kNoHandle when empty).
  Handle victim(ObjectTable& t) {
    Handle o = hand_ != kNoHandle ? hand_ : queue_.tail;
    if (o == kNoHandle) return kNoHandle;
    while (t[o].slot != 0) {
      t[o].slot = 0;
      o = t[o].prev;
      if (o == kNoHandle) o = queue_.tail;
    }
    hand_ = o;
    return o;
  }

  void unlink(ObjectTable& t, Handle h) {
    if (h == hand_) hand_ = t[h].prev;
    queue_.unlink(t, h);
  }

  /// The queue's two ends and the hand (the links and bits are in the entries).
  size_t memory_bytes() const { return sizeof(queue_) + sizeof(hand_); }

  /// The hand (kNoHandle: unset, the next scan starts at the tail). For tests.
  Handle hand() const { return hand_; }
  /// The queue's ends: head the newest, tail the oldest. For tests.
  const IntrusiveList& queue() const { return queue_; }

 private:
  IntrusiveList queue_;
  Handle hand_ = kNoHandle;
};

}  // namespace flashpq
