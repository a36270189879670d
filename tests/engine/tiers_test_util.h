// tests/engine/tiers_test_util.h — the fuzzy correctness test of a hierarchy (engine/tiers.h),
// as the NHC demo's fuzzy mode checks Open CAS's modes: random gets, sets and deletes of
// version-stamped values through a cache mode and flash admission, every get returning the
// latest set. Shared by the tests of engine/tiers.h and of the DRAM tiers
// (experiments/run/dram_tier.h).
#pragma once

#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <string>

#include "engine/tiers.h"
#include "sim/rng.h"

namespace flashpq::testing {

// The value tracker of the fuzzy test: the version of each copy in each tier (absent = 0, as a
// key never set or deleted reads).
struct Versions {
  static constexpr bool kEnabled = true;
  std::map<uint64_t, uint64_t> tier[3];
  uint64_t incoming = 0, served = 0, held = 0;
  std::string broken;

  std::map<uint64_t, uint64_t>& at(Tier t) { return tier[static_cast<int>(t)]; }
  void write(Tier t, uint64_t k) { at(t)[k] = incoming; }
  void copy(Tier from, Tier to, uint64_t k) {
    const auto it = at(from).find(k);
    if (it == at(from).end() && from != Tier::kBacking && broken.empty()) {
      broken = "copy from a tier without the key " + std::to_string(k);
    }
    at(to)[k] = it == at(from).end() ? 0 : it->second;
  }
  void erase(Tier t, uint64_t k) { at(t).erase(k); }
  void serve(Tier t, uint64_t k) {
    const auto it = at(t).find(k);
    served = it == at(t).end() ? 0 : it->second;
  }
  void hold(Tier t, uint64_t k) {
    const auto it = at(t).find(k);
    held = it == at(t).end() ? 0 : it->second;
  }
  void land(Tier t, uint64_t k) { at(t)[k] = held; }
};

// Runs `n` random requests (60 % gets, 30 % sets, 10 % deletes over 200 keys, 512 B to 4 KiB)
// through a hierarchy over `dram` and `flash` (fresh caches: D and F are engine/cache.h Cache
// types or AnyCache) and checks every get against a plain map of the latest set. Returns the
// number of gets checked.
template <class D, class F>
uint64_t fuzz_tiers(D& dram, F& flash, const TiersConfig& cfg, uint64_t seed, uint64_t n) {
  uint64_t checked = 0;
  Versions v;
  TieredCache t(cfg, dram, flash, &v);
  std::map<uint64_t, uint64_t> latest;
  RngStream rng(seed, 0);
  for (uint64_t i = 1; i <= n; ++i) {
    // nhc: the controller's switches change every 500 requests (data admission on and off;
    // load_admit 1, 0.5, 0), as engine/nhc.h may set them at any request.
    if (cfg.nhc() && i % 500 == 0) t.set_nhc((i / 500) % 2 == 0, 0.5 * ((i / 500) % 3));
    const uint64_t key = rng.next() % 200;
    const uint32_t size = 512 + static_cast<uint32_t>(rng.next() % 3585);
    const uint64_t op = rng.next() % 10;
    const uint64_t time_ns = i * 1000;
    if (op < 6) {
      const bool hit = t.access(Request{time_ns, key, size, Op::kGet});
      INFO("request " << i << ", get " << key << (hit ? " (hit)" : " (miss)"));
      REQUIRE(v.served == latest[key]);
      ++checked;
    } else if (op < 9) {
      v.incoming = i;
      latest[key] = i;
      t.access(Request{time_ns, key, size, Op::kSet});
    } else {
      latest[key] = 0;
      t.access(Request{0, key, 0, Op::kDelete});
    }
    REQUIRE(v.broken.empty());
  }
  // The tracker mirrors the caches: every tracked copy is cached and every cached key tracked
  // (keys 0..199).
  for (uint64_t k = 0; k < 200; ++k) {
    CHECK(dram.contains(k) == v.at(Tier::kDram).contains(k));
    CHECK(flash.contains(k) == v.at(Tier::kFlash).contains(k));
  }
  return checked;
}

/// Every cache mode of a hierarchy.
inline const CacheMode kModes[] = {CacheMode::kWriteThrough, CacheMode::kWriteBack,
                                   CacheMode::kWriteAround,  CacheMode::kWriteOnly,
                                   CacheMode::kPassThrough,  CacheMode::kNhcWriteAround,
                                   CacheMode::kNhcWriteBack};

}  // namespace flashpq::testing
