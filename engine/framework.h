// engine/framework.h — the framework registry: how the priority queue is realised.
//
// Source: docs/DESIGN.md "Data flow" (framework). A framework is one folder of engine/ that
// declares its keys and registers itself with one line in the list below (its headers are
// included by "engine/framework_headers.h", which the build generates from engine/*/*.h):
//   exact   an exact priority queue in memory, the fidelity baseline (engine/exact/);
//   ripq    RIPQ, RIPQ paper §4 (engine/ripq/);
//   sipq    SIPQ, §5 (engine/sipq/);
//   direct  no cache: requests are block I/O sent straight to the device (engine/direct/);
//   bighash CacheLib navy's BigHash, a flash engine (engine/bighash/);
//   blockcache  CacheLib navy's BlockCache, a flash engine (engine/blockcache/);
//   kangaroo    Kangaroo (SOSP'21): a log in front of sets, a flash engine (engine/kangaroo/);
//   hybrid      navy's BigHash and BlockCache on one device, split by size (engine/hybrid/).
// with_framework() instantiates Cache<P, Queue, A> once per (policy, framework, admission) so
// the per-request path has no virtual call.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "devices/device.h"
#include "devices/null_device.h"
#include "engine/admission.h"
#include "engine/cache.h"
#include "engine/framework_headers.h"  // generated: every header of engine/NAME/
#include "engine/queue.h"
#include "sim/params.h"

namespace flashpq {

/// A flash engine (BlockCache, BigHash): a framework whose own rules order its objects (regions,
/// buckets, reinsertion), declared by `static constexpr bool kEngine = true`. Its queue ignores
/// the policy's priorities; it is compiled with policy fifo only (experiments/run/kernel_unit.h).
template <class F>
consteval bool engine_flag() {
  if constexpr (requires { F::kEngine; }) {
    return F::kEngine;
  } else {
    return false;
  }
}
template <class F>
inline constexpr bool is_engine_framework = engine_flag<F>();

/// The registry, in registration order: one line per framework.
using Frameworks =
    TypeList<ExactFramework, RipqFramework, SipqFramework, DirectFramework, BigHashFramework,
             BlockCacheFramework, KangarooFramework, HybridFramework>;

/// Every name `framework.name` accepts, in registration order.
const std::vector<std::string>& framework_names();

/// The `framework:` section: framework.name, then every framework's keys (sim/params.h).
const SectionSpec& framework_section();

/// Whether the framework named `name` builds a cache (all but direct). Throws
/// std::invalid_argument for an unknown name.
bool framework_builds_cache(const std::string& name);

/// Whether the framework named `name` is a flash engine (is_engine_framework). Throws
/// std::invalid_argument for an unknown name.
bool framework_is_engine(const std::string& name);

/// Checks config.params as the named framework reads them (its decoding: RipqConfig::from…),
/// without building anything. Throws std::invalid_argument quoting a bad value or naming an
/// unknown framework.
void check_framework(const FrameworkConfig& config);

/// The layout of a cache of `shape` on the framework `config` names (engine/queue.h
/// FrameworkLayout): a framework that declares `static FrameworkLayout layout(const Params&,
/// const CacheShape&)` computes its own; otherwise no blocks, C bytes addressed, objects placed
/// when it has a queue. Throws std::invalid_argument as check_framework().
FrameworkLayout framework_layout(const FrameworkConfig& config, const CacheShape& shape);

/// Builds the cache for policy `policy` with admission `admission` on the framework named by
/// `framework`, placing objects on `device`, and calls fn(cache) with it (a Cache<P, Queue, A>&;
/// fn returns void). Throws std::invalid_argument for an unknown name, a framework without a
/// cache (direct) or a configuration the framework rejects.
template <Policy P, class A, class Fn>
void with_framework(const FrameworkConfig& framework, const CacheConfig& cache, P policy,
                    Device& device, A admission, Fn&& fn) {
  with_type_named(Frameworks{}, framework.name, "framework.name", [&](auto type) {
    using F = typename decltype(type)::type;
    if constexpr (F::kHasQueue) {
      Cache<P, typename F::template Queue<P>, A> c(cache, framework, std::move(policy), device,
                                                   std::move(admission));
      fn(c);
    } else {
      throw std::invalid_argument("framework.name: framework '" + framework.name +
                                  "' has no cache to build");
    }
  });
}

/// As above, admitting everything.
template <Policy P, class Fn>
void with_framework(const FrameworkConfig& framework, const CacheConfig& cache, P policy,
                    Device& device, Fn&& fn) {
  with_framework(framework, cache, std::move(policy), device, NoAdmission(AdmissionConfig{}, 0),
                 std::forward<Fn>(fn));
}

/// As above, on a null device of its own: for pure hit-ratio runs (bench, tests).
template <Policy P, class Fn>
void with_framework(const FrameworkConfig& framework, const CacheConfig& cache, P policy, Fn&& fn) {
  NullDevice device;
  with_framework(framework, cache, std::move(policy), device, std::forward<Fn>(fn));
}

}  // namespace flashpq
