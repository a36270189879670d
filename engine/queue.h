// engine/queue.h — what every priority-queue framework implementation shares: its
// configuration, its context, its counters and the contract the cache relies on.
//
// A queue type Q (exact, RIPQ, SIPQ, …) provides, for the cache (engine/cache.h):
//   explicit Q(const QueueContext&);
//   bool admits(uint32_t size) const;         could an object of `size` bytes ever be stored
//   Handle victim(uint32_t size) const;       the object the next eviction would remove if an
//                                             object of `size` bytes were inserted now, or
//                                             kNoHandle if none would be evicted (admission)
//   void make_room(uint32_t size);            evicts (through the sink) until an insertion of
//                                             `size` bytes needs no further eviction, where the
//                                             framework can know that (exact); may do nothing
//   void insert(Handle, double p);            §4.1 insert; may evict through the sink
//   void increase(Handle, double p);          §4.1 increase
//   double priority(Handle) const;            the object's current priority
//   void read_hit(Handle);                    a hit: read the object from the device where
//                                             it is on flash (FrameworkConfig::read_hits)
//   void remove(Handle);                      a delete or a replacement: drop the object
//   uint64_t used_bytes() const;              bytes of cached objects
//   const FrameworkCounters& counters() const;
//   static constexpr unsigned kOrderWords;    how many of the entry's three framework words
//                                             (prev, next, slot) the queue uses to order
//                                             objects — list links, segment, heap position —
//                                             rather than to locate them (see below)
//   size_t index_bytes() const;               DRAM of index-map state the queue keeps by
//                                             handle outside the entries (locations)
//   size_t queue_bytes() const;               DRAM of the queue structure outside the entries:
//                                             segments, heap, blocks and sections, histogram,
//                                             per-object priorities, allocators
// Relative queues take p ∈ [0, 1]; absolute queues take any finite p.
//
// DRAM is reported in the three parts of the RIPQ paper's §4.2, by what a byte does, not by
// where it is stored (Cache::index_bytes(), queue_bytes()):
//   * the index map — "an in-memory hash table which associates all objects' keys with their
//     metadata, including their locations in RAM or flash, sizes, and block IDs" (§4.2; the
//     paper's entry is ~20 B plus 2 B for RIPQ's virtual block id): the table's buckets, each
//     entry's key, size and chain link, and the framework words that locate the object
//     (device block, offset, virtual block) or that the framework leaves unused;
//   * the queue structure — what orders the objects: the framework words used as links,
//     segment or heap position (kOrderWords of them per entry), the queue's own structures and
//     per-object priorities, and the policy's per-object state (GDSF's counts);
//   * the block buffers (FrameworkCounters::dram_buffer_bytes).
// A framework's DRAM per cached object is the sum of the first two.
//
// Eviction protocol: the queue calls sink.before_evict(h) while h is still queued (so the
// policy can read its priority, e.g. GDSF's clock), then unlinks h, counts it, and removes it
// from the ObjectTable. A delete or replacement goes through remove() and the cache removes the
// entry itself.
#pragma once

#include <cstdint>
#include <string>

#include "engine/object_table.h"

namespace flashpq {

class Device;

/// The `framework:` section of an experiment. Each framework reads the fields it documents and
/// validate() rejects values outside their ranges (never clamps).
struct FrameworkConfig {
  /// Registered framework name: "exact", "ripq", "sipq", or "direct" (no cache: every request
  /// is block I/O sent straight to the device; sim/direct.h). Default "exact".
  std::string name = "exact";

  /// exact: where objects go on the device. "none" (default): nowhere, an in-memory baseline;
  /// "naive": each object written on its own at the lowest free offset aligned to
  /// `placement_alignment_bytes`, its extent trimmed on eviction (RIPQ paper §4.2, "Naive
  /// Design").
  std::string placement = "none";
  /// exact with naive placement: alignment of each object's extent, bytes. Default 4096.
  /// REQUIRES: a power of two.
  uint32_t placement_alignment_bytes = 4096;

  /// ripq, sipq: device block size B in bytes, the unit written to flash. Default 1 MiB.
  /// Range [1 B, 4 GiB); a real device also needs a multiple of its logical block size. In
  /// unit-size mode (every object counts 1) B counts objects, like the capacity.
  uint64_t block_size_bytes = 1 << 20;
  /// ripq: insertion points K; α = 1/K (§4.2, Table 3). Default 8. Range [1, 64].
  uint32_t insertion_points = 8;
  /// ripq: free device blocks kept for sealing; delete-min runs below it (§4.4 footnote 6:
  /// 10). Default 10. Range [1, 1000]. A reclaimed block's slot is free only once its
  /// materializations are appended, so with 1 an active block that fills meanwhile finds no
  /// slot and a further tail block is reclaimed early (adaptsize at 10 %, B = C/256, SLRU-3:
  /// 54 % of the flash holds objects at the end against 88 % with 10, hit ratio 0.3715 against
  /// 0.3797); 2 or more avoid it.
  uint32_t reserved_blocks = 10;
  /// ripq: objects whose relative priority is below this are evicted instead of materialized
  /// (§4.4, the occupancy trade-off; 0 = always materialize). Default 0. Range [0, 1).
  double materialize_threshold = 0.0;
  /// ripq: bins κ of the dynamic histogram translating absolute priorities (§4.3). Default
  /// 100. Range [2, 100000].
  uint32_t histogram_bins = 100;
  /// sipq: logical occupancy θ (§5): the in-memory virtual cache holds at most
  /// ⌊θ · (M·B − padding)⌋ bytes, M·B the log's bytes and padding the unused tails of its
  /// written blocks (engine/sipq/sipq_queue.h). Default 0.5. Range [0, 1]; the paper's is
  /// (0, 1). At 1 the virtual cache is the whole log, so a miss reclaims block after block,
  /// reinserting each, for up to a lap of the log before the stall guard drops objects: w106
  /// at 10 %, B = C/256, LRU: implementation WA 16,082 and 160 s, against 3.16 and 0.6 s at 0.9.
  double occupancy = 0.5;
  /// ripq, sipq, exact with naive placement: a cache hit reads the object's bytes from the
  /// device when they are on flash (not in a RAM block buffer), widened to whole logical
  /// blocks; this is what a flash cache does to serve a hit, and what timed runs charge it.
  /// false: hits do no I/O (the functional results — hit ratios, writes, WA — are the same
  /// either way; only device_reads and timing change). Default true.
  bool read_hits = true;
  /// direct: bytes per unit of a request's key: the I/O's byte offset is key × offset_unit
  /// (1 for byte offsets, as the device_io generator yields; 512 for sector numbers). Default
  /// 1. Range [1, 2^32].
  uint64_t offset_unit_bytes = 1;

  /// Throws std::invalid_argument quoting the bad value.
  void validate() const;
};

/// Receives evictions from a queue (see the file comment). A function pointer and a context
/// rather than a virtual interface: one indirect call per eviction, none per request.
struct EvictionSink {
  void (*fn)(void* ctx, Handle h) = nullptr;
  void* ctx = nullptr;
  void before_evict(Handle h) const {
    if (fn) fn(ctx, h);
  }
};

/// Everything a queue is built from. References must outlive the queue.
struct QueueContext {
  ObjectTable& table;
  Device& device;
  const FrameworkConfig& framework;
  /// The cache capacity in bytes (objects in unit-size mode).
  uint64_t capacity_bytes;
  /// Relative policies: the L of their k/L priorities (engine/exact/relative_queue.h).
  uint32_t grid;
  EvictionSink sink;
};

/// Object-level accounting of a framework. Balance (checked by tests): every object copy
/// placed is live, evicted or superseded:
///   placed_bytes == used_bytes() + evicted_bytes + superseded_bytes.
struct FrameworkCounters {
  /// Object copies written into the cache (insertions and reinsertions), bytes and count.
  uint64_t placed_bytes = 0;
  uint64_t placed_objects = 0;
  /// Copies written again to keep their priority: RIPQ materializations (§4.4), SIPQ
  /// reinsertions (§5).
  uint64_t reinsertions = 0;
  uint64_t reinserted_bytes = 0;
  /// Objects dropped by delete-min.
  uint64_t evicted_objects = 0;
  uint64_t evicted_bytes = 0;
  /// Copies dropped otherwise: deletes, replacements, and the old copy a reinsertion leaves.
  uint64_t superseded_bytes = 0;
  /// DRAM of block buffers (RIPQ: active blocks; SIPQ: its write buffer), bytes.
  uint64_t dram_buffer_bytes = 0;
};

}  // namespace flashpq
