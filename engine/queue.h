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
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/object_table.h"
#include "engine/size_histogram.h"
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

/// framework.block_size, read by RIPQ and SIPQ: the device block size B, the unit written to
/// flash. Bytes with a unit (256KiB), or, written with a decimal point, a fraction of the cache
/// capacity (0.00390625 = C/256: the RIPQ paper §6 sizes blocks against the cache), resolved per
/// cell by block_size_bytes(). In unit-size mode (every object counts 1) B counts objects, like
/// the capacity.
inline const KeySpec kBlockSizeKey =
    key("framework.block_size", ValueType::kCapacity)
        .def("1MiB")
        .units("bytes or fraction")
        .desc(
            "device block size B: bytes with a unit, or with a decimal point a fraction in (0, 1] "
            "of the cache capacity (0.00390625 = C/256), rounded down to the device's logical "
            "block (objects in unit-size mode)");

/// B resolved for a cache of `capacity_bytes` on a device of logical block `granule` bytes
/// (>= 1): bytes as written, or ⌊f · C⌋ rounded down to a multiple of `granule`, at least one
/// granule. Throws std::invalid_argument quoting the value if it is not a kBlockSizeKey value,
/// or if B exceeds 2^32 − 1 bytes.
inline uint64_t block_size_bytes(const Params& params, uint64_t capacity_bytes, uint64_t granule) {
  const std::string& text = params.has(kBlockSizeKey.name) ? params.text(kBlockSizeKey.name)
                                                           : kBlockSizeKey.default_value;
  check_value(kBlockSizeKey, text);
  uint64_t b = 0;
  if (text.find('.') != std::string::npos) {
    double f = 0;
    parse_double(text, &f);
    const auto raw = static_cast<uint64_t>(static_cast<double>(capacity_bytes) * f);
    const uint64_t g = granule == 0 ? 1 : granule;
    b = raw / g * g;
    if (b < g) b = g;
  } else {
    b = parse_size(text);
  }
  if (b > 4294967295u) {
    throw std::invalid_argument("framework.block_size: expected at most 4294967295 bytes, found " +
                                text + " = " + std::to_string(b) + " bytes");
  }
  return b;
}

/// A cache as a framework sees it before it is built (framework_layout(), engine/framework.h).
struct CacheShape {
  /// The resolved capacity C: bytes, or objects in unit-size mode.
  uint64_t capacity_bytes = 0;
  /// The device's logical block in bytes (>= 1): a fractional block size rounds down to it.
  uint64_t granule = 1;
  /// The trace's largest object in bytes (0 = unknown).
  uint64_t largest_object_bytes = 0;
  /// The trace's gets and sets by object size (nullptr = unknown).
  const SizeHistogram* sizes = nullptr;
  /// Every object counts 1 (cache.unit_size).
  bool unit_size = false;
};

/// What a framework will do with a cache of a given shape, known before it is built: the block
/// size the results row reports, the device bytes a device sized for the cache must export, and
/// warnings for legal but misleading configurations.
struct FrameworkLayout {
  /// Device block size B in bytes (framework.block_size resolved); 0 when the framework writes
  /// no blocks.
  uint64_t block_bytes = 0;
  /// Bytes of the device the framework addresses at most (RIPQ, SIPQ: ⌊C/B⌋·B; exact: C);
  /// 0 when it addresses what the trace says (direct).
  uint64_t device_bytes = 0;
  /// Whether objects are written to the device at all.
  bool places_objects = false;
  /// One sentence per misleading choice, naming the keys to change.
  std::vector<std::string> notes;
};

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
