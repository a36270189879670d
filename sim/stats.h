// sim/stats.h — hit-ratio accounting for one cell, after the warm-up.
//
// Definitions (DESIGN.md "Results"; libCacheSim's and the RIPQ paper's usage):
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

namespace flashpq {

struct HitCounters {
  uint64_t requests = 0;
  uint64_t get_requests = 0;
  uint64_t set_requests = 0;
  uint64_t delete_requests = 0;
  uint64_t hits = 0;
  uint64_t compulsory_misses = 0;
  uint64_t bytes_requested = 0;
  uint64_t bytes_hit = 0;
};

/// Accumulates HitCounters. The set of seen keys is touched only on misses and sets, so a hit
/// costs no extra hash probe.
class HitStats {
 public:
  /// Records request r whose outcome was `hit`; counted only when `counted` (past warm-up).
  void record(const Request& r, bool hit, bool counted) {
    if (hit) [[likely]] {  // a hit is a get on a key already seen: no set probe
      if (counted) {
        c_.requests++;
        c_.get_requests++;
        c_.hits++;
        c_.bytes_requested += r.size_bytes;
        c_.bytes_hit += r.size_bytes;
      }
      return;
    }
    record_other(r, counted);
  }

  const HitCounters& counters() const { return c_; }

  /// Sizes the seen-key set for `keys` distinct keys (the trace's, from its summary).
  void reserve(size_t keys) { seen_.reserve(keys); }

 private:
  // Misses, sets and deletes: the seen-key set is probed here only.
  [[gnu::noinline]] void record_other(const Request& r, bool counted) {
    if (r.op == Op::kGet) {
      const bool first_seen = seen_.insert(r.key);
      if (counted) {
        c_.requests++;
        c_.get_requests++;
        c_.bytes_requested += r.size_bytes;
        if (first_seen) c_.compulsory_misses++;
      }
    } else {
      if (r.op == Op::kSet) seen_.insert(r.key);
      if (counted) {
        c_.requests++;
        (r.op == Op::kSet ? c_.set_requests : c_.delete_requests)++;
      }
    }
  }

  HitCounters c_;
  KeySet seen_;
};

}  // namespace flashpq
