// engine/any_cache.h — a Cache (engine/cache.h) of any policy and queue behind one type.
//
// A hierarchy (engine/tiers.h) is a template over its DRAM and flash caches, and it is compiled
// for every flash cache type (experiments/run/kernels.h). Were it also compiled for every DRAM
// policy, each flash cache type would carry one hierarchy per DRAM policy: the policies that own
// their structure alone would multiply the hierarchy code tenfold. AnyCache is the DRAM tier of
// every policy but LRU (the default, kept direct): one hierarchy per flash cache type for all of
// them, each DRAM cache compiled once (experiments/run/dram_tier.cpp). It costs one indirect call
// per DRAM operation (a lookup per get, an access per insertion), always to the same target.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

#include "engine/request.h"

namespace flashpq {

class AnyCache {
 public:
  /// Called with the key and size of each object the cache evicts (Cache::EvictionListener).
  using EvictionListener = void (*)(void* context, uint64_t key, uint32_t size_bytes);

  /// Takes ownership of `cache`, a Cache (or any type with the same five members).
  template <class C>
  explicit AnyCache(std::unique_ptr<C> cache) : object_(cache.release()), ops_(&kOps<C>) {}
  AnyCache(AnyCache&& o) noexcept : object_(std::exchange(o.object_, nullptr)), ops_(o.ops_) {}
  AnyCache& operator=(AnyCache&&) = delete;
  AnyCache(const AnyCache&) = delete;
  ~AnyCache() {
    if (object_) ops_->destroy(object_);
  }

  /// As Cache::access: applies one request; true iff it is a get that hit.
  bool access(const Request& r) { return ops_->access(object_, r); }
  /// As Cache::lookup: a get that never inserts; true iff `r.key` is cached (a hit).
  bool lookup(const Request& r) { return ops_->lookup(object_, r); }
  /// As Cache::contains.
  bool contains(uint64_t key) const { return ops_->contains(object_, key); }
  /// As Cache::set_eviction_listener.
  void set_eviction_listener(EvictionListener listener, void* context) {
    ops_->set_eviction_listener(object_, listener, context);
  }
  /// As Cache::reserve.
  void reserve(size_t objects) { ops_->reserve(object_, objects); }

 private:
  struct Ops {
    bool (*access)(void*, const Request&);
    bool (*lookup)(void*, const Request&);
    bool (*contains)(const void*, uint64_t);
    void (*set_eviction_listener)(void*, EvictionListener, void*);
    void (*reserve)(void*, size_t);
    void (*destroy)(void*);
  };
  template <class C>
  static constexpr Ops kOps{
      [](void* c, const Request& r) { return static_cast<C*>(c)->access(r); },
      [](void* c, const Request& r) { return static_cast<C*>(c)->lookup(r); },
      [](const void* c, uint64_t key) { return static_cast<const C*>(c)->contains(key); },
      [](void* c, EvictionListener l, void* context) {
        static_cast<C*>(c)->set_eviction_listener(l, context);
      },
      [](void* c, size_t objects) { static_cast<C*>(c)->reserve(objects); },
      [](void* c) { delete static_cast<C*>(c); }};

  void* object_;
  const Ops* ops_;
};

}  // namespace flashpq
