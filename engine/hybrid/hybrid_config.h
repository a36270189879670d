// engine/hybrid/hybrid_config.h — the keys of the `hybrid` framework (CacheLib navy's
// small/large split; engine/hybrid/hybrid_queue.h) and the layout of its device.
//
//   framework.hybrid_small_item_max_size  objects of at most this many bytes (key + value) go
//                                         to BigHash, larger ones to BlockCache (CacheBench
//                                         navySmallItemMaxSize, default 2048 B: CacheConfig.h:197)
//   framework.hybrid_small_pct            BigHash's share of the device, % (navyBigHashSizePct,
//                                         CacheBench's default 50: docs/reference/navy-spec.md
//                                         §6.2)
// and the keys of both engines (framework.bighash_*, framework.blockcache_*).
#pragma once

#include <cstdint>

#include "sim/params.h"

namespace flashpq {

struct HybridConfig {
  /// Objects of at most this many bytes go to the small-object engine. Default 2048.
  uint32_t small_item_max_bytes = 2048;
  /// The small-object engine's share of the device, % in [1, 99]. Default 50.
  uint32_t small_pct = 50;

  /// Decodes `params`. Throws std::invalid_argument quoting the bad value and naming the key.
  static HybridConfig from(const Params& params);
};

/// Where each engine lies on a device of C bytes (navy's NavySetup.cpp:244-329).
struct HybridLayout {
  /// Navy's metadata area at offset 0 (0.5 % of the device, aligned to its logical block).
  uint64_t metadata_bytes = 0;
  /// BlockCache: whole regions from the end of the metadata.
  uint64_t large_offset = 0, large_bytes = 0;
  /// BigHash: whole buckets at the end of the device.
  uint64_t small_offset = 0, small_bytes = 0;
};

/// The layout of a hybrid cache of `capacity_bytes` on a device of logical block `granule`
/// bytes, its engines' sizes read from `params` (bucket and region size). Throws
/// std::invalid_argument naming the key and a value that works when the threshold exceeds
/// BigHash's largest item, or BigHash's share leaves no whole region for BlockCache or no bucket
/// for itself.
HybridLayout hybrid_layout(const HybridConfig& config, const Params& params,
                           uint64_t capacity_bytes, uint64_t granule);

extern const KeySpec kHybridSmallItemMaxSizeKey;
extern const KeySpec kHybridSmallPctKey;

}  // namespace flashpq
