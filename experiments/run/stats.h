// experiments/run/stats.h — hit-ratio accounting for one cell, after the warm-up.
//
// Definitions (docs/DESIGN.md "Results"; libCacheSim's and the RIPQ paper's usage):
//   object_hit_ratio = hits / get_requests;
//   byte_hit_ratio   = bytes_hit / bytes_requested, both summing the request's size_bytes
//                      (the size in the trace, also in unit-size mode);
//   compulsory_misses = get misses on keys never requested (get or set) before, counting the
//                      warm-up's requests as "before".
// Only requests at index >= warmup_requests (0-based, in trace order) are counted.
#pragma once

#include <cstdint>

#include "engine/key_set.h"
#include "engine/request.h"
#include "sim/timing.h"

namespace flashpq {

/// How a request counts in the per-operation latency histograms (sim/timing.h): get → read,
/// set → write, delete → other.
inline OpClass op_class(const Request& r) {
  return r.op == Op::kGet ? OpClass::kRead : r.op == Op::kSet ? OpClass::kWrite : OpClass::kOther;
}

struct HitCounters {
  uint64_t requests = 0;
  uint64_t get_requests = 0;
  uint64_t set_requests = 0;
  uint64_t delete_requests = 0;
  uint64_t hits = 0;
  uint64_t compulsory_misses = 0;
  uint64_t bytes_requested = 0;
  uint64_t bytes_hit = 0;
  /// The trace time of the first and the last request counted, ns (0 and 0 without any): the
  /// measured span of a functional run, for rates over trace time.
  uint64_t first_time_ns = 0, last_time_ns = 0;
};

/// Accumulates HitCounters. A hit (always a get on a key already seen) costs two additions:
/// the request and byte totals are assembled by counters() from the hit and non-hit parts, and
/// the set of seen keys is touched only on misses and sets.
///
/// The seen-key set is far larger than the cache's index (one key per distinct key of the
/// trace), so its probe is a cache miss. A non-hit is therefore recorded one non-hit late: its
/// slot is prefetched now and probed when the next non-hit arrives (or at flush()), while the
/// cache does the eviction and insertion in between. The set sees the same keys in the same
/// order, so every counter is what an immediate probe gives.
class HitStats {
 public:
  /// Records request r, past the warm-up, whose outcome was `hit` (REQUIRES: hit implies r is a
  /// get).
  [[gnu::always_inline]] void record(const Request& r, bool hit) {
    if (hit) [[likely]] {
      hits_++;
      bytes_hit_ += r.size_bytes;
      return;
    }
    defer(r, true);
  }

  /// Records request r of the warm-up: it counts nothing, but its key is seen from now on.
  void record_warmup(const Request& r, bool hit) {
    if (!hit) defer(r, false);  // a hit's key was seen already
  }

  /// Notes the trace times of a batch of counted requests, the first and the last (replay_span
  /// calls it once per batch).
  void note_times(uint64_t first_ns, uint64_t last_ns) {
    if (!timed_) {
      other_.first_time_ns = first_ns;
      timed_ = true;
    }
    other_.last_time_ns = last_ns;
  }

  /// Completes the deferred record. Call before counters(); replay_span does at its end.
  void flush() {
    if (has_pending_) record_other(pending_, pending_counted_);
    has_pending_ = false;
  }

  /// The counters of the requests recorded with record(). REQUIRES: flush() since the last
  /// record.
  HitCounters counters() const {
    HitCounters c = other_;
    c.requests += hits_;
    c.get_requests += hits_;
    c.hits = hits_;
    c.bytes_requested += bytes_hit_;
    c.bytes_hit = bytes_hit_;
    return c;
  }

  /// Sizes the seen-key set for `keys` distinct keys (the trace's, from its summary).
  void reserve(size_t keys) { seen_.reserve(keys); }

 private:
  // Records the pending non-hit and makes r pending, its seen-set slot on its way to the cache.
  [[gnu::always_inline]] void defer(const Request& r, bool counted) {
    if (r.op != Op::kDelete) seen_.prefetch(r.key);
    if (has_pending_) record_other(pending_, pending_counted_);
    pending_ = r;
    pending_counted_ = counted;
    has_pending_ = true;
  }

  // Misses, sets and deletes: the seen-key set is probed here only.
  [[gnu::noinline]] void record_other(const Request& r, bool counted) {
    if (r.op == Op::kGet) {
      const bool first_seen = seen_.insert(r.key);
      if (counted) {
        other_.requests++;
        other_.get_requests++;
        other_.bytes_requested += r.size_bytes;
        if (first_seen) other_.compulsory_misses++;
      }
    } else {
      if (r.op == Op::kSet) seen_.insert(r.key);
      if (counted) {
        other_.requests++;
        (r.op == Op::kSet ? other_.set_requests : other_.delete_requests)++;
      }
    }
  }

  uint64_t hits_ = 0;
  uint64_t bytes_hit_ = 0;
  HitCounters other_;  // everything but hits: misses, sets, deletes (hits and bytes_hit stay 0)
  KeySet seen_;
  Request pending_;  // the deferred non-hit, if has_pending_
  bool pending_counted_ = false;
  bool has_pending_ = false;
  bool timed_ = false;  // note_times() was called
};

}  // namespace flashpq
