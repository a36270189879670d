// experiments/run/kernels.h — the runners' work on one type of cache, compiled once per type.
//
// A cell's cache is a type — Cache<P, Queue, A> (engine/cache.h) for a priority policy P on a
// framework's queue with admission A, a cache policy's own type (W-TinyLFU), a hierarchy
// TieredCache over one of them (engine/tiers.h) — so that no virtual call sits on the
// per-request path. What the runners do with a cache of one type — its functional replay, its
// replay in simulated time and on the wall clock, the hierarchies over it, `flashpq bench`'s
// replay — are that type's kernels. The kernels of the caches of one (priority policy,
// framework) pair, or of one cache policy, are compiled in a translation unit of their own that
// the build generates (CMakeLists.txt, flashpq_kernel_units: build/generated/experiments/
// kernels/unit_N.cpp, each instantiating experiments/run/kernel_unit.h for its index), so that
//   * each cache type's code is compiled once, not once per runner;
//   * the units compile in parallel, and a change to a framework or policy rebuilds its units;
//   * a new policy or framework adds a bounded number of units (one per framework, or one per
//     policy, plus one for a cache policy).
// The runners (functional_cell.cpp, simulated_cell.cpp, wall_cell.cpp, tiered_cell.cpp) and
// `flashpq bench` reach a kernel through one indirect call per cell, never per request.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "engine/admission.h"
#include "engine/cache.h"
#include "engine/queue.h"
#include "experiments/run/stats.h"
#include "policies/policy.h"

namespace flashpq {

struct CellConfig;
struct CellPlan;
struct Measurement;
struct SimulatedCellRun;
struct WallCellRun;
class Device;
class ServiceModel;
class BlockDevice;
class TraceReader;

/// `flashpq bench`'s replay of one cache on a null device (experiments/bench.cpp): the cache's
/// sections, the objects it is expected to hold (its index reserve and TinyLFU's sketch), and
/// the requests — streamed from `streamed` when set, else `requests` from memory.
class SessionCache;
struct SessionBuild;

struct BenchReplay {
  const PolicyConfig* policy = nullptr;
  const AdmissionConfig* admission = nullptr;
  const FrameworkConfig* framework = nullptr;
  const CacheConfig* cache = nullptr;
  uint64_t expected_objects = 1;
  /// The trace's distinct keys (the seen-key set of the hit statistics).
  uint64_t trace_objects = 0;
  TraceReader* streamed = nullptr;
  std::span<const Request> requests;
};

/// What a bench replay measured: requests replayed, the hit counters (no warm-up), and the
/// cache's size and DRAM at the end.
struct BenchOutcome {
  uint64_t requests = 0;
  HitCounters counted;
  size_t objects = 0;
  size_t index_bytes = 0;
  size_t queue_bytes = 0;
  size_t admission_bytes = 0;
};

/// The kernels of one cache type. Each builds the cell's cache on the device it is given, sized
/// by the plan, and replays the cell's trace through it, filling the Measurement as the runner
/// that calls it documents (experiments/run/runners.h). Null where the type cannot serve: the
/// hierarchy kernels exist for a flash tier, i.e. a priority policy without admission of its
/// own (tiers.flash_admission decides what enters flash).
struct CellKernels {
  /// run_functional's replay of a cache (experiments/run/functional_cell.cpp).
  void (*functional)(const CellConfig&, const CellPlan&, Device&, Measurement&) = nullptr;
  /// run_simulated's replay of a cache (experiments/run/simulated_cell.h).
  void (*simulated)(SimulatedCellRun&) = nullptr;
  /// run_on_wall_clock's replay of a cache (experiments/run/wall_cell.h).
  void (*wall)(WallCellRun&) = nullptr;
  /// A hierarchy over this cache as its flash tier: functional, or on the wall clock on `wall`
  /// (the same device) (experiments/run/tiered_cell.h).
  Measurement (*tiered)(const CellConfig&, const CellPlan&, Device&, BlockDevice* wall) = nullptr;
  /// A hierarchy over this cache in simulated time.
  Measurement (*tiered_simulated)(const CellConfig&, const CellPlan&, Device&,
                                  ServiceModel&) = nullptr;
  /// `flashpq bench`'s replay on a null device.
  BenchOutcome (*bench)(const BenchReplay&) = nullptr;
  /// The cache of a session (experiments/session.h), built on the session's device, sized by
  /// its plan. Throws std::invalid_argument for a cache that needs a trace (pfoo_l).
  std::unique_ptr<SessionCache> (*session)(const SessionBuild&) = nullptr;
};

/// One entry of a kernel unit: the registered names that select it, and its kernels. An empty
/// framework matches any framework and admission (a cache policy).
struct KernelEntry {
  std::string policy, admission, framework;
  CellKernels kernels;
};

/// The kernels of the cache that `policy`, `admission` and `framework` (registered names)
/// select: a priority policy with its admission on the framework's queue, or a cache policy
/// (any admission: it configures the policy's own sketch; framework exact, as its requirement
/// says). Throws std::invalid_argument naming the registered names for an unknown one, or for
/// a framework that builds no cache (direct).
const CellKernels& cell_kernels(const std::string& policy, const std::string& admission,
                                const std::string& framework);

/// The number of kernel units the build generated, and the number the registries need: equal
/// (kernels.cpp checks it at compile time; a test shows it).
size_t kernel_unit_count();

}  // namespace flashpq
