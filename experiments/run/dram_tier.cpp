#include "experiments/run/dram_tier.h"

#include <memory>
#include <stdexcept>
#include <utility>

#include "devices/null_device.h"
#include "engine/exact/exact_framework.h"
#include "policies/registry.h"

namespace flashpq {

namespace {

// A Cache of policy P on the exact queue with the device and framework it refers to (both must
// outlive it: they live beside it).
template <class P>
class DramTierCache {
 public:
  DramTierCache(const CacheConfig& config, P policy)
      : cache_(config, framework_, std::move(policy), device_) {}
  bool access(const Request& r) { return cache_.access(r); }
  bool lookup(const Request& r) { return cache_.lookup(r); }
  bool contains(uint64_t key) const { return cache_.contains(key); }
  void set_eviction_listener(AnyCache::EvictionListener l, void* context) {
    cache_.set_eviction_listener(l, context);
  }
  void reserve(size_t objects) { cache_.reserve(objects); }

 private:
  NullDevice device_;
  FrameworkConfig framework_{"exact", {}};
  Cache<P, ExactFramework::Queue<P>> cache_;
};

template <class P>
AnyCache make(const CacheConfig& config, P policy) {
  return AnyCache(std::make_unique<DramTierCache<P>>(config, std::move(policy)));
}

}  // namespace

AnyCache make_dram_tier(const PolicyConfig& policy, const CacheConfig& config) {
  if (!policy_can_be_dram_tier(policy.name)) {
    throw std::invalid_argument("tiers.dram_policy '" + policy.name +
                                "' cannot be a DRAM tier (a complete cache, a bound reading "
                                "next-access times, or not a policy)");
  }
  if (is_owning_policy(policy.name)) {
    return with_owning_policy(policy, [&](auto p) {
      using P = decltype(p);
      if constexpr (requires { P::kReadsNextAccess; }) {
        // Refused by policy_can_be_dram_tier() above; not compiled as a DRAM tier.
        throw std::logic_error("make_dram_tier: " + policy.name + " reads next-access times");
        return AnyCache(std::unique_ptr<DramTierCache<FifoPolicy>>());
      } else {
        return make(config, std::move(p));
      }
    });
  }
  return with_policy_as_base(policy, [&](auto p) { return make(config, std::move(p)); });
}

}  // namespace flashpq
