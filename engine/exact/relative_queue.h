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

#include "engine/exact/naive_placement.h"
#include "engine/object_table.h"
#include "engine/queue.h"

namespace flashpq {

/// Exact relative priority queue over grid priorities k/L (see the file comment), under the
/// queue contract of engine/queue.h. Does not own objects: it links entries of the
/// ObjectTable in the context.
class ExactRelativeQueue {
 public:
  /// prev and next link the object in its segment's list and slot is its segment: all three
  /// entry words order objects (engine/queue.h).
  static constexpr unsigned kOrderWords = 3;

  /// REQUIRES: ctx.grid >= 1, ctx.capacity_bytes >= 1; ctx's references outlive the queue.
  explicit ExactRelativeQueue(const QueueContext& ctx)
      : table_(ctx.table),
        sink_(ctx.sink),
        grid_(ctx.grid),
        inv_grid_(1.0 / ctx.grid),
        capacity_bytes_(ctx.capacity_bytes),
        segments_(ctx.grid),
        placement_(NaivePlacement::make_if_enabled(ctx)) {
    if (grid_ < 1) throw std::invalid_argument("relative queue: grid must be >= 1, got 0");
  }

  /// An object fits if it is no larger than the capacity (and, with naive placement, its
  /// rounded extent no larger than the placement's span).
  bool admits(uint32_t size) const {
    return size <= capacity_bytes_ && (!placement_ || placement_->admits(size));
  }

  /// Delete-min until an object of `size` bytes fits (evict before insert); with naive
  /// placement, further until its extent can be allocated (counted in
  /// fragmentation_evictions()). REQUIRES: admits(size).
  void make_room(uint32_t size) {
    while (used_bytes_ + size > capacity_bytes_) evict(min());
    if (placement_) [[unlikely]] {
      while (!placement_->fits(size)) {
        evict(min());
        ++fragmentation_evictions_;
      }
    }
  }

  /// What make_room(size) would evict first, or kNoHandle if it would evict nothing.
  Handle victim(uint32_t size) const {
    if (used_bytes_ + size > capacity_bytes_) return min();
    if (placement_ && !placement_->fits(size)) [[unlikely]]
      return min();
    return kNoHandle;
  }

  /// The naive placement, or nullptr with placement "none".
  const NaivePlacement* placement() const { return placement_.get(); }
  /// Whether objects go to the device at all (naive placement), or stay in memory only.
  bool places_objects() const { return placement_ != nullptr; }
  /// Evictions beyond the capacity's because no extent fitted (naive placement; see
  /// engine/exact/naive_placement.h). 0 means the placement changed nothing.
  uint64_t fragmentation_evictions() const { return fragmentation_evictions_; }

  uint64_t used_bytes() const { return used_bytes_; }
  const FrameworkCounters& counters() const { return counters_; }

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

  /// A hit on h is served from the device (framework.read_hits): with naive placement, one
  /// read of h's extent; with placement "none" there is no device copy and nothing is read.
  /// REQUIRES: h queued.
  void read_hit(Handle h) {
    if (placement_) [[unlikely]]
      placement_->read(h, table_[h].size_bytes);
  }

  /// Removes h wherever it is (a delete request or a replacement). REQUIRES: h queued.
  void remove(Handle h) {
    unlink(h);
    if (placement_) [[unlikely]]
      placement_->release(h, table_[h].size_bytes);
    used_bytes_ -= table_[h].size_bytes;
    counters_.superseded_bytes += table_[h].size_bytes;
  }

  /// The object delete-min would remove: the tail of the lowest non-empty segment, or
  /// kNoHandle when the queue is empty.
  Handle min() const {
    for (uint32_t s = grid_; s-- > 0;) {
      if (segments_[s].tail != kNoHandle) return segments_[s].tail;
    }
    return kNoHandle;
  }

  /// Per-object DRAM outside the entries: the naive placement's offsets (none without it).
  size_t index_bytes() const { return placement_ ? placement_->index_bytes() : 0; }
  /// DRAM of the queue itself (segment heads; links live in the entries), plus the naive
  /// placement's allocator.
  size_t queue_bytes() const {
    return segments_.capacity() * sizeof(Segment) + (placement_ ? placement_->queue_bytes() : 0);
  }

  /// Bytes currently in segment s (0-based), for tests.
  uint64_t segment_bytes(uint32_t s) const { return segments_[s].bytes; }

 private:
  struct Segment {
    Handle head = kNoHandle;
    Handle tail = kNoHandle;
    uint64_t bytes = 0;
  };

  // Segment L−k of level k; throws std::invalid_argument when k is outside [1, L].
  uint32_t checked_segment(uint32_t k) const {
    if (k - 1 >= grid_) [[unlikely]]
      off_grid(static_cast<double>(k) * inv_grid_);
    return grid_ - k;
  }

  void insert_at(Handle h, uint32_t s) {
    const uint32_t size = table_[h].size_bytes;
    if (placement_) [[unlikely]]
      placement_->place(h, size);
    push_front(s, h);
    used_bytes_ += size;
    counters_.placed_bytes += size;
    counters_.placed_objects++;
    if (overflows(s)) [[unlikely]]
      rebalance_from(s);
  }

  // Inlined into the hit path; a move to another segment (a promotion) is out of line.
  [[gnu::always_inline]] void increase_to(Handle h, uint32_t s) {
    ObjectEntry& e = table_[h];
    if (s > e.slot) [[unlikely]]
      decrease_rejected();
    Segment& seg = segments_[s];
    if (seg.head == h) return;  // already at the head of that segment
    if (s == e.slot) {
      // Within its segment (every LRU hit): relink only; the bytes stay, nothing overflows.
      // h is not the head, so it has a predecessor and the segment a head.
      table_[e.prev].next = e.next;
      if (e.next != kNoHandle)
        table_[e.next].prev = e.prev;
      else
        seg.tail = e.prev;
      table_[seg.head].prev = h;
      e.prev = kNoHandle;
      e.next = seg.head;
      seg.head = h;
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
    Segment& seg = segments_[s];
    ObjectEntry& e = table_[h];
    e.slot = s;
    e.prev = kNoHandle;
    e.next = seg.head;
    if (seg.head != kNoHandle)
      table_[seg.head].prev = h;
    else
      seg.tail = h;
    seg.head = h;
    seg.bytes += e.size_bytes;
  }

  // Delete-min's victim leaves: the policy sees it first, then it is dropped from the table.
  void evict(Handle h) {
    sink_.before_evict(h);
    unlink(h);
    const uint32_t size = table_[h].size_bytes;
    if (placement_) [[unlikely]]
      placement_->release(h, size);
    used_bytes_ -= size;
    counters_.evicted_objects++;
    counters_.evicted_bytes += size;
    table_.remove(h);
  }

  [[noreturn]] [[gnu::cold]] [[gnu::noinline]] static void decrease_rejected() {
    throw std::invalid_argument("exact relative queue: increase to a lower priority");
  }

  [[noreturn]] [[gnu::cold]] [[gnu::noinline]] void off_grid(double p) const {
    throw std::invalid_argument("exact relative queue: priority " + std::to_string(p) +
                                " is not on the grid k/" + std::to_string(grid_));
  }

  void unlink(Handle h) {
    ObjectEntry& e = table_[h];
    Segment& seg = segments_[e.slot];
    if (e.prev != kNoHandle)
      table_[e.prev].next = e.next;
    else
      seg.head = e.next;
    if (e.next != kNoHandle)
      table_[e.next].prev = e.prev;
    else
      seg.tail = e.prev;
    seg.bytes -= e.size_bytes;
  }

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

  ObjectTable& table_;
  EvictionSink sink_;
  uint32_t grid_;
  double inv_grid_;
  uint64_t capacity_bytes_;
  std::vector<Segment> segments_;
  uint64_t used_bytes_ = 0;
  FrameworkCounters counters_;
  std::unique_ptr<NaivePlacement> placement_;  // null with placement "none"
  uint64_t fragmentation_evictions_ = 0;
};

}  // namespace flashpq
