// experiments/run/kernel_unit.h — what one kernel unit compiles (experiments/run/kernels.h).
//
// Included only by the units the build generates (CMakeLists.txt, flashpq_kernel_units): unit K
// is FLASHPQ_KERNEL_UNIT(K), the kernels of
//   K < |Policies| × |caching frameworks|: priority policy K / F on caching framework K % F
//       (F = the frameworks with a queue, in registration order), with every admission policy;
//   then one unit per policy that owns its structure (OwningPolicies), on framework exact, with
//       every admission policy;
//   then one unit per cache policy (CachePolicies);
//   last, one unit per flash engine (a framework declaring kEngine, engine/framework.h: its
//       own rules order its objects; built with policy fifo and no admission of its own).
// The registries (policies/registry.h, engine/framework.h) are the only lists: a new policy or
// framework needs no line here, only the build's count of units, which kernels.cpp checks.
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "devices/block/block_device.h"
#include "devices/device.h"
#include "engine/cache.h"
#include "engine/framework.h"
#include "experiments/config/cell_config.h"
#include "experiments/run/interval_stats.h"
#include "experiments/run/kernels.h"
#include "experiments/run/measure.h"
#include "experiments/run/replay.h"
#include "experiments/run/simulated_cell.h"
#include "experiments/run/tiered_cell.h"
#include "experiments/run/wall_cell.h"
#include "experiments/session.h"
#include "policies/registry.h"
#include "traces/prefetch_reader.h"

namespace flashpq {

namespace kernels {

// ---- Type lists ------------------------------------------------------------------------------

template <class List>
struct ListSize;
template <class... T>
struct ListSize<TypeList<T...>> : std::integral_constant<size_t, sizeof...(T)> {};

template <class List, size_t I>
struct ListAt;
template <class... T, size_t I>
struct ListAt<TypeList<T...>, I> {
  using type = std::tuple_element_t<I, std::tuple<T...>>;
};

// The frameworks of Frameworks (in registration order) for which Keep<F>::value holds.
template <template <class> class Keep, class... Kept>
constexpr auto keep_if(TypeList<Kept...> kept, TypeList<>) {
  return kept;
}
template <template <class> class Keep, class... Kept, class First, class... Rest>
constexpr auto keep_if(TypeList<Kept...>, TypeList<First, Rest...>) {
  if constexpr (Keep<First>::value) {
    return keep_if<Keep>(TypeList<Kept..., First>{}, TypeList<Rest...>{});
  } else {
    return keep_if<Keep>(TypeList<Kept...>{}, TypeList<Rest...>{});
  }
}
template <class F>
struct IsEngine : std::bool_constant<is_engine_framework<F>> {};
template <class F>
struct IsPriorityFramework : std::bool_constant<F::kHasQueue && !is_engine_framework<F>> {};
/// The frameworks that build a cache for every priority policy (kHasQueue, not an engine).
using CachingFrameworks = decltype(keep_if<IsPriorityFramework>(TypeList<>{}, Frameworks{}));
/// The flash engines.
using EngineFrameworks = decltype(keep_if<IsEngine>(TypeList<>{}, Frameworks{}));

/// Units the registries need: one per (priority policy, caching framework), one per policy
/// that owns its structure, one per cache policy, one per engine.
inline constexpr size_t kUnitsNeeded =
    ListSize<Policies>::value * ListSize<CachingFrameworks>::value +
    ListSize<OwningPolicies>::value + ListSize<CachePolicies>::value +
    ListSize<EngineFrameworks>::value;

// ---- Cache builders --------------------------------------------------------------------------
// build(policy, admission, framework, cache, expected_objects, device, fn) builds the cache and
// calls fn(cache), its index reserved for expected_objects, as the runners always did.

/// Priority policy P with admission A on framework F's queue.
template <class P, class F, class A>
struct PriorityCacheBuilder {
  template <class Fn>
  static void build(const PolicyConfig& policy_config, const AdmissionConfig& admission_config,
                    const FrameworkConfig& framework, const CacheConfig& cache,
                    uint64_t expected_objects, Device& device, Fn&& fn) {
    P policy(policy_config);
    A admission(admission_config, expected_objects);
    Cache<P, typename F::template Queue<P>, A> c(cache, framework, std::move(policy), device,
                                                 std::move(admission));
    c.reserve(expected_objects);
    fn(c);
  }
  /// The cache of a session (experiments/session.h), built as build() builds it.
  static std::unique_ptr<SessionCache> session(const SessionBuild& b) {
    using C = Cache<P, typename F::template Queue<P>, A>;
    auto c = std::make_unique<C>(b.plan->cache, b.plan->framework, P(b.cell->policy), *b.device,
                                 A(b.cell->admission, b.plan->expected_objects));
    c->reserve(b.plan->expected_objects);
    return std::make_unique<SessionCacheOf<C>>(std::move(c), *b.device);
  }
};

/// Cache policy C (its own structure; the framework's queue unused, nothing placed).
template <class C>
struct CachePolicyBuilder {
  template <class Fn>
  static void build(const PolicyConfig& policy_config, const AdmissionConfig& admission_config,
                    const FrameworkConfig&, const CacheConfig& cache, uint64_t expected_objects,
                    Device&, Fn&& fn) {
    auto run = [&](auto& c) {
      if constexpr (requires { c.reserve(size_t{}); }) c.reserve(expected_objects);
      fn(c);
    };
    // A cache policy reads the policy section when its build() takes it (PFOO-L: the trace's
    // next-access file).
    if constexpr (requires {
                    C::build(policy_config, cache, admission_config, expected_objects, run);
                  }) {
      C::build(policy_config, cache, admission_config, expected_objects, run);
    } else {
      C::build(cache, admission_config, expected_objects, run);
    }
  }
  /// The cache of a session, when C can be built without a trace (C::make).
  static std::unique_ptr<SessionCache> session(const SessionBuild& b) {
    if constexpr (requires { C::make(b.plan->cache, b.cell->admission, uint64_t{}); }) {
      auto c = C::make(b.plan->cache, b.cell->admission, b.plan->expected_objects);
      if constexpr (requires { c->reserve(size_t{}); }) c->reserve(b.plan->expected_objects);
      using Made = typename decltype(c)::element_type;
      return std::make_unique<SessionCacheOf<Made>>(std::move(c), *b.device);
    } else {
      throw std::invalid_argument("policy " + C::spec().name +
                                  " is built from a trace: run it in a cell (flashpq.run)");
    }
  }
};

// ---- Kernels ---------------------------------------------------------------------------------

/// run_functional's replay of a cache: the trace streamed (decoded on a second core) through
/// the cache, hits counted after the warm-up.
template <class Build>
void functional(const CellConfig& cell, const CellPlan& plan, Device& device, Measurement& m) {
  HitStats stats;
  stats.reserve(plan.trace_objects);
  Build::build(cell.policy, cell.admission, plan.framework, plan.cache, plan.expected_objects,
               device, [&](auto& c) {
                 PrefetchReader prefetch(open_cell_trace(cell, plan));
                 ProgressReader reader(prefetch, plan.progress, plan.interrupt);
                 m.replayed = replay_stream(c, reader, stats, plan.warmup_requests,
                                            [&] { end_warmup(m, device, c); });
                 finish(m, c, device);
               });
  m.counted = stats.counters();
}

/// run_on_wall_clock's replay of a cache: every access timed on the host's clock
/// (WallTimedCache), the series over time in host time.
template <class Build>
void wall(WallCellRun& run) {
  const CellConfig& cell = run.cell;
  const CellPlan& plan = run.plan;
  BlockDevice& device = run.device;
  Measurement& m = run.m;
  HitStats stats;
  stats.reserve(plan.trace_objects);
  // stats.interval_s: the series (experiments/run/interval_stats.h) and its counts.
  std::optional<IntervalStats> series;
  if (cell.stats.enabled()) {
    series.emplace(cell.stats.interval_ns, cell.stats_path, IntervalStats::Shape::kCache);
  }
  IntervalCounters counts;
  Build::build(cell.policy, cell.admission, plan.framework, plan.cache, plan.expected_objects,
               device, [&](auto& c) {
                 using C = std::remove_reference_t<decltype(c)>;
                 PrefetchReader prefetch(open_cell_trace(cell, plan));
                 ProgressReader reader(prefetch, plan.progress, plan.interrupt);
                 WallTimedCache timed(c, plan.warmup_requests, run.timing, device.io_log());
                 auto snapshot = [&] {
                   IntervalCounters s = counts;
                   add_device_counters(s, device);
                   return s;
                 };
                 WallSeries<C, decltype(snapshot)> replayed{
                     c,      &timed,   series ? &*series : nullptr,
                     counts, snapshot, plan.warmup_requests};
                 device.begin_nvme_measurement();
                 m.replayed = replay_stream(replayed, reader, stats, plan.warmup_requests,
                                            [&] { end_warmup(m, device, c); });
                 device.end_nvme_measurement();
                 if (series) series->finish(timed.last_end_ns(), snapshot());
                 finish(m, c, device);
               });
  m.counted = stats.counters();
  if (series) m.stats_file = cell.stats_file;
}

/// `flashpq bench`'s replay on a null device, without a warm-up.
template <class Build>
BenchOutcome bench(const BenchReplay& b) {
  BenchOutcome out;
  NullDevice device;
  Build::build(*b.policy, *b.admission, *b.framework, *b.cache, b.expected_objects, device,
               [&](auto& cache) {
                 HitStats stats;
                 stats.reserve(b.trace_objects);
                 if (b.streamed != nullptr) {
                   out.requests = replay_stream(cache, *b.streamed, stats, 0);
                 } else {
                   out.requests = replay_span(cache, b.requests, stats, 0, 0);
                 }
                 out.counted = stats.counters();
                 out.objects = cache.object_count();
                 out.index_bytes = cache.index_bytes();
                 out.queue_bytes = cache.queue_bytes();
                 out.admission_bytes = cache.admission_bytes();
               });
  return out;
}

/// The kernels of the cache Build builds; with `flash_tier` (a priority policy P on framework F
/// without admission), the hierarchies over it too.
template <class Build, class P = void, class F = void>
CellKernels kernels_of() {
  CellKernels k;
  k.functional = &functional<Build>;
  k.simulated = &simulated_cache_kernel<Build>;
  k.wall = &wall<Build>;
  k.bench = &bench<Build>;
  k.session = &Build::session;
  if constexpr (!std::is_void_v<P>) {
    k.tiered = &tiered::tiered_replay_kernel<P, F>;
    k.tiered_simulated = &tiered::tiered_simulated_kernel<P, F>;
  }
  return k;
}

template <class P, class F, class... A>
std::vector<KernelEntry> priority_entries(TypeList<A...>) {
  std::vector<KernelEntry> out;
  auto entry = [&]<class Adm>(std::type_identity<Adm>) {
    using B = PriorityCacheBuilder<P, F, Adm>;
    // A hierarchy's flash tier admits through tiers.flash_admission: no admission of its own.
    if constexpr (std::is_same_v<Adm, NoAdmission>) {
      return KernelEntry{P::spec().name, Adm::spec().name, F::spec().name, kernels_of<B, P, F>()};
    } else {
      return KernelEntry{P::spec().name, Adm::spec().name, F::spec().name, kernels_of<B>()};
    }
  };
  (out.push_back(entry(std::type_identity<A>{})), ...);
  return out;
}

/// The entries of unit K (see the file comment).
template <size_t K>
std::vector<KernelEntry> unit() {
  static_assert(K < kUnitsNeeded, "kernel unit index past what the registries need");
  constexpr size_t frameworks = ListSize<CachingFrameworks>::value;
  constexpr size_t priority = ListSize<Policies>::value * frameworks;
  constexpr size_t owning = ListSize<OwningPolicies>::value;
  if constexpr (K < priority) {
    using P = typename ListAt<Policies, K / frameworks>::type;
    using F = typename ListAt<CachingFrameworks, K % frameworks>::type;
    return priority_entries<P, F>(AdmissionPolicies{});
  } else if constexpr (K < priority + owning) {
    using P = typename ListAt<OwningPolicies, K - priority>::type;
    return priority_entries<P, ExactFramework>(AdmissionPolicies{});
  } else if constexpr (K < priority + owning + ListSize<CachePolicies>::value) {
    using C = typename ListAt<CachePolicies, K - priority - owning>::type;
    return {KernelEntry{C::spec().name, "", "", kernels_of<CachePolicyBuilder<C>>()}};
  } else {
    using E = typename ListAt<EngineFrameworks,
                              K - priority - owning - ListSize<CachePolicies>::value>::type;
    return priority_entries<FifoPolicy, E>(TypeList<NoAdmission>{});
  }
}

}  // namespace kernels
}  // namespace flashpq

/// Defines kernel unit K's entry point, declared in the generated kernel_units.h.
#define FLASHPQ_KERNEL_UNIT(K)          \
  namespace flashpq::kernels {          \
  std::vector<KernelEntry> unit_##K() { \
    return unit<K>();                   \
  }                                     \
  }
