// engine/ghost_list.h — a ghost queue: the keys (and sizes) of objects a policy evicted recently,
// without their data, in eviction order, bounded in bytes (objects in unit-size mode).
//
// S3-FIFO's ghost (Yang et al., SOSP'23 §4), ARC's B1 and B2 (Megiddo & Modha, FAST'03 §III-B)
// and 2Q's A1out (Johnson & Shasha, VLDB'94 §2) are such queues: an object enters at the newest
// end when it leaves the cache, the oldest leaves when the queue is over its capacity, and a
// miss on a ghost key (a "ghost hit") removes it. Bounded as a FIFO cache of that capacity is
// (libCacheSim's fifo used as a ghost): an entry larger than the capacity never enters;
// otherwise the oldest leave until the new one fits.
//
// Layout: a ghost is looked up on every miss of its policy and one enters on most evictions, so
// each operation touches as few cache lines as it can.
//   * The index: open addressing with linear probing over 16-byte slots {key, ring position,
//     size}, load at most 5/8 (it doubles past it), the home slot the high bits of
//     hash_key(key) (engine/key_hash.h); a removal shifts the following slots of its run back
//     (Knuth 6.4, Algorithm R), so no tombstones accumulate. A lookup reads one line, mostly.
//   * The order: a ring of keys, oldest at `head_`, newest before `tail_` (positions count up;
//     a key's slot is at position & mask). A ghost hit does not touch the ring: the key's ring
//     entry stays, dead, and is recognised when it reaches the head, because the index no
//     longer holds that key at that position (it holds it nowhere, or at a newer position when
//     the key entered again). Dead entries at the head are dropped as it advances; when the
//     ring is full it is rewritten with the live entries only, in order (doubled first when
//     they fill half of it), which costs O(1) per push amortised.
// Positions and slots are fixed functions of the sequence of operations: nothing varies between
// runs, and nothing here is iterated where its order could reach a result (the ring is the
// order). A steady state allocates nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/key_hash.h"
#include "sim/prefetch.h"

namespace flashpq {

class GhostList {
 public:
  /// Capacity in bytes (objects in unit-size mode); 0 keeps nothing.
  explicit GhostList(uint64_t capacity_bytes = 0) : capacity_(capacity_bytes) {
    slots_.assign(kMinSlots, Slot{});
    ring_.assign(kMinSlots, 0);
  }
  GhostList(const GhostList&) = delete;
  GhostList& operator=(const GhostList&) = delete;

  void set_capacity(uint64_t capacity_bytes) {
    capacity_ = capacity_bytes;
    trim(0);
  }
  uint64_t capacity() const { return capacity_; }
  /// Sizes the index and ring for `ghosts` entries, so that a run within it allocates nothing.
  void reserve(size_t ghosts) {
    size_t slots = slots_.size();
    while (ghosts * 8 > slots * 5) slots *= 2;
    if (slots != slots_.size()) rehash(slots);
    size_t ring = ring_.size();
    while (ghosts * 2 > ring) ring *= 2;
    if (ring != ring_.size()) rewrite_ring(ring);
  }

  bool contains(uint64_t key) const { return ring_pos_of(key) != kEmpty; }

  /// Starts loading the slot where a lookup of `key` begins into the CPU cache (for a miss to
  /// come, engine/cache.h). No effect on the ghosts.
  void prefetch(uint64_t key) const { flashpq::prefetch(&slots_[home(key)]); }

  /// A ghost hit: removes `key` if it is a ghost. Returns whether it was.
  bool erase(uint64_t key) {
    for (size_t i = home(key);; i = (i + 1) & slot_mask_) {
      const Slot& s = slots_[i];
      if (s.pos == kEmpty) return false;
      if (s.key == key) {
        bytes_ -= s.size;
        remove_slot(i);
        return true;
      }
    }
  }

  /// Enters `key` at the newest end (REQUIRES: not a ghost): the oldest leave until it fits;
  /// an entry larger than the capacity does not enter.
  void push(uint64_t key, uint32_t size) {
    if (size > capacity_) return;
    trim(size);
    if (tail_ - head_ == ring_.size()) [[unlikely]] {
      drop_dead_head();
      if (tail_ - head_ == ring_.size()) {
        rewrite_ring(live_ * 2 > ring_.size() ? 2 * ring_.size() : ring_.size());
      }
    }
    const uint32_t pos = static_cast<uint32_t>(tail_ & ring_mask_);
    ring_[pos] = key;
    ++tail_;
    if ((live_ + 1) * 8 > slots_.size() * 5) [[unlikely]]
      rehash(2 * slots_.size());
    size_t i = home(key);
    while (slots_[i].pos != kEmpty) i = (i + 1) & slot_mask_;
    slots_[i] = Slot{key, pos, size};
    ++live_;
    bytes_ += size;
  }

  /// Drops the oldest entry; false when empty.
  bool pop_oldest() {
    drop_dead_head();
    if (head_ == tail_) return false;
    // The head is live (drop_dead_head): its slot holds it at this position.
    const uint64_t key = ring_[head_ & ring_mask_];
    size_t i = home(key);
    while (slots_[i].key != key || slots_[i].pos == kEmpty) i = (i + 1) & slot_mask_;
    bytes_ -= slots_[i].size;
    remove_slot(i);
    ++head_;
    // The next oldest leaves next: its slot is loaded while the caller goes on.
    if (head_ != tail_) prefetch(ring_[head_ & ring_mask_]);
    return true;
  }

  /// Bytes of the ghosts (objects in unit-size mode) and their number.
  uint64_t bytes() const { return bytes_; }
  size_t size() const { return live_; }
  /// DRAM of the ghosts: the index's slots and the ring, by their allocated capacities.
  size_t memory_bytes() const {
    return slots_.capacity() * sizeof(Slot) + ring_.capacity() * sizeof(uint64_t) + sizeof(*this);
  }

 private:
  static constexpr uint32_t kEmpty = UINT32_MAX;  // a free slot's ring position
  static constexpr size_t kMinSlots = 16;
  struct Slot {
    uint64_t key = 0;
    uint32_t pos = kEmpty;  // the key's position in the ring (masked)
    uint32_t size = 0;
  };
  static_assert(sizeof(Slot) == 16);

  size_t home(uint64_t key) const { return static_cast<size_t>(hash_key(key) >> slot_shift_); }

  // The ring position of `key`'s slot, or kEmpty.
  uint32_t ring_pos_of(uint64_t key) const {
    for (size_t i = home(key);; i = (i + 1) & slot_mask_) {
      const Slot& s = slots_[i];
      if (s.pos == kEmpty || s.key == key) return s.pos;
    }
  }

  // Frees slot i and moves back the entries of its run that may no longer be found past the
  // hole (Knuth 6.4 Algorithm R).
  void remove_slot(size_t i) {
    --live_;
    for (size_t j = i;;) {
      j = (j + 1) & slot_mask_;
      if (slots_[j].pos == kEmpty) break;
      const size_t h = home(slots_[j].key);
      // Slot j's entry may move to the hole i unless its home lies cyclically in (i, j].
      if (((j - h) & slot_mask_) >= ((j - i) & slot_mask_)) {
        slots_[i] = slots_[j];
        i = j;
      }
    }
    slots_[i] = Slot{};
  }

  // Advances the head past dead entries: keys the index holds nowhere or at another position.
  void drop_dead_head() {
    while (head_ != tail_) {
      const uint32_t pos = static_cast<uint32_t>(head_ & ring_mask_);
      if (ring_pos_of(ring_[pos]) == pos) return;
      ++head_;
    }
  }

  // The oldest leave until `incoming` more bytes fit.
  void trim(uint64_t incoming) {
    while (bytes_ + incoming > capacity_ && pop_oldest()) {
    }
  }

  // Rewrites the ring at `size` entries (a power of two) with the live entries only, oldest
  // first from position 0, and points their slots at their new positions.
  [[gnu::noinline]] void rewrite_ring(size_t size) {
    std::vector<uint64_t> ring(size, 0);
    uint64_t n = 0;
    for (uint64_t p = head_; p != tail_; ++p) {
      const uint32_t pos = static_cast<uint32_t>(p & ring_mask_);
      const uint64_t key = ring_[pos];
      size_t i = home(key);
      while (slots_[i].pos != kEmpty && (slots_[i].key != key || slots_[i].pos != pos)) {
        i = (i + 1) & slot_mask_;
      }
      if (slots_[i].pos == kEmpty) continue;  // dead
      slots_[i].pos = static_cast<uint32_t>(n);
      ring[n++] = key;
    }
    ring_.swap(ring);
    ring_mask_ = size - 1;
    head_ = 0;
    tail_ = n;
  }

  // Rebuilds the index at `size` slots (a power of two).
  [[gnu::noinline]] void rehash(size_t size) {
    std::vector<Slot> old(size, Slot{});
    old.swap(slots_);
    slot_mask_ = size - 1;
    slot_shift_ = 64 - static_cast<unsigned>(__builtin_ctzll(size));
    for (const Slot& s : old) {
      if (s.pos == kEmpty) continue;
      size_t i = home(s.key);
      while (slots_[i].pos != kEmpty) i = (i + 1) & slot_mask_;
      slots_[i] = s;
    }
  }

  std::vector<Slot> slots_;
  std::vector<uint64_t> ring_;
  size_t slot_mask_ = kMinSlots - 1;
  unsigned slot_shift_ = 64 - 4;  // log2(kMinSlots) = 4
  size_t ring_mask_ = kMinSlots - 1;
  uint64_t head_ = 0, tail_ = 0;  // ring positions, counting up
  size_t live_ = 0;
  uint64_t bytes_ = 0;
  uint64_t capacity_;
};

}  // namespace flashpq
