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
//                                             it is on flash (framework.read_hits)
//   void remove(Handle);                      a delete or a replacement: drop the object
//   uint64_t used_bytes() const;              bytes of cached objects
//   bool places_objects() const;              whether objects are written to the device at
//                                             all (exact without placement: no)
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
#include "sim/params.h"

namespace flashpq {

class Device;

/// The `framework:` section of an experiment: the registered name of the framework
/// (engine/framework.h) and the values of the section's keys. Each framework declares the keys
/// it reads and decodes them itself (RipqConfig, SipqConfig, ExactConfig, DirectConfig), so
/// `params` may hold only what differs from the defaults.
struct FrameworkConfig {
  /// Registered framework name: "exact", "ripq", "sipq", or "direct" (no cache: every request
  /// is block I/O sent straight to the device; engine/direct/direct.h). Default "exact".
  std::string name = "exact";
  /// The framework.* values, by dotted key.
  Params params;
};

/// framework.block_size, read by RIPQ and SIPQ: the device block size B in bytes, the unit
/// written to flash. Range [1 B, 4 GiB); a real device also needs a multiple of its logical
/// block size. In unit-size mode (every object counts 1) B counts objects, like the capacity.
inline const KeySpec kBlockSizeKey = key("framework.block_size", ValueType::kSize)
                                         .def("1MiB")
                                         .units("bytes")
                                         .range(1, 4294967295.0)
                                         .desc("device block size B (objects in unit-size mode)");

/// framework.read_hits, read by the cache (engine/cache.h) on the frameworks that place objects
/// on the device (RIPQ, SIPQ, exact with naive placement): a cache hit reads the object's bytes
/// from the device when they are on flash (not in a RAM block buffer), widened to whole
/// logical blocks; this is what a flash cache does to serve a hit, and what timed runs charge
/// it. false: hits do no I/O (the functional results — hit ratios, writes, WA — are the same
/// either way; only device_reads and timing change). Default true.
inline const KeySpec kReadHitsKey =
    key("framework.read_hits", ValueType::kBool)
        .def("true")
        .desc(
            "a cache hit reads the object from the device where it is on flash (RAM block "
            "buffers and placement none read nothing)");

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
