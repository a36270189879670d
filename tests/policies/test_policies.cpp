// tests/policies/test_policies.cpp — correctness of the cache policies on the exact framework.
//
//  * Agreement: the engine (Cache<P, exact queue>) and the independent reference models of
//    tests/reference_models.h agree request by request on real traces and on random sequences.
//  * Hand-computed sequences: every expected hit/miss and final content below was worked out by
//    hand from the spec (engine/cache.h, RIPQ paper §4.1, §4.3, Table 2), not copied from output.
//    Notation: S1 = the highest segment (0-based 0), lists are written head → tail, "pX = 0.5 s3"
//    is object X's GDSF priority and the sequence number its priority was set with.
//  * Queue invariants after every request of a random sequence.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "devices/null_device.h"
#include "engine/cache.h"
#include "engine/framework.h"
#include "policies/registry.h"
#include "tests/reference_models.h"
#include "tests/test_util.h"
#include "traces/trace_reader.h"

namespace flashpq::test_policies {
namespace {

// The Policy concept (engine/policy.h) checks the hooks, not only the kind and the grid.
struct WithoutHitHook {
  static constexpr PriorityKind kKind = PriorityKind::kRelative;
  uint32_t grid() const { return 1; }
  template <class Q>
  void on_insert(Q&, ObjectTable&, Handle) {}
  template <class Q>
  void on_evict(Q&, ObjectTable&, Handle) {}
};
struct WithHitHook : WithoutHitHook {
  template <class Q>
  void on_hit(Q&, ObjectTable&, Handle) {}
};
static_assert(!Policy<WithoutHitHook>);
static_assert(Policy<WithHitHook>);
static_assert(Policy<FifoPolicy> && Policy<LruPolicy> && Policy<SlruPolicy> && Policy<GdsfPolicy>);

using namespace flashpq::testing;  // tests/test_util.h

// ---------------------------------------------------------------------------------------------
// Helpers.

Request get(uint64_t key, uint32_t size = 1) {
  return Request{0, key, size, Op::kGet};
}
Request set(uint64_t key, uint32_t size = 1) {
  return Request{0, key, size, Op::kSet};
}
Request del(uint64_t key) {
  return Request{0, key, 1, Op::kDelete};
}

// Object names for the hand-computed sequences.
enum : uint64_t { A = 1, B, C, D, E, F, X, Y, Z };

RefConfig ref_config(const CacheConfig& c) {
  return RefConfig{c.capacity_bytes, c.unit_size, c.on_size_change == SizeChange::kUpdate};
}

// What a cache needs besides its own config: a framework config and a device (null here).
struct ExactRig {
  FrameworkConfig framework;
  NullDevice device;
};

// Cache<P, exact queue> on a null device, constructed like the cache with (config, policy).
template <class P>
class ExactCache : private ExactRig, public Cache<P, ExactQueueFor<P>> {
 public:
  ExactCache(const CacheConfig& config, P policy)
      : ExactRig(), Cache<P, ExactQueueFor<P>>(config, framework, std::move(policy), device) {}
};

/// Calls fn(cache, ref): the engine's exact cache and the reference model for one policy. Both
/// are built by type (the reference for each priority policy), not through with_framework(),
/// which would instantiate the caller's code for every framework and every reference model.
template <class Fn>
void with_engine_and_ref(const PolicyConfig& policy, const CacheConfig& config, Fn&& fn) {
  with_policy(policy, [&](auto p) {
    using P = decltype(p);
    ExactCache<P> cache(config, std::move(p));
    const RefConfig rc = ref_config(config);
    if constexpr (std::is_same_v<P, FifoPolicy>) {
      RefFifo ref(rc);
      fn(cache, ref);
    } else if constexpr (std::is_same_v<P, LruPolicy>) {
      RefLru ref(rc);
      fn(cache, ref);
    } else if constexpr (std::is_same_v<P, SlruPolicy>) {
      RefSlru ref(rc, policy.params.get<uint32_t>(kSegmentsKey));
      fn(cache, ref);
    } else if constexpr (std::is_same_v<P, GdsfPolicy>) {
      RefGdsf ref(rc, policy.params.get<uint32_t>(kSegmentsKey));
      fn(cache, ref);
    } else {
      FAIL("no reference model for policy " << policy.name);
    }
  });
}

std::string describe(const Request& r) {
  std::ostringstream s;
  s << op_name(r.op) << "(key=" << r.key << ", size=" << r.size_bytes << ")";
  return s.str();
}

/// Replays `requests` through both caches in lockstep; checks that they agree on every request,
/// on the hit count and on the final contents. Returns the engine's hit count.
template <class CacheT, class RefT>
uint64_t check_lockstep(CacheT& cache, RefT& ref, const std::vector<Request>& requests) {
  uint64_t engine_hits = 0;
  uint64_t ref_hits = 0;
  int64_t first_diff = -1;
  std::string diff_text;
  for (size_t i = 0; i < requests.size(); ++i) {
    const bool e = cache.access(requests[i]);
    const bool m = ref.access(requests[i]);
    engine_hits += e;
    ref_hits += m;
    if (e != m && first_diff < 0) {
      first_diff = static_cast<int64_t>(i);
      diff_text = describe(requests[i]) + ": engine " + (e ? "hit" : "miss") + ", reference " +
                  (m ? "hit" : "miss");
    }
  }
  INFO("first differing request index " << first_diff << " " << diff_text);
  CHECK(first_diff == -1);
  CHECK(engine_hits == ref_hits);
  CHECK(cache.used_bytes() == ref.used());
  CHECK(cache.evictions() == ref.evictions());
  const std::vector<uint64_t> keys = ref.keys();
  CHECK(cache.object_count() == keys.size());
  size_t missing = 0;
  for (uint64_t k : keys) missing += !cache.contains(k);
  CHECK(missing == 0);
  return engine_hits;
}

/// One step of a hand-computed sequence: the request and whether access() must return true.
struct Step {
  Request request;
  bool hit;
};
constexpr bool kHit = true;
constexpr bool kMiss = false;  // also the result of every set and delete

/// Runs hand-computed steps through the engine cache and the reference model, checking each
/// step's expected result on both.
template <class CacheT, class RefT>
void run_steps(CacheT& cache, RefT& ref, const std::vector<Step>& steps) {
  for (size_t i = 0; i < steps.size(); ++i) {
    INFO("step " << i + 1 << " of this block: " << describe(steps[i].request));
    CHECK(cache.access(steps[i].request) == steps[i].hit);
    CHECK(ref.access(steps[i].request) == steps[i].hit);
  }
}

/// The relative priority (k/L) of cached `key` in an exact relative queue: 1 is segment S1.
template <class CacheT>
double relative_priority(const CacheT& cache, uint64_t key) {
  REQUIRE(cache.contains(key));
  return cache.queue().priority(cache.table().find(key));
}

/// The GDSF priority of cached `key` in the exact absolute queue.
template <class CacheT>
double gdsf_priority(const CacheT& cache, uint64_t key) {
  REQUIRE(cache.contains(key));
  return cache.queue().priority(cache.table().find(key));
}

using Keys = std::vector<uint64_t>;

/// Checks the engine caches exactly `keys` (any order).
template <class CacheT>
void check_contents(const CacheT& cache, const Keys& keys) {
  CHECK(cache.object_count() == keys.size());
  for (uint64_t k : keys) {
    INFO("key " << k);
    CHECK(cache.contains(k));
  }
}

// ---------------------------------------------------------------------------------------------
// Agreement on real traces.

/// Working-set size: the sum over distinct keys of the size at the first appearance (1 each in
/// unit-size mode), as libCacheSim's cal_working_set_size().
uint64_t working_set(const std::vector<Request>& requests, bool unit_size) {
  std::unordered_set<uint64_t> seen;
  uint64_t wss = 0;
  for (const Request& r : requests) {
    if (seen.insert(r.key).second) wss += unit_size ? 1 : r.size_bytes;
  }
  return wss;
}

const std::vector<PolicyConfig>& agreement_policies() {
  static const std::vector<PolicyConfig> policies = {
      policy_config("fifo"),    policy_config("lru"),     policy_config("slru", 3),
      policy_config("slru", 2), policy_config("gdsf", 3), policy_config("gdsf", 1),
      policy_config("gdsf", 0)};
  return policies;
}

constexpr double kFractions[] = {0.01, 0.05, 0.1, 0.2};

void check_trace_agreement(const std::vector<Request>& trace,
                           const std::vector<PolicyConfig>& policies, bool unit_size,
                           SizeChange mode) {
  const uint64_t wss = working_set(trace, unit_size);
  for (const PolicyConfig& policy : policies) {
    for (double fraction : kFractions) {
      const auto capacity = static_cast<uint64_t>(fraction * static_cast<double>(wss));
      INFO("policy " << policy.name << " L=" << policy.params.get<uint32_t>(kSegmentsKey)
                     << ", capacity " << capacity << " (" << fraction << " of " << wss << ")");
      with_engine_and_ref(policy, cache_config(capacity, unit_size, mode),
                          [&](auto& cache, auto& ref) {
                            const uint64_t hits = check_lockstep(cache, ref, trace);
                            CHECK(hits > 0);
                            CHECK(cache.evictions() > 0);
                          });
    }
  }
}

#ifdef FLASHPQ_SHARED_TRACES
TEST_CASE("policies agree with the reference models on w106 (first 100k, unit sizes)",
          "[policies][agreement][slow]") {
  const auto& trace =
      load_trace(FLASHPQ_SHARED_TRACES "/converted/w106.oracleGeneral.zst", 100'000);
  REQUIRE(trace.size() == 100'000);
  check_trace_agreement(trace, agreement_policies(), /*unit_size=*/true, SizeChange::kKeep);
}
#endif

// The whole bundled trace: a validation, [slow] (the Release suite only; under the sanitizers
// it took two minutes, and the random sequences below reach the same code).
TEST_CASE("policies agree with the reference models on adaptsize (byte sizes)",
          "[policies][agreement][slow]") {
  const auto& trace =
      load_trace(FLASHPQ_SOURCE_DIR "/traces/data/adaptsize-request.oracleGeneral.zst", SIZE_MAX);
  REQUIRE(trace.size() == 66'987);
  REQUIRE(working_set(trace, false) == 278'854'232);
  check_trace_agreement(trace, agreement_policies(), /*unit_size=*/false, SizeChange::kKeep);
}

TEST_CASE("policies agree with the reference models on adaptsize, on_size_change=update",
          "[policies][agreement][slow]") {
  const auto& trace =
      load_trace(FLASHPQ_SOURCE_DIR "/traces/data/adaptsize-request.oracleGeneral.zst", SIZE_MAX);
  REQUIRE(trace.size() == 66'987);
  check_trace_agreement(trace, {policy_config("lru"), policy_config("gdsf", 3)},
                        /*unit_size=*/false, SizeChange::kUpdate);
}

// Random sequences exercise what the traces do not: sets, deletes, size changes, oversize
// objects and unit-size mode, under both size-change modes.
TEST_CASE("policies agree with the reference models on random sequences", "[policies]") {
  const std::vector<PolicyConfig> policies = {
      policy_config("fifo"),     policy_config("lru"),      policy_config("slru", 1),
      policy_config("slru", 2),  policy_config("slru", 3),  policy_config("slru", 5),
      policy_config("slru", 64), policy_config("gdsf", 1),  policy_config("gdsf", 2),
      policy_config("gdsf", 3),  policy_config("gdsf", 64), policy_config("gdsf", 0)};
  uint64_t seed = 1;
  for (const PolicyConfig& policy : policies) {
    for (bool unit_size : {false, true}) {
      for (SizeChange mode : {SizeChange::kKeep, SizeChange::kUpdate}) {
        std::mt19937_64 rng(seed++);
        const uint64_t capacity = unit_size ? 40 : 2000;
        std::vector<Request> requests;
        for (int i = 0; i < 20'000; ++i) {
          const uint64_t key = rng() % 120;
          // Mostly small sizes; 1 in 50 above the capacity; a key's size changes now and then.
          uint32_t size =
              static_cast<uint32_t>(1 + (key * 7 + (rng() % 8 == 0 ? rng() % 3 : 0)) % 200);
          if (rng() % 50 == 0) size = 2001 + static_cast<uint32_t>(rng() % 100);
          const uint64_t op = rng() % 20;
          requests.push_back(op < 16 ? get(key, size) : op < 18 ? set(key, size) : del(key));
        }
        INFO("policy " << policy.name << " L=" << policy.params.get<uint32_t>(kSegmentsKey)
                       << " unit_size=" << unit_size
                       << " update=" << (mode == SizeChange::kUpdate));
        with_engine_and_ref(
            policy, cache_config(capacity, unit_size, mode),
            [&](auto& cache, auto& ref) { CHECK(check_lockstep(cache, ref, requests) > 0); });
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Hand-computed sequences.

TEST_CASE("FIFO evicts in insertion order and ignores hits", "[policies]") {
  // Capacity 3 objects. List head → tail (tail = oldest insertion = next victim).
  const CacheConfig config = cache_config(3, /*unit_size=*/true);
  ExactCache<FifoPolicy> cache(config, FifoPolicy(policy_config("fifo")));
  RefFifo ref(ref_config(config));
  run_steps(cache, ref,
            {
                {get(A), kMiss},  // [A]
                {get(B), kMiss},  // [B A]
                {get(C), kMiss},  // [C B A]
                {get(A), kHit},   // [C B A]: the hit changes nothing
                {get(D), kMiss},  // full: evict tail A although it was just hit → [D C B]
                {get(A), kMiss},  // evict B → [A D C]
                {get(C), kHit},   // [A D C]
                {get(E), kMiss},  // evict C (oldest insertion) although just hit → [E A D]
                {get(D), kHit},   // [E A D]
            });
  check_contents(cache, {A, D, E});
  CHECK(ref.keys() == Keys{E, A, D});
  CHECK(cache.evictions() == 3);
  CHECK(cache.used_bytes() == 3);
}

TEST_CASE("LRU evicts the least recently used object", "[policies]") {
  // The FIFO sequence again; LRU's list head → tail (tail = least recently used).
  const CacheConfig config = cache_config(3, /*unit_size=*/true);
  ExactCache<LruPolicy> cache(config, LruPolicy(policy_config("lru")));
  RefLru ref(ref_config(config));
  run_steps(cache, ref,
            {
                {get(A), kMiss},  // [A]
                {get(B), kMiss},  // [B A]
                {get(C), kMiss},  // [C B A]
                {get(A), kHit},   // [A C B]
                {get(D), kMiss},  // evict B → [D A C]
                {get(A), kHit},   // [A D C]
                {get(C), kHit},   // [C A D]
                {get(E), kMiss},  // evict D → [E C A]
                {get(D), kMiss},  // evict A → [D E C]
            });
  check_contents(cache, {C, D, E});
  CHECK(ref.keys() == Keys{D, E, C});
  CHECK(cache.evictions() == 3);
}

TEST_CASE("SLRU-2: promotion, overflow demotion, eviction from segment 2", "[policies]") {
  // Capacity 4 objects, L = 2: segment S1 overflows when bytes·2 > 4, i.e. above 2 objects;
  // S2 takes the rest. Misses go to the head of S2, hits to the head of the next higher segment.
  const CacheConfig config = cache_config(4, /*unit_size=*/true);
  ExactCache<SlruPolicy> cache(config, SlruPolicy(policy_config("slru", 2)));
  RefSlru ref(ref_config(config), 2);
  run_steps(cache, ref,
            {
                {get(A), kMiss},  // S1 [] S2 [A]
                {get(B), kMiss},  // S1 [] S2 [B A]
                {get(A), kHit},   // promotion: S1 [A] S2 [B]
                {get(C), kMiss},  // S1 [A] S2 [C B]
                {get(D), kMiss},  // 3 + 1 <= 4, no eviction: S1 [A] S2 [D C B]
                {get(B), kHit},   // S1 [B A] S2 [D C]; 2·2 = 4 is not > 4: no overflow
                {get(C), kHit},   // S1 [C B A] overflows (6 > 4): tail A → head of S2:
                                  // S1 [C B] S2 [A D]
            });
  CHECK(ref.keys(0) == Keys{C, B});
  CHECK(ref.keys(1) == Keys{A, D});
  CHECK(cache.queue().segment_bytes(0) == 2);
  CHECK(cache.queue().segment_bytes(1) == 2);
  CHECK(relative_priority(cache, A) == 0.5);  // demoted
  CHECK(relative_priority(cache, C) == 1.0);
  CHECK(cache.evictions() == 0);
  run_steps(cache, ref,
            {
                {get(E), kMiss},  // full: evict the tail of S2, D (A was demoted to its head):
                                  // S1 [C B] S2 [E A]
                {get(D), kMiss},  // D was evicted; evict A: S1 [C B] S2 [D E]
                {get(E), kHit},   // S1 [E C B] overflows: B → S2: S1 [E C] S2 [B D]
                {get(C), kHit},   // C in S1 goes to the head of S1: S1 [C E] S2 [B D]
                {get(F), kMiss},  // evict D: S1 [C E] S2 [F B]
                {get(B), kHit},   // S1 [B C E] overflows: E → S2: S1 [B C] S2 [E F]
            });
  CHECK(ref.keys(0) == Keys{B, C});
  CHECK(ref.keys(1) == Keys{E, F});
  check_contents(cache, {B, C, E, F});
  CHECK(relative_priority(cache, B) == 1.0);
  CHECK(relative_priority(cache, C) == 1.0);
  CHECK(relative_priority(cache, E) == 0.5);
  CHECK(relative_priority(cache, F) == 0.5);
  CHECK(cache.evictions() == 3);  // D, A, D
}

TEST_CASE("SLRU-2: with segment 2 empty, eviction takes the tail of segment 1", "[policies]") {
  // With unit sizes S2 cannot be empty when the cache is full (S1 holds at most half), so this
  // uses byte sizes. Capacity 4 bytes, L = 2: S1 overflows above 2 bytes.
  const CacheConfig config = cache_config(4);
  ExactCache<SlruPolicy> cache(config, SlruPolicy(policy_config("slru", 2)));
  RefSlru ref(ref_config(config), 2);
  run_steps(cache, ref,
            {
                {get(A, 1), kMiss},  // S1 [] S2 [A]
                {get(B, 1), kMiss},  // S1 [] S2 [B A]
                {get(A, 1), kHit},   // S1 [A] S2 [B]
                {get(B, 1), kHit},   // S1 [B A] S2 []   (2 bytes: no overflow)
                {get(X, 3), kMiss},  // 2 + 3 > 4; S2 is empty, so evict S1's tail A;
                                     // 1 + 3 fits: S1 [B] S2 [X]
            });
  CHECK(ref.keys(0) == Keys{B});
  CHECK(ref.keys(1) == Keys{X});
  check_contents(cache, {B, X});
  CHECK(cache.used_bytes() == 4);
  CHECK(cache.evictions() == 1);
  run_steps(cache, ref,
            {
                {get(A, 1), kMiss},  // 4 + 1 > 4: S2 is not empty, evict its tail X: S2 [A]
            });
  check_contents(cache, {A, B});
  CHECK(cache.used_bytes() == 2);

  SECTION("an object larger than a segment falls back to segment 2 when promoted") {
    run_steps(cache, ref,
              {
                  {get(A, 1), kHit},   // S1 [A B] (2 bytes) S2 []
                  {get(Y, 3), kMiss},  // 2 + 3 > 4, S2 empty: evict S1's tail B;
                                       // S1 [A] S2 [Y]
                  {get(Y, 3), kHit},   // S1 [Y A] = 4 bytes > 2: tail A → S2 [A]; S1 [Y] is
                                       // still 3 bytes > 2: Y → head of S2: S1 [] S2 [Y A]
              });
    CHECK(ref.keys(0) == Keys{});
    CHECK(ref.keys(1) == Keys{Y, A});
    CHECK(cache.queue().segment_bytes(0) == 0);
    CHECK(cache.queue().segment_bytes(1) == 4);
    CHECK(relative_priority(cache, Y) == 0.5);
  }
}

TEST_CASE("GDSF ties: the object whose priority was set earlier is evicted", "[policies]") {
  // Capacity 2 objects, L = 3, unit sizes: priority = clock + min(3, n)/1.
  const CacheConfig config = cache_config(2, /*unit_size=*/true);
  ExactCache<GdsfPolicy> cache(config, GdsfPolicy(policy_config("gdsf", 3)));
  RefGdsf ref(ref_config(config), 3);

  SECTION("equal priorities set by insertion") {
    run_steps(cache, ref,
              {
                  {get(A), kMiss},  // pA = 0 + 1 = 1 s0
                  {get(B), kMiss},  // pB = 1 s1
                  {get(C), kMiss},  // tie A/B at 1: A set first → evict A; clock 1; pC = 2 s2
              });
    check_contents(cache, {B, C});
    CHECK(cache.policy().clock() == 1.0);
    CHECK(gdsf_priority(cache, C) == 2.0);
  }
  SECTION("equal priorities set by hits: the last setting counts, not the insertion") {
    run_steps(cache, ref,
              {
                  {get(A), kMiss},  // pA = 1 s0
                  {get(B), kMiss},  // pB = 1 s1
                  {get(B), kHit},   // n = 2: pB = 0 + 2 = 2 s2
                  {get(A), kHit},   // n = 2: pA = 2 s3
                  {get(C), kMiss},  // tie at 2: B (s2) set before A (s3) → evict B although it
                                    // was inserted after A; clock 2; pC = 3 s4
                  {get(A), kHit},   // n = 3: pA = 2 + 3 = 5 s5
              });
    check_contents(cache, {A, C});
    CHECK(gdsf_priority(cache, A) == 5.0);
    CHECK(gdsf_priority(cache, C) == 3.0);
  }
}

TEST_CASE("GDSF frequency cap: n beyond L adds nothing but refreshes the tie order", "[policies]") {
  // Capacity 2 objects, L = 2, unit sizes: priority = clock + min(2, n).
  const CacheConfig config = cache_config(2, /*unit_size=*/true);
  ExactCache<GdsfPolicy> cache(config, GdsfPolicy(policy_config("gdsf", 2)));
  RefGdsf ref(ref_config(config), 2);

  SECTION("the cap") {
    run_steps(cache, ref,
              {
                  {get(A), kMiss},  // n 1: pA = 1 s0
                  {get(A), kHit},   // n 2: pA = 2 s1
                  {get(A), kHit},   // n 3: pA = min(2, 3) = 2 s2
                  {get(A), kHit},   // n 4: pA = 2 s3 (uncapped it would be 4)
                  {get(B), kMiss},  // pB = 1 s4
                  {get(C), kMiss},  // evict B (1 < 2); clock 1; pC = 1 + 1 = 2 s5
                  {get(D), kMiss},  // tie A (2, s3) / C (2, s5): evict A; clock 2; pD = 3 s6
                                    // (uncapped, A = 4 would stay and C would go)
                  {get(A), kMiss},  // evict C (2 < 3); clock 2; pA = 3 s7
              });
    check_contents(cache, {A, D});
    CHECK(cache.policy().clock() == 2.0);
    CHECK(gdsf_priority(cache, A) == 3.0);
    CHECK(gdsf_priority(cache, D) == 3.0);
  }
  SECTION("a capped hit still refreshes the tie sequence") {
    run_steps(cache, ref,
              {
                  {get(A), kMiss},  // pA = 1 s0
                  {get(A), kHit},   // pA = 2 s1
                  {get(B), kMiss},  // pB = 1 s2
                  {get(B), kHit},   // pB = 2 s3
                  {get(A), kHit},   // n 3, capped: pA = 2 unchanged, but s4
                  {get(C), kMiss},  // tie A (2, s4) / B (2, s3): evict B; clock 2; pC = 3 s5
                  {get(A), kHit},   // n 4: pA = 2 + 2 = 4 s6
              });
    check_contents(cache, {A, C});
    CHECK(gdsf_priority(cache, A) == 4.0);
  }
}

TEST_CASE("GDSF clock: a priority includes the priority of the last evicted object", "[policies]") {
  // Capacity 8 bytes, L = 3, byte sizes (powers of two, so every priority is exact).
  const CacheConfig config = cache_config(8);
  ExactCache<GdsfPolicy> cache(config, GdsfPolicy(policy_config("gdsf", 3)));
  RefGdsf ref(ref_config(config), 3);
  run_steps(cache, ref,
            {
                {get(A, 4), kMiss},  // pA = 0 + 1/4 = 0.25 s0; used 4
                {get(B, 2), kMiss},  // pB = 0.5 s1; used 6
                {get(C, 2), kMiss},  // pC = 0.5 s2; used 8
                {get(D, 4), kMiss},  // 12 > 8: evict A (0.25); clock 0.25; used 8;
                                     // pD = 0.25 + 0.25 = 0.5 s3 (0.25 without the clock)
            });
  CHECK(cache.policy().clock() == 0.25);
  CHECK(gdsf_priority(cache, D) == 0.5);
  run_steps(cache, ref,
            {
                {get(E, 2), kMiss},  // 10 > 8: min is B (0.5, s1) before C (s2), D (s3);
                                     // clock 0.5; pE = 0.5 + 0.5 = 1 s4. Without the clock D
                                     // (0.25) would have gone.
                {get(D, 4), kHit},   // n 2: pD = 0.5 + 2/4 = 1 s5
                {get(B, 2), kMiss},  // evict C (0.5); clock 0.5; pB = 1 s6
                {get(F, 2), kMiss},  // ties at 1: E (s4), D (s5), B (s6) → evict E; clock 1;
                                     // pF = 1 + 0.5 = 1.5 s7
            });
  check_contents(cache, {B, D, F});
  CHECK(cache.used_bytes() == 8);
  CHECK(cache.evictions() == 4);  // A, B, C, E
  CHECK(cache.policy().clock() == 1.0);
  CHECK(ref.clock() == 1.0);
  CHECK(gdsf_priority(cache, B) == 1.0);
  CHECK(gdsf_priority(cache, D) == 1.0);
  CHECK(gdsf_priority(cache, F) == 1.5);
}

TEST_CASE("an object larger than the capacity is never admitted, one of exactly the capacity is",
          "[policies]") {
  // Capacity 10 bytes; the same outcome for every policy (nothing here depends on the order).
  for (const PolicyConfig& policy :
       {policy_config("fifo"), policy_config("lru"), policy_config("slru", 2),
        policy_config("slru", 3), policy_config("gdsf", 1), policy_config("gdsf", 3)}) {
    INFO("policy " << policy.name << " L=" << policy.params.get<uint32_t>(kSegmentsKey));
    with_engine_and_ref(policy, cache_config(10), [&](auto& cache, auto& ref) {
      run_steps(cache, ref,
                {
                    {get(A, 4), kMiss},   // used 4
                    {get(B, 4), kMiss},   // used 8
                    {get(X, 11), kMiss},  // 11 > 10: not admitted, nothing evicted
                    {get(A, 4), kHit},
                    {get(B, 4), kHit},
                    {get(X, 11), kMiss},  // still a miss
                });
      check_contents(cache, {A, B});
      CHECK(cache.used_bytes() == 8);
      CHECK(cache.evictions() == 0);
      run_steps(cache, ref,
                {
                    {get(Y, 10), kMiss},  // exactly the capacity: evicts A and B, admitted
                    {get(Y, 10), kHit},
                });
      check_contents(cache, {Y});
      CHECK(cache.used_bytes() == 10);
      CHECK(cache.evictions() == 2);
      run_steps(cache, ref, {{get(A, 4), kMiss}});  // evicts Y
      check_contents(cache, {A});
      CHECK(cache.used_bytes() == 4);
    });
  }
  SECTION("GDSF: a rejected object leaves the clock alone") {
    ExactCache<GdsfPolicy> cache(cache_config(10), GdsfPolicy(policy_config("gdsf", 3)));
    cache.access(get(A, 4));
    CHECK_FALSE(cache.access(get(X, 11)));
    CHECK(cache.policy().clock() == 0.0);
    CHECK(cache.evictions() == 0);
  }
}

TEST_CASE("size change, keep mode: a hit, the cached size stays", "[policies]") {
  const CacheConfig config = cache_config(10);  // kKeep is the default
  REQUIRE(config.on_size_change == SizeChange::kKeep);
  SECTION("LRU") {
    ExactCache<LruPolicy> cache(config, LruPolicy(policy_config("lru")));
    RefLru ref(ref_config(config));
    run_steps(cache, ref,
              {
                  {get(A, 4), kMiss},  // used 4
                  {get(A, 6), kHit},   // hit; A stays 4 bytes; used 4
              });
    CHECK(cache.used_bytes() == 4);
    CHECK(ref.used() == 4);
    run_steps(cache, ref,
              {
                  {get(B, 6), kMiss},  // 4 + 6 = 10 fits: no eviction (A is still 4 bytes)
                  {get(A, 5), kHit},
              });
    check_contents(cache, {A, B});
    CHECK(cache.used_bytes() == 10);
    CHECK(cache.evictions() == 0);
  }
  SECTION("GDSF: the hit's priority uses the cached size") {
    ExactCache<GdsfPolicy> cache(config, GdsfPolicy(policy_config("gdsf", 3)));
    RefGdsf ref(ref_config(config), 3);
    run_steps(cache, ref,
              {
                  {get(A, 4), kMiss},  // pA = 1/4
                  {get(A, 8), kHit},   // n 2: pA = 2/4 = 0.5 (not 2/8)
              });
    CHECK(gdsf_priority(cache, A) == 0.5);
    CHECK(cache.used_bytes() == 4);
  }
}

TEST_CASE("size change, update mode: a miss, the object is re-inserted with the new size",
          "[policies]") {
  const CacheConfig config = cache_config(10, false, SizeChange::kUpdate);
  SECTION("LRU") {
    ExactCache<LruPolicy> cache(config, LruPolicy(policy_config("lru")));
    RefLru ref(ref_config(config));
    run_steps(cache, ref,
              {
                  {get(A, 4), kMiss},  // used 4
                  {get(A, 4), kHit},   // same size: a hit
                  {get(A, 6), kMiss},  // stale: removed (not an eviction), re-inserted; used 6
              });
    CHECK(cache.used_bytes() == 6);
    CHECK(cache.evictions() == 0);
    check_contents(cache, {A});
    run_steps(cache, ref,
              {
                  {get(B, 6), kMiss},   // 6 + 6 > 10: evict A; used 6
                  {get(A, 6), kMiss},   // evict B; used 6
                  {get(A, 11), kMiss},  // stale copy removed; 11 > 10 is not admitted
              });
    CHECK(cache.used_bytes() == 0);
    CHECK(cache.object_count() == 0);
    CHECK(cache.evictions() == 2);
  }
  SECTION("GDSF: the count restarts") {
    ExactCache<GdsfPolicy> cache(config, GdsfPolicy(policy_config("gdsf", 3)));
    RefGdsf ref(ref_config(config), 3);
    run_steps(cache, ref,
              {
                  {get(A, 4), kMiss},  // n 1: pA = 1/4
                  {get(A, 4), kHit},   // n 2: pA = 2/4
                  {get(A, 8), kMiss},  // re-inserted: n 1, pA = 1/8
                  {get(A, 8), kHit},   // n 2: pA = 2/8 = 0.25
              });
    CHECK(gdsf_priority(cache, A) == 0.25);
    CHECK(cache.used_bytes() == 8);
  }
}

TEST_CASE("set replaces the object and resets its priority", "[policies]") {
  SECTION("SLRU-2: back to the lowest segment") {
    // Capacity 4 objects, L = 2 (S1 holds at most 2).
    const CacheConfig config = cache_config(4, /*unit_size=*/true);
    ExactCache<SlruPolicy> cache(config, SlruPolicy(policy_config("slru", 2)));
    RefSlru ref(ref_config(config), 2);
    run_steps(cache, ref,
              {
                  {get(A), kMiss},  // S1 [] S2 [A]
                  {get(A), kHit},   // S1 [A] S2 []
                  {set(A), kMiss},  // replaced, a fresh object: S1 [] S2 [A]
              });
    CHECK(relative_priority(cache, A) == 0.5);
    CHECK(cache.queue().segment_bytes(0) == 0);
    run_steps(cache, ref,
              {
                  {get(B), kMiss},  // S2 [B A]
                  {get(C), kMiss},  // S2 [C B A]
                  {get(D), kMiss},  // S2 [D C B A]
                  {get(E), kMiss},  // evict A (had it stayed in S1, B would go): S2 [E D C B]
                  {get(A), kMiss},  // evict B: S2 [A E D C]
              });
    CHECK(ref.keys(1) == Keys{A, E, D, C});
    check_contents(cache, {A, C, D, E});
  }
  SECTION("GDSF: n back to 1") {
    // Capacity 2 objects, L = 3, unit sizes.
    const CacheConfig config = cache_config(2, /*unit_size=*/true);
    ExactCache<GdsfPolicy> cache(config, GdsfPolicy(policy_config("gdsf", 3)));
    RefGdsf ref(ref_config(config), 3);
    run_steps(cache, ref,
              {
                  {get(A), kMiss},  // n 1: pA = 1 s0
                  {get(A), kHit},   // n 2: pA = 2 s1
                  {get(A), kHit},   // n 3: pA = 3 s2
                  {set(A), kMiss},  // fresh: n 1, pA = 1 s3
                  {get(A), kHit},   // n 2: pA = 2 s4 (3 had n not been reset)
              });
    CHECK(gdsf_priority(cache, A) == 2.0);
    run_steps(cache, ref,
              {
                  {get(B), kMiss},  // pB = 1 s5
                  {get(B), kHit},   // pB = 2 s6
                  {get(C), kMiss},  // tie A (2, s4) / B (2, s6): evict A; clock 2; pC = 3 s7
                  {get(A), kMiss},  // evict B (2 < 3); clock 2; pA = 3 s8
              });
    check_contents(cache, {A, C});
  }
  SECTION("LRU: set with a new size replaces the cached size; set of an absent key inserts") {
    const CacheConfig config = cache_config(10);
    ExactCache<LruPolicy> cache(config, LruPolicy(policy_config("lru")));
    RefLru ref(ref_config(config));
    run_steps(cache, ref,
              {
                  {get(A, 4), kMiss},  // used 4
                  {set(A, 6), kMiss},  // used 6
                  {get(A, 4), kHit},   // keep mode: a hit, A stays 6 bytes
                  {set(B, 4), kMiss},  // absent: inserted; used 10
                  {get(B, 4), kHit},
              });
    CHECK(cache.used_bytes() == 10);
    CHECK(cache.evictions() == 0);
  }
}

TEST_CASE("delete removes a cached object and ignores an absent one", "[policies]") {
  for (const PolicyConfig& policy : {policy_config("fifo"), policy_config("lru"),
                                     policy_config("slru", 2), policy_config("gdsf", 3)}) {
    INFO("policy " << policy.name << " L=" << policy.params.get<uint32_t>(kSegmentsKey));
    // Capacity 3 objects.
    with_engine_and_ref(policy, cache_config(3, /*unit_size=*/true), [&](auto& cache, auto& ref) {
      run_steps(cache, ref,
                {
                    {get(A), kMiss},
                    {get(B), kMiss},
                    {del(A), kMiss},  // cached: removed; not an eviction
                });
      check_contents(cache, {B});
      CHECK(cache.used_bytes() == 1);
      run_steps(cache, ref, {{del(Z), kMiss}});  // absent: nothing changes
      check_contents(cache, {B});
      CHECK(cache.used_bytes() == 1);
      run_steps(cache, ref,
                {
                    {get(A), kMiss},  // a miss after the delete
                    {get(B), kHit},
                    {get(C), kMiss},  // 3 objects: still no eviction
                });
      check_contents(cache, {A, B, C});
      CHECK(cache.evictions() == 0);
      CHECK(ref.evictions() == 0);
    });
  }
  SECTION("GDSF: a delete is not an eviction and leaves the clock alone") {
    ExactCache<GdsfPolicy> cache(cache_config(3, true), GdsfPolicy(policy_config("gdsf", 3)));
    cache.access(get(A));
    cache.access(del(A));
    CHECK(cache.policy().clock() == 0.0);
  }
}

TEST_CASE("unit_size: the capacity counts objects", "[policies]") {
  // Capacity 3 objects; byte sizes far above 3 are admitted.
  const CacheConfig config = cache_config(3, /*unit_size=*/true);
  ExactCache<LruPolicy> cache(config, LruPolicy(policy_config("lru")));
  RefLru ref(ref_config(config));
  run_steps(cache, ref,
            {
                {get(A, 100), kMiss},   // [A]
                {get(B, 200), kMiss},   // [B A]
                {get(C, 5000), kMiss},  // [C B A]: 3 objects, no eviction
            });
  CHECK(cache.used_bytes() == 3);
  CHECK(cache.evictions() == 0);
  run_steps(cache, ref,
            {
                {get(D, 1), kMiss},   // evict A: [D C B]
                {get(B, 200), kHit},  // [B D C]
                {get(E, 7), kMiss},   // evict C: [E B D]
            });
  check_contents(cache, {B, D, E});
  CHECK(cache.used_bytes() == 3);
  CHECK(cache.evictions() == 2);
}

// ---------------------------------------------------------------------------------------------
// Exact queue invariants.

TEST_CASE("exact queues keep their invariants after every request", "[policies]") {
  constexpr uint64_t kCapacity = 1000;
  for (uint32_t L : {1u, 2u, 3u, 4u, 7u}) {
    INFO("SLRU L=" << L);
    std::mt19937_64 rng(42 + L);
    ExactCache<SlruPolicy> cache(cache_config(kCapacity), SlruPolicy(policy_config("slru", L)));
    bool ok = true;
    for (int i = 0; i < 50'000 && ok; ++i) {
      const uint64_t key = rng() % 300;
      const auto size = static_cast<uint32_t>(1 + rng() % (rng() % 10 == 0 ? 1100 : 60));
      const uint64_t op = rng() % 10;
      const Request r = op < 8 ? get(key, size) : op < 9 ? set(key, size) : del(key);
      cache.access(r);
      uint64_t sum = 0;
      for (uint32_t s = 0; s < L; ++s) {
        sum += cache.queue().segment_bytes(s);
        if (s + 1 < L && cache.queue().segment_bytes(s) * L > kCapacity) ok = false;
      }
      if (cache.used_bytes() > kCapacity || sum != cache.used_bytes()) ok = false;
      if (!ok) {
        std::ostringstream segments;
        for (uint32_t s = 0; s < L; ++s) segments << " " << cache.queue().segment_bytes(s);
        FAIL("invariant broken at request " << i << " " << describe(r) << ": used "
                                            << cache.used_bytes() << ", segment bytes"
                                            << segments.str());
      }
    }
    CHECK(ok);
    CHECK(cache.evictions() > 0);
  }
  for (uint32_t L : {1u, 3u}) {
    INFO("GDSF L=" << L);
    std::mt19937_64 rng(7 + L);
    ExactCache<GdsfPolicy> cache(cache_config(kCapacity), GdsfPolicy(policy_config("gdsf", L)));
    double clock = 0.0;
    bool ok = true;
    for (int i = 0; i < 50'000 && ok; ++i) {
      const uint64_t key = rng() % 300;
      const auto size = static_cast<uint32_t>(1 + rng() % 60);
      cache.access(rng() % 10 == 0 ? set(key, size) : get(key, size));
      // used <= capacity; the clock (priority of the last victim) never decreases; the queue
      // holds exactly the cached objects.
      ok = cache.used_bytes() <= kCapacity && cache.policy().clock() >= clock &&
           cache.queue().size() == cache.object_count();
      clock = cache.policy().clock();
      if (!ok) FAIL("invariant broken at request " << i);
    }
    CHECK(cache.evictions() > 0);
  }
}

}  // namespace
}  // namespace flashpq::test_policies

namespace flashpq::test_policies {
namespace {

TEST_CASE("classic GDSF (segments 0): frequency without a cap, and SLRU refuses 0", "[policies]") {
  // One object of size 1 hit 99 times: capped at L = 64 its priority stops at 64, classic GDSF
  // keeps counting (n = 100).
  CacheConfig config = cache_config(10, /*unit_size=*/false);
  for (const uint32_t cap : {64u, 0u}) {
    ExactCache<GdsfPolicy> cache(config, GdsfPolicy(policy_config("gdsf", cap)));
    for (int i = 0; i < 100; ++i) cache.access(get(1, 1));
    CHECK(gdsf_priority(cache, 1) == (cap == 0 ? 100.0 : 64.0));
  }
  CHECK_THROWS_WITH(check_policy(policy_config("slru", 0)),
                    Catch::Contains("policy.segments") && Catch::Contains("slru"));
  CHECK_NOTHROW(check_policy(policy_config("gdsf", 0)));
}

}  // namespace
}  // namespace flashpq::test_policies

namespace flashpq::test_policies {
namespace {

// Classic GDSF (segments 0) on the exact queue against libCacheSim's GDSF: the miss ratios its
// cachesim printed (4 decimals) at commit aa0fc40 of github.com/1a1a11a/libCacheSim,
// `cachesim TRACE oracleGeneral gdsf 0.01,0.05,0.1,0.2` (w106 with --ignore-obj-size 1), each
// cache the fraction of the working set as libCacheSim sizes it. Object and byte miss ratios.
struct LibCacheSimRow {
  double fraction, miss, byte_miss;
};

void check_against_libcachesim(const std::vector<Request>& trace, bool unit_size,
                               const std::vector<LibCacheSimRow>& rows) {
  const uint64_t wss = working_set(trace, unit_size);
  for (const LibCacheSimRow& row : rows) {
    const auto capacity = static_cast<uint64_t>(row.fraction * static_cast<double>(wss));
    ExactCache<GdsfPolicy> cache(cache_config(capacity, unit_size),
                                 GdsfPolicy(policy_config("gdsf", 0)));
    double hits = 0, hit_bytes = 0, bytes = 0;
    for (const Request& r : trace) {
      const bool hit = cache.access(r);
      hits += hit;
      hit_bytes += hit ? r.size_bytes : 0;
      bytes += r.size_bytes;
    }
    const double n = static_cast<double>(trace.size());
    INFO("fraction " << row.fraction);
    // libCacheSim prints 4 decimals: the object miss ratio is equal within
    // its rounding; the byte miss ratio too but for cloudPhysicsIO at 0.2
    // (0.85001 here against 0.8501): within 0.0002, where the target is 0.01.
    CHECK(std::abs((1 - hits / n) - row.miss) <= 0.00006);
    CHECK(std::abs((1 - hit_bytes / bytes) - row.byte_miss) <= 0.0002);
  }
}

TEST_CASE("classic GDSF matches libCacheSim's GDSF on the bundled trace", "[policies]") {
  const auto& trace =
      load_trace(FLASHPQ_SOURCE_DIR "/traces/data/adaptsize-request.oracleGeneral.zst", SIZE_MAX);
  check_against_libcachesim(trace, false,
                            {{0.01, 0.6724, 0.7250},
                             {0.05, 0.6021, 0.6658},
                             {0.1, 0.5799, 0.6395},
                             {0.2, 0.5626, 0.6111}});
}

#ifdef FLASHPQ_SHARED_TRACES
TEST_CASE("classic GDSF matches libCacheSim's GDSF on cloudPhysicsIO and w106",
          "[policies][slow]") {
  check_against_libcachesim(
      load_trace(FLASHPQ_SHARED_TRACES "/libcachesim/cloudPhysicsIO.oracleGeneral.bin", SIZE_MAX),
      false,
      {{0.01, 0.8209, 0.9796},
       {0.05, 0.7919, 0.9688},
       {0.1, 0.7582, 0.9509},
       {0.2, 0.6565, 0.8501}});
  check_against_libcachesim(
      load_trace(FLASHPQ_SHARED_TRACES "/converted/w106.oracleGeneral.zst", SIZE_MAX), true,
      {{0.01, 0.1921, 0.1921},
       {0.05, 0.1269, 0.1269},
       {0.1, 0.0790, 0.0790},
       {0.2, 0.0624, 0.0624}});
}
#endif

}  // namespace
}  // namespace flashpq::test_policies
