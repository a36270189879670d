// engine/framework.h — the framework extension point: how the priority queue is realised.
//
// Source: DESIGN.md "framework". Registered names: "exact" (an exact priority queue in memory;
// the fidelity baseline). RIPQ, SIPQ and direct plug in here as further queue types selected
// by name; with_framework() instantiates Cache<P, Queue> once per (policy, framework) pair so the
// per-request path has no virtual call.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "engine/cache.h"

namespace flashpq {

/// The `framework:` section of an experiment.
struct FrameworkConfig {
  /// Registered framework name. Only "exact" so far. Default "exact".
  std::string name = "exact";

  /// Throws std::invalid_argument quoting the bad value (unknown name).
  void validate() const;
};

/// The registered framework names.
const std::vector<std::string>& framework_names();

/// Builds the cache for policy `policy` on the framework named by `framework` and calls
/// fn(cache) with it (a Cache<P, Queue>&). Throws std::invalid_argument for an unknown name.
template <Policy P, class Fn>
decltype(auto) with_framework(const FrameworkConfig& framework, const CacheConfig& cache,
                              P policy, Fn&& fn) {
  if (framework.name == "exact") {
    Cache<P, ExactQueueFor<P>> c(cache, std::move(policy));
    return std::forward<Fn>(fn)(c);
  }
  throw std::invalid_argument("framework.name: unknown framework '" + framework.name + "'");
}

}  // namespace flashpq
