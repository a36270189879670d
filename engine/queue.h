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
// Two optional hooks, for the flash engines (engine/blockcache/, engine/bighash/), which order
// objects by their own rules rather than by the policy's priorities:
//   void on_hit(Handle);                      every hit, whether or not hits are read
//   void on_lookup_miss(uint64_t key);        every get that finds no object (a Bloom filter's
//                                             false positive reads flash)
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

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
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
/// flash, resolved per cell (resolve_block_size() below):
///   auto (the default)  C/256 — the RIPQ paper §6 sizes blocks against the cache; 256 blocks
///                       give K = 8 insertion points sections of 32 blocks — rounded down to a
///                       multiple of the device's logical block; raised to the trace's largest
///                       object (rounded up to the logical block) so that every object fits a
///                       block, but never above C/min_blocks, the fewest blocks the framework
///                       works with (RIPQ: 4·K and reserved_blocks + 2; SIPQ: 32), where objects
///                       larger than B are not cached (the row's notes say so when they draw
///                       1 % of the requests); and at least one logical block;
///   a fraction f        written with a decimal point, in (0, 1]: ⌊f·C⌋ rounded down to a
///                       multiple of the logical block, raised to one logical block when below
///                       it (0.00390625 = C/256);
///   bytes               with a unit (256KiB): as written.
/// In unit-size mode (every object counts 1) B counts objects, like the capacity, and the
/// logical block and the largest object are 1.
inline const KeySpec kBlockSizeKey =
    key("framework.block_size", ValueType::kCapacity)
        .def("auto")
        .choices({"auto"})
        .units("bytes or fraction")
        .desc(
            "device block size B: auto (C/256, raised to the largest object within the "
            "framework's fewest blocks), bytes with a unit, or with a decimal point a fraction "
            "of C rounded down to the device's logical block");

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

/// B resolved, and how: `bytes`, and `basis`, one of "auto: C/256", "auto: one logical
/// block", "auto: the largest object", "auto: C/N, the largest object being larger" (N the
/// framework's fewest blocks), "fraction of C", "fraction of C, raised to one logical block",
/// "as written" (the results row's block_size_basis).
struct BlockSize {
  uint64_t bytes = 0;
  std::string basis;
};

/// framework.block_size resolved for a cache of `shape` on a framework that needs at least
/// `min_blocks` blocks (>= 1; see kBlockSizeKey). Throws std::invalid_argument quoting the
/// value if it is not a kBlockSizeKey value, or if B exceeds 2^32 − 1 bytes.
inline BlockSize resolve_block_size(const Params& params, const CacheShape& shape,
                                    uint64_t min_blocks = 1) {
  const std::string& text = params.has(kBlockSizeKey.name) ? params.text(kBlockSizeKey.name)
                                                           : kBlockSizeKey.default_value;
  check_value(kBlockSizeKey, text);
  const uint64_t g = shape.unit_size ? 1 : std::max<uint64_t>(1, shape.granule);
  BlockSize b;
  if (text == "auto") {
    b.bytes = shape.capacity_bytes / 256 / g * g;
    b.basis = "auto: C/256";
    if (b.bytes < g) {
      b.bytes = g;
      b.basis = "auto: one logical block";
    }
    const uint64_t largest = shape.unit_size ? 1 : shape.largest_object_bytes;
    const uint64_t largest_up = (largest + g - 1) / g * g;
    const uint64_t cap = shape.capacity_bytes / std::max<uint64_t>(1, min_blocks) / g * g;
    if (largest_up > b.bytes) {
      if (largest_up <= cap) {
        b.bytes = largest_up;
        b.basis = "auto: the largest object";
      } else if (cap > b.bytes) {
        b.bytes = cap;
        b.basis = "auto: C/" + std::to_string(min_blocks) + ", the largest object being larger";
      }
    }
  } else if (text.find('.') != std::string::npos) {
    double f = 0;
    parse_double(text, &f);
    b.bytes = static_cast<uint64_t>(static_cast<double>(shape.capacity_bytes) * f) / g * g;
    b.basis = "fraction of C";
    if (b.bytes < g) {
      b.bytes = g;
      b.basis = "fraction of C, raised to one logical block";
    }
  } else {
    b.bytes = parse_size(text);
    b.basis = "as written";
  }
  if (b.bytes > 4294967295u) {
    throw std::invalid_argument("framework.block_size: expected at most 4294967295 bytes, found " +
                                text + " = " + std::to_string(b.bytes) + " bytes");
  }
  return b;
}

/// `bytes` as a value of a size key that reads back exactly: with the largest binary unit that
/// divides it (128KiB, 3MiB), else plain bytes (4097).
inline std::string exact_size_text(uint64_t bytes) {
  const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  std::string text = std::to_string(bytes);
  for (int u = 0, shift = 10; u < 4 && bytes != 0 && bytes % (uint64_t{1} << shift) == 0;
       ++u, shift += 10) {
    text = std::to_string(bytes >> shift) + units[u];
  }
  return text;
}

/// B for a cache of `capacity_bytes` on a device of logical block `granule` bytes (>= 1), as
/// resolve_block_size() without the trace: auto cannot see the largest object (a cell's plan
/// resolves B with it and gives the framework bytes; tests and `flashpq bench` build queues
/// without one). Throws as resolve_block_size().
inline uint64_t block_size_bytes(const Params& params, uint64_t capacity_bytes, uint64_t granule) {
  CacheShape shape;
  shape.capacity_bytes = capacity_bytes;
  shape.granule = granule;
  return resolve_block_size(params, shape).bytes;
}

/// What a framework will do with a cache of a given shape, known before it is built: the block
/// size the results row reports, the device bytes a device sized for the cache must export, and
/// warnings for legal but misleading configurations.
struct FrameworkLayout {
  /// Device block size B in bytes (framework.block_size resolved); 0 when the framework writes
  /// no blocks.
  uint64_t block_bytes = 0;
  /// How B was chosen (BlockSize::basis); empty when the framework writes no blocks.
  std::string block_basis;
  /// Bytes of the device the framework addresses at most (RIPQ, SIPQ: ⌊C/B⌋·B; exact: C);
  /// 0 when it addresses what the trace says (direct).
  uint64_t device_bytes = 0;
  /// Whether objects are written to the device at all.
  bool places_objects = false;
  /// Whether the framework reads blocks it never wrote, by design: navy's BigHash reads a
  /// bucket before its first write (a read-modify-write), Kangaroo a set. A block device in
  /// verify mode then counts such reads as unchecked instead of failing the run.
  bool reads_unwritten_blocks = false;
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
  /// A policy that owns its structure (engine/policy.h OwningPolicy): the cache's policy
  /// object, which the exact framework's ExactOwnedQueue<P> asks for victims; null otherwise.
  void* owning_policy = nullptr;
  /// The cell's seed (CacheConfig::seed), for a framework that draws at random (navy's
  /// percentage reinsertion): it seeds its own RngStream (sim/rng.h).
  uint64_t seed = 0;
  /// The first byte of the device this queue lays its objects out from (a flash engine's; a
  /// hybrid gives its two engines disjoint ranges: engine/hybrid/). Default 0.
  uint64_t device_offset = 0;
  /// Placement (Device::write's handle; NVMe FDP, docs/guide/devices.md "Flexible Data
  /// Placement"). A queue declares its data classes (kangaroo: klog, kset; the others one) and
  /// writes class i with placement(i): placement_handles[i] when the list is given
  /// (framework.placement_handles, parsed), else placement_first + i — one handle per class,
  /// from 0 (a hybrid's from 1, after the default handle, as CacheLib allocates them). Devices
  /// without placement ignore every handle.
  std::vector<uint32_t> placement_handles = {};
  uint32_t placement_first = 0;

  /// The handle of data class i of `classes` (the queue's class names, in its declared order).
  /// Throws std::invalid_argument naming framework.placement_handles and the classes when the
  /// list does not give exactly one handle per class.
  uint32_t placement(uint32_t i, std::initializer_list<std::string_view> classes) const;
};

/// framework.placement_handles: the FDP placement handle of each of the framework's data
/// classes, in its declared order, or "auto" (the default: one handle per class, see
/// QueueContext::placement_handles; docs/guide/devices.md).
inline const KeySpec kPlacementHandlesKey =
    key("framework.placement_handles", ValueType::kString)
        .def("auto")
        .yaml_list()
        .desc(
            "FDP: the placement handle of each of the framework's data classes, in its order "
            "(kangaroo: klog, kset; hybrid: the small engine's, then BlockCache's); auto: one "
            "handle per class, from 0 (the hybrid's from 1)");

/// `c` with framework.placement_handles of c.framework parsed into c.placement_handles. Throws
/// std::invalid_argument quoting the key and the text when it is not a list of integers in
/// [0, 65535].
QueueContext with_placement_handles(QueueContext c);

/// Throws std::invalid_argument naming framework `framework`: its queue writes in place (no
/// `static constexpr bool kWritesZones`), and the device is zoned (Device::zone_geometry), which
/// takes writes only at each zone's write pointer. engine/cache.h calls it.
[[noreturn]] void throw_not_zoned(const std::string& framework);

/// For a framework that writes whole units of `unit_bytes` (RIPQ's and SIPQ's device blocks,
/// BlockCache's regions) at base + i·unit_bytes, each from its start, and frees them whole:
/// whether `device` is zoned (Device::zone_geometry), in which case each unit is one zone
/// (written from the zone's start, reset when freed: the host's collection). Throws
/// std::invalid_argument naming `unit_key` when a unit is not exactly one zone's capacity,
/// device.zns.zone_size when a zone has bytes past its capacity (units are addressed one unit
/// apart), or the offset when `base` is not a zone's start.
bool zoned_units(const Device& device, uint64_t unit_bytes, uint64_t base,
                 const std::string& unit_key);

/// What a flash engine (a framework declaring kEngine, engine/framework.h) requires of a cell:
/// policy fifo (its own rules order its objects; the policy only hands it insertions), no
/// admission policy of its own (a hierarchy's tiers.flash_admission admits to it), and sizes in
/// bytes.
inline std::vector<Requirement> engine_requirements(const std::string& engine) {
  return {Requirement{{},
                      "policy.name",
                      {"fifo"},
                      "framework " + engine +
                          " orders its objects by its own rules (its framework keys); it is "
                          "built with policy fifo"},
          Requirement{{},
                      "admission.name",
                      {"none"},
                      "framework " + engine +
                          " has no single victim to compare a candidate with; in a hierarchy, "
                          "tiers.flash_admission admits to it"},
          Requirement{{},
                      "cache.unit_size",
                      {"false"},
                      "framework " + engine + " lays out bytes: regions, buckets, sets"}};
}

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
