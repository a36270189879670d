// policies/slru.h — Segmented-L LRU on the relative priority interface.
//
// Source: RIPQ paper §4.3 "Segmented-LRU" and Table 2:
//   on miss: insert(x, 1/L)                       — the head of the L-th (lowest) segment;
//   on hit:  increase(x, min(1, (1 + ⌈p·L⌉)/L))   — the head of the next higher segment,
// where p is x's current relative priority. A segment's overflow is demoted by the queue
// (relative priorities decay implicitly, §4.1). With L = 1 this is LRU.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "policies/policy.h"

namespace flashpq {

class SlruPolicy {
 public:
  static const ComponentSpec& spec() {
    static const ComponentSpec s{
        "slru", "Segmented-LRU with L segments (RIPQ paper 4.3, Table 2)", {kSegmentsKey}, {}, {},
        {}};
    return s;
  }
  static constexpr PriorityKind kKind = PriorityKind::kRelative;
  /// Reads policy.segments (L). Throws std::invalid_argument if it is outside [1, 64].
  explicit SlruPolicy(const PolicyConfig& config)
      : SlruPolicy(checked(config.params.get<uint32_t>(kSegmentsKey))) {}
  /// SLRU-L. REQUIRES: segments in [1, 64].
  explicit SlruPolicy(uint32_t segments) : segments_(segments), inv_segments_(1.0 / segments) {}
  uint32_t grid() const { return segments_; }
  static uint32_t checked(uint32_t segments) {
    if (segments < 1) {
      throw std::invalid_argument(
          "key 'policy.segments': expected an integer in [1, 64] for slru, found '0'");
    }
    return segments;
  }

  template <class Q>
  void on_insert(Q& q, ObjectTable&, Handle h) {
    if constexpr (GridQueue<Q>) {
      q.insert_level(h, 1);
    } else {
      q.insert(h, inv_segments_);
    }
  }
  template <class Q>
  void on_hit(Q& q, ObjectTable&, Handle h) {
    if constexpr (SkipIncreaseQueue<Q>) {
      if (q.skip_increase(h)) return;  // no target could move h: p is not needed
    }
    if (segments_ == 1) {  // LRU: min(1, (1 + ⌈p⌉)/1) = 1 for every p in (0, 1]
      q.increase(h, 1.0);
      return;
    }
    if constexpr (GridQueue<Q>) {
      // p = k/L exactly, so ⌈p·L⌉ = k and the target is level min(L, k + 1).
      q.increase_level(h, std::min(q.level(h) + 1, segments_));
      return;
    }
    // ⌈p·L⌉ with a 1e-9 guard, since p = k/L is not exact in binary floating point. Written
    // with a truncating cast (x >= 0) because std::ceil is a libm call on baseline x86-64.
    const double x = q.priority(h) * segments_ - 1e-9;
    const double t = static_cast<double>(static_cast<int64_t>(x));
    const double steps = t < x ? t + 1 : t;
    q.increase(h, std::min(1.0, (1.0 + steps) * inv_segments_));
  }
  template <class Q>
  void on_evict(Q&, ObjectTable&, Handle) {}

 private:
  uint32_t segments_;
  double inv_segments_;  // 1/L, so that no hit divides
};

/// LRU is SLRU-1 (§4.3); `segments` is ignored.
class LruPolicy : public SlruPolicy {
 public:
  static const ComponentSpec& spec() {
    static const ComponentSpec s{"lru", "LRU, which is SLRU-1", {}, {}, {}, {}};
    return s;
  }
  explicit LruPolicy(const PolicyConfig&) : SlruPolicy(1u) {}
  /// LRU makes SLRU-1's decisions (its on_hit only skips the test of L), so code instantiated
  /// once per policy for many cache types may build it as SLRU-1 instead
  /// (policies/registry.h, with_policy_as_base).
  using DecidesAs = SlruPolicy;

  /// SLRU-1's hit, without testing L: min(1, (1 + ⌈p⌉)/1) = 1 for every p in (0, 1].
  template <class Q>
  void on_hit(Q& q, ObjectTable&, Handle h) {
    if constexpr (SkipIncreaseQueue<Q>) {
      if (q.skip_increase(h)) return;
    }
    q.increase(h, 1.0);
  }
};

}  // namespace flashpq
