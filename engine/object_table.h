// engine/object_table.h — the index map (key → cached object) and the slab of object entries.
//
// Every framework keeps its cached objects here. An object is named by a 32-bit Handle, the
// index of its entry in a slab; freed entries are recycled through a free list, so the steady
// state allocates nothing per request. The index (engine/key_index.h) stores 8-byte
// {fingerprint, handle} slots; the key lives once, in the entry (RIPQ paper §4.2 "Index Map").
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "engine/key_index.h"

namespace flashpq {

/// Names one cached object: the index of its entry in the ObjectTable's slab.
using Handle = uint32_t;
inline constexpr Handle kNoHandle = std::numeric_limits<Handle>::max();

/// One cached object. 32 bytes. The fields after `size_bytes` belong to whoever orders the
/// object (the framework: list links or heap position) and to the policy (`policy_state`).
struct ObjectEntry {
  uint64_t key = 0;
  /// Size the object occupies in the cache, in bytes (1 in unit-size mode).
  uint32_t size_bytes = 0;
  /// Intrusive list links (kNoHandle at the ends) or, for heap-ordered queues, `prev` holds the
  /// heap position. Owned by the framework.
  Handle prev = kNoHandle;
  Handle next = kNoHandle;
  /// Framework-owned small value: the segment or device block the object is in.
  uint32_t slot = 0;
  /// Policy-owned value: GDSF's access count n since insertion; unused by FIFO/LRU/SLRU.
  uint32_t policy_state = 0;
  /// Framework-owned spare value (RIPQ: the object's nominal relative priority as float bits).
  uint32_t aux = 0;
};
static_assert(sizeof(ObjectEntry) == 32);

/// The slab of entries plus the key index. Not thread-safe.
class ObjectTable {
 public:
  ObjectTable() : index_(KeyOf{&entries_}) {}
  ObjectTable(const ObjectTable&) = delete;
  ObjectTable& operator=(const ObjectTable&) = delete;

  /// Reserves room for `objects` entries and index slots, so that a run that never exceeds it
  /// allocates nothing after start-up.
  void reserve(size_t objects) {
    entries_.reserve(objects);
    index_.reserve(objects);
  }

  /// Returns the handle of the cached object with `key`, or kNoHandle.
  Handle find(uint64_t key) const {
    return index_.find(key);  // KeyIndex's empty marker is kNoHandle
  }

  /// Creates an entry for `key` (REQUIRES: not present) and indexes it. Returns its handle.
  Handle add(uint64_t key, uint32_t size_bytes) {
    Handle h;
    if (free_head_ != kNoHandle) {
      h = free_head_;
      free_head_ = entries_[h].next;
    } else {
      h = static_cast<Handle>(entries_.size());
      entries_.emplace_back();
    }
    entries_[h] = ObjectEntry{key, size_bytes, kNoHandle, kNoHandle, 0, 0, 0};
    index_.insert(key, h);
    ++live_;
    return h;
  }

  /// Removes the entry `h` from the index and recycles it. REQUIRES: h is live.
  void remove(Handle h) {
    index_.erase(entries_[h].key, h);
    entries_[h].next = free_head_;
    free_head_ = h;
    --live_;
  }

  ObjectEntry& operator[](Handle h) { return entries_[h]; }
  const ObjectEntry& operator[](Handle h) const { return entries_[h]; }

  /// Number of live (cached) objects.
  size_t size() const { return live_; }

  /// Bytes of DRAM held by the index and the slab, measured from their allocated capacities
  /// (index slots × 8 B + slab capacity × 32 B).
  size_t memory_bytes() const {
    return index_.memory_bytes() + entries_.capacity() * sizeof(ObjectEntry);
  }

 private:
  // The index sees the slab through a pointer to the vector (the vector object never moves;
  // its buffer may).
  struct KeyOf {
    const std::vector<ObjectEntry>* entries;
    uint64_t operator()(Handle h) const { return (*entries)[h].key; }
  };

  std::vector<ObjectEntry> entries_;
  KeyIndex<KeyOf> index_;
  Handle free_head_ = kNoHandle;
  size_t live_ = 0;
};

}  // namespace flashpq
