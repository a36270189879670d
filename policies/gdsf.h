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

#include "policies/policy.h"

namespace flashpq {

class GdsfPolicy {
 public:
  static constexpr PriorityKind kKind = PriorityKind::kAbsolute;
  /// REQUIRES: config validated (segments in [1, 64]).
  explicit GdsfPolicy(const PolicyConfig& config) : cap_(config.segments) {}
  uint32_t grid() const { return 1; }

  template <class Q>
  void on_insert(Q& q, ObjectTable& t, Handle h) {
    t[h].policy_state = 1;
    q.insert(h, clock_ + 1.0 / t[h].size_bytes);
  }
  template <class Q>
  void on_hit(Q& q, ObjectTable& t, Handle h) {
    ObjectEntry& e = t[h];
    e.policy_state = std::min(e.policy_state + 1, cap_);  // only min(L, n) is ever used
    q.increase(h, clock_ + static_cast<double>(e.policy_state) / e.size_bytes);
  }
  template <class Q>
  void on_evict(Q& q, ObjectTable&, Handle h) {
    clock_ = q.priority(h);
  }

  /// The current clock ("Lowest" in Table 2).
  double clock() const { return clock_; }

 private:
  uint32_t cap_;
  double clock_ = 0.0;
};

}  // namespace flashpq
