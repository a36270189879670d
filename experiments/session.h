// experiments/session.h — one cache driven request by request from outside a sweep: the Python
// package's flashpq.Cache (python/flashpq/), and tests.
//
// A session is a cell without a trace. Its sections (policy, admission, framework, cache,
// device) are an experiment's, loaded and checked by the same schema (experiments/experiment.h),
// so every key, default and error is the one `flashpq run` gives. What a cell learns from its
// trace's summary a session is told instead (SessionShape): the largest object it will see
// (frameworks size their blocks and regions by it) and the objects it is expected to hold (its
// index reserve, TinyLFU's sketch). The cache is built as a cell's (experiments/run/
// kernel_unit.h, its type's `session` kernel) on a device of the registry, functional: no
// clock. Requests go in batches, one virtual call per batch; the hit counting is HitStats'
// (experiments/run/stats.h), without a warm-up, so a session that replays a trace gives the
// hits of a cell with warmup: 0 on that trace.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "engine/request.h"
#include "experiments/run/measure.h"
#include "experiments/run/stats.h"
#include "sim/columns.h"

namespace flashpq {

class Device;

/// What a session is told instead of a trace summary.
struct SessionShape {
  /// The largest object, bytes (>= 1): a framework's blocks must hold it. Default 1 MiB.
  uint64_t max_object_bytes = 1 << 20;
  /// Objects a full cache is expected to hold (>= 1); 0: the capacity / 4 KiB (at least 1).
  uint64_t expected_objects = 0;
};

/// A cache of one type, as a session holds it (CellKernels::session builds it).
class SessionCache {
 public:
  virtual ~SessionCache() = default;
  /// Replays requests[i] and sets hits[i] to 1 if it was a hit (a get of a cached object), else
  /// 0. REQUIRES: hits has requests.size() bytes.
  virtual void access(std::span<const Request> requests, uint8_t* hits) = 0;
  /// The cache's counters and the device's, now.
  virtual RunCounters counters() const = 0;
  /// Objects cached, and the DRAM of the index, the queue and the admission policy, bytes.
  virtual uint64_t objects() const = 0;
  virtual uint64_t index_bytes() const = 0;
  virtual uint64_t queue_bytes() const = 0;
  virtual uint64_t admission_bytes() const = 0;
};

/// What the `session` kernel of a cache type needs (CellKernels, experiments/run/kernels.h).
struct SessionBuild {
  const CellConfig* cell = nullptr;
  const CellPlan* plan = nullptr;
  Device* device = nullptr;
};

/// One cache, its device and its hit statistics.
class CacheSession {
 public:
  /// Builds the cache that `experiment_yaml` describes: an experiment with one cell (no matrix)
  /// whose trace section is ignored (give none), its capacity a size (bytes with a unit, never a
  /// fraction: a session has no working set). `name` stands for the text in messages. Throws
  /// ConfigError (file, line, key) for a bad section, std::invalid_argument for a capacity that
  /// is a fraction, a framework that builds no cache (direct), a policy that reads the trace's
  /// future (belady, pfoo_l), a hierarchy (tiers), or a device timed on the wall clock.
  CacheSession(const std::string& experiment_yaml, const std::string& name,
               const SessionShape& shape);
  /// As above, the cache built by `make` instead of its type's kernel (the Python package's
  /// policies written in Python); the cell's policy.name then only has to pass the schema.
  using MakeCache = std::function<std::unique_ptr<SessionCache>(const SessionBuild&)>;
  CacheSession(const std::string& experiment_yaml, const std::string& name,
               const SessionShape& shape, const MakeCache& make);
  ~CacheSession();
  CacheSession(const CacheSession&) = delete;
  CacheSession& operator=(const CacheSession&) = delete;

  /// Replays `requests` (see SessionCache::access) and counts them.
  void access(std::span<const Request> requests, uint8_t* hits);

  /// The statistics so far, as a results row names them (docs/reference/columns.md):
  /// requests, get_requests, set_requests, delete_requests, hits, object_hit_ratio,
  /// byte_hit_ratio, compulsory_misses, bytes_requested, bytes_hit, evictions, evicted_bytes,
  /// admission_rejections, miss_bytes_inserted, host_write_bytes, host_writes, host_read_bytes,
  /// wa_implementation, objects, cache_capacity_bytes, index_bytes, queue_bytes,
  /// admission_bytes, then the device's own columns (simflash's wa_ftl, ...). Ratios are NaN
  /// when their denominator is 0.
  std::vector<Column> stats();

  /// The cell the session was built from (its keys as resolved).
  const CellConfig& cell() const;
  const CellPlan& plan() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The session over a cache that is already built: the extension's own caches (a policy
/// written in Python) reuse CacheSession's accounting through this. `cache` is any type with
/// the Cache interface (engine/cache.h). REQUIRES: `device` outlives the session.
template <class C>
class SessionCacheOf final : public SessionCache {
 public:
  SessionCacheOf(std::unique_ptr<C> cache, const Device& device)
      : cache_(std::move(cache)), device_(device) {}
  void access(std::span<const Request> requests, uint8_t* hits) override {
    C& c = *cache_;
    for (size_t i = 0; i < requests.size(); ++i) hits[i] = c.access(requests[i]) ? 1 : 0;
  }
  RunCounters counters() const override { return run_counters(*cache_, device_); }
  uint64_t objects() const override { return cache_->object_count(); }
  uint64_t index_bytes() const override { return cache_->index_bytes(); }
  uint64_t queue_bytes() const override { return cache_->queue_bytes(); }
  uint64_t admission_bytes() const override { return cache_->admission_bytes(); }
  C& cache() { return *cache_; }

 private:
  std::unique_ptr<C> cache_;
  const Device& device_;
};

}  // namespace flashpq
