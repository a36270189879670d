// engine/blockcache/blockcache_queue.h — CacheLib navy's BlockCache, the large-object engine,
// as a FlashPQ framework.
//
// Source: CacheLib at commit 278ffc74e3015608e385a87caba9f65f9d1113dd, following
// docs/reference/navy-spec.md §1 (device layout, I/O alignment), §2 (BlockCache) and §9; file:line
// citations are paths from the repository root at that commit (cachelib/navy/block_cache/ unless
// stated).
//
// The cache's C bytes are N = ⌊C/R⌋ regions of R bytes (framework.blockcache_region_size), one
// BlockCache with no metadata area and no BigHash in front of it. An item (the request's size:
// key + value) is stored in a slot of 32 + size bytes — the 32-byte EntryDesc trailer — rounded up
// to navy's allocation alignment, 512 B up to 2 TiB (BlockCache.cpp:128-147, :276-280).
//   * Insert (BlockCache.cpp:282-306; Allocator.cpp:68-120): the slot is bump-allocated in the
//     open region (Region.cpp:177-183), held in an in-memory buffer. When the slot does not fit,
//     the open region is flushed — one device write of R bytes at its offset, whatever its fill
//     (RegionManager.cpp:296-358) — and enters the eviction policy (track); a clean region is
//     taken from the pool (a LIFO vector, RegionManager.cpp:233-294), and taking it schedules
//     reclaims until C regions are clean or being cleaned. With no clean region the insert is
//     retried after one pending reclaim (EnginePair.cpp:132-136): inserts never fail for want of
//     a region.
//   * Reclaim (RegionManager.cpp:364-505): the policy's victim region is read — its used prefix,
//     one read widened to the device's logical block (navy's ioAlign) — unless it holds no entry;
//     its entries are walked newest first (BlockCache.cpp:672-740): a stale copy (deleted,
//     replaced or already moved) costs nothing; a live one is reinserted if the reinsertion
//     policy says so — appended to the open region of priority min(hits, priorities − 1), with
//     its hit counter reset — else evicted through ctx.sink. A reinsertion that finds no clean
//     region fails and the item is dropped (BlockCache.cpp:1217-1236). The region is then reset
//     and pushed on the clean pool.
//   * Lookup (BlockCache.cpp:352-463): every hit counts one index hit (saturating at 255,
//     SparseMapIndex.cpp:114-129) and, on an object whose region is flushed, reads the whole slot
//     [end − slot, end) widened to the device's logical block and touches the region (LRU moves
//     it to the head, RegionManager.cpp:93-99). A hit on an object in an open region's buffer
//     reads nothing and touches nothing.
//   * Remove (BlockCache.cpp:593-646, preciseRemove off): an index edit only, no I/O; the copy
//     is a hole in its region until the region is reclaimed. A set of a cached key is a remove
//     then an insert (engine/cache.h), as navy's insert over an existing key (a new slot, the old
//     one a hole, the hit counters reset).
//   * Policies: FIFO (FifoPolicy.cpp:39-52), LRU (LruPolicy.cpp, with navy's inList() corner
//     case: a region alone in the list is not touched), segmented FIFO (FifoPolicy.cpp:95-176).
//     At construction every region is tracked, in ascending id (resetEvictionPolicy,
//     RegionManager.cpp:654-674): the first N reclaims take empty regions at no I/O cost.
// Modelling choices (docs/reference/navy-spec.md §2.4's deterministic model):
//   * Navy runs flushes and reclaims on worker threads; here they are synchronous. A flush
//     completes (and tracks its region) before the reclaim its clean-region request scheduled;
//     reclaims run in the order scheduled, one at a time, never nested: one scheduled from
//     inside a reclaim (a reinsertion that took a clean region) runs after it. An insert that
//     finds no clean region runs one pending reclaim and retries; after the insert every
//     pending reclaim runs, so a reclaim completes before the next request.
//   * In-memory buffers are navy's 2·C (NavyConfig.cpp:169-185), allocated up front
//     (FrameworkCounters::dram_buffer_bytes = 2·C·R). A flush frees its buffer at once, so
//     buffers bind only when open regions exceed them, which the configuration refuses
//     (sfifo priorities with more segments than 2·C buffers).
//   * SFIFO: by default CacheBench's configuration (enableSegmentedFifo without allocator
//     counts, cachebench/cache/Cache.h:761): one priority, every region in segment 0, and the
//     rebalance moves nothing — eviction is exactly FIFO, as navy's. With
//     framework.blockcache_sfifo_priorities: one allocator per segment, regions tracked in the
//     segment of their priority, reinsertions at priority min(hits, segments − 1)
//     (BlockCache.cpp:1212-1215). New inserts use priority 0 (BlockCache.cpp:1286-1287).
//   * Reclaims scheduled from inside reclaims (a reinsertion filling the open region takes a
//     clean region) form a chain that ends when a reclaim's reinsertions fit the open region:
//     with hits reinsertion always (reinserted entries restart at 0 hits), with percentage p a
//     chain of about 1/(1 − p/100) reclaims on average. At 100 % with C >= 2 it never ends once
//     regions hold no holes; the configuration refuses it (navy runs it in the background).
//   * Percentage reinsertion draws RngStream(seed, kBlockCacheReinsertionStream).below(100) <
//     pct for each live entry the walk reaches, in walk order, where navy draws
//     folly::Random::rand32() % 100.
//   * A failed reinsertion drops the item; navy runs no destructor callback and counts no
//     eviction for it (only navy_bc_reinsertion_errors). Here it leaves through ctx.sink (the
//     policy and a hierarchy must see every object leave) and counts in
//     FrameworkCounters::evicted_*, but not in BlockCacheCounters::evictions. Navy does not
//     decrement navy_bc_used_size_bytes for it; used_slot_bytes here does.
//   * Not modelled: TTL expiry (no expiry in traces), checksums (CPU only), the 48-bit index
//     key collisions (negligible for 64-bit keys), several allocators per priority, the
//     explicit flush at shutdown, device write splitting (maxWriteSize: a region is one write).
// CLOCK on regions (framework.blockcache_reinsertion: clock; not navy's): libCacheSim's Clock
// with an n-bit counter (policies/clock.h) with the region as the hand's step: a reclaimed
// region's live entry whose counter c = min(hits, 2^n − 1) is above 0 is rewritten with c − 1
// (its hit counter set to it), one with 0 is evicted. With FIFO regions this is CLOCK; n = 1
// is second chance, the same decisions as the hits policy with threshold 1. SIEVE needs no
// rule of its own: on a log a survivor cannot stay where it is, so SIEVE's retained objects are
// rewritten like CLOCK's, and SIEVE on regions is second chance.
// S3-FIFO on regions (framework.blockcache_region_eviction: s3fifo; not navy's, which has no
// such policy): S3-FIFO's rules (Yang et al., SOSP'23 §4, Algorithm 1, with libCacheSim's
// thresholds as policies/s3fifo.h states them) applied to BlockCache's unit of eviction, the
// region. Two allocators, priority 0 the small log S and priority 1 the main log M, each its own
// open region and FIFO ring of flushed regions, and a ghost of keys (engine/ghost_list.h, of
// ⌊N·R × blockcache_s3fifo_ghost_ratio⌋ bytes of the objects' slots, the unit that fills the
// cache, so that at 0.9 it holds about as many keys as M holds objects, as the paper's G does):
//   * insert: a key in the ghost (a ghost hit, which removes it) goes to M, any other to S;
//   * a reclaim takes S's oldest region while S holds at least max(1, ⌊N × small_ratio⌋)
//     regions (Algorithm 1's test in regions: "S.size >= 0.1 × cache size"), else M's oldest;
//     the other log's when the chosen one has none;
//   * S's region: a live entry with at least blockcache_s3fifo_move_to_main_threshold hits
//     (the index's hit counter, lookups since it was written) moves to M with frequency 0; any
//     other is evicted and its key enters the ghost;
//   * M's region: a live entry with frequency f > 0 is reinserted into M with min(f, 3) − 1
//     (CLOCK's second chance, S3-FIFO's M); with 0 it is evicted.
// A move or reinsertion is a rewrite (reinsertions, application-level WA) and, as navy's, fails
// and drops the object when no clean region is left (a dropped object does not enter the ghost).
// The region is the unit: every live object of a reclaimed region is decided at once, where the
// DRAM S3-FIFO decides one object per eviction; and an object's frequency is its hits since it
// was last written, reset by a move as in S3-FIFO. The model's DRAM adds 8 B per ghost key (a
// 64-bit key hash) to navy's index (modelled_dram_index_bytes()).
// Zoned Namespaces: on a zoned device (Device::zone_geometry) each region is one zone, written
// by its flush from the zone's start, and a reclaim resets the zone of a region that was
// flushed — the host's collection, with the reinsertions its only copies (docs/guide/devices.md
// "Zoned Namespaces"); the region must be the zone (engine/queue.h zoned_units).
// The index is navy's SparseMapIndex (CacheBench's default): the ObjectTable entry keeps what its
// ItemRecord keeps — slot = the region, prev = the slot's end offset in the region (bytes),
// next = currentHits (0..255); the size comes from size_bytes. modelled_dram_index_bytes() is
// navy's 12 B per indexed object (docs/reference/navy-spec.md §9.3).
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "devices/device.h"
#include "engine/blockcache/blockcache_config.h"
#include "engine/ghost_list.h"
#include "engine/object_table.h"
#include "engine/queue.h"
#include "sim/rng.h"

namespace flashpq {

/// The engine's own counters (the lead turns them into result columns). Bytes unless stated.
struct BlockCacheCounters {
  /// Every byte written to the device: R per region flush (navy_bc_physical_written).
  uint64_t flash_bytes_written = 0;
  /// Region flushes (writes of R bytes).
  uint64_t region_flushes = 0;
  /// Key + value bytes of every entry written, inserts and reinsertions
  /// (navy_bc_logical_written, BlockCache.cpp:1320-1350).
  uint64_t logical_bytes_written = 0;
  /// Reclaims: every region taken from the eviction policy, the N initial empty ones included
  /// (navy_bc_reclaim).
  uint64_t regions_reclaimed = 0;
  /// Bytes reclaims read: each non-empty victim's used prefix, widened to logical blocks.
  uint64_t reclaim_read_bytes = 0;
  /// Live entries a reclaim evicted (navy_bc_evictions).
  uint64_t evictions = 0;
  /// Entries reinserted, and their slot bytes (navy_bc_reinsertions,
  /// navy_bc_reinsertion_bytes).
  uint64_t reinsertions = 0;
  uint64_t reinsertion_slot_bytes = 0;
  /// Reinsertions that found no clean region: the item was dropped
  /// (navy_bc_reinsertion_errors).
  uint64_t reinsertion_failures = 0;
  /// s3fifo: inserts whose key was in the ghost (they went to the main log), and reinsertions
  /// that moved an object from the small log to the main log.
  uint64_t ghost_hits = 0;
  uint64_t moved_to_main = 0;
  /// Stale copies (deleted, replaced) a reclaim walked over, and their slot bytes: dead space
  /// reclaimed (navy's removeHole).
  uint64_t dead_entries_reclaimed = 0;
  uint64_t dead_bytes_reclaimed = 0;
  /// Hits on objects still in an in-memory buffer (no device read) and on flushed regions.
  uint64_t buffer_hits = 0;
  uint64_t flash_hits = 0;
  /// Gauges, now: slot bytes of live entries (navy_bc_used_size_bytes), slot bytes and count
  /// of holes — dead copies in regions not yet reclaimed (navy_bc_hole_bytes, _count) — and the
  /// unused tails of flushed regions (navy_bc_external_fragmentation).
  uint64_t used_slot_bytes = 0;
  uint64_t hole_bytes = 0;
  uint64_t hole_count = 0;
  uint64_t external_fragmentation_bytes = 0;
};

/// navy's BlockCache over ctx.capacity_bytes (see the file comment). Not thread-safe.
class BlockCacheQueue {
 public:
  /// None of the entry's words orders objects: slot (region), prev (end offset) and next
  /// (hits) are the index record; region order is the policy's.
  static constexpr unsigned kOrderWords = 0;
  /// Writes each region sequentially from a zone's start and resets it when reclaimed: runs
  /// on a zoned device (engine/cache.h checks it; zoned_units, engine/queue.h).
  static constexpr bool kWritesZones = true;
  /// data_offset() of an object in an in-memory buffer.
  static constexpr uint64_t kInRam = UINT64_MAX;
  /// No region (an entry's slot word once it has left; the policy's "none").
  static constexpr uint32_t kNone = UINT32_MAX;

  /// Builds the engine from ctx, reading its keys from ctx.framework.params. Throws
  /// std::invalid_argument for a bad key value or a cache the regions do not fit
  /// (blockcache_geometry()).
  explicit BlockCacheQueue(const QueueContext& ctx)
      : BlockCacheQueue(ctx, BlockCacheConfig::from(ctx.framework.params)) {}

  BlockCacheQueue(const QueueContext& ctx, const BlockCacheConfig& config)
      : table_(ctx.table),
        device_(ctx.device),
        sink_(ctx.sink),
        base_(ctx.device_offset),
        placement_(ctx.placement(0, {"regions"})),
        config_(config),
        geometry_(
            blockcache_geometry(config, ctx.capacity_bytes, ctx.device.logical_block_bytes())),
        region_bytes_(geometry_.region_bytes),
        align_(geometry_.alloc_align_bytes),
        max_item_bytes_(geometry_.max_item_bytes),
        io_align_(std::max<uint64_t>(1, ctx.device.logical_block_bytes())),
        priorities_(config.priorities()),
        s3fifo_(config.eviction == BlockCacheEviction::kS3fifo),
        rng_(ctx.seed, kBlockCacheReinsertionStream) {
    const uint64_t n = geometry_.regions;
    regions_.resize(n);
    records_.resize(n);
    pool_.reserve(n);
    open_.assign(priorities_, kNone);
    counters_.dram_buffer_bytes = 2 * uint64_t{config_.clean_regions} * region_bytes_;
    if (config_.eviction == BlockCacheEviction::kLru) {
      lru_prev_.assign(n, kNone);
      lru_next_.assign(n, kNone);
    } else if (s3fifo_) {
      // The small log's ring, then the main log's (track() files a region by its priority).
      segments_.resize(2);
      for (RegionRing& s : segments_) s.init(n);
      small_target_ = std::max<uint64_t>(
          1, static_cast<uint64_t>(static_cast<double>(n) * config_.s3fifo_small_ratio));
      ghost_.set_capacity(static_cast<uint64_t>(static_cast<double>(n * region_bytes_) *
                                                config_.s3fifo_ghost_ratio));
      ghost_.reserve(static_cast<size_t>(ghost_.capacity() / kBlockCacheMinAllocAlignBytes));
    } else {
      // FIFO is one segment of ratio 1: track pushes to its back, evict pops its front.
      const std::vector<uint32_t> ratio = config_.eviction == BlockCacheEviction::kSfifo
                                              ? config_.sfifo_segment_ratio
                                              : std::vector<uint32_t>{1};
      ratio_ = ratio;
      ratio_sum_ = 0;
      for (const uint32_t r : ratio_) ratio_sum_ += r;
      segments_.resize(ratio_.size());
      for (RegionRing& s : segments_) s.init(n);
    }
    // On a zoned device region r is one zone (engine/queue.h zoned_units).
    zoned_ = zoned_units(ctx.device, region_bytes_, base_, "framework.blockcache_region_size");
    // resetEvictionPolicy: every region, empty, tracked in ascending id.
    for (uint32_t r = 0; r < n; ++r) track(r);
  }

  BlockCacheQueue(const BlockCacheQueue&) = delete;
  BlockCacheQueue& operator=(const BlockCacheQueue&) = delete;

  // ---- the queue contract (engine/queue.h) ----

  /// Whether an item of `size` bytes (key + value) fits a region: its slot is at most
  /// min(R, navy's kMaxItemSize). Larger ones are rejected (Allocator.cpp:53-56).
  bool admits(uint32_t size) const { return size <= max_item_bytes_; }
  Handle victim(uint32_t) const { return kNoHandle; }
  /// Eviction happens inside insert() (reclaims).
  void make_room(uint32_t) {}

  /// BlockCache::insert of h (p ignored): allocate its slot at priority 0, flushing the open
  /// region and taking a clean region as needed (a pending reclaim runs while none is clean),
  /// then run every pending reclaim. REQUIRES: admits(size of h).
  void insert(Handle h, double) {
    const uint32_t size = table_[h].size_bytes;
    const uint32_t slot = slot_bytes(size);
    // Not placed yet: the reclaims below must not take a stale record of a previous object
    // with the same (recycled) handle for this one.
    table_[h].slot = kNone;
    // s3fifo: a key the ghost holds goes to the main log (and leaves the ghost).
    uint32_t p = 0;
    if (s3fifo_ && ghost_.erase(table_[h].key)) {
      p = 1;
      engine_.ghost_hits++;
    }
    uint32_t rid;
    while ((rid = allocate(slot, p)) == kNone) {
      if (pending_ == 0) throw std::logic_error("blockcache: no clean region and no reclaim");
      run_reclaim();
    }
    place(h, rid, slot);
    counters_.placed_bytes += size;
    counters_.placed_objects++;
    live_bytes_ += size;
    live_objects_++;
    engine_.used_slot_bytes += slot;
    while (pending_ > 0) run_reclaim();
  }

  void increase(Handle, double) {}
  double priority(Handle) const { return 0; }

  /// A hit's device read (framework.read_hits): nothing while h's region is open (its
  /// in-memory buffer), else one read of h's whole slot widened to the device's logical block
  /// (BlockCache.cpp:1352-1447, Device.cpp:549-564). REQUIRES: h cached.
  void read_hit(Handle h) {
    const uint64_t at = data_offset(h);
    if (at != kInRam) device_.read_covering(at, slot_bytes(table_[h].size_bytes));
  }

  /// Every hit: the index's hit counter (saturating at 255) and, on a flushed region, the
  /// policy's touch (LRU moves the region to the head). REQUIRES: h cached.
  void on_hit(Handle h) {
    ObjectEntry& e = table_[h];
    if (e.next < 255) ++e.next;
    const uint32_t rid = e.slot;
    if (regions_[rid].state == kOpen) {
      engine_.buffer_hits++;
      return;
    }
    engine_.flash_hits++;
    if (config_.eviction == BlockCacheEviction::kLru) lru_touch(rid);
  }

  /// A delete or the removal before a replacement: the index forgets h; its slot becomes a hole
  /// until its region is reclaimed. No I/O. REQUIRES: h cached.
  void remove(Handle h) {
    ObjectEntry& e = table_[h];
    const uint32_t size = e.size_bytes;
    const uint32_t slot = slot_bytes(size);
    engine_.hole_bytes += slot;
    engine_.hole_count++;
    engine_.used_slot_bytes -= slot;
    live_bytes_ -= size;
    live_objects_--;
    counters_.superseded_bytes += size;
    e.slot = kNone;
  }

  /// Key + value bytes of the cached objects.
  uint64_t used_bytes() const { return live_bytes_; }
  bool places_objects() const { return true; }
  const FrameworkCounters& counters() const { return counters_; }

  /// Index-map DRAM outside the entries: none (region, offset and hits are in the entry).
  size_t index_bytes() const { return 0; }
  /// DRAM of the region structures: the regions, the clean pool, the open regions and the
  /// eviction policy, from allocated capacities. The per-region entry lists are not counted:
  /// they model the EntryDescs navy writes on flash inside each region and reads back at
  /// reclaim (entry_model_bytes()).
  size_t queue_bytes() const {
    size_t bytes = regions_.capacity() * sizeof(Region) + pool_.capacity() * sizeof(uint32_t) +
                   open_.capacity() * sizeof(uint32_t) + lru_prev_.capacity() * sizeof(uint32_t) +
                   lru_next_.capacity() * sizeof(uint32_t) + ratio_.capacity() * sizeof(uint32_t);
    if (s3fifo_) bytes += ghost_.memory_bytes();
    for (const RegionRing& s : segments_) bytes += s.slots.capacity() * sizeof(uint32_t);
    return bytes;
  }
  /// DRAM the simulator spends on its copy of the regions' entry trailers (see queue_bytes()).
  size_t entry_model_bytes() const {
    size_t bytes = records_.capacity() * sizeof(std::vector<Record>);
    for (const std::vector<Record>& r : records_) bytes += r.capacity() * sizeof(Record);
    return bytes;
  }

  /// The engine's counters, gauges as of now.
  const BlockCacheCounters& engine_counters() const { return engine_; }
  /// DRAM navy's index would use: SparseMapIndex's 12 B per indexed object
  /// (docs/reference/navy-spec.md §9.3; without tsl::sparse_map's bucket overhead and fixed
  /// headers); with s3fifo, 8 B more per ghost key.
  uint64_t modelled_dram_index_bytes() const {
    return kBlockCacheIndexBytesPerObject * live_objects_ +
           (s3fifo_ ? kGhostKeyBytes * ghost_.size() : 0);
  }
  /// s3fifo: the model's DRAM per ghost key, a 64-bit key hash.
  static constexpr uint64_t kGhostKeyBytes = 8;

  // ---- introspection, for tests and results ----

  const BlockCacheGeometry& geometry() const { return geometry_; }
  const BlockCacheConfig& config() const { return config_; }
  uint64_t regions() const { return geometry_.regions; }
  uint64_t region_bytes() const { return region_bytes_; }
  /// The slot of an item of `size` bytes.
  uint32_t slot_bytes(uint32_t size) const {
    return static_cast<uint32_t>(blockcache_slot_bytes(size, align_));
  }
  /// The region holding cached object h.
  uint32_t region_of(Handle h) const { return table_[h].slot; }
  /// h's index hit counter (lookups since it was last written).
  uint32_t hits(Handle h) const { return table_[h].next; }
  /// The device offset of h's slot start, or kInRam while its region is open.
  uint64_t data_offset(Handle h) const {
    const ObjectEntry& e = table_[h];
    if (regions_[e.slot].state == kOpen) return kInRam;
    return base(e.slot) + e.prev - slot_bytes(e.size_bytes);
  }
  /// The allocator priority region `rid` was last opened with (s3fifo: 0 the small log, 1 the
  /// main log).
  uint32_t region_priority(uint32_t rid) const { return regions_[rid].priority; }
  /// s3fifo: whether `key` is in the ghost, and the ghost's keys.
  bool ghost_contains(uint64_t key) const { return ghost_.contains(key); }
  size_t ghost_size() const { return ghost_.size(); }
  /// s3fifo: the small log's regions at which reclaims take from it.
  uint64_t small_target_regions() const { return small_target_; }
  /// The open region of priority `p`, or kNone.
  uint32_t open_region(uint32_t p = 0) const { return open_[p]; }
  /// The clean pool, bottom first (the next region taken is the last).
  const std::vector<uint32_t>& clean_pool() const { return pool_; }
  /// The regions in the eviction policy, next victim first (FIFO, LRU: exactly the eviction
  /// order; SFIFO: segment 0 first, then 1, …).
  std::vector<uint32_t> eviction_order() const {
    std::vector<uint32_t> out;
    if (config_.eviction == BlockCacheEviction::kLru) {
      for (uint32_t r = lru_tail_; r != kNone; r = lru_prev_[r]) out.push_back(r);
    } else {
      for (const RegionRing& s : segments_) {
        for (size_t i = 0; i < s.count; ++i) out.push_back(s.at(i));
      }
    }
    return out;
  }
  /// Regions in each SFIFO segment (FIFO: one segment).
  std::vector<size_t> segment_sizes() const {
    std::vector<size_t> out;
    for (const RegionRing& s : segments_) out.push_back(s.count);
    return out;
  }
  size_t cached_objects() const { return live_objects_; }

  /// Recomputes the structure's totals and returns the first inconsistency, or "" when there is
  /// none. O(regions + entries): for tests.
  std::string check_invariants() const {
    uint64_t live = 0, bytes = 0, slots = 0, holes = 0, hole_count = 0, tracked = 0, frag = 0;
    for (uint32_t r = 0; r < regions_.size(); ++r) {
      const Region& g = regions_[r];
      const std::vector<Record>& recs = records_[r];
      if (g.items != recs.size()) return "region " + std::to_string(r) + ": items != records";
      if (!recs.empty() && recs.back().end != g.end) return "region end != last record end";
      if (g.end > region_bytes_) return "region past its size";
      if (g.state == kTracked) ++tracked;
      if (g.state == kTracked && g.flushed) frag += region_bytes_ - g.end;
      if (g.state == kClean && g.items != 0) return "clean region holds entries";
      for (size_t i = 0; i < recs.size(); ++i) {
        const uint32_t slot = recs[i].end - (i == 0 ? 0 : recs[i - 1].end);
        if (holds(r, recs[i])) {
          ++live;
          bytes += table_[recs[i].h].size_bytes;
          slots += slot;
          if (slot != slot_bytes(table_[recs[i].h].size_bytes)) return "slot size mismatch";
        } else {
          holes += slot;
          ++hole_count;
        }
      }
    }
    if (live != live_objects_) return "live objects " + std::to_string(live);
    if (bytes != live_bytes_) return "live bytes";
    if (slots != engine_.used_slot_bytes) return "used slot bytes";
    if (holes != engine_.hole_bytes || hole_count != engine_.hole_count) return "holes";
    if (frag != engine_.external_fragmentation_bytes) return "external fragmentation";
    if (tracked != eviction_order().size()) return "policy size != tracked regions";
    if (s3fifo_) {
      for (uint32_t log = 0; log < 2; ++log) {
        const RegionRing& ring = segments_[log];
        for (size_t i = 0; i < ring.count; ++i) {
          if (regions_[ring.at(i)].priority != log) return "s3fifo region in the other log";
        }
      }
    }
    for (const uint32_t r : pool_) {
      if (regions_[r].state != kClean) return "pool region not clean";
    }
    uint64_t open = 0;
    for (const uint32_t r : open_) open += r != kNone;
    if (pool_.size() + open + tracked != regions_.size()) return "regions unaccounted for";
    if (pending_ != 0 || outstanding_ != 0) return "reclaims pending between requests";
    return "";
  }

 private:
  enum State : uint8_t { kTracked, kOpen, kClean, kReclaiming };

  struct Region {
    uint32_t end = 0;        // lastEntryEndOffset
    uint32_t items = 0;      // numItems: entries allocated, dead copies included
    uint16_t priority = 0;   // the allocator priority it was opened with
    State state = kTracked;  // tracked in the policy (flushed, or empty at start), open, clean
    bool flushed = false;    // written to flash since it was last reset
  };

  // One entry of a region, as its EntryDesc on flash: the object and the slot's end offset.
  struct Record {
    Handle h;
    uint32_t end;
  };

  // A fixed-capacity ring of region ids (a FIFO segment).
  struct RegionRing {
    std::vector<uint32_t> slots;
    size_t head = 0, count = 0;
    void init(size_t capacity) { slots.assign(std::max<size_t>(1, capacity), kNone); }
    uint32_t at(size_t i) const { return slots[(head + i) % slots.size()]; }
    void push_back(uint32_t r) {
      slots[(head + count) % slots.size()] = r;
      ++count;
    }
    uint32_t pop_front() {
      const uint32_t r = slots[head];
      head = (head + 1) % slots.size();
      --count;
      return r;
    }
  };

  uint64_t base(uint32_t rid) const { return base_ + uint64_t{rid} * region_bytes_; }

  // Whether record `r` of region `rid` is the live copy of its object (the index's address is
  // this slot's end: BlockCache.cpp:1156-1166).
  bool holds(uint32_t rid, const Record& r) const {
    const ObjectEntry& e = table_[r.h];
    return e.slot == rid && e.prev == r.end;
  }

  // Allocator::allocateWith + RegionManager::getCleanRegion for a slot at priority `p`: the open
  // region when the slot fits it; else the open region is flushed and a clean region taken (its
  // id returned), scheduling reclaims up to C planned clean regions; kNone (Retry) when the
  // pool is empty.
  uint32_t allocate(uint32_t slot, uint32_t p) {
    const uint32_t open = open_[p];
    if (open != kNone) {
      if (regions_[open].end + uint64_t{slot} <= region_bytes_) return open;
      open_[p] = kNone;
      flush(open);
    }
    uint32_t rid = kNone;
    if (!pool_.empty()) {
      rid = pool_.back();
      pool_.pop_back();
    }
    const uint64_t planned = pool_.size() + outstanding_;
    if (planned < config_.clean_regions) {
      const uint64_t n = config_.clean_regions - planned;
      pending_ += n;
      outstanding_ += n;
    }
    if (rid == kNone) return kNone;
    Region& g = regions_[rid];
    g.priority = static_cast<uint16_t>(p);
    g.state = kOpen;
    open_[p] = rid;
    return rid;
  }

  // Bump-allocates h's slot in open region `rid` and points the index at it (hits reset).
  void place(Handle h, uint32_t rid, uint32_t slot) {
    Region& g = regions_[rid];
    g.end += slot;
    g.items++;
    records_[rid].push_back(Record{h, g.end});
    ObjectEntry& e = table_[h];
    e.slot = rid;
    e.prev = g.end;
    e.next = 0;
    engine_.logical_bytes_written += e.size_bytes;
  }

  // doFlush + doFlushInternal: the whole region buffer written, then tracked.
  void flush(uint32_t rid) {
    Region& g = regions_[rid];
    device_.write(base(rid), region_bytes_, placement_);
    engine_.flash_bytes_written += region_bytes_;
    engine_.region_flushes++;
    engine_.external_fragmentation_bytes += region_bytes_ - g.end;
    g.state = kTracked;
    g.flushed = true;
    track(rid);
  }

  // doReclaim: the policy's victim read, its entries walked newest first, then reset and
  // pushed on the clean pool.
  void run_reclaim() {
    --pending_;
    const uint32_t rid = policy_evict();
    if (rid == kNone) throw std::logic_error("blockcache: reclaim found no region to evict");
    Region& g = regions_[rid];
    engine_.regions_reclaimed++;
    if (g.flushed) engine_.external_fragmentation_bytes -= region_bytes_ - g.end;
    g.state = kReclaiming;
    if (g.items > 0) {
      const uint64_t len = (uint64_t{g.end} + io_align_ - 1) / io_align_ * io_align_;
      device_.read(base(rid), len);
      engine_.reclaim_read_bytes += len;
    }
    // records_ is never resized, so this reference stays valid while reinsertions append to
    // other regions' records.
    const std::vector<Record>& recs = records_[rid];
    const bool small_log = g.priority == 0;  // s3fifo: S's region (else M's)
    for (size_t i = recs.size(); i-- > 0;) {
      const Record r = recs[i];
      const uint32_t slot = r.end - (i == 0 ? 0 : recs[i - 1].end);
      if (!holds(rid, r)) {  // REMOVED: a hole reclaimed
        engine_.dead_entries_reclaimed++;
        engine_.dead_bytes_reclaimed += slot;
        engine_.hole_bytes -= slot;
        engine_.hole_count--;
        continue;
      }
      const Handle h = r.h;
      uint32_t p;
      uint32_t freq = 0;  // s3fifo, clock: the copy's counter (place() resets the hits)
      if (s3fifo_) {
        const uint32_t hits = table_[h].next;
        if (small_log ? hits < config_.s3fifo_move_to_main_threshold : hits == 0) {
          if (small_log) ghost_.push(table_[h].key, slot);
          evict(h, slot);
          engine_.evictions++;
          continue;
        }
        p = 1;
        if (small_log) {
          engine_.moved_to_main++;
        } else {
          freq = std::min<uint32_t>(hits, 3) - 1;
        }
      } else {
        if (!should_reinsert(h)) {
          evict(h, slot);
          engine_.evictions++;
          continue;
        }
        p = std::min<uint32_t>(table_[h].next, priorities_ - 1);
        if (config_.reinsertion == BlockCacheReinsertion::kClock) {
          freq = std::min<uint32_t>(table_[h].next, (1u << config_.clock_bits) - 1) - 1;
        }
      }
      const uint32_t to = allocate(slot, p);
      if (to == kNone) {  // FAILED: dropped
        engine_.reinsertion_failures++;
        evict(h, slot);
        continue;
      }
      const uint32_t size = table_[h].size_bytes;
      place(h, to, slot);
      table_[h].next = freq;
      counters_.reinsertions++;
      counters_.reinserted_bytes += size;
      counters_.placed_bytes += size;
      counters_.placed_objects++;
      counters_.superseded_bytes += size;  // the copy left in the reclaimed region
      engine_.reinsertions++;
      engine_.reinsertion_slot_bytes += slot;
    }
    records_[rid].clear();
    // On a zoned device the region is a zone: resetting it is the host's collection (erases
    // what the region's flush wrote; no copy, the device has no GC).
    if (zoned_ && g.flushed) device_.zone_reset(base(rid));
    g = Region{};
    g.state = kClean;
    --outstanding_;
    pool_.push_back(rid);
  }

  bool should_reinsert(Handle h) {
    switch (config_.reinsertion) {
      case BlockCacheReinsertion::kNone:
        return false;
      case BlockCacheReinsertion::kHits:
        return table_[h].next >= config_.hits_threshold;
      case BlockCacheReinsertion::kPercentage:
        return rng_.below(100) < config_.reinsertion_pct;
      case BlockCacheReinsertion::kClock:
        return table_[h].next > 0;
    }
    return false;
  }

  // The eviction protocol (engine/queue.h): the sink sees h while it is cached, then h leaves.
  void evict(Handle h, uint32_t slot) {
    sink_.before_evict(h);
    ObjectEntry& e = table_[h];
    const uint32_t size = e.size_bytes;
    e.slot = kNone;
    live_bytes_ -= size;
    live_objects_--;
    engine_.used_slot_bytes -= slot;
    counters_.evicted_objects++;
    counters_.evicted_bytes += size;
    table_.remove(h);
  }

  // ---- the eviction policy ----

  void track(uint32_t rid) {
    if (config_.eviction == BlockCacheEviction::kLru) {
      if (!lru_in_list(rid)) lru_link_at_head(rid);  // LruPolicy.cpp:50-64
      return;
    }
    segments_[regions_[rid].priority].push_back(rid);  // FifoPolicy.cpp:39-43, :105-112
    if (!s3fifo_) rebalance();
  }

  uint32_t policy_evict() {
    if (config_.eviction == BlockCacheEviction::kLru) {
      if (lru_tail_ == kNone) return kNone;  // LruPolicy.cpp:66-88
      const uint32_t r = lru_tail_;
      lru_unlink(r);
      return r;
    }
    if (s3fifo_) {
      // S's oldest while S holds its share, else M's; the other when the chosen log is empty.
      RegionRing& small = segments_[0];
      RegionRing& main = segments_[1];
      RegionRing& from = (small.count >= small_target_ || main.count == 0) ? small : main;
      return from.count == 0 ? kNone : from.pop_front();
    }
    RegionRing& lowest = segments_.front();  // FifoPolicy.cpp:45-52, :114-125
    if (lowest.count == 0) return kNone;
    const uint32_t r = lowest.pop_front();
    rebalance();
    return r;
  }

  // SegmentedFifoPolicy::rebalanceLocked (FifoPolicy.cpp:127-151): from the highest segment
  // down, a segment over its share of the tracked regions passes its oldest down.
  void rebalance() {
    uint64_t total = 0;
    for (const RegionRing& s : segments_) total += s.count;
    for (size_t seg = segments_.size(); seg-- > 1;) {
      const uint64_t limit = total * ratio_[seg] / ratio_sum_;
      while (segments_[seg].count > limit) segments_[seg - 1].push_back(segments_[seg].pop_front());
    }
  }

  bool lru_in_list(uint32_t i) const { return lru_prev_[i] != kNone || lru_next_[i] != kNone; }

  // LruPolicy::touch (LruPolicy.cpp:35-48): a region in the list moves to the head.
  void lru_touch(uint32_t i) {
    if (!lru_in_list(i)) return;
    lru_unlink(i);
    lru_link_at_head(i);
  }

  void lru_unlink(uint32_t i) {  // LruPolicy.cpp:97-115
    if (lru_tail_ == i) {
      lru_tail_ = lru_prev_[i];
    } else {
      lru_prev_[lru_next_[i]] = lru_prev_[i];
    }
    if (lru_head_ == i) {
      lru_head_ = lru_next_[i];
    } else {
      lru_next_[lru_prev_[i]] = lru_next_[i];
    }
    lru_next_[i] = kNone;
    lru_prev_[i] = kNone;
  }

  void lru_link_at_head(uint32_t i) {  // LruPolicy.cpp:117-128
    if (i == lru_head_) return;
    if (lru_head_ != kNone) lru_prev_[lru_head_] = i;
    lru_next_[i] = lru_head_;
    lru_head_ = i;
    if (lru_tail_ == kNone) lru_tail_ = i;
  }

  ObjectTable& table_;
  Device& device_;
  EvictionSink sink_;
  uint64_t base_;       // ctx.device_offset: region r is at base_ + r·R
  bool zoned_ = false;  // the device has zones: region r is a zone, reset when reclaimed
  uint32_t placement_;  // the FDP placement handle of its one data class, regions
  BlockCacheConfig config_;
  BlockCacheGeometry geometry_;
  uint64_t region_bytes_;
  uint32_t align_;
  uint64_t max_item_bytes_;
  uint64_t io_align_;
  uint32_t priorities_;
  bool s3fifo_;                // region eviction s3fifo: two logs and a ghost
  uint64_t small_target_ = 0;  // s3fifo: S's regions at which reclaims take from S
  GhostList ghost_;            // s3fifo: keys evicted from S (capacity 0 otherwise)
  RngStream rng_;

  std::vector<Region> regions_;
  std::vector<std::vector<Record>> records_;  // by region: its entries, oldest first
  std::vector<uint32_t> pool_;                // the clean pool (LIFO: back is taken next)
  std::vector<uint32_t> open_;                // by priority: the open region or kNone
  uint64_t pending_ = 0;                      // reclaims scheduled, not started
  uint64_t outstanding_ = 0;                  // reclaims scheduled, not finished (navy's)

  std::vector<uint32_t> lru_prev_, lru_next_;  // LRU: links toward the head / the tail
  uint32_t lru_head_ = kNone, lru_tail_ = kNone;
  std::vector<RegionRing> segments_;  // FIFO (one) and SFIFO segments, lowest priority first
  std::vector<uint32_t> ratio_;
  uint64_t ratio_sum_ = 0;

  uint64_t live_bytes_ = 0;
  uint64_t live_objects_ = 0;
  FrameworkCounters counters_;
  BlockCacheCounters engine_;
};

/// The `blockcache` framework as registered (engine/framework.h); its keys: BlockCacheConfig.
struct BlockCacheFramework {
  static const ComponentSpec& spec();
  /// Decodes the keys it reads, to check them. Throws std::invalid_argument.
  static void check(const Params& params) { BlockCacheConfig::from(params); }
  /// N regions of R bytes over C (device_bytes = N·R, block_bytes = R), and notes for
  /// configurations that mislead: objects larger than a region drawing 1 % of the requests or
  /// more (never cached), and clean plus open regions over a quarter of the regions (they hold
  /// no data). Throws std::invalid_argument in unit-size mode (the engine lays out bytes) and as
  /// blockcache_geometry().
  static FrameworkLayout layout(const Params& params, const CacheShape& shape);
  /// The largest object (key + value, bytes) the engine caches on a cache of `shape`: the
  /// region size, capped at navy's kMaxItemSize, less the 32-byte EntryDesc. Throws as layout().
  static uint64_t max_object_bytes(const Params& params, const CacheShape& shape);
  static constexpr bool kHasQueue = true;
  static constexpr bool kEngine = true;
  template <class P>
  using Queue = BlockCacheQueue;
};

}  // namespace flashpq
