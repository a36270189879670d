// engine/bighash/bighash_config.cpp — BigHash's keys, checks and layout
// (engine/bighash/bighash_config.h, engine/bighash/bighash_queue.h).
#include "engine/bighash/bighash_config.h"

#include <algorithm>
#include <bit>
#include <stdexcept>

#include "engine/bighash/bighash_queue.h"
#include "engine/queue.h"
#include "fmt/format.h"

namespace flashpq {

const KeySpec kBigHashBucketSizeKey =
    key("framework.bighash_bucket_size", ValueType::kSize)
        .def("4KiB")
        .units("bytes")
        .range(64, 1 << 30)
        .desc(
            "BigHash bucket size B, the unit read and written: a power of two, a multiple of the "
            "device's logical block (navy navyBigHashBucketSize, default 4KiB)");

const KeySpec kBigHashBloomFilterBitsKey =
    key("framework.bighash_bloom_filter_bits", ValueType::kInt)
        .def("64")
        .units("bits")
        .range(0, 65536)
        .desc(
            "Bloom filter bits per bucket, 4 hash functions of bits/4 each, a multiple of 8; 0 = "
            "no filter (navy navyBloomFilterPerBucketSize 8 bytes = 64)");

BigHashConfig BigHashConfig::from(const Params& params) {
  BigHashConfig c;
  const uint64_t b = params.get<uint64_t>(kBigHashBucketSizeKey);
  if (!std::has_single_bit(b)) {
    throw std::invalid_argument(fmt::format(
        "key '{}': expected a power of two (navy BigHash.cpp:41-44), found '{}' ({} bytes): use "
        "{}",
        kBigHashBucketSizeKey.name, params.text(kBigHashBucketSizeKey.name), b,
        exact_size_text(std::bit_floor(b))));
  }
  c.bucket_bytes = static_cast<uint32_t>(b);
  const uint32_t bits = params.get<uint32_t>(kBigHashBloomFilterBitsKey);
  if (bits % 8 != 0) {
    throw std::invalid_argument(fmt::format(
        "key '{}': expected a multiple of 8 (navy sizes the filter in whole bytes), found '{}': "
        "use {}",
        kBigHashBloomFilterBitsKey.name, params.text(kBigHashBloomFilterBitsKey.name),
        std::max<uint32_t>(8, bits / 8 * 8)));
  }
  c.bloom_filter_bits = bits;
  return c;
}

uint64_t bighash_buckets(const BigHashConfig& c, uint64_t capacity_bytes, uint64_t granule) {
  const uint64_t g = std::max<uint64_t>(1, granule);
  const uint64_t b = c.bucket_bytes;
  if (b % g != 0) {
    // The smallest power of two that is a multiple of the granule and at least B.
    uint64_t fix = b;
    while (fix % g != 0) fix *= 2;
    throw std::invalid_argument(fmt::format(
        "framework bighash: framework.bighash_bucket_size = {} B is not a multiple of the "
        "device's logical block of {} B (navy NavySetup.cpp:111-115): use "
        "framework.bighash_bucket_size: {}",
        b, g, exact_size_text(fix)));
  }
  const uint64_t buckets = capacity_bytes / b;
  if (buckets == 0) {
    std::string fixes;
    // The largest power of two within C that is a multiple of the granule and at least 64 B.
    const uint64_t fit = capacity_bytes >= 1 ? std::bit_floor(capacity_bytes) : 0;
    if (fit >= std::max<uint64_t>(64, g) && fit % g == 0) {
      fixes = fmt::format("framework.bighash_bucket_size: {} or less; or ", exact_size_text(fit));
    }
    throw std::invalid_argument(fmt::format(
        "framework bighash: the cache's {} B hold no bucket of framework.bighash_bucket_size = "
        "{} B: use {}a cache of at least {} B",
        capacity_bytes, b, fixes, b));
  }
  if (buckets > kBigHashMaxBuckets) {
    uint64_t fix = b;
    while (capacity_bytes / fix > kBigHashMaxBuckets) fix *= 2;
    throw std::invalid_argument(fmt::format(
        "framework bighash: the cache's {} B make {} buckets of {} B, more than the 2^32 navy "
        "addresses (BigHash.cpp:46-51): use framework.bighash_bucket_size: {} or more",
        capacity_bytes, buckets, b, exact_size_text(fix)));
  }
  return buckets;
}

const ComponentSpec& BigHashFramework::spec() {
  static const ComponentSpec spec{
      "bighash",
      "CacheLib navy's BigHash (small objects): buckets of B bytes, FIFO within a bucket, every "
      "insert a read-modify-write of its bucket, a Bloom filter per bucket in DRAM",
      // framework.read_hits first, as no key of this engine precedes it in the section's order.
      {kReadHitsKey, kPlacementHandlesKey, kBigHashBucketSizeKey, kBigHashBloomFilterBitsKey},
      engine_requirements("bighash"),
      {},
      {}};
  return spec;
}

FrameworkLayout BigHashFramework::layout(const Params& params, const CacheShape& shape) {
  if (shape.unit_size) {
    throw std::invalid_argument(
        "framework bighash: cache.unit_size is true, but BigHash lays out bytes (buckets of "
        "framework.bighash_bucket_size): set cache.unit_size: false");
  }
  const BigHashConfig c = BigHashConfig::from(params);
  const uint64_t buckets = bighash_buckets(c, shape.capacity_bytes, shape.granule);
  FrameworkLayout layout;
  layout.block_bytes = c.bucket_bytes;
  layout.block_basis = "framework.bighash_bucket_size";
  layout.device_bytes = buckets * c.bucket_bytes;
  layout.places_objects = true;
  layout.reads_unwritten_blocks = true;  // an insert reads its bucket first, written or not
  const uint64_t max_item = c.bucket_bytes - kBigHashBucketHeaderBytes - kBigHashEntryOverheadBytes;
  if (shape.sizes != nullptr && shape.sizes->total() > 0) {
    const uint64_t above = shape.sizes->count_above(max_item);
    if (100 * above >= shape.sizes->total()) {
      layout.notes.push_back(fmt::format(
          "framework bighash: at least {:.1f} % of the requests are for objects larger than "
          "the {} B a bucket of {} B holds (B - 44; the largest is {} B), which it never "
          "caches: raise framework.bighash_bucket_size (navy sends such objects to its "
          "BlockCache)",
          100.0 * static_cast<double>(above) / static_cast<double>(shape.sizes->total()), max_item,
          c.bucket_bytes, shape.largest_object_bytes));
    }
  }
  if (c.bloom_filter_bits == 0) {
    layout.notes.push_back(
        "framework bighash: framework.bighash_bloom_filter_bits = 0 turns the Bloom filters "
        "off: every get miss reads its bucket from flash (navy's default is 64)");
  }
  return layout;
}

}  // namespace flashpq
