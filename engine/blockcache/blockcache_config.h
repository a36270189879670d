// engine/blockcache/blockcache_config.h — the keys of the `blockcache` framework: CacheLib navy's
// BlockCache, the large-object engine (engine/blockcache/blockcache_queue.h).
//
// Source: CacheLib at commit 278ffc74e3015608e385a87caba9f65f9d1113dd, as summarized in
// docs/reference/navy-spec.md §2 (paths below are from the repository root at that commit).
//
//   framework.blockcache_region_size                 region size (navyRegionSizeMB; 16 MiB)
//   framework.blockcache_clean_regions               clean-region pool C (navyCleanRegions; 1)
//   framework.blockcache_region_eviction             fifo | lru | sfifo | s3fifo (navy: lru)
//   framework.blockcache_sfifo_segment_ratio         SFIFO segment ratios, lowest priority first
//   framework.blockcache_sfifo_priorities            SFIFO with one open region per segment
//   framework.blockcache_reinsertion                 none | hits | percentage | clock
//   framework.blockcache_reinsertion_hits_threshold  navyHitsReinsertionThreshold (1..255)
//   framework.blockcache_reinsertion_pct             navyProbabilityReinsertionThreshold (1..100)
//   framework.blockcache_clock_bits                  clock: bits of the counter (1..8)
//   framework.blockcache_s3fifo_small_ratio          s3fifo: the small log's share of the regions
//   framework.blockcache_s3fifo_ghost_ratio          s3fifo: the ghost's bytes over the cache's
//   framework.blockcache_s3fifo_move_to_main_threshold  s3fifo: hits to move from small to main
// and framework.read_hits (engine/queue.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/params.h"
#include "sim/rng.h"

namespace flashpq {

/// navy's EntryDesc, the trailer of every slot: 32 B (cachelib/navy/block_cache/BlockCache.h:
/// 296-321, static_assert(sizeof(EntryDesc) == 32)).
inline constexpr uint32_t kBlockCacheEntryDescBytes = 32;
/// navy's minimum allocation alignment, kMinAllocAlignSize (BlockCache.h:280): slots are
/// multiples of it on any device up to 2 TiB.
inline constexpr uint32_t kBlockCacheMinAllocAlignBytes = 512;
/// navy's largest slot, kMaxItemSize = 512 × 65535 B (BlockCache.h:283-285): larger slots are
/// rejected before allocation (BlockCache.cpp:1280-1284).
inline constexpr uint64_t kBlockCacheMaxSlotBytes = uint64_t{512} * 65535;
/// navy's largest region, 1 GiB (BlockCache.cpp:75-79, "region is too large").
inline constexpr uint64_t kBlockCacheMaxRegionBytes = uint64_t{1} << 30;
/// Bytes of navy's SparseMapIndex per indexed object: one std::pair<uint32_t subkey,
/// ItemRecord> with the 8-byte packed ItemRecord (block_cache/Index.h:47-73,
/// SparseMapIndex.h:187) — docs/reference/navy-spec.md §9.3. tsl::sparse_map's own bucket overhead
/// and the 64 Ki map headers are not included.
inline constexpr uint64_t kBlockCacheIndexBytesPerObject = 12;
/// The RngStream id of percentage reinsertion's draws (sim/rng.h keeps the registry).
inline constexpr uint64_t kBlockCacheReinsertionStream = RngStream::kBlockCacheReinsertionStream;

/// How a reclaimed region's live entries are chosen for reinsertion (BlockCache.cpp:262-274;
/// kClock is not navy's: blockcache_queue.h "CLOCK on regions").
enum class BlockCacheReinsertion { kNone, kHits, kPercentage, kClock };
/// Which region a reclaim takes (block_cache/FifoPolicy.cpp, LruPolicy.cpp), or S3-FIFO's two
/// logs (not navy's: blockcache_queue.h "S3-FIFO on regions").
enum class BlockCacheEviction { kFifo, kLru, kSfifo, kS3fifo };

/// What the blockcache framework reads of the framework section.
struct BlockCacheConfig {
  /// Region size R in bytes: the unit allocated to, buffered in DRAM and written to flash whole.
  /// Default 16 MiB (BlockCache.h:66, NavyConfig.h:660). Range [512 B, 1 GiB]; a multiple of
  /// navy's allocation alignment (512 B up to 2 TiB of cache, BlockCache.cpp:117-119), checked
  /// against the cache by blockcache_geometry().
  uint64_t region_bytes = uint64_t{16} << 20;
  /// The clean-region pool C (navyCleanRegions): taking a clean region schedules reclaims until
  /// C are clean or being cleaned (RegionManager.cpp:233-294). navy keeps 2·C in-memory region
  /// buffers (NavyConfig.cpp:169-185). Default 1 (BlockCache.h:70). Range [1, 65536].
  uint32_t clean_regions = 1;
  /// Region eviction policy. Default LRU (NavyConfig.h:644; CacheBench: an empty
  /// navySegmentedFifoSegmentRatio).
  BlockCacheEviction eviction = BlockCacheEviction::kLru;
  /// SFIFO segment ratios, lowest priority first (navySegmentedFifoSegmentRatio), each >= 1
  /// (FifoPolicy.cpp:25-34 throws on 0). Default {1, 1}. At most 16 segments.
  std::vector<uint32_t> sfifo_segment_ratio = {1, 1};
  /// SFIFO with priorities: one allocator (open region) per segment, reinsertions going to
  /// priority min(hits, segments − 1) (NavyConfig::enableSegmentedFifo with allocatorCounts,
  /// NavyConfig.h:468-478). false (default): CacheBench's call without allocator counts
  /// (cachebench/cache/Cache.h:761) — one priority, so every region is in segment 0 and SFIFO
  /// evicts exactly as FIFO (docs/reference/navy-spec.md §2.5).
  bool sfifo_priorities = false;
  /// Reinsertion policy. Default none (navy's default: no policy).
  BlockCacheReinsertion reinsertion = BlockCacheReinsertion::kNone;
  /// Hits policy: reinsert a live entry iff its index hit counter (lookups since it was last
  /// written, saturating at 255) is at least this (HitsReinsertionPolicy.cpp:26-38). Default 1.
  /// Range [1, 255] (CacheBench casts navyHitsReinsertionThreshold to uint8_t).
  uint32_t hits_threshold = 1;
  /// Percentage policy: reinsert a live entry iff a draw in [0, 100) is below this
  /// (PercentageReinsertionPolicy.h:37-47). Default 50 (consistency/navy-with-reinsertion.json).
  /// Range [1, 100]; 100 only with clean_regions 1 (with more, a chain of reclaims that each
  /// reinsert a full region never ends: from() throws).
  uint32_t reinsertion_pct = 50;
  /// Clock policy: bits n of the counter, capped at 2^n − 1; an entry with counter c > 0 is
  /// reinserted with c − 1 (libCacheSim's Clock, n-bit-counter; policies/clock.h). Default 1
  /// (second chance: the hits policy with threshold 1). Range [1, 8].
  uint32_t clock_bits = 1;
  /// s3fifo: the small log's share of the regions, in (0, 1): a reclaim takes the small log's
  /// oldest region while the small log holds at least max(1, ⌊N × ratio⌋) regions (S3-FIFO's
  /// |S|, Yang et al., SOSP'23 §4; libCacheSim's fifo-size-ratio). Default 0.1.
  double s3fifo_small_ratio = 0.1;
  /// s3fifo: the ghost holds the keys of objects evicted from the small log, up to
  /// ⌊N·R × ratio⌋ bytes of their slots (libCacheSim's ghost-size-ratio, in the unit that fills
  /// the cache: at 0.9 the ghost holds about as many keys as the main log holds objects, as the
  /// paper's G). Default 0.9; 0 keeps no ghost. Range [0, 16].
  double s3fifo_ghost_ratio = 0.9;
  /// s3fifo: hits an object needs in the small log to move to the main log when its region is
  /// reclaimed (libCacheSim's move-to-main-threshold). Default 2. Range [1, 255].
  uint32_t s3fifo_move_to_main_threshold = 2;

  /// Open regions (allocators): the segment count with sfifo_priorities, 2 with s3fifo (the
  /// small log's and the main log's), else 1.
  uint32_t priorities() const {
    if (eviction == BlockCacheEviction::kS3fifo) return 2;
    return eviction == BlockCacheEviction::kSfifo && sfifo_priorities
               ? static_cast<uint32_t>(sfifo_segment_ratio.size())
               : 1u;
  }
  /// Regions that must hold data on flash besides the clean and open ones: one, or with s3fifo
  /// one in each log (a reclaim of either must find a region).
  uint64_t min_tracked_regions() const { return eviction == BlockCacheEviction::kS3fifo ? 2 : 1; }
  /// The fewest regions the model runs with: the clean pool, the open region(s), and the
  /// regions that hold data on flash (see blockcache_geometry()).
  uint64_t min_regions() const {
    return uint64_t{clean_regions} + priorities() + min_tracked_regions();
  }

  /// Decodes `params` (framework.* keys; unset keys take their defaults). Throws
  /// std::invalid_argument quoting the bad value and naming its key, and for the combinations
  /// the model cannot run: sfifo priorities with more segments than 2·C in-memory buffers,
  /// percentage 100 with C >= 2, a reinsertion policy with s3fifo (whose rules reinsert).
  static BlockCacheConfig from(const Params& params);
};

/// A BlockCache laid out on a cache of C bytes.
struct BlockCacheGeometry {
  /// Regions N = ⌊C / R⌋ (BlockCache.h:126-129).
  uint64_t regions = 0;
  /// Region size R in bytes.
  uint64_t region_bytes = 0;
  /// navy's allocAlignSize: 512 B, or the next power of two of (N·R) >> 32 beyond 2 TiB
  /// (calcAllocAlignSize, BlockCache.cpp:128-147, on the device the framework addresses).
  uint32_t alloc_align_bytes = kBlockCacheMinAllocAlignBytes;
  /// The largest item (key + value) stored: min(R, kMaxItemSize) rounded down to the
  /// alignment, less the 32-byte EntryDesc.
  uint64_t max_item_bytes = 0;
};

/// Lays out `c` over a cache of `capacity_bytes` on a device of logical block `granule` bytes
/// (navy's I/O alignment). Throws std::invalid_argument naming the key and a value that works
/// when R is not a multiple of the allocation alignment or of the device's logical block, when
/// the regions are fewer than c.min_regions() (navy itself accepts N >= C, BlockCache.cpp:
/// 91-93, but below C + open regions a reclaim finds no region to evict — doReclaim loops,
/// RegionManager.cpp:364-376 — and at exactly that every region is evicted as soon as it is
/// flushed), or when there are more than 2^32 − 1 regions (navy's RegionId is 32-bit).
BlockCacheGeometry blockcache_geometry(const BlockCacheConfig& c, uint64_t capacity_bytes,
                                       uint64_t granule);

/// The slot of an item of `item_bytes` (key + value): 32 + item_bytes rounded up to
/// `align_bytes` (serializedSize, BlockCache.cpp:276-280).
inline uint64_t blockcache_slot_bytes(uint64_t item_bytes,
                                      uint64_t align_bytes = kBlockCacheMinAllocAlignBytes) {
  return (item_bytes + kBlockCacheEntryDescBytes + align_bytes - 1) / align_bytes * align_bytes;
}

extern const KeySpec kBlockCacheRegionSizeKey;
extern const KeySpec kBlockCacheCleanRegionsKey;
extern const KeySpec kBlockCacheRegionEvictionKey;
extern const KeySpec kBlockCacheSfifoSegmentRatioKey;
extern const KeySpec kBlockCacheSfifoPrioritiesKey;
extern const KeySpec kBlockCacheReinsertionKey;
extern const KeySpec kBlockCacheReinsertionHitsThresholdKey;
extern const KeySpec kBlockCacheReinsertionPctKey;
extern const KeySpec kBlockCacheClockBitsKey;
extern const KeySpec kBlockCacheS3fifoSmallRatioKey;
extern const KeySpec kBlockCacheS3fifoGhostRatioKey;
extern const KeySpec kBlockCacheS3fifoMoveToMainThresholdKey;

}  // namespace flashpq
