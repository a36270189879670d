// engine/lru_stack.h — LRU stack distances in one pass, object- and byte-wise.
//
// Source: Mattson, Gecsei, Slutz, Traiger, "Evaluation techniques for storage hierarchies", IBM
// Systems Journal 9(2), 1970 (the LRU stack and its inclusion property: a request hits an LRU
// cache of C objects iff its stack distance is at most C); Olken, "Efficient methods for
// calculating the success function of fixed space replacement policies", LBL-12370, 1981 (the
// distance as a count of the distinct keys requested since the key's last request, kept in a
// balanced tree over request times: here a Fenwick tree, Fenwick, Software—Practice and
// Experience 24(3), 1994).
//
// Every request leaves a marker at its position (a request counter); a key's marker is its last
// request. Counted in objects, the stack distance of a request for key x is 1 + the number of
// live markers after x's marker: the distinct keys requested since. Counted in bytes, it is the
// bytes of those keys plus x's own size: the bytes of the stack's prefix down to and including
// x. A Fenwick tree counts the markers that died (superseded by a later request of their key,
// or deleted), or their bytes, so a distance costs one prefix query and one update, O(log P)
// for P positions; the bytes of all markers ever placed are a running prefix sum. Positions are
// renumbered (live markers kept in order, the tree emptied) when they run out, at P = 2 × live keys
// + 1024, so P and the memory stay proportional to the distinct keys, not to the trace's length:
// about 90 B per key (the ObjectTable's 28-32 B entry and bucket, and per position a handle, a
// prefix sum and an 8-byte tree node; counted in objects, a handle and a 4-byte node).
//
// When this equals an LRU cell (engine/cache.h on the exact framework, policy lru) is stated in
// docs/guide/curves.md: in unit-size mode, without deletes; with sizes, also without a key that
// changes its size and without a request larger than the capacity.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/object_table.h"

namespace flashpq {

class LruStack {
 public:
  /// What a distance counts: objects (every key weighs 1: unit-size mode) or bytes.
  enum class Measure { kObjects, kBytes };

  /// What touch() found: whether the key was in the stack, and if so its stack distance
  /// (objects: ≥ 1, 1 the top; bytes: the sizes of the keys above it plus its size before this
  /// request), and that size.
  struct Reuse {
    bool seen = false;
    uint64_t distance = 0;
    uint32_t previous_size = 0;
  };

  explicit LruStack(Measure measure) : bytes_(measure == Measure::kBytes) { renumber(0); }
  LruStack(const LruStack&) = delete;
  LruStack& operator=(const LruStack&) = delete;

  /// Sizes the key table for `keys` distinct keys, so that a run within it allocates less.
  void reserve(size_t keys) { table_.reserve(keys); }

  /// A request for `key` of `size_bytes` (a get or a set): returns its distance, then moves the
  /// key to the top of the stack with this size.
  Reuse touch(uint64_t key, uint32_t size_bytes);

  /// Starts loading what touch(key) reads first (its index bucket). No effect on the stack.
  void prefetch(uint64_t key) const { table_.prefetch_bucket(key); }
  /// Then, once the bucket has arrived, the first entry of its chain.
  void prefetch_entry(uint64_t key) const { table_.prefetch_entry(key); }

  /// Whether `key` is in the stack.
  bool contains(uint64_t key) const { return table_.find(key) != kNoHandle; }

  /// A delete: takes `key` out of the stack. Returns whether it was there.
  bool remove(uint64_t key);

  /// Distinct keys in the stack and the sum of their sizes.
  size_t keys() const { return table_.size(); }
  uint64_t bytes() const { return live_bytes_; }

  /// DRAM held, from allocated capacities.
  size_t memory_bytes() const {
    return table_.memory_bytes() + at_.capacity() * sizeof(Handle) +
           before_.capacity() * sizeof(uint64_t) + dead_count_.capacity() * sizeof(uint32_t) +
           dead_bytes_.capacity() * sizeof(uint64_t);
  }

 private:
  // Places h's marker at the next position.
  void place(Handle h, uint32_t size) {
    if (next_ == at_.size()) renumber(table_.size());
    const uint32_t p = next_++;
    at_[p] = h;
    table_[h].slot = p;
    if (bytes_) before_[p + 1] = before_[p] + size;
  }

  // Marks position p dead (its key's marker moved or was deleted), `size` its size.
  void kill(uint32_t p, uint32_t size) {
    at_[p] = kNoHandle;
    if (bytes_) {
      const size_t n = dead_bytes_.size();
      for (size_t i = size_t{p} + 1; i < n; i += i & (~i + 1)) dead_bytes_[i] += size;
      dead_total_ += size;
    } else {
      const size_t n = dead_count_.size();
      for (size_t i = size_t{p} + 1; i < n; i += i & (~i + 1)) dead_count_[i] += 1;
      dead_total_ += 1;
    }
  }

  // The weight (count or bytes) of the dead markers at positions 0..p.
  uint64_t dead_through(uint32_t p) const {
    uint64_t s = 0;
    if (bytes_) {
      for (size_t i = size_t{p} + 1; i > 0; i &= i - 1) s += dead_bytes_[i];
    } else {
      for (size_t i = size_t{p} + 1; i > 0; i &= i - 1) s += dead_count_[i];
    }
    return s;
  }

  // Renumbers the live markers 0.. in order and makes room for 2 × `keys` + 1024 positions.
  void renumber(size_t keys);

  bool bytes_;                    // Measure::kBytes
  ObjectTable table_;             // key → entry: slot = its marker's position, size_bytes = size
  std::vector<Handle> at_;        // position → the key whose marker it is, or kNoHandle (dead)
  std::vector<uint64_t> before_;  // bytes: before_[p] = bytes of the markers placed before p
  // Fenwick trees (1-based) of the dead markers' counts (objects) or bytes.
  std::vector<uint32_t> dead_count_;
  std::vector<uint64_t> dead_bytes_;
  uint64_t dead_total_ = 0;  // the tree's total
  uint64_t live_bytes_ = 0;
  uint32_t next_ = 0;  // the next position
};

}  // namespace flashpq
