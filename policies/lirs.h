// policies/lirs.h — LIRS: the LIRS stack S, the list Q of resident HIR blocks, stack pruning.
//
// Source: Jiang & Zhang, "LIRS: An Efficient Low Inter-reference Recency Set Replacement Policy
// to Improve Buffer Cache Performance", SIGMETRICS'02, §3.3 (the stack S holds LIR blocks,
// resident HIR blocks and non-resident HIR blocks; its bottom is always an LIR block; "stack
// pruning" removes the HIR blocks at the bottom until an LIR block is there; Q holds the
// resident HIR blocks) and §3.4 / Figures 3-4 (the three cases of a reference):
//   * an LIR block X: X moves to the top of S; if it was at the bottom, S is pruned;
//   * a resident HIR block X in S: X moves to the top of S and becomes LIR; it leaves Q; the
//     LIR block at the bottom of S becomes HIR, leaves S for the end of Q, and S is pruned;
//   * a resident HIR block X not in S: X moves to the top of S (still HIR) and to the end of Q;
//   * a miss: the front of Q is evicted (its entry in S, if any, stays as a non-resident HIR
//     block); the new block X goes to the top of S; if X was a non-resident HIR block in S it
//     becomes LIR and the bottom LIR block goes to the end of Q (then pruning); otherwise X is a
//     resident HIR block at the end of Q. Until the LIR set is full, every block is LIR.
//
// Equal to libCacheSim's LIRS (libCacheSim/cache/eviction/LIRS.c, commit aa0fc40), which this
// follows step by step rather than the paper where the two differ (names below are its
// functions):
//   * Sizes are bytes (objects in unit-size mode). Q (the HIR part) holds at most
//     hir_limit = max(1, floor(policy.lirs_hir_ratio × C)) bytes, default ratio 0.01; the LIR
//     part at most lir_limit = C - hir_limit. A new object larger than hir_limit (or lir_limit) is
//     refused: not cached, nothing evicted (LIRS_can_insert). See "Engine" below.
//   * A new object (neither in S nor in Q) is LIR, at the top of S, whenever it fits in the LIR
//     part (lir + size <= lir_limit) — not only before the LIR set first fills: the LIR part
//     has room again after each hit below that demotes an LIR block without promoting one.
//     Otherwise the front (oldest) of Q is evicted until it fits in the HIR part, and it enters S
//     and Q as a resident HIR block (LIRS_can_insert, LIRS_insert).
//   * A non-resident HIR block of S (a ghost) is a miss: it moves to the top of S, the bottom LIR
//     block is demoted (evictLIR: to the newest end of Q, the front of Q evicted while Q
//     overflows; then pruning) while the LIR part cannot take it, and it becomes LIR. The paper
//     evicts the front of Q first and demotes exactly one LIR block; libCacheSim demotes only
//     while the LIR part overflows (with fixed sizes: one when the LIR part is full, none when
//     it has room).
//   * A hit on a resident HIR block in S: it leaves Q, LIR blocks are demoted while the LIR part
//     overflows (hit_RD_HIRinS), it becomes LIR. A hit on a resident HIR block not in S: it
//     moves to the newest end of Q and to the top of S, and — unlike the paper — LIR blocks are
//     demoted while lir + size > lir_limit although it stays HIR (hit_RD_HIRinQ). So such a hit,
//     with the LIR part full, demotes the bottom LIR block into Q and evicts the front of Q: a
//     hit can evict, and the LIR part is left with room, which the next new object takes as LIR.
//   * Pruning as the paper; it runs after an LIR hit, after each demotion (evictLIR) and after
//     the removal of an LIR block (LIRS_remove). Pruning stops at the top of S, so when the LIR
//     set empties (only in tiny caches: lir_limit of a few objects) an HIR block can be left at
//     the bottom and have blocks pushed above it; libCacheSim's evictLIR then demotes that HIR
//     block as if it were LIR (its LIR count wraps, the block enters Q twice). Here evict_lir()
//     prunes first, a no-op whenever the bottom is LIR, i.e. always in libCacheSim's defined
//     runs.
//   * Bound on S (limitStack, after every request): while the bytes of S (all its entries,
//     resident or not) exceed 2 × C, the non-resident HIR block of S that became non-resident
//     longest ago is dropped from S (a FIFO of them, libCacheSim's LRU_nh).
//   * A block removed by a delete or a replacement (LIRS_remove): an LIR block leaves S (then
//     pruning); a resident HIR block leaves S and Q (no non-resident entry is left).
//   * Ties: lists are LRU lists; Q's front is its oldest entry; a block re-entering Q goes to its
//     newest end.
// Differences from libCacheSim, deliberate (measured against its cachesim on the shared traces,
// tests/policies/test_libcachesim.cpp: unit-size rows equal to 1e-6; sized rows as below):
//   * A non-resident block that comes back with another size: libCacheSim keeps the size it had
//     in S for its LIR accounting and occupancy (while its capacity check uses the new one, so
//     its occupancy can pass the cache size); here the cached copy is the request's, as every
//     FlashPQ object is, and its size is used throughout. adaptsize (sizes change): object /
//     byte miss ratio differ by 1.6e-4 / 1.5e-4, 0.6e-4 / 5.7e-4, 2.7e-4 / 2.4e-4, 4.6e-4 /
//     5.0e-4 at 1 / 5 / 10 / 20 % of the working set; cloudPhysicsIO (fixed sizes): equal.
//   * libCacheSim's hit_RD_HIRinQ reads the block's size after evictLIR may have evicted that
//     very block (when it was the only block in Q: hir_limit 1, i.e. unit-size caches below 200
//     objects, or sized caches where the demoted block fills Q); it then re-enters S marked
//     "resident" although it is in neither Q nor the cache's occupancy, so its next reference is
//     a hit on an object it evicted. Here that block is evicted (the reference that triggered it
//     is a hit in both) and its entry in S is a non-resident HIR block (not in the FIFO of
//     limitStack, as libCacheSim's is not), so its next reference is a miss that makes it LIR as
//     libCacheSim's hit does. Measured alone (the test's plain model, both ways): 1.5e-5 on
//     adaptsize at 1 %, nothing elsewhere.
//   * evict_lir() prunes first (see pruning above): only tiny caches, where libCacheSim's counts
//     wrap.
// Engine: libCacheSim's LIRS refuses objects and evicts outside the "evict until it fits" loop
// (on hits, and more than the room a miss needs: on sized traces 14-21 % of its evictions).
//   * on_miss() runs the miss (LIRS_find's miss, LIRS_can_insert, the evict loop of
//     cache_get_base) on the policy's structure and returns false for a refusal (Cache::insert
//     then neither evicts nor inserts). The blocks it evicts go to a "doomed" list that victim()
//     hands out first, so make_room() evicts them in libCacheSim's order; those the room did not
//     need, and those that demotions on a hit evict, are evicted in on_insert() / on_hit()
//     through the queue's evict_now() when it has one (ExactOwnedQueue: an eviction like
//     make_room's), else its remove() (then counted as removals, superseded_bytes, and not shown
//     to the eviction listener). With an admission policy that refuses the newcomer, the doomed
//     blocks stay cached until the next insertion or hit.
//   * Where the cache ignores a refusal (a cache without bool on_miss), the object is inserted
//     after make_room() evicted for it (victim(): the front of Q) and dropped in on_insert(): not
//     cached, but those evictions are not libCacheSim's (adaptsize sized at 1 %: +0.011).
//
// Structures: S is a doubly linked list of "nodes": a cached object (its table handle; links in
// the entry's prev/next) or a non-resident HIR block (a ghost: an entry of ghosts_, a second
// ObjectTable, handle | kGhostBit; links in its prev/next). Q links cached objects through the
// side vector (SideList q_); the FIFO of non-resident blocks (limitStack) links ghosts
// through another (nh_). A cached object's slot holds its flags (in S, in Q, LIR, doomed); a
// ghost's slot whether it is in that FIFO (cached handles stay below 2^31, as ghosts' do, to keep
// the bit free). No allocation per request in steady state.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/intrusive_list.h"
#include "engine/object_table.h"
#include "policies/policy.h"

namespace flashpq {

/// policy.lirs_hir_ratio: the share of the capacity for resident HIR blocks (libCacheSim's
/// hirs_ratio, hard-coded there to 0.01).
inline const KeySpec kLirsHirRatioKey =
    key("policy.lirs_hir_ratio", ValueType::kUnitInterval)
        .def("0.01")
        .units("fraction")
        .desc(
            "LIRS: share of the capacity for resident HIR blocks (list Q), at least 1 byte "
            "(object in unit-size mode); the LIR blocks get the rest");

class LirsPolicy {
 public:
  static const ComponentSpec& spec() {
    static const ComponentSpec s{
        "lirs",
        "LIRS (SIGMETRICS'02): stack S of LIR and HIR blocks, list Q of resident HIR blocks",
        {kLirsHirRatioKey},
        {exact_framework_only("lirs")},
        {},
        {}};
    return s;
  }
  static constexpr PriorityKind kKind = PriorityKind::kOwning;
  explicit LirsPolicy(const PolicyConfig& config)
      : ratio_(config.params.get<double>(kLirsHirRatioKey)) {}
  uint32_t grid() const { return 1; }

  /// Entry flags of a cached object (ObjectEntry::slot).
  static constexpr uint32_t kInS = 1, kInQ = 2, kLir = 4, kDoomed = 8;
  /// A node of S that is a ghost: its handle in ghosts() with this bit.
  static constexpr uint32_t kGhostBit = 0x80000000u;

  void attach(ObjectTable& t, uint64_t capacity) {
    t_ = &t;
    capacity_ = capacity;
    hir_limit_ =
        std::max<uint64_t>(1, static_cast<uint64_t>(ratio_ * static_cast<double>(capacity)));
    lir_limit_ = capacity >= hir_limit_ ? capacity - hir_limit_ : 0;
  }

  /// A miss on `key` (libCacheSim: LIRS_find's miss, LIRS_can_insert, cache_get_base's evict
  /// loop). Returns false if LIRS refuses the object (see the file comment).
  bool on_miss(ObjectTable&, uint64_t key, uint32_t size) {
    pending_ = Pending{};
    pending_.key = key;
    const Handle g = ghosts_->find(key);
    if (g != kNoHandle) {
      // A non-resident HIR block in S: to the top of S, room in the LIR part, LIR on insertion.
      s_move_to_front(g | kGhostBit);
      while (lir_bytes_ + size > lir_limit_ && evict_lir()) {
      }
      if ((*ghosts_)[g].slot != 0) nh_unlink(g);
      while (lir_bytes_ + hir_bytes_ + size > capacity_) {  // LIRS_evict, rarely reached
        while (hir_bytes_ >= hir_limit_ && q_.tail != kNoHandle) evict_hir();
        if (!evict_lir()) break;
      }
      pending_.kind = Pending::kRevive;
      pending_.ghost = g;
      return true;
    }
    if (size > lir_limit_ || size > hir_limit_) {
      pending_.kind = Pending::kRefused;
      return false;
    }
    if (lir_bytes_ + size > lir_limit_) {
      while (hir_bytes_ + size > hir_limit_ && q_.tail != kNoHandle) evict_hir();
    }
    pending_.kind = lir_bytes_ + size <= lir_limit_ ? Pending::kLir : Pending::kHir;
    return true;
  }

  template <class Q>
  void on_insert(Q& q, ObjectTable& t, Handle h) {
    q.admit(h);
    const uint32_t size = t[h].size_bytes;
    const Pending p = pending_;
    pending_ = Pending{};
    if (p.key != t[h].key || p.kind == Pending::kNone || p.kind == Pending::kRefused) {
      t[h].slot = 0;
      doom(h);  // refused (the cache ignored on_miss's answer): not kept
    } else if (p.kind == Pending::kRevive) {
      s_replace(p.ghost | kGhostBit, h);
      ghosts_->remove(p.ghost);
      t[h].slot = kInS | kLir;
      lir_bytes_ += size;
    } else if (p.kind == Pending::kLir) {
      t[h].slot = kInS | kLir;
      s_push_front(h);
      lir_bytes_ += size;
    } else {
      t[h].slot = kInS | kInQ;
      s_push_front(h);
      q_push_front(h);
      hir_bytes_ += size;
    }
    limit_stack();
    flush(q, t);
  }

  template <class Q>
  void on_hit(Q& q, ObjectTable& t, Handle h) {
    const uint32_t f = t[h].slot;
    const uint32_t size = t[h].size_bytes;
    if (f & kLir) {
      s_move_to_front(h);
      prune();
    } else if (f & kInS) {  // resident HIR in S: becomes LIR
      s_move_to_front(h);
      if (f & kInQ) {
        q_unlink(h);
        hir_bytes_ -= size;
        t[h].slot &= ~kInQ;
      }
      while (lir_bytes_ + size > lir_limit_ && evict_lir()) {
      }
      t[h].slot |= kLir;
      lir_bytes_ += size;
    } else if (f & kInQ) {  // resident HIR not in S: stays HIR
      q_move_to_front(h);
      while (lir_bytes_ + size > lir_limit_ && evict_lir()) {
      }
      if (t[h].slot & kDoomed) {
        // Evicted by the demotions (libCacheSim's phantom, see the file comment): a
        // non-resident HIR block at the top of S, outside limitStack's FIFO.
        const Handle g = ghosts_->add(t[h].key, size);
        (*ghosts_)[g].slot = 0;
        s_push_front(g | kGhostBit);
      } else {
        s_push_front(h);
        t[h].slot |= kInS;
      }
    }
    limit_stack();
    flush(q, t);
  }

  template <class Q>
  void on_evict(Q&, ObjectTable&, Handle h) {
    evicting_ = h;
  }

  /// The next doomed block (evicted by the LIRS rules, still cached); otherwise, for an eviction
  /// libCacheSim would not make (see the file comment), the front of Q, else the bottom of S.
  Handle victim(ObjectTable&) const {
    if (!doomed_.empty()) return doomed_.tail;
    if (q_.tail != kNoHandle) return q_.tail;
    for (uint32_t id = s_tail_; id != kNoHandle; id = node(id).prev) {
      if (!is_ghost(id)) return id;
    }
    return kNoHandle;
  }

  void unlink(ObjectTable& t, Handle h) {
    const uint32_t f = t[h].slot;
    const uint32_t size = t[h].size_bytes;
    const bool evicting = evicting_ == h;
    evicting_ = kNoHandle;
    if (f & kDoomed) {
      doomed_.unlink(t, h);
    } else if (evicting && (f & kInQ)) {  // evictHIR on this block
      q_unlink(h);
      hir_bytes_ -= size;
      if (f & kInS) to_ghost(h, true);
    } else if (f & kLir) {  // LIRS_remove
      s_unlink(h);
      lir_bytes_ -= size;
      prune();
    } else {
      if (f & kInS) s_unlink(h);
      if (f & kInQ) {
        q_unlink(h);
        hir_bytes_ -= size;
      }
    }
    t[h].slot = 0;
  }

  /// The ghosts' table and the side vectors (the links of S and Q's cached objects are in the
  /// entries).
  size_t memory_bytes() const {
    return sizeof(*this) + ghosts_->memory_bytes() + q_.memory_bytes() + nh_.memory_bytes();
  }

  // For tests.
  uint64_t lir_limit() const { return lir_limit_; }
  uint64_t hir_limit() const { return hir_limit_; }
  uint64_t lir_bytes() const { return lir_bytes_; }
  uint64_t hir_bytes() const { return hir_bytes_; }
  uint64_t stack_bytes() const { return s_bytes_; }
  const ObjectTable& ghosts() const { return *ghosts_; }
  /// S from the top: the node ids (handles, or ghost handles | kGhostBit).
  std::vector<uint32_t> stack() const {
    std::vector<uint32_t> out;
    for (uint32_t id = s_head_; id != kNoHandle; id = node(id).next) out.push_back(id);
    return out;
  }
  /// Q from the newest end to the front (the next evicted).
  std::vector<Handle> queue_q() const {
    std::vector<Handle> out;
    for (Handle h = q_.head; h != kNoHandle; h = q_.links[h].next) out.push_back(h);
    return out;
  }

 private:
  struct Links {
    Handle prev = kNoHandle, next = kNoHandle;
  };
  // A doubly linked list whose links live in a side vector by handle (the entries' own words
  // are S's): head the newest end, tail the oldest.
  struct SideList {
    std::vector<Links> links;
    Handle head = kNoHandle, tail = kNoHandle;
    void push_front(Handle h) {
      if (h >= links.size()) grow_for_handle(links, h);
      links[h] = Links{kNoHandle, head};
      if (head != kNoHandle)
        links[head].prev = h;
      else
        tail = h;
      head = h;
    }
    void unlink(Handle h) {
      const Links l = links[h];
      if (l.prev != kNoHandle)
        links[l.prev].next = l.next;
      else
        head = l.next;
      if (l.next != kNoHandle)
        links[l.next].prev = l.prev;
      else
        tail = l.prev;
    }
    size_t memory_bytes() const { return links.capacity() * sizeof(Links); }
  };
  struct Pending {
    enum Kind : uint8_t { kNone, kRefused, kLir, kHir, kRevive } kind = kNone;
    uint64_t key = 0;
    Handle ghost = kNoHandle;
  };

  static bool is_ghost(uint32_t id) { return (id & kGhostBit) != 0; }
  ObjectEntry& node(uint32_t id) { return is_ghost(id) ? (*ghosts_)[id & ~kGhostBit] : (*t_)[id]; }
  const ObjectEntry& node(uint32_t id) const {
    return is_ghost(id) ? (*ghosts_)[id & ~kGhostBit] : (*t_)[id];
  }

  // --- S: head the top (newest), tail the bottom.
  void s_push_front(uint32_t id) {
    ObjectEntry& e = node(id);
    e.prev = kNoHandle;
    e.next = s_head_;
    if (s_head_ != kNoHandle)
      node(s_head_).prev = id;
    else
      s_tail_ = id;
    s_head_ = id;
    s_bytes_ += e.size_bytes;
  }
  void s_unlink(uint32_t id) {
    ObjectEntry& e = node(id);
    if (e.prev != kNoHandle)
      node(e.prev).next = e.next;
    else
      s_head_ = e.next;
    if (e.next != kNoHandle)
      node(e.next).prev = e.prev;
    else
      s_tail_ = e.prev;
    s_bytes_ -= e.size_bytes;
  }
  void s_move_to_front(uint32_t id) {
    if (s_head_ == id) return;
    s_unlink(id);
    s_push_front(id);
  }
  // `to` takes `from`'s place in S (same size in bytes counted: from's out, to's in).
  void s_replace(uint32_t from, uint32_t to) {
    ObjectEntry& f = node(from);
    ObjectEntry& e = node(to);
    e.prev = f.prev;
    e.next = f.next;
    if (e.prev != kNoHandle)
      node(e.prev).next = to;
    else
      s_head_ = to;
    if (e.next != kNoHandle)
      node(e.next).prev = to;
    else
      s_tail_ = to;
    s_bytes_ = s_bytes_ - f.size_bytes + e.size_bytes;
  }

  // --- Q: head the newest end, tail the front (the next evicted).
  void q_push_front(Handle h) { q_.push_front(h); }
  void q_unlink(Handle h) { q_.unlink(h); }
  void q_move_to_front(Handle h) {
    if (q_.head == h) return;
    q_unlink(h);
    q_push_front(h);
  }

  // --- The FIFO of non-resident blocks (libCacheSim's LRU_nh): head the newest.
  void nh_push_front(Handle g) {
    nh_.push_front(g);
    (*ghosts_)[g].slot = 1;
  }
  void nh_unlink(Handle g) {
    nh_.unlink(g);
    (*ghosts_)[g].slot = 0;
  }

  // h (in S) leaves the cache: a ghost takes its place in S (and the FIFO if `in_nh`).
  void to_ghost(Handle h, bool in_nh) {
    const ObjectEntry& e = (*t_)[h];
    const Handle g = ghosts_->add(e.key, e.size_bytes);
    (*ghosts_)[g].slot = 0;
    s_replace(h, g | kGhostBit);
    if (in_nh) nh_push_front(g);
  }

  // A block the LIRS rules evict: out of S and Q, kept for victim() or flush().
  void doom(Handle h) {
    (*t_)[h].slot = kDoomed;
    doomed_.push_front(*t_, h);
  }

  // evictHIR: the front of Q leaves the cache; its entry in S becomes non-resident.
  void evict_hir() {
    const Handle h = q_.tail;
    ObjectEntry& e = (*t_)[h];
    q_unlink(h);
    hir_bytes_ -= e.size_bytes;
    if (e.slot & kInS) to_ghost(h, true);
    doom(h);
  }

  // evictLIR: the bottom LIR block of S becomes HIR at the newest end of Q (the front of Q
  // evicted while it overflows), or leaves the cache if larger than Q; then pruning. False
  // (nothing done) if the bottom of S is not an LIR block.
  bool evict_lir() {
    prune();  // a no-op but where the LIR set emptied (see the file comment)
    const uint32_t id = s_tail_;
    if (id == kNoHandle || is_ghost(id) || !((*t_)[id].slot & kLir)) return false;
    const Handle h = id;
    const uint32_t size = (*t_)[h].size_bytes;
    s_unlink(h);
    lir_bytes_ -= size;
    if (size <= hir_limit_) {
      while (hir_bytes_ + size > hir_limit_ && q_.tail != kNoHandle) evict_hir();
      (*t_)[h].slot = kInQ;
      q_push_front(h);
      hir_bytes_ += size;
    } else {
      doom(h);
    }
    prune();
    return true;
  }

  // Stack pruning: HIR blocks leave the bottom of S until an LIR block is there (or one node).
  void prune() {
    while (s_tail_ != s_head_) {
      const uint32_t id = s_tail_;
      if (is_ghost(id)) {
        const Handle g = id & ~kGhostBit;
        s_unlink(id);
        if ((*ghosts_)[g].slot != 0) nh_unlink(g);
        ghosts_->remove(g);
      } else {
        if ((*t_)[id].slot & kLir) return;
        s_unlink(id);
        (*t_)[id].slot &= ~kInS;
      }
    }
  }

  // limitStack: S within 2 C bytes, the oldest non-resident blocks dropped first.
  void limit_stack() {
    while (s_bytes_ > 2 * capacity_ && nh_.tail != kNoHandle) {
      const Handle g = nh_.tail;
      nh_unlink(g);
      s_unlink(g | kGhostBit);
      ghosts_->remove(g);
    }
  }

  // Evicts the doomed blocks now (see the file comment): through the queue's evict_now() where
  // it has one (an eviction: on_evict, the counters, the eviction listener), else its remove()
  // (counted as a removal).
  template <class Q>
  void flush(Q& q, ObjectTable& t) {
    while (!doomed_.empty()) {
      const Handle d = doomed_.tail;
      if constexpr (requires { q.evict_now(d); }) {
        q.evict_now(d);  // on_evict, unlink(d), then out of the table
      } else if constexpr (requires { q.remove(d); }) {
        q.remove(d);  // unlink(d)
        t.remove(d);
      } else {
        return;
      }
    }
  }

  double ratio_;
  ObjectTable* t_ = nullptr;
  uint64_t capacity_ = 0, lir_limit_ = 0, hir_limit_ = 1;
  uint64_t lir_bytes_ = 0, hir_bytes_ = 0, s_bytes_ = 0;
  uint32_t s_head_ = kNoHandle, s_tail_ = kNoHandle;
  SideList q_;   // Q
  SideList nh_;  // the FIFO of non-resident blocks
  std::unique_ptr<ObjectTable> ghosts_ = std::make_unique<ObjectTable>();  // movable policy
  IntrusiveList doomed_;
  Pending pending_;
  Handle evicting_ = kNoHandle;
};

}  // namespace flashpq
