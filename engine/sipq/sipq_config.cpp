// engine/sipq/sipq_config.cpp — SIPQ's keys (engine/sipq/sipq_config.h).
#include "engine/sipq/sipq_config.h"

#include "engine/queue.h"
#include "engine/sipq/sipq_queue.h"
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
      {kBlockSizeKey, kOccupancyKey, kReadHitsKey},
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
  const SipqConfig c = SipqConfig::from(params, shape.capacity_bytes, shape.granule);
  FrameworkLayout layout;
  layout.block_bytes = c.block_size_bytes;
  layout.device_bytes = shape.capacity_bytes / c.block_size_bytes * c.block_size_bytes;
  layout.places_objects = true;
  note_large_objects("sipq", c.block_size_bytes, shape, layout);
  return layout;
}

}  // namespace flashpq
