// policies/twoq.h — 2Q: a FIFO A1in of objects seen once, a ghost FIFO A1out of the keys A1in
// evicted, and an LRU Am of objects seen again after leaving A1in.
//
// Source: Johnson, Shasha, "2Q: A Low Overhead High Performance Buffer Management Replacement
// Algorithm", VLDB'94, §2, the "Full Version" of 2Q and its pseudo-code. On a request for X:
//   * X in Am:     X moves to Am's head (LRU);
//   * X in A1in:   nothing (a second access soon after the first is taken as correlated);
//   * X in A1out:  reclaimfor(X); X enters Am's head (the ghost entry goes);
//   * otherwise:   reclaimfor(X); X enters A1in's head.
//   reclaimfor(X): with no free slot, if |A1in| > Kin, A1in's tail Y is paged out and Y's
//   identifier enters A1out's head (A1out's tail leaves if |A1out| > Kout); otherwise Am's tail
//   is paged out and remembered nowhere.
// §2 recommends Kin = 25 % of the page slots and Kout = as many identifiers as would fit in 50 %
// of the buffer. Here |.| are bytes (objects in unit-size mode), as libCacheSim counts them.
//
// Equal to libCacheSim's TwoQ (libCacheSim/cache/eviction/TwoQ.c, commit aa0fc409; Ain a FIFO
// sub-cache, Aout a FIFO sub-cache used as a ghost, Am an LRU sub-cache) in all of the above:
// Kin = ⌊c·ain_ratio⌋, Kout = ⌊c·aout_ratio⌋ bytes (truncated as its int64 assignment does,
// defaults 0.25 and 0.5); an eviction takes A1in's tail when |A1in| > Kin (strictly), else Am's
// tail; an A1in victim's key and size enter A1out, whose oldest leave until it fits (a key larger
// than Kout never enters: engine/ghost_list.h); a miss whose key is in A1out removes it and goes
// to Am; a hit in A1in does nothing; a hit in Am moves it to the head. Sized objects: eviction
// repeats until the new object fits (engine/exact/exact_queue_base.h), as cache_get_base does.
// And as TwoQ.c, an object larger than Kin is never cached (TwoQ_can_insert: it must fit in the
// Ain sub-cache): on_miss() returns false and engine/cache.h caches nothing and evicts nothing
// (the request a miss); its A1out key has gone all the same, as TwoQ_find removes it before
// can_insert is asked. In unit-size mode nothing is cached when c < 4 (Kin = 0).
// One deliberate difference, an artefact of TwoQ.c's build from three sub-caches and absent from
// the paper (whose Am is bounded by the buffer only): TwoQ.c's Am is an LRU sub-cache of c − Kin
// bytes, so an object entering it after an A1out hit first evicts Am's tails until it fits in
// c − Kin, even when the cache as a whole had room (when |A1in| < Kin, after a large A1in object
// left). Here Am is bounded by the cache only, as in the paper, and nothing is evicted beyond
// what the new object needs. It does not arise in unit-size mode on gets alone (|A1in| never
// falls below Kin once the cache is full).
// Measured against cachesim (tests/policies/test_libcachesim.cpp): every row, unit-size and sized,
// on cloudPhysicsIO, w106 and adaptsize, equal to the 6 decimals it prints (before the engine let
// a policy decline an object, adaptsize sized at 1 % differed by +0.0097 object / +0.0020 byte
// miss ratio, at 5 % by +0.00007 / +0.00003). The Am bound changes no reference row; on sized
// random sequences (20000 gets, sizes 1..100 B, c = 1000..6000 B), here − TwoQ.c: object miss
// ratio −0.00035 to −0.0011, byte −0.0010 to −0.0019 (test "TwoQ.c's Am bound of c - Kin bytes,
// measured").
// A request larger than c never reaches on_miss (engine/cache.h admits it first), so its key,
// if in A1out (an object whose size grew), stays there, where TwoQ_find would remove it.
// A delete of an A1out key leaves the ghost (TwoQ.c's remove drops it; cachesim replays gets
// only).
//
// Entry words: prev/next link A1in or Am (prev toward the head), slot is the list (1: A1in,
// 2: Am). A1out is a GhostList (engine/ghost_list.h) of capacity Kout.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "engine/ghost_list.h"
#include "engine/intrusive_list.h"
#include "engine/object_table.h"
#include "policies/policy.h"

namespace flashpq {

/// policy.twoq_ain_ratio: Kin as a share of the capacity.
inline const KeySpec kTwoqAinRatioKey =
    key("policy.twoq_ain_ratio", ValueType::kUnitInterval)
        .def("0.25")
        .units("fraction of the capacity")
        .desc(
            "2Q: Kin, the size A1in (FIFO of objects seen once) is kept to before Am gives "
            "victims (paper and libCacheSim: 0.25)");
/// policy.twoq_aout_ratio: Kout, A1out's capacity, as a share of the capacity.
inline const KeySpec kTwoqAoutRatioKey =
    key("policy.twoq_aout_ratio", ValueType::kFloat)
        .def("0.5")
        .range(0, 16)
        .units("fraction of the capacity")
        .desc(
            "2Q: Kout, the bytes of keys the ghost FIFO A1out remembers (paper and "
            "libCacheSim: 0.5)");

class TwoQPolicy {
 public:
  static const ComponentSpec& spec() {
    static const ComponentSpec s{"twoq",
                                 "2Q (VLDB'94, full version): FIFO A1in, ghost FIFO A1out, LRU Am",
                                 {kTwoqAinRatioKey, kTwoqAoutRatioKey},
                                 {exact_framework_only("twoq")},
                                 {},
                                 {}};
    return s;
  }
  static constexpr PriorityKind kKind = PriorityKind::kOwning;
  static constexpr uint32_t kA1in = 1, kAm = 2;

  /// Reads policy.twoq_ain_ratio and policy.twoq_aout_ratio.
  explicit TwoQPolicy(const PolicyConfig& config)
      : TwoQPolicy(config.params.get<double>(kTwoqAinRatioKey),
                   config.params.get<double>(kTwoqAoutRatioKey)) {}
  /// REQUIRES: ratios >= 0.
  TwoQPolicy(double ain_ratio, double aout_ratio)
      : ain_ratio_(ain_ratio), aout_ratio_(aout_ratio), a1out_(std::make_unique<GhostList>(0)) {}
  uint32_t grid() const { return 1; }

  /// Kin and Kout from the capacity, truncated as TwoQ.c's int64 assignments do.
  void attach(ObjectTable&, uint64_t capacity) {
    kin_ = static_cast<uint64_t>(static_cast<double>(capacity) * ain_ratio_);
    a1out_->set_capacity(static_cast<uint64_t>(static_cast<double>(capacity) * aout_ratio_));
  }

  /// A get that missed (or a set): a key in A1out leaves it and the object will enter Am.
  /// Returns whether the object is cached: only when it fits in Kin (TwoQ_can_insert). As in
  /// libCacheSim, whose TwoQ_find removes the A1out key before cache_get_base asks can_insert,
  /// a declined object's key has left A1out all the same; the flag stays set as TwoQ_find
  /// leaves hit_on_ghost, unread: on false engine/cache.h calls no other hook, and the next
  /// miss sets it again before any on_insert.
  bool on_miss(ObjectTable&, uint64_t key, uint32_t size) {
    to_am_ = a1out_->size() != 0 && a1out_->erase(key);
    return size <= kin_;
  }

  template <class Q>
  void on_insert(Q& q, ObjectTable& t, Handle h) {
    q.admit(h);
    if (to_am_) {
      t[h].slot = kAm;
      am_.push_front(t, h);
      to_am_ = false;
    } else {
      t[h].slot = kA1in;
      a1in_.push_front(t, h);
    }
  }

  /// Am: to the head. A1in: nothing.
  template <class Q>
  void on_hit(Q&, ObjectTable& t, Handle h) {
    if (t[h].slot == kAm && am_.head != h) am_.move_to_front(t, h);
  }

  /// An A1in victim's key enters A1out; an Am victim is forgotten.
  template <class Q>
  void on_evict(Q&, ObjectTable& t, Handle h) {
    const ObjectEntry& e = t[h];
    if (e.slot == kA1in) a1out_->push(e.key, e.size_bytes);
  }

  /// A1in's tail if |A1in| > Kin (or Am is empty), else Am's tail; kNoHandle when empty.
  Handle victim(ObjectTable&) const {
    return a1in_.bytes > kin_ || am_.empty() ? a1in_.tail : am_.tail;
  }

  void unlink(ObjectTable& t, Handle h) { (t[h].slot == kA1in ? a1in_ : am_).unlink(t, h); }

  /// The lists' ends and A1out's table.
  size_t memory_bytes() const { return sizeof(*this) + a1out_->memory_bytes(); }

  // For tests.
  uint64_t kin() const { return kin_; }
  const IntrusiveList& a1in() const { return a1in_; }
  const IntrusiveList& am() const { return am_; }
  const GhostList& a1out() const { return *a1out_; }

 private:
  double ain_ratio_, aout_ratio_;
  IntrusiveList a1in_, am_;
  std::unique_ptr<GhostList> a1out_;
  uint64_t kin_ = 0;
  bool to_am_ = false;  // the miss being served was an A1out hit
};

}  // namespace flashpq
