// policies/policy.h — the `policy:` section of an experiment.
//
// The policy contract (PriorityKind, the Policy concept) is the engine's (engine/policy.h);
// the policies registered by name are listed in policies/registry.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/policy.h"

namespace flashpq {

/// The `policy:` section of an experiment.
struct PolicyConfig {
  /// Registered policy name: fifo | lru | slru | gdsf | wtinylfu. Default "lru". wtinylfu is a
  /// complete cache on the exact framework (policies/wtinylfu.h), not a §4.1 policy.
  std::string name = "lru";
  /// L: the number of segments of SLRU-L, the frequency cap of GDSF-L. Range [1, 64].
  /// Default 3. Ignored by fifo and lru (LRU is SLRU-1).
  uint32_t segments = 3;

  /// Throws std::invalid_argument quoting the bad value (unknown name, segments outside
  /// [1, 64]).
  void validate() const;
};

/// The registered policy names, in registration order.
const std::vector<std::string>& policy_names();

}  // namespace flashpq
