// engine/kangaroo/kangaroo_config.cpp — Kangaroo's keys, checks and layout
// (engine/kangaroo/kangaroo_config.h, engine/kangaroo/kangaroo_queue.h).
#include "engine/kangaroo/kangaroo_config.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>

#include "engine/kangaroo/kangaroo_queue.h"
#include "engine/queue.h"
#include "fmt/format.h"

namespace flashpq {

const KeySpec kKangarooLogPctKey =
    key("framework.kangaroo_log_pct", ValueType::kFloat)
        .def("5")
        .units("percent")
        .range(0.01, 99)
        .desc(
            "KLog's share of the cache in percent, rounded down to whole segments in every "
            "partition; KSet's sets take the rest (the paper: 5)");

const KeySpec kKangarooLogPartitionsKey =
    key("framework.kangaroo_log_partitions", ValueType::kInt)
        .def("1")
        .range(1, 4096)
        .desc(
            "independent circular logs; a set's log objects live in partition set mod P (the "
            "paper's simulator: 1; CacheLib's Kangaroo: 16)");

const KeySpec kKangarooSegmentSizeKey =
    key("framework.kangaroo_segment_size", ValueType::kSize)
        .def("256KiB")
        .units("bytes")
        .range(64, 1 << 30)
        .desc("KLog segment, the log's write unit, a multiple of the page (default 256KiB)");

const KeySpec kKangarooPageSizeKey =
    key("framework.kangaroo_page_size", ValueType::kSize)
        .def("4KiB")
        .units("bytes")
        .range(64, 1 << 20)
        .desc(
            "KLog page, the unit a log hit reads: a power of two, a multiple of the device's "
            "logical block (default 4KiB)");

const KeySpec kKangarooSetSizeKey =
    key("framework.kangaroo_set_size", ValueType::kSize)
        .def("4KiB")
        .units("bytes")
        .range(64, 1 << 20)
        .desc(
            "KSet set size, the unit read and rewritten: a multiple of the device's logical "
            "block (default 4KiB)");

const KeySpec kKangarooThresholdKey =
    key("framework.kangaroo_threshold", ValueType::kInt)
        .def("2")
        .units("objects")
        .range(1, 1000)
        .desc(
            "KLog->KSet threshold n: a cleaned object's set is rewritten only when at least n "
            "log objects map to it, else the object is dropped (or readmitted); 1 = always");

const KeySpec kKangarooRripBitsKey =
    key("framework.kangaroo_rrip_bits", ValueType::kInt)
        .def("3")
        .units("bits")
        .range(1, 7)
        .desc("RRIParoo bits per KSet object: RRPVs 0 to 2^bits - 1 (the paper: 3)");

const KeySpec kKangarooBloomFilterBitsKey =
    key("framework.kangaroo_bloom_filter_bits", ValueType::kInt)
        .def("64")
        .units("bits")
        .range(0, 65536)
        .desc(
            "Bloom filter bits per set, 4 hash functions of bits/4 each, a multiple of 8; 0 = "
            "no filter (CacheLib's Kangaroo: 8 bytes = 64)");

const KeySpec kKangarooAdmissionProbabilityKey =
    key("framework.kangaroo_admission_probability", ValueType::kUnitInterval)
        .def("0.9")
        .units("fraction")
        .desc(
            "pre-log random admission: each insert is appended to KLog with this probability, "
            "else not cached (the paper: 0.9)");

const KeySpec kKangarooReadmitHitsKey =
    key("framework.kangaroo_readmit_hits", ValueType::kInt)
        .def("1")
        .units("hits")
        .range(0, 7)
        .desc(
            "a cleaned log object that would be dropped is readmitted to the log if it was hit at "
            "least this many times there (CacheLib: 1; the simulator's readmit 1: 2); 0 = never");

KangarooConfig KangarooConfig::from(const Params& params) {
  KangarooConfig c;
  c.log_pct = params.get<double>(kKangarooLogPctKey);
  c.log_partitions = params.get<uint32_t>(kKangarooLogPartitionsKey);
  c.segment_bytes = params.get<uint32_t>(kKangarooSegmentSizeKey);
  c.page_bytes = params.get<uint32_t>(kKangarooPageSizeKey);
  c.set_bytes = params.get<uint32_t>(kKangarooSetSizeKey);
  c.threshold = params.get<uint32_t>(kKangarooThresholdKey);
  c.rrip_bits = params.get<uint32_t>(kKangarooRripBitsKey);
  c.bloom_filter_bits = params.get<uint32_t>(kKangarooBloomFilterBitsKey);
  c.admission_probability = params.get<double>(kKangarooAdmissionProbabilityKey);
  c.readmit_hits = params.get<uint32_t>(kKangarooReadmitHitsKey);
  if (!std::has_single_bit(c.page_bytes)) {
    throw std::invalid_argument(fmt::format(
        "key '{}': expected a power of two (CacheLib KangarooLog.cpp:107-110), found '{}' ({} "
        "bytes): use {}",
        kKangarooPageSizeKey.name, params.text(kKangarooPageSizeKey.name), c.page_bytes,
        exact_size_text(std::bit_floor(c.page_bytes))));
  }
  if (c.segment_bytes % c.page_bytes != 0) {
    const uint32_t fix = std::max(c.page_bytes, c.segment_bytes / c.page_bytes * c.page_bytes);
    throw std::invalid_argument(fmt::format(
        "key '{}': expected a multiple of framework.kangaroo_page_size ({} B), found '{}' ({} "
        "bytes): use {}",
        kKangarooSegmentSizeKey.name, c.page_bytes, params.text(kKangarooSegmentSizeKey.name),
        c.segment_bytes, exact_size_text(fix)));
  }
  if (c.bloom_filter_bits % 8 != 0) {
    throw std::invalid_argument(fmt::format(
        "key '{}': expected a multiple of 8 (the filter is whole bytes), found '{}': use {}",
        kKangarooBloomFilterBitsKey.name, params.text(kKangarooBloomFilterBitsKey.name),
        std::max<uint32_t>(8, c.bloom_filter_bits / 8 * 8)));
  }
  return c;
}

KangarooGeometry kangaroo_geometry(const KangarooConfig& c, uint64_t capacity_bytes,
                                   uint64_t granule) {
  const uint64_t g = std::max<uint64_t>(1, granule);
  if (c.page_bytes % g != 0) {
    uint64_t fix = c.page_bytes;
    while (fix % g != 0) fix *= 2;
    throw std::invalid_argument(fmt::format(
        "framework kangaroo: framework.kangaroo_page_size = {} B is not a multiple of the "
        "device's logical block of {} B: use framework.kangaroo_page_size: {}",
        c.page_bytes, g, exact_size_text(fix)));
  }
  if (c.set_bytes % g != 0) {
    const uint64_t fix = (c.set_bytes + g - 1) / g * g;
    throw std::invalid_argument(fmt::format(
        "framework kangaroo: framework.kangaroo_set_size = {} B is not a multiple of the "
        "device's logical block of {} B: use framework.kangaroo_set_size: {}",
        c.set_bytes, g, exact_size_text(fix)));
  }
  KangarooGeometry geo;
  geo.partitions = c.log_partitions;
  geo.segment_bytes = c.segment_bytes;
  geo.page_bytes = c.page_bytes;
  geo.pages_per_segment = c.segment_bytes / c.page_bytes;
  geo.set_bytes = c.set_bytes;
  const uint64_t partition_span = uint64_t{c.log_partitions} * c.segment_bytes;
  const uint64_t log_target =
      static_cast<uint64_t>(std::floor(static_cast<double>(capacity_bytes) * c.log_pct / 100.0));
  geo.segments_per_partition = log_target / partition_span;
  if (geo.segments_per_partition < 2) {
    // Working values: the log share that gives 2 segments a partition, or the segment size
    // (a multiple of the page) that does at this share.
    std::string fixes;
    const double pct = 100.0 * static_cast<double>(2 * partition_span) /
                       static_cast<double>(std::max<uint64_t>(1, capacity_bytes));
    if (pct < 99) {
      fixes = fmt::format("framework.kangaroo_log_pct: {} or more; or ",
                          std::ceil(pct * 100.0) / 100.0);
    }
    const uint64_t seg =
        log_target / (2 * uint64_t{c.log_partitions}) / c.page_bytes * c.page_bytes;
    if (seg >= c.page_bytes) {
      fixes +=
          fmt::format("framework.kangaroo_segment_size: {} or less; or ", exact_size_text(seg));
    }
    if (c.log_partitions > 1) fixes += "fewer framework.kangaroo_log_partitions; or ";
    throw std::invalid_argument(fmt::format(
        "framework kangaroo: framework.kangaroo_log_pct = {} % of the cache's {} B is {} B, "
        "under 2 segments of framework.kangaroo_segment_size = {} B in each of the {} "
        "partition(s): use {}a cache of at least {} B",
        c.log_pct, capacity_bytes, log_target, c.segment_bytes, c.log_partitions, fixes,
        static_cast<uint64_t>(
            std::ceil(static_cast<double>(2 * partition_span) * 100.0 / c.log_pct))));
  }
  geo.log_bytes = geo.segments_per_partition * partition_span;
  if (geo.log_bytes / c.page_bytes > kKangarooMaxLogPages) {
    throw std::invalid_argument(fmt::format(
        "framework kangaroo: the log's {} B make {} pages of {} B, more than the 2^27 - 1 the "
        "framework addresses: raise framework.kangaroo_page_size or lower "
        "framework.kangaroo_log_pct",
        geo.log_bytes, geo.log_bytes / c.page_bytes, c.page_bytes));
  }
  geo.sets = (capacity_bytes - geo.log_bytes) / c.set_bytes;
  if (geo.sets == 0) {
    throw std::invalid_argument(fmt::format(
        "framework kangaroo: the {} B the log leaves of the cache's {} B hold no set of "
        "framework.kangaroo_set_size = {} B: lower framework.kangaroo_log_pct, or use a cache "
        "of at least {} B",
        capacity_bytes - geo.log_bytes, capacity_bytes, c.set_bytes, geo.log_bytes + c.set_bytes));
  }
  if (geo.sets > kKangarooMaxSets) {
    throw std::invalid_argument(
        fmt::format("framework kangaroo: the cache makes {} sets of {} B, more than 2^32: raise "
                    "framework.kangaroo_set_size",
                    geo.sets, c.set_bytes));
  }
  return geo;
}

const ComponentSpec& KangarooFramework::spec() {
  static const ComponentSpec spec{
      "kangaroo",
      "Kangaroo (SOSP'21): a small log (KLog) of segments written whole in front of a "
      "set-associative cache (KSet); a log segment's objects move to their set in one rewrite "
      "when enough of them map there; RRIParoo eviction within a set; Bloom filters per set",
      // framework.read_hits first, as no key of this engine precedes it in the section's order.
      {kReadHitsKey, kPlacementHandlesKey, kKangarooLogPctKey, kKangarooLogPartitionsKey,
       kKangarooSegmentSizeKey, kKangarooPageSizeKey, kKangarooSetSizeKey, kKangarooThresholdKey,
       kKangarooRripBitsKey, kKangarooBloomFilterBitsKey, kKangarooAdmissionProbabilityKey,
       kKangarooReadmitHitsKey},
      engine_requirements("kangaroo"),
      {},
      {}};
  return spec;
}

FrameworkLayout KangarooFramework::layout(const Params& params, const CacheShape& shape) {
  if (shape.unit_size) {
    throw std::invalid_argument(
        "framework kangaroo: cache.unit_size is true, but Kangaroo lays out bytes (log "
        "segments and sets of framework.kangaroo_set_size): set cache.unit_size: false");
  }
  const KangarooConfig c = KangarooConfig::from(params);
  const KangarooGeometry geo = kangaroo_geometry(c, shape.capacity_bytes, shape.granule);
  FrameworkLayout layout;
  layout.block_bytes = c.set_bytes;
  layout.block_basis = "framework.kangaroo_set_size";
  layout.device_bytes = geo.device_bytes();
  layout.places_objects = true;
  layout.reads_unwritten_blocks = true;  // a set is read before its first rewrite
  const uint64_t max_item = KangarooQueue::max_object_bytes(c);
  if (shape.sizes != nullptr && shape.sizes->total() > 0) {
    const uint64_t above = shape.sizes->count_above(max_item);
    if (100 * above >= shape.sizes->total()) {
      layout.notes.push_back(fmt::format(
          "framework kangaroo: at least {:.1f} % of the requests are for objects larger than "
          "the {} B a log page of {} B and a set of {} B both hold (the largest is {} B), which "
          "it never caches: raise framework.kangaroo_page_size and framework.kangaroo_set_size "
          "(Kangaroo is for tiny objects; CacheLib sends large ones to its BlockCache)",
          100.0 * static_cast<double>(above) / static_cast<double>(shape.sizes->total()), max_item,
          c.page_bytes, c.set_bytes, shape.largest_object_bytes));
    }
  }
  if (c.bloom_filter_bits == 0) {
    layout.notes.push_back(
        "framework kangaroo: framework.kangaroo_bloom_filter_bits = 0 turns the Bloom filters "
        "off: every get miss reads its set from flash (CacheLib's default is 64)");
  }
  if (geo.sets < c.log_partitions) {
    layout.notes.push_back(fmt::format(
        "framework kangaroo: {} sets for {} log partitions: a set's log objects live in "
        "partition set mod P, so {} partitions stay empty: lower "
        "framework.kangaroo_log_partitions",
        geo.sets, c.log_partitions, c.log_partitions - geo.sets));
  }
  return layout;
}

}  // namespace flashpq
