// policies/arc.h — ARC: two resident LRU lists T1 (seen once recently) and T2 (seen at least
// twice), two ghost LRU lists B1 and B2 of the keys they evicted, and a target p for T1's size
// that ghost hits adapt.
//
// Source: Megiddo, Modha, "ARC: A Self-Tuning, Low Overhead Replacement Cache", FAST'03, §III
// and Figure 4 (ARC(c)). For a request x:
//   * Case I,   x in T1 ∪ T2 (a hit):  x moves to the MRU end of T2;
//   * Case II,  x in B1 (a ghost hit): p = min(p + δ1, c), δ1 = max(1, |B2|/|B1|);
//               REPLACE(x, p); x leaves B1 and enters T2 (MRU);
//   * Case III, x in B2:               p = max(p − δ2, 0), δ2 = max(1, |B1|/|B2|);
//               REPLACE(x, p); x leaves B2 and enters T2 (MRU);
//   * Case IV,  x nowhere (a miss):
//       A: |T1| + |B1| = c:  if |T1| < c: delete B1's LRU, REPLACE(x, p);
//                            else delete T1's LRU from the cache (no ghost);
//       B: |T1| + |B1| < c:  if the four lists hold 2c: delete B2's LRU; REPLACE(x, p);
//     x enters T1 (MRU);
//   * REPLACE(x, p): if T1 is non-empty and (|T1| > p or (x ∈ B2 and |T1| = p)): T1's LRU
//     leaves the cache and enters B1 (MRU); otherwise T2's LRU leaves and enters B2 (MRU).
//
// Sized objects follow libCacheSim's ARC (libCacheSim/cache/eviction/ARC.c, commit aa0fc409)
// exactly; this is where it departs from Figure 4 (all sizes |.| are bytes, objects in
// unit-size mode, c the capacity):
//   1. The case analysis runs once per eviction, not once per miss: the generic path
//      (cache_get_base) evicts while the object does not fit, and each eviction redoes it. A
//      miss that needs no eviction trims no ghost (Figure 4 needs none either: it evicts only
//      when full). A miss of a sized object may evict several times.
//   2. Case IV A is "|T1| + |B1| + s > c" (s the missed object's size) instead of "= c", and
//      its test "|T1| < c" is "|B1| > 0" (ARC.c: "|T1| < c does not work for variable size
//      objects"). Case IV B trims B2 when the four lists hold ≥ 2c bytes (not "= 2c") and B2 is
//      non-empty. The ghost-hit cases II and III trim no ghost at all.
//   3. δ1 and δ2 are byte ratios |B2|/|B1| and |B1|/|B2| (|B1|, |B2| in bytes, before the hit
//      ghost leaves), at least 1: p, in bytes, moves by δ, not by the object's size. p is a
//      double (ARC.c: "we used int as first ... changed to use float").
//   4. REPLACE also evicts from T1 when T2 is empty (|T2| = 0), whatever p says.
//   5. "x ∈ B2" in REPLACE is ARC.c's flag curr_obj_in_L2_ghost: set by a ghost hit in B2,
//      cleared by a hit, a ghost hit or the insertion that follows a ghost hit, but NOT by a
//      plain miss. So when a ghost hit is not inserted (here: an admission policy refused it)
//      the flag stays set through the following case-IV misses until the next hit. Kept.
//   6. A ghost's size is the object's size when it was cached; a ghost hit inserts the object
//      with the request's size.
// Where FlashPQ differs from libCacheSim (not Figure 4): a get of an object larger than the
// cache is never admitted and the policy never sees it (engine/cache.h), whereas ARC.c looks it
// up first: if it is a ghost, the ghost leaves and p adapts although nothing is inserted. Only
// a key whose size grew past c can do that; on the traces of the libCacheSim comparison
// (tests/policies/test_libcachesim.cpp) it changes nothing: equal to the 6 decimals cachesim
// prints. A delete of a ghost key leaves the ghost (ARC.c's remove drops it; libCacheSim's cachesim
// replays gets only).
//
// Hooks: on_miss sees the ghost hit and adapts p before any eviction (victim() depends on it);
// victim() only looks (T1's or T2's LRU by the case analysis above), so it is idempotent;
// on_evict does the eviction's ghost work (the trim of B1 or B2, the victim's entry into its
// ghost list); on_insert puts a ghost-hit object in T2 and any other in T1.
// Entry words: prev/next link T1 or T2 (prev toward the MRU end), slot is the list (1: T1,
// 2: T2). The ghosts are two GhostLists (engine/ghost_list.h) left unbounded: only the case
// analysis trims them, one LRU entry at a time.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>

#include "engine/ghost_list.h"
#include "engine/intrusive_list.h"
#include "engine/object_table.h"
#include "policies/policy.h"

namespace flashpq {

class ArcPolicy {
 public:
  static const ComponentSpec& spec() {
    static const ComponentSpec s{"arc",
                                 "ARC (FAST'03): T1/T2 resident LRU lists, B1/B2 ghosts, an "
                                 "adaptive target p for T1 (libCacheSim's byte generalisation)",
                                 {},
                                 {exact_framework_only("arc")},
                                 {},
                                 {}};
    return s;
  }
  static constexpr PriorityKind kKind = PriorityKind::kOwning;
  static constexpr uint32_t kT1 = 1, kT2 = 2;

  explicit ArcPolicy(const PolicyConfig&) : ArcPolicy() {}
  ArcPolicy()
      : b1_(std::make_unique<GhostList>(kUnbounded)),
        b2_(std::make_unique<GhostList>(kUnbounded)) {}
  uint32_t grid() const { return 1; }

  void attach(ObjectTable&, uint64_t capacity) { c_ = capacity; }

  /// A get that missed (or a set): a ghost hit (cases II, III) adapts p and removes the ghost;
  /// the object's size decides case IV A.
  void on_miss(ObjectTable&, uint64_t key, uint32_t size) {
    incoming_ = size;
    ghost_hit_ = false;
    const uint64_t b1 = b1_->bytes(), b2 = b2_->bytes();
    if (b1_->size() != 0 && b1_->erase(key)) {
      // Case II: δ1 = max(|B2|/|B1|, 1), |B1| with x still in it.
      p_ = std::min(p_ + std::max(static_cast<double>(b2) / static_cast<double>(b1), 1.0),
                    static_cast<double>(c_));
      in_b1_ = true;
      in_b2_ = false;
      ghost_hit_ = true;
    } else if (b2_->size() != 0 && b2_->erase(key)) {
      // Case III: δ2 = max(|B1|/|B2|, 1).
      p_ = std::max(p_ - std::max(static_cast<double>(b1) / static_cast<double>(b2), 1.0), 0.0);
      in_b1_ = false;
      in_b2_ = true;
      ghost_hit_ = true;
    }
    // A plain miss leaves in_b1_/in_b2_ as they are (see 5. in the file comment).
  }

  template <class Q>
  void on_insert(Q& q, ObjectTable& t, Handle h) {
    q.admit(h);
    if (ghost_hit_) {
      t[h].slot = kT2;
      t2_.push_front(t, h);
      ghost_hit_ = in_b1_ = in_b2_ = false;
    } else {
      t[h].slot = kT1;
      t1_.push_front(t, h);
    }
  }

  /// Case I: x moves to T2's MRU end.
  template <class Q>
  void on_hit(Q&, ObjectTable& t, Handle h) {
    ghost_hit_ = in_b1_ = in_b2_ = false;
    ObjectEntry& e = t[h];
    if (e.slot == kT1) {
      t1_.unlink(t, h);
      e.slot = kT2;
      t2_.push_front(t, h);
    } else if (t2_.head != h) {
      t2_.move_to_front(t, h);
    }
  }

  /// The eviction's ghost work, on the state victim() chose h with: the trim of B1 (case IV A)
  /// or B2 (case IV B), then h's entry into B1 (from T1) or B2 (from T2), except in case IV A
  /// with B1 empty, where T1's LRU leaves without a ghost.
  template <class Q>
  void on_evict(Q&, ObjectTable& t, Handle h) {
    if (!ghost_hit_) {
      if (t1_.bytes + b1_->bytes() + incoming_ > c_) {
        if (b1_->bytes() == 0) return;  // T1's LRU leaves, no ghost
        b1_->pop_oldest();
      } else if (t1_.bytes + b1_->bytes() + t2_.bytes + b2_->bytes() >= 2 * c_ &&
                 b2_->bytes() > 0) {
        b2_->pop_oldest();
      }
    }
    const ObjectEntry& e = t[h];
    (e.slot == kT1 ? *b1_ : *b2_).push(e.key, e.size_bytes);
  }

  /// The object the next eviction removes (see the file comment); no state changes.
  Handle victim(ObjectTable&) const {
    if (!ghost_hit_ && t1_.bytes + b1_->bytes() + incoming_ > c_ && b1_->bytes() == 0)
      return t1_.tail;  // case IV A with B1 empty
    return replace_victim();
  }

  void unlink(ObjectTable& t, Handle h) { (t[h].slot == kT1 ? t1_ : t2_).unlink(t, h); }

  /// The four lists' ends and the ghosts' tables.
  size_t memory_bytes() const { return sizeof(*this) + b1_->memory_bytes() + b2_->memory_bytes(); }

  // For tests.
  double p() const { return p_; }
  const IntrusiveList& t1() const { return t1_; }
  const IntrusiveList& t2() const { return t2_; }
  const GhostList& b1() const { return *b1_; }
  const GhostList& b2() const { return *b2_; }

 private:
  static constexpr uint64_t kUnbounded = std::numeric_limits<uint64_t>::max();

  // REPLACE's choice: T1's LRU if T1 is non-empty and (|T1| > p or (x ∈ B2 and |T1| = p)), or
  // if T2 is empty; otherwise T2's LRU.
  Handle replace_victim() const {
    const double t1 = static_cast<double>(t1_.bytes);
    const bool from_t1 = (t1_.bytes > 0 && (t1 > p_ || (t1 == p_ && in_b2_))) || t2_.bytes == 0;
    return from_t1 ? t1_.tail : t2_.tail;
  }

  IntrusiveList t1_, t2_;
  std::unique_ptr<GhostList> b1_, b2_;  // unbounded: trimmed by the case analysis only
  uint64_t c_ = 0;
  double p_ = 0;
  uint32_t incoming_ = 0;               // the size of the miss being served
  bool ghost_hit_ = false;              // the miss being served was a ghost hit (cases II, III)
  bool in_b1_ = false, in_b2_ = false;  // ARC.c's curr_obj_in_L1_ghost / curr_obj_in_L2_ghost
};

}  // namespace flashpq
