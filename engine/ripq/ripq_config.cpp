// engine/ripq/ripq_config.cpp — RIPQ's keys (engine/ripq/ripq_config.h).
#include "engine/ripq/ripq_config.h"

#include "engine/queue.h"
#include "engine/ripq/ripq_queue.h"
#include "fmt/format.h"

namespace flashpq {

namespace {

// An object larger than B never fits a block, so the framework never caches it: a note when
// such objects draw 1 % of the gets and sets or more (they cap its hit ratio below exact's).
void note_large_objects(const char* framework, uint64_t block_bytes, const CacheShape& shape,
                        FrameworkLayout& layout) {
  if (shape.unit_size || shape.sizes == nullptr || shape.sizes->total() == 0) return;
  const uint64_t above = shape.sizes->count_above(block_bytes);
  if (100 * above < shape.sizes->total()) return;
  layout.notes.push_back(fmt::format(
      "framework {}: at least {:.1f} % of the requests are for objects larger than its device "
      "blocks of {} B (the largest is {} B), which it never caches: raise framework.block_size "
      "or the cache size",
      framework, 100.0 * static_cast<double>(above) / static_cast<double>(shape.sizes->total()),
      block_bytes, shape.largest_object_bytes));
}

}  // namespace

const KeySpec kInsertionPointsKey = key("framework.insertion_points", ValueType::kInt)
                                        .def("8")
                                        .range(1, 64)
                                        .desc("insertion points K (alpha = 1/K)");

const KeySpec kReservedBlocksKey = key("framework.reserved_blocks", ValueType::kInt)
                                       .def("10")
                                       .units("blocks")
                                       .range(1, 1000)
                                       .desc("free device blocks kept for sealing");

const KeySpec kMaterializeThresholdKey =
    key("framework.materialize_threshold", ValueType::kFraction)
        .def("0")
        .units("fraction")
        .desc("objects below this relative priority are evicted, not materialized, in [0, 1)");

const KeySpec kHistogramBinsKey = key("framework.histogram_bins", ValueType::kInt)
                                      .def("100")
                                      .range(2, 100000)
                                      .desc("bins of the absolute-priority histogram (kappa)");

const ComponentSpec& RipqFramework::spec() {
  static const ComponentSpec spec{
      "ripq",
      "RIPQ (RIPQ paper 4): K insertion points over device blocks of B bytes written whole, "
      "virtual blocks for lazy increases",
      {kBlockSizeKey, kInsertionPointsKey, kReservedBlocksKey, kMaterializeThresholdKey,
       kHistogramBinsKey, kReadHitsKey, kPlacementHandlesKey},
      {},
      {},
      {}};
  return spec;
}

RipqConfig RipqConfig::from(const Params& params, uint64_t capacity_bytes, uint64_t granule) {
  RipqConfig c;
  c.block_size_bytes = flashpq::block_size_bytes(params, capacity_bytes, granule);
  c.insertion_points = params.get<uint32_t>(kInsertionPointsKey);
  c.reserved_blocks = params.get<uint32_t>(kReservedBlocksKey);
  c.materialize_threshold = params.get<double>(kMaterializeThresholdKey);
  c.histogram_bins = params.get<uint32_t>(kHistogramBinsKey);
  return c;
}

FrameworkLayout RipqFramework::layout(const Params& params, const CacheShape& shape) {
  RipqConfig c = RipqConfig::from(params, shape.capacity_bytes, shape.granule);
  const BlockSize b = resolve_block_size(
      params, shape, std::max<uint64_t>(4 * uint64_t{c.insertion_points}, c.reserved_blocks + 2));
  c.block_size_bytes = b.bytes;
  FrameworkLayout layout;
  layout.block_bytes = c.block_size_bytes;
  layout.block_basis = b.basis;
  const uint64_t blocks = shape.capacity_bytes / c.block_size_bytes;
  check_ripq_blocks(shape.capacity_bytes, blocks, c, b.basis, shape.unit_size ? 1 : shape.granule);
  layout.device_bytes = blocks * c.block_size_bytes;
  layout.places_objects = true;
  if (blocks < 4 * uint64_t{c.insertion_points}) {
    layout.notes.push_back(fmt::format(
        "framework ripq: {} device blocks for K = {} insertion points, fewer than 4·K: sections "
        "of under 4 blocks blur the insertion points: use a smaller framework.block_size "
        "(auto: C/256, as the RIPQ paper)",
        blocks, c.insertion_points));
  }
  if (4 * uint64_t{c.reserved_blocks} > blocks) {
    layout.notes.push_back(fmt::format(
        "framework ripq: framework.reserved_blocks = {} is over a quarter of the {} device "
        "blocks: the reserve holds no objects, so the cache is effectively smaller",
        c.reserved_blocks, blocks));
  }
  note_large_objects("ripq", c.block_size_bytes, shape, layout);
  return layout;
}

void check_ripq_blocks(uint64_t capacity_bytes, uint64_t blocks, const RipqConfig& c,
                       const std::string& basis, uint64_t granule) {
  const uint64_t g = std::max<uint64_t>(1, granule);
  const uint64_t needed = uint64_t{c.reserved_blocks} + 2;
  if (blocks < needed) {
    std::string fixes;
    const uint64_t largest_b = capacity_bytes / needed / g * g;
    if (largest_b >= g) {
      fixes += fmt::format("framework.block_size: {} or less", exact_size_text(largest_b));
    }
    if (blocks >= 3) {
      fixes +=
          fmt::format("{}framework.reserved_blocks: {}", fixes.empty() ? "" : "; or ", blocks - 2);
    }
    fixes += fmt::format("{}a cache of at least {} B", fixes.empty() ? "" : "; or ",
                         needed * c.block_size_bytes);
    throw std::invalid_argument(fmt::format(
        "framework ripq: the cache's {} B make only {} device blocks of {} B ({}), and RIPQ "
        "needs framework.reserved_blocks + 2 = {}: use {}",
        capacity_bytes, blocks, c.block_size_bytes, basis, needed, fixes));
  }
  if (blocks > kRipqMaxBlocks) {
    const uint64_t max_slots = kRipqMaxBlocks;
    const uint64_t smallest_b = ((capacity_bytes + max_slots - 1) / max_slots + g - 1) / g * g;
    throw std::invalid_argument(fmt::format(
        "framework ripq: the cache's {} B make {} device blocks of {} B ({}), more than the "
        "2^22 supported: use framework.block_size: {} or more",
        capacity_bytes, blocks, c.block_size_bytes, basis, exact_size_text(smallest_b)));
  }
}

}  // namespace flashpq
