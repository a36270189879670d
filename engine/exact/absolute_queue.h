// engine/exact/absolute_queue.h — the exact absolute priority queue of the `exact` framework.
//
// Source: RIPQ paper (FAST'15) §4.1 (insert, increase, delete-min) with absolute priority
// values, as GDSF needs (§4.3, Table 2). An indexed binary min-heap: each entry records its
// heap position (ObjectEntry::prev), so increase is O(log n) without a search.
//
// Tie-break (stated, and tested): among equal priorities the object whose priority was set
// least recently — by insert or increase — is the minimum. Every insert/increase takes a new
// value of a 64-bit sequence counter, and the heap orders by (priority, sequence).
//
// Placement: with framework.placement "naive" every object is also written to the device at an
// extent of its own and trimmed when it leaves (engine/exact/naive_placement.h, §4.2 "Naive
// Design"); `prev` holds the heap position, so the offsets live in the placement's side vector.
// That path is one predictable branch on a member pointer per insert/remove/evict; with
// placement "none" the queue does exactly what it did without it.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <vector>

#include "engine/exact/naive_placement.h"
#include "engine/object_table.h"
#include "engine/queue.h"

namespace flashpq {

/// Exact min-priority queue over absolute priorities (doubles), under the queue contract of
/// engine/queue.h. Does not own objects.
class ExactAbsoluteQueue {
 public:
  /// prev is the object's heap position; next and slot are unused (engine/queue.h).
  static constexpr unsigned kOrderWords = 1;

  /// REQUIRES: ctx.capacity_bytes >= 1; ctx's references outlive the queue.
  explicit ExactAbsoluteQueue(const QueueContext& ctx)
      : table_(ctx.table),
        sink_(ctx.sink),
        capacity_bytes_(ctx.capacity_bytes),
        placement_(NaivePlacement::make_if_enabled(ctx)) {}

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

  /// Reserves heap room for `objects` entries.
  void reserve(size_t objects) { heap_.reserve(objects); }

  /// The absolute priority of queued object h.
  double priority(Handle h) const { return heap_[table_[h].prev].priority; }

  /// insert(x, p). REQUIRES: h not queued; make_room(size of h) was called.
  void insert(Handle h, double p) {
    if (placement_) [[unlikely]]
      placement_->place(h, table_[h].size_bytes);
    used_bytes_ += table_[h].size_bytes;
    counters_.placed_bytes += table_[h].size_bytes;
    counters_.placed_objects++;
    const uint32_t pos = static_cast<uint32_t>(heap_.size());
    heap_.push_back(Node{p, seq_++, h});
    table_[h].prev = pos;
    sift_up(pos);
  }

  /// increase(x, p). Throws std::invalid_argument if p < priority(h) (RIPQ's interface only
  /// increases, §4.1). REQUIRES: h queued.
  void increase(Handle h, double p) {
    const uint32_t pos = table_[h].prev;
    if (p < heap_[pos].priority) {
      throw std::invalid_argument("exact absolute queue: increase to a lower priority");
    }
    heap_[pos].priority = p;
    heap_[pos].seq = seq_++;
    sift_down(pos);  // the key only grew
  }

  /// A hit on h is served from the device (framework.read_hits): with naive placement, one
  /// read of h's extent; with placement "none" there is no device copy and nothing is read.
  /// REQUIRES: h queued.
  void read_hit(Handle h) {
    if (placement_) [[unlikely]]
      placement_->read(h, table_[h].size_bytes);
  }

  /// Removes h wherever it is (a delete or a replacement). REQUIRES: h queued.
  void remove(Handle h) {
    if (placement_) [[unlikely]]
      placement_->release(h, table_[h].size_bytes);
    used_bytes_ -= table_[h].size_bytes;
    counters_.superseded_bytes += table_[h].size_bytes;
    unlink(h);
  }

  /// The minimum (what delete-min removes), or kNoHandle when empty.
  Handle min() const { return heap_.empty() ? kNoHandle : heap_[0].handle; }

  size_t size() const { return heap_.size(); }

  /// Per-object DRAM outside the entries: the naive placement's offsets (none without it).
  size_t index_bytes() const { return placement_ ? placement_->index_bytes() : 0; }
  /// DRAM of the heap (capacity × 24 B: priority, sequence and handle per object), plus the
  /// naive placement's allocator.
  size_t queue_bytes() const {
    return heap_.capacity() * sizeof(Node) + (placement_ ? placement_->queue_bytes() : 0);
  }

 private:
  struct Node {
    double priority;
    uint64_t seq;
    Handle handle;
  };

  // Delete-min's victim leaves: the policy sees it first, then it is dropped from the table.
  void evict(Handle h) {
    sink_.before_evict(h);
    const uint32_t size = table_[h].size_bytes;
    unlink(h);
    if (placement_) [[unlikely]]
      placement_->release(h, size);
    used_bytes_ -= size;
    counters_.evicted_objects++;
    counters_.evicted_bytes += size;
    table_.remove(h);
  }

  void unlink(Handle h) {
    const uint32_t pos = table_[h].prev;
    const uint32_t last = static_cast<uint32_t>(heap_.size() - 1);
    if (pos != last) {
      place(pos, heap_[last]);
      heap_.pop_back();
      sift_down(pos);
      sift_up(pos);
    } else {
      heap_.pop_back();
    }
  }

  static bool less(const Node& a, const Node& b) {
    return a.priority < b.priority || (a.priority == b.priority && a.seq < b.seq);
  }

  void place(uint32_t pos, const Node& n) {
    heap_[pos] = n;
    table_[n.handle].prev = pos;
  }

  void sift_up(uint32_t pos) {
    const Node n = heap_[pos];
    while (pos > 0) {
      const uint32_t parent = (pos - 1) / 2;
      if (!less(n, heap_[parent])) break;
      place(pos, heap_[parent]);
      pos = parent;
    }
    place(pos, n);
  }

  void sift_down(uint32_t pos) {
    const Node n = heap_[pos];
    const uint32_t size = static_cast<uint32_t>(heap_.size());
    for (;;) {
      uint32_t child = 2 * pos + 1;
      if (child >= size) break;
      if (child + 1 < size && less(heap_[child + 1], heap_[child])) ++child;
      if (!less(heap_[child], n)) break;
      place(pos, heap_[child]);
      pos = child;
    }
    place(pos, n);
  }

  ObjectTable& table_;
  EvictionSink sink_;
  uint64_t capacity_bytes_;
  std::vector<Node> heap_;
  uint64_t seq_ = 0;
  uint64_t used_bytes_ = 0;
  FrameworkCounters counters_;
  std::unique_ptr<NaivePlacement> placement_;  // null with placement "none"
  uint64_t fragmentation_evictions_ = 0;
};

}  // namespace flashpq
