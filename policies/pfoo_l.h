// policies/pfoo_l.h — PFOO-L: a lower bound on the miss ratio of any cache of capacity C on a
// trace, for variable object sizes, in O(N log N) time.
//
// Source: Berger, Beckmann, Harchol-Balter, "Practical Bounds on Optimal Caching with Variable
// Object Sizes", SIGMETRICS'18, §5 (PFOO-L): every request i whose key is requested again at j
// opens an interval [i, j) that costs size_i × (j − i) of the cache's resource C × N (capacity
// times the trace's length, N requests); relaxing the capacity to hold on average over time
// makes the optimum a fractional knapsack, solved greedily: intervals in order of increasing
// cost are kept while the resource used so far is at most C × N, and the request ending each
// kept interval is a hit. As the authors' implementation (github dasebe/optimalwebcaching,
// PFOO-L/lib/solve_mcf.cpp, printRes) the interval that crosses the budget is kept, and one
// ranking serves both the object and the byte hit ratio (the byte figure is the bytes of the
// same hits). Here: the cost is exact (128-bit sums, where the reference adds cost / N
// truncated), equal costs are taken in the order of their first request, an interval counts only
// when it ends with a get (a set or delete ends it without a hit) and none starts at a delete.
//
// It is not a cache: PfooLCache answers each request from the precomputed choice (a bit per
// request) and stores nothing. It reads the trace's next-access file (engine/next_access.h) when
// built, so a cell runs it alone (no hierarchy), functional, on the null device. Its row's
// hit ratios are the bound (miss ratio at least 1 − them for any policy); used_bytes is the
// resource the kept intervals use, divided by N (the mean occupancy, at most C plus one interval).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "engine/admission.h"
#include "engine/cache.h"
#include "engine/next_access.h"
#include "engine/request.h"
#include "policies/policy.h"

namespace flashpq {

/// PFOO-L's answers for one trace and capacity (see the file comment). Same public API as Cache
/// where a results row reads it. Not thread-safe.
class PfooLCache {
 public:
  /// Reads `future` (N requests) and selects the intervals for capacity config.capacity_bytes
  /// (objects in unit-size mode). Memory: 16 B per interval while selecting, then N bits.
  PfooLCache(const CacheConfig& config, const NextAccessFile& future) : config_(config) {
    const uint64_t n = future.requests();
    hit_.assign((n + 63) / 64, 0);
    struct Interval {
      uint64_t cost;
      uint64_t start;
    };
    std::vector<Interval> intervals;
    for (uint64_t i = 0; i < n; ++i) {
      const uint64_t j = future.next(i);
      if (j == kNeverAgain || future.op(i) == static_cast<uint8_t>(Op::kDelete) ||
          future.op(j) != static_cast<uint8_t>(Op::kGet)) {
        continue;
      }
      const uint64_t size = config.unit_size ? 1 : future.size(i);
      intervals.push_back({size * (j - i), i});
    }
    std::sort(intervals.begin(), intervals.end(), [](const Interval& a, const Interval& b) {
      return a.cost != b.cost ? a.cost < b.cost : a.start < b.start;
    });
    const unsigned __int128 budget =
        static_cast<unsigned __int128>(config.capacity_bytes) * static_cast<unsigned __int128>(n);
    unsigned __int128 used = 0;
    for (const Interval& iv : intervals) {
      if (used > budget) break;
      const uint64_t j = future.next(iv.start);
      hit_[j / 64] |= uint64_t{1} << (j % 64);
      used += iv.cost;
      ++kept_;
    }
    mean_bytes_ = n == 0 ? 0 : static_cast<uint64_t>(used / n);
  }

  /// The bound's answer for the next request of the trace: a hit iff it is a get ending a kept
  /// interval. Throws std::runtime_error past the trace's requests.
  bool access(const Request& r) {
    if (index_ >= uint64_t{hit_.size()} * 64) [[unlikely]]
      throw std::runtime_error("pfoo_l: the trace yields more requests than its next-access file");
    const uint64_t i = index_++;
    return r.op == Op::kGet && ((hit_[i / 64] >> (i % 64)) & 1) != 0;
  }

  /// Intervals kept (hits of the bound over the whole trace).
  uint64_t kept_intervals() const { return kept_; }
  uint64_t used_bytes() const { return mean_bytes_; }
  uint64_t capacity_bytes() const { return config_.capacity_bytes; }
  bool places_objects() const { return false; }
  size_t object_count() const { return 0; }
  uint64_t evictions() const { return 0; }
  uint64_t evicted_bytes() const { return 0; }
  uint64_t superseded_bytes() const { return 0; }
  uint64_t miss_bytes_inserted() const { return 0; }
  uint64_t admission_rejections() const { return 0; }
  /// The answers' bits.
  size_t index_bytes() const { return hit_.capacity() * sizeof(uint64_t); }
  size_t queue_bytes() const { return 0; }
  size_t admission_bytes() const { return 0; }

 private:
  CacheConfig config_;
  std::vector<uint64_t> hit_;  // bit j: request j is a hit
  uint64_t index_ = 0;
  uint64_t kept_ = 0;
  uint64_t mean_bytes_ = 0;
};

/// PFOO-L as registered among the cache policies (policies/registry.h).
struct PfooL {
  static const ComponentSpec& spec() {
    static const ComponentSpec s{
        "pfoo_l",
        "PFOO-L (SIGMETRICS'18, offline): a lower bound on the miss ratio for variable sizes",
        {},
        {Requirement{{}, "framework.name", {"exact"}, "policy pfoo_l is an offline bound"},
         Requirement{{}, "device.name", {"null"}, "policy pfoo_l is an offline bound: no device"},
         Requirement{{}, "timing.mode", {"none"}, "policy pfoo_l is an offline bound: no time"},
         Requirement{
             {}, "tiers.mode", {"none"}, "policy pfoo_l is an offline bound: it runs alone"},
         Requirement{{}, "admission.name", {"none"}, "policy pfoo_l is an offline bound"}},
        {},
        {}};
    return s;
  }
  /// The runner fills PolicyConfig::next_access_file for this policy.
  static constexpr bool kReadsNextAccess = true;
  /// Its intervals while it selects them (16 B each, at most one per request), and a bit each.
  static constexpr uint64_t kBytesPerTraceRequest = 17;

  /// Builds the bound for `cache` from policy.next_access_file and calls fn(bound). Throws
  /// std::invalid_argument without a next-access file, std::runtime_error as NextAccessFile.
  template <class Fn>
  static decltype(auto) build(const PolicyConfig& policy, const CacheConfig& cache,
                              const AdmissionConfig&, uint64_t, Fn&& fn) {
    if (policy.next_access_file.empty()) {
      throw std::invalid_argument(
          "policy pfoo_l needs the trace's next accesses: run it in a cell (flashpq run), which "
          "computes them once per trace");
    }
    const NextAccessFile future(policy.next_access_file);
    PfooLCache bound(cache, future);
    return std::forward<Fn>(fn)(bound);
  }
};

}  // namespace flashpq
