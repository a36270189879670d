// policies/registry.h — the policies and admission policies registered by name; the YAML values
// `policy.name` and `admission.name` select one.
//
// A new policy is one new header in this folder (a class with spec(), kKind, grid() and the
// hooks of engine/policy.h) plus one line in Policies below (docs/guide/extending.md "A policy,
// step by step"): the build generates "policies/policy_headers.h", which includes every header of
// policies/. Policies are types, not objects: with_policy() instantiates the caller's code once per
// policy, so no virtual call sits on the per-request path. A policy that is a whole cache
// rather than a priority rule (W-TinyLFU) is registered in CachePolicies and built with
// with_cache_policy().
#pragma once

#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "engine/admission.h"
#include "engine/cache.h"
#include "policies/policy.h"
#include "policies/policy_headers.h"  // generated: every header of policies/
#include "sim/params.h"

namespace flashpq {

/// The priority policies (RIPQ paper Table 2), one line each, in registration order.
using Policies = TypeList<FifoPolicy, LruPolicy, SlruPolicy, GdsfPolicy>;
/// The policies that own their structure (engine/policy.h OwningPolicy), one line each: they run
/// on framework exact (engine/exact/owned_queue.h), on any device, with any admission.
using OwningPolicies = TypeList<S3FifoPolicy, SievePolicy, ArcPolicy, TwoQPolicy, LirsPolicy,
                                LfuPolicy, LfudaPolicy, ClockPolicy, BeladyPolicy>;
/// The policies that are whole caches (framework exact only), one line each.
using CachePolicies = TypeList<WTinyLfu, PfooL>;
/// The admission policies, one line each: NoAdmission is the admission seam's own
/// (engine/admission.h).
using AdmissionPolicies = TypeList<NoAdmission, TinyLfuAdmission>;

/// Every name `policy.name` accepts: the priority policies, then the cache policies.
const std::vector<std::string>& policy_names();
/// Every name `admission.name` accepts.
const std::vector<std::string>& admission_names();
/// True if `name` is registered in CachePolicies.
bool is_cache_policy(const std::string& name);
/// True if `name` is registered in OwningPolicies.
bool is_owning_policy(const std::string& name);
/// True if the policy registered as `name` reads the trace's future (declares
/// `kReadsNextAccess`: the offline bounds, policies/belady.h and policies/pfoo_l.h): its cell
/// fills PolicyConfig::next_access_file before building it.
bool policy_reads_next_access(const std::string& name);
/// True if the policy registered as `name` can decide alone over a cache of objects handed to
/// it one request at a time, as a hierarchy's DRAM tier is (experiments/run/dram_tier.h): a
/// priority policy or a policy that owns its structure, not a complete cache (CachePolicies)
/// nor one that reads the trace's future. False for an unknown name.
bool policy_can_be_dram_tier(const std::string& name);
/// Bytes the policy registered as `name` holds per request of the trace, beyond its cache
/// (`kBytesPerTraceRequest`: PFOO-L's intervals), for a cell's memory estimate; 0 for the
/// others.
uint64_t policy_bytes_per_trace_request(const std::string& name);

/// The `policy:` and `admission:` sections (sim/params.h): their selector and every
/// component's keys.
const SectionSpec& policy_section();
const SectionSpec& admission_section();

/// Checks the values of the policy and admission sections as the named components read them,
/// without building anything. Throws std::invalid_argument quoting a bad value or naming an
/// unknown component.
void check_policy(const PolicyConfig& config);
void check_admission(const AdmissionConfig& config);

/// Calls fn(P{config}) with the priority policy registered under config.name and returns its
/// result. Throws std::invalid_argument for an unknown name, for a cache policy (build it with
/// with_cache_policy()), or a bad value of the policy's keys.
template <class Fn>
decltype(auto) with_policy(const PolicyConfig& config, Fn&& fn) {
  if (is_cache_policy(config.name)) {
    throw std::invalid_argument("policy '" + config.name +
                                "' is a complete cache, not a priority-queue policy: build it "
                                "with with_cache_policy(), on the exact framework only");
  }
  if (is_owning_policy(config.name)) {
    throw std::invalid_argument("policy '" + config.name +
                                "' owns its structure, not a priority-queue policy: build it "
                                "with with_owning_policy(), on the exact framework only");
  }
  return with_type_named(Policies{}, config.name, "policy.name", [&](auto type) {
    using P = typename decltype(type)::type;
    return fn(P(config));
  });
}

/// Calls fn(P{config}) with the policy registered under config.name in OwningPolicies and
/// returns its result: fn builds it on the exact framework (ExactFramework::Queue<P> is its
/// ExactOwnedQueue). Throws std::invalid_argument for a name not registered there, or a bad
/// value of the policy's keys.
template <class Fn>
decltype(auto) with_owning_policy(const PolicyConfig& config, Fn&& fn) {
  return with_type_named(OwningPolicies{}, config.name, "policy.name", [&](auto type) {
    using P = typename decltype(type)::type;
    return fn(P(config));
  });
}

/// with_policy(), except that a policy declaring `DecidesAs` (a public base whose decisions it
/// makes, only faster: LRU, SLRU-1) is passed as that base, so fn is instantiated once for both.
/// For code instantiated per policy for many cache types, where the compile cost outweighs the
/// specialisation's speed (a hierarchy's DRAM tier, experiments/run/tiered_cell.h). Throws as
/// with_policy().
template <class Fn>
decltype(auto) with_policy_as_base(const PolicyConfig& config, Fn&& fn) {
  return with_policy(config, [&](auto policy) -> decltype(auto) {
    using P = decltype(policy);
    if constexpr (requires { typename P::DecidesAs; }) {
      static_assert(std::is_base_of_v<typename P::DecidesAs, P>);
      return fn(typename P::DecidesAs(std::move(policy)));
    } else {
      return fn(std::move(policy));
    }
  });
}

/// Builds the cache policy registered under config.name (C::build) for `cache`, its sketch
/// configured by `admission` and sized for `expected_objects`, and calls fn(cache).
template <class Fn>
decltype(auto) with_cache_policy(const PolicyConfig& config, const CacheConfig& cache,
                                 const AdmissionConfig& admission, uint64_t expected_objects,
                                 Fn&& fn) {
  return with_type_named(CachePolicies{}, config.name, "policy.name", [&](auto type) {
    using C = typename decltype(type)::type;
    if constexpr (requires { C::build(config, cache, admission, expected_objects, fn); }) {
      return C::build(config, cache, admission, expected_objects, fn);  // reads the section
    } else {
      return C::build(cache, admission, expected_objects, fn);
    }
  });
}

/// Calls fn(A{config, expected_objects}) with the admission type registered under config.name
/// (NoAdmission or TinyLfuAdmission) and returns its result. `expected_objects` is the number of
/// objects the cache is expected to hold — an object count (e.g. the capacity in unit-size mode,
/// capacity / mean object size otherwise), never a byte count. Throws std::invalid_argument for
/// an unknown name, a bad value of its keys or a sketch too large to allocate.
template <class Fn>
decltype(auto) with_admission(const AdmissionConfig& config, uint64_t expected_objects, Fn&& fn) {
  return with_type_named(AdmissionPolicies{}, config.name, "admission.name", [&](auto type) {
    using A = typename decltype(type)::type;
    return fn(A(config, expected_objects));
  });
}

}  // namespace flashpq
