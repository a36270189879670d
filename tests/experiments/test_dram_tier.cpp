// Tests of experiments/run/dram_tier.h and engine/any_cache.h: every policy that can be a
// hierarchy's DRAM tier, behind AnyCache, decides as its own cache built by type does, and the
// hierarchy over it returns the latest value of every key in every cache mode.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "devices/null_device.h"
#include "engine/exact/exact_framework.h"
#include "engine/tiers.h"
#include "experiments/run/dram_tier.h"
#include "policies/registry.h"
#include "tests/engine/tiers_test_util.h"
#include "tests/test_util.h"

namespace flashpq::test_dram_tier {
namespace {

using ExactLru = Cache<LruPolicy, ExactFramework::Queue<LruPolicy>, NoAdmission>;

CacheConfig capacity(uint64_t bytes) {
  CacheConfig cc;
  cc.capacity_bytes = bytes;
  return cc;
}

std::vector<std::string> dram_policies() {
  std::vector<std::string> names;
  for (const std::string& p : policy_names()) {
    if (policy_can_be_dram_tier(p)) names.push_back(p);
  }
  return names;
}

// The hits of `name`'s own cache (built by type, not behind AnyCache) of `cc` on the gets of
// `trace`.
uint64_t standalone_hits(const std::string& name, const CacheConfig& cc,
                         const std::vector<Request>& trace) {
  uint64_t hits = 0;
  auto run = [&](auto policy) {
    using P = decltype(policy);
    if constexpr (!requires { P::kReadsNextAccess; }) {
      NullDevice none;
      Cache<P, ExactFramework::Queue<P>> c(cc, testing::exact_config(), std::move(policy), none);
      for (const Request& r : trace) hits += c.access(r);
    }
  };
  if (is_owning_policy(name)) {
    with_owning_policy(PolicyConfig{name, {}}, run);
  } else {
    with_policy(PolicyConfig{name, {}}, run);
  }
  return hits;
}

TEST_CASE("dram tier: which policies can be one", "[tiers][dram-tier]") {
  const std::vector<std::string> names = dram_policies();
  for (const char* p : {"fifo", "lru", "slru", "gdsf", "s3fifo", "sieve", "arc", "twoq", "lirs",
                        "lfu", "lfuda", "clock"}) {
    CHECK(std::find(names.begin(), names.end(), p) != names.end());
  }
  for (const char* p : {"belady", "pfoo_l", "wtinylfu", "nope"}) {
    INFO(p);
    CHECK_FALSE(policy_can_be_dram_tier(p));
    CHECK_THROWS_WITH(
        make_dram_tier(PolicyConfig{p, {}}, capacity(1 << 20)),
        Catch::Matchers::Contains("tiers.dram_policy") && Catch::Matchers::Contains(p));
  }
}

TEST_CASE("dram tier: DRAM hits in a hierarchy equal the policy's own cache's, real trace",
          "[tiers][dram-tier]") {
  // Gets only, write-through: DRAM sees every get (a lookup, then the insertion of a miss),
  // as a cache of its capacity alone does; flash is a larger exact LRU below it.
  const std::vector<Request>& trace = testing::load_trace(
      FLASHPQ_SOURCE_DIR "/traces/data/adaptsize-request.oracleGeneral.zst", 200000);
  const CacheConfig dram_cc = capacity(4 << 20), flash_cc = capacity(32 << 20);
  for (const std::string& name : dram_policies()) {
    INFO(name);
    AnyCache dram = make_dram_tier(PolicyConfig{name, {}}, dram_cc);
    NullDevice none;
    ExactLru flash(flash_cc, testing::exact_config(), LruPolicy(PolicyConfig{"lru", {}}), none);
    TiersConfig cfg;
    cfg.mode = CacheMode::kWriteThrough;
    TieredCache t(cfg, dram, flash);
    uint64_t hits = 0;
    for (const Request& r : trace) hits += t.access(r);
    const uint64_t expected = standalone_hits(name, dram_cc, trace);
    CHECK(t.tier_counters().dram_hits == expected);
    CHECK(expected > 10000);
    CHECK(t.tier_counters().flash_hits > 1000);
    CHECK(hits == t.tier_counters().dram_hits + t.tier_counters().flash_hits);
  }
}

TEST_CASE("dram tier: fuzzy correctness of every mode over each DRAM policy",
          "[tiers][dram-tier]") {
  for (const std::string& name : dram_policies()) {
    for (CacheMode mode : testing::kModes) {
      INFO(name << " mode " << static_cast<int>(mode));
      TiersConfig cfg;
      cfg.mode = mode;
      cfg.cleaner_staleness_requests =
          mode == CacheMode::kWriteBack || mode == CacheMode::kNhcWriteBack ? 500 : 0;
      cfg.cleaner_interval_requests = 100;
      // 16 KiB of DRAM: S3-FIFO's small FIFO (1.6 KiB) declines the larger objects.
      AnyCache dram = make_dram_tier(PolicyConfig{name, {}}, capacity(16 << 10));
      NullDevice none;
      ExactLru flash(capacity(256 << 10), testing::exact_config(),
                     LruPolicy(PolicyConfig{"lru", {}}), none);
      CHECK(testing::fuzz_tiers(dram, flash, cfg, 5, 6000) > 3000);
    }
  }
}

}  // namespace
}  // namespace flashpq::test_dram_tier
