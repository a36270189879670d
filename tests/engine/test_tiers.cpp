// Tests of engine/tiers.h: hand-computed sequences of the hierarchy's counters, and the fuzzy
// correctness test (as the NHC demo's fuzzy mode checks Open CAS's modes): random gets, sets
// and deletes of version-stamped values through every cache mode and flash admission, every get
// returning the latest set.
#include <array>
#include <catch2/catch.hpp>
#include <list>
#include <map>
#include <string>
#include <unordered_map>

#include "devices/block/block_device.h"
#include "devices/null_device.h"
#include "devices/simflash/simflash_device.h"
#include "engine/exact/exact_framework.h"
#include "engine/framework.h"
#include "engine/tiers.h"
#include "policies/registry.h"
#include "sim/rng.h"
#include "tests/block_test_util.h"
#include "tests/engine/tiers_test_util.h"
#include "tests/requests.h"
#include "tests/test_util.h"

namespace flashpq::test_tiers {
namespace {

using testing::exact_config;
using testing::load_trace;
using testing::ripq_config;
using testing::sipq_config;

using testing::del;
using testing::get;
using testing::set;

TiersConfig tiers(CacheMode mode, FlashAdmission admission = FlashAdmission::kAll) {
  TiersConfig t;
  t.mode = mode;
  t.flash_admission = admission;
  t.nhit_table_slots = 1024;
  return t;
}

CacheConfig capacity(uint64_t c, bool unit_size) {
  CacheConfig cc;
  cc.capacity_bytes = c;
  cc.unit_size = unit_size;
  return cc;
}

// An exact LRU cache, built by type: with_policy() and with_framework() would instantiate the
// caller's code for every registered policy and framework (a hierarchy of two such caches:
// 144 types), which made this file the longest to compile.
using ExactLru = Cache<LruPolicy, ExactFramework::Queue<LruPolicy>, NoAdmission>;

template <class Fn>
void with_exact_lru(const CacheConfig& cc, Device& device, Fn&& fn) {
  ExactLru c(cc, exact_config(), LruPolicy(PolicyConfig{"lru", {}}), device,
             NoAdmission(AdmissionConfig{}, 0));
  fn(c);
}

// Calls fn(dram, flash): exact LRU caches of `dram_objects` and `flash_objects` unit-size
// objects.
template <class Fn>
void with_lru_tiers(uint64_t dram_objects, uint64_t flash_objects, Fn&& fn) {
  NullDevice none;
  with_exact_lru(capacity(dram_objects, true), none, [&](ExactLru& dram) {
    with_exact_lru(capacity(flash_objects, true), none, [&](ExactLru& flash) { fn(dram, flash); });
  });
}

TEST_CASE("tiers: a hand-computed sequence through DRAM (2 objects) and flash (3), write-through",
          "[tiers]") {
  with_lru_tiers(2, 3, [](auto& dram, auto& flash) {
    TieredCache t(tiers(CacheMode::kWriteThrough), dram, flash);
    std::string hits;
    for (uint64_t k : {1, 2, 3, 1, 4, 2, 4, 5, 6}) hits += t.access(get(k)) ? 'H' : '.';
    // 1, 2: misses into DRAM. 3: DRAM evicts 1 → flash {1}. 1: flash hit, promoted; DRAM
    // evicts 2 → flash {1, 2}. 4: DRAM evicts 3 → flash {1, 2, 3}. 2: flash hit, promoted;
    // DRAM evicts 1, which flash holds: nothing written. 4: DRAM hit. 5: DRAM evicts 2 (in
    // flash). 6: DRAM evicts 4 → flash evicts its LRU, 1 → flash {3, 2, 4}.
    CHECK(hits == "...H.HH..");
    const TierCounters& c = t.tier_counters();
    CHECK(c.dram_hits == 1);
    CHECK(c.flash_hits == 2);
    CHECK(c.promotions == 2);
    CHECK(c.backing_reads == 6);
    CHECK(c.flash_admission_accepts == 4);
    CHECK(c.flash_admission_rejects == 0);
    CHECK(c.backing_writes == 0);
    CHECK(flash.contains(3));
    CHECK(flash.contains(2));
    CHECK(flash.contains(4));
    CHECK_FALSE(flash.contains(1));
    CHECK(dram.contains(5));
    CHECK(dram.contains(6));
    // A set writes the backing store and DRAM, and drops the stale flash copy.
    t.access(set(3));
    CHECK(c.backing_writes == 1);
    CHECK_FALSE(flash.contains(3));
    CHECK(dram.contains(3));
  });
}

TEST_CASE("tiers: write-back flushes a dirty object when it leaves the last tier", "[tiers]") {
  with_lru_tiers(1, 2, [](auto& dram, auto& flash) {
    TieredCache t(tiers(CacheMode::kWriteBack), dram, flash);
    const TierCounters& c = t.tier_counters();
    t.access(set(7, 1));
    CHECK(c.backing_writes == 0);
    CHECK(t.dirty_objects() == 1);
    t.access(get(8));  // DRAM evicts 7 → flash {7}, still dirty
    CHECK(flash.contains(7));
    CHECK(c.backing_writes == 0);
    t.access(get(9));   // DRAM evicts 8 → flash {7, 8}
    t.access(get(10));  // DRAM evicts 9 → flash evicts 7: flushed
    CHECK_FALSE(flash.contains(7));
    CHECK(c.backing_writes == 1);
    CHECK(c.dirty_bytes_flushed == 1);
    CHECK(t.dirty_objects() == 0);
    // A dirty object deleted is dropped, never written.
    t.access(set(11));
    t.access(del(11));
    for (uint64_t k = 20; k < 30; ++k) t.access(get(k));
    CHECK(c.backing_writes == 1);
  });
}

TEST_CASE("tiers: the cleaner flushes objects dirty past the staleness threshold", "[tiers]") {
  with_lru_tiers(4, 4, [](auto& dram, auto& flash) {
    TiersConfig cfg = tiers(CacheMode::kWriteBack);
    cfg.cleaner_staleness_requests = 3;
    cfg.cleaner_interval_requests = 2;
    TieredCache t(cfg, dram, flash);
    const TierCounters& c = t.tier_counters();
    t.access(set(1));  // request 1: dirty since 1
    t.access(set(2));  // request 2: the cleaner wakes (nothing 3 old yet); 2 dirty since 2
    t.access(get(1));  // request 3
    CHECK(c.cleaner_bytes_flushed == 0);
    t.access(get(2));  // request 4: the cleaner wakes: 1 is 3 requests old, 2 is 2
    CHECK(c.cleaner_bytes_flushed == 1);
    CHECK(t.dirty_objects() == 1);
    t.access(set(2));  // request 5: 2 written again, dirty since 5
    t.access(get(2));  // request 6: the cleaner wakes: 2 is 1 old; its old entry is skipped
    CHECK(c.cleaner_bytes_flushed == 1);
    t.access(get(9));  // 7
    t.access(get(9));  // 8: the cleaner wakes: 2 is 3 old
    CHECK(c.cleaner_bytes_flushed == 2);
    CHECK(t.dirty_objects() == 0);
    CHECK(c.backing_writes == 2);
  });
}

TEST_CASE("tiers: without a DRAM tier, misses and sets go to flash, hand-computed", "[tiers]") {
  with_lru_tiers(1, 2, [](auto& dram, auto& flash) {
    TiersConfig cfg = tiers(CacheMode::kWriteBack);
    cfg.dram = false;
    TieredCache t(cfg, dram, flash);
    CHECK_FALSE(t.access(get(1)));  // miss: read from the backing store, into flash
    CHECK(flash.contains(1));
    CHECK(t.access(get(1)));  // flash hit, nothing promoted
    CHECK(dram.object_count() == 0);
    t.access(set(2));  // write-back: into flash, dirty
    CHECK(t.dirty_objects() == 1);
    t.access(set(3));  // evicts 1 (clean, LRU): nothing flushed
    CHECK(t.tier_counters().backing_writes == 0);
    t.access(get(3));  // 3 is MRU
    t.access(set(4));  // evicts 2, dirty: flushed
    const TierCounters& c = t.tier_counters();
    CHECK(c.flash_hits == 2);
    CHECK(c.dram_hits == 0);
    CHECK(c.promotions == 0);
    CHECK(c.backing_reads == 1);
    CHECK(c.backing_writes == 1);
    CHECK(c.dirty_bytes_flushed == 1);
    CHECK(c.flash_admission_accepts == 1);  // the miss; sets are not offered
  });
}

TEST_CASE("tiers: nhc offloads flash hits by load_admit and admits misses by data_admit",
          "[tiers]") {
  with_lru_tiers(1, 4, [](auto& dram, auto& flash) {
    TiersConfig cfg = tiers(CacheMode::kNhcWriteBack);
    cfg.dram = false;
    TieredCache t(cfg, dram, flash);
    t.access(get(1));         // miss, inserted (data_admit on by default)
    t.access(set(2));         // dirty in flash
    t.set_nhc(false, 0);      // every clean flash hit goes to the backing store; misses stay out
    CHECK(t.access(get(1)));  // a hit, offloaded
    CHECK(t.access(get(2)));  // dirty: only flash has it, served by flash
    CHECK_FALSE(t.access(get(3)));  // miss, not inserted
    CHECK_FALSE(flash.contains(3));
    TierCounters c = t.tier_counters();
    CHECK(c.flash_hits == 2);
    CHECK(c.offloaded_reads == 1);
    CHECK(c.backing_reads == 3);  // the two misses and the offloaded read
    CHECK(t.read_misses() == 2);
    CHECK(t.reads() == 4);
    t.set_nhc(true, 0.5);  // half the clean hits offloaded, drawn from the cell's stream
    for (int i = 0; i < 10000; ++i) t.access(get(1));
    c = t.tier_counters();
    CHECK(c.offloaded_reads - 1 == Approx(5000).margin(300));  // 4 σ = 200
    t.access(get(3));                                          // data_admit on: inserted
    CHECK(flash.contains(3));
  });
}

TEST_CASE("tiers: flash admission all, random p and nhit", "[tiers]") {
  auto accepted = [](FlashAdmission a, double p, uint32_t nhit) {
    uint64_t accepts = 0, rejects = 0;
    with_lru_tiers(1, 1 << 20, [&](auto& dram, auto& flash) {
      TiersConfig cfg = tiers(CacheMode::kWriteThrough, a);
      cfg.admit_probability = p;
      cfg.nhit = nhit;
      TieredCache t(cfg, dram, flash);
      // Keys 0..9999 once each, then keys 0..4999 again: each request evicts the one before.
      for (uint64_t k = 0; k < 10000; ++k) t.access(get(k));
      for (uint64_t k = 0; k < 5000; ++k) t.access(get(100000 + k));
      accepts = t.tier_counters().flash_admission_accepts;
      rejects = t.tier_counters().flash_admission_rejects;
    });
    return std::pair{accepts, rejects};
  };
  CHECK(accepted(FlashAdmission::kAll, 0, 0) == std::pair<uint64_t, uint64_t>{14999, 0});
  // random: Binomial(14999, 0.25): mean 3749.75, sd 53.
  const auto [a, r] = accepted(FlashAdmission::kRandom, 0.25, 0);
  CHECK(a + r == 14999);
  CHECK(a > 3749.75 - 4 * 53);
  CHECK(a < 3749.75 + 4 * 53);
  // nhit 1 admits every key; nhit 2 none of these once-requested keys.
  CHECK(accepted(FlashAdmission::kNHit, 0, 1).first == 14999);
  CHECK(accepted(FlashAdmission::kNHit, 0, 2).first == 0);
}

TEST_CASE("tiers: nhit admits a key from its n-th request on", "[tiers]") {
  with_lru_tiers(1, 16, [](auto& dram, auto& flash) {
    TiersConfig cfg = tiers(CacheMode::kWriteThrough, FlashAdmission::kNHit);
    cfg.nhit = 3;
    TieredCache t(cfg, dram, flash);
    t.access(get(5));
    t.access(get(6));  // 5 evicted after 1 request: rejected
    CHECK_FALSE(flash.contains(5));
    t.access(get(5));
    t.access(get(6));  // 5 evicted after 2 requests: rejected
    CHECK_FALSE(flash.contains(5));
    t.access(get(5));
    t.access(get(6));  // 5 evicted after 3: admitted
    CHECK(flash.contains(5));
  });
}

TEST_CASE(
    "tiers: tinylfu admits a DRAM victim more frequent than flash's next victim, hand-computed",
    "[tiers]") {
  with_lru_tiers(1, 2, [](auto& dram, auto& flash) {
    TiersConfig cfg = tiers(CacheMode::kWriteThrough, FlashAdmission::kTinyLfu);
    cfg.flash_expected_objects = 2;  // 8 sketch words, a reset after 20 additions: none here
    TieredCache t(cfg, dram, flash);
    const TierCounters& c = t.tier_counters();
    for (int i = 0; i < 3; ++i) t.access(get(1));  // f(1) = 3
    t.access(get(2));  // DRAM evicts 1: flash is empty, nothing to evict → admitted
    t.access(get(3));  // DRAM evicts 2: flash has room → admitted; flash {1, 2}, 1 its LRU
    CHECK(c.flash_admission_accepts == 2);
    t.access(get(4));  // DRAM evicts 3: f(3) = 1 against the victim 1, f(1) = 3 → rejected
    CHECK(c.flash_admission_rejects == 1);
    CHECK_FALSE(flash.contains(3));
    for (int i = 0; i < 3; ++i) t.access(get(4));  // DRAM hits: f(4) = 4
    t.access(get(5));  // DRAM evicts 4: f(4) = 4 > f(1) = 3 → admitted, flash evicts 1
    CHECK(c.flash_admission_accepts == 3);
    CHECK(flash.contains(4));
    CHECK(flash.contains(2));
    CHECK_FALSE(flash.contains(1));
    t.access(get(6));  // DRAM evicts 5: f(5) = 1 = f(2), the victim: a tie rejects
    CHECK(c.flash_admission_rejects == 2);
    CHECK_FALSE(flash.contains(5));
  });
}

TEST_CASE("tiers: rate_limited steers the flash write rate to its target", "[tiers]") {
  // 4 KiB objects, each requested once, 1 ms apart: every request evicts the one before from
  // a one-object DRAM, so 4 KiB/ms (3.906 MiB/s) is offered to flash; the target is 1 MiB/s.
  NullDevice none;
  with_exact_lru(capacity(4096, false), none, [&](ExactLru& dram) {
    with_exact_lru(capacity(uint64_t{1} << 31, false), none, [&](ExactLru& flash) {
      TiersConfig cfg = tiers(CacheMode::kWriteThrough, FlashAdmission::kRateLimited);
      cfg.write_rate.target_rate_bytes_s = 1024 * 1024;
      cfg.write_rate.update_interval_ns = 1'000'000'000;
      TieredCache t(cfg, dram, flash);
      uint64_t bytes_at_100_s = 0;
      constexpr uint64_t kRequests = 300'000;
      for (uint64_t i = 0; i < kRequests; ++i) {
        if (i == 100'000) bytes_at_100_s = flash.miss_bytes_inserted();
        t.access(Request{i * 1'000'000, i, 4096, Op::kGet});
      }
      const WriteRateAdmission* w = t.write_rate_admission();
      REQUIRE(w != nullptr);
      // From factor 1, -25 % per second reaches 1/3.906 = 0.256 within 6 s; from 100 s on the
      // rate is the target's: (1 MiB × (s + day) − written) / day stays within 0.3 % of 1 MiB/s.
      const double rate = static_cast<double>(flash.miss_bytes_inserted() - bytes_at_100_s) / 200.0;
      CHECK(rate == Approx(1024.0 * 1024).epsilon(0.03));
      CHECK(w->factor() == Approx(1 / 3.90625).epsilon(0.15));
      CHECK(w->updates() == 299);
      const TierCounters& c = t.tier_counters();
      CHECK(c.flash_admission_accepts + c.flash_admission_rejects == kRequests - 1);
      CHECK(c.flash_admission_accepts * 4096 == flash.miss_bytes_inserted());
    });
  });
}

TEST_CASE("tiers: retention admits a DRAM victim whose eviction age is at most the threshold",
          "[tiers]") {
  with_lru_tiers(2, 16, [](auto& dram, auto& flash) {
    TiersConfig cfg = tiers(CacheMode::kWriteThrough, FlashAdmission::kRetention);
    cfg.retention_requests = 2;
    TieredCache t(cfg, dram, flash);
    for (uint64_t k : {1, 2, 2, 2}) t.access(get(k));  // requests 1-4: 1 last at 1, 2 at 4
    t.access(get(3));  // request 5 evicts 1, requested 4 requests ago: rejected
    CHECK_FALSE(flash.contains(1));
    t.access(get(4));  // request 6 evicts 2, requested 2 requests ago: admitted
    CHECK(flash.contains(2));
    CHECK(t.tier_counters().flash_admission_rejects == 1);
    CHECK(t.tier_counters().flash_admission_accepts == 1);
  });
}

TEST_CASE("tiers: reject_first admits a key's second DRAM eviction, or one hit in DRAM",
          "[tiers]") {
  for (const bool signal : {false, true}) {
    INFO("DRAM-hit signal " << signal);
    with_lru_tiers(1, 16, [&](auto& dram, auto& flash) {
      TiersConfig cfg = tiers(CacheMode::kWriteThrough, FlashAdmission::kRejectFirst);
      cfg.reject_first_entries = 4;
      cfg.reject_first_splits = 2;  // two splits of two keys
      cfg.reject_first_dram_hit_signal = signal;
      TieredCache t(cfg, dram, flash);
      t.access(get(1));
      t.access(get(2));  // evicts 1: first seen, rejected; remembered {1}
      CHECK_FALSE(flash.contains(1));
      t.access(get(1));  // evicts 2: rejected; {1, 2}
      t.access(get(2));  // evicts 1: seen before, admitted
      CHECK(flash.contains(1));
      CHECK_FALSE(flash.contains(2));
      CHECK(t.tier_counters().flash_admission_rejects == 2);
      CHECK(t.tier_counters().flash_admission_accepts == 1);
      // 3 is hit in DRAM, then evicted for the first time: admitted only with the signal.
      t.access(get(3));  // evicts 2: seen, admitted; 2 stays remembered
      CHECK(flash.contains(2));
      t.access(get(3));  // a DRAM hit
      t.access(get(4));  // evicts 3: not seen (a new split {3}: {1, 2} | {3})
      CHECK(flash.contains(3) == signal);
      // A set makes a new item: its earlier DRAM hit no longer counts.
      t.access(get(5));  // evicts 4: not seen; {1, 2} | {3, 4}
      t.access(get(5));  // a DRAM hit on 5
      t.access(set(5));  // a new version of 5: hit signal cleared
      t.access(get(6));  // evicts 5: not seen; the oldest split {1, 2} is forgotten: {5} | {3, 4}
      CHECK_FALSE(flash.contains(5));
      // 1 was forgotten with its split: its eviction is a first eviction again.
      flash.access(del(1));
      t.access(get(1));  // a miss: 1 from the backing store into DRAM, evicting 6 (rejected)
      t.access(get(7));  // evicts 1: not remembered any more, rejected
      CHECK_FALSE(flash.contains(1));
      const ApproxSplitSet* tracker = t.reject_first_tracker();
      REQUIRE(tracker != nullptr);
      CHECK(tracker->drops() == 0);
    });
  }
}

// A second implementation of write-through DRAM LRU over flash LRU with every eviction admitted,
// from the definitions alone (std::list, byte capacities): the hits each tier serves.
struct ReferenceTiers {
  ReferenceTiers(uint64_t dram_bytes, uint64_t flash_bytes)
      : dram{dram_bytes}, flash{flash_bytes} {}
  struct Lru {
    explicit Lru(uint64_t c) : capacity(c) {}
    uint64_t capacity, used = 0;
    std::list<std::pair<uint64_t, uint32_t>> order;  // front = most recent
    std::unordered_map<uint64_t, std::list<std::pair<uint64_t, uint32_t>>::iterator> where;
    bool touch(uint64_t k) {
      const auto it = where.find(k);
      if (it == where.end()) return false;
      order.splice(order.begin(), order, it->second);
      return true;
    }
    // Inserts k; returns the victims in eviction order.
    std::vector<std::pair<uint64_t, uint32_t>> insert(uint64_t k, uint32_t size) {
      std::vector<std::pair<uint64_t, uint32_t>> victims;
      if (size > capacity) return victims;
      while (used + size > capacity) {
        victims.push_back(order.back());
        used -= order.back().second;
        where.erase(order.back().first);
        order.pop_back();
      }
      order.emplace_front(k, size);
      where[k] = order.begin();
      used += size;
      return victims;
    }
  };
  Lru dram, flash;
  uint64_t dram_hits = 0, flash_hits = 0;
  void put_dram(uint64_t k, uint32_t size) {
    for (const auto& [v, vs] : dram.insert(k, size)) {
      if (!flash.where.contains(v)) flash.insert(v, vs);
    }
  }
  void get(uint64_t k, uint32_t size) {
    if (dram.touch(k)) {
      ++dram_hits;
    } else if (flash.touch(k)) {
      ++flash_hits;
      put_dram(k, size);
    } else {
      put_dram(k, size);
    }
  }
};

TEST_CASE("tiers: DRAM and flash hits equal a second implementation's on a real trace", "[tiers]") {
  const std::vector<Request>& trace =
      load_trace(FLASHPQ_SOURCE_DIR "/traces/data/adaptsize-request.oracleGeneral.zst");
  for (const auto& sizes :
       {std::pair<uint64_t, uint64_t>{2 << 20, 16 << 20}, {8 << 20, 32 << 20}}) {
    // Plain variables: clang 14 cannot capture a structured binding in a lambda.
    const uint64_t dram_bytes = sizes.first, flash_bytes = sizes.second;
    ReferenceTiers ref(dram_bytes, flash_bytes);
    NullDevice none;
    with_exact_lru(capacity(dram_bytes, false), none, [&](ExactLru& dram) {
      with_exact_lru(capacity(flash_bytes, false), none, [&](ExactLru& flash) {
        TieredCache t(tiers(CacheMode::kWriteThrough), dram, flash);
        uint64_t hits = 0;
        for (const Request& r : trace) {
          REQUIRE(r.op == Op::kGet);
          hits += t.access(r);
          ref.get(r.key, r.size_bytes);
        }
        CHECK(t.tier_counters().dram_hits == ref.dram_hits);
        CHECK(t.tier_counters().flash_hits == ref.flash_hits);
        CHECK(hits == ref.dram_hits + ref.flash_hits);
        CHECK(ref.flash_hits > 1000);
        CHECK(ref.dram_hits > 1000);
      });
    });
  }
}

// The fuzzy test (tests/engine/tiers_test_util.h) over `flash` with a 16 KiB exact LRU DRAM.
template <class F>
uint64_t fuzz_modes(F& flash, const TiersConfig& cfg, uint64_t seed, uint64_t n) {
  NullDevice none;
  uint64_t checked = 0;
  with_exact_lru(capacity(16 << 10, false), none,
                 [&](ExactLru& dram) { checked = testing::fuzz_tiers(dram, flash, cfg, seed, n); });
  return checked;
}

TEST_CASE("tiers: fuzzy correctness, every mode and admission, flash on exact, RIPQ and SIPQ",
          "[tiers]") {
  const std::pair<std::string, FrameworkConfig> frameworks[] = {
      {"exact", exact_config()},
      {"ripq", ripq_config(8 << 10, 2, 4)},
      {"sipq", sipq_config(8 << 10, 0.5)}};
  for (const auto& named : frameworks) {
    const std::string& name = named.first;
    const FrameworkConfig& fc = named.second;
    for (CacheMode mode : testing::kModes) {
      for (int variant = 0; variant < 13; ++variant) {
        // Seven admissions with a DRAM tier; six without (retention needs DRAM).
        const FlashAdmission a = variant < 7
                                     ? static_cast<FlashAdmission>(variant)
                                     : std::array{FlashAdmission::kAll,
                                                  FlashAdmission::kRandom,
                                                  FlashAdmission::kRateLimited,
                                                  FlashAdmission::kNHit,
                                                  FlashAdmission::kTinyLfu,
                                                  FlashAdmission::kRejectFirst}[variant - 7];
        TiersConfig cfg = tiers(mode, a);
        cfg.dram = variant < 7;
        cfg.retention_requests = 50;
        cfg.reject_first_entries = 200;  // a short window: keys are forgotten during the run
        cfg.reject_first_splits = 4;
        // rate_limited: requests are 1 µs apart (fuzz_modes); the factor moves every 1 ms.
        cfg.write_rate.target_rate_bytes_s = 100e6;
        cfg.write_rate.update_interval_ns = 1'000'000;
        cfg.flash_expected_objects = 100;
        cfg.cleaner_staleness_requests =
            mode == CacheMode::kWriteBack || mode == CacheMode::kNhcWriteBack ? 500 : 0;
        cfg.cleaner_interval_requests = 100;
        INFO(name << " mode " << static_cast<int>(mode) << " admission " << static_cast<int>(a)
                  << (cfg.dram ? "" : " without DRAM"));
        NullDevice device;
        with_framework(fc, capacity(256 << 10, false), LruPolicy(PolicyConfig{"lru", {}}), device,
                       [&](auto& flash) { CHECK(fuzz_modes(flash, cfg, 7, 20000) > 11000); });
      }
    }
  }
}

// The fuzzy test of every mode with the flash tier on RIPQ (8 KiB blocks, K = 2) on `device`.
void fuzz_modes_on(Device& device, uint64_t seed) {
  for (CacheMode mode : testing::kModes) {
    INFO("mode " << static_cast<int>(mode));
    with_framework(
        ripq_config(8 << 10, 2, 4), capacity(256 << 10, false), LruPolicy(PolicyConfig{"lru", {}}),
        device, [&](auto& flash) { CHECK(fuzz_modes(flash, tiers(mode), seed, 20000) > 11000); });
  }
}

TEST_CASE("tiers: fuzzy correctness with the flash tier on simflash", "[tiers]") {
  SimFlashDevice device(simflash_profile("tiny"));
  fuzz_modes_on(device, 11);
  CHECK(device.counters().write_bytes > 0);
}

TEST_CASE("tiers: fuzzy correctness with the flash tier on a file, verify on", "[tiers][block]") {
  // RIPQ writes whole 8 KiB blocks to a file through io_uring; verify stamps every logical
  // block written and checks every one read, and a read of a block never written is an error.
  const std::string path = (testing::scratch_dir() / "tiers_fuzzy.img").string();
  std::filesystem::remove(path);
  {
    BlockDevice device(testing::block_config(path, 4 << 20));
    device.set_unwritten_reads_are_errors(true);
    fuzz_modes_on(device, 13);
    CHECK(device.counters().write_bytes > 0);
    CHECK(device.verify_counters().blocks_checked > 0);
    CHECK(device.verify_counters().blocks_unchecked == 0);
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace flashpq::test_tiers
