// engine/sipq/sipq_config.cpp — SIPQ's keys (engine/sipq/sipq_config.h).
#include "engine/sipq/sipq_config.h"

#include "engine/queue.h"
#include "engine/sipq/sipq_queue.h"

namespace flashpq {

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

SipqConfig SipqConfig::from(const Params& params) {
  SipqConfig c;
  c.block_size_bytes = params.get<uint64_t>(kBlockSizeKey);
  c.occupancy = params.get<double>(kOccupancyKey);
  return c;
}

}  // namespace flashpq
