// engine/ripq/ripq_config.cpp — RIPQ's keys (engine/ripq/ripq_config.h).
#include "engine/ripq/ripq_config.h"

#include "engine/queue.h"
#include "engine/ripq/ripq_queue.h"

namespace flashpq {

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
       kHistogramBinsKey, kReadHitsKey},
      {},
      {},
      {}};
  return spec;
}

RipqConfig RipqConfig::from(const Params& params) {
  RipqConfig c;
  c.block_size_bytes = params.get<uint64_t>(kBlockSizeKey);
  c.insertion_points = params.get<uint32_t>(kInsertionPointsKey);
  c.reserved_blocks = params.get<uint32_t>(kReservedBlocksKey);
  c.materialize_threshold = params.get<double>(kMaterializeThresholdKey);
  c.histogram_bins = params.get<uint32_t>(kHistogramBinsKey);
  return c;
}

}  // namespace flashpq
