// engine/policy.h — the policy contract: what a policy is to the cache and the queues.
//
// A policy never touches the device. It turns hits and misses into the priority-queue
// operations of the RIPQ paper §4.1 — insert(x, p), increase(x, p) and the implicit
// delete-min — on whatever queue the framework provides, so that the same policy runs on the
// exact framework, on RIPQ and on SIPQ. Table 2 of the paper is the contract. The policies
// themselves (FIFO, LRU, SLRU-L, GDSF-L) live in policies/, above this layer.
//
// A policy type P provides (checked by the Policy concept below):
//   static constexpr PriorityKind kKind;      relative (SLRU family) or absolute (GDSF family)
//   uint32_t grid() const;                    relative policies: the L of their k/L priorities
//   template <class Q> void on_insert(Q&, ObjectTable&, Handle);   a miss is inserted
//   template <class Q> void on_hit(Q&, ObjectTable&, Handle);      a hit
//   template <class Q> void on_evict(Q&, ObjectTable&, Handle);    h is delete-min's victim,
//                                                                  still queued
// Policies are templates, not virtual classes: the cache is instantiated once per
// (policy, framework) pair so that no virtual call sits on the per-request path.
#pragma once

#include <concepts>
#include <cstdint>

#include "engine/object_table.h"

namespace flashpq {

/// Which interface of §4.1 a policy uses.
enum class PriorityKind { kRelative, kAbsolute };

/// A relative queue whose priorities are exactly the grid k/L of the policy (the exact
/// framework's, engine/exact/relative_queue.h): it also takes and reports priorities as the
/// integer k, so a policy can skip the floating-point round trip. Same semantics as
/// insert/increase/priority with p = k/L.
template <class Q>
concept GridQueue = requires(Q& q, const Q& cq, Handle h, uint32_t k) {
  { cq.level(h) } -> std::convertible_to<uint32_t>;
  q.insert_level(h, k);
  q.increase_level(h, k);
};

/// A queue that can tell, before the policy computes a target priority, that an increase of h
/// would leave h where it is whatever the target (RIPQ: h is in the head section).
/// q.skip_increase(h) then has the effect of that increase (counters included) and returns
/// true; otherwise it does nothing and returns false. Relative policies only.
template <class Q>
concept SkipIncreaseQueue = requires(Q& q, Handle h) {
  { q.skip_increase(h) } -> std::convertible_to<bool>;
};

/// The queue interface every framework offers a policy (engine/queue.h: insert, increase,
/// priority), and nothing more: the Policy concept checks a policy's hooks against it, so a
/// policy that needs a framework's extras (GridQueue, SkipIncreaseQueue) must test for them
/// with `if constexpr` and keep a path for any queue. Declarations only: never built.
struct PolicyQueueArchetype {
  void insert(Handle h, double p);
  void increase(Handle h, double p);
  double priority(Handle h) const;
};

/// A policy (see the file comment): its kind, its grid, and the three hooks, callable on any
/// queue of the §4.1 interface.
template <class P>
concept Policy = requires(P p, const P cp, PolicyQueueArchetype& q, ObjectTable& t, Handle h) {
  { P::kKind } -> std::convertible_to<PriorityKind>;
  { cp.grid() } -> std::convertible_to<uint32_t>;
  p.on_insert(q, t, h);
  p.on_hit(q, t, h);
  p.on_evict(q, t, h);
};

}  // namespace flashpq
