// engine/hybrid/hybrid_config.cpp — the hybrid's keys, layout and framework registration.
#include "engine/hybrid/hybrid_config.h"

#include <optional>
#include <stdexcept>

#include "engine/bighash/bighash_config.h"
#include "engine/blockcache/blockcache_config.h"
#include "engine/hybrid/hybrid_queue.h"
#include "engine/kangaroo/kangaroo_config.h"
#include "engine/kangaroo/kangaroo_queue.h"
#include "engine/queue.h"
#include "fmt/format.h"

namespace flashpq {

const KeySpec kHybridSmallItemMaxSizeKey =
    key("framework.hybrid_small_item_max_size", ValueType::kSize)
        .def("2048")
        .units("bytes")
        .range(1, 1 << 30)
        .desc(
            "objects of at most this many bytes (key + value) go to BigHash, larger ones to "
            "BlockCache (navy smallItemMaxSize; CacheBench navySmallItemMaxSize)");
const KeySpec kHybridSmallPctKey =
    key("framework.hybrid_small_pct", ValueType::kInt)
        .def("50")
        .units("%")
        .range(1, 99)
        .desc("the small-object engine's share of the device (CacheBench navyBigHashSizePct)");
const KeySpec kHybridSmallEngineKey =
    key("framework.hybrid_small_engine", ValueType::kEnum)
        .def("bighash")
        .choices({"bighash", "kangaroo"})
        .desc(
            "the small-object engine beside BlockCache: navy's BigHash, or Kangaroo (its keys "
            "framework.kangaroo_*)");

HybridConfig HybridConfig::from(const Params& params) {
  HybridConfig c;
  c.small_item_max_bytes = params.get<uint32_t>(kHybridSmallItemMaxSizeKey);
  c.small_pct = params.get<uint32_t>(kHybridSmallPctKey);
  c.small_engine = params.get<std::string>(kHybridSmallEngineKey) == "kangaroo"
                       ? HybridConfig::SmallEngine::kKangaroo
                       : HybridConfig::SmallEngine::kBigHash;
  return c;
}

namespace {
uint64_t align_up(uint64_t v, uint64_t a) {
  return (v + a - 1) / a * a;
}
uint64_t align_down(uint64_t v, uint64_t a) {
  return v / a * a;
}
}  // namespace

HybridLayout hybrid_layout(const HybridConfig& config, const Params& params,
                           uint64_t capacity_bytes, uint64_t granule) {
  const bool kangaroo = config.small_engine == HybridConfig::SmallEngine::kKangaroo;
  const BlockCacheConfig bc = BlockCacheConfig::from(params);
  const uint64_t g = std::max<uint64_t>(1, granule);
  // The small engine's unit (its range starts and ends on one) and largest item.
  uint64_t unit = 0, max_small = 0;
  std::string what, unit_key;
  std::optional<KangarooConfig> kc;
  if (kangaroo) {
    kc = KangarooConfig::from(params);
    unit = kc->set_bytes;
    max_small = KangarooQueue::max_object_bytes(*kc);
    what = fmt::format("a {}-byte Kangaroo page and {}-byte set both hold", kc->page_bytes,
                       kc->set_bytes);
    unit_key = kKangarooSetSizeKey.name;
  } else {
    const BigHashConfig bh = BigHashConfig::from(params);
    unit = bh.bucket_bytes;
    max_small = bh.bucket_bytes - kBigHashBucketHeaderBytes - kBigHashEntryOverheadBytes;
    what = fmt::format("a {}-byte BigHash bucket holds", bh.bucket_bytes);
    unit_key = kBigHashBucketSizeKey.name;
  }
  if (config.small_item_max_bytes > max_small) {
    throw std::invalid_argument(
        fmt::format("{}: {} bytes exceeds the largest item {} ({} bytes): use {} or less, or a "
                    "larger {}",
                    kHybridSmallItemMaxSizeKey.name, config.small_item_max_bytes, what, max_small,
                    max_small, unit_key));
  }
  const uint64_t d = capacity_bytes;
  HybridLayout l;
  // NavySetup.cpp:74-90: 0.5 % of the device, aligned to the I/O unit.
  l.metadata_bytes = align_up((d / 200) & ~(g - 1), g);
  // NavySetup.cpp:294-295, 117-120: BigHash at the end, in whole buckets (Kangaroo: whole
  // sets; it lays its log and sets out inside its range).
  const uint64_t reserved = d * config.small_pct / 100;
  l.small_offset = align_up(d - reserved, unit);
  l.small_bytes = l.small_offset < d ? align_down(d - l.small_offset, unit) : 0;
  // NavySetup.cpp:299-307: BlockCache from the metadata's end, in whole regions.
  l.large_offset = l.metadata_bytes;
  l.large_bytes = l.small_offset > l.metadata_bytes
                      ? align_down(l.small_offset - l.metadata_bytes, bc.region_bytes)
                      : 0;
  if (l.small_bytes == 0) {
    throw std::invalid_argument(
        fmt::format("{}: {} % of a {}-byte cache holds no {}-byte {}: raise it or the cache",
                    kHybridSmallPctKey.name, config.small_pct, d, unit,
                    kangaroo ? "Kangaroo set" : "BigHash bucket"));
  }
  if (kangaroo) {
    try {
      kangaroo_geometry(*kc, l.small_bytes, g);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(
          fmt::format("{}: Kangaroo's {} % of a {}-byte cache ({} bytes) cannot be laid out: {}",
                      kHybridSmallPctKey.name, config.small_pct, d, l.small_bytes, e.what()));
    }
  }
  if (l.large_bytes == 0) {
    throw std::invalid_argument(fmt::format(
        "{}: {} % of a {}-byte cache leaves no whole {}-byte BlockCache region (navy's \"Invalid "
        "layout\"): lower it, or lower {}",
        kHybridSmallPctKey.name, config.small_pct, d, bc.region_bytes,
        kBlockCacheRegionSizeKey.name));
  }
  return l;
}

const ComponentSpec& HybridFramework::spec() {
  static const ComponentSpec spec = [] {
    ComponentSpec s{"hybrid",
                    "CacheLib navy's hybrid: BigHash (or Kangaroo) for small objects and "
                    "BlockCache for large ones on one device, split by object size and a device "
                    "share",
                    {kReadHitsKey, kPlacementHandlesKey, kHybridSmallItemMaxSizeKey,
                     kHybridSmallPctKey, kHybridSmallEngineKey},
                    engine_requirements("hybrid"),
                    {},
                    {}};
    // Both engines' keys, in their own orders (framework.read_hits and
    // framework.placement_handles, in each, are the hybrid's own, first).
    for (const ComponentSpec* e :
         {&BigHashFramework::spec(), &KangarooFramework::spec(), &BlockCacheFramework::spec()}) {
      for (const KeySpec& k : e->keys) {
        if (k.name != kReadHitsKey.name && k.name != kPlacementHandlesKey.name) s.keys.push_back(k);
      }
    }
    return s;
  }();
  return spec;
}

FrameworkLayout HybridFramework::layout(const Params& params, const CacheShape& shape) {
  if (shape.unit_size) {
    throw std::invalid_argument(
        "framework hybrid: cache.unit_size is true, but navy's engines lay out bytes: set "
        "cache.unit_size: false");
  }
  const HybridConfig c = HybridConfig::from(params);
  const HybridLayout l = hybrid_layout(c, params, shape.capacity_bytes, shape.granule);
  FrameworkLayout layout;
  layout.block_bytes = BlockCacheConfig::from(params).region_bytes;
  layout.block_basis = "region size (" + kBlockCacheRegionSizeKey.name + ")";
  layout.device_bytes = l.small_offset + l.small_bytes;
  layout.places_objects = true;
  layout.reads_unwritten_blocks = true;  // BigHash (Kangaroo) reads a bucket (set) before its
                                         // first write
  if (shape.sizes != nullptr && shape.sizes->total() > 0) {
    const uint64_t large = shape.sizes->count_above(c.small_item_max_bytes);
    const uint64_t total = shape.sizes->total();
    if (100 * large < total || 100 * (total - large) < total) {
      layout.notes.push_back(fmt::format(
          "framework hybrid: {:.1f} % of the requests are for objects of at most {} B "
          "(BigHash), the rest for BlockCache: one engine takes nearly all of them while "
          "{} % and {} % of the device are theirs; set {} or {}",
          100.0 * static_cast<double>(total - large) / static_cast<double>(total),
          c.small_item_max_bytes, c.small_pct, 100 - c.small_pct, kHybridSmallItemMaxSizeKey.name,
          kHybridSmallPctKey.name));
    }
  }
  return layout;
}

}  // namespace flashpq
