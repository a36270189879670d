// experiments/run/dram_tier.h — a hierarchy's DRAM tier for any tiers.dram_policy, behind
// AnyCache (engine/any_cache.h).
#pragma once

#include "engine/any_cache.h"
#include "engine/cache.h"
#include "policies/policy.h"

namespace flashpq {

/// The DRAM tier of `policy` (its keys as given; a hierarchy passes none: their defaults) on
/// the exact queue, placing nothing on a device, of `config.capacity_bytes`. Compiled once for
/// every policy in experiments/run/dram_tier.cpp. REQUIRES: config validated. Throws
/// std::invalid_argument when !policy_can_be_dram_tier(policy.name) (policies/registry.h) or for a
/// bad value of its keys.
AnyCache make_dram_tier(const PolicyConfig& policy, const CacheConfig& config);

}  // namespace flashpq
