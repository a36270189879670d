// engine/key_index.h — the index map of RIPQ §4.2: key → handle of the cached object.
//
// Open addressing with linear probing over 8-byte slots {32-bit fingerprint, 32-bit handle};
// the full 64-bit key lives once, in the object's entry, and is compared only when the
// fingerprint matches. The fingerprint is the top half of the hash and the home slot its top
// bits, so moving slots never needs the key (nor a load of its entry). Deletion shifts the
// following run back (Knuth's Algorithm R), so there are no tombstones and probe lengths stay
// those of a table that never saw a delete. The load factor stays at most 1/2: 16 B of DRAM per
// cached object at worst, 8 B just after growing. The hash (hash_key) is fixed and unseeded, so
// nothing about the table varies between runs (its order never reaches results anyway: it is
// never iterated).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace flashpq {

/// Mixes a 64-bit key (the MurmurHash3 fmix64 finaliser): consecutive keys land far apart.
inline uint64_t mix64(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  k ^= k >> 33;
  return k;
}

/// Hashes a key for the tables (KeyIndex, KeySet): the 128-bit product of the key and a fixed
/// odd constant, folded to 64 bits (high half xor low half) — the mixing step of Abseil's hash
/// and of wyhash. Every key bit reaches the top bits the tables use, in one multiplication
/// instead of mix64's two plus three shifts. Fixed and unseeded, like mix64.
inline uint64_t hash_key(uint64_t k) {
  const unsigned __int128 p = static_cast<unsigned __int128>(k) * 0x9E3779B97F4A7C15ULL;
  return static_cast<uint64_t>(p) ^ static_cast<uint64_t>(p >> 64);
}

/// A handle-valued hash index keyed by uint64_t. `KeyOf` maps a handle to its key: the index
/// stores only handles and asks KeyOf to confirm a fingerprint match.
/// REQUIRES: handles < 0xFFFFFFFF (that value marks an empty slot).
template <class KeyOf>
class KeyIndex {
 public:
  static constexpr uint32_t kEmpty = 0xFFFFFFFFu;

  explicit KeyIndex(KeyOf key_of) : key_of_(key_of) { rebuild(16); }

  /// Returns the handle stored for `key`, or kEmpty.
  uint32_t find(uint64_t key) const {
    const uint32_t fp = fingerprint(key);
    for (size_t i = home(fp);; i = (i + 1) & mask_) {
      const Slot s = slots_[i];
      if (s.handle == kEmpty) return kEmpty;
      if (s.fp == fp && key_of_(s.handle) == key) return s.handle;
    }
  }

  /// Stores `handle` for `key`. REQUIRES: key not present; key_of(handle) == key.
  void insert(uint64_t key, uint32_t handle) {
    if ((size_ + 1) * 2 > slots_.size()) rebuild(slots_.size() * 2);
    place(fingerprint(key), handle);
    ++size_;
  }

  /// Removes `key`, stored with `handle`. REQUIRES: key present with that handle. Slots are
  /// matched by handle (unique), so no entry is loaded to compare keys.
  void erase(uint64_t key, uint32_t handle) {
    size_t hole = home(fingerprint(key));
    while (slots_[hole].handle != handle) hole = (hole + 1) & mask_;
    // Backward-shift deletion (Knuth's Algorithm R): a later member of the run moves into the
    // hole when its home slot is no further from it than the hole is, cyclically.
    for (size_t j = (hole + 1) & mask_; slots_[j].handle != kEmpty; j = (j + 1) & mask_) {
      if (((j - home(slots_[j].fp)) & mask_) >= ((j - hole) & mask_)) {
        slots_[hole] = slots_[j];
        hole = j;
      }
    }
    slots_[hole] = Slot{};
    --size_;
  }

  /// Grows the table so that `objects` keys fit without rehashing.
  void reserve(size_t objects) {
    size_t cap = slots_.size();
    while (objects * 2 > cap) cap *= 2;
    if (cap != slots_.size()) rebuild(cap);
  }

  size_t size() const { return size_; }

  /// Bytes of DRAM the slots take.
  size_t memory_bytes() const { return slots_.capacity() * sizeof(Slot); }

 private:
  struct Slot {
    uint32_t fp = 0;
    uint32_t handle = kEmpty;
  };

  static uint32_t fingerprint(uint64_t key) { return static_cast<uint32_t>(hash_key(key) >> 32); }
  size_t home(uint32_t fp) const { return fp >> shift_; }

  void place(uint32_t fp, uint32_t handle) {
    size_t i = home(fp);
    while (slots_[i].handle != kEmpty) i = (i + 1) & mask_;
    slots_[i] = Slot{fp, handle};
  }

  void rebuild(size_t capacity) {  // capacity: a power of two in [16, 2^32]
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(capacity, Slot{});
    mask_ = capacity - 1;
    shift_ = 32;
    for (size_t c = capacity; c > 1; c >>= 1) --shift_;
    for (const Slot& s : old) {
      if (s.handle != kEmpty) place(s.fp, s.handle);
    }
  }

  KeyOf key_of_;
  std::vector<Slot> slots_;
  size_t mask_ = 0;
  unsigned shift_ = 32;  // home slot = fingerprint >> shift_ (its top log2(capacity) bits)
  size_t size_ = 0;
};

}  // namespace flashpq
