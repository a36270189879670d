// tests/policies/owning_test_util.h — what the tests of the policies that own their structure
// (engine/policy.h OwningPolicy) share: the cache built on the exact framework, random request
// sequences, miss ratios counted as libCacheSim counts them, and the working set as libCacheSim
// sizes caches by. Test code only.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "devices/null_device.h"
#include "engine/cache.h"
#include "engine/exact/exact_framework.h"
#include "engine/intrusive_list.h"
#include "engine/request.h"
#include "policies/policy.h"
#include "tests/requests.h"  // get, set, del
#include "traces/next_access.h"
#include "traces/trace_reader.h"

namespace flashpq::testing {

/// Policy P on the exact framework (its ExactOwnedQueue) over a null device, admitting
/// everything: what a cell with `framework.name: exact`, `device.name: null` builds.
template <class P>
struct OwningCache {
  NullDevice device;
  Cache<P, ExactFramework::Queue<P>> cache;
  OwningCache(uint64_t capacity, bool unit_size, const PolicyConfig& policy = PolicyConfig{})
      : cache(make_config(capacity, unit_size), FrameworkConfig{}, P(policy), device) {}
  static CacheConfig make_config(uint64_t capacity, bool unit_size) {
    CacheConfig c;
    c.capacity_bytes = capacity;
    c.unit_size = unit_size;
    return c;
  }
};

/// The keys of an intrusive list of `t` from its head (the newest, or MRU, end) to its tail.
inline std::vector<uint64_t> list_keys(const ObjectTable& t, const IntrusiveList& l) {
  std::vector<uint64_t> out;
  for (Handle h = l.head; h != kNoHandle; h = t[h].next) out.push_back(t[h].key);
  return out;
}

/// Requests held in memory as a trace (the next-access pass reads a TraceReader).
class MemoryTrace final : public TraceReader {
 public:
  explicit MemoryTrace(const std::vector<Request>& requests) : r_(requests) {}
  size_t read(std::span<Request> out) override {
    const size_t n = std::min(out.size(), r_.size() - at_);
    std::copy_n(r_.begin() + static_cast<std::ptrdiff_t>(at_), n, out.begin());
    at_ += n;
    return n;
  }
  const std::string& path() const override { return path_; }

 private:
  const std::vector<Request>& r_;
  size_t at_ = 0;
  std::string path_ = "memory";
};

/// Writes the next-access file of `trace` to `path` (traces/next_access.h) and returns `path`.
inline std::string write_future(const std::vector<Request>& trace, const std::string& path) {
  MemoryTrace reader(trace);
  write_next_access_file(reader, trace.size(), 42, path);
  return path;
}

/// splitmix64: the test sequences' generator (a fixed function of the seed).
inline uint64_t test_mix(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// `n` gets over `keys` keys drawn with a skew (the minimum of two uniform draws, so small keys
/// are requested more often), each key's size fixed by the key: 1 + (hash % max_size) bytes, or
/// 1 with max_size 1.
inline std::vector<Request> random_gets(uint64_t seed, size_t n, uint64_t keys, uint32_t max_size) {
  std::vector<Request> out;
  out.reserve(n);
  uint64_t s = seed;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t a = test_mix(s) % keys, b = test_mix(s) % keys;
    const uint64_t key = std::min(a, b) + 1;
    uint64_t h = key * 0x9e3779b97f4a7c15ULL;
    const auto size = static_cast<uint32_t>(1 + test_mix(h) % max_size);
    out.push_back(Request{i, key, size, Op::kGet});
  }
  return out;
}

/// Object and byte miss ratios over a replay, as libCacheSim's cachesim counts them: every
/// request counts, its bytes the request's size.
struct MissRatios {
  double object = 0, byte = 0;
};

/// Replays `trace` through `cache` (anything with access(const Request&) -> hit) and returns
/// the miss ratios.
template <class C>
MissRatios replay_miss_ratios(C& cache, const std::vector<Request>& trace) {
  double misses = 0, miss_bytes = 0, bytes = 0;
  for (const Request& r : trace) {
    const bool hit = cache.access(r);
    misses += hit ? 0 : 1;
    miss_bytes += hit ? 0 : r.size_bytes;
    bytes += r.size_bytes;
  }
  return {misses / static_cast<double>(trace.size()), miss_bytes / bytes};
}

/// The working set as libCacheSim's cal_working_set_size() computes it: the sum of each key's
/// size at its first request (the number of keys in unit-size mode).
inline uint64_t libcachesim_working_set(const std::vector<Request>& trace, bool unit_size) {
  std::unordered_set<uint64_t> seen;
  uint64_t wss = 0;
  for (const Request& r : trace) {
    if (seen.insert(r.key).second) wss += unit_size ? 1 : r.size_bytes;
  }
  return wss;
}

}  // namespace flashpq::testing
