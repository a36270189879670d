// engine/exact/owned_queue.h — the exact framework's queue for a policy that owns its structure
// (engine/policy.h OwningPolicy: S3-FIFO, SIEVE, ARC, 2Q, LIRS, LFU, CLOCK, Belady).
//
// The policy orders the objects — its queues, ghosts, hands or stacks — and names each victim;
// this queue keeps what every exact queue keeps (engine/exact/exact_queue_base.h): the capacity
// and its accounting, eviction before insertion until the object fits, the naive placement of
// each admitted object on the device where it gives space (RIPQ paper §4.2 "Naive Design",
// engine/exact/naive_placement.h), and the counters. So an owning policy runs on every device,
// under every timing mode and as a hierarchy's flash tier, with TinyLFU admission (which is
// shown victim()), exactly as a priority rule on the exact framework does.
//
// The §4.1 calls insert/increase/priority exist for the queue contract (engine/queue.h) but an
// owning policy never makes them: its hooks link objects into its own structure.
#pragma once

#include <cstdint>
#include <stdexcept>

#include "engine/exact/exact_queue_base.h"
#include "engine/object_table.h"
#include "engine/policy.h"
#include "engine/queue.h"

namespace flashpq {

/// The exact queue of owning policy P (see the file comment). Does not own objects or the
/// policy: the cache does (QueueContext::owning_policy is the cache's policy object).
template <class P>
class ExactOwnedQueue : public ExactQueueBase<ExactOwnedQueue<P>> {
  using Base = ExactQueueBase<ExactOwnedQueue<P>>;

 public:
  /// The three entry words (prev, next, slot) are the policy's: they order objects.
  static constexpr unsigned kOrderWords = 3;

  /// REQUIRES: ctx.owning_policy points to the cache's P, which outlives the queue; ctx's
  /// references outlive the queue. Throws std::invalid_argument without a policy, or as
  /// NaivePlacement::make_if_enabled.
  explicit ExactOwnedQueue(const QueueContext& ctx)
      : Base(ctx), policy_(static_cast<P*>(ctx.owning_policy)) {
    if (policy_ == nullptr) {
      throw std::invalid_argument("exact owned queue: built without its owning policy");
    }
    policy_->attach(ctx.table, ctx.capacity_bytes);
  }

  /// Called by the policy's on_insert: the accounting of an admitted object (its extent
  /// written with naive placement, its bytes used). REQUIRES: make_room(size) was called.
  void admit(Handle h) { this->account_insert(h); }

  /// The queue contract's §4.1 calls: an owning policy never makes them (its hooks link the
  /// object into its own structure). insert() only accounts for h.
  void insert(Handle h, double) { admit(h); }
  void increase(Handle, double) {}
  double priority(Handle) const { return 0; }

  /// The object the next eviction removes: the policy's victim (it may advance its scan).
  Handle min() const { return policy_->victim(this->table_); }
  /// Takes h out of the policy's structure (an eviction or a removal).
  void unlink(Handle h) { policy_->unlink(this->table_, h); }

  /// An evicted h's entry: kept as a ghost key when the policy keeps its ghosts in the table
  /// (engine/policy.h GhostEntryPolicy), else removed.
  void release(Handle h) {
    if constexpr (GhostEntryPolicy<P>) {
      if (policy_->retain_as_ghost(this->table_, h)) return;
    }
    this->table_.remove(h);
  }

  /// Evicts h now, outside make_room(): for a policy whose rules evict on a hit, or more than
  /// the room a miss needs (libCacheSim's LIRS). As delete-min's eviction: the policy's
  /// on_evict, unlink, the counters, the eviction listener, h dropped from the table.
  void evict_now(Handle h) { this->evict(h); }

  /// DRAM of the structures outside the entries: the policy's own (ghosts, side vectors) are
  /// counted by Cache::queue_bytes() through P::memory_bytes(); here the naive placement's.
  size_t queue_bytes() const { return this->placement_queue_bytes(); }

 private:
  P* policy_;
};

}  // namespace flashpq
