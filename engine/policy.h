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
//
// A second kind of policy owns its structure (PriorityKind::kOwning, the OwningPolicy concept
// below): S3-FIFO, SIEVE, ARC, 2Q, LIRS, LFU, CLOCK, Belady keep their own queues, ghosts,
// hands or stacks over the ObjectTable's entries and decide their victims themselves; the exact
// framework's queue for them (engine/exact/owned_queue.h) asks the policy for each victim and
// keeps the capacity, the naive placement on the device and the counters as for any policy.
// They satisfy the Policy concept too (their three hooks ignore the queue), so the cache, the
// admission seam and the hierarchies take them unchanged.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>

#include "engine/object_table.h"

namespace flashpq {

/// Which interface of §4.1 a policy uses, or none: kOwning, a policy that orders its objects
/// itself (OwningPolicy below).
enum class PriorityKind { kRelative, kAbsolute, kOwning };

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

/// A policy that owns its structure (see the file comment). Besides the Policy hooks (on_insert,
/// on_hit, on_evict, which it implements on its own structure and whose queue argument it
/// ignores), it provides, for the exact framework's ExactOwnedQueue (engine/exact/owned_queue.h):
///   void attach(ObjectTable&, uint64_t capacity);  once, before any request: the table whose
///                                   entries it links (their prev, next and slot words are the
///                                   policy's) and the capacity C (bytes; objects in unit-size
///                                   mode) its queue shares are computed from;
///   Handle victim(ObjectTable&);    the object the next eviction removes, or kNoHandle when
///                                   nothing is cached. It may advance the policy's own scan
///                                   to find it (SIEVE's hand, S3-FIFO's moves from the small
///                                   queue, CLOCK's second chances): what the next eviction
///                                   would do anyway, so a second call returns the same object;
///   void unlink(ObjectTable&, Handle);  takes h out of the structure (an eviction, after
///                                   on_evict, or a delete or replacement);
///   size_t memory_bytes() const;    DRAM of its own structures outside the entries (ghosts,
///                                   side vectors, heaps), from allocated capacities.
/// Optional hooks, found by `requires` and costing nothing when absent:
///   void on_miss(ObjectTable&, uint64_t key, uint32_t size);  a get that missed or a set, before
///                                   admission and eviction (ARC's and 2Q's ghost hits adapt
///                                   there, ARC's replace depends on it); returning bool instead,
///                                   false declines to cache the object (libCacheSim's
///                                   can_insert: S3-FIFO and 2Q never cache an object larger
///                                   than their small queue), the request a miss;
///   void on_request(const Request&);  every request, first (Belady's next-access stream).
/// Ghost entries (GhostEntryPolicy below): a policy whose ghost is a FIFO of the keys it evicted
/// (S3-FIFO's G) may keep those keys as entries of the ObjectTable itself, so that the cache's
/// one index lookup per request also finds a ghost, and an eviction into the ghost moves no key
/// between tables. Such an entry is no object: the cache treats it as absent (a miss, not
/// counted among the objects) except for the hooks below.
template <class P>
concept OwningPolicy = Policy<P> &&
                       P::kKind == PriorityKind::kOwning&& requires(P p, const P cp, ObjectTable& t,
                                                                    Handle h, uint64_t c) {
  p.attach(t, c);
  { p.victim(t) } -> std::convertible_to<Handle>;
  p.unlink(t, h);
  { cp.memory_bytes() } -> std::convertible_to<size_t>;
};

/// An owning policy whose ghost keys are ObjectTable entries (see above). Its hooks:
///   bool is_ghost(const ObjectTable&, Handle) const;  whether entry h is a ghost key;
///   void ghost_hit(ObjectTable&, Handle);  a get or a set found ghost h (and the object fits
///                                   the cache): h leaves the ghost, and the on_miss that follows
///                                   for its key sees the ghost hit; the cache then removes h
///                                   from the table. A delete, or an object the cache would not
///                                   admit, leaves the ghost as it is;
///   bool retain_as_ghost(ObjectTable&, Handle);  an evicted object h, already unlinked: true if
///                                   the policy keeps its entry as a ghost key (the queue then
///                                   does not remove it from the table; the policy removes the
///                                   ghosts it drops);
///   size_t ghost_entries() const;   the ghost entries in the table now;
///   size_t ghost_reserve(size_t objects) const;  the ghost entries to reserve room for beside
///                                   `objects` cached objects.
template <class P>
concept GhostEntryPolicy = OwningPolicy<P> &&
    requires(P p, const P cp, ObjectTable& t, const ObjectTable& ct, Handle h, size_t n) {
  { cp.is_ghost(ct, h) } -> std::convertible_to<bool>;
  p.ghost_hit(t, h);
  { p.retain_as_ghost(t, h) } -> std::convertible_to<bool>;
  { cp.ghost_entries() } -> std::convertible_to<size_t>;
  { cp.ghost_reserve(n) } -> std::convertible_to<size_t>;
};

}  // namespace flashpq
