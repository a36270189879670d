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

#include "devices/device.h"
#include "devices/null_device.h"
#include "engine/cache.h"
#include "engine/queue.h"
#include "engine/ripq/ripq_queue.h"
#include "engine/sipq/sipq_queue.h"

namespace flashpq {

/// Every framework name `framework.name` accepts: the queue frameworks and "direct".
const std::vector<std::string>& framework_names();
/// The priority-queue frameworks with_framework() builds: "exact", "ripq", "sipq". ("direct"
/// has no cache: sim/direct.h replays requests as block I/O.)
const std::vector<std::string>& queue_framework_names();

/// Builds the cache for policy `policy` with admission `admission` on the framework named by
/// `framework`, placing objects on `device`, and calls fn(cache) with it (a Cache<P, Queue, A>&).
/// Throws std::invalid_argument for an unknown name or a configuration the framework rejects.
template <Policy P, class A, class Fn>
decltype(auto) with_framework(const FrameworkConfig& framework, const CacheConfig& cache, P policy,
                              Device& device, A admission, Fn&& fn) {
  if (framework.name == "exact") {
    Cache<P, ExactQueueFor<P>, A> c(cache, framework, std::move(policy), device,
                                    std::move(admission));
    return std::forward<Fn>(fn)(c);
  }
  if (framework.name == "ripq") {
    Cache<P, RipqQueue<P::kKind>, A> c(cache, framework, std::move(policy), device,
                                       std::move(admission));
    return std::forward<Fn>(fn)(c);
  }
  if (framework.name == "sipq") {
    Cache<P, SipqQueueFor<P>, A> c(cache, framework, std::move(policy), device,
                                   std::move(admission));
    return std::forward<Fn>(fn)(c);
  }
  throw std::invalid_argument("framework.name: unknown framework '" + framework.name + "'");
}

/// As above, admitting everything.
template <Policy P, class Fn>
decltype(auto) with_framework(const FrameworkConfig& framework, const CacheConfig& cache, P policy,
                              Device& device, Fn&& fn) {
  return with_framework(framework, cache, std::move(policy), device,
                        NoAdmission(AdmissionConfig{}, 0), std::forward<Fn>(fn));
}

/// As above, on a null device of its own: for pure hit-ratio runs (bench, tests).
template <Policy P, class Fn>
decltype(auto) with_framework(const FrameworkConfig& framework, const CacheConfig& cache, P policy,
                              Fn&& fn) {
  NullDevice device{DeviceConfig{}};
  return with_framework(framework, cache, std::move(policy), device, std::forward<Fn>(fn));
}

}  // namespace flashpq
