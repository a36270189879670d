// engine/ghost_list.h — a ghost queue: the keys (and sizes) of objects a policy evicted recently,
// without their data, in eviction order, bounded in bytes (objects in unit-size mode).
//
// S3-FIFO's ghost (Yang et al., SOSP'23 §4), ARC's B1 and B2 (Megiddo & Modha, FAST'03 §III-B)
// and 2Q's A1out (Johnson & Shasha, VLDB'94 §2) are such queues: an object enters at the newest
// end when it leaves the cache, the oldest leaves when the queue is over its capacity, and a
// miss on a ghost key (a "ghost hit") removes it. The entries live in an ObjectTable of their
// own (engine/object_table.h: a slab and a chained index, 28 B per ghost, recycled through its
// free list) linked by an IntrusiveList, so a steady state allocates nothing. Bounded as a FIFO
// cache of that capacity is (libCacheSim's fifo used as a ghost): an entry larger than the
// capacity never enters; otherwise the oldest leave until the new one fits.
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/intrusive_list.h"
#include "engine/object_table.h"

namespace flashpq {

class GhostList {
 public:
  /// Capacity in bytes (objects in unit-size mode); 0 keeps nothing.
  explicit GhostList(uint64_t capacity_bytes = 0) : capacity_(capacity_bytes) {}
  GhostList(const GhostList&) = delete;
  GhostList& operator=(const GhostList&) = delete;

  void set_capacity(uint64_t capacity_bytes) {
    capacity_ = capacity_bytes;
    trim(0);
  }
  uint64_t capacity() const { return capacity_; }
  /// Sizes the index for `ghosts` entries, so that a run within it allocates nothing.
  void reserve(size_t ghosts) { table_.reserve(ghosts); }

  bool contains(uint64_t key) const { return table_.find(key) != kNoHandle; }

  /// A ghost hit: removes `key` if it is a ghost. Returns whether it was.
  bool erase(uint64_t key) {
    // Moved to the front of its chain, so that remove() finds it first.
    const Handle h = table_.find_to_front(key);
    if (h == kNoHandle) return false;
    list_.unlink(table_, h);
    table_.remove(h);
    return true;
  }

  /// Enters `key` at the newest end (REQUIRES: not a ghost): the oldest leave until it fits;
  /// an entry larger than the capacity does not enter.
  void push(uint64_t key, uint32_t size) {
    if (size > capacity_) return;
    trim(size);
    const Handle h = table_.add(key, size);
    list_.push_front(table_, h);
  }

  /// Drops the oldest entry; false when empty.
  bool pop_oldest() {
    const Handle t = list_.tail;
    if (t == kNoHandle) return false;
    list_.unlink(table_, t);
    table_.remove(t);
    return true;
  }

  /// Bytes of the ghosts (objects in unit-size mode) and their number.
  uint64_t bytes() const { return list_.bytes; }
  size_t size() const { return table_.size(); }
  /// DRAM of the ghosts: their table and index.
  size_t memory_bytes() const { return table_.memory_bytes() + sizeof(list_); }

 private:
  // The oldest leave until `incoming` more bytes fit.
  void trim(uint64_t incoming) {
    while (list_.bytes + incoming > capacity_ && pop_oldest()) {
    }
  }

  ObjectTable table_;
  IntrusiveList list_;
  uint64_t capacity_;
};

}  // namespace flashpq
