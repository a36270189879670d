// tests/policies/test_tinylfu.cpp — TinyLFU admission (policies/tinylfu.h) and W-TinyLFU
// (policies/wtinylfu.h).
//
//  * The sketch: the count-min property on real traces against exact counts, saturation at 15,
//    the reset (every counter halved, the odd-count correction), determinism, sizing by object
//    count.
//  * The doorkeeper: first occurrences only set its bits, the estimate adds its bit, a reset
//    clears it.
//  * Admission composed with every exact policy through Cache<P, ExactQueueFor<P>, A>: the seam
//    (a miss that is not cached afterwards is exactly a rejection), a hand-computed sequence,
//    and a scan-heavy synthetic trace on which admission keeps the hot set.
//  * Admission on RIPQ and SIPQ: which object RIPQ's victim() names, by hand (before steady
//    state, objects moved up skipped, a whole block evicted for one comparison); and, in
//    lockstep on adaptsize and w106, that every decision compares the candidate with an object
//    delete-min evicts, or the precise exceptions.
//  * W-TinyLFU: region sizes, hand-computed sequences (unit and byte sizes), lockstep agreement
//    with an independent model of Caffeine's simulator (WindowTinyLfuPolicy) in unit-size mode,
//    invariants on random sequences, hit ratio against LRU on w106, memory bounded by the object
//    count.
// Every expected value in the hand-computed sequences was worked out by hand from the specs in
// the headers (not copied from output); the notation is [MRU … LRU].
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <list>
#include <map>
#include <random>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "devices/null_device.h"
#include "engine/admission.h"
#include "engine/cache.h"
#include "engine/framework.h"
#include "policies/registry.h"
#include "policies/tinylfu.h"
#include "policies/wtinylfu.h"
#include "tests/test_util.h"
#include "traces/trace_reader.h"

namespace flashpq::test_tinylfu {
namespace {

using namespace flashpq::testing;  // tests/test_util.h

using Catch::Contains;
using Region = WTinyLfuCache::Region;
using Keys = std::vector<uint64_t>;

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

AdmissionConfig tinylfu(bool doorkeeper = false) {
  AdmissionConfig a;
  a.name = "tinylfu";
  a.params.set(kDoorkeeperKey.name, doorkeeper);
  return a;
}

const std::vector<Request>& adaptsize() {
  return load_trace(FLASHPQ_SOURCE_DIR "/traces/data/adaptsize-request.oracleGeneral.zst",
                    SIZE_MAX);
}

/// The traces the sketch tests run on: adaptsize always, the w106 prefix when present.
std::vector<std::pair<std::string, const std::vector<Request>*>> sketch_traces() {
  std::vector<std::pair<std::string, const std::vector<Request>*>> out = {
      {"adaptsize", &adaptsize()}};
#ifdef FLASHPQ_SHARED_TRACES
  out.push_back({"w106[:200k]",
                 &load_trace(FLASHPQ_SHARED_TRACES "/converted/w106.oracleGeneral.zst", 200'000)});
#endif
  return out;
}

/// Working-set size as in tests/policies/test_policies.cpp (libCacheSim's cal_working_set_size()).
uint64_t working_set(const std::vector<Request>& requests, bool unit_size) {
  std::unordered_set<uint64_t> seen;
  uint64_t wss = 0;
  for (const Request& r : requests) {
    if (seen.insert(r.key).second) wss += unit_size ? 1 : r.size_bytes;
  }
  return wss;
}

// What a cache needs besides its own config: a framework config and a device (null here).
struct ExactRig {
  FrameworkConfig framework;
  NullDevice device;
};

/// Cache<P, exact queue, A> on a null device, built from (config, policy, admission).
template <class P, class A>
class AdmittedCache : private ExactRig, public Cache<P, ExactQueueFor<P>, A> {
 public:
  AdmittedCache(const CacheConfig& config, P policy, A admission)
      : ExactRig(),
        Cache<P, ExactQueueFor<P>, A>(config, framework, std::move(policy), device,
                                      std::move(admission)) {}
};

/// Calls fn(cache) with the exact cache for `policy` under the admission `admission` sized for
/// `expected_objects` (dispatched by name through with_policy and with_admission).
template <class Fn>
void with_admitted_cache(const PolicyConfig& policy, const CacheConfig& config,
                         const AdmissionConfig& admission, uint64_t expected_objects, Fn&& fn) {
  with_policy(policy, [&](auto p) {
    with_admission(admission, expected_objects, [&](auto a) {
      AdmittedCache<decltype(p), decltype(a)> cache(config, std::move(p), std::move(a));
      fn(cache);
    });
  });
}

/// As above with TinyLfuAdmission only (for tests that read the sketch).
template <class Fn>
void with_tinylfu_cache(const PolicyConfig& policy, const CacheConfig& config,
                        const AdmissionConfig& admission, uint64_t expected_objects, Fn&& fn) {
  with_policy(policy, [&](auto p) {
    AdmittedCache<decltype(p), TinyLfuAdmission> cache(
        config, std::move(p), TinyLfuAdmission(admission, expected_objects));
    fn(cache);
  });
}

template <class CacheT>
uint64_t replay(CacheT& cache, const std::vector<Request>& requests) {
  uint64_t hits = 0;
  for (const Request& r : requests) hits += cache.access(r);
  return hits;
}

// ---------------------------------------------------------------------------------------------
// The sketch.

TEST_CASE("sketch sizing follows the expected object count", "[admission]") {
  // words = max(8, next power of two >= expected), width = 4 × words, sample = 10 × expected.
  {
    FrequencySketch s(0, 1.0, 10);  // 0 counts as 1
    CHECK(s.words().size() == 8);
    CHECK(s.width() == 32);
    CHECK(s.sample_size() == 10);
    CHECK(s.memory_bytes() == 64);
  }
  {
    FrequencySketch s(100, 1.0, 10);
    CHECK(s.words().size() == 128);
    CHECK(s.width() == 512);
    CHECK(s.sample_size() == 1000);
    CHECK(s.memory_bytes() == 1024);  // depth 4 × width 512 × 4 bits
  }
  {
    FrequencySketch s(1024, 1.0, 7);
    CHECK(s.words().size() == 1024);
    CHECK(s.sample_size() == 7168);
  }
  CHECK(FrequencySketch::words_for(1000, 0.25) == 256);  // ceil(250) → 256
  CHECK(FrequencySketch::words_for(1000, 2.0) == 2048);
  // 1 TiB of 4 KiB objects: 2^28 objects → 2^28 words = 2 GiB, 8 bytes per object.
  CHECK(FrequencySketch::words_for(uint64_t{1} << 28, 1.0) == uint64_t{1} << 28);
  CHECK_THROWS_AS(FrequencySketch(uint64_t{1} << 41, 1.0, 10), std::invalid_argument);
}

TEST_CASE("sketch estimates never fall below the true counts before a reset", "[admission]") {
  for (const auto& [name, trace] : sketch_traces()) {
    std::unordered_map<uint64_t, uint32_t> exact;
    for (const Request& r : *trace) ++exact[r.key];
    // A roomy sketch and a crowded one (1024 objects for tens of thousands of keys), both with a
    // sample larger than the trace so that no reset happens.
    for (const auto& [expected, factor] :
         std::vector<std::pair<uint64_t, uint32_t>>{{uint64_t{1} << 16, 10}, {1024, 1000}}) {
      INFO(name << ": " << trace->size() << " requests, " << exact.size() << " keys; sketch for "
                << expected << " objects");
      FrequencySketch s(expected, 1.0, factor);
      REQUIRE(s.sample_size() > trace->size());
      for (const Request& r : *trace) s.increment(r.key);
      REQUIRE(s.resets() == 0);
      size_t under = 0;
      size_t exact_estimates = 0;
      for (const auto& [key, count] : exact) {
        const uint32_t truth = std::min<uint32_t>(count, 15);
        const uint32_t e = s.estimate(key);
        under += e < truth;
        exact_estimates += e == truth;
      }
      CHECK(under == 0);
      if (expected == (uint64_t{1} << 16)) {
        // Accuracy, not a correctness property: with 2^18 counters per row for at most ~70k keys
        // nearly every estimate is exact.
        CHECK(static_cast<double>(exact_estimates) >= 0.95 * static_cast<double>(exact.size()));
      }
    }
  }
}

TEST_CASE("sketch counters saturate at 15", "[admission]") {
  FrequencySketch s(4096, 1.0, 10);
  for (int i = 0; i < 100; ++i) s.increment(7);
  CHECK(s.estimate(7) == 15);
  for (unsigned row = 0; row < 4; ++row) CHECK(s.counter(7, row) == 15);
  // Only the first 15 increments raised a counter, so only they count toward the sample.
  CHECK(s.additions() == 15);
  CHECK(s.resets() == 0);
}

TEST_CASE("sketch reset halves every counter after sample_factor × expected additions",
          "[admission]") {
  SECTION("by hand: A ×5, B ×3, sample size 8") {
    // expected 8 objects, sample_factor 1: one block of 8 words, sample size 8. A's and B's
    // counters must not share a slot for the numbers below (checked first: keys 1 and 2 do share
    // one, 1 and 3 do not).
    FrequencySketch s(8, 1.0, 1);
    REQUIRE(s.sample_size() == 8);
    const uint64_t a = 1, b = 3;
    for (unsigned row = 0; row < 4; ++row) {
      const auto sa = s.slot(a, row), sb = s.slot(b, row);
      REQUIRE(!(sa.word == sb.word && sa.nibble == sb.nibble));
    }
    for (int i = 0; i < 5; ++i) CHECK_FALSE(s.increment(a));
    CHECK(s.additions() == 5);
    CHECK_FALSE(s.increment(b));
    CHECK_FALSE(s.increment(b));
    CHECK(s.estimate(a) == 5);
    CHECK(s.estimate(b) == 2);
    CHECK(s.increment(b));  // the 8th addition: reset
    CHECK(s.resets() == 1);
    // Counters: A 5 → 2, B 3 → 1. Odd counters: A's 4 and B's 4 = 8, so additions become
    // (8 − 8/4) / 2 = 3.
    for (unsigned row = 0; row < 4; ++row) {
      CHECK(s.counter(a, row) == 2);
      CHECK(s.counter(b, row) == 1);
    }
    CHECK(s.estimate(a) == 2);
    CHECK(s.estimate(b) == 1);
    CHECK(s.additions() == 3);
    // Every other counter was 0 and stays 0: the table holds exactly A's and B's 8 counters.
    uint64_t total = 0;
    for (uint64_t w : s.words()) {
      for (unsigned n = 0; n < 16; ++n) total += (w >> (4 * n)) & 0xF;
    }
    CHECK(total == 4 * 2 + 4 * 1);
  }

  SECTION("a crowded table: every nibble halves, additions corrected by the odd count") {
    FrequencySketch s(64, 1.0, 10);  // 64 words, sample size 640
    REQUIRE(s.sample_size() == 640);
    for (int i = 0; i < 9; ++i) s.increment(1);
    for (int i = 0; i < 4; ++i) s.increment(2);
    uint64_t next = 1000;
    while (s.additions() < 639) REQUIRE_FALSE(s.increment(next++));
    REQUIRE(s.resets() == 0);
    const uint64_t z = next;  // the key whose increment will trigger the reset
    std::vector<uint64_t> before = s.words();
    // Apply z's increment to the snapshot by hand.
    bool added = false;
    for (unsigned row = 0; row < 4; ++row) {
      const auto sl = s.slot(z, row);
      const uint64_t c = (before[sl.word] >> (4 * sl.nibble)) & 0xF;
      if (c < 15) {
        before[sl.word] += uint64_t{1} << (4 * sl.nibble);
        added = true;
      }
    }
    REQUIRE(added);
    const uint32_t a_before = s.estimate(1);
    CHECK(a_before >= 9);
    CHECK(s.increment(z));
    CHECK(s.resets() == 1);
    uint64_t odd = 0;
    for (size_t w = 0; w < before.size(); ++w) {
      for (unsigned n = 0; n < 16; ++n) {
        const uint64_t old = (before[w] >> (4 * n)) & 0xF;
        odd += old & 1;
        const uint64_t now = (s.words()[w] >> (4 * n)) & 0xF;
        if (now != old / 2) FAIL("word " << w << " nibble " << n << ": " << old << " → " << now);
      }
    }
    CHECK(s.additions() == (640 - odd / 4) / 2);
    CHECK(s.estimate(1) == a_before / 2);  // floor(min / 2) = min of the floors
  }
}

TEST_CASE("sketch increment, estimate and reset agree with a per-counter reference",
          "[admission]") {
  // The reference touches one counter at a time through slot() (the layout of the file comment)
  // and halves nibble by nibble: a second implementation of increment(), estimate() and reset()
  // (which work on whole words). A sketch for 512 objects (4096 counters, sample 5120) on
  // adaptsize: crowded, with counters at 15 and many resets.
  const auto& trace = adaptsize();
  FrequencySketch s(512, 1.0, 10);
  std::vector<uint64_t> words = s.words();
  uint64_t additions = 0, resets = 0;
  auto nibble = [&](FrequencySketch::Slot sl) { return (words[sl.word] >> (4 * sl.nibble)) & 0xF; };
  for (size_t i = 0; i < trace.size(); ++i) {
    const uint64_t key = trace[i].key;
    bool added = false;
    for (unsigned row = 0; row < 4; ++row) {
      const auto sl = s.slot(key, row);
      if (nibble(sl) < 15) {
        words[sl.word] += uint64_t{1} << (4 * sl.nibble);
        added = true;
      }
    }
    additions += added;
    bool reset = false;
    if (additions == s.sample_size()) {
      uint64_t odd = 0;
      for (uint64_t& w : words) {
        uint64_t halved = 0;
        for (unsigned n = 0; n < 16; ++n) {
          const uint64_t c = (w >> (4 * n)) & 0xF;
          odd += c & 1;
          halved |= (c / 2) << (4 * n);
        }
        w = halved;
      }
      additions = (additions > odd / 4 ? additions - odd / 4 : 0) / 2;
      ++resets;
      reset = true;
    }
    REQUIRE(s.increment(key) == reset);
    REQUIRE(s.additions() == additions);
    if (reset || i % 97 == 0) REQUIRE(s.words() == words);
    uint64_t m = 15;
    for (unsigned row = 0; row < 4; ++row) m = std::min(m, nibble(s.slot(key, row)));
    REQUIRE(s.estimate(key) == m);
  }
  CHECK(s.words() == words);
  CHECK(s.resets() == resets);
  CHECK(resets >= 10);
}

TEST_CASE("sketch reset of a saturated table: all 16 counters of every word odd", "[admission]") {
  // 8 words = 128 counters; 2000 keys × 100 increments saturate every one of them (checked),
  // and the sample (8 × 1000) is never reached. reset() then finds 16 odd counters in each word:
  // 15 → 7 everywhere, additions = (A − 128/4) / 2.
  FrequencySketch s(8, 1.0, 1000);
  for (int round = 0; round < 100; ++round) {
    for (uint64_t k = 0; k < 2000; ++k) s.increment(k);
  }
  REQUIRE(s.resets() == 0);
  for (uint64_t w : s.words()) REQUIRE(w == ~uint64_t{0});
  const uint64_t a = s.additions();
  REQUIRE(a >= 32);
  s.reset();
  for (uint64_t w : s.words()) CHECK(w == 0x7777777777777777ULL);
  CHECK(s.additions() == (a - 32) / 2);
  CHECK(s.resets() == 1);
}

TEST_CASE("sketch is deterministic", "[admission]") {
  const auto& trace = adaptsize();
  FrequencySketch s1(512, 1.0, 10), s2(512, 1.0, 10);
  for (const Request& r : trace) s1.increment(r.key);
  for (const Request& r : trace) s2.increment(r.key);
  CHECK(s1.resets() > 0);  // a small sketch: the trace spans several resets
  CHECK(s1.resets() == s2.resets());
  CHECK(s1.additions() == s2.additions());
  CHECK(s1.words() == s2.words());
}

// ---------------------------------------------------------------------------------------------
// The doorkeeper.

TEST_CASE("doorkeeper: a first occurrence only sets its bits, estimates add it, reset clears",
          "[admission]") {
  const TinyLfuAdmission off(tinylfu(false), 1024);
  CHECK_FALSE(off.doorkeeper_enabled());
  CHECK(off.memory_bytes() == 1024 * 8);

  TinyLfuAdmission a(tinylfu(true), 1024);
  REQUIRE(a.doorkeeper_enabled());
  // Sized for 3 × 1024 insertions at fpp 0.01: 3072 × 9.585 bits = 29,446 → 32,768 bits.
  CHECK(a.doorkeeper().bit_count() == 32768);
  CHECK(a.memory_bytes() == 1024 * 8 + 32768 / 8);
  CHECK(TinyLfuAdmission::memory_bytes_for(TinyLfuConfig::from(tinylfu(true).params), 1024) ==
        a.memory_bytes());

  const uint64_t A = 11, B = 12;
  a.record(A);
  CHECK(a.doorkeeper().contains(A));
  CHECK(a.sketch().estimate(A) == 0);  // the sketch did not see it
  CHECK(a.sketch().additions() == 0);
  CHECK(a.estimate(A) == 1);  // 0 + the doorkeeper's bit
  a.record(A);
  CHECK(a.sketch().estimate(A) == 1);
  CHECK(a.estimate(A) == 2);
  a.record(B);
  CHECK(a.estimate(B) == 1);
  CHECK(a.admit(A, B));
  CHECK_FALSE(a.admit(B, A));
  CHECK_FALSE(a.admit(B, B));  // ties reject

  // At most 15: 20 accesses = 1 in the doorkeeper + 19 in the sketch (saturating at 15).
  for (int i = 0; i < 18; ++i) a.record(A);
  CHECK(a.sketch().estimate(A) == 15);
  CHECK(a.estimate(A) == 15);

  // Drive the sketch to its reset (10 × 1024 additions): every fresh key twice, the second time
  // reaches the sketch.
  const uint64_t resets = a.sketch().resets();
  for (uint64_t k = 1000; a.sketch().resets() == resets; ++k) {
    a.record(k);
    a.record(k);
  }
  // The reset ran on a sketch increment, after the last put; the filter is empty now.
  CHECK_FALSE(a.doorkeeper().contains(A));
  CHECK_FALSE(a.doorkeeper().contains(B));
  CHECK(a.estimate(B) == a.sketch().estimate(B));
  CHECK(a.estimate(A) == 7);  // 15 halved
}

TEST_CASE("Doorkeeper sizing", "[admission]") {
  // −ln(0.01)/ln²2 = 9.585 bits per insertion, rounded up to a power of two, at least 128.
  CHECK(Doorkeeper::bits_for(1, 0.01) == 128);
  CHECK(Doorkeeper::bits_for(1000, 0.01) == 16384);  // 9,586 → 16,384
  Doorkeeper d(1000, 0.01);
  CHECK(d.bit_count() == 16384);
  CHECK(d.put(5));
  CHECK_FALSE(d.put(5));
  CHECK(d.contains(5));
  d.clear();
  CHECK_FALSE(d.contains(5));
  // False positives stay near the target at the sized load.
  Doorkeeper full(1000, 0.01);
  for (uint64_t k = 0; k < 1000; ++k) full.put(k);
  int fp = 0;
  for (uint64_t k = 1'000'000; k < 1'100'000; ++k) fp += full.contains(k);
  CHECK(fp < 1000);  // < 1 % (the filter is ~1.7× the optimal size here)
}

// ---------------------------------------------------------------------------------------------
// The configuration and the dispatcher.

TEST_CASE("the admission keys and with_admission dispatch", "[admission]") {
  CHECK(admission_names() == std::vector<std::string>{"none", "tinylfu"});
  AdmissionConfig ok;
  CHECK_NOTHROW(check_admission(ok));
  CHECK(ok.name == "none");
  // TinyLFU's defaults are Caffeine's (policies/tinylfu.h), read from its declared keys.
  const TinyLfuConfig d = TinyLfuConfig::from(Params{});
  CHECK(d.sample_factor == 10);
  CHECK(d.counters_multiplier == 1.0);
  CHECK_FALSE(d.doorkeeper);
  CHECK(d.doorkeeper_insertions_multiplier == 3.0);
  CHECK(d.doorkeeper_fpp == 0.01);
  CHECK_NOTHROW(check_admission(tinylfu(true)));

  auto message = [](const AdmissionConfig& c) {
    try {
      check_admission(c);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  AdmissionConfig c;
  c.name = "lfu";
  CHECK_THAT(message(c),
             Contains("admission.name") && Contains("'lfu'") && Contains("none, tinylfu"));
  c = tinylfu();
  c.params.set(kSampleFactorKey.name, 0);
  CHECK_THAT(message(c), Contains("admission.sample_factor") && Contains("found '0'"));
  c.params.set(kSampleFactorKey.name, 1001);
  CHECK_THAT(message(c), Contains("sample_factor"));
  c = tinylfu();
  for (double bad : {0.0, -1.0, 65.0}) {
    c.params.set(kCountersMultiplierKey.name, bad);
    CHECK_THAT(message(c), Contains("admission.counters_multiplier"));
  }
  c.params.set(kCountersMultiplierKey.name, "nan");
  CHECK_THAT(message(c), Contains("admission.counters_multiplier"));
  c = tinylfu();
  c.params.set(kDoorkeeperInsertionsMultiplierKey.name, 0);
  CHECK_THAT(message(c), Contains("admission.doorkeeper_insertions_multiplier"));
  c = tinylfu();
  for (double bad : {0.0, 0.6, 1.0}) {
    c.params.set(kDoorkeeperFppKey.name, bad);
    CHECK_THAT(message(c), Contains("admission.doorkeeper_fpp"));
  }

  CHECK_FALSE(with_admission(AdmissionConfig{}, 100, [](auto a) { return decltype(a)::kEnabled; }));
  CHECK(with_admission(tinylfu(), 100, [](auto a) { return decltype(a)::kEnabled; }));
  CHECK(with_admission(tinylfu(), 100, [](auto a) { return a.memory_bytes(); }) == 1024);
  c.name = "lfu";
  CHECK_THROWS_AS(with_admission(c, 100, [](auto) { return 0; }), std::invalid_argument);
}

TEST_CASE("policy wtinylfu is registered but is not a with_policy policy", "[admission]") {
  PolicyConfig p = policy_config("wtinylfu");
  CHECK_NOTHROW(check_policy(p));
  const auto& names = policy_names();
  CHECK(std::find(names.begin(), names.end(), "wtinylfu") != names.end());
  CHECK(is_cache_policy("wtinylfu"));
  try {
    with_policy(p, [](auto) { return 0; });
    FAIL("with_policy accepted wtinylfu");
  } catch (const std::invalid_argument& e) {
    CHECK_THAT(std::string(e.what()), Contains("with_cache_policy"));
  }
  p.name = "hyperbolic";
  CHECK_THAT(
      [&] {
        try {
          check_policy(p);
        } catch (const std::invalid_argument& e) {
          return std::string(e.what());
        }
        return std::string();
      }(),
      Contains("fifo, lru, slru, gdsf"));
}

// ---------------------------------------------------------------------------------------------
// TinyLFU admission on the exact framework.

TEST_CASE("TinyLFU admission on LRU, by hand: lower or equal estimates are rejected",
          "[admission]") {
  // Capacity 2 objects; keys A, B, C, sketch for 1024 objects (no collisions among 3 keys is
  // checked through the estimates below).
  enum : uint64_t { A = 1, B = 2, C = 3 };
  AdmittedCache<LruPolicy, TinyLfuAdmission> cache(
      cache_config(2, true), LruPolicy(policy_config("lru")), TinyLfuAdmission(tinylfu(), 1024));
  auto est = [&](uint64_t k) { return cache.admission().estimate(k); };
  auto contents = [&](const Keys& keys) {
    CHECK(cache.object_count() == keys.size());
    for (uint64_t k : keys) CHECK(cache.contains(k));
  };
  CHECK_FALSE(cache.access(get(A)));  // [A]           est A 1 (no eviction: no admission test)
  CHECK(cache.access(get(A)));        // [A]           est A 2
  CHECK(cache.access(get(A)));        // [A]           est A 3
  CHECK_FALSE(cache.access(get(B)));  // [B A]         est B 1
  CHECK(est(A) == 3);
  CHECK(est(B) == 1);
  CHECK_FALSE(cache.access(get(C)));  // victim A: C 1 vs A 3 → rejected
  CHECK(est(C) == 1);
  contents({A, B});
  CHECK(cache.admission_rejections() == 1);
  CHECK(cache.evictions() == 0);
  CHECK(cache.access(get(B)));        // [B A]         est B 2
  CHECK_FALSE(cache.access(get(C)));  // C 2 vs A 3 → rejected
  CHECK_FALSE(cache.access(get(C)));  // C 3 vs A 3 → rejected (a tie keeps the victim)
  contents({A, B});
  CHECK(cache.admission_rejections() == 3);
  CHECK_FALSE(cache.access(get(C)));  // C 4 vs A 3 → admitted, A evicted: [C B]
  contents({B, C});
  CHECK(cache.evictions() == 1);
  CHECK(cache.admission_rejections() == 3);
  CHECK_FALSE(cache.access(get(A)));  // victim B: A 4 vs B 2 → admitted, B evicted: [A C]
  contents({A, C});
  CHECK(est(A) == 4);
  CHECK(cache.evictions() == 2);
  CHECK(cache.access(get(C)));
  CHECK(cache.miss_bytes_inserted() == 4);  // A, B, C, A
}

const std::vector<PolicyConfig>& exact_policies() {
  static const std::vector<PolicyConfig> policies = {policy_config("fifo"), policy_config("lru"),
                                                     policy_config("slru", 3),
                                                     policy_config("gdsf", 3)};
  return policies;
}

// The seam, checked on every request: a get or set of an admissible size leaves the key cached
// unless the admission policy rejected it (then exactly one more rejection and the contents
// before the request unchanged apart from the key's old copy); nothing exceeds the capacity.
template <class CacheT>
void check_seam(CacheT& cache, const std::vector<Request>& requests, bool unit_size) {
  const uint64_t capacity = cache.capacity_bytes();
  size_t bad = 0;
  for (const Request& r : requests) {
    const uint64_t rejected = cache.admission_rejections();
    const uint64_t evicted = cache.evictions();
    const bool hit = cache.access(r);
    const uint64_t size = unit_size ? 1 : r.size_bytes;
    if (r.op != Op::kDelete && !hit && size <= capacity) {
      const bool was_rejected = cache.admission_rejections() == rejected + 1;
      bad += cache.contains(r.key) == was_rejected;
      if (was_rejected) bad += cache.evictions() != evicted;  // a rejection evicts nothing
    }
    bad += cache.used_bytes() > capacity;
  }
  CHECK(bad == 0);
}

TEST_CASE("TinyLFU admission composes with every exact policy (adaptsize, random)", "[admission]") {
  const auto& trace = adaptsize();
  const uint64_t wss = working_set(trace, false);
  const uint64_t mean_size = wss / trace.size();
  for (const PolicyConfig& policy : exact_policies()) {
    for (double fraction : {0.01, 0.1}) {
      const auto capacity = static_cast<uint64_t>(fraction * static_cast<double>(wss));
      INFO("policy " << policy.name << ", capacity " << fraction << " of the working set");
      uint64_t plain_hits = 0;
      with_admitted_cache(policy, cache_config(capacity, false), AdmissionConfig{}, 0,
                          [&](auto& cache) { plain_hits = replay(cache, trace); });
      with_admitted_cache(policy, cache_config(capacity, false), tinylfu(), capacity / mean_size,
                          [&](auto& cache) {
                            check_seam(cache, trace, false);
                            CHECK(cache.admission_rejections() > 0);
                            // FIFO at 10 %: the oldest object, FIFO's victim for good, is a key
                            // accessed 842 times (estimate 15), so no candidate ever beats it and
                            // nothing is evicted: TinyLFU freezes a FIFO whose head is hot.
                            if (policy.name != "fifo") CHECK(cache.evictions() > 0);
                          });
      with_admitted_cache(policy, cache_config(capacity, false), tinylfu(), capacity / mean_size,
                          [&](auto& cache) {
                            const uint64_t hits = replay(cache, trace);
                            CHECK(hits > 0);
                            UNSCOPED_INFO(policy.name << " @" << fraction << ": hits " << plain_hits
                                                      << " → " << hits);
                          });
    }
  }
  // Random sequences: sets, deletes, size changes and oversize objects, with and without the
  // doorkeeper, both size-change modes.
  uint64_t seed = 7;
  for (const PolicyConfig& policy : exact_policies()) {
    for (bool doorkeeper : {false, true}) {
      for (SizeChange mode : {SizeChange::kKeep, SizeChange::kUpdate}) {
        std::mt19937_64 rng(seed++);
        std::vector<Request> requests;
        for (int i = 0; i < 20'000; ++i) {
          const uint64_t key = rng() % 150;
          uint32_t size = static_cast<uint32_t>(1 + (key * 7 + (rng() % 8 == 0)) % 200);
          if (rng() % 50 == 0) size = 2001;
          const uint64_t op = rng() % 20;
          requests.push_back(op < 16 ? get(key, size) : op < 18 ? set(key, size) : del(key));
        }
        INFO("policy " << policy.name << " doorkeeper " << doorkeeper);
        with_admitted_cache(policy, cache_config(2000, false, mode), tinylfu(doorkeeper), 20,
                            [&](auto& cache) {
                              check_seam(cache, requests, false);
                              CHECK(cache.admission_rejections() > 0);
                            });
      }
    }
  }
}

TEST_CASE("TinyLFU admission keeps a hot set through a scan (every exact policy)", "[admission]") {
  // 20 rounds of: the 100 hot keys once each, then 1000 scan keys never seen before. Capacity 150
  // objects. The sketch is sized for 4096 objects (sample 40,960 > 22,000 requests: no reset,
  // and few collisions among 22,000 keys in 2^14 counters per row).
  //
  // Without admission every policy hits 0 times: between two accesses to a hot key come 1000+
  // misses, each inserted, so the key is evicted first (FIFO and LRU plainly; SLRU and GDSF
  // never see a hit, so they order by insertion too).
  //
  // With TinyLFU: the first 150 distinct keys (the 100 hot ones and 50 scan keys of round 1)
  // fill the cache without an admission test. From then on every candidate is a scan key seen
  // once (estimate 1) and every victim has been seen at least once (estimate >= 1): ties reject,
  // so the contents never change and every hot access of rounds 2–20 hits: 19 × 100 = 1900
  // hits, fewer only if a scan key collides with other keys in all 4 rows.
  constexpr int kRounds = 20, kHot = 100, kScan = 1000;
  std::vector<Request> requests;
  uint64_t scan_key = 1'000'000;
  for (int round = 0; round < kRounds; ++round) {
    for (uint64_t k = 0; k < kHot; ++k) requests.push_back(get(k));
    for (int i = 0; i < kScan; ++i) requests.push_back(get(scan_key++));
  }
  for (const PolicyConfig& policy : exact_policies()) {
    INFO("policy " << policy.name);
    uint64_t plain = 0, admitted = 0;
    with_admitted_cache(policy, cache_config(150, true), AdmissionConfig{}, 150,
                        [&](auto& cache) { plain = replay(cache, requests); });
    with_tinylfu_cache(policy, cache_config(150, true), tinylfu(), 4096, [&](auto& cache) {
      admitted = replay(cache, requests);
      CHECK(cache.admission().sketch().resets() == 0);
      uint64_t hot_cached = 0;
      for (uint64_t k = 0; k < kHot; ++k) hot_cached += cache.contains(k);
      // A scan key whose 4 counters all collide (estimate 2) may displace a hot key with estimate
      // 1 in round 1: measured once, FIFO losing key 0 (1885 hits instead of 1900).
      CHECK(hot_cached >= 99);
    });
    CHECK(plain == 0);
    CHECK(admitted >= 1881);  // 99 % of 1900
    CHECK(admitted <= 1900);
    CHECK(admitted > plain);  // strictly higher hit ratio
  }
}

// ---------------------------------------------------------------------------------------------
// TinyLFU on RIPQ and SIPQ: the object a candidate is compared against (Q::victim()).

/// One admit() call the cache made: the candidate, the victim it was compared against, the
/// answer.
struct Decision {
  uint64_t candidate;
  uint64_t victim;
  bool admitted;
};

/// Admission A that records every admit() call the cache makes (A = NoAdmission admits all).
template <class A>
class DecisionRecording {
 public:
  static constexpr bool kEnabled = true;
  DecisionRecording(A inner, std::vector<Decision>* log) : inner_(std::move(inner)), log_(log) {}
  void record(uint64_t key) { inner_.record(key); }
  bool admit(uint64_t candidate, uint64_t victim) {
    const bool admitted = inner_.admit(candidate, victim);
    log_->push_back({candidate, victim, admitted});
    return admitted;
  }
  size_t memory_bytes() const { return inner_.memory_bytes(); }
  const A& inner() const { return inner_; }

 private:
  A inner_;
  std::vector<Decision>* log_;
};

// The key of the object queue q's victim() names for an object of `size`, 0 for none (keys
// in the hand-computed sequences start at 1).
template <class CacheT>
uint64_t victim_key(const CacheT& cache, uint32_t size = 1) {
  const Handle h = cache.queue().victim(size);
  return h == kNoHandle ? 0 : cache.table()[h].key;
}

TEST_CASE("RIPQ's victim() by hand: the first object of the tail sealed block to be evicted",
          "[admission][ripq]") {
  // Unit sizes, capacity 10 objects, B = 2 objects: 5 device slots; reserved_blocks 2; K = 4
  // (α = 1/4); LRU. Each miss is inserted at priority 1 into the head section's active device
  // block, which is sealed (written to a free slot) when the next object does not fit: the
  // insertions of 3, 5, 7, … seal {1 2}, {3 4}, {5 6}, …, and the oldest sealed block is at
  // the tail. victim() (engine/ripq/ripq_queue.h) names nothing while the free slots exceed
  // the reserve, then the first object of the tail sealed block that has no virtual block
  // (that delete-min would evict, not materialize).
  //
  // Sections (§4.4): one holding more than 2α = half of the queue splits at a block boundary,
  // its upper half keeping the active blocks. Inserting 5 leaves the head section with {3 4}
  // and 5, 3 of 5 objects: {3 4} goes to a lower section. Inserting 7 leaves it {5 6} and 7,
  // 3 of 7: no split. Inserting 9 leaves it {5 6}, {7 8} and 9, 5 of 9: {5 6} goes below. So
  // an LRU hit (an increase to priority 1, the head section) on 3, 4, 5 or 6 after 9 moves
  // the object to the head section's active virtual block, in memory only.
  //
  //   request  victim()  evicted   why
  //   1 … 7    none      —         free slots 5, 5, 5, 4, 4, 3, 3 before each > 2 reserved
  //   8        1         —         2 free = reserved; 8 joins 7 in the active block: no seal,
  //                                so no delete-min: 1 is the next one's victim, not this one's
  //   9        1         1 2       9 seals {7 8}: 1 free < 2: delete-min reclaims the tail
  //                                {1 2} and evicts both, though only 1 was named
  //   3 (hit)  3         —         3 moves up to a virtual block
  //   10       4         —         3 would be materialized: skipped; no seal
  //   11       4         4         11 seals {9 10}; reclaiming {3 4} copies 3 into the head
  //                                section's active block (with 11) and evicts 4
  //   5 (hit)  5         —         the tail is now {5 6}
  //   6 (hit)  6         —         5 is skipped (moved up)
  //   12       none      7 8       steady state, but both of {5 6} moved up. 12 seals {11 3}
  //                                (1 free); reclaiming {5 6} copies 5 into the active block
  //                                with 12, which seals when 6 does not fit (0 free) and 6
  //                                goes to the next; {5 6}'s slot is freed (1 free), still
  //                                below the reserve: the next tail {7 8} is reclaimed, both
  //                                evicted. A candidate victim() lets in uncompared can evict.
  //   13       9         —         the tail is {9 10}; 13 joins 6
  //   14       9         9 10      14 seals {6 13}
  // The cache asks its admission policy exactly when victim() names an object (here one that
  // admits everything and records the calls): for 8, 9, 10, 11, 13 and 14.
  struct Step {
    uint64_t key;
    bool hit;
    uint64_t victim;  // 0: none
    Keys evicted;
  };
  const std::vector<Step> steps = {
      {1, false, 0, {}},      {2, false, 0, {}}, {3, false, 0, {}},      {4, false, 0, {}},
      {5, false, 0, {}},      {6, false, 0, {}}, {7, false, 0, {}},      {8, false, 1, {}},
      {9, false, 1, {1, 2}},  {3, true, 3, {}},  {10, false, 4, {}},     {11, false, 4, {4}},
      {5, true, 5, {}},       {6, true, 6, {}},  {12, false, 0, {7, 8}}, {13, false, 9, {}},
      {14, false, 9, {9, 10}}};
  Keys evicted;
  std::vector<Decision> decisions;
  const FrameworkConfig framework = ripq_config(2, 4, 2);
  NullDevice device;
  using P = EvictionRecording<LruPolicy>;
  using A = DecisionRecording<NoAdmission>;
  Cache<P, RipqQueue<PriorityKind::kRelative>, A> cache(
      cache_config(10, true), framework, P(LruPolicy(policy_config("lru")), &evicted), device,
      A(NoAdmission(AdmissionConfig{}, 0), &decisions));
  std::vector<std::pair<uint64_t, uint64_t>> asked;  // (candidate, victim) of every admit()
  for (const Step& s : steps) {
    INFO("request " << s.key);
    const uint64_t free_slots = cache.queue().free_slots();
    CHECK(victim_key(cache) == s.victim);
    if (s.key <= 7 && !s.hit)
      CHECK(free_slots > framework.params.get<uint32_t>(kReservedBlocksKey));
    evicted.clear();
    CHECK(cache.access(get(s.key)) == s.hit);
    CHECK(evicted == s.evicted);
    for (const Decision& d : decisions) asked.push_back({d.candidate, d.victim});
    decisions.clear();
    if (s.key == 11) CHECK(cache.queue().counters().reinsertions == 1);  // 3
    if (s.key == 12) {
      CHECK(free_slots ==
            framework.params.get<uint32_t>(kReservedBlocksKey));  // at steady state, yet no victim
      CHECK(cache.queue().counters().reinsertions == 3);          // 3, 5, 6
    }
  }
  CHECK(asked == std::vector<std::pair<uint64_t, uint64_t>>{
                     {8, 1}, {9, 1}, {10, 4}, {11, 4}, {13, 9}, {14, 9}});
  for (uint64_t k : {3, 5, 6, 11, 12, 13, 14}) CHECK(cache.contains(k));
  CHECK(cache.object_count() == 7);
  CHECK(cache.queue().check_invariants() == "");
}

TEST_CASE("TinyLFU on RIPQ by hand: the tail block's first object decides, the block goes",
          "[admission][ripq]") {
  // The geometry of the previous test with FIFO (a hit moves nothing, so victim() is always
  // the first object of the oldest sealed block) and TinyLFU, its sketch sized for 1024
  // objects (the estimates below show the 9 keys do not collide).
  const FrameworkConfig framework = ripq_config(2, 4, 2);
  NullDevice device;
  Keys evicted;
  using P = EvictionRecording<FifoPolicy>;
  Cache<P, RipqQueue<PriorityKind::kRelative>, TinyLfuAdmission> cache(
      cache_config(10, true), framework, P(FifoPolicy(policy_config("fifo")), &evicted), device,
      TinyLfuAdmission(tinylfu(), 1024));
  auto est = [&](uint64_t k) { return cache.admission().estimate(k); };
  // 1 … 7 enter uncompared (free slots above the reserve): {1 2} {3 4} {5 6} sealed, 7 active.
  for (uint64_t k = 1; k <= 7; ++k) CHECK_FALSE(cache.access(get(k)));
  CHECK(cache.admission_rejections() == 0);
  CHECK(cache.access(get(1)));        // est 1: 2
  CHECK_FALSE(cache.access(get(8)));  // 8 (1) vs victim 1 (2): rejected
  CHECK_FALSE(cache.access(get(8)));  // 8 (2) vs 1 (2): rejected, a tie keeps the victim
  CHECK(cache.admission_rejections() == 2);
  CHECK_FALSE(cache.contains(8));
  CHECK_FALSE(cache.access(get(8)));  // 8 (3) vs 1 (2): admitted, joins 7: no seal
  CHECK(cache.contains(8));
  CHECK(evicted.empty());             // 1 stays: it is the next delete-min's victim
  CHECK_FALSE(cache.access(get(9)));  // 9 (1) vs 1 (2): rejected
  CHECK_FALSE(cache.access(get(9)));  // 9 (2) vs 1 (2): rejected
  CHECK(evicted.empty());
  CHECK_FALSE(cache.access(get(9)));  // 9 (3) vs 1 (2): admitted, seals {7 8}: {1 2} reclaimed
  CHECK(evicted == Keys{1, 2});       // 2 (estimate 1) goes with 1, never compared
  CHECK(cache.admission_rejections() == 4);
  CHECK(est(1) == 2);
  CHECK(est(2) == 1);
  CHECK(est(8) == 3);
  CHECK(est(9) == 3);
  for (uint64_t k = 3; k <= 9; ++k) CHECK(cache.contains(k));
}

// What every admission decision the cache takes on RIPQ and SIPQ is compared against, replayed
// on a real trace with TinyLFU. Per request: the object victim() names before it, the admit()
// calls, the objects delete-min evicted (with their device offsets on RIPQ) and the blocks
// written. What the file comments of engine/ripq/ripq_queue.h and engine/sipq/sipq_queue.h
// imply, checked:
//   * a request asks admit() at most once, with its key and the object victim() named;
//   * a rejected candidate is not cached, and nothing is evicted or written;
//   * RIPQ, admitted: delete-min runs only after a block is sealed (written), and the free
//     slots then equal the reserve (victim() names nothing above it, and every insertion that
//     seals reclaims back up to it), so the sealing insertion reclaims the tail sealed block
//     victim() looked at: the named object is evicted, with the rest of the block's objects
//     that have no virtual block (and, with materialize_threshold > 0, those with one below
//     the threshold, which victim() skips though they go too). One exception: when the
//     object is inserted into the lowest section and that section holds no sealed block (only
//     its active buffer, below every sealed block: GDSF inserts low), the block it seals
//     becomes the tail and is reclaimed at once; the insertion then evicts only objects of
//     blocks it wrote, not the victim. An insertion that seals nothing evicts nothing: its
//     victim is a later sealing insertion's.
//   * SIPQ, admitted: the insertion must reclaim the tail block (victim() names nothing when
//     the object fits the write buffer or the next slot is free) and evicts every object
//     outside the VC there: the named one always.
//   * No comparison (victim() named nothing): RIPQ with free slots above the reserve, SIPQ
//     when the object fits the buffer or the next slot is unsealed: nothing is evicted.
//     Otherwise — RIPQ at steady state with every object of the tail block moved up, SIPQ with
//     every object of the tail block in the VC — the candidate enters uncompared and its
//     insertion may still evict: RIPQ's materializations can seal blocks and reclaim the next
//     tail; SIPQ's VC drops (which victim() ignores) and reinsertions that overflow the buffer
//     can evict. Counted, not forbidden.
struct AdmissionLockstep {
  uint64_t decisions = 0, rejected = 0;
  uint64_t evicting = 0;             // admitted, and the victim was evicted by this insertion
  uint64_t own_block = 0;            // admitted; RIPQ reclaimed only blocks this insertion wrote
  uint64_t deferred = 0;             // admitted, nothing evicted (RIPQ: no block sealed)
  uint64_t uncompared = 0;           // inserted uncompared at steady state (see above)
  uint64_t uncompared_evicting = 0;  // … whose insertion evicted
  uint64_t bad = 0;
};

template <class CacheT>
AdmissionLockstep admission_lockstep(CacheT& cache, RecordingDevice& device,
                                     const std::vector<Request>& trace,
                                     const FrameworkConfig& framework, Keys& evicted,
                                     std::vector<uint64_t>& offsets,
                                     std::vector<Decision>& decisions) {
  constexpr bool kRipq = requires {
    cache.queue().free_slots();
  };
  AdmissionLockstep n;
  for (const Request& r : trace) {
    const uint32_t size = r.size_bytes;
    const bool inserting =
        r.op != Op::kDelete && !cache.contains(r.key) && cache.queue().admits(size);
    const uint64_t victim = victim_key(cache, size);
    bool quiet;  // victim() names nothing and nothing may be evicted (see above)
    if constexpr (kRipq) {
      quiet = cache.queue().free_slots() > framework.params.get<uint32_t>(kReservedBlocksKey);
    } else {
      const auto& q = cache.queue();
      quiet = q.buffer_fill_bytes() + size <= q.block_bytes() || q.sealed_blocks() + 1 < q.slots();
    }
    evicted.clear();
    offsets.clear();
    decisions.clear();
    device.log.clear();
    cache.access(r);
    // Whether every evicted object's data lay in a block this request wrote.
    auto in_written_blocks = [&] {
      for (const uint64_t o : offsets) {
        bool found = false;
        for (const RecordingDevice::Io& io : device.log) {
          found |= io.op == 'w' && io.offset <= o && o < io.offset + io.len;
        }
        if (!found) return false;
      }
      return !offsets.empty();
    };
    const bool wrote = std::any_of(device.log.begin(), device.log.end(),
                                   [](const RecordingDevice::Io& io) { return io.op == 'w'; });
    const bool victim_evicted = std::find(evicted.begin(), evicted.end(), victim) != evicted.end();
    if (!inserting) {
      n.bad += !decisions.empty() || !evicted.empty();
      continue;
    }
    if (decisions.empty()) {
      n.bad += victim != 0 || !cache.contains(r.key);
      if (quiet) {
        n.bad += !evicted.empty();
      } else {
        ++n.uncompared;
        n.uncompared_evicting += !evicted.empty();
      }
      continue;
    }
    ++n.decisions;
    const Decision& d = decisions.front();
    n.bad += decisions.size() != 1 || d.candidate != r.key || d.victim != victim || victim == 0;
    if (!d.admitted) {
      ++n.rejected;
      n.bad += cache.contains(r.key) || !evicted.empty() || wrote;
      continue;
    }
    n.bad += !cache.contains(r.key);
    if (victim_evicted) {
      ++n.evicting;
      if constexpr (kRipq) n.bad += !wrote;
    } else if (evicted.empty()) {
      ++n.deferred;
      if constexpr (kRipq) n.bad += wrote;
      if constexpr (!kRipq) ++n.bad;
    } else {
      ++n.own_block;
      if constexpr (kRipq) n.bad += !in_written_blocks();
      if constexpr (!kRipq) ++n.bad;
    }
  }
  return n;
}

TEST_CASE("TinyLFU on RIPQ and SIPQ compares each candidate with an object delete-min evicts",
          "[admission][ripq][frameworks]") {
  struct Trace {
    std::string name;
    const std::vector<Request>* requests;
  };
  std::vector<Trace> traces = {{"adaptsize", &adaptsize()}};
#ifdef FLASHPQ_SHARED_TRACES
  traces.push_back(
      {"w106[:200k]",
       &load_trace(FLASHPQ_SHARED_TRACES "/converted/w106.oracleGeneral.zst", 200'000)});
#endif
  for (const Trace& t : traces) {
    // 5 % of the working set, B = C/128: 128 device blocks; objects above B are not admitted.
    const uint64_t capacity = working_set(*t.requests, false) / 20;
    const uint64_t block = capacity / 128;
    const uint64_t mean_size = working_set(*t.requests, false) / working_set(*t.requests, true);
    for (const FrameworkConfig& framework :
         {ripq_config(block, 8, 10), ripq_config(block, 8, 10, 0.3), sipq_config(block, 0.5),
          sipq_config(block, 0.9)}) {
      for (const char* policy : {"lru", "gdsf"}) {
        INFO(t.name << " " << framework.name << " threshold "
                    << framework.params.get<double>(kMaterializeThresholdKey) << " occupancy "
                    << framework.params.get<double>(kOccupancyKey) << " " << policy);
        Keys evicted;
        std::vector<uint64_t> offsets;
        std::vector<Decision> decisions;
        RecordingDevice device;
        AdmissionLockstep n;
        with_policy(policy_config(policy), [&](auto p) {
          using P = EvictionRecording<decltype(p)>;
          using A = DecisionRecording<TinyLfuAdmission>;
          with_framework_among(TypeList<RipqFramework, SipqFramework>{}, framework,
                               cache_config(capacity), P(std::move(p), &evicted, &offsets), device,
                               A(TinyLfuAdmission(tinylfu(), capacity / mean_size), &decisions),
                               [&](auto& cache) {
                                 n = admission_lockstep(cache, device, *t.requests, framework,
                                                        evicted, offsets, decisions);
                               });
        });
        UNSCOPED_INFO(t.name << " " << framework.name << " θ "
                             << framework.params.get<double>(kOccupancyKey) << " threshold "
                             << framework.params.get<double>(kMaterializeThresholdKey) << " "
                             << policy << ": decisions " << n.decisions << " rejected "
                             << n.rejected << " evicting " << n.evicting << " own block "
                             << n.own_block << " deferred " << n.deferred << " uncompared "
                             << n.uncompared << " (evicting " << n.uncompared_evicting << ")");
        CHECK(n.bad == 0);
        CHECK(n.rejected > 0);
        CHECK(n.evicting > 0);
        // RIPQ seals a block every few insertions: most admitted candidates are compared with
        // the object a later insertion evicts.
        if (framework.name == "ripq") CHECK(n.deferred > n.evicting);
        if (framework.name == "sipq") CHECK(n.deferred == 0);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// W-TinyLFU.

TEST_CASE("W-TinyLFU region sizes: window 1 %, protected 80 % of main (floors as Caffeine)",
          "[admission]") {
  struct Case {
    uint64_t capacity, window, main, protect;
  };
  const uint64_t tib = uint64_t{1} << 40;
  for (const Case& c :
       std::vector<Case>{{1, 1, 0, 0},
                         {2, 1, 1, 0},
                         {10, 1, 9, 7},     // 0.8 × 9 = 7.2
                         {100, 1, 99, 79},  // 0.8 × 99 = 79.2; probation takes the other 20
                         {1000, 10, 990, 792},
                         {12345, 124, 12221, 9776},  // ceil(123.45); floor(9776.8)
                         {tib, 10995116278, 1088516511498, 870813209198}}) {
    INFO("capacity " << c.capacity);
    WTinyLfuCache w(cache_config(c.capacity, false), TinyLfuAdmission(tinylfu(), 8));
    CHECK(w.window_capacity() == c.window);
    CHECK(w.main_capacity() == c.main);
    CHECK(w.protected_capacity() == c.protect);
  }
}

/// Checks the three regions of `w` (MRU → LRU).
void check_regions(const WTinyLfuCache& w, const Keys& window, const Keys& probation,
                   const Keys& protect) {
  CHECK(w.keys(Region::kWindow) == window);
  CHECK(w.keys(Region::kProbation) == probation);
  CHECK(w.keys(Region::kProtected) == protect);
  CHECK(w.object_count() == window.size() + probation.size() + protect.size());
}

TEST_CASE("W-TinyLFU by hand, 10 unit objects: window 1, main 9, protected 7", "[admission]") {
  WTinyLfuCache w(cache_config(10, true), TinyLfuAdmission(tinylfu(), 1024));
  auto est = [&](uint64_t k) { return w.admission().estimate(k); };
  // 1–10: misses. Each new key enters the window; the previous one leaves it for probation as a
  // candidate, but the cache is not over capacity, so nothing is compared or evicted.
  for (uint64_t k = 1; k <= 10; ++k) CHECK_FALSE(w.access(get(k)));
  check_regions(w, {10}, {9, 8, 7, 6, 5, 4, 3, 2, 1}, {});
  CHECK(w.evictions() == 0);
  // 11: 10 leaves the window; 11 objects > 10: candidate 10 (est 1) vs probation's LRU 1
  // (est 1): a tie keeps the victim, 10 is evicted.
  CHECK_FALSE(w.access(get(11)));
  check_regions(w, {11}, {9, 8, 7, 6, 5, 4, 3, 2, 1}, {});
  CHECK(w.admission_rejections() == 1);
  CHECK(w.evictions() == 1);
  // Probation hits go to protected; a protected hit stays there.
  CHECK(w.access(get(1)));  // est 1: 2
  CHECK(w.access(get(2)));
  CHECK(w.access(get(2)));  // est 2: 3
  check_regions(w, {11}, {9, 8, 7, 6, 5, 4, 3}, {2, 1});
  // 12: candidate 11 (1) vs victim 3 (1): 11 evicted.
  CHECK_FALSE(w.access(get(12)));
  CHECK(w.admission_rejections() == 2);
  CHECK(w.access(get(12)));  // a window hit: est 12 = 2
  CHECK(est(12) == 2);
  // 13: candidate 12 (2) vs victim 3 (1): 3 is evicted, 12 joins probation.
  CHECK_FALSE(w.access(get(13)));
  check_regions(w, {13}, {12, 9, 8, 7, 6, 5, 4}, {2, 1});
  CHECK(w.evictions() == 3);
  CHECK(w.admission_rejections() == 2);
  // 3 again (est 2): candidate 13 (1) vs victim 4 (1): 13 evicted.
  CHECK_FALSE(w.access(get(3)));
  check_regions(w, {3}, {12, 9, 8, 7, 6, 5, 4}, {2, 1});
  // Probation hits 4–8 fill protected to its 7 objects; 9 makes 8 and demotes protected's LRU
  // (1) to probation's MRU end.
  for (uint64_t k : {4, 5, 6, 7, 8}) CHECK(w.access(get(k)));
  check_regions(w, {3}, {12, 9}, {8, 7, 6, 5, 4, 2, 1});
  CHECK(w.access(get(9)));
  check_regions(w, {3}, {1, 12}, {9, 8, 7, 6, 5, 4, 2});
  CHECK(w.region_bytes(Region::kProtected) == 7);
  CHECK(w.used_bytes() == 10);
  CHECK(w.evictions() == 4);
  CHECK(w.admission_rejections() == 3);
  // 14: candidate 3 (2) vs victim 12 (2): tie, 3 evicted.
  CHECK_FALSE(w.access(get(14)));
  check_regions(w, {14}, {1, 12}, {9, 8, 7, 6, 5, 4, 2});
  // 3 (est 3): candidate 14 (1) vs 12 (2): 14 evicted.
  CHECK_FALSE(w.access(get(3)));
  check_regions(w, {3}, {1, 12}, {9, 8, 7, 6, 5, 4, 2});
  // 14 (est 2): candidate 3 (3) vs 12 (2): 12 evicted, 3 admitted to probation.
  CHECK_FALSE(w.access(get(14)));
  check_regions(w, {14}, {3, 1}, {9, 8, 7, 6, 5, 4, 2});
  CHECK(w.evictions() == 7);
  CHECK(w.admission_rejections() == 5);
  CHECK(w.region_of(3) == Region::kProbation);
  CHECK(w.miss_bytes_inserted() == 17);  // 1–13, then 3, 14, 3, 14
}

TEST_CASE("W-TinyLFU by hand, byte sizes: capacity 1000, window 10, protected 792", "[admission]") {
  enum : uint64_t { A = 1, B, C, D, E, F, G, H };
  WTinyLfuCache w(cache_config(1000, false), TinyLfuAdmission(tinylfu(), 1024));
  REQUIRE(w.window_capacity() == 10);
  REQUIRE(w.protected_capacity() == 792);
  CHECK_FALSE(w.access(get(A, 5)));
  CHECK_FALSE(w.access(get(B, 4)));
  check_regions(w, {B, A}, {}, {});  // 9 bytes fit the window
  // C (8): the window holds 17 > 10 bytes; A then B leave it (17 → 12 → 8), the newest at
  // probation's MRU end. The cache holds 17 bytes: no comparison.
  CHECK_FALSE(w.access(get(C, 8)));
  check_regions(w, {C}, {B, A}, {});
  // D (900) is larger than the window: C and then D itself leave it.
  CHECK_FALSE(w.access(get(D, 900)));
  check_regions(w, {}, {D, C, B, A}, {});
  CHECK(w.used_bytes() == 917);
  // E (100): 1017 bytes; candidate E (1) vs victim A (1): E evicted.
  CHECK_FALSE(w.access(get(E, 100)));
  check_regions(w, {}, {D, C, B, A}, {});
  CHECK(w.admission_rejections() == 1);
  // D hit: 900 bytes exceed protected's 792, so D stays in probation (at its MRU end).
  CHECK(w.access(get(D)));
  check_regions(w, {}, {D, C, B, A}, {});
  // A hit: to protected.
  CHECK(w.access(get(A)));
  check_regions(w, {}, {D, C, B}, {A});
  // F (95, est 1): 1012 bytes; candidate F vs victim B (1): F evicted.
  CHECK_FALSE(w.access(get(F, 95)));
  CHECK(w.admission_rejections() == 2);
  // F again (est 2): vs B (1): B evicted, 1008 bytes; vs C (1): C evicted, 1000 bytes: one
  // candidate displaced two victims.
  CHECK_FALSE(w.access(get(F, 95)));
  check_regions(w, {}, {F, D}, {A});
  CHECK(w.used_bytes() == 1000);
  CHECK(w.admission_rejections() == 2);
  CHECK(w.evictions() == 4);  // E, F, B, C
  CHECK(w.access(get(F)));    // to protected (est 3)
  check_regions(w, {}, {D}, {F, A});
  // G (20): est 1 vs D (2): G evicted; est 2 vs 2: a tie, G evicted; est 3 vs 2: D evicted.
  CHECK_FALSE(w.access(get(G, 20)));
  CHECK_FALSE(w.access(get(G, 20)));
  check_regions(w, {}, {D}, {F, A});
  CHECK(w.admission_rejections() == 4);
  CHECK_FALSE(w.access(get(G, 20)));
  check_regions(w, {}, {G}, {F, A});
  CHECK(w.used_bytes() == 120);
  CHECK(w.evictions() == 7);
  // An object above the capacity is never admitted (but is counted by the sketch).
  CHECK_FALSE(w.access(get(H, 1001)));
  CHECK_FALSE(w.contains(H));
  CHECK(w.admission().estimate(H) == 1);
  // Delete and set: a set replaces the cached copy with a fresh one in the window.
  CHECK_FALSE(w.access(del(F)));
  CHECK_FALSE(w.access(set(A, 7)));
  check_regions(w, {A}, {G}, {});
  CHECK(w.used_bytes() == 27);
  CHECK(w.miss_bytes_inserted() == 5 + 4 + 8 + 900 + 100 + 95 + 95 + 3 * 20 + 7);
}

TEST_CASE("W-TinyLFU with one object: every candidate is evicted (Caffeine's simulator)",
          "[admission]") {
  // Capacity 1: window 1, main 0. A new key pushes the window's object to probation, where it
  // is its own victim: it is evicted.
  WTinyLfuCache w(cache_config(1, true), TinyLfuAdmission(tinylfu(), 8));
  CHECK_FALSE(w.access(get(1)));
  CHECK(w.access(get(1)));
  CHECK_FALSE(w.access(get(2)));
  check_regions(w, {2}, {}, {});
  CHECK(w.evictions() == 1);
  CHECK(w.admission_rejections() == 1);
}

// An independent model of Caffeine's simulator WindowTinyLfuPolicy (entry counts, gets only),
// written from its description: std::list regions (front = LRU), a hash map of positions. It
// shares only the estimator (the same TinyLfuAdmission type, fed the same sequence).
class RefWindowTinyLfu {
 public:
  RefWindowTinyLfu(uint64_t maximum, TinyLfuAdmission sketch)
      : sketch_(std::move(sketch)), maximum_(maximum) {
    const uint64_t max_main = maximum * 99 / 100;  // (int)(maximum × 0.99)
    max_protected_ = max_main * 80 / 100;          // (int)(maxMain × 0.80)
    max_window_ = maximum - max_main;
  }

  bool access(uint64_t key) {
    sketch_.record(key);
    auto it = data_.find(key);
    if (it == data_.end()) {
      window_.push_back(key);
      data_[key] = {kW, std::prev(window_.end())};
      if (window_.size() > max_window_) {
        const uint64_t candidate = window_.front();
        window_.pop_front();
        probation_.push_back(candidate);
        data_[candidate] = {kB, std::prev(probation_.end())};
        if (data_.size() > maximum_) {
          const uint64_t victim = probation_.front();
          const uint64_t evict = sketch_.admit(candidate, victim) ? victim : candidate;
          probation_.erase(data_[evict].pos);
          data_.erase(evict);
        }
      }
      return false;
    }
    Node& n = it->second;
    if (n.region == kW) {
      window_.erase(n.pos);
      window_.push_back(key);
      n.pos = std::prev(window_.end());
    } else if (n.region == kB) {
      probation_.erase(n.pos);
      protected_.push_back(key);
      n = {kP, std::prev(protected_.end())};
      if (protected_.size() > max_protected_) {
        const uint64_t demote = protected_.front();
        protected_.pop_front();
        probation_.push_back(demote);
        data_[demote] = {kB, std::prev(probation_.end())};
      }
    } else {
      protected_.erase(n.pos);
      protected_.push_back(key);
      n.pos = std::prev(protected_.end());
    }
    return true;
  }

  /// Keys of a region from MRU to LRU.
  Keys keys(Region r) const {
    const std::list<uint64_t>& l = r == Region::kWindow      ? window_
                                   : r == Region::kProbation ? probation_
                                                             : protected_;
    return Keys(l.rbegin(), l.rend());
  }

 private:
  enum Where { kW, kB, kP };
  struct Node {
    Where region;
    std::list<uint64_t>::iterator pos;
  };
  TinyLfuAdmission sketch_;
  uint64_t maximum_, max_window_ = 0, max_protected_ = 0;
  std::list<uint64_t> window_, probation_, protected_;
  std::unordered_map<uint64_t, Node> data_;
};

void check_against_simulator_model(const std::vector<Request>& trace, uint64_t capacity,
                                   const AdmissionConfig& admission) {
  INFO("capacity " << capacity << " objects, doorkeeper "
                   << admission.params.get<bool>(kDoorkeeperKey));
  WTinyLfuCache w(cache_config(capacity, true), TinyLfuAdmission(admission, capacity));
  RefWindowTinyLfu ref(capacity, TinyLfuAdmission(admission, capacity));
  int64_t first_diff = -1;
  uint64_t hits = 0;
  for (size_t i = 0; i < trace.size(); ++i) {
    REQUIRE(trace[i].op == Op::kGet);
    const bool e = w.access(trace[i]);
    const bool m = ref.access(trace[i].key);
    hits += e;
    if (e != m && first_diff < 0) first_diff = static_cast<int64_t>(i);
  }
  CHECK(first_diff == -1);
  CHECK(hits > 0);
  CHECK(w.admission_rejections() > 0);
  for (Region r : {Region::kWindow, Region::kProbation, Region::kProtected}) {
    CHECK(w.keys(r) == ref.keys(r));
  }
}

TEST_CASE("W-TinyLFU agrees with a model of Caffeine's simulator in unit-size mode",
          "[admission]") {
  for (const auto& [name, trace] : sketch_traces()) {
    INFO(name);
    const uint64_t wss = working_set(*trace, true);
    for (double fraction : {0.01, 0.1}) {
      const auto capacity = static_cast<uint64_t>(fraction * static_cast<double>(wss));
      check_against_simulator_model(*trace, capacity, tinylfu(false));
      check_against_simulator_model(*trace, capacity, tinylfu(true));
    }
  }
  // A random skewed sequence on a small cache (many resets, many demotions).
  std::mt19937_64 rng(3);
  std::vector<Request> requests;
  for (int i = 0; i < 50'000; ++i) {
    const uint64_t r = rng() % 1000;
    requests.push_back(get(r * r / 1000));  // keys 0–998, low keys far more frequent
  }
  for (uint64_t capacity : {1, 2, 7, 50, 150}) {
    check_against_simulator_model(requests, capacity, tinylfu(false));
  }
}

TEST_CASE("W-TinyLFU invariants on random sequences (sets, deletes, size changes, oversize)",
          "[admission]") {
  uint64_t seed = 11;
  for (bool unit_size : {false, true}) {
    for (SizeChange mode : {SizeChange::kKeep, SizeChange::kUpdate}) {
      for (bool doorkeeper : {false, true}) {
        std::mt19937_64 rng(seed++);
        const uint64_t capacity = unit_size ? 60 : 3000;
        WTinyLfuCache w(cache_config(capacity, unit_size, mode),
                        TinyLfuAdmission(tinylfu(doorkeeper), 30));
        INFO("unit " << unit_size << " update " << (mode == SizeChange::kUpdate) << " doorkeeper "
                     << doorkeeper);
        size_t bad = 0;
        uint64_t hits = 0;
        for (int i = 0; i < 30'000; ++i) {
          const uint64_t key = (rng() % 200) * (rng() % 3 == 0 ? 1 : rng() % 2);
          uint32_t size = static_cast<uint32_t>(1 + (key * 13 + (rng() % 10 == 0)) % 250);
          if (rng() % 60 == 0) size = 3001;
          const uint64_t op = rng() % 20;
          const Request r = op < 16 ? get(key, size) : op < 18 ? set(key, size) : del(key);
          const bool hit = w.access(r);
          hits += hit;
          if (r.op == Op::kDelete) bad += w.contains(key);
          if (hit) bad += !w.contains(key);
          if (!unit_size && size > capacity && r.op != Op::kDelete && !hit) {
            bad += w.contains(key);
          }
          const uint64_t sum = w.region_bytes(Region::kWindow) +
                               w.region_bytes(Region::kProbation) +
                               w.region_bytes(Region::kProtected);
          bad += sum != w.used_bytes();
          bad += w.used_bytes() > capacity;
          bad += w.region_bytes(Region::kWindow) > w.window_capacity();
          bad += w.region_bytes(Region::kProtected) > w.protected_capacity();
          // Every byte inserted is cached, evicted or superseded (the balance results rows
          // report for every framework: engine/queue.h); in unit-size mode an object is a byte.
          bad +=
              w.miss_bytes_inserted() != w.used_bytes() + w.evicted_bytes() + w.superseded_bytes();
          if (unit_size) bad += w.evicted_bytes() != w.evictions();
        }
        CHECK(bad == 0);
        CHECK(hits > 0);
        size_t listed = 0;
        uint64_t bytes = 0;
        for (Region r : {Region::kWindow, Region::kProbation, Region::kProtected}) {
          for (uint64_t k : w.keys(r)) {
            ++listed;
            CHECK(w.region_of(k) == r);
            bytes += w.table()[w.table().find(k)].size_bytes;
          }
        }
        CHECK(listed == w.object_count());
        CHECK(bytes == w.used_bytes());
      }
    }
  }
}

#ifdef FLASHPQ_SHARED_TRACES
struct HitRatios {
  uint64_t capacity = 0;
  double lru = 0, lru_tinylfu = 0, wtinylfu = 0;
};

/// LRU, LRU + TinyLFU and W-TinyLFU on `trace` at `fraction` of its working set (unit sizes).
HitRatios w106_hit_ratios(const std::vector<Request>& trace, double fraction) {
  HitRatios h;
  h.capacity = static_cast<uint64_t>(fraction * static_cast<double>(working_set(trace, true)));
  const auto ratio = [&](uint64_t hits) {
    return static_cast<double>(hits) / static_cast<double>(trace.size());
  };
  const CacheConfig config = cache_config(h.capacity, true);
  with_admitted_cache(policy_config("lru"), config, AdmissionConfig{}, h.capacity,
                      [&](auto& cache) { h.lru = ratio(replay(cache, trace)); });
  with_admitted_cache(policy_config("lru"), config, tinylfu(), h.capacity,
                      [&](auto& cache) { h.lru_tinylfu = ratio(replay(cache, trace)); });
  with_wtinylfu_cache(config, tinylfu(), h.capacity,
                      [&](auto& cache) { h.wtinylfu = ratio(replay(cache, trace)); });
  UNSCOPED_INFO("capacity " << h.capacity << " objects (" << fraction
                            << " of the working set); hit ratios: LRU " << h.lru << ", LRU+TinyLFU "
                            << h.lru_tinylfu << ", W-TinyLFU " << h.wtinylfu);
  return h;
}

TEST_CASE("W-TinyLFU against LRU on the first 200k requests of w106", "[admission]") {
  const auto& trace =
      load_trace(FLASHPQ_SHARED_TRACES "/converted/w106.oracleGeneral.zst", 200'000);
  REQUIRE(trace.size() == 200'000);
  // Measured: LRU 0.7735, W-TinyLFU 0.8040.
  const HitRatios at5 = w106_hit_ratios(trace, 0.05);
  CHECK(at5.wtinylfu > at5.lru + 0.02);
  // At 10 % of this prefix's working set (2,447 objects) the static 1 % window does not beat
  // LRU: measured LRU 0.8239, W-TinyLFU 0.8214. Not a sketch artefact: the same W-TinyLFU with
  // exact counts (same cap 15 and halving) gives 0.8235. The prefix is recency-heavy and the
  // cache is cold for much of it; on the whole trace W-TinyLFU wins (next test).
  const HitRatios at10 = w106_hit_ratios(trace, 0.10);
  CHECK(at10.wtinylfu > at10.lru - 0.005);
  CHECK(at10.lru_tinylfu > 0);
}

TEST_CASE("W-TinyLFU beats LRU on the whole of w106 at 10 % of its working set",
          "[admission][slow]") {
  const auto& trace =
      load_trace(FLASHPQ_SHARED_TRACES "/converted/w106.oracleGeneral.zst", SIZE_MAX);
  REQUIRE(trace.size() == 5'292'456);
  // Measured: LRU 0.9177, W-TinyLFU 0.9261 (27,517 objects).
  const HitRatios h = w106_hit_ratios(trace, 0.10);
  CHECK(h.wtinylfu >= h.lru);
}
#endif

TEST_CASE("TinyLFU memory is bounded by the object count, not by bytes", "[admission]") {
  const uint64_t tib = uint64_t{1} << 40;
  // The sizing rule, without allocating: 1 TiB of 4 KiB objects → 2^28 objects → 2 GiB of
  // sketch (8 bytes per object), the same for any byte capacity holding that many objects.
  CHECK(TinyLfuAdmission::memory_bytes_for(tinylfu(), tib / 4096) == (size_t{2} << 30));
  CHECK(TinyLfuAdmission::memory_bytes_for(tinylfu(), tib / 4096) == 8 * (tib / 4096));
  // Allocated: two byte capacities, the same expected object count (2^18), the same sketch.
  const uint64_t objects = uint64_t{1} << 18;
  size_t small = 0, large = 0, admitted = 0;
  with_wtinylfu_cache(cache_config(tib, false), tinylfu(), objects,
                      [&](auto& w) { small = w.admission().memory_bytes(); });
  with_wtinylfu_cache(cache_config(4 * tib, false), tinylfu(), objects,
                      [&](auto& w) { large = w.admission().memory_bytes(); });
  with_admitted_cache(policy_config("lru"), cache_config(16 * tib, false), tinylfu(), objects,
                      [&](auto& c) { admitted = c.admission().memory_bytes(); });
  CHECK(small == 8 * objects);
  CHECK(large == small);
  CHECK(admitted == small);
  // And the doorkeeper scales with objects as well.
  CHECK(TinyLfuAdmission::memory_bytes_for(tinylfu(true), objects) ==
        8 * objects + Doorkeeper::bits_for(3 * objects, 0.01) / 8);
}

}  // namespace
}  // namespace flashpq::test_tinylfu
