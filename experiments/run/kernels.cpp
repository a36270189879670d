// experiments/run/kernels.cpp — the table of kernels (experiments/run/kernels.h), gathered from
// the kernel units the build generated.
#include "experiments/run/kernels.h"

#include <stdexcept>
#include <vector>

#include "engine/framework.h"
#include "experiments/run/kernel_units.h"  // generated: FLASHPQ_KERNEL_UNITS, unit_0() ...
#include "policies/registry.h"

namespace flashpq {

namespace kernels {
// Every priority policy × every framework with a queue that is not an engine, every policy that
// owns its structure, every cache policy and every engine: one unit each
// (experiments/run/kernel_unit.h). Counted here as kernel_unit.h counts them.
template <class... F>
constexpr size_t caching_count(TypeList<F...>) {
  return (size_t{0} + ... + (F::kHasQueue && !is_engine_framework<F> ? 1 : 0));
}
template <class... F>
constexpr size_t engine_count(TypeList<F...>) {
  return (size_t{0} + ... + (is_engine_framework<F> ? 1 : 0));
}
template <class... T>
constexpr size_t list_size(TypeList<T...>) {
  return sizeof...(T);
}
constexpr size_t kUnitsNeeded = list_size(Policies{}) * caching_count(Frameworks{}) +
                                list_size(OwningPolicies{}) + list_size(CachePolicies{}) +
                                engine_count(Frameworks{});
static_assert(FLASHPQ_KERNEL_UNITS == kUnitsNeeded,
              "CMakeLists.txt (flashpq_kernel_units) generated another number of kernel units "
              "than the registries need: it counts the type lists of policies/registry.h and "
              "engine/framework.h, the frameworks declaring kHasQueue = false and those declaring "
              "kEngine = true");
}  // namespace kernels

namespace {

const std::vector<KernelEntry>& table() {
  static const std::vector<KernelEntry> entries = [] {
    std::vector<KernelEntry> all;
    for (auto unit : kernels::kUnits) {
      for (KernelEntry& e : unit()) all.push_back(std::move(e));
    }
    return all;
  }();
  return entries;
}

}  // namespace

const CellKernels& cell_kernels(const std::string& policy, const std::string& admission,
                                const std::string& framework) {
  if (!framework_builds_cache(framework)) {  // throws for an unknown framework
    throw std::invalid_argument("framework.name: framework '" + framework +
                                "' has no cache to build");
  }
  for (const KernelEntry& e : table()) {
    if (e.policy != policy) continue;
    if (e.framework.empty()) return e.kernels;  // a cache policy: any admission, exact
    if (e.framework == framework && e.admission == admission) return e.kernels;
  }
  // Unknown names: the registries' own errors, listing what is registered.
  check_policy(PolicyConfig{policy, {}});
  check_admission(AdmissionConfig{admission, {}});
#ifdef FLASHPQ_KERNELS_SWEEP_ONLY
  throw std::invalid_argument(
      "this build (FLASHPQ_TSAN) compiles the kernels of fifo and lru on frameworks exact and "
      "ripq only: no kernel for policy " +
      policy + ", admission " + admission + ", framework " + framework);
#endif
  throw std::logic_error("no kernel for policy " + policy + ", admission " + admission +
                         ", framework " + framework + " (experiments/run/kernel_unit.h)");
}

size_t kernel_unit_count() {
  return FLASHPQ_KERNEL_UNITS;
}

}  // namespace flashpq
