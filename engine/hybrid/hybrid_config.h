// engine/hybrid/hybrid_config.h — the keys of the `hybrid` framework (CacheLib navy's
// small/large split; engine/hybrid/hybrid_queue.h) and the layout of its device.
//
//   framework.hybrid_small_item_max_size  objects of at most this many bytes (key + value) go
//                                         to BigHash, larger ones to BlockCache (CacheBench
//                                         navySmallItemMaxSize, default 2048 B: CacheConfig.h:197)
//   framework.hybrid_small_pct            BigHash's share of the device, % (navyBigHashSizePct,
//                                         CacheBench's default 50: docs/reference/navy-spec.md
//                                         §6.2)
//   framework.hybrid_small_engine         bighash (navy's) or kangaroo: Kangaroo (engine/
//                                         kangaroo/) in BigHash's place, as CacheLib's Kangaroo
//                                         fork puts it beside BlockCache (McAllister et al.,
//                                         SOSP'21 §5: Kangaroo is CacheLib's small-object
//                                         cache, large objects stay in BlockCache)
// and the keys of the engines (framework.bighash_* or framework.kangaroo_*,
// framework.blockcache_*).
#pragma once

#include <cstdint>

#include "sim/params.h"

namespace flashpq {

struct HybridConfig {
  /// The small-object engine: navy's BigHash or Kangaroo.
  enum class SmallEngine { kBigHash, kKangaroo };
  SmallEngine small_engine = SmallEngine::kBigHash;
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
  /// The small-object engine at the end of the device: whole buckets (BigHash) or whole sets
  /// (Kangaroo, which lays its log and sets out inside this range).
  uint64_t small_offset = 0, small_bytes = 0;
};

/// The layout of a hybrid cache of `capacity_bytes` on a device of logical block `granule`
/// bytes, its engines' sizes read from `params` (bucket or set size, region size). Throws
/// std::invalid_argument naming the key and a value that works when the threshold exceeds the
/// small engine's largest item, or its share leaves no whole region for BlockCache or no bucket
/// (BigHash) or no valid log and set layout (Kangaroo, kangaroo_geometry()) for itself.
HybridLayout hybrid_layout(const HybridConfig& config, const Params& params,
                           uint64_t capacity_bytes, uint64_t granule);

extern const KeySpec kHybridSmallItemMaxSizeKey;
extern const KeySpec kHybridSmallPctKey;
extern const KeySpec kHybridSmallEngineKey;

}  // namespace flashpq
