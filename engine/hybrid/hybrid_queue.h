// engine/hybrid/hybrid_queue.h — CacheLib navy's hybrid: a small-object engine (BigHash) and a
// large-object engine (BlockCache) on one device, objects routed between them by size.
//
// Source: github.com/facebook/CacheLib at 278ffc74e3015608e385a87caba9f65f9d1113dd
// (docs/reference/navy-spec.md §1.2, §4.1).
//   * Routing (cachelib/navy/common/Types.h:114-118, EnginePair.cpp:35-46): an object whose
//     key + value is at most framework.hybrid_small_item_max_size (navySmallItemMaxSize,
//     CacheBench's default 2048 B) goes to BigHash, a larger one to BlockCache. FlashPQ's
//     object size is the key + value (engine/bighash/bighash_queue.h). The threshold may not
//     exceed BigHash's largest item (bucket − 44 B; EnginePair.cpp:323-334 throws).
//   * Layout of a device of D = C bytes (NavySetup.cpp:244-329): navy's metadata first,
//     ⌈⌊0.005·D⌋ & ~(g−1)⌉_g bytes (g: the device's logical block; written only at shutdown,
//     so never here), then BlockCache's regions, then BigHash at the end:
//       bh_reserved = ⌊D · framework.hybrid_small_pct / 100⌋   (navyBigHashSizePct, 50)
//       bh_offset   = bh_reserved rounded so that bh_offset = alignUp(D − bh_reserved, B)
//       bh_size     = alignDown(D − bh_offset, B)
//       bc_size     = alignDown(bh_offset − metadata, R)      (R the region size)
//     Each engine addresses its own range of the device (QueueContext::device_offset).
//   * Lookup (EnginePair.cpp:61-79, 161-181): BlockCache's index first (DRAM, no I/O), then
//     BigHash, whose Bloom filter may cost a bucket read: a miss is passed to BigHash's
//     on_lookup_miss. A hit is served by the engine that holds the object.
//   * Insert of a key cached in the other engine: navy's insert removes it from the other
//     engine afterwards (EnginePair.cpp:81-120); FlashPQ's cache removes the old copy before it
//     inserts the new one (engine/cache.h), from whichever engine holds it. The same copies
//     remain; a remove of a key navy's other engine does not hold (a Bloom probe, maybe a bucket
//     read) is not modelled, as for BigHash alone.
// Counters, DRAM and device bytes are the two engines' sums.
// Placement (NVMe FDP, docs/reference/fdp-spec.md): as CacheLib gives navy's BigHash and
// BlockCache a placement handle each, after the default handle 0 (allocateFdpHandle,
// cachelib/navy/common/FdpNvme.cpp:49-61; BigHash.cpp:92, RegionManager.cpp:57), the small
// engine writes with handle 1 and BlockCache with handle 2 (Kangaroo: its KLog 1, its KSet 2,
// BlockCache 3): device.fdp.handles 3 puts each on a reclaim unit handle of its own; with
// fewer, a device takes the others through handle 0. framework.placement_handles maps the
// classes to other handles (QueueContext::placement).
// framework.hybrid_small_engine kangaroo puts Kangaroo (engine/kangaroo/) in BigHash's place:
// the same routing, its range at the device's end in whole sets, the same lookup order (its
// KLog index and its sets' Bloom filters after BlockCache's index). Each call goes to the one
// small engine built (a branch, the same way every time).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>

#include "engine/bighash/bighash_queue.h"
#include "engine/blockcache/blockcache_queue.h"
#include "engine/hybrid/hybrid_config.h"
#include "engine/kangaroo/kangaroo_queue.h"
#include "engine/queue.h"

namespace flashpq {

/// What the hybrid counts beyond FrameworkCounters: its engines' own counters.
struct HybridCounters {
  /// The small engine's (BigHashCounters's or KangarooCounters's
  /// bloom_false_positive_reads).
  uint64_t bloom_false_positive_reads = 0;
  /// Kangaroo's pre-log admission rejections (KangarooCounters::admission_rejections); 0 with
  /// BigHash.
  uint64_t admission_rejections = 0;
  /// Objects each engine took (insertions, reinsertions excluded).
  uint64_t small_inserts = 0;
  uint64_t large_inserts = 0;
};

class HybridQueue {
  // Defined first: the members below deduce their return types from these.
  // fn(the small engine built).
  template <class Fn>
  decltype(auto) with_small(Fn&& fn) {
    return kangaroo_ ? fn(*kangaroo_) : fn(*bighash_);
  }
  template <class Fn>
  decltype(auto) with_small(Fn&& fn) const {
    return kangaroo_ ? fn(*kangaroo_) : fn(*bighash_);
  }

 public:
  static constexpr unsigned kOrderWords = std::max(
      {BigHashQueue::kOrderWords, KangarooQueue::kOrderWords, BlockCacheQueue::kOrderWords});

  /// Splits ctx's capacity between the engines as navy does (hybrid_layout()) and builds both,
  /// each reading its own keys from ctx.framework.params. Throws std::invalid_argument as
  /// HybridConfig::from, hybrid_layout() and the engines' constructors.
  explicit HybridQueue(const QueueContext& ctx)
      : HybridQueue(ctx, HybridConfig::from(ctx.framework.params)) {}

  HybridQueue(const QueueContext& ctx, const HybridConfig& config)
      : HybridQueue(ctx, config,
                    hybrid_layout(config, ctx.framework.params, ctx.capacity_bytes,
                                  ctx.device.logical_block_bytes())) {}

  bool admits(uint32_t size) const {
    return small(size) ? with_small([&](const auto& q) { return q.admits(size); })
                       : large_.admits(size);
  }
  Handle victim(uint32_t) const { return kNoHandle; }
  void make_room(uint32_t) {}
  void insert(Handle h, double p) {
    if (small(table_[h].size_bytes)) {
      ++engine_.small_inserts;
      with_small([&](auto& q) { q.insert(h, p); });
    } else {
      ++engine_.large_inserts;
      large_.insert(h, p);
    }
  }
  void increase(Handle, double) {}
  double priority(Handle) const { return 0; }
  void read_hit(Handle h) {
    if (small(table_[h].size_bytes)) {
      with_small([&](auto& q) { q.read_hit(h); });
    } else {
      large_.read_hit(h);
    }
  }
  void on_hit(Handle h) {
    if (small(table_[h].size_bytes)) {
      with_small([&](auto& q) { q.on_hit(h); });
    } else {
      large_.on_hit(h);
    }
  }
  /// BlockCache's index is looked up first (DRAM); then the small engine (BigHash's Bloom
  /// filter; Kangaroo's KLog index and its set's filter).
  void on_lookup_miss(uint64_t key) {
    with_small([&](auto& q) { q.on_lookup_miss(key); });
  }
  void remove(Handle h) {
    if (small(table_[h].size_bytes)) {
      with_small([&](auto& q) { q.remove(h); });
    } else {
      large_.remove(h);
    }
  }

  uint64_t used_bytes() const {
    return with_small([](const auto& q) { return q.used_bytes(); }) + large_.used_bytes();
  }
  bool places_objects() const { return true; }
  /// The engines' counters added (dram_buffer_bytes: BlockCache's buffers).
  const FrameworkCounters& counters() const {
    const FrameworkCounters& a =
        with_small([](const auto& q) -> const FrameworkCounters& { return q.counters(); });
    const FrameworkCounters& b = large_.counters();
    sum_.placed_bytes = a.placed_bytes + b.placed_bytes;
    sum_.placed_objects = a.placed_objects + b.placed_objects;
    sum_.reinsertions = a.reinsertions + b.reinsertions;
    sum_.reinserted_bytes = a.reinserted_bytes + b.reinserted_bytes;
    sum_.evicted_objects = a.evicted_objects + b.evicted_objects;
    sum_.evicted_bytes = a.evicted_bytes + b.evicted_bytes;
    sum_.superseded_bytes = a.superseded_bytes + b.superseded_bytes;
    sum_.dram_buffer_bytes = a.dram_buffer_bytes + b.dram_buffer_bytes;
    return sum_;
  }
  const HybridCounters& engine_counters() const {
    engine_.bloom_false_positive_reads =
        with_small([](const auto& q) { return q.engine_counters().bloom_false_positive_reads; });
    engine_.admission_rejections =
        kangaroo_ ? kangaroo_->engine_counters().admission_rejections : 0;
    return engine_;
  }
  /// DRAM of both engines' indexes as navy counts them (BigHash's filters, BlockCache's
  /// SparseMapIndex).
  uint64_t modelled_dram_index_bytes() const {
    return with_small([](const auto& q) { return q.modelled_dram_index_bytes(); }) +
           large_.modelled_dram_index_bytes();
  }
  size_t index_bytes() const {
    return with_small([](const auto& q) { return q.index_bytes(); }) + large_.index_bytes();
  }
  size_t queue_bytes() const {
    return with_small([](const auto& q) { return q.queue_bytes(); }) + large_.queue_bytes();
  }

  /// The engines, for tests and reports: the small one built (the other is null).
  const BigHashQueue* bighash_engine() const { return bighash_ ? &*bighash_ : nullptr; }
  const KangarooQueue* kangaroo_engine() const { return kangaroo_ ? &*kangaroo_ : nullptr; }
  const BlockCacheQueue& large_engine() const { return large_; }
  const HybridLayout& layout() const { return layout_; }

 private:
  HybridQueue(const QueueContext& ctx, const HybridConfig& config, const HybridLayout& layout)
      : table_(ctx.table),
        small_max_(config.small_item_max_bytes),
        layout_(layout),
        large_(
            part(ctx, layout.large_offset, layout.large_bytes, small_classes(config), 1, config)) {
    const QueueContext small_ctx =
        part(ctx, layout.small_offset, layout.small_bytes, 0, small_classes(config), config);
    if (config.small_engine == HybridConfig::SmallEngine::kKangaroo) {
      kangaroo_.emplace(small_ctx);
    } else {
      bighash_.emplace(small_ctx);
    }
  }

  // The small engine's data classes: BigHash's buckets, or Kangaroo's KLog and KSet.
  static uint32_t small_classes(const HybridConfig& config) {
    return config.small_engine == HybridConfig::SmallEngine::kKangaroo ? 2 : 1;
  }

  // An engine's context: its range of the device, and its data classes' placement handles —
  // classes [first, first + count) of the hybrid's (the small engine's, then BlockCache's):
  // the given list's, or one handle each from 1 (CacheLib's order, after the default handle 0).
  static QueueContext part(const QueueContext& ctx, uint64_t offset, uint64_t bytes, uint32_t first,
                           uint32_t count, const HybridConfig& config) {
    QueueContext c = ctx;
    c.capacity_bytes = bytes;
    c.device_offset = ctx.device_offset + offset;
    if (ctx.placement_handles.empty()) {
      c.placement_first = 1 + first;
      return c;
    }
    // QueueContext::placement checks the list against the hybrid's classes, as every queue's.
    c.placement_handles.clear();
    for (uint32_t i = first; i < first + count; ++i) {
      c.placement_handles.push_back(small_classes(config) == 2
                                        ? ctx.placement(i, {"klog", "kset", "regions"})
                                        : ctx.placement(i, {"buckets", "regions"}));
    }
    return c;
  }

  bool small(uint64_t size) const { return size <= small_max_; }

  ObjectTable& table_;
  uint64_t small_max_;
  HybridLayout layout_;
  BlockCacheQueue large_;
  std::optional<BigHashQueue> bighash_;  // one of the two small engines
  std::optional<KangarooQueue> kangaroo_;
  mutable FrameworkCounters sum_;
  mutable HybridCounters engine_;
};

/// The `hybrid` framework as registered (engine/framework.h): navy's small/large split. Reads
/// HybridConfig's keys and both engines' (framework.bighash_*, framework.blockcache_*).
struct HybridFramework {
  static const ComponentSpec& spec();
  /// Decodes the keys it reads, to check them. Throws std::invalid_argument.
  static void check(const Params& params) {
    HybridConfig::from(params);
    BigHashConfig::from(params);
    KangarooConfig::from(params);
    BlockCacheConfig::from(params);
  }
  /// The two ranges (hybrid_layout()): device_bytes up to BigHash's end, block_bytes the
  /// region size; notes when one engine is given nearly all the requests. Throws
  /// std::invalid_argument in unit-size mode and as hybrid_layout().
  static FrameworkLayout layout(const Params& params, const CacheShape& shape);
  static constexpr bool kHasQueue = true;
  static constexpr bool kEngine = true;
  template <class P>
  using Queue = HybridQueue;
};

}  // namespace flashpq
