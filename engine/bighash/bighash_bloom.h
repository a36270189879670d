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
class BucketBloomFilters {
 public:
  /// REQUIRES: 1 <= hashes <= kMaxHashes and bits_per_hash >= 1 (a disabled filter is not
  /// built). Throws std::invalid_argument otherwise.
  BucketBloomFilters(uint64_t filters, uint32_t hashes, uint32_t bits_per_hash)
      : hashes_(check(hashes, bits_per_hash)),
        bits_per_hash_(bits_per_hash),
        filter_bytes_((uint64_t{hashes} * bits_per_hash + 7) / 8),
        bits_(filters * filter_bytes_, 0) {
    for (uint32_t i = 0; i < hashes_; ++i) seeds_[i] = bighash::twang_mix64(i);
  }

  /// Adds `key_hash` to filter `idx` (BloomFilter::set).
  void set(uint64_t idx, uint64_t key_hash) {
    uint8_t* f = &bits_[idx * filter_bytes_];
    uint64_t first = 0;
    for (uint32_t i = 0; i < hashes_; ++i) {
      const uint64_t bit = first + bighash::hash_128_to_64(key_hash, seeds_[i]) % bits_per_hash_;
      f[bit >> 3] |= static_cast<uint8_t>(1u << (bit & 7));
      first += bits_per_hash_;
    }
  }

  /// False when filter `idx` certainly lacks `key_hash` (BloomFilter::couldExist).
  bool could_exist(uint64_t idx, uint64_t key_hash) const {
    const uint8_t* f = &bits_[idx * filter_bytes_];
    uint64_t first = 0;
    for (uint32_t i = 0; i < hashes_; ++i) {
      const uint64_t bit = first + bighash::hash_128_to_64(key_hash, seeds_[i]) % bits_per_hash_;
      if ((f[bit >> 3] & (1u << (bit & 7))) == 0) return false;
      first += bits_per_hash_;
    }
    return true;
  }

  /// Empties filter `idx` (BloomFilter::clear).
  void clear(uint64_t idx) { std::memset(&bits_[idx * filter_bytes_], 0, filter_bytes_); }

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
  /// DRAM held by the filters (allocated capacity).
  size_t memory_bytes() const { return bits_.capacity(); }

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

  uint32_t hashes_;
  uint32_t bits_per_hash_;
  uint64_t filter_bytes_;
  uint64_t seeds_[kMaxHashes] = {0, 0, 0, 0};
  std::vector<uint8_t> bits_;
};

}  // namespace flashpq
