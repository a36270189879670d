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

#include "engine/exact/exact_queue_base.h"
#include "engine/object_table.h"
#include "engine/queue.h"

namespace flashpq {

/// Exact min-priority queue over absolute priorities (doubles), under the queue contract of
/// engine/queue.h. Does not own objects.
class ExactAbsoluteQueue : public ExactQueueBase<ExactAbsoluteQueue> {
 public:
  /// prev is the object's heap position; next and slot are unused (engine/queue.h).
  static constexpr unsigned kOrderWords = 1;

  /// REQUIRES: ctx.capacity_bytes >= 1; ctx's references outlive the queue.
  explicit ExactAbsoluteQueue(const QueueContext& ctx) : ExactQueueBase(ctx) {}

  /// Reserves heap room for `objects` entries.
  void reserve(size_t objects) { heap_.reserve(objects); }

  /// The absolute priority of queued object h.
  double priority(Handle h) const { return heap_[table_[h].prev].priority; }

  /// insert(x, p). REQUIRES: h not queued; make_room(size of h) was called.
  void insert(Handle h, double p) {
    account_insert(h);
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

  /// The minimum (what delete-min removes), or kNoHandle when empty.
  Handle min() const { return heap_.empty() ? kNoHandle : heap_[0].handle; }

  size_t size() const { return heap_.size(); }

  /// DRAM of the heap (capacity × 24 B: priority, sequence and handle per object), plus the
  /// naive placement's allocator.
  size_t queue_bytes() const { return heap_.capacity() * sizeof(Node) + placement_queue_bytes(); }

 private:
  struct Node {
    double priority;
    uint64_t seq;
    Handle handle;
  };

  friend class ExactQueueBase<ExactAbsoluteQueue>;

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

  std::vector<Node> heap_;
  uint64_t seq_ = 0;
};

}  // namespace flashpq
