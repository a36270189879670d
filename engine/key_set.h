// engine/key_set.h — an insert-only set of 64-bit keys (open addressing, linear probing).
//
// Used for "has this key ever been requested?" (compulsory misses) and the working-set pass:
// sets that only grow. Slots hold the keys themselves; 0 marks an empty slot and key 0 is kept
// in a flag. Load factor at most 1/2. The hash is hash_key, ObjectTable's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/key_hash.h"
#include "sim/prefetch.h"

namespace flashpq {

class KeySet {
 public:
  KeySet() { slots_.assign(16, 0); }

  /// Inserts key; returns true if it was not present.
  bool insert(uint64_t key) {
    if (key == 0) {
      const bool was = has_zero_;
      has_zero_ = true;
      size_ += was ? 0 : 1;
      return !was;
    }
    for (size_t i = home(key);; i = (i + 1) & mask_) {
      if (slots_[i] == key) return false;
      if (slots_[i] == 0) {
        slots_[i] = key;
        if (++size_ * 2 > slots_.size()) grow();
        return true;
      }
    }
  }

  /// Starts loading the slot where insert(key) begins probing into the CPU cache. No effect
  /// on the set.
  void prefetch(uint64_t key) const { flashpq::prefetch(&slots_[home(key)]); }

  /// Grows the table so that `keys` keys fit without rehashing.
  void reserve(size_t keys) {
    while (keys * 2 > slots_.size()) grow();
  }

  /// Number of distinct keys inserted.
  size_t size() const { return size_; }

 private:
  size_t home(uint64_t key) const { return hash_key(key) >> shift_; }

  void grow() {
    std::vector<uint64_t> old(slots_.size() * 2, 0);
    old.swap(slots_);
    mask_ = slots_.size() - 1;
    --shift_;
    for (const uint64_t k : old) {
      if (k == 0) continue;
      size_t i = home(k);
      while (slots_[i] != 0) i = (i + 1) & mask_;
      slots_[i] = k;
    }
  }

  std::vector<uint64_t> slots_;
  size_t mask_ = 15;
  unsigned shift_ = 60;  // home = hash >> shift_: the top log2(capacity) bits
  size_t size_ = 0;
  bool has_zero_ = false;
};

}  // namespace flashpq
