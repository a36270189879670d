// engine/exact/exact_queue_base.h — what the two exact queues share (engine/exact/
// relative_queue.h, engine/exact/absolute_queue.h): the capacity and its accounting, eviction
// before insertion, the naive placement of objects on the device, the counters and the DRAM of
// the placement.
//
// The derived queue orders the objects (segments or a heap) and provides, for this base:
//   Handle min() const;    the object delete-min removes next, or kNoHandle when empty;
//   void unlink(Handle);   takes h out of the order (its bytes are this base's to uncount).
// A static base (CRTP), so that nothing on the per-request path is virtual.
#pragma once

#include <cstdint>
#include <memory>

#include "engine/exact/naive_placement.h"
#include "engine/object_table.h"
#include "engine/queue.h"

namespace flashpq {

template <class Derived>
class ExactQueueBase {
 public:
  /// An object fits if it is no larger than the capacity (and, with naive placement, its
  /// rounded extent no larger than the placement's span).
  bool admits(uint32_t size) const {
    return size <= capacity_bytes_ && (!placement_ || placement_->admits(size));
  }

  /// Delete-min until an object of `size` bytes fits (evict before insert); with naive
  /// placement, further until its extent can be allocated (counted in
  /// fragmentation_evictions()). REQUIRES: admits(size).
  void make_room(uint32_t size) {
    while (used_bytes_ + size > capacity_bytes_) evict(derived().min());
    if (placement_) [[unlikely]] {
      while (!placement_->fits(size)) {
        evict(derived().min());
        ++fragmentation_evictions_;
      }
    }
  }

  /// What make_room(size) would evict first, or kNoHandle if it would evict nothing.
  Handle victim(uint32_t size) const {
    if (used_bytes_ + size > capacity_bytes_) return derived().min();
    if (placement_ && !placement_->fits(size)) [[unlikely]]
      return derived().min();
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

  /// A hit on h is served from the device (framework.read_hits): with naive placement, one
  /// read of h's extent; with placement "none" there is no device copy and nothing is read.
  /// REQUIRES: h queued.
  [[gnu::always_inline]] void read_hit(Handle h) {
    if (placement_) [[unlikely]]
      placement_->read(h, table_[h].size_bytes);
  }

  /// Removes h wherever it is (a delete request or a replacement). REQUIRES: h queued.
  void remove(Handle h) {
    derived().unlink(h);
    const uint32_t size = table_[h].size_bytes;
    if (placement_) [[unlikely]]
      placement_->release(h, size);
    used_bytes_ -= size;
    counters_.superseded_bytes += size;
  }

  /// Per-object DRAM outside the entries: the naive placement's offsets (none without it).
  size_t index_bytes() const { return placement_ ? placement_->index_bytes() : 0; }

 protected:
  /// REQUIRES: ctx.capacity_bytes >= 1; ctx's references outlive the queue. Throws
  /// std::invalid_argument as NaivePlacement::make_if_enabled.
  explicit ExactQueueBase(const QueueContext& ctx)
      : table_(ctx.table),
        sink_(ctx.sink),
        capacity_bytes_(ctx.capacity_bytes),
        placement_(NaivePlacement::make_if_enabled(ctx)) {}

  /// The accounting of an insertion: the object's extent written (naive placement), its bytes
  /// used and placed. Before the derived queue links it.
  void account_insert(Handle h) {
    const uint32_t size = table_[h].size_bytes;
    if (placement_) [[unlikely]]
      placement_->place(h, size);
    used_bytes_ += size;
    counters_.placed_bytes += size;
    counters_.placed_objects++;
  }

  /// Delete-min's victim leaves: the policy sees it first (the eviction protocol of
  /// engine/queue.h), then it is unlinked, its extent trimmed, and it is dropped from the table.
  void evict(Handle h) {
    sink_.before_evict(h);
    derived().unlink(h);
    const uint32_t size = table_[h].size_bytes;
    if (placement_) [[unlikely]]
      placement_->release(h, size);
    used_bytes_ -= size;
    counters_.evicted_objects++;
    counters_.evicted_bytes += size;
    derived().release(h);
  }

  /// The evicted h's entry leaves the table (a derived queue may keep it: ExactOwnedQueue for a
  /// policy's ghost entries).
  void release(Handle h) { table_.remove(h); }

  /// DRAM of the naive placement's allocator (none without it).
  size_t placement_queue_bytes() const { return placement_ ? placement_->queue_bytes() : 0; }

  ObjectTable& table_;
  EvictionSink sink_;
  uint64_t capacity_bytes_;
  uint64_t used_bytes_ = 0;
  FrameworkCounters counters_;
  std::unique_ptr<NaivePlacement> placement_;  // null with placement "none"
  uint64_t fragmentation_evictions_ = 0;

 private:
  Derived& derived() { return static_cast<Derived&>(*this); }
  const Derived& derived() const { return static_cast<const Derived&>(*this); }
};

}  // namespace flashpq
