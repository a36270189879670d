// policies/lfuda.h — LFU with Dynamic Aging: evict the least priority K, where K grows with an
// object's accesses and with an aging value that rises as objects are evicted, so that an object
// frequent long ago is eventually evicted.
//
// Source: Arlitt, Cherkasova, Dilley, Friedrich, Jin, "Evaluating content management techniques
// for Web proxy caches", ACM SIGMETRICS PER 27(4), 2000, §2 (LFU-DA; GDSF with unit cost and
// size): K(x) = F(x) + L, F(x) the accesses of x since it entered the cache, L the "inflation
// factor", the K of the last evicted object (0 at the start).
//
// Two definitions, chosen by policy.lfuda_aging:
//
// * "libcachesim": equal to libCacheSim's LFUDA (github 1a1a11a/libCacheSim,
//   libCacheSim/cache/eviction/LFUDA.c, cachesim's "lfuda"), which departs from the paper. It
//   keeps one FIFO list per priority and a value M ("min_freq") that is both L and its pointer
//   to the lowest list:
//     - insert: K = M + 1, appended to list K (M = 0 before the first eviction: K = 1);
//     - hit:    K += M (not K = L + F: each hit adds the current M, and before the first
//               eviction, while M = 0, a hit only moves the object to the tail of its list, so
//               the cache is LRU until it first fills); the object leaves list K_old and, if
//               that list was M's and is now empty, M moves up to the lowest non-empty list
//               BEFORE the object is appended to list K_old + M_old;
//     - evict:  the first (oldest) object of list M (list 1 while M = 0); M = that list's K;
//               if the list is now empty, M moves up to the lowest non-empty list above it;
//     - delete: as a hit's removal (M moves up if list M empties).
//   "Moves up" skips the list the hit object is about to join: when that object was alone at M
//   and no list lies between M and 2M, M passes it and the object is left below M. libCacheSim
//   never looks below M again, so such a "stranded" object is never evicted until it is hit
//   (which puts it above M). Kept here: stranded objects sit in a side array, not in the heap.
//   Ties between equal K go to the object that entered list K first, i.e. whose K was set
//   (inserted or hit) least recently.
//   Measured: equal to cachesim's lfuda (miss ratios to 1e-6) on every row it finishes
//   (tests/policies/test_libcachesim.cpp). K grows fast under this rule: a hit on an object of K =
//   M doubles it, and M follows, so K grows geometrically with such hits (w106 at 5% of its working
//   set: K ~3e14; at 1%: past 2^63 after 1.7 M requests; a cache of a few objects: 2^64 within some
//   thousand requests). libCacheSim overflows int64 there (undefined), and its update_min_freq,
//   which steps through every integer from M to the next non-empty list, takes hours long before
//   (cachesim does not finish w106 lfuda at 0.01 or 0.05). Here K saturates at 2^64 - 1 (a
//   difference only where libCacheSim has no result): saturated objects share one list, evicted
//   least recently set first (LRU among them). A second difference: where libCacheSim's M would be
//   left on an empty list (its upward scan stops at the largest K a hit produced, and an
//   insertion's K is not counted; or the cache held the hit object alone), its next eviction
//   dereferences NULL (the first object of an empty list); here M moves to the lowest K in the heap
//   and evictions go on. Runs that finish in libCacheSim are unaffected: once M is left there,
//   libCacheSim cannot evict again, and without evictions K decides nothing. When only stranded
//   objects remain (also a NULL dereference in libCacheSim), the victim is the stranded object of
//   least (K, time set), M unchanged.
//
// * "paper" (the default, what the name means in the literature): the paper's rule, L and K kept
//   as integers: insert K = L + 1 with F = 1; hit
//   F += 1, K = L + F with the current L; evict the least K (ties as above: the least recently
//   set K first), L = the victim's K. F is forgotten at eviction (no ghost). L never exceeds a
//   cached object's K, so nothing is stranded. In unit-size mode this is libCacheSim's GDSF
//   (cpp/GDSF.cpp, priority = last victim's + F x 1e6 / size, ties by the request time the
//   priority was set) with size 1: equal to cachesim's gdsf --ignore-obj-size 1 (the tests).
//   It differs from libCacheSim's LFUDA by more than 0.01 in miss ratio on 7 of the 20 trace
//   x size rows (w106 at 10%: 0.0790 vs cachesim's 0.1091): libCacheSim's LFUDA is another
//   algorithm, which "libcachesim" reproduces for comparison (docs/guide/policies.md).
//
// Sized objects: eviction repeats until the new object fits (engine/exact/exact_queue_base.h),
// as libCacheSim's cache_get_base does; sizes do not enter K (LFU-DA is GDSF with s(x) = 1).
//
// Structure: a binary min-heap of (K, sequence, handle) in a vector, the sequence a counter
// stamped whenever K is set (so (K, sequence) orders exactly as libCacheSim's lists: by K, then
// by arrival in list K); O(log n) per insert, hit, eviction. (libCacheSim's lists by K sit in
// a hash table keyed by K, which FlashPQ's policies may not use, and K is too sparse for a
// vector of lists.)
//
// Entry words: prev is the object's position in the heap (or in the stranded array), next is 1
// for a stranded object (0 in the heap), slot is F, the accesses since insertion (saturating).
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/object_table.h"
#include "policies/policy.h"

namespace flashpq {

/// policy.lfuda_aging: the paper's K = L + F (default) or libCacheSim's LFUDA.c.
inline const KeySpec kLfudaAgingKey =
    key("policy.lfuda_aging", ValueType::kEnum)
        .def("paper")
        .choices({"paper", "libcachesim"})
        .desc(
            "LFU-DA priorities: libcachesim (LFUDA.c: a hit adds the current minimum) or paper "
            "(Arlitt et al. 2000: K = L + accesses)");

class LfudaPolicy {
 public:
  static const ComponentSpec& spec() {
    static const ComponentSpec s{"lfuda",
                                 "LFU with dynamic aging (Arlitt et al. 2000), as libCacheSim's "
                                 "LFUDA.c or as the paper",
                                 {kLfudaAgingKey},
                                 {exact_framework_only("lfuda")},
                                 {},
                                 {}};
    return s;
  }
  static constexpr PriorityKind kKind = PriorityKind::kOwning;
  /// Reads policy.lfuda_aging. Throws std::invalid_argument for another value.
  explicit LfudaPolicy(const PolicyConfig& config)
      : paper_(aging_is_paper(config.params.get<std::string>(kLfudaAgingKey))) {}
  uint32_t grid() const { return 1; }

  void attach(ObjectTable&, uint64_t) {}

  template <class Q>
  void on_insert(Q& q, ObjectTable& t, Handle h) {
    q.admit(h);
    t[h].slot = 1;
    t[h].next = 0;
    push(t, Node{sat_add(age_, 1), ++seq_, h});
  }

  template <class Q>
  void on_hit(Q&, ObjectTable& t, Handle h) {
    ObjectEntry& e = t[h];
    if (e.slot != UINT32_MAX) ++e.slot;
    if (paper_) {
      raise(t, e.prev, sat_add(age_, e.slot));
      return;
    }
    if (e.next != 0) {  // stranded: K + M lies above M
      const Node n = take_stranded(t, h);
      e.next = 0;
      push(t, Node{sat_add(n.key, age_), ++seq_, h});
      return;
    }
    const uint64_t k = heap_[e.prev].key;
    const uint64_t target = sat_add(k, age_);
    if (k != age_) {  // not in M's list: M stays
      raise(t, e.prev, target);
      return;
    }
    // In M's list: leave it, let M move up if the list empties, then join list K + M_old.
    erase(t, e.prev);
    advance_from(k);
    if (target < age_) {
      e.next = 1;
      e.prev = static_cast<uint32_t>(stranded_.size());
      stranded_.push_back(Node{target, ++seq_, h});
    } else {
      push(t, Node{target, ++seq_, h});
    }
  }

  /// h is the victim: L (M) becomes its K. Its removal follows in unlink().
  template <class Q>
  void on_evict(Q&, ObjectTable& t, Handle h) {
    if (t[h].next == 0) age_ = heap_[t[h].prev].key;
  }

  /// The least (K, sequence) in the heap; with the heap empty, the least stranded object
  /// (kNoHandle when nothing is cached).
  Handle victim(const ObjectTable&) const {
    if (!heap_.empty()) return heap_[0].h;
    if (stranded_.empty()) return kNoHandle;
    size_t v = 0;
    for (size_t i = 1; i < stranded_.size(); ++i)
      if (less(stranded_[i], stranded_[v])) v = i;
    return stranded_[v].h;
  }

  void unlink(ObjectTable& t, Handle h) {
    if (t[h].next != 0) {
      take_stranded(t, h);
      return;
    }
    const uint64_t k = heap_[t[h].prev].key;
    erase(t, t[h].prev);
    if (!paper_) advance_from(k);
  }

  /// The heap and stranded arrays (allocated capacity) and the policy's own words.
  size_t memory_bytes() const {
    return (heap_.capacity() + stranded_.capacity()) * sizeof(Node) + sizeof(*this);
  }

  /// L (paper) or M (libcachesim). For tests.
  uint64_t age() const { return age_; }
  /// K of cached object h. For tests.
  uint64_t priority(const ObjectTable& t, Handle h) const {
    return (t[h].next != 0 ? stranded_ : heap_)[t[h].prev].key;
  }
  /// F of cached object h: its accesses since insertion. For tests.
  uint32_t frequency(const ObjectTable& t, Handle h) const { return t[h].slot; }
  /// Whether h is stranded below M (libcachesim only). For tests.
  bool stranded(const ObjectTable& t, Handle h) const { return t[h].next != 0; }
  size_t stranded_count() const { return stranded_.size(); }
  /// The largest K in the heap. For tests (linear).
  uint64_t max_priority() const {
    uint64_t m = 0;
    for (const Node& n : heap_) m = n.key > m ? n.key : m;
    return m;
  }

 private:
  struct Node {
    uint64_t key;  // K
    uint64_t seq;  // when K was set
    Handle h;
  };
  // a + b, or 2^64 - 1 past it (see the file comment).
  static uint64_t sat_add(uint64_t a, uint64_t b) {
    const uint64_t s = a + b;
    return s < a ? UINT64_MAX : s;
  }
  static bool less(const Node& a, const Node& b) {
    return a.key < b.key || (a.key == b.key && a.seq < b.seq);
  }
  static bool aging_is_paper(const std::string& v) {
    if (v == "paper") return true;
    if (v == "libcachesim") return false;
    throw std::invalid_argument("policy.lfuda_aging: " + v);
  }

  // libcachesim: an object of K = k has left the heap; if it was in M's list and that list is
  // now empty, M moves to the lowest K above it (the heap's least: nothing below M is in it).
  void advance_from(uint64_t k) {
    if (k == age_ && !heap_.empty() && heap_[0].key != age_) age_ = heap_[0].key;
  }

  void place(ObjectTable& t, size_t i, const Node& n) {
    heap_[i] = n;
    t[n.h].prev = static_cast<uint32_t>(i);
  }
  void sift_up(ObjectTable& t, size_t i) {
    const Node n = heap_[i];
    while (i > 0) {
      const size_t p = (i - 1) / 2;
      if (!less(n, heap_[p])) break;
      place(t, i, heap_[p]);
      i = p;
    }
    place(t, i, n);
  }
  void sift_down(ObjectTable& t, size_t i) {
    const Node n = heap_[i];
    const size_t size = heap_.size();
    for (;;) {
      size_t c = 2 * i + 1;
      if (c >= size) break;
      if (c + 1 < size && less(heap_[c + 1], heap_[c])) ++c;
      if (!less(heap_[c], n)) break;
      place(t, i, heap_[c]);
      i = c;
    }
    place(t, i, n);
  }
  void push(ObjectTable& t, const Node& n) {
    heap_.push_back(n);
    sift_up(t, heap_.size() - 1);
  }
  // K at heap position i rises to k (k >= K), stamped now.
  void raise(ObjectTable& t, size_t i, uint64_t k) {
    heap_[i].key = k;
    heap_[i].seq = ++seq_;
    sift_down(t, i);
  }
  void erase(ObjectTable& t, size_t i) {
    const Node last = heap_.back();
    heap_.pop_back();
    if (i == heap_.size()) return;
    heap_[i] = last;
    t[last.h].prev = static_cast<uint32_t>(i);
    if (i > 0 && less(last, heap_[(i - 1) / 2]))
      sift_up(t, i);
    else
      sift_down(t, i);
  }
  Node take_stranded(ObjectTable& t, Handle h) {
    const size_t i = t[h].prev;
    const Node n = stranded_[i];
    stranded_[i] = stranded_.back();
    t[stranded_[i].h].prev = static_cast<uint32_t>(i);
    stranded_.pop_back();
    t[h].next = 0;
    return n;
  }

  bool paper_;
  uint64_t age_ = 0;  // L (paper) or M (libcachesim)
  uint64_t seq_ = 0;
  std::vector<Node> heap_;
  std::vector<Node> stranded_;
};

}  // namespace flashpq
