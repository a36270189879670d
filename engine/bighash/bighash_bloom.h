// engine/bighash/bighash_bloom.h — BigHash's per-bucket Bloom filters, as CacheLib's
// BloomFilter lays them out and hashes into them.
//
// Source: github.com/facebook/CacheLib at 278ffc74e3015608e385a87caba9f65f9d1113dd,
// cachelib/common/BloomFilter.cpp:30-33 (bitsToBytes), :64-81 (one filter of
// bitsToBytes(hashes × bits_per_hash) bytes per bucket, filters contiguous, all zero at start),
// :83-93 (set), :95-109 (couldExist), :111-116 (clear); cachelib/common/Hash.h:74-78
// (combineHashes = folly::hash::hash_128_to_64, hashInt = folly::hash::twang_mix64);
// cachelib/common/Utils.h:468-474 (bitSet/bitGet: byte bit/8, mask 1 << bit%8).
// docs/reference/navy-spec.md §3.4. Hash function i of a filter with m bits per hash sets bit i·m +
// (combineHashes(keyHash, twang_mix64(i)) mod m): a partitioned filter, one sub-table of m bits per
// hash function. The folly functions are written out below as the spec quotes them. Bit-exact with
// navy given navy's keyHash; FlashPQ's keyHash is another function of the key (bighash_queue.h), so
// the false positives are navy's statistically, not key by key.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace flashpq {

// folly's two functions, in a namespace of their own so another engine's copy cannot collide
// (engine/framework_headers.h includes every engine's headers together).
namespace bighash {

/// folly::hash::twang_mix64 (Thomas Wang's 64-bit mix), as in folly/hash/Hash.h.
constexpr uint64_t twang_mix64(uint64_t key) {
  key = (~key) + (key << 21);
  key = key ^ (key >> 24);
  key = key + (key << 3) + (key << 8);
  key = key ^ (key >> 14);
  key = key + (key << 2) + (key << 4);
  key = key ^ (key >> 28);
  key = key + (key << 31);
  return key;
}

/// folly::hash::hash_128_to_64 (CityHash's Hash128to64), as in folly/hash/Hash.h.
constexpr uint64_t hash_128_to_64(uint64_t upper, uint64_t lower) {
  constexpr uint64_t kMul = 0x9ddfea08eb382d69ULL;
  uint64_t a = (lower ^ upper) * kMul;
  a ^= (a >> 47);
  uint64_t b = (upper ^ a) * kMul;
  b ^= (b >> 47);
  b *= kMul;
  return b;
}

}  // namespace bighash

/// `filters` Bloom filters of `hashes` × `bits_per_hash` bits each, stored contiguously in
/// whole bytes (CacheLib's BloomFilter). Allocated once; no allocation per operation.
///
/// Counting (enable_counting): beside each bit, how many of the filter's keys set it (one byte),
/// so a key leaves a filter by erase() in O(hashes) instead of a rebuild from every remaining
/// key. The bits are then still exactly the union of the remaining keys' bits — what navy's
/// rebuild (bfRebuild) computes. A count that would pass 255 (a filter of over 255 keys, e.g.
/// a 4 KiB bucket of 1-byte objects) makes the filter's counts inexact: erase() then does
/// nothing for it and counts_exact() is false until the owner rebuilds it (clear() and set()
/// of every key). A simulator device only: the DRAM navy keeps is the bits (filter_bytes()).
class BucketBloomFilters {
 public:
  /// REQUIRES: 1 <= hashes <= kMaxHashes and bits_per_hash >= 1 (a disabled filter is not
  /// built). Throws std::invalid_argument otherwise.
  BucketBloomFilters(uint64_t filters, uint32_t hashes, uint32_t bits_per_hash)
      : hashes_(check(hashes, bits_per_hash)),
        bits_per_hash_(bits_per_hash),
        bit_mask_((bits_per_hash & (bits_per_hash - 1)) == 0 ? bits_per_hash - 1 : 0),
        filter_bytes_((uint64_t{hashes} * bits_per_hash + 7) / 8),
        filters_(filters),
        bits_(filters * filter_bytes_, 0) {
    for (uint32_t i = 0; i < hashes_; ++i) seeds_[i] = bighash::twang_mix64(i);
  }

  /// Keeps a count per bit from now on. REQUIRES: every filter empty.
  void enable_counting() {
    counts_.assign(filters_ * uint64_t{hashes_} * bits_per_hash_, 0);
    inexact_.assign(filters_, 0);
  }
  bool counting() const { return !counts_.empty(); }

  /// Adds `key_hash` to filter `idx` (BloomFilter::set); counted when counting.
  void set(uint64_t idx, uint64_t key_hash) {
    uint8_t* f = &bits_[idx * filter_bytes_];
    uint8_t* c = counts_.empty() ? nullptr : &counts_[idx * hashes_ * bits_per_hash_];
    uint64_t first = 0;
    for (uint32_t i = 0; i < hashes_; ++i) {
      const uint64_t bit = first + bit_of(key_hash, i);
      f[bit >> 3] |= static_cast<uint8_t>(1u << (bit & 7));
      if (c != nullptr) {
        if (c[bit] == 255) {
          inexact_[idx] = 1;
        } else {
          ++c[bit];
        }
      }
      first += bits_per_hash_;
    }
  }

  /// Whether filter `idx`'s counts are exact (no count overflowed since its last clear()).
  bool counts_exact(uint64_t idx) const { return inexact_[idx] == 0; }

  /// Takes `key_hash`, added before by set(), out of filter `idx`: a bit is cleared when no
  /// key left sets it. Does nothing when !counts_exact(idx): the owner rebuilds that filter.
  /// REQUIRES: counting().
  void erase(uint64_t idx, uint64_t key_hash) {
    if (inexact_[idx] != 0) return;
    uint8_t* f = &bits_[idx * filter_bytes_];
    uint8_t* c = &counts_[idx * hashes_ * bits_per_hash_];
    uint64_t first = 0;
    for (uint32_t i = 0; i < hashes_; ++i) {
      const uint64_t bit = first + bit_of(key_hash, i);
      if (--c[bit] == 0) f[bit >> 3] &= static_cast<uint8_t>(~(1u << (bit & 7)));
      first += bits_per_hash_;
    }
  }

  /// False when filter `idx` certainly lacks `key_hash` (BloomFilter::couldExist).
  bool could_exist(uint64_t idx, uint64_t key_hash) const {
    const uint8_t* f = &bits_[idx * filter_bytes_];
    uint64_t first = 0;
    for (uint32_t i = 0; i < hashes_; ++i) {
      const uint64_t bit = first + bit_of(key_hash, i);
      if ((f[bit >> 3] & (1u << (bit & 7))) == 0) return false;
      first += bits_per_hash_;
    }
    return true;
  }

  /// Empties filter `idx` (BloomFilter::clear), its counts too.
  void clear(uint64_t idx) {
    std::memset(&bits_[idx * filter_bytes_], 0, filter_bytes_);
    if (!counts_.empty()) {
      std::memset(&counts_[idx * hashes_ * bits_per_hash_], 0, uint64_t{hashes_} * bits_per_hash_);
      inexact_[idx] = 0;
    }
  }

  /// Whether filter `idx` holds exactly the bits of the keys whose hashes `hashes` lists (for
  /// tests: a filter kept by set/erase equals one rebuilt from its keys).
  template <class Range>
  bool equals_rebuilt(uint64_t idx, const Range& hashes) const {
    std::vector<uint8_t> rebuilt(filter_bytes_, 0);
    for (uint64_t kh : hashes) {
      uint64_t first = 0;
      for (uint32_t i = 0; i < hashes_; ++i) {
        const uint64_t bit = first + bit_of(kh, i);
        rebuilt[bit >> 3] |= static_cast<uint8_t>(1u << (bit & 7));
        first += bits_per_hash_;
      }
    }
    return std::memcmp(rebuilt.data(), &bits_[idx * filter_bytes_], filter_bytes_) == 0;
  }

  /// Bits set in filter `idx` (for tests: the filter's fill).
  uint32_t bits_set(uint64_t idx) const {
    uint32_t n = 0;
    for (uint64_t i = 0; i < filter_bytes_; ++i) {
      n += static_cast<uint32_t>(__builtin_popcount(bits_[idx * filter_bytes_ + i]));
    }
    return n;
  }

  /// Bytes of one filter: bitsToBytes(hashes × bits_per_hash) (8 for navy's default).
  uint64_t filter_bytes() const { return filter_bytes_; }
  uint32_t hashes() const { return hashes_; }
  uint32_t bits_per_hash() const { return bits_per_hash_; }
  /// DRAM held by the filters (allocated capacity), their counts included.
  size_t memory_bytes() const {
    return bits_.capacity() + counts_.capacity() + inexact_.capacity();
  }

  /// Navy builds at most this many hash functions here (kNumHashes = 4).
  static constexpr uint32_t kMaxHashes = 4;

 private:
  static uint32_t check(uint32_t hashes, uint32_t bits_per_hash) {
    if (hashes < 1 || hashes > kMaxHashes || bits_per_hash < 1) {
      throw std::invalid_argument(
          "BucketBloomFilters: expected 1 to 4 hash functions of at least "
          "1 bit, found " +
          std::to_string(hashes) + " of " + std::to_string(bits_per_hash));
    }
    return hashes;
  }

  // Bit of hash function i within its sub-table: combineHashes(keyHash, twang_mix64(i)) mod m,
  // by a mask when m is a power of two (navy's default, 16).
  uint64_t bit_of(uint64_t key_hash, uint32_t i) const {
    const uint64_t h = bighash::hash_128_to_64(key_hash, seeds_[i]);
    return bit_mask_ != 0 ? (h & bit_mask_) : h % bits_per_hash_;
  }

  uint32_t hashes_;
  uint32_t bits_per_hash_;
  uint64_t bit_mask_;  // bits_per_hash − 1 when it is a power of two above 1, else 0
  uint64_t filter_bytes_;
  uint64_t filters_;
  uint64_t seeds_[kMaxHashes] = {0, 0, 0, 0};
  std::vector<uint8_t> bits_;
  std::vector<uint8_t> counts_;   // by filter, hash function, bit: keys setting it (counting)
  std::vector<uint8_t> inexact_;  // by filter: 1 when a count overflowed since its clear()
};

}  // namespace flashpq
