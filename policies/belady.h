// policies/belady.h — Belady's MIN: evict the object whose next access is farthest in the
// future. The offline upper bound on the hit ratio for unit-size objects.
//
// Source: L. A. Belady, "A study of replacement algorithms for a virtual-storage computer", IBM
// Systems Journal 5(2), 1966 (MIN); Mattson, Gecsei, Slutz, Traiger, "Evaluation techniques for
// storage hierarchies", IBM Systems Journal 9(2), 1970 (its optimality for unit sizes). With
// variable sizes MIN is a heuristic, not an optimum (Berger, Beckmann, Harchol-Balter, SIGMETRICS
// '18, §2): policies/pfoo_l.h gives the bound there.
//
// The future is the trace's next-access file (engine/next_access.h), computed by one pass over
// the trace when the cell is run (traces/next_access.h) and read in order by on_request(): the
// current request's next access j (the index of the next request to the same key, or "never").
//   * insert: the object's priority is j;
//   * hit:    its priority becomes the request's j (always later than before);
//   * evict:  the object of the largest priority (never-again objects first).
// Every admitted object is inserted, never-again ones too, and eviction repeats until the new
// object fits (engine/exact/exact_queue_base.h), as libCacheSim's Belady (libCacheSim/cache/
// eviction/Belady.c, through cache_get_base) does. Its priority queue is the binary heap of
// libCacheSim/dataStructure/pqueue.c, a max-heap rooted at index 1; this is the same heap,
// operation for operation (insert and bubble-up, pop and percolate-down, change of priority,
// removal), so that objects of equal priority — the never-again ones — leave in the same order
// and sized traces give libCacheSim's miss ratios exactly.
//
// Entry words: prev and next hold the priority (low and high halves), slot the heap position.
// A Belady cell sees every request of its trace in order (Cache::access), so it runs alone:
// never as a hierarchy's tier, whose lower tier is only looked up.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/next_access.h"
#include "engine/object_table.h"
#include "engine/request.h"
#include "policies/policy.h"

namespace flashpq {

class BeladyPolicy {
 public:
  static const ComponentSpec& spec() {
    static const ComponentSpec s{
        "belady",
        "Belady's MIN (offline): evicts the farthest next access; the optimum for unit sizes",
        {},
        {exact_framework_only("belady"),
         Requirement{{},
                     "tiers.mode",
                     {"none"},
                     "policy belady reads the trace's future request by request: it runs alone, "
                     "not in a hierarchy"}},
        {},
        {}};
    return s;
  }
  static constexpr PriorityKind kKind = PriorityKind::kOwning;
  /// The runner fills PolicyConfig::next_access_file for this policy.
  static constexpr bool kReadsNextAccess = true;

  /// Keeps config.next_access_file, opened by attach().
  explicit BeladyPolicy(const PolicyConfig& config) : path_(config.next_access_file) {}
  BeladyPolicy(BeladyPolicy&&) = default;
  uint32_t grid() const { return 1; }

  /// Opens the next-access file. Throws std::invalid_argument without one (the policy runs in
  /// a cell, which computes it), std::runtime_error as NextAccessFile.
  void attach(ObjectTable&, uint64_t) {
    if (path_.empty()) {
      throw std::invalid_argument(
          "policy belady needs the trace's next accesses: run it in a cell (flashpq run), which "
          "computes them once per trace");
    }
    future_ = NextAccessFile(path_);
    heap_.assign(1, kNoHandle);  // index 0 unused, as pqueue.c
  }

  /// The request's next access, read in trace order. Throws std::runtime_error past the file's
  /// requests (the trace is not the one the file was computed from).
  void on_request(const Request&) {
    if (index_ >= future_.requests()) [[unlikely]]
      past_end();
    current_ = future_.next(index_++);
    // Every 4 M requests, the pages of the file behind are given back (its memory stays a
    // window whatever the trace's length).
    if ((index_ & (kNextAccessWindow - 1)) == 0) [[unlikely]]
      future_.release_before(index_);
  }

  template <class Q>
  void on_insert(Q& q, ObjectTable& t, Handle h) {
    q.admit(h);
    set_priority(t, h, current_);
    t[h].slot = static_cast<uint32_t>(heap_.size());
    heap_.push_back(h);
    bubble_up(t, heap_.size() - 1);
  }
  template <class Q>
  void on_hit(Q&, ObjectTable& t, Handle h) {
    const uint64_t old = priority(t, h);
    set_priority(t, h, current_);
    if (old < current_) {
      bubble_up(t, t[h].slot);
    } else {
      percolate_down(t, t[h].slot);
    }
  }
  template <class Q>
  void on_evict(Q&, ObjectTable&, Handle) {}

  /// The heap's root: the farthest next access.
  Handle victim(ObjectTable&) const { return heap_.size() > 1 ? heap_[1] : kNoHandle; }

  /// pqueue_remove: the last element takes h's place and moves up or down.
  void unlink(ObjectTable& t, Handle h) {
    const size_t pos = t[h].slot;
    const Handle last = heap_.back();
    heap_.pop_back();
    if (pos == heap_.size()) return;  // h was the last
    heap_[pos] = last;
    t[last].slot = static_cast<uint32_t>(pos);
    if (priority(t, h) < priority(t, last)) {
      bubble_up(t, pos);
    } else {
      percolate_down(t, pos);
    }
  }

  /// The heap's array (the priorities are in the entries).
  size_t memory_bytes() const { return heap_.capacity() * sizeof(Handle); }

  /// The next access of cached object h (kNeverAgain: none). For tests.
  uint64_t next_access(const ObjectTable& t, Handle h) const { return priority(t, h); }

 private:
  static uint64_t priority(const ObjectTable& t, Handle h) {
    return uint64_t{t[h].prev} | uint64_t{t[h].next} << 32;
  }
  static void set_priority(ObjectTable& t, Handle h, uint64_t p) {
    t[h].prev = static_cast<uint32_t>(p);
    t[h].next = static_cast<uint32_t>(p >> 32);
  }
  void place(ObjectTable& t, size_t i, Handle h) {
    heap_[i] = h;
    t[h].slot = static_cast<uint32_t>(i);
  }
  // pqueue.c bubble_up: while the parent's priority is below the moving one, the parent moves
  // down.
  void bubble_up(ObjectTable& t, size_t i) {
    const Handle moving = heap_[i];
    const uint64_t p = priority(t, moving);
    for (size_t parent = i >> 1; i > 1 && priority(t, heap_[parent]) < p;
         i = parent, parent = i >> 1) {
      place(t, i, heap_[parent]);
    }
    place(t, i, moving);
  }
  // pqueue.c maxchild: the left child, or the right one when the left's priority is below it.
  size_t max_child(const ObjectTable& t, size_t i) const {
    size_t c = i << 1;
    if (c >= heap_.size()) return 0;
    if (c + 1 < heap_.size() && priority(t, heap_[c]) < priority(t, heap_[c + 1])) ++c;
    return c;
  }
  // pqueue.c percolate_down: while the moving priority is below the larger child's, that child
  // moves up.
  void percolate_down(ObjectTable& t, size_t i) {
    const Handle moving = heap_[i];
    const uint64_t p = priority(t, moving);
    for (size_t c; (c = max_child(t, i)) != 0 && p < priority(t, heap_[c]); i = c) {
      place(t, i, heap_[c]);
    }
    place(t, i, moving);
  }
  [[noreturn]] [[gnu::cold]] void past_end() const {
    throw std::runtime_error(future_.path() + ": holds the next accesses of " +
                             std::to_string(future_.requests()) +
                             " requests, but the trace yields more: it is not this trace's file");
  }

  std::string path_;
  NextAccessFile future_;
  uint64_t index_ = 0;
  uint64_t current_ = kNeverAgain;
  std::vector<Handle> heap_;  // 1-based binary max-heap of handles, as pqueue.c
};

}  // namespace flashpq
