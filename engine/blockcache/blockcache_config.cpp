// engine/blockcache/blockcache_config.cpp — the blockcache framework's keys, geometry and
// layout (engine/blockcache/blockcache_config.h, blockcache_queue.h).
#include "engine/blockcache/blockcache_config.h"

#include <algorithm>
#include <bit>
#include <stdexcept>

#include "engine/blockcache/blockcache_queue.h"
#include "engine/queue.h"
#include "fmt/format.h"

namespace flashpq {

const KeySpec kBlockCacheRegionSizeKey =
    key("framework.blockcache_region_size", ValueType::kSize)
        .def("16MiB")
        .units("bytes")
        .range(512, 1073741824)
        .desc(
            "navy BlockCache region size: the unit buffered in DRAM and written to flash whole; "
            "a multiple of 512 B, at most 1 GiB (navyRegionSizeMB)");

const KeySpec kBlockCacheCleanRegionsKey =
    key("framework.blockcache_clean_regions", ValueType::kInt)
        .def("1")
        .units("regions")
        .range(1, 65536)
        .desc(
            "navy BlockCache clean-region pool C (navyCleanRegions); 2*C in-memory region "
            "buffers");

const KeySpec kBlockCacheRegionEvictionKey =
    key("framework.blockcache_region_eviction", ValueType::kEnum)
        .def("lru")
        .choices({"fifo", "lru", "sfifo", "s3fifo"})
        .desc(
            "navy BlockCache region eviction policy (navy's default: lru); s3fifo: S3-FIFO's "
            "small and main logs of regions and a ghost, which decide reinsertion themselves");

const KeySpec kBlockCacheSfifoSegmentRatioKey =
    key("framework.blockcache_sfifo_segment_ratio", ValueType::kString)
        .def("1,1")
        .yaml_list()
        .desc(
            "navy BlockCache segmented-FIFO segment ratios, lowest priority first, positive "
            "integers (navySegmentedFifoSegmentRatio), at most 16");

const KeySpec kBlockCacheSfifoPrioritiesKey =
    key("framework.blockcache_sfifo_priorities", ValueType::kBool)
        .def("false")
        .desc(
            "sfifo with one open region per segment, reinsertions at priority min(hits, "
            "segments-1); false: CacheBench's one priority, which evicts exactly as fifo");

const KeySpec kBlockCacheReinsertionKey =
    key("framework.blockcache_reinsertion", ValueType::kEnum)
        .def("none")
        .choices({"none", "hits", "percentage", "clock"})
        .desc(
            "navy BlockCache reinsertion of a reclaimed region's live entries; clock (not "
            "navy's): CLOCK's n-bit counter, an entry hit since written goes around with its "
            "counter decremented");

const KeySpec kBlockCacheReinsertionHitsThresholdKey =
    key("framework.blockcache_reinsertion_hits_threshold", ValueType::kInt)
        .def("1")
        .units("hits")
        .range(1, 255)
        .desc(
            "reinsertion hits: reinsert entries looked up at least this often since written "
            "(navyHitsReinsertionThreshold)");

const KeySpec kBlockCacheReinsertionPctKey =
    key("framework.blockcache_reinsertion_pct", ValueType::kInt)
        .def("50")
        .units("percent")
        .range(1, 100)
        .desc(
            "reinsertion percentage: reinsert this percentage of live entries "
            "(navyProbabilityReinsertionThreshold)");

const KeySpec kBlockCacheClockBitsKey =
    key("framework.blockcache_clock_bits", ValueType::kInt)
        .def("1")
        .units("bits")
        .range(1, 8)
        .desc(
            "reinsertion clock: bits n of the counter, capped at 2^n - 1; a reclaimed entry with "
            "counter c > 0 is rewritten with c - 1 (libCacheSim Clock n-bit-counter; 1: second "
            "chance)");

const KeySpec kBlockCacheS3fifoSmallRatioKey =
    key("framework.blockcache_s3fifo_small_ratio", ValueType::kFloat)
        .def("0.1")
        .range(1e-9, 0.999999999)
        .units("fraction")
        .desc(
            "s3fifo: the small log's share of the regions; a reclaim takes the small log's oldest "
            "region while it holds at least max(1, floor(regions x ratio)) (libCacheSim "
            "fifo-size-ratio)");

const KeySpec kBlockCacheS3fifoGhostRatioKey =
    key("framework.blockcache_s3fifo_ghost_ratio", ValueType::kFloat)
        .def("0.9")
        .range(0, 16)
        .units("fraction")
        .desc(
            "s3fifo: the ghost of keys evicted from the small log holds this fraction of the "
            "cache's bytes of their slots; 0: no ghost (libCacheSim ghost-size-ratio)");

const KeySpec kBlockCacheS3fifoMoveToMainThresholdKey =
    key("framework.blockcache_s3fifo_move_to_main_threshold", ValueType::kInt)
        .def("2")
        .units("hits")
        .range(1, 255)
        .desc(
            "s3fifo: hits an object needs in the small log to move to the main log when its "
            "region is reclaimed (libCacheSim move-to-main-threshold)");

namespace {

// "1,2, 3" (the loader's text of a YAML list) as positive integers. Throws quoting the text.
std::vector<uint32_t> parse_ratio(const std::string& text) {
  const std::string& name = kBlockCacheSfifoSegmentRatioKey.name;
  std::vector<int64_t> items;
  if (!parse_int_list(text, 1, 1000000, &items)) {
    throw std::invalid_argument(
        fmt::format("key '{}': expected positive integers (at most 1000000) separated by commas, a "
                    "segment ratio of 0 being navy's error (FifoPolicy.cpp:25-34), found '{}'",
                    name, text));
  }
  const std::vector<uint32_t> out(items.begin(), items.end());
  if (out.size() > 16) {
    throw std::invalid_argument(fmt::format(
        "key '{}': expected at most 16 segments, found {} in '{}'", name, out.size(), text));
  }
  return out;
}

// x rounded down (up) to a multiple of m.
uint64_t down(uint64_t x, uint64_t m) {
  return x / m * m;
}
uint64_t up(uint64_t x, uint64_t m) {
  return (x + m - 1) / m * m;
}

// calcAllocAlignSize (BlockCache.cpp:128-147) on a device of `device_bytes`.
uint32_t alloc_align(uint64_t device_bytes) {
  const uint64_t a = device_bytes >> 32;
  if (a <= kBlockCacheMinAllocAlignBytes) return kBlockCacheMinAllocAlignBytes;
  return static_cast<uint32_t>(std::bit_ceil(a));
}

}  // namespace

BlockCacheConfig BlockCacheConfig::from(const Params& params) {
  BlockCacheConfig c;
  c.region_bytes = params.get<uint64_t>(kBlockCacheRegionSizeKey);
  c.clean_regions = params.get<uint32_t>(kBlockCacheCleanRegionsKey);
  const std::string eviction = params.get<std::string>(kBlockCacheRegionEvictionKey);
  c.eviction = eviction == "fifo"    ? BlockCacheEviction::kFifo
               : eviction == "lru"   ? BlockCacheEviction::kLru
               : eviction == "sfifo" ? BlockCacheEviction::kSfifo
                                     : BlockCacheEviction::kS3fifo;
  c.sfifo_segment_ratio = parse_ratio(params.get<std::string>(kBlockCacheSfifoSegmentRatioKey));
  c.sfifo_priorities = params.get<bool>(kBlockCacheSfifoPrioritiesKey);
  const std::string reinsertion = params.get<std::string>(kBlockCacheReinsertionKey);
  c.reinsertion = reinsertion == "none"    ? BlockCacheReinsertion::kNone
                  : reinsertion == "hits"  ? BlockCacheReinsertion::kHits
                  : reinsertion == "clock" ? BlockCacheReinsertion::kClock
                                           : BlockCacheReinsertion::kPercentage;
  c.clock_bits = params.get<uint32_t>(kBlockCacheClockBitsKey);
  c.hits_threshold = params.get<uint32_t>(kBlockCacheReinsertionHitsThresholdKey);
  c.reinsertion_pct = params.get<uint32_t>(kBlockCacheReinsertionPctKey);
  c.s3fifo_small_ratio = params.get<double>(kBlockCacheS3fifoSmallRatioKey);
  c.s3fifo_ghost_ratio = params.get<double>(kBlockCacheS3fifoGhostRatioKey);
  c.s3fifo_move_to_main_threshold = params.get<uint32_t>(kBlockCacheS3fifoMoveToMainThresholdKey);
  if (c.eviction == BlockCacheEviction::kS3fifo && c.reinsertion != BlockCacheReinsertion::kNone) {
    throw std::invalid_argument(fmt::format(
        "key '{}': {} with {}: s3fifo, whose rules decide every reinsertion (the small log's "
        "objects with {} hits move to the main log, the main log's are reinserted while their "
        "frequency lasts): expected none, found '{}'",
        kBlockCacheReinsertionKey.name, reinsertion, kBlockCacheRegionEvictionKey.name,
        kBlockCacheS3fifoMoveToMainThresholdKey.name, reinsertion));
  }
  if (c.region_bytes % kBlockCacheMinAllocAlignBytes != 0) {
    throw std::invalid_argument(fmt::format(
        "key '{}': expected a multiple of navy's 512 B allocation alignment "
        "(BlockCache.cpp:117-119), found '{}' = {} B: use {} or {}",
        kBlockCacheRegionSizeKey.name, params.text(kBlockCacheRegionSizeKey.name), c.region_bytes,
        exact_size_text(std::max<uint64_t>(512, down(c.region_bytes, 512))),
        exact_size_text(up(c.region_bytes, 512))));
  }
  if (c.reinsertion == BlockCacheReinsertion::kPercentage && c.reinsertion_pct == 100 &&
      c.clean_regions >= 2) {
    throw std::invalid_argument(fmt::format(
        "key '{}': 100 with {}: {} reinserts every live entry, and a reclaim whose "
        "reinsertions fill the open region takes a clean region and schedules the next reclaim: "
        "once regions hold no holes the chain of reclaims never ends (navy would run it in the "
        "background for ever; the model runs reclaims to completion before the next request): "
        "use {}: 99 or less, or {}: 1",
        kBlockCacheReinsertionPctKey.name, kBlockCacheCleanRegionsKey.name, c.clean_regions,
        kBlockCacheReinsertionPctKey.name, kBlockCacheCleanRegionsKey.name));
  }
  const uint32_t p = c.priorities();
  if (p > 2 * uint64_t{c.clean_regions}) {
    throw std::invalid_argument(fmt::format(
        "key '{}': true with {} segments ('{}') needs {} open regions, each holding one of "
        "navy's 2 x {} = {} in-memory buffers ({} = {}): with fewer buffers than open regions "
        "an insert can find every buffer taken and wait for ever (RegionManager.cpp:197-211): "
        "use {}: {} or more, fewer segments, or {}: false",
        kBlockCacheSfifoPrioritiesKey.name, p,
        params.get<std::string>(kBlockCacheSfifoSegmentRatioKey), p,
        kBlockCacheCleanRegionsKey.name, 2 * c.clean_regions, kBlockCacheCleanRegionsKey.name,
        c.clean_regions, kBlockCacheCleanRegionsKey.name, (p + 1) / 2,
        kBlockCacheSfifoPrioritiesKey.name));
  }
  return c;
}

BlockCacheGeometry blockcache_geometry(const BlockCacheConfig& c, uint64_t capacity_bytes,
                                       uint64_t granule) {
  const uint64_t r = c.region_bytes;
  const uint64_t g = std::max<uint64_t>(1, granule);
  BlockCacheGeometry geo;
  geo.region_bytes = r;
  geo.regions = capacity_bytes / r;
  geo.alloc_align_bytes = alloc_align(geo.regions * r);
  const uint64_t a = geo.alloc_align_bytes;
  if (r % a != 0) {
    throw std::invalid_argument(fmt::format(
        "framework blockcache: regions of {} B ({}) are not a multiple of navy's allocation "
        "alignment of {} B on a cache of {} B (BlockCache.cpp:117-119, :128-147): use {}: {}",
        r, kBlockCacheRegionSizeKey.name, a, capacity_bytes, kBlockCacheRegionSizeKey.name,
        exact_size_text(up(r, a))));
  }
  if (r % g != 0) {
    throw std::invalid_argument(fmt::format(
        "framework blockcache: regions of {} B ({}) are not a multiple of the device's logical "
        "block of {} B, navy's I/O alignment: use {}: {}",
        r, kBlockCacheRegionSizeKey.name, g, kBlockCacheRegionSizeKey.name,
        exact_size_text(up(r, std::max(a, g)))));
  }
  const uint64_t need = c.min_regions();
  if (geo.regions < need) {
    const uint64_t m = std::max(a, g);  // both powers of two in practice: the larger is the lcm
    std::string fixes;
    const uint64_t largest = down(capacity_bytes / need, m);
    if (largest >= std::max<uint64_t>(m, kBlockCacheMinAllocAlignBytes)) {
      fixes =
          fmt::format("{}: {} or less", kBlockCacheRegionSizeKey.name, exact_size_text(largest));
    }
    if (c.clean_regions > 1 && geo.regions >= c.priorities() + c.min_tracked_regions() + 1) {
      fixes +=
          fmt::format("{}{}: {}", fixes.empty() ? "" : "; or ", kBlockCacheCleanRegionsKey.name,
                      geo.regions - c.priorities() - c.min_tracked_regions());
    }
    fixes += fmt::format("{}a cache of at least {} B", fixes.empty() ? "" : "; or ", need * r);
    throw std::invalid_argument(fmt::format(
        "framework blockcache: the cache's {} B make {} regions of {} B ({}), and the "
        "BlockCache needs {}: the {} clean regions ({}), {} open region{} and {} "
        "holding data on flash (navy accepts as few as the clean regions, but then a reclaim "
        "finds no region to evict): use {}",
        capacity_bytes, geo.regions, r, kBlockCacheRegionSizeKey.name, need, c.clean_regions,
        kBlockCacheCleanRegionsKey.name, c.priorities(), c.priorities() == 1 ? "" : "s",
        c.min_tracked_regions() == 1 ? "one region" : "one region of each s3fifo log", fixes));
  }
  if (geo.regions > uint64_t{UINT32_MAX} - 1) {
    throw std::invalid_argument(fmt::format(
        "framework blockcache: the cache's {} B make {} regions of {} B, more than navy's "
        "32-bit region ids: use {}: {} or more",
        capacity_bytes, geo.regions, r, kBlockCacheRegionSizeKey.name,
        exact_size_text(up(capacity_bytes / (uint64_t{UINT32_MAX} - 1) + 1, std::max(a, g)))));
  }
  geo.max_item_bytes =
      std::min<uint64_t>(r, down(kBlockCacheMaxSlotBytes, a)) - kBlockCacheEntryDescBytes;
  return geo;
}

const ComponentSpec& BlockCacheFramework::spec() {
  static const ComponentSpec spec{
      "blockcache",
      "CacheLib navy's BlockCache: regions filled through in-memory buffers and written whole, "
      "a clean-region pool, region eviction (fifo, lru, sfifo) with reinsertion, or S3-FIFO's "
      "small and main logs",
      // framework.read_hits first, as no key of this engine precedes it in the section's order.
      {kReadHitsKey, kPlacementHandlesKey, kBlockCacheRegionSizeKey, kBlockCacheCleanRegionsKey,
       kBlockCacheRegionEvictionKey, kBlockCacheSfifoSegmentRatioKey, kBlockCacheSfifoPrioritiesKey,
       kBlockCacheReinsertionKey, kBlockCacheReinsertionHitsThresholdKey,
       kBlockCacheReinsertionPctKey, kBlockCacheClockBitsKey, kBlockCacheS3fifoSmallRatioKey,
       kBlockCacheS3fifoGhostRatioKey, kBlockCacheS3fifoMoveToMainThresholdKey},
      engine_requirements("blockcache"),
      {},
      {}};
  return spec;
}

namespace {

BlockCacheGeometry shape_geometry(const Params& params, const CacheShape& shape,
                                  BlockCacheConfig* config) {
  if (shape.unit_size) {
    throw std::invalid_argument(
        "framework blockcache: lays out bytes on flash, and cache.unit_size counts objects: use "
        "cache.unit_size: false");
  }
  *config = BlockCacheConfig::from(params);
  return blockcache_geometry(*config, shape.capacity_bytes, shape.granule);
}

}  // namespace

FrameworkLayout BlockCacheFramework::layout(const Params& params, const CacheShape& shape) {
  BlockCacheConfig c;
  const BlockCacheGeometry geo = shape_geometry(params, shape, &c);
  FrameworkLayout layout;
  layout.block_bytes = geo.region_bytes;
  layout.block_basis = "region size (" + kBlockCacheRegionSizeKey.name + ")";
  layout.device_bytes = geo.regions * geo.region_bytes;
  layout.places_objects = true;
  if (shape.sizes != nullptr && shape.sizes->total() > 0) {
    const uint64_t above = shape.sizes->count_above(geo.max_item_bytes);
    if (100 * above >= shape.sizes->total()) {
      layout.notes.push_back(fmt::format(
          "framework blockcache: at least {:.1f} % of the requests are for objects larger than "
          "{} B, the largest a region of {} B holds (32 B of EntryDesc per slot; the largest "
          "object is {} B), which it never caches: raise {}",
          100.0 * static_cast<double>(above) / static_cast<double>(shape.sizes->total()),
          geo.max_item_bytes, geo.region_bytes, shape.largest_object_bytes,
          kBlockCacheRegionSizeKey.name));
    }
  }
  const uint64_t idle = uint64_t{c.clean_regions} + c.priorities();
  if (4 * idle > geo.regions) {
    layout.notes.push_back(fmt::format(
        "framework blockcache: {} clean and {} open region{} of the {} hold no data on flash "
        "at steady state, over a quarter of the cache: use a smaller {} or fewer {}",
        c.clean_regions, c.priorities(), c.priorities() == 1 ? "" : "s", geo.regions,
        kBlockCacheRegionSizeKey.name, kBlockCacheCleanRegionsKey.name));
  }
  return layout;
}

uint64_t BlockCacheFramework::max_object_bytes(const Params& params, const CacheShape& shape) {
  BlockCacheConfig c;
  return shape_geometry(params, shape, &c).max_item_bytes;
}

}  // namespace flashpq
