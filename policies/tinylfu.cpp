// policies/tinylfu.cpp — the cold paths of TinyLFU admission: its keys, sizing, construction.
// Sources: see policies/tinylfu.h.
#include "policies/tinylfu.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace flashpq {

// ---------------------------------------------------------------------------------------------
// TinyLfuAdmission

const KeySpec kSampleFactorKey =
    key("admission.sample_factor", ValueType::kInt)
        .def("10")
        .range(1, 1000)
        .desc("additions between halvings, per expected object (Caffeine: 10)");
const KeySpec kCountersMultiplierKey =
    key("admission.counters_multiplier", ValueType::kFloat)
        .def("1")
        .range(1e-9, 64)
        .desc("sketch words per expected object, in (0, 64] (Caffeine: 1.0)");
const KeySpec kDoorkeeperKey =
    key("admission.doorkeeper", ValueType::kBool)
        .def("false")
        .desc("Bloom-filter doorkeeper in front of the sketch (Caffeine: off)");
const KeySpec kDoorkeeperInsertionsMultiplierKey =
    key("admission.doorkeeper_insertions_multiplier", ValueType::kFloat)
        .def("3")
        .range(1e-9, 64)
        .desc("doorkeeper: insertions per expected object, in (0, 64]");
const KeySpec kDoorkeeperFppKey = key("admission.doorkeeper_fpp", ValueType::kFloat)
                                      .def("0.01")
                                      .range(1e-9, 0.5)
                                      .desc("doorkeeper: false-positive probability, in (0, 0.5]");

const ComponentSpec& TinyLfuAdmission::spec() {
  static const ComponentSpec spec{
      "tinylfu",
      "TinyLFU: a miss enters only if its count-min estimate exceeds the victim's",
      {kSampleFactorKey, kCountersMultiplierKey, kDoorkeeperKey, kDoorkeeperInsertionsMultiplierKey,
       kDoorkeeperFppKey},
      {},
      {},
      {}};
  return spec;
}

TinyLfuConfig TinyLfuConfig::from(const Params& params) {
  TinyLfuConfig c;
  c.sample_factor = params.get<uint32_t>(kSampleFactorKey);
  c.counters_multiplier = params.get<double>(kCountersMultiplierKey);
  c.doorkeeper = params.get<bool>(kDoorkeeperKey);
  c.doorkeeper_insertions_multiplier = params.get<double>(kDoorkeeperInsertionsMultiplierKey);
  c.doorkeeper_fpp = params.get<double>(kDoorkeeperFppKey);
  return c;
}

namespace {
uint64_t doorkeeper_insertions(const TinyLfuConfig& config, uint64_t expected_objects) {
  return scaled_count(config.doorkeeper_insertions_multiplier,
                      std::max<uint64_t>(expected_objects, 1));
}
}  // namespace

TinyLfuAdmission::TinyLfuAdmission(const TinyLfuConfig& config, uint64_t expected_objects)
    : sketch_(expected_objects, config.counters_multiplier, config.sample_factor),
      doorkeeper_enabled_(config.doorkeeper) {
  if (doorkeeper_enabled_) {
    doorkeeper_ =
        Doorkeeper(doorkeeper_insertions(config, expected_objects), config.doorkeeper_fpp);
  }
}

size_t TinyLfuAdmission::memory_bytes_for(const TinyLfuConfig& config, uint64_t expected_objects) {
  uint64_t bytes = FrequencySketch::words_for(expected_objects, config.counters_multiplier) * 8;
  if (config.doorkeeper) {
    bytes += Doorkeeper::bits_for(doorkeeper_insertions(config, expected_objects),
                                  config.doorkeeper_fpp) /
             8;
  }
  return static_cast<size_t>(bytes);
}

}  // namespace flashpq
