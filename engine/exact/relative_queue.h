// engine/exact/relative_queue.h — the exact relative priority queue of the `exact` framework.
//
// Source: RIPQ paper (FAST'15) §4.1 "Absolute/Relative Priority Queue" and §4.3 "Segmented-LRU".
// A relative priority p ∈ [0, 1] is the position of an object in the queue: the fraction of the
// queue behind it. The policies of Table 2 only ever use the grid {1/L, 2/L, …, 1}; on that grid
// the queue is exactly L equal segments, segment 1 at the head (p ∈ ((L−1)/L, 1]) and segment L
// at the tail (p ∈ (0, 1/L]):
//   * insert(x, k/L) puts x at the head of segment L−k+1;
//   * increase(x, k/L) moves x to the head of segment L−k+1;
//   * a segment l < L whose bytes exceed capacity/L moves its tail objects to the head of
//     segment l+1 until it fits (the "overflow moves down" of §4.3); segment L takes the rest;
//   * delete-min removes the tail of the lowest non-empty segment.
// This is a byte-capacity SLRU with equal segments; with L = 1 it is one list (LRU or FIFO).
//
// Placement: with framework.placement "naive" every object is also written to the device at an
// extent of its own and trimmed when it leaves (engine/exact/naive_placement.h, §4.2 "Naive
// Design"). That path is one predictable branch on a member pointer per insert/remove/evict;
// with placement "none" the queue does exactly what it did without it.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/exact/exact_queue_base.h"
#include "engine/intrusive_list.h"
#include "engine/object_table.h"
#include "engine/queue.h"

namespace flashpq {

/// Exact relative priority queue over grid priorities k/L (see the file comment), under the
/// queue contract of engine/queue.h. Does not own objects: it links entries of the
/// ObjectTable in the context.
class ExactRelativeQueue : public ExactQueueBase<ExactRelativeQueue> {
 public:
  /// prev and next link the object in its segment's list and slot is its segment: all three
  /// entry words order objects (engine/queue.h).
  static constexpr unsigned kOrderWords = 3;

  /// REQUIRES: ctx.grid >= 1, ctx.capacity_bytes >= 1; ctx's references outlive the queue.
  explicit ExactRelativeQueue(const QueueContext& ctx)
      : ExactQueueBase(ctx), grid_(ctx.grid), inv_grid_(1.0 / ctx.grid), segments_(ctx.grid) {
    if (grid_ < 1) throw std::invalid_argument("relative queue: grid must be >= 1, got 0");
  }

  /// Number of segments L.
  uint32_t grid() const { return grid_; }

  /// Converts a grid priority k/L to a 0-based segment index (0 = head segment).
  /// Throws std::invalid_argument if p is outside [1/L, 1] or not within 1e-9 of a grid point.
  uint32_t segment_of(double p) const {
    if (p == 1.0) [[likely]]
      return 0;  // FIFO's insertions, LRU's and most SLRU hits
    const double scaled = p * grid_;
    // Range first (false for NaN), so the cast below is defined.
    if (!(scaled > 0.5 && scaled < grid_ + 0.5)) [[unlikely]]
      off_grid(p);
    const auto k = static_cast<uint32_t>(scaled + 0.5);
    const double err = scaled - static_cast<double>(k);
    if (!(err <= 1e-9 && err >= -1e-9)) [[unlikely]]
      off_grid(p);
    return grid_ - static_cast<uint32_t>(k);
  }

  /// The relative priority of cached object h: the upper end k/L of its segment's range.
  double priority(Handle h) const {
    return static_cast<double>(grid_ - table_[h].slot) * inv_grid_;  // no division per hit
  }

  /// insert(x, p) of §4.1. REQUIRES: h not queued; make_room(size of h) was called.
  void insert(Handle h, double p) { insert_at(h, segment_of(p)); }

  /// increase(x, p) of §4.1: moves h to the head of the segment of p.
  /// REQUIRES: h queued and p >= priority(h) (a decrease is rejected with invalid_argument).
  void increase(Handle h, double p) { increase_to(h, segment_of(p)); }

  // ---- the same on the grid's integers: priority k/L given as k, for the policies of
  //      Table 2 (policies/fifo.h, policies/slru.h), which then need no floating point ----

  /// The k of cached object h's priority k/L, in [1, L].
  uint32_t level(Handle h) const { return grid_ - table_[h].slot; }

  /// insert(x, k/L). REQUIRES: 1 <= k <= L; as insert().
  void insert_level(Handle h, uint32_t k) { insert_at(h, checked_segment(k)); }

  /// increase(x, k/L). REQUIRES: 1 <= k <= L; as increase().
  void increase_level(Handle h, uint32_t k) { increase_to(h, checked_segment(k)); }

  /// The object delete-min would remove: the tail of the lowest non-empty segment, or
  /// kNoHandle when the queue is empty.
  Handle min() const {
    for (uint32_t s = grid_; s-- > 0;) {
      if (segments_[s].tail != kNoHandle) return segments_[s].tail;
    }
    return kNoHandle;
  }

  /// DRAM of the queue itself (segment heads; links live in the entries), plus the naive
  /// placement's allocator.
  size_t queue_bytes() const {
    return segments_.capacity() * sizeof(IntrusiveList) + placement_queue_bytes();
  }

  /// Bytes currently in segment s (0-based), for tests.
  uint64_t segment_bytes(uint32_t s) const { return segments_[s].bytes; }

 private:
  friend class ExactQueueBase<ExactRelativeQueue>;

  // Segment L−k of level k; throws std::invalid_argument when k is outside [1, L].
  uint32_t checked_segment(uint32_t k) const {
    if (k - 1 >= grid_) [[unlikely]]
      off_grid(static_cast<double>(k) * inv_grid_);
    return grid_ - k;
  }

  void insert_at(Handle h, uint32_t s) {
    account_insert(h);
    push_front(s, h);
    if (overflows(s)) [[unlikely]]
      rebalance_from(s);
  }

  // Inlined into the hit path; a move to another segment (a promotion) is out of line.
  [[gnu::always_inline]] void increase_to(Handle h, uint32_t s) {
    const ObjectEntry& e = table_[h];
    if (s > e.slot) [[unlikely]]
      decrease_rejected();
    IntrusiveList& seg = segments_[s];
    if (seg.head == h) return;  // already at the head of that segment
    if (s == e.slot) {
      // Within its segment (every LRU hit): relink only; the bytes stay, nothing overflows.
      seg.move_to_front(table_, h);
      return;
    }
    promote(h, s);
  }

  // Moves h to the head of a higher segment s, then demotes the overflow (§4.3).
  [[gnu::noinline]] void promote(Handle h, uint32_t s) {
    unlink(h);
    push_front(s, h);
    if (overflows(s)) rebalance_from(s);
  }

  void push_front(uint32_t s, Handle h) {
    table_[h].slot = s;
    segments_[s].push_front(table_, h);
  }

  [[noreturn]] [[gnu::cold]] [[gnu::noinline]] static void decrease_rejected() {
    throw std::invalid_argument("exact relative queue: increase to a lower priority");
  }

  [[noreturn]] [[gnu::cold]] [[gnu::noinline]] void off_grid(double p) const {
    throw std::invalid_argument("exact relative queue: priority " + std::to_string(p) +
                                " is not on the grid k/" + std::to_string(grid_));
  }

  void unlink(Handle h) { segments_[table_[h].slot].unlink(table_, h); }

  // Segment s < L overflows when bytes·L > capacity (exact integer test, no rounding).
  bool overflows(uint32_t s) const {
    return s + 1 < grid_ && segments_[s].bytes * grid_ > capacity_bytes_;
  }

  // §4.3: "ones at the tail of these caches will be demoted to the next lower priority cache".
  // REQUIRES: overflows(s).
  [[gnu::noinline]] void rebalance_from(uint32_t s) {
    for (; s + 1 < grid_; ++s) {
      if (!overflows(s)) return;  // lower segments only grow through this segment's overflow
      while (overflows(s)) {
        const Handle t = segments_[s].tail;
        unlink(t);
        push_front(s + 1, t);
      }
    }
  }

  uint32_t grid_;
  double inv_grid_;
  std::vector<IntrusiveList> segments_;  // segment 0 at the head of the queue
};

}  // namespace flashpq
