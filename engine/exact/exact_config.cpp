// engine/exact/exact_config.cpp — the exact framework's keys (engine/exact/exact_config.h).
#include "engine/exact/exact_config.h"

#include <stdexcept>
#include <string>

#include "engine/exact/exact_framework.h"
#include "engine/queue.h"

namespace flashpq {

const KeySpec kPlacementKey =
    key("framework.placement", ValueType::kEnum)
        .def("none")
        .choices({"none", "naive"})
        .desc(
            "none = in memory; naive = each object written alone at the lowest free aligned "
            "offset, trimmed on eviction (RIPQ paper 4.2)");

const KeySpec kPlacementAlignmentKey =
    key("framework.placement_alignment", ValueType::kSize)
        .def("4KiB")
        .units("bytes")
        .desc("naive placement: alignment of each object's extent (a power of two)");

const ComponentSpec& ExactFramework::spec() {
  static const ComponentSpec spec{
      "exact",
      "an exact priority queue in memory, the fidelity baseline (objects placed naively or not "
      "at all)",
      {kPlacementKey, kPlacementAlignmentKey, kReadHitsKey, kPlacementHandlesKey},
      {},
      {},
      {}};
  return spec;
}

ExactConfig ExactConfig::from(const Params& params) {
  ExactConfig c;
  c.naive_placement = params.get<std::string>(kPlacementKey) == "naive";
  const uint64_t alignment = params.get<uint64_t>(kPlacementAlignmentKey);
  if (alignment > UINT32_MAX || (alignment & (alignment - 1)) != 0) {
    throw std::invalid_argument(
        "framework.placement_alignment: expected a power of two of at most 2 GiB, found " +
        std::to_string(alignment));
  }
  c.placement_alignment_bytes = static_cast<uint32_t>(alignment);
  return c;
}

}  // namespace flashpq
