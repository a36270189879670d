// policies/fifo.h — FIFO: insertion order, hits change nothing.
//
// On the relative interface of §4.1: insert(x, 1) at the head, never increase. Delete-min takes
// the oldest insertion. On RIPQ and SIPQ this is the plain cyclic log (docs/DESIGN.md "Data flow").
#pragma once

#include "policies/policy.h"

namespace flashpq {

class FifoPolicy {
 public:
  static const ComponentSpec& spec() {
    static const ComponentSpec s{"fifo", "FIFO: insertion order, hits change nothing", {}, {}, {},
                                 {}};
    return s;
  }
  static constexpr PriorityKind kKind = PriorityKind::kRelative;
  explicit FifoPolicy(const PolicyConfig&) {}
  uint32_t grid() const { return 1; }

  template <class Q>
  void on_insert(Q& q, ObjectTable&, Handle h) {
    q.insert(h, 1.0);
  }
  template <class Q>
  void on_hit(Q&, ObjectTable&, Handle) {}
  template <class Q>
  void on_evict(Q&, ObjectTable&, Handle) {}
};

}  // namespace flashpq
