// policies/s3fifo.h — S3-FIFO: a small FIFO S, a main FIFO M and a ghost FIFO G of keys.
//
// Source: Yang, Zhang, Qiu, Yue, Rashmi, "FIFO queues are all you need for cache eviction",
// SOSP'23, §4 and Algorithm 1. Each object has a frequency (capped at 3 in the paper):
//   * hit:    freq(x) += 1 (nothing moves);
//   * miss:   x enters M's head if its key is in G (a ghost hit, which removes it from G), else
//             S's head; freq 0;
//   * evict:  from S: the oldest of S moves to M's head with freq 0 if freq >= T (the paper's
//             "freq > 1", T = 2), and the next oldest is tried; the first with freq < T is
//             evicted and its key enters G's head (G drops its oldest keys to stay within its
//             bytes); from M: the oldest with freq > 0 is reinserted at M's head with
//             freq = min(freq, 3) - 1, until the oldest has freq 0, which is evicted.
//
// Equal to libCacheSim's S3FIFO (libCacheSim/cache/eviction/S3FIFO.c, commit aa0fc40) rather
// than to the paper's pseudo-code where they differ (measured equal to libCacheSim on
// cloudPhysicsIO, w106 and adaptsize, unit-size and sized: tests/policies/test_libcachesim.cpp):
//   * shares: |S| = floor(C × policy.s3fifo_small_ratio) bytes, |M| = C − |S|,
//     |G| = floor(C × policy.s3fifo_ghost_ratio) bytes (objects in unit-size mode);
//   * which queue an eviction takes from: M when M's bytes exceed |M| (strictly) or S is empty,
//     else S. (Algorithm 1: S when S's bytes are at least |S|, else M. The two agree when the
//     cache is full of unit-size objects, not with sizes.) The choice is made once per
//     eviction: while S is scanned, the objects it moves to M may take M over |M| without
//     evicting from M (Algorithm 1 calls evictM() inside evictS() as soon as M is full); when S
//     empties without an eviction, the next eviction starts again and takes from M;
//   * the frequency: libCacheSim counts hits without a cap and caps at 3 on reinsertion into M
//     (min(freq, 3) − 1); capping the count at max(3, T) here gives the same decisions for
//     every T and fits the entry's slot word; an object moved from S to M starts at 0;
//   * the ghost is a FIFO cache of keys of |G| bytes (libCacheSim's fifo as a ghost): a key
//     larger than |G| never enters; the oldest leave until a new one fits. A ghost hit is taken
//     on a get that misses or a set, before admission and eviction, as libCacheSim's
//     S3FIFO_find removes the key from its ghost before the eviction loop runs;
//   * libCacheSim never caches an object larger than |S| (S3FIFO_can_insert: size <= |S|,
//     checked after S3FIFO_find, so the key still leaves G), nor one of exactly |S| bytes that
//     is not a ghost hit (S3FIFO_insert returns without inserting). on_miss() returns that
//     decision and engine/cache.h then caches nothing and evicts nothing: the request is a miss.
//     In unit-size mode this caches nothing when C < 20 (|S| <= 1).
// The one difference left: libCacheSim declines the object of exactly |S| bytes that is not a
// ghost hit only in S3FIFO_insert, after cache_get_base has evicted to make room for it; here
// it is declined before any eviction (the policy cannot make evictions for an object it then
// refuses), so the same requests miss and the same objects are refused, but libCacheSim's
// cache holds less for a while (it evicted for nothing). No request of the reference rows has
// exactly |S| bytes (adaptsize sized: |S| = 278854, 1394271, 2788542, 5577084 bytes; sizes
// equal to them: none), so every row of cachesim is equal to the 6 decimals it prints, sized
// and unit-size, on cloudPhysicsIO, w106 and adaptsize (tests/policies/test_libcachesim.cpp), with
// this choice or the other (caching such an object in S). On random sequences built to hit it
// (20000 gets over 100 keys, sizes 1..|S|, one object in five of exactly |S| bytes; C = 50,
// 100, 400 bytes), object / byte miss ratio here − libCacheSim's order: −0.0131 / −0.0079,
// −0.0057 / −0.0048, −0.0024 / −0.0006 (fewer misses: nothing is evicted for nothing);
// caching such objects instead: +0.0482 / −0.0167, +0.0359 / −0.0076, +0.0140 / −0.0126
// (test "objects of exactly |S| bytes, declined before eviction vs after").
// A request larger than C never reaches on_miss (engine/cache.h admits it first), so a key in
// G whose size grew beyond C stays in G, where S3FIFO_find would remove it (only when an
// object's size changes; 4876 of adaptsize's requests change their object's size, and every
// row still equals cachesim).
//
// The ghost's keys are entries of the ObjectTable (engine/policy.h GhostEntryPolicy): an object
// evicted from S keeps its entry, linked into G by its prev/next words with slot kGhostSlot, so
// the cache's one index lookup per request finds a ghost too, and an eviction into G moves no key
// between tables; the oldest ghosts' entries are removed as G drops them. A request that finds a
// ghost entry is a miss (engine/cache.h): ghost_hit() takes it out of G and the on_miss that
// (A separate table of ghost keys, engine/ghost_list.h, cost each miss a
// second lookup and each eviction from S an insertion and a removal there: S3-FIFO ran at 52 M
// requests/s in memory on w106 with it, 66-70 M with ghost entries and a bucket per entry,
// docs/guide/policies.md "Speed".)
// Entry words: prev/next link S, M or G (prev toward the head, the newest); slot = freq << 1 |
// queue (0: S, 1: M), or kGhostSlot. The victim is found by victim() (the S→M moves and M's
// reinsertions an eviction makes, as libCacheSim's S3FIFO_evict makes them, without the eviction)
// and kept until it is evicted, unlinked, hit or an object is inserted, so that a second call
// returns it again; on_evict() enters an S victim's key into G.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "engine/intrusive_list.h"
#include "engine/object_table.h"
#include "policies/policy.h"
#include "sim/prefetch.h"

namespace flashpq {

/// policy.s3fifo_small_ratio: |S| = floor(C × ratio) (libCacheSim's fifo-size-ratio).
inline const KeySpec kS3FifoSmallRatioKey =
    key("policy.s3fifo_small_ratio", ValueType::kUnitInterval)
        .def("0.1")
        .units("fraction")
        .desc("S3-FIFO: the small FIFO's share of the capacity (libCacheSim fifo-size-ratio)");
/// policy.s3fifo_ghost_ratio: |G| = floor(C × ratio) (libCacheSim's ghost-size-ratio).
inline const KeySpec kS3FifoGhostRatioKey =
    key("policy.s3fifo_ghost_ratio", ValueType::kFloat)
        .def("0.9")
        .range(0, 16)
        .units("fraction")
        .desc(
            "S3-FIFO: the ghost FIFO's bytes as a multiple of the capacity (libCacheSim "
            "ghost-size-ratio; 0: no ghost)");
/// policy.s3fifo_move_to_main_threshold: T, an object leaving S moves to M if freq >= T.
inline const KeySpec kS3FifoMoveToMainThresholdKey =
    key("policy.s3fifo_move_to_main_threshold", ValueType::kInt)
        .def("2")
        .range(0, 64)
        .desc(
            "S3-FIFO: hits an object needs in the small FIFO to move to the main FIFO "
            "(libCacheSim move-to-main-threshold)");

class S3FifoPolicy {
 public:
  static const ComponentSpec& spec() {
    static const ComponentSpec s{
        "s3fifo",
        "S3-FIFO (SOSP'23): a small FIFO, a main FIFO with reinsertion, a ghost FIFO",
        {kS3FifoSmallRatioKey, kS3FifoGhostRatioKey, kS3FifoMoveToMainThresholdKey},
        {exact_framework_only("s3fifo")},
        {},
        {}};
    return s;
  }
  static constexpr PriorityKind kKind = PriorityKind::kOwning;

  explicit S3FifoPolicy(const PolicyConfig& config)
      : small_ratio_(config.params.get<double>(kS3FifoSmallRatioKey)),
        ghost_ratio_(config.params.get<double>(kS3FifoGhostRatioKey)),
        threshold_(config.params.get<uint32_t>(kS3FifoMoveToMainThresholdKey)),
        freq_cap_(std::max<uint32_t>(3, threshold_)) {}

  uint32_t grid() const { return 1; }

  /// The shares as libCacheSim's S3FIFO_init computes them (int64 truncation of C × ratio).
  void attach(ObjectTable& t, uint64_t capacity) {
    table_ = &t;
    small_cap_ = static_cast<uint64_t>(static_cast<double>(capacity) * small_ratio_);
    main_cap_ = capacity - small_cap_;
    ghost_cap_ = static_cast<uint64_t>(static_cast<double>(capacity) * ghost_ratio_);
  }

  /// A miss (get) or a set of `key`: whether the ghost_hit() just before was this key's sends
  /// the insertion that follows to M. Returns whether libCacheSim's S3FIFO caches the object: not
  /// when it is larger than |S| (S3FIFO_can_insert; the ghost entry has gone all the same, as
  /// S3FIFO_find removes it first), nor when it is exactly |S| bytes and not a ghost hit
  /// (S3FIFO_insert, which libCacheSim reaches after evicting; here nothing is evicted). On
  /// false engine/cache.h caches nothing (a miss) and calls no other hook; ghost_hit_ stays as
  /// set and is overwritten by the next miss before on_insert reads it.
  bool on_miss(ObjectTable&, uint64_t key, uint32_t size) {
    ghost_hit_ = pending_ghost_hit_ && pending_key_ == key;
    pending_ghost_hit_ = false;
    ghost_key_ = key;
    return size < small_cap_ || (size == small_cap_ && ghost_hit_);
  }

  // ---- the ghost's entries (engine/policy.h GhostEntryPolicy) ----

  static constexpr uint32_t kGhostSlot = UINT32_MAX;
  bool is_ghost(const ObjectTable& t, Handle h) const { return t[h].slot == kGhostSlot; }

  /// A get or a set found ghost h: it leaves G, and the on_miss that follows is a ghost hit.
  void ghost_hit(ObjectTable& t, Handle h) {
    ghost_.unlink(t, h);
    --ghosts_;
    pending_key_ = t[h].key;
    pending_ghost_hit_ = true;
  }

  /// An object evicted (and unlinked) from S enters G, keeping its entry, unless it is larger
  /// than |G|; the oldest ghosts leave (their entries removed) until it fits.
  bool retain_as_ghost(ObjectTable& t, Handle h) {
    const uint32_t size = t[h].size_bytes;
    if ((t[h].slot & 1) != kSmall || size > ghost_cap_) return false;
    while (ghost_.bytes + size > ghost_cap_) {
      const Handle g = ghost_.tail;
      ghost_.unlink(t, g);
      --ghosts_;
      t.remove(g);
    }
    t[h].slot = kGhostSlot;
    ghost_.push_front(t, h);
    ++ghosts_;
    prefetch_next(t, ghost_);  // G's oldest is the next to leave the table
    return true;
  }

  size_t ghost_entries() const { return ghosts_; }
  /// G holds |G| / mean size keys: about ghost_ratio × the cached objects.
  size_t ghost_reserve(size_t objects) const {
    return static_cast<size_t>(static_cast<double>(objects) * ghost_ratio_) + 1;
  }

  template <class Q>
  void on_insert(Q& q, ObjectTable& t, Handle h) {
    q.admit(h);
    victim_ = kNoHandle;
    if (ghost_hit_ && ghost_key_ == t[h].key) {
      t[h].slot = kMain;
      main_.push_front(t, h);
    } else {
      t[h].slot = kSmall;
      small_.push_front(t, h);
    }
    ghost_hit_ = false;
  }

  template <class Q>
  void on_hit(Q&, ObjectTable& t, Handle h) {
    uint32_t& s = t[h].slot;
    if ((s >> 1) < freq_cap_) s += 2;
    if (h == victim_) victim_ = kNoHandle;  // its frequency changed: decide again
  }

  /// h is the victim, still linked. A victim from S enters G after it is unlinked
  /// (retain_as_ghost, called by the queue).
  template <class Q>
  void on_evict(Q&, ObjectTable&, Handle) {}

  /// The object the next eviction removes (kNoHandle when nothing is cached), after the moves
  /// that eviction makes first: S's oldest objects with freq >= T to M, M's oldest with
  /// freq > 0 reinserted. Kept, so that a second call returns it without moving anything.
  Handle victim(ObjectTable& t) {
    if (victim_ != kNoHandle) return victim_;
    for (;;) {
      if (main_.bytes > main_cap_ || small_.empty()) {
        Handle o = main_.tail;
        if (o == kNoHandle) return kNoHandle;  // both queues empty
        for (uint32_t f; (f = t[o].slot >> 1) > 0; o = main_.tail) {
          t[o].slot = (std::min(f, 3u) - 1) << 1 | kMain;
          if (o != main_.head) main_.move_to_front(t, o);
        }
        return victim_ = o;
      }
      // From S, until an object is evicted or S is empty (then the next eviction takes M).
      for (Handle o = small_.tail; o != kNoHandle; o = small_.tail) {
        if ((t[o].slot >> 1) < threshold_) return victim_ = o;
        small_.unlink(t, o);
        t[o].slot = kMain;
        main_.push_front(t, o);
      }
    }
  }

  void unlink(ObjectTable& t, Handle h) {
    if (h == victim_) victim_ = kNoHandle;
    if ((t[h].slot & 1) == kSmall) {
      small_.unlink(t, h);
      prefetch_next(t, small_);
    } else {
      main_.unlink(t, h);
      prefetch_next(t, main_);
    }
  }

  /// The queues' ends and the shares; the ghost's entries are counted by the cache
  /// (engine/cache.h, ghost_entry_bytes()).
  size_t memory_bytes() const { return sizeof(*this); }

  /// For tests: the queues (head the newest, tail the oldest), the ghost, an object's
  /// frequency and queue, the shares.
  const IntrusiveList& small() const { return small_; }
  const IntrusiveList& main() const { return main_; }
  /// The ghost, for tests: its byte capacity, whether a key is a ghost, how many there are.
  struct GhostView {
    const S3FifoPolicy* p;
    uint64_t capacity() const { return p->ghost_cap_; }
    bool contains(uint64_t key) const {
      const Handle h = p->table_->find(key);
      return h != kNoHandle && p->table_->operator[](h).slot == kGhostSlot;
    }
    size_t size() const { return p->ghosts_; }
    uint64_t bytes() const { return p->ghost_.bytes; }
  };
  GhostView ghost() const { return GhostView{this}; }
  static uint32_t freq(const ObjectTable& t, Handle h) { return t[h].slot >> 1; }
  static bool in_main(const ObjectTable& t, Handle h) { return (t[h].slot & 1) == kMain; }
  uint64_t small_capacity() const { return small_cap_; }
  uint64_t main_capacity() const { return main_cap_; }

 private:
  static constexpr uint32_t kSmall = 0, kMain = 1;

  // After an object leaves `q`, loads what the next eviction from q reads, a pipeline one
  // eviction deep: q's oldest entry was loaded by the previous call, so its key is at hand to
  // load its index bucket (read when it is evicted or its ghost dropped), and the entry after
  // it (the oldest next time). Only the speed changes.
  void prefetch_next(const ObjectTable& t, const IntrusiveList& q) const {
    const Handle o = q.tail;
    if (o == kNoHandle) return;
    const ObjectEntry& e = t[o];
    t.prefetch_bucket(e.key);
    if (e.prev != kNoHandle) flashpq::prefetch(&t[e.prev]);
  }

  IntrusiveList small_, main_, ghost_;  // ghost_: G's entries, newest at the head
  double small_ratio_, ghost_ratio_;
  uint32_t threshold_, freq_cap_;
  const ObjectTable* table_ = nullptr;  // attach()'s, for ghost()
  uint64_t small_cap_ = 0, main_cap_ = 0, ghost_cap_ = 0;
  size_t ghosts_ = 0;
  Handle victim_ = kNoHandle;
  bool ghost_hit_ = false;
  uint64_t ghost_key_ = 0;
  bool pending_ghost_hit_ = false;  // set by ghost_hit(), read by the next on_miss()
  uint64_t pending_key_ = 0;
};

}  // namespace flashpq
