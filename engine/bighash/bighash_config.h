// engine/bighash/bighash_config.h — the keys of the `bighash` framework (CacheLib navy's BigHash,
// the small-object engine; engine/bighash/bighash_queue.h).
//
//   framework.bighash_bucket_size          bucket size B (default 4KiB, navy's
//                                          BigHash::Config::bucketSize, BigHash.h:67, and
//                                          NavyConfig.h:762; CacheBench navyBigHashBucketSize)
//   framework.bighash_bloom_filter_bits    Bloom filter bits per bucket (default 64 = navy's
//                                          bucketBfSize of 8 bytes, NavyConfig.h:764; CacheBench
//                                          navyBloomFilterPerBucketSize; 0 = no filter)
// and framework.read_hits (engine/queue.h).
//
// Source: github.com/facebook/CacheLib at 278ffc74e3015608e385a87caba9f65f9d1113dd
// (docs/reference/navy-spec.md §3, §1.2, §9). Navy's rules the keys obey:
//   * B is a power of two (BigHash.cpp:41-44) and a multiple of the device's I/O alignment
//     (NavySetup.cpp:111-115): here, of the device's logical block;
//   * the cache holds at least one bucket (BigHash.cpp:34-39: cacheSize >= bucketSize) and at
//     most 2^32 (BigHash.cpp:46-51: bucket ids are 32-bit);
//   * the filter is configured in whole bytes, with 4 hash functions of bytes·8/4 bits each
//     (NavySetup.cpp:128-138), so the bits are a multiple of 8.
#pragma once

#include <cstdint>
#include <string>

#include "sim/params.h"

namespace flashpq {

/// What BigHash reads of the framework section.
struct BigHashConfig {
  /// Bucket size B in bytes: the unit BigHash reads and writes. A power of two in
  /// [64 B, 1 GiB]. Default 4096 (navy).
  uint32_t bucket_bytes = 4096;
  /// Bloom filter bits per bucket: 0 (no filter: every lookup reads its bucket) or a multiple
  /// of 8 in [8, 65536], split over 4 hash functions. Default 64 (navy's 8 bytes).
  uint32_t bloom_filter_bits = 64;

  /// Decodes `params` (framework.* keys; unset keys take their defaults). Throws
  /// std::invalid_argument quoting the bad value and naming the key.
  static BigHashConfig from(const Params& params);
};

/// Navy's constants (docs/reference/navy-spec.md §3.2, §3.4).
/// The bucket header: checksum u32, generationTime u64 and BucketStorage's capacity,
/// numAllocations and endOffset u32, packed (Bucket.cpp:24-26, BucketStorage.cpp:20-22).
inline constexpr uint32_t kBigHashBucketHeaderBytes = 24;
/// Per entry: the BucketStorage slot header {size u32} (kAllocationOverhead,
/// BucketStorage.cpp:24) and the 16-byte BucketEntry {keySize, valueSize u32, keyHash u64}
/// (Bucket.h:138-181).
inline constexpr uint32_t kBigHashEntryOverheadBytes = 4 + 16;
/// Hash functions of each bucket's filter (NavySetup.cpp:134: kNumHashes = 4).
inline constexpr uint32_t kBigHashBloomHashes = 4;
/// Most buckets navy addresses (BigHash.cpp:46-51).
inline constexpr uint64_t kBigHashMaxBuckets = uint64_t{1} << 32;

/// The buckets a cache of `capacity_bytes` holds, ⌊C/B⌋, on a device of logical block
/// `granule` bytes (>= 1). Throws std::invalid_argument naming the key and a value that works
/// when B is not a multiple of the granule, when C holds no bucket, or more than 2^32.
uint64_t bighash_buckets(const BigHashConfig& config, uint64_t capacity_bytes, uint64_t granule);

extern const KeySpec kBigHashBucketSizeKey;
extern const KeySpec kBigHashBloomFilterBitsKey;

}  // namespace flashpq
