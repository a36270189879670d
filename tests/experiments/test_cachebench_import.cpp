// Tests of experiments/import/cachebench.h: every shipped CacheBench config (tests/data/
// cachebench/, navy-spec.md §7.2) imports to an experiment that FlashPQ's loader accepts and
// plans; simple_test.json and feature_stress/navy/default.json hand-checked key by key; the
// imported caches lay out as navy does (navy-spec.md §1.2's worked layouts); the unmapped list
// of each shipped config written out; the other mappings on small configs; and the errors
// (malformed JSON, bad values) name the file, the line and the key.
#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "engine/blockcache/blockcache_config.h"
#include "engine/hybrid/hybrid_config.h"
#include "experiments/experiment.h"
#include "experiments/import/cachebench.h"
#include "experiments/run/cell_runner.h"
#include "experiments/run/measure.h"
#include "fuzz/cachebench_import_fuzz.h"
#include "tests/test_util.h"
#include "traces/trace_summary.h"
#include "yaml-cpp/yaml.h"

namespace flashpq::test_cachebench_import {
namespace {

using Catch::Contains;
using Catch::StartsWith;
using testing::TempDir;

const std::string kData = FLASHPQ_SOURCE_DIR "/tests/data/cachebench";
// The fuzz target's seeds (the staging build points this at its own copy).
#ifndef CBIMPORT_CORPUS_DIR
#define CBIMPORT_CORPUS_DIR FLASHPQ_SOURCE_DIR "/fuzz/corpus/cachebench_import"
#endif
constexpr uint64_t kMiB = uint64_t{1} << 20;

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A shipped config, imported as `flashpq import cachebench` would: relative files from its
// directory.
CachebenchImport import_shipped(const std::string& rel) {
  const std::string path = kData + "/" + rel;
  return import_cachebench(read(path), rel, std::filesystem::path(path).parent_path().string());
}

// A config given as text, imported with `dir` as its directory.
CachebenchImport import_text(const std::string& json, const std::string& dir = ".") {
  return import_cachebench(json, "t.json", dir);
}

// The imported YAML written to a fresh directory and loaded: its one cell.
CellConfig load_one(const TempDir& dir, const CachebenchImport& r,
                    const std::vector<Override>& overrides = {}) {
  const Experiment ex = load_experiment(dir.write("imported.yaml", r.yaml), overrides);
  REQUIRE(ex.cells.size() == 1);
  return ex.cells[0];
}

// The cell's parameters (every schema key's text) by key.
std::map<std::string, std::string> params(const CellConfig& c) {
  return {c.parameters.begin(), c.parameters.end()};
}

// A summary that stands for the trace where a real one would take long to make: plan_cell()
// reads the request count, the working set (fractions only: every imported capacity is bytes)
// and the largest object.
TraceSummary stand_in_summary() {
  TraceSummary s;
  s.requests = 1000;
  s.unique_objects = 100;
  s.working_set_bytes = uint64_t{1} << 30;
  s.max_object_bytes = 4096;
  return s;
}

// yaml-cpp's view of the imported file.
YAML::Node yaml_of(const CachebenchImport& r) {
  return YAML::Load(r.yaml);
}

std::vector<double> numbers(const YAML::Node& n) {
  std::vector<double> v;
  for (const auto& x : n) v.push_back(x.as<double>());
  return v;
}

// "KEY (VALUE): WHY" -> "KEY (VALUE)".
std::string head_of(const std::string& line) {
  return line.substr(0, line.find("): ") + 1);
}

const std::vector<std::string> kShipped = {
    "simple_test.json",
    "feature_stress/navy/default.json",
    "feature_stress/navy/bc_fifo.json",
    "consistency/navy-with-reinsertion.json",
    "ssd_perf/flat_kvcache_reg/config.json",
    "trace_replay/kvcache/config_kvtrace.json",
};

TEST_CASE("cachebench import: every shipped config imports, loads and plans", "[cachebench]") {
  for (const std::string& rel : kShipped) {
    INFO(rel);
    const CachebenchImport r = import_shipped(rel);
    // The header names the source and lists every unmapped key and note.
    REQUIRE_THAT(r.yaml, StartsWith("# FlashPQ experiment imported from the CacheBench config " +
                                    rel + "\n"));
    for (const std::string& u : r.unmapped) {
      const std::string key = u.substr(0, u.find(' '));
      CHECK_THAT(r.yaml, Contains("#   " + key + " "));
    }
    CHECK_THAT(r.yaml,
               Contains(r.unmapped.empty()
                            ? "# Not mapped: none"
                            : "# Not mapped (" + std::to_string(r.unmapped.size()) + " key"));
    TempDir dir;
    const CellConfig cell = load_one(dir, r);
    const CellPlan plan = plan_cell(cell, stand_in_summary());
    CHECK(plan.cache.capacity_bytes > 0);
    // On simulated flash sized to the cache, as the header says.
    if (cell.tiers.enabled()) {
      const CellConfig sim =
          load_one(dir, r, {{"device.name", "simflash"}, {"device.size_to_cache", "true"}});
      CHECK(plan_cell(sim, stand_in_summary()).device_bounds.capacity_bytes >=
            plan.layout.device_bytes);
    }
  }
}

TEST_CASE("cachebench import: simple_test.json, key by key", "[cachebench]") {
  const CachebenchImport r = import_shipped("simple_test.json");
  const YAML::Node y = yaml_of(r);
  // DRAM only (no nvmCacheSizeMB): cacheSizeMB 512 is the cache, LRU on an exact queue.
  CHECK(y["name"].as<std::string>() == "simple_test");
  CHECK(
      yaml_of(import_shipped("ssd_perf/flat_kvcache_reg/config.json"))["name"].as<std::string>() ==
      "flat_kvcache_reg");
  CHECK(y["cache"]["capacity"].as<std::string>() == "512MiB");
  CHECK(y["policy"]["name"].as<std::string>() == "lru");
  CHECK(y["framework"]["name"].as<std::string>() == "exact");
  CHECK(!y["tiers"]);
  CHECK(!y["device"]);
  CHECK(!y["admission"]);
  // test_config: numOps 100000 × numThreads 32; the distributions as written.
  const YAML::Node t = y["trace"];
  CHECK(t["format"].as<std::string>() == "generator");
  CHECK(t["generator"].as<std::string>() == "cachebench");
  CHECK(t["requests"].as<uint64_t>() == 100000 * 32);
  CHECK(t["num_keys"].as<uint64_t>() == 1000000);
  CHECK(numbers(t["key_size_range"]) == std::vector<double>{1, 8, 64});
  CHECK(numbers(t["key_size_range_probability"]) == std::vector<double>{0.3, 0.7});
  CHECK(numbers(t["val_size_range"]) == std::vector<double>{1, 32, 10240, 409200});
  CHECK(numbers(t["val_size_range_probability"]) == std::vector<double>{0.1, 0.2, 0.7});
  CHECK(t["get_ratio"].as<double>() == 0.15);
  CHECK(t["set_ratio"].as<double>() == 0.8);
  CHECK(t["del_ratio"].as<double>() == 0.05);
  CHECK(t["popularity"].as<std::string>() == "normal");
  CHECK(!t["rate"]);

  // The same through FlashPQ's loader.
  TempDir dir;
  const CellConfig cell = load_one(dir, r);
  const auto p = params(cell);
  CHECK(cell.capacity.bytes == 512 * kMiB);
  CHECK(!cell.capacity.is_fraction);
  CHECK(cell.policy.name == "lru");
  CHECK(cell.framework.name == "exact");
  CHECK(!cell.tiers.enabled());
  CHECK(p.at("trace.requests") == "3200000");
  CHECK(p.at("trace.num_keys") == "1000000");
  CHECK(p.at("trace.get_ratio") == "0.15");
  CHECK(p.at("trace.set_ratio") == "0.8");
  CHECK(p.at("trace.del_ratio") == "0.05");
  CHECK(cell.experiment == "simple_test");
}

TEST_CASE("cachebench import: default.json, key by key", "[cachebench]") {
  const CachebenchImport r = import_shipped("feature_stress/navy/default.json");
  const YAML::Node y = yaml_of(r);
  // cacheSizeMB 128: the DRAM tier over the flash tier, CacheLib's protocol (wb), MMLru.
  CHECK(y["tiers"]["mode"].as<std::string>() == "wb");
  CHECK(y["tiers"]["dram_capacity"].as<std::string>() == "128MiB");
  CHECK(y["tiers"]["dram_policy"].as<std::string>() == "lru");
  CHECK(y["tiers"]["flash_admission"].as<std::string>() == "all");
  // nvmCacheSizeMB 512, BigHash 50 % (CacheBench's defaults for every navy key it omits).
  CHECK(y["cache"]["capacity"].as<std::string>() == "512MiB");
  CHECK(y["policy"]["name"].as<std::string>() == "fifo");
  CHECK(y["admission"]["name"].as<std::string>() == "none");
  const YAML::Node f = y["framework"];
  CHECK(f["name"].as<std::string>() == "hybrid");
  CHECK(f["hybrid_small_pct"].as<int>() == 50);
  CHECK(f["hybrid_small_item_max_size"].as<int>() == 2048);
  CHECK(f["bighash_bucket_size"].as<int>() == 4096);
  CHECK(f["bighash_bloom_filter_bits"].as<int>() == 8 * 8);
  CHECK(f["blockcache_region_size"].as<std::string>() == "16MiB");
  CHECK(f["blockcache_clean_regions"].as<int>() == 1);
  CHECK(f["blockcache_region_eviction"].as<std::string>() == "lru");
  CHECK(f["blockcache_reinsertion"].as<std::string>() == "none");
  CHECK(y["device"]["name"].as<std::string>() == "null");
  const YAML::Node t = y["trace"];
  CHECK(t["requests"].as<uint64_t>() == 1000000 * 16);
  CHECK(t["num_keys"].as<uint64_t>() == 100000);
  CHECK(numbers(t["key_size_range"]) == std::vector<double>{1, 8, 64});
  CHECK(numbers(t["key_size_range_probability"]) == std::vector<double>{0.3, 0.7});
  CHECK(numbers(t["val_size_range"]) == std::vector<double>{256, 1024, 4096});
  CHECK(numbers(t["val_size_range_probability"]) == std::vector<double>{0.2, 0.8});
  CHECK(t["get_ratio"].as<double>() == 0.5);
  CHECK(t["set_ratio"].as<double>() == 0.3);
  CHECK(t["del_ratio"].as<double>() == 0);  // absent: CacheBench's 0, not FlashPQ's default

  TempDir dir;
  const CellConfig cell = load_one(dir, r);
  const auto p = params(cell);
  CHECK(cell.tiers.mode == CacheMode::kWriteBack);
  CHECK(cell.tiers.dram_capacity.bytes == 128 * kMiB);
  CHECK(cell.tiers.dram_policy == "lru");
  CHECK(cell.tiers.flash_admission == FlashAdmission::kAll);
  CHECK(cell.capacity.bytes == 512 * kMiB);
  CHECK(cell.framework.name == "hybrid");
  CHECK(cell.device.name == "null");
  CHECK(p.at("framework.hybrid_small_pct") == "50");
  CHECK(p.at("trace.del_ratio") == "0");
}

// navy-spec.md §1.2's worked layouts, from the imported experiments through FlashPQ's own layout
// code, with navy's I/O alignment (navyBlockSize) as the device's logical block.
TEST_CASE("cachebench import: the imported caches lay out as navy (navy-spec 1.2)",
          "[cachebench]") {
  TempDir dir;
  {
    // default.json: 512 MiB, BigHash 50 %: BigHash from 268,435,456 B, 65,536 buckets;
    // 15 regions.
    const CellConfig c = load_one(dir, import_shipped("feature_stress/navy/default.json"));
    const HybridLayout l = hybrid_layout(HybridConfig::from(c.framework.params), c.framework.params,
                                         c.capacity.bytes, 512);
    CHECK(l.metadata_bytes == 2683904);
    CHECK(l.small_offset == 268435456);
    CHECK(l.small_bytes / 4096 == 65536);
    CHECK(l.large_bytes == 15 * 16 * kMiB);
  }
  {
    // bc_fifo.json: no BigHash: 31 regions (the metadata subtracted by the import).
    const CellConfig c = load_one(dir, import_shipped("feature_stress/navy/bc_fifo.json"));
    CHECK(c.capacity.bytes == 536870912 - 2683904);
    const BlockCacheGeometry g =
        blockcache_geometry(BlockCacheConfig::from(c.framework.params), c.capacity.bytes, 512);
    CHECK(g.regions == 31);
  }
  {
    // flat_kvcache_reg: 932,000 MiB, block 4096, BigHash 50 %: 119,296,000 buckets, 28,833
    // regions.
    const CellConfig c = load_one(dir, import_shipped("ssd_perf/flat_kvcache_reg/config.json"));
    const HybridLayout l = hybrid_layout(HybridConfig::from(c.framework.params), c.framework.params,
                                         c.capacity.bytes, 4096);
    CHECK(c.capacity.bytes == uint64_t{932000} * kMiB);
    CHECK(l.metadata_bytes == 4886364160ull);
    CHECK(l.small_bytes / 4096 == 119296000);
    CHECK(l.large_bytes / (16 * kMiB) == 28833);
  }
}

TEST_CASE("cachebench import: the other shipped configs' mapped values", "[cachebench]") {
  {
    const YAML::Node y = yaml_of(import_shipped("feature_stress/navy/bc_fifo.json"));
    CHECK(y["framework"]["name"].as<std::string>() == "blockcache");
    CHECK(y["framework"]["blockcache_region_eviction"].as<std::string>() == "fifo");
    CHECK(!y["framework"]["hybrid_small_pct"]);
    CHECK(y["cache"]["capacity"].as<uint64_t>() == 536870912 - 2683904);
    CHECK(y["trace"]["requests"].as<uint64_t>() == 2000000ull * 32);
    CHECK(numbers(y["trace"]["val_size_range"]) == std::vector<double>{1, 102400});
  }
  {
    const YAML::Node y = yaml_of(import_shipped("consistency/navy-with-reinsertion.json"));
    CHECK(y["framework"]["name"].as<std::string>() == "hybrid");
    CHECK(y["framework"]["blockcache_reinsertion"].as<std::string>() == "percentage");
    CHECK(y["framework"]["blockcache_reinsertion_pct"].as<int>() == 50);
    CHECK(y["tiers"]["dram_capacity"].as<std::string>() == "100MiB");
    CHECK(y["trace"]["requests"].as<uint64_t>() == 1000000ull * 40);
  }
  {
    // online generator, sizes from sizes.json (7,520 discrete sizes), numKeys clamped.
    const CachebenchImport r = import_shipped("ssd_perf/flat_kvcache_reg/config.json");
    const YAML::Node y = yaml_of(r);
    CHECK(y["trace"]["generator"].as<std::string>() == "cachebench");
    CHECK(y["trace"]["requests"].as<uint64_t>() == 5000000000ull * 48);
    CHECK(y["trace"]["num_keys"].as<uint64_t>() == uint64_t{1} << 40);
    const YAML::Node sizes = YAML::LoadFile(kData + "/ssd_perf/flat_kvcache_reg/sizes.json");
    CHECK(numbers(y["trace"]["val_size_range"]) == numbers(sizes["valSizeRange"]));
    CHECK(numbers(y["trace"]["val_size_range_probability"]) ==
          numbers(sizes["valSizeRangeProbability"]));
    CHECK(numbers(y["trace"]["val_size_range"]).size() == 7520);
    CHECK(numbers(y["trace"]["key_size_range"]) == std::vector<double>{16, 255});
    CHECK(y["trace"]["get_ratio"].as<double>() == 0.9845283120275657);
    CHECK(y["trace"]["set_ratio"].as<double>() == 0);
    CHECK(y["framework"]["hybrid_small_item_max_size"].as<int>() == 1024);
    CHECK(y["tiers"]["dram_capacity"].as<std::string>() == "32000MiB");
  }
  {
    // replay: the first trace file, absolute; timestampFactor 1 = seconds; numOps × numThreads.
    const YAML::Node y = yaml_of(import_shipped("trace_replay/kvcache/config_kvtrace.json"));
    CHECK(y["trace"]["format"].as<std::string>() == "kvcache_csv");
    CHECK(y["trace"]["path"].as<std::string>() == kData + "/trace_replay/kvcache/kv_traces_1.csv");
    CHECK(y["trace"]["time_unit"].as<std::string>() == "s");
    REQUIRE(y["trace"]["transforms"].size() == 1);
    CHECK(y["trace"]["transforms"][0]["name"].as<std::string>() == "limit");
    CHECK(y["trace"]["transforms"][0]["requests"].as<uint64_t>() == 2000000ull * 16);
    CHECK(y["cache"]["capacity"].as<std::string>() == "500MiB");
    CHECK(y["framework"]["name"].as<std::string>() == "exact");
  }
}

// The unmapped keys of each shipped config, in the order of the file, each with a word of its
// reason.
TEST_CASE("cachebench import: the unmapped list of each shipped config", "[cachebench]") {
  using Expected = std::vector<std::pair<std::string, std::string>>;
  const std::string slabs = "FlashPQ's DRAM has no slabs";
  const std::string classes = "no class rounding";
  const std::string unknown =
      "unknown to CacheBench at commit 278ffc74e301 (ignored by "
      "CacheBench too)";
  const std::map<std::string, Expected> expected = {
      {"simple_test.json",
       {{"cache_config.poolRebalanceIntervalSec (1)", slabs},
        {"cache_config.moveOnSlabRelease (false)", slabs},
        {"cache_config.numPools (2)", "DRAM is one pool"},
        {"cache_config.poolSizes ([0.3, 0.7])", "DRAM is one pool"},
        {"test_config.keyPoolDistribution ([0.4, 0.6])", "one pool over all keys"},
        {"test_config.opPoolDistribution ([0.5, 0.5])", "one pool"}}},
      {"feature_stress/navy/default.json",
       {{"cache_config.poolRebalanceIntervalSec (1)", slabs},
        {"cache_config.moveOnSlabRelease (false)", slabs},
        {"cache_config.numPools (2)", "DRAM is one pool"},
        {"cache_config.poolSizes ([0.3, 0.7])", "DRAM is one pool"},
        {"cache_config.allocFactor (10)", classes},
        {"cache_config.nvmCachePaths ([\"/tmp/cachebench_navy_test_default\"])",
         "FlashPQ's device is device.name"},
        {"test_config.chainedItemLengthRange ([1, 2, 4, 32])", "chained items"},
        {"test_config.chainedItemLengthRangeProbability ([0.8, 0.18, 0.02])", "chained items"},
        {"test_config.chainedItemValSizeRange ([1, 128, 256, 1024, 4096, 20480])", "chained items"},
        {"test_config.chainedItemValSizeRangeProbability ([0.1, 0.1, 0.2, 0.3, 0.3])",
         "chained items"},
        {"test_config.addChainedRatio (0.2)", "left out"},
        {"test_config.keyPoolDistribution ([0.5, 0.5])", "one pool"},
        {"test_config.opPoolDistribution ([0.5, 0.5])", "one pool"}}},
      {"feature_stress/navy/bc_fifo.json",
       {{"cache_config.poolRebalanceIntervalSec (1)", slabs},
        {"cache_config.moveOnSlabRelease (false)", slabs}}},
      {"consistency/navy-with-reinsertion.json",
       {{"cache_config.poolRebalanceIntervalSec (1)", slabs},
        {"cache_config.moveOnSlabRelease (true)", slabs},
        {"cache_config.allocFactor (2.0)", classes},
        {"test_config.checkConsistency (true)", "keeps no values"}}},
      {"ssd_perf/flat_kvcache_reg/config.json",
       {{"cache_config.allocFactor (1.08)", classes},
        {"cache_config.maxAllocSize (524288)", classes},
        {"cache_config.minAllocSize (64)", classes},
        {"cache_config.navyReaderThreads (32)", "synchronous"},
        {"cache_config.navyWriterThreads (32)", "synchronous"},
        {"cache_config.nvmCachePaths ([\"/dev/md0\"])", "FlashPQ's device is device.name"},
        {"cache_config.writeAmpDeviceList ([\"nvme1n1\", \"nvme2n1\"])", "dev WA"},
        {"cache_config.navyBlockSize (4096)", "logical block"},
        {"cache_config.navyParcelMemoryMB (6048)", "never binds"},
        {"cache_config.htBucketPower (27)", "hash table"},
        {"cache_config.moveOnSlabRelease (true)", slabs},
        {"cache_config.poolRebalanceIntervalSec (2)", slabs},
        {"cache_config.rebalanceStrategy (\"hits\")", slabs},
        {"cache_config.rebalanceMinRatio (0.1)", unknown},
        {"cache_config.rebalanceMinSlabs (2)", slabs},
        {"test_config.popDistFile (\"pop.json\")", "discrete popularity"},
        {"test_config.opDelayNs (1000000)", "at most 1200000 requests/s over 48 threads"},
        {"test_config.opDelayBatch (25)", "at most 1200000 requests/s over 48 threads"},
        {"test_config.loneGetRatio (0.13471687972434254)", "fresh unique keys"}}},
      {"trace_replay/kvcache/config_kvtrace.json",
       {{"cache_config.cacheDir (\"/tmp/cachelib_metadata\")", "persists the cache"},
        {"cache_config.allocFactor (1.08)", classes},
        {"cache_config.maxAllocSize (524288)", classes},
        {"cache_config.minAllocSize (64)", classes},
        {"cache_config.htBucketPower (29)", "hash table"},
        {"cache_config.moveOnSlabRelease (false)", slabs},
        {"cache_config.poolRebalanceIntervalSec (2)", slabs},
        {"cache_config.poolResizeIntervalSec (1)", unknown},
        {"cache_config.rebalanceStrategy (\"hits\")", slabs},
        {"test_config.repeatOpCount (true)", unknown},
        {"test_config.prepopulateCache (true)", unknown},
        {"test_config.traceFileNames[1] (\"kv_traces_2.csv\")", "concatenate them"}}},
  };
  const std::string lookaside = "test_config.enableLookaside is absent";
  const std::map<std::string, std::vector<std::string>> notes = {
      {"simple_test.json", {lookaside}},
      {"feature_stress/navy/default.json",
       {lookaside,
        "20.0 % of the operations are "
        "addChainedRatio"}},
      {"feature_stress/navy/bc_fifo.json", {lookaside}},
      {"consistency/navy-with-reinsertion.json", {lookaside}},
      {"ssd_perf/flat_kvcache_reg/config.json",
       {"test_config.numKeys 14463466000000 exceeds FlashPQ's largest trace.num_keys: clamped "
        "to 2^40 = 1099511627776",
        "12.0 % of the operations are loneGetRatio",
        "the popularity is CacheBench's normal over the 1099511627776 keys (standard deviation "
        "274877906943 keys)"}},
      {"trace_replay/kvcache/config_kvtrace.json", {lookaside}},
  };
  for (const std::string& rel : kShipped) {
    INFO(rel);
    const CachebenchImport r = import_shipped(rel);
    const Expected& want = expected.at(rel);
    std::vector<std::string> heads;
    for (const std::string& u : r.unmapped) heads.push_back(head_of(u));
    std::vector<std::string> want_heads;
    for (const auto& [head, why] : want) want_heads.push_back(head);
    CHECK(heads == want_heads);
    for (size_t i = 0; i < std::min(r.unmapped.size(), want.size()); ++i) {
      CHECK_THAT(r.unmapped[i], Contains(want[i].second));
    }
    const std::vector<std::string>& want_notes = notes.at(rel);
    REQUIRE(r.notes.size() == want_notes.size());
    for (size_t i = 0; i < want_notes.size(); ++i) {
      CHECK_THAT(r.notes[i], StartsWith(want_notes[i]));
    }
  }
}

TEST_CASE("cachebench import: the navy keys' mappings", "[cachebench]") {
  TempDir dir;
  const std::string cache = R"({"cache_config": {"cacheSizeMB": 64, "nvmCacheSizeMB": 256, )";
  const std::string test = R"(}, "test_config": {"numOps": 10, "numThreads": 2, "numKeys": 100,
      "keySizeRange": [8, 16], "keySizeRangeProbability": [1],
      "valSizeRange": [100, 1000], "valSizeRangeProbability": [1], "enableLookaside": true,
      "setRatio": 1}})";
  SECTION("segmented FIFO, hits reinsertion, clean regions, region size, admission rate") {
    const CachebenchImport r = import_text(
        cache + R"("navySegmentedFifoSegmentRatio": [2, 1], "navyHitsReinsertionThreshold": 3,
                   "navyCleanRegions": 2, "navyRegionSizeMB": 8, "navyBigHashSizePct": 0,
                   "navyAdmissionWriteRateMB": 40, "allocator": "LRU2Q")" +
        test);
    const YAML::Node y = yaml_of(r);
    CHECK(y["framework"]["name"].as<std::string>() == "blockcache");
    CHECK(y["framework"]["blockcache_region_eviction"].as<std::string>() == "sfifo");
    CHECK(numbers(y["framework"]["blockcache_sfifo_segment_ratio"]) == std::vector<double>{2, 1});
    CHECK(y["framework"]["blockcache_sfifo_priorities"].as<bool>() == false);
    CHECK(y["framework"]["blockcache_reinsertion"].as<std::string>() == "hits");
    CHECK(y["framework"]["blockcache_reinsertion_hits_threshold"].as<int>() == 3);
    CHECK(y["framework"]["blockcache_clean_regions"].as<int>() == 2);
    CHECK(y["framework"]["blockcache_region_size"].as<std::string>() == "8MiB");
    CHECK(y["tiers"]["flash_admission"].as<std::string>() == "rate_limited");
    CHECK(y["tiers"]["admission_write_rate_mib_s"].as<int>() == 40);
    CHECK(y["tiers"]["dram_policy"].as<std::string>() == "twoq");
    CHECK(r.unmapped.size() == 1);  // allocator LRU2Q: MM2Q is not the paper's 2Q
    CHECK_THAT(r.unmapped[0], StartsWith("cache_config.allocator (\"LRU2Q\"): CacheLib's MM2Q"));
    CHECK_THAT(r.notes.at(0), Contains("rate_limited"));
    const CellConfig c = load_one(dir, r);
    CHECK(c.tiers.flash_admission == FlashAdmission::kRateLimited);
    CHECK(plan_cell(c, stand_in_summary()).cache.capacity_bytes == 256 * kMiB - 1341952);
  }
  SECTION("BigHash keys; navyBloomFilterPerBucketSize in bits; the old reinsertion name") {
    const CachebenchImport r =
        import_text(cache + R"("navyBigHashSizePct": 20, "navyBigHashBucketSize": 8192,
                   "navyBloomFilterPerBucketSize": 16, "navySmallItemMaxSize": 3000,
                   "navyReinsertionPctThreshold": 30)" +
                    test);
    const YAML::Node f = yaml_of(r)["framework"];
    CHECK(f["name"].as<std::string>() == "hybrid");
    CHECK(f["hybrid_small_pct"].as<int>() == 20);
    CHECK(f["bighash_bucket_size"].as<int>() == 8192);
    CHECK(f["bighash_bloom_filter_bits"].as<int>() == 128);
    CHECK(f["hybrid_small_item_max_size"].as<int>() == 3000);
    CHECK(f["blockcache_reinsertion"].as<std::string>() == "percentage");
    CHECK(f["blockcache_reinsertion_pct"].as<int>() == 30);
    CHECK(r.unmapped.empty());
    REQUIRE(r.notes.size() == 1);
    CHECK_THAT(r.notes[0], Contains("navyReinsertionPctThreshold is read as "
                                    "navyProbabilityReinsertionThreshold"));
    plan_cell(load_one(dir, r), stand_in_summary());
  }
  SECTION("two nvmCachePaths (RAID-0): twice the device") {
    const CachebenchImport r = import_text(cache + R"("nvmCachePaths": ["/a", "/b"])" + test);
    CHECK(yaml_of(r)["cache"]["capacity"].as<std::string>() == "512MiB");
    CHECK_THAT(r.unmapped.at(0), Contains("RAID-0 over 2"));
  }
  SECTION("navy keys without NVM change nothing, and say so") {
    const CachebenchImport r = import_text(
        R"({"cache_config": {"cacheSizeMB": 64, "navyRegionSizeMB": 4, "nvmCacheSizeMB": 0)" +
        test);
    CHECK(yaml_of(r)["framework"]["name"].as<std::string>() == "exact");
    REQUIRE(r.unmapped.size() == 1);
    CHECK_THAT(r.unmapped[0], StartsWith("cache_config.navyRegionSizeMB (4): no effect: no NVM"));
  }
  SECTION("navyArenas: one pair with the arenas' BigHash share") {
    const CachebenchImport r =
        import_text(cache + R"("navyArenas": [{"name": "a", "sizePct": 20, "bigHashPct": 0},
                                  {"name": "b", "sizePct": 30, "bigHashPct": 50},
                                  {"name": "c", "sizePct": 50, "bigHashPct": 60}])" +
                    test);
    CHECK(yaml_of(r)["framework"]["hybrid_small_pct"].as<int>() == 45);  // (1500 + 3000) / 100
    CHECK_THAT(r.unmapped.at(0), Contains("45 % of the device"));
  }
}

TEST_CASE("cachebench import: test_config mappings", "[cachebench]") {
  TempDir dir;
  const std::string head = R"({"cache_config": {"cacheSizeMB": 64}, "test_config": {)";
  const std::string dist = R"("numKeys": 100, "keySizeRange": [0, 16], "keySizeRangeProbability":
      [1], "valSizeRange": [0, 10, 1000], "valSizeRangeProbability": [1, 2], "getRatio": 1)";
  SECTION("opRatePerSec is the trace's rate, its burst unmapped; size edges of 0 become 1") {
    const CachebenchImport r = import_text(
        head + R"("numOps": 5, "numThreads": 3, "opRatePerSec": 2000, "opRateBurstSize": 10,
        "enableLookaside": true, )" +
        dist + "}}");
    const YAML::Node t = yaml_of(r)["trace"];
    CHECK(t["requests"].as<int>() == 15);
    CHECK(t["rate"].as<int>() == 2000);
    CHECK(numbers(t["key_size_range"]) == std::vector<double>{1, 16});
    CHECK(numbers(t["val_size_range"]) == std::vector<double>{1, 10, 1000});
    REQUIRE(r.unmapped.size() == 1);
    CHECK_THAT(r.unmapped[0], StartsWith("test_config.opRateBurstSize (10): the token bucket"));
    CHECK(r.notes.size() == 2);  // the two edges of 0
    const CellConfig c = load_one(dir, r);
    CHECK(params(c).at("trace.rate") == "2000");
  }
  SECTION(
      "poolDistributions: the first is the workload, the rest and test_config's own keys "
      "are listed") {
    const CachebenchImport r =
        import_text(head + R"("numOps": 5, "numThreads": 1, "numKeys": 10, "enableLookaside": true,
        "getRatio": 0.9, "poolDistributions": [
          {"keySizeRange": [8, 9], "keySizeRangeProbability": [1], "valSizeRange": [50, 60],
           "valSizeRangeProbability": [1], "setRatio": 1, "zzz": 1},
          {"keySizeRange": [8, 9]}]}})");
    const YAML::Node t = yaml_of(r)["trace"];
    CHECK(t["set_ratio"].as<double>() == 1);
    CHECK(t["get_ratio"].as<double>() == 0);
    REQUIRE(r.unmapped.size() == 3);
    CHECK_THAT(r.unmapped[0], StartsWith("test_config.getRatio (0.9): ignored by CacheBench too"));
    CHECK_THAT(r.unmapped[1], StartsWith("test_config.poolDistributions[0].zzz (1): unknown"));
    CHECK_THAT(r.unmapped[2], StartsWith("test_config.poolDistributions[1] ("));
    load_one(dir, r);
  }
  SECTION("valSizeDistFile: its arrays are the value sizes") {
    dir.write("sz.json", R"({"valSizeRange": [10, 20, 30], "valSizeRangeProbability": [1, 1, 2]})");
    const CachebenchImport r = import_cachebench(
        head + R"("numOps": 5, "numThreads": 1, "numKeys": 10, "enableLookaside": true,
        "keySizeRange": [8, 9], "keySizeRangeProbability": [1], "valSizeDistFile": "sz.json",
        "setRatio": 1}})",
        "t.json", dir.path().string());
    const YAML::Node t = yaml_of(r)["trace"];
    CHECK(numbers(t["val_size_range"]) == std::vector<double>{10, 20, 30});
    CHECK(numbers(t["val_size_range_probability"]) == std::vector<double>{1, 1, 2});
    CHECK(r.unmapped.empty());
  }
  SECTION("replay: timestampFactor, ampFactor, fastForwardCount, repeatTraceReplay") {
    dir.write("tr/t.csv", "op_time,key,op,size\n1000,a,GET,10\n2000,b,SET,20\n3000,c,GET,30\n");
    const CachebenchImport r = import_cachebench(
        head + R"("generator": "replay", "numOps": 50, "numThreads": 2, "enableLookaside": true,
        "traceFileName": "t.csv", "configPath": ")" +
            dir.file("tr") + R"(",
        "repeatTraceReplay": true, "replayGeneratorConfig": {"ampFactor": 3,
        "fastForwardCount": 1, "preLoadReqs": 10}, "numKeys": 7}})",
        "t.json", "/nonexistent");
    const YAML::Node t = yaml_of(r)["trace"];
    CHECK(t["path"].as<std::string>() == dir.file("tr/t.csv"));
    CHECK(t["time_unit"].as<std::string>() == "ms");  // CacheBench's default factor, 1000
    REQUIRE(t["transforms"].size() == 3);
    CHECK(t["transforms"][0]["name"].as<std::string>() == "fast_forward");
    CHECK(t["transforms"][0]["requests"].as<int>() == 1);
    CHECK(t["transforms"][1]["name"].as<std::string>() == "amplify_keys");
    CHECK(t["transforms"][1]["factor"].as<int>() == 3);
    CHECK(t["transforms"][2]["name"].as<std::string>() == "repeat");
    CHECK(t["transforms"][2]["requests"].as<int>() == 100);
    REQUIRE(r.unmapped.size() == 2);
    CHECK_THAT(r.unmapped[0], StartsWith("test_config.replayGeneratorConfig.preLoadReqs (10)"));
    CHECK_THAT(r.unmapped[1], StartsWith("test_config.numKeys (7): no effect with generator "
                                         "replay"));
    // The replay runs: 3 rows, fast-forwarded by 1, amplified 3 times, repeated to 100.
    const CellConfig c = load_one(dir, r);
    const TraceSummary s = summarize_trace(c.trace);
    CHECK(s.requests == 100);
    CHECK(s.unique_objects == 6);
  }
  SECTION("replay: another timestampFactor is seconds scaled; enableLookaside false is listed") {
    dir.write("t.csv", "op_time,key,op,size\n60,a,GET,10\n120,b,SET,20\n");
    const CachebenchImport r = import_cachebench(
        head + R"("generator": "replay", "numOps": 5, "numThreads": 1, "traceFileName": "t.csv",
        "timestampFactor": 60, "enableLookaside": false}})",
        "t.json", dir.path().string());
    const YAML::Node t = yaml_of(r)["trace"];
    CHECK(t["time_unit"].as<std::string>() == "s");
    CHECK(t["transforms"][0]["name"].as<std::string>() == "time_scale");
    CHECK(t["transforms"][0]["factor"].as<double>() == 1.0 / 60);
    REQUIRE(r.unmapped.size() == 1);
    CHECK_THAT(r.unmapped[0], StartsWith("test_config.enableLookaside (false): without it"));
    CHECK(r.notes.empty());
    const CellConfig c = load_one(dir, r);
    const TraceSummary s = summarize_trace(c.trace);
    CHECK(s.last_time_ns - s.first_time_ns == 1000000000);  // 60 units of 1/60 s
  }
  SECTION("a JSON array of instances: the first imported, the others listed") {
    const std::string one =
        head + R"("numOps": 5, "numThreads": 1, "enableLookaside": true, )" + dist + "}}";
    const CachebenchImport r = import_text("[" + one + ",\n" + one + "]");
    REQUIRE(r.unmapped.size() == 1);
    CHECK_THAT(r.unmapped[0], StartsWith("[1] (instance 2 of 2)"));
  }
  SECTION("comments: // lines, trailing // and /* */, as folly::json::stripComments") {
    const CachebenchImport r = import_text(
        "// @nolint\n/* a\n block */ {\"cache_config\": {\"cacheSizeMB\": 64}, // trailing\n"
        "\"test_config\": {\"numOps\": 5, \"numThreads\": 1, \"enableLookaside\": true, \"x\": "
        "\"a // not a comment\", " +
        dist + "}}");
    REQUIRE(r.unmapped.size() == 1);
    CHECK_THAT(r.unmapped[0], StartsWith("test_config.x (\"a // not a comment\"): unknown"));
  }
  SECTION("an unknown top-level key is listed") {
    const CachebenchImport r = import_text(
        R"({"comment": "hi", "cache_config": {"cacheSizeMB": 64}, "test_config": {"numOps": 5,
        "numThreads": 1, "enableLookaside": true, )" +
        dist + "}}");
    REQUIRE(r.unmapped.size() == 1);
    CHECK_THAT(r.unmapped[0], StartsWith("comment (\"hi\"): unknown to CacheBench"));
  }
}

// The message of import_text(json), which must throw.
std::string error_of(const std::string& json, const std::string& dir = ".") {
  try {
    import_text(json, dir);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  FAIL("no error for " << json);
  return "";
}

TEST_CASE("cachebench import: malformed JSON and bad values name the file, line and key",
          "[cachebench]") {
  const std::string ok_test = R"("test_config": {"numOps": 5, "numThreads": 1, "numKeys": 10,
  "keySizeRange": [8, 9], "keySizeRangeProbability": [1], "valSizeRange": [50, 60],
  "valSizeRangeProbability": [1], "setRatio": 1})";
  // A cache_config body on line 2, then the test_config.
  auto with_cache = [&](const std::string& body) {
    return "{\"cache_config\": {\n" + body + "},\n" + ok_test + "}";
  };
  CHECK(error_of("{\"cache_config\": {\"cacheSizeMB\": 64,,\n}}") ==
        error_of("{\"cache_config\": {\"cacheSizeMB\": 64,,\n}}"));  // deterministic
  CHECK_THAT(error_of("// c\n{\"cache_config\": {\"cacheSizeMB\": 64\n  \"x\": 1}}"),
             StartsWith("t.json:3:"));
  CHECK_THAT(error_of("// c\n{\"cache_config\": {\"cacheSizeMB\": 64\n  \"x\": 1}}"),
             Contains("malformed JSON"));
  CHECK_THAT(error_of("[1, 2"), StartsWith("t.json:1:") && Contains("malformed JSON"));
  CHECK_THAT(error_of("42"), Contains("expected a JSON object"));
  CHECK(error_of(with_cache("\"cacheSizeMB\": \"64\"")) ==
        "t.json:2: key 'cache_config.cacheSizeMB': expected an integer in [1, 68719476736], "
        "found '\"64\"'");
  CHECK(error_of(with_cache("\"cacheSizeMB\": 64, \"navyRegionSizeMB\": 2048, "
                            "\"nvmCacheSizeMB\": 512")) ==
        "t.json:2: key 'cache_config.navyRegionSizeMB': expected an integer in [1, 1024], found "
        "'2048'");
  CHECK_THAT(
      error_of(with_cache("\"cacheSizeMB\": -1")),
      StartsWith("t.json:2: key 'cache_config.cacheSizeMB': expected") && Contains("found '-1'"));
  CHECK_THAT(error_of(with_cache("\"cacheSizeMB\": 1.5")), Contains("found '1.5'"));
  CHECK_THAT(error_of(with_cache("\"cacheSizeMB\": 64, \"nvmCacheSizeMB\": 512,\n"
                                 "\"navyBigHashSizePct\": 100")),
             StartsWith("t.json:3: key 'cache_config.navyBigHashSizePct': expected an integer "
                        "in [0, 99], found '100'"));
  CHECK_THAT(error_of(with_cache("\"cacheSizeMB\": 64, \"nvmCacheSizeMB\": 512, "
                                 "\"navyHitsReinsertionThreshold\": 2,\n"
                                 "\"navyProbabilityReinsertionThreshold\": 50")),
             StartsWith("t.json:3: key 'cache_config.navyProbabilityReinsertionThreshold'") &&
                 Contains("navy refuses both"));
  CHECK_THAT(error_of(with_cache("\"cacheSizeMB\": 64, \"nvmCacheSizeMB\": 512, "
                                 "\"navyHitsReinsertionThreshold\": 256")),
             Contains("casts it to uint8_t: 256 would be 0"));
  // feature_stress/navy/bh.json's layout: BigHash 99 % leaves no BlockCache region.
  CHECK_THAT(error_of(with_cache("\"cacheSizeMB\": 64, \"nvmCacheSizeMB\": 512, "
                                 "\"navyBigHashSizePct\": 99")),
             Contains("key 'cache_config.navyBigHashSizePct'") && Contains("Invalid layout"));
  CHECK_THAT(error_of(with_cache("\"cacheSizeMB\": 64, \"nvmCacheSizeMB\": 512, "
                                 "\"navySmallItemMaxSize\": 4053")),
             Contains("key 'cache_config.navySmallItemMaxSize'") && Contains("4052 B"));
  CHECK_THAT(error_of(with_cache("\"cacheSizeMB\": 64, \"numPools\": 2")),
             Contains("expected as many poolSizes as numPools (2), found 1"));
  CHECK_THAT(error_of(with_cache("\"cacheSizeMB\": 64, \"allocator\": \"TinyLFU\"")),
             StartsWith("t.json:2: key 'cache_config.allocator': expected LRU, LRU2Q, LRU5B or "
                        "LRU5B2Q") &&
                 Contains("found '\"TinyLFU\"'"));
  CHECK_THAT(error_of(with_cache("\"cacheSizeMB\": 64,\n\"cacheSizeMB\": 32")),
             StartsWith("t.json:3: key 'cache_config.cacheSizeMB': written twice (also on line "
                        "2)"));
  CHECK_THAT(error_of("{\"cache_config\": {\"cacheSizeMB\": 64}}"),
             Contains("key 'test_config': expected an object"));
  // test_config.
  const std::string cc = "{\"cache_config\": {\"cacheSizeMB\": 64},\n\"test_config\": {";
  CHECK_THAT(error_of(cc + "\"numOps\": 5, \"numThreads\": 0}}"),
             StartsWith("t.json:2: key 'test_config.numThreads': expected an integer >= 1, "
                        "found '0'"));
  CHECK_THAT(error_of(cc + "\"numOps\": 5, \"numThreads\": 1,\n\"generator\": \"binary-replay\"}}"),
             StartsWith("t.json:3: key 'test_config.generator'") &&
                 Contains("no reader for binary-replay"));
  CHECK_THAT(error_of(cc + "\"numOps\": 5, \"numThreads\": 1, \"generator\": \"replay\",\n"
                           "\"traceFileName\": \"nope.csv\"}}",
                      "/nonexistent-dir"),
             StartsWith("t.json:3: key 'test_config.traceFileName': 'nope.csv' resolves to "
                        "/nonexistent-dir/nope.csv"));
  CHECK_THAT(error_of(cc + "\"numOps\": 5, \"numThreads\": 1, \"generator\": \"replay\", "
                           "\"traceFileName\": \"a\",\n\"traceFileNames\": [\"b\"]}}"),
             StartsWith("t.json:3: key 'test_config.traceFileNames': set only one"));
  CHECK_THAT(error_of(cc + "\"numOps\": 5, \"numThreads\": 1, \"numKeys\": 10,\n"
                           "\"keySizeRange\": [8, 9, 10], \"keySizeRangeProbability\": [1]}}"),
             StartsWith("t.json:3: key 'test_config.keySizeRangeProbability': expected 2 "
                        "probabilities"));
  CHECK_THAT(error_of(cc + "\"numOps\": 5, \"numThreads\": 1, \"numKeys\": 5000000000}}"),
             Contains("at most 2^32 - 1 keys"));
  CHECK_THAT(error_of(cc + "\"numOps\": 5, \"numThreads\": 1, \"numKeys\": 10,\n"
                           "\"keySizeRange\": [8, 9], \"keySizeRangeProbability\": [1], "
                           "\"valSizeRange\": [9, 8], \"valSizeRangeProbability\": [1]}}"),
             StartsWith("t.json:3: key 'test_config.valSizeRange': expected increasing sizes"));
  CHECK_THAT(error_of(cc + "\"numOps\": 5, \"numThreads\": 1, \"numKeys\": 10,\n"
                           "\"keySizeRange\": [8, 9], \"keySizeRangeProbability\": [1], "
                           "\"valSizeRange\": [8, 9], \"valSizeRangeProbability\": [1]}}"),
             Contains("expected a positive getRatio, setRatio or delRatio"));
  CHECK_THAT(error_of(cc + "\"numOps\": 5, \"numThreads\": 1, \"name\": \"high_refcount\"}}"),
             Contains("key 'test_config.name'"));
}

TEST_CASE("cachebench import: the imported experiments run", "[cachebench]") {
  TempDir dir;
  // The trace replay as shipped (two small CSV files; the first is replayed).
  {
    const CellConfig c = load_one(dir, import_shipped("trace_replay/kvcache/config_kvtrace.json"));
    const TraceSummary s = summarize_trace(c.trace);
    std::map<std::string, std::string> row;
    for (const Column& col : run_cell(c, s)) row[col.name] = col.text;
    CHECK(row.count("error") == 0);
    CHECK(std::stoull(row.at("requests")) == s.requests);
  }
  // A hybrid import, shortened to 20,000 requests on a 64 MiB device.
  {
    const CachebenchImport r = import_text(
        R"({"cache_config": {"cacheSizeMB": 1, "nvmCacheSizeMB": 64, "navyRegionSizeMB": 1},
            "test_config": {"numOps": 10000, "numThreads": 2, "numKeys": 20000,
            "enableLookaside": true, "keySizeRange": [8, 16], "keySizeRangeProbability": [1],
            "valSizeRange": [100, 1000, 8000], "valSizeRangeProbability": [0.7, 0.3],
            "getRatio": 0.8, "setRatio": 0.2}})");
    const CellConfig c = load_one(dir, r);
    const TraceSummary s = summarize_trace(c.trace);
    CHECK(s.requests == 20000);
    std::map<std::string, std::string> row;
    for (const Column& col : run_cell(c, s)) row[col.name] = col.text;
    CHECK(row.count("error") == 0);
    CHECK(std::stod(row.at("flash_hit_ratio")) > 0);
    CHECK(std::stod(row.at("dram_hit_ratio")) > 0);
  }
}

TEST_CASE("cachebench import: every shipped config runs, its flash tier on simflash",
          "[cachebench]") {
  for (const std::string& rel : kShipped) {
    INFO(rel);
    TempDir dir;
    const CachebenchImport r = import_shipped(rel);
    const CellConfig as_imported = load_one(dir, r);
    std::vector<Override> o;
    // Shortened: 20,000 requests of a generated workload (the replayed trace is short already).
    if (params(as_imported).at("trace.format") == "generator") {
      o.push_back({"trace.requests", "20000"});
    }
    const bool flash = as_imported.tiers.enabled();
    if (flash) {
      o.push_back({"device.name", "simflash"});
      o.push_back({"device.size_to_cache", "true"});
      // 1 MiB of DRAM: 20,000 requests then reach flash (the configs' 100-128 MiB hold them).
      o.push_back({"tiers.dram_capacity", "1MiB"});
    }
    // ssd_perf's 932,000 MiB of flash, scaled down for a test.
    if (rel.starts_with("ssd_perf/")) o.push_back({"cache.capacity", "256MiB"});
    const CellConfig c = load_one(dir, r, o);
    const TraceSummary s = summarize_trace(c.trace);
    std::map<std::string, std::string> row;
    for (const Column& col : run_cell(c, s)) row[col.name] = col.text;
    INFO((row.count("error") ? row.at("error") : std::string()));
    REQUIRE(row.count("error") == 0);
    CHECK(std::stoull(row.at("requests")) == s.requests);
    CHECK(std::stoull(row.at("get_requests")) + std::stoull(row.at("set_requests")) +
              std::stoull(row.at("delete_requests")) ==
          s.requests);
    if (flash) {  // navy's engines wrote regions and buckets through simflash's FTL
      CHECK(std::stoull(row.at("host_bytes_written")) > 0);
      CHECK(std::stod(row.at("wa_ftl")) >= 1.0);
      CHECK(std::stoull(row.at("nand_bytes_written")) >= std::stoull(row.at("host_bytes_written")));
    }
  }
}

TEST_CASE("cachebench import: the fuzz target on its seed corpus", "[cachebench][fuzz]") {
  TempDir dir;
  size_t seeds = 0;
  for (const auto& e :
       std::filesystem::directory_iterator(std::filesystem::path(CBIMPORT_CORPUS_DIR))) {
    const std::string text = read(e.path().string());
    fuzz::cachebench_import_target({reinterpret_cast<const uint8_t*>(text.data()), text.size()},
                                   dir.path().string());
    ++seeds;
  }
  CHECK(seeds >= 6);
}

}  // namespace
}  // namespace flashpq::test_cachebench_import
