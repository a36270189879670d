// policies/policy.h — the `policy:` section of an experiment.
//
// The policy contract (PriorityKind, the Policy concept) is the engine's (engine/policy.h);
// the policies registered by name are listed in policies/registry.h. Each policy declares the
// keys it reads in its own header (spec()); the key two of them share is declared here.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "engine/policy.h"
#include "sim/params.h"

namespace flashpq {

/// The `policy:` section of an experiment: the registered name (policies/registry.h) and the
/// values of the section's keys.
struct PolicyConfig {
  PolicyConfig() = default;
  /// A policy by name with its section's values (PolicyConfig{"lru", {}}).
  PolicyConfig(std::string policy_name, Params values)
      : name(std::move(policy_name)), params(std::move(values)) {}

  /// Registered policy name (policies/registry.h: priority rules, policies that own their
  /// structure, whole caches). Default "lru". wtinylfu is a complete cache on the exact framework
  /// (policies/wtinylfu.h), not a §4.1 policy.
  std::string name = "lru";
  /// The policy.* values, by dotted key.
  Params params;
  /// For the offline bounds (belady, pfoo_l): the next-access file of the cell's trace
  /// (engine/next_access.h), filled in by the runner (experiments/run/cell_runner.cpp), never
  /// written in an experiment. Empty otherwise.
  std::string next_access_file;
};

/// The requirement every policy that owns its structure declares (engine/policy.h
/// OwningPolicy): it runs on framework exact, whose queue asks it for victims; RIPQ and SIPQ
/// realise priority rules only (docs/guide/policies.md "On flash").
inline Requirement exact_framework_only(const std::string& policy) {
  return Requirement{{},
                     "framework.name",
                     {"exact"},
                     "policy " + policy +
                         " owns its structure (queues, ghosts, hands): it runs on framework exact "
                         "only, where every device, admission and timing mode is available"};
}

/// policy.segments, read by SLRU-L and GDSF-L: L, the number of segments of SLRU-L, the
/// frequency cap of GDSF-L. Range [1, 64]. Default 3. FIFO and LRU (SLRU-1) do not read it.
inline const KeySpec kSegmentsKey =
    key("policy.segments", ValueType::kInt)
        .def("3")
        .range(0, 64)
        .desc("L: SLRU segments (1-64), GDSF frequency cap (0: none, classic GDSF)");

}  // namespace flashpq
