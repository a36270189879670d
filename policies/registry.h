// policies/registry.h — policies registered by name; the YAML value `policy.name` selects one.
//
// A new policy is one new header in this folder plus one line in with_policy() and one name in
// policy_names() (registry.cpp). "wtinylfu" is registered as a name but is a complete cache, not a
// priority-queue policy: with_wtinylfu_cache() (policies/wtinylfu.h) builds it.
#pragma once

#include <stdexcept>
#include <utility>

#include "policies/fifo.h"
#include "policies/gdsf.h"
#include "policies/policy.h"
#include "policies/slru.h"
#include "policies/tinylfu.h"

namespace flashpq {

/// Calls fn(P{config}) with the policy type registered under config.name and returns its
/// result. Throws std::invalid_argument for an unknown name, and for "wtinylfu" (a complete
/// cache built with with_wtinylfu_cache(), not a policy a framework can run).
template <class Fn>
decltype(auto) with_policy(const PolicyConfig& config, Fn&& fn) {
  if (config.name == "fifo") return std::forward<Fn>(fn)(FifoPolicy(config));
  if (config.name == "lru") return std::forward<Fn>(fn)(LruPolicy(config));
  if (config.name == "slru") return std::forward<Fn>(fn)(SlruPolicy(config));
  if (config.name == "gdsf") return std::forward<Fn>(fn)(GdsfPolicy(config));
  if (config.name == "wtinylfu") {
    throw std::invalid_argument(
        "policy 'wtinylfu' is a complete cache (LRU window, SLRU main, TinyLFU sketch), not a "
        "priority-queue policy: build it with with_wtinylfu_cache() (policies/wtinylfu.h), on the "
        "exact framework only");
  }
  throw std::invalid_argument("unknown policy '" + config.name + "'");
}

/// Calls fn(A{config, expected_objects}) with the admission type registered under config.name
/// (NoAdmission or TinyLfuAdmission) and returns its result. `expected_objects` is the number of
/// objects the cache is expected to hold — an object count (e.g. the capacity in unit-size mode,
/// capacity / mean object size otherwise), never a byte count. REQUIRES: config validated.
/// Throws std::invalid_argument for an unknown name or a sketch too large to allocate.
template <class Fn>
decltype(auto) with_admission(const AdmissionConfig& config, uint64_t expected_objects, Fn&& fn) {
  if (config.name == "none") return std::forward<Fn>(fn)(NoAdmission(config, expected_objects));
  if (config.name == "tinylfu") {
    return std::forward<Fn>(fn)(TinyLfuAdmission(config, expected_objects));
  }
  throw std::invalid_argument("admission.name: unknown admission policy '" + config.name + "'");
}

}  // namespace flashpq
