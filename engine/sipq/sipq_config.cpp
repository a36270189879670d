// engine/sipq/sipq_config.cpp — SIPQ's keys (engine/sipq/sipq_config.h).
#include "engine/sipq/sipq_config.h"

#include "engine/queue.h"
#include "engine/sipq/sipq_queue.h"
#include "fmt/format.h"

namespace flashpq {

namespace {

// An object larger than B never fits a block, so the framework never caches it: a note when
// such objects draw 1 % of the gets and sets or more (they cap its hit ratio below exact's).
void sipq_note_large_objects(const char* framework, uint64_t block_bytes, const CacheShape& shape,
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

// The fewest blocks framework.block_size auto gives SIPQ's log (engine/queue.h): as many as
// RIPQ's default K = 8 asks of its queue, so that the log turns over in small steps.
constexpr uint64_t kSipqAutoBlocks = 32;

const KeySpec kOccupancyKey =
    key("framework.occupancy", ValueType::kUnitInterval)
        .def("0.5")
        .units("fraction")
        .desc("logical occupancy theta, share of capacity in the virtual cache, in [0, 1]");

const ComponentSpec& SipqFramework::spec() {
  static const ComponentSpec spec{
      "sipq",
      "SIPQ (RIPQ paper 5): the device as one cyclic log of B-byte blocks and an exact queue "
      "over a virtual cache of occupancy theta",
      {kBlockSizeKey, kOccupancyKey, kReadHitsKey, kPlacementHandlesKey},
      {},
      {},
      {}};
  return spec;
}

SipqConfig SipqConfig::from(const Params& params, uint64_t capacity_bytes, uint64_t granule) {
  SipqConfig c;
  c.block_size_bytes = flashpq::block_size_bytes(params, capacity_bytes, granule);
  c.occupancy = params.get<double>(kOccupancyKey);
  return c;
}

FrameworkLayout SipqFramework::layout(const Params& params, const CacheShape& shape) {
  SipqConfig c = SipqConfig::from(params, shape.capacity_bytes, shape.granule);
  const BlockSize b = resolve_block_size(params, shape, kSipqAutoBlocks);
  c.block_size_bytes = b.bytes;
  FrameworkLayout layout;
  layout.block_bytes = c.block_size_bytes;
  layout.block_basis = b.basis;
  const uint64_t g = shape.unit_size ? 1 : std::max<uint64_t>(1, shape.granule);
  const uint64_t blocks = shape.capacity_bytes / c.block_size_bytes;
  if (blocks < 2) {
    throw std::invalid_argument(fmt::format(
        "framework sipq: the cache's {} B make {} device blocks of {} B ({}), and SIPQ's log "
        "needs at least 2: use framework.block_size: {} or less, or a cache of at least {} B",
        shape.capacity_bytes, blocks, c.block_size_bytes, b.basis,
        exact_size_text(std::max<uint64_t>(g, shape.capacity_bytes / 2 / g * g)),
        2 * c.block_size_bytes));
  }
  if (c.block_size_bytes % g != 0) {
    throw std::invalid_argument(fmt::format(
        "framework sipq: device blocks of {} B ({}) are not a multiple of the device's logical "
        "block of {} B: use framework.block_size: {} or {}",
        c.block_size_bytes, b.basis, g, exact_size_text(std::max(g, c.block_size_bytes / g * g)),
        exact_size_text((c.block_size_bytes / g + 1) * g)));
  }
  layout.device_bytes = blocks * c.block_size_bytes;
  layout.places_objects = true;
  sipq_note_large_objects("sipq", c.block_size_bytes, shape, layout);
  return layout;
}

}  // namespace flashpq
