// policies/gdsf.h — Greedy-Dual-Size-Frequency with frequency cap L, on the absolute interface.
//
// Source: RIPQ paper §4.3 "Greedy-Dual-Size-Frequency" and Table 2, with c(x) = 1:
//   on miss: insert(x, clock + 1/s(x));
//   on hit:  increase(x, clock + min(L, n(x))/s(x)), n(x) the accesses since insertion
//            (the inserting miss is access 1);
//   clock ("Lowest") = the priority of the last object delete-min removed (0 before any).
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
  /// Reads policy.segments (L). Throws std::invalid_argument if it is outside [1, 64].
  explicit GdsfPolicy(const PolicyConfig& config)
      : cap_(config.params.get<uint32_t>(kSegmentsKey)) {}
  uint32_t grid() const { return 1; }

  template <class Q>
  void on_insert(Q& q, ObjectTable& t, Handle h) {
    if (h >= accesses_.size()) [[unlikely]]
      grow_for_handle(accesses_, h);
    accesses_[h] = 1;
    q.insert(h, clock_ + 1.0 / t[h].size_bytes);
  }
  template <class Q>
  void on_hit(Q& q, ObjectTable& t, Handle h) {
    uint8_t& n = accesses_[h];
    n = static_cast<uint8_t>(std::min<uint32_t>(n + 1u, cap_));  // only min(L, n) is ever used
    q.increase(h, clock_ + static_cast<double>(n) / t[h].size_bytes);
  }
  template <class Q>
  void on_evict(Q& q, ObjectTable&, Handle h) {
    clock_ = q.priority(h);
  }

  /// Bytes of DRAM of the per-object access counts (1 B per handle, capacity).
  size_t memory_bytes() const { return accesses_.capacity(); }

  /// The current clock ("Lowest" in Table 2).
  double clock() const { return clock_; }

 private:
  uint32_t cap_;  // L <= 64: min(L, n) fits a byte
  double clock_ = 0.0;
  std::vector<uint8_t> accesses_;  // by handle: min(L, n(x)), 0 for a free handle
};

}  // namespace flashpq
