// policies/gdsf.h — Greedy-Dual-Size-Frequency with frequency cap L, on the absolute interface.
//
// Source: RIPQ paper §4.3 "Greedy-Dual-Size-Frequency" and Table 2, with c(x) = 1:
//   on miss: insert(x, clock + 1/s(x));
//   on hit:  increase(x, clock + min(L, n(x))/s(x)), n(x) the accesses since insertion
//            (the inserting miss is access 1);
//   clock ("Lowest") = the priority of the last object delete-min removed (0 before any).
// policy.segments 0 means no cap: classic GDSF (Cherkasova, "Improving WWW proxies performance
// with Greedy-Dual-Size-Frequency caching policy", HP Labs TR HPL-98-69, 1998), as libCacheSim's
// cache/eviction/cpp/GDSF.cpp computes it (freq since insertion, priority last evicted +
// freq/size, there scaled by 1e6, which orders objects the same way).
// s(x) is the object's size in bytes as cached (1 in unit-size mode). Ties between equal
// priorities are broken by the queue: the least recently set priority is evicted first.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "policies/policy.h"

namespace flashpq {

class GdsfPolicy {
 public:
  static const ComponentSpec& spec() {
    static const ComponentSpec s{"gdsf",
                                 "Greedy-Dual-Size-Frequency with frequency cap L (RIPQ paper "
                                 "4.3, Table 2)",
                                 {kSegmentsKey},
                                 {},
                                 {},
                                 {}};
    return s;
  }
  static constexpr PriorityKind kKind = PriorityKind::kAbsolute;
  /// Reads policy.segments (L; 0: no cap). Throws std::invalid_argument if it is outside
  /// [0, 64].
  explicit GdsfPolicy(const PolicyConfig& config)
      : cap_(config.params.get<uint32_t>(kSegmentsKey)), uncapped_(cap_ == 0) {}
  uint32_t grid() const { return 1; }

  template <class Q>
  void on_insert(Q& q, ObjectTable& t, Handle h) {
    if (uncapped_) [[unlikely]] {
      if (h >= counts_.size()) grow_for_handle(counts_, h);
      counts_[h] = 1;
    } else {
      if (h >= accesses_.size()) [[unlikely]]
        grow_for_handle(accesses_, h);
      accesses_[h] = 1;
    }
    q.insert(h, clock_ + 1.0 / t[h].size_bytes);
  }
  template <class Q>
  void on_hit(Q& q, ObjectTable& t, Handle h) {
    double n;
    if (uncapped_) [[unlikely]] {
      uint32_t& c = counts_[h];
      if (c != UINT32_MAX) ++c;
      n = c;
    } else {
      uint8_t& a = accesses_[h];
      a = static_cast<uint8_t>(std::min<uint32_t>(a + 1u, cap_));  // only min(L, n) is ever used
      n = a;
    }
    q.increase(h, clock_ + n / t[h].size_bytes);
  }
  template <class Q>
  void on_evict(Q& q, ObjectTable&, Handle h) {
    clock_ = q.priority(h);
  }

  /// Bytes of DRAM of the per-object access counts (1 B per handle, capacity; 4 B without a
  /// cap).
  size_t memory_bytes() const { return accesses_.capacity() + 4 * counts_.capacity(); }

  /// The current clock ("Lowest" in Table 2).
  double clock() const { return clock_; }

 private:
  uint32_t cap_;   // L <= 64: min(L, n) fits a byte
  bool uncapped_;  // L = 0: n(x) itself, in counts_
  double clock_ = 0.0;
  std::vector<uint8_t> accesses_;  // by handle: min(L, n(x)), 0 for a free handle
  std::vector<uint32_t> counts_;   // by handle, without a cap: n(x), saturating at 2^32 − 1
};

}  // namespace flashpq
