// Tests of the flash engines as cells (engine/framework.h kEngine; engine/bighash/,
// engine/blockcache/): they run on
// every device and as a hierarchy's flash tier, their columns (dram_index_bytes_per_object,
// bloom_false_positive_reads, flash_write_rate_mib_s, device_lifetime_days) equal hand
// computations, and what they cannot run is refused before any cell.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "experiments/experiment.h"
#include "experiments/run/cell_runner.h"
#include "tests/block_test_util.h"
#include "tests/cell_test_util.h"
#include "tests/test_util.h"
#include "traces/trace_summary.h"

namespace flashpq::test_engine_cells {
namespace {

using Catch::Contains;
using RowMap = std::map<std::string, std::string>;

// The per-handle counts of an FDP column (fdp_handle_*_pages_written): comma-separated, handle 0
// first.
std::vector<double> per_handle(const std::string& text) {
  std::vector<double> out;
  size_t at = 0;
  while (at <= text.size()) {
    const size_t comma = std::min(text.find(',', at), text.size());
    out.push_back(std::stod(text.substr(at, comma - at)));
    at = comma + 1;
  }
  return out;
}

// The rows of every cell of a bundled experiment (one trace), each checked to carry no error
// and no note: an example runs a configuration a reviewer accepts.
std::vector<RowMap> run_bundled(const Experiment& ex) {
  const TraceSummary summary = summarize_trace(ex.cells[0].trace);
  std::vector<RowMap> rows;
  for (const CellConfig& cell : ex.cells) {
    RowMap m;
    for (const Column& c : run_cell(cell, summary)) m[c.name] = c.text;
    REQUIRE(m.count("error") == 0);
    CHECK(m.count("notes") == 0);
    rows.push_back(m);
  }
  return rows;
}

// 200,000 gets of 20,000 keys (Zipf 0.9) of 200 bytes each, 100,000 requests per second.
const std::string kSmallObjects =
    "trace:\n  format: generator\n  generator: zipf\n  objects: 20000\n  alpha: 0.9\n"
    "  requests: 200000\n  size: 200\n  rate: 100000\n";

// The same workload, 30,000 gets: the runs on devices that do real I/O.
const std::string kSmallObjectsShort =
    "trace:\n  format: generator\n  generator: zipf\n  objects: 20000\n  alpha: 0.9\n"
    "  requests: 30000\n  size: 200\n  rate: 100000\n";

Experiment load(const testing::TempDir& dir, const std::string& body) {
  return load_experiment(dir.write("c.yaml", "name: c\nseed: 1\nwarmup: 0\n" + body), {});
}

using testing::num;
using testing::run_one;

TEST_CASE("bighash cell: WA, DRAM, Bloom filter, write rate and lifetime by hand",
          "[engines][bighash]") {
  // 20 % of the working set (the keys the 200,000 gets reach, 200 B each), in 4 KiB buckets.
  const RowMap row = run_one(kSmallObjects +
                             "cache: {capacity: 0.2}\npolicy: {name: fifo}\n"
                             "framework: {name: bighash}\n");
  REQUIRE(row.count("error") == 0);
  const double buckets = std::floor(num(row, "cache_capacity_bytes") / 4096);
  CHECK(num(row, "trace_working_set_bytes") == 200 * num(row, "trace_unique_objects"));
  // Gets only: every miss is one insertion, one whole bucket written: WA = 4096 / 200.
  CHECK(num(row, "wa_implementation") == Approx(4096.0 / 200).epsilon(1e-12));
  CHECK(num(row, "host_bytes_written") == 4096 * (num(row, "get_requests") - num(row, "hits")));
  // Navy keeps 8 bytes of Bloom filter per bucket and nothing per object.
  CHECK(num(row, "dram_index_bytes_per_object") ==
        Approx(buckets * 8 / num(row, "cached_objects")).epsilon(1e-9));
  // (4096 − 24) / (200 + 20) = 18 objects per bucket, every bucket full after 200,000 gets.
  CHECK(num(row, "cached_objects") == buckets * 18);
  CHECK(num(row, "bloom_false_positive_reads") > 0);
  CHECK(num(row, "bloom_false_positive_reads") < num(row, "get_requests") - num(row, "hits"));
  // Trace time: requests 1e-5 s apart, 199,999 intervals.
  const double seconds = 199999 / 100000.0;
  const double rate = num(row, "host_bytes_written") / 1048576.0 / seconds;
  CHECK(num(row, "flash_write_rate_mib_s") == Approx(rate).epsilon(1e-6));
  // The null device has no endurance rating.
  CHECK(row.count("device_lifetime_days") == 0);
}

TEST_CASE("bighash cell: the same results on null, simflash and a file",
          "[engines][bighash][slow]") {
  const std::string base = kSmallObjectsShort +
                           "cache: {capacity: 0.2}\npolicy: {name: fifo}\n"
                           "framework: {name: bighash}\n";
  const RowMap on_null = run_one(base);
  const RowMap on_simflash =
      run_one(base + "device: {name: simflash, profile: tiny, size_to_cache: true}\n");
  testing::TempDir dir;
  const RowMap on_file = run_one(base + "device: {name: block, path: " + dir.file("bh.img") +
                                 ", capacity: 4MiB, verify: true, discard_before_run: true}\n");
  for (const RowMap* r : {&on_simflash, &on_file}) {
    REQUIRE(r->count("error") == 0);
    for (const char* k : {"hits", "host_bytes_written", "device_reads", "evictions",
                          "bloom_false_positive_reads"}) {
      INFO(k);
      CHECK(r->at(k) == on_null.at(k));
    }
  }
  CHECK(num(on_simflash, "wa_ftl") >= 1);
  // 1 DWPD over 5 years (the defaults) of simflash's exported bytes, at the trace-time rate.
  const double days = 1.0 * num(on_simflash, "device_exported_bytes") * 365 * 5 /
                      (num(on_simflash, "flash_write_rate_mib_s") * 1048576.0 * 86400);
  CHECK(num(on_simflash, "device_lifetime_days") == Approx(days).epsilon(1e-6));
  CHECK(num(on_simflash, "flash_write_rate_mib_s") ==
        Approx(num(on_null, "flash_write_rate_mib_s")).epsilon(1e-9));
  // BigHash reads buckets before their first write: not checked, not an error.
  CHECK(num(on_file, "verify_blocks_unchecked") > 0);
  CHECK(num(on_file, "verify_blocks_checked") > 0);
}

TEST_CASE("bighash cell: a hierarchy's flash tier", "[engines][bighash]") {
  const RowMap row = run_one(kSmallObjects +
                             "cache: {capacity: 0.2}\npolicy: {name: fifo}\n"
                             "framework: {name: bighash}\n"
                             "tiers: {mode: wt, dram_capacity: 0.02, dram_policy: s3fifo}\n");
  REQUIRE(row.count("error") == 0);
  CHECK(num(row, "flash_hits") > 0);
  CHECK(num(row, "dram_hits") > 0);
}

// 100,000 gets of 10,000 keys (Zipf 0.9) of 4064 bytes: navy slots of 4096 (a 32-byte header,
// 512-byte alignment), no padding.
const std::string kLargeObjects =
    "trace:\n  format: generator\n  generator: zipf\n  objects: 10000\n  alpha: 0.9\n"
    "  requests: 100000\n  size: 4064\n";

TEST_CASE("blockcache cell: application WA = (1 + reinserted / admitted) x slot / item",
          "[engines][blockcache]") {
  // 20 % of 40,640,000 B = 8,128,000 B: 7 regions of 1 MiB.
  for (const char* reinsertion : {"none", "hits", "percentage"}) {
    INFO(reinsertion);
    const RowMap row = run_one(kLargeObjects +
                               "cache: {capacity: 0.2}\npolicy: {name: fifo}\n"
                               "framework: {name: blockcache, blockcache_region_size: 1MiB, "
                               "blockcache_region_eviction: fifo, blockcache_reinsertion: " +
                               reinsertion + "}\n");
    REQUIRE(row.count("error") == 0);
    const double admitted = num(row, "miss_bytes_inserted");
    const double reinserted_slots = num(row, "reinserted_bytes") * 4096 / 4064;
    // Whole regions only: what the open region holds at the end is not written yet.
    const double expected = (admitted * 4096 / 4064 + reinserted_slots) / admitted;
    CHECK(num(row, "wa_implementation") == Approx(expected).epsilon(0.01));
    CHECK(std::fmod(num(row, "host_bytes_written"), 1048576.0) == 0);
    if (std::string(reinsertion) == "none") CHECK(num(row, "reinsertions") == 0);
    if (std::string(reinsertion) != "none") CHECK(num(row, "reinsertions") > 0);
    // Navy's SparseMapIndex: 12 bytes per object.
    CHECK(num(row, "dram_index_bytes_per_object") == 12);
  }
}

TEST_CASE("blockcache cell: the same results on null, simflash and a file",
          "[engines][blockcache][slow]") {
  const std::string base = kLargeObjects +
                           "cache: {capacity: 0.2}\npolicy: {name: fifo}\n"
                           "framework: {name: blockcache, blockcache_region_size: 1MiB, "
                           "blockcache_reinsertion: hits}\n";
  const RowMap on_null = run_one(base);
  const RowMap on_simflash =
      run_one(base + "device: {name: simflash, profile: tiny, size_to_cache: true}\n");
  testing::TempDir dir;
  const RowMap on_file = run_one(base + "device: {name: block, path: " + dir.file("bc.img") +
                                 ", capacity: 8MiB, verify: true, discard_before_run: true}\n");
  for (const RowMap* r : {&on_simflash, &on_file}) {
    REQUIRE(r->count("error") == 0);
    for (const char* k : {"hits", "host_bytes_written", "evictions", "reinsertions"}) {
      INFO(k);
      CHECK(r->at(k) == on_null.at(k));
    }
  }
  CHECK(num(on_file, "verify_blocks_checked") > 0);
}

TEST_CASE("blockcache cell: a hierarchy's flash tier, timed on simflash", "[engines][blockcache]") {
  const RowMap row = run_one(kLargeObjects +
                             "cache: {capacity: 0.2}\npolicy: {name: fifo}\n"
                             "framework: {name: blockcache, blockcache_region_size: 1MiB}\n"
                             "device: {name: simflash, profile: tiny, size_to_cache: true}\n"
                             "timing: {mode: simulated}\n"
                             "tiers: {mode: wt, dram_capacity: 0.02}\n"
                             "backing: {device: fixed_latency}\n");
  REQUIRE(row.count("error") == 0);
  CHECK(num(row, "flash_hits") > 0);
  CHECK(num(row, "flash_write_rate_mib_s") > 0);
  CHECK(num(row, "device_lifetime_days") > 0);
}

TEST_CASE("kangaroo cell: runs on null, simflash and a file alike, DRAM and admission",
          "[engines][kangaroo]") {
  // 20 % of the working set, 5 % of it the log, 4 KiB sets; random admission at 0.9.
  const std::string base = kSmallObjectsShort +
                           "cache: {capacity: 0.2}\npolicy: {name: fifo}\n"
                           "framework: {name: kangaroo, kangaroo_segment_size: 4KiB}\n";
  const RowMap on_null = run_one(base);
  REQUIRE(on_null.count("error") == 0);
  CHECK(num(on_null, "hits") > 0);
  // About 10 % of the insertions are refused before the log.
  const double misses = num(on_null, "get_requests") - num(on_null, "hits");
  CHECK(num(on_null, "admission_rejections") / misses == Approx(0.1).margin(0.01));
  // The paper's few bits per object, far below a log's full index.
  CHECK(num(on_null, "dram_index_bytes_per_object") < 4);
  CHECK(num(on_null, "bloom_false_positive_reads") > 0);
  const RowMap on_simflash =
      run_one(base + "device: {name: simflash, profile: tiny, size_to_cache: true}\n");
  testing::TempDir dir;
  const RowMap on_file = run_one(base + "device: {name: block, path: " + dir.file("kg.img") +
                                 ", capacity: 4MiB, verify: true, discard_before_run: true}\n");
  for (const RowMap* r : {&on_simflash, &on_file}) {
    REQUIRE(r->count("error") == 0);
    for (const char* k : {"hits", "host_bytes_written", "device_reads", "evictions"}) {
      INFO(k);
      CHECK(r->at(k) == on_null.at(k));
    }
  }
}

TEST_CASE("hybrid cell: small objects to BigHash, large to BlockCache, on a file",
          "[engines][hybrid]") {
  // Sizes lognormal around 1 KiB: both engines take objects.
  const std::string trace =
      "trace:\n  format: generator\n  generator: zipf\n  objects: 20000\n  alpha: 0.9\n"
      "  requests: 30000\n  size: 1KiB\n  size_distribution: lognormal\n"
      "  size_sigma: 1\n  size_max: 64KiB\n";
  const std::string base = trace +
                           "cache: {capacity: 0.3}\npolicy: {name: fifo}\n"
                           "framework: {name: hybrid, blockcache_region_size: 256KiB}\n";
  const RowMap on_null = run_one(base);
  REQUIRE(on_null.count("error") == 0);
  CHECK(num(on_null, "hits") > 0);
  CHECK(num(on_null, "bloom_false_positive_reads") > 0);
  testing::TempDir dir;
  const RowMap on_file = run_one(base + "device: {name: block, path: " + dir.file("hy.img") +
                                 ", capacity: 16MiB, verify: true, discard_before_run: true}\n");
  REQUIRE(on_file.count("error") == 0);
  for (const char* k : {"hits", "host_bytes_written", "device_reads", "evictions"}) {
    INFO(k);
    CHECK(on_file.at(k) == on_null.at(k));
  }
  CHECK(num(on_file, "verify_blocks_checked") > 0);
}

TEST_CASE("hybrid cell on an FDP simflash: each engine on its handle keeps the device WA near 1",
          "[engines][hybrid][fdp]") {
  // experiments/placement/cachelib_fdp.yaml at its 100 % point, shrunk: a 64 MiB hybrid (BigHash
  // 4 %) filling a preconditioned 64 MiB device (smaller, the open frontiers of the handles
  // take a visible share of its 7 % spare space). Without FDP BigHash's bucket rewrites share
  // every superblock with BlockCache's regions; with 3 handles they do not.
  const std::string body =
      "trace:\n  format: generator\n  generator: zipf\n  objects: 150000\n  alpha: 0.8\n"
      "  requests: 600000\n  size_distribution: lognormal\n  size: 1000\n"
      "  size_sigma: 1.2\n  size_min: 50\n  size_max: 64KiB\n"
      "cache: {capacity: 64MiB}\npolicy: {name: fifo}\n"
      "framework: {name: hybrid, hybrid_small_pct: 4, blockcache_region_size: 1MiB}\n"
      "device: {name: simflash, profile: tiny, utilization: 0.93, capacity: 64MiB, "
      "precondition: true";
  const RowMap mixed = run_one(body + "}\n");
  const RowMap placed = run_one(body + ", fdp: {handles: 3}}\n");
  CHECK(placed.at("object_hit_ratio") == mixed.at("object_hit_ratio"));
  CHECK(placed.at("wa_implementation") == mixed.at("wa_implementation"));
  CHECK(placed.at("host_pages_written") == mixed.at("host_pages_written"));
  CHECK(num(mixed, "host_pages_written") > 10 * 64 * 256);  // ten device capacities and more
  CHECK(num(mixed, "wa_ftl") > 1.8);
  CHECK(num(placed, "wa_ftl") < 1.15);
  CHECK(placed.at("device.fdp.handles") == "3");
  // Per handle (0, 1, 2): no host write on the default handle (its media pages are GC's copies
  // of the preconditioned data); the handles' pages add up to the device's, host and media
  // alike; BigHash's random buckets (handle 1) cost GC more than BlockCache's regions (2).
  const std::vector<double> host = per_handle(placed.at("fdp_handle_host_pages_written"));
  const std::vector<double> media = per_handle(placed.at("fdp_handle_media_pages_written"));
  REQUIRE(host.size() == 3);
  REQUIRE(media.size() == 3);
  CHECK(host[0] == 0);
  CHECK(host[1] + host[2] == num(placed, "host_pages_written"));
  CHECK(media[0] + media[1] + media[2] == num(placed, "nand_pages_written"));
  CHECK(media[1] / host[1] > media[2] / host[2]);
  CHECK(placed.at("fdp_invalid_placement_events") == "0");
  CHECK(mixed.count("fdp_handle_host_pages_written") == 0);
  CHECK(placed.at("device.precondition") == "true");
}

TEST_CASE("blockcache cell on a zoned simflash: a region per zone, device WA 1, resets as reclaims",
          "[engines][blockcache][zns]") {
  // Regions of one zone (one tiny superblock, 256 KiB), reinsertion by hits: the device has no
  // GC, so every NAND page is a host page and the only copies are the reinsertions BlockCache
  // counts itself (application-level WA).
  const std::string base = kLargeObjects +
                           "cache: {capacity: 0.2}\npolicy: {name: fifo}\n"
                           "framework: {name: blockcache, blockcache_region_size: 256KiB, "
                           "blockcache_reinsertion: hits}\n";
  const RowMap on_null = run_one(base);
  const RowMap zoned = run_one(base +
                               "device: {name: simflash, profile: tiny, size_to_cache: true, zns: "
                               "{zone_capacity: 256KiB}}\n");
  REQUIRE(zoned.count("error") == 0);
  for (const char* k : {"hits", "host_bytes_written", "evictions", "reinsertions"}) {
    INFO(k);
    CHECK(zoned.at(k) == on_null.at(k));
  }
  CHECK(num(zoned, "reinsertions") > 0);
  // Sized for the cache: whole zones, no spare.
  const double zones = num(zoned, "device_exported_bytes") / 262144;
  CHECK(zones == std::floor(zones));
  CHECK(zones * 262144 <= num(zoned, "cache_capacity_bytes") + 262144);
  CHECK(num(zoned, "host_pages_written") * 4096 == num(zoned, "host_bytes_written"));
  CHECK(zoned.at("nand_pages_written") == zoned.at("host_pages_written"));
  CHECK(zoned.at("wa_ftl") == "1");
  CHECK(zoned.at("gc_pages_copied") == "0");
  // Every zone written was reset once per reclaim of its region after its first flush: regions
  // flushed = host bytes / R, and all but the zones still holding a region at the end were
  // reset, each erasing its superblock (4 erase blocks).
  const double flushed = num(zoned, "host_bytes_written") / 262144;
  CHECK(num(zoned, "zone_resets") <= flushed);
  CHECK(num(zoned, "zone_resets") >= flushed - zones);
  CHECK(num(zoned, "erases") == 4 * num(zoned, "zone_resets"));
  CHECK(zoned.at("device.zns.zone_capacity") == "262144");
  CHECK(on_null.count("zone_resets") == 0);
  // Timed, the same decisions and resets; a reset's erase is on the dies' timelines, so the
  // slowest request waited at least tBERS (3.8 ms) beyond its region's programs.
  const RowMap timed = run_one(base +
                               "device: {name: simflash, profile: tiny, size_to_cache: true, zns: "
                               "{zone_capacity: 256KiB}}\ntiming: {mode: simulated}\n");
  REQUIRE(timed.count("error") == 0);
  for (const char* k : {"hits", "host_bytes_written", "zone_resets", "erases", "wa_ftl"}) {
    INFO(k);
    CHECK(timed.at(k) == zoned.at(k));
  }
  CHECK(num(timed, "sim_events") > 0);
  CHECK(num(timed, "latency_max_us") >= 3800);
}

TEST_CASE("a zoned device refuses frameworks that write in place, and regions that are not zones",
          "[engines][zns]") {
  const std::string device =
      "device: {name: simflash, profile: tiny, size_to_cache: true, zns: {zone_capacity: "
      "256KiB}}\n";
  CHECK_THROWS_WITH(run_one(kSmallObjects +
                            "cache: {capacity: 0.2}\npolicy: {name: fifo}\n"
                            "framework: {name: bighash}\n" +
                            device),
                    Contains("'bighash' writes its data in place") && Contains("zoned") &&
                        Contains("blockcache, ripq or sipq"));
  CHECK_THROWS_WITH(
      run_one(kLargeObjects +
              "cache: {capacity: 0.2}\npolicy: {name: fifo}\n"
              "framework: {name: blockcache, blockcache_region_size: 128KiB}\n" +
              device),
      Contains("framework.blockcache_region_size") && Contains("262144") && Contains("131072"));
}

// Every framework that places data, on small workloads: caches of 20 MB and 12 MB, dozens of
// 256 KiB zones or superblocks (so that the host FTL's default op_rate, 0.07, holds back the 3
// zones its collection needs without leaving the cache a small part of the device).
struct FrameworkCase {
  const char* name;
  std::string body;
  bool in_place;  // writes in place at random: refused by bare zones, collected by a host FTL
};

std::vector<FrameworkCase> every_framework() {
  const std::string small =
      "trace: {format: generator, generator: zipf, objects: 100000, alpha: 0.9, requests: "
      "300000, size: 200}\ncache: {capacity: 0.6}\npolicy: {name: fifo}\n";
  const std::string large = kLargeObjects + "cache: {capacity: 0.5}\npolicy: {name: fifo}\n";
  return {
      // LRU: naive placement frees extents out of their write order (FIFO would free whole
      // zones in order, and a host FTL would copy nothing).
      {"exact naive",
       kLargeObjects +
           "cache: {capacity: 0.5}\npolicy: {name: lru}\nframework: {name: exact, placement: "
           "naive}\n",
       true},
      {"bighash", small + "framework: {name: bighash}\n", true},
      {"kangaroo", small + "framework: {name: kangaroo, kangaroo_log_pct: 10}\n", true},
      {"hybrid",
       small + "framework: {name: hybrid, hybrid_small_pct: 50, blockcache_region_size: 256KiB}\n",
       true},
      {"blockcache", large + "framework: {name: blockcache, blockcache_region_size: 256KiB}\n",
       false},
      {"ripq", large + "framework: {name: ripq, block_size: 256KiB}\n", false},
      {"sipq", large + "framework: {name: sipq, block_size: 256KiB}\n", false}};
}

TEST_CASE("a host FTL over the zones runs every framework, functional and timed",
          "[engines][zns][host_ftl]") {
  // devices/host_ftl/host_ftl.h: the zoned device below does no GC (wa_ftl 1, no GC copies); the
  // host FTL's copies are host writes to it; the cache decides as on any device.
  const std::string zoned =
      "device: {name: simflash, profile: tiny, size_to_cache: true, zns: {zone_capacity: "
      "256KiB, host_ftl: true}}\n";
  for (const FrameworkCase& c : every_framework()) {
    INFO(c.name);
    const RowMap on_null = run_one(c.body);
    const RowMap row = run_one(c.body + zoned);
    REQUIRE(row.count("error") == 0);
    CHECK(row.at("object_hit_ratio") == on_null.at("object_hit_ratio"));
    CHECK(row.at("wa_ftl") == "1");
    CHECK(row.at("gc_pages_copied") == "0");
    CHECK(row.at("device.zns.host_ftl") == "true");
    CHECK(num(row, "host_pages_written") ==
          num(row, "host_ftl_pages_written") + num(row, "host_ftl_pages_copied"));
    CHECK(num(row, "host_ftl_pages_written") * 4096 >= num(row, "host_bytes_written"));
    CHECK(num(row, "wa_combined") ==
          Approx(num(row, "wa_implementation") * num(row, "wa_host_ftl")));
    if (c.in_place) {
      CHECK(num(row, "host_ftl_pages_copied") > 0);
      CHECK(num(row, "zone_resets") > 0);
    }
    // Sized for the cache: the host FTL exports whole zones, 7 % of all of them held back.
    const double exported_zones = num(row, "device_exported_bytes") / 262144;
    CHECK(exported_zones == std::floor(exported_zones));
    // Timed: the same counts, the collection's reads, writes and resets on the dies.
    const RowMap timed = run_one(c.body + zoned + "timing: {mode: simulated}\n");
    REQUIRE(timed.count("error") == 0);
    for (const char* k : {"object_hit_ratio", "host_pages_written", "host_ftl_pages_copied",
                          "zone_resets", "wa_host_ftl"}) {
      INFO(k);
      CHECK(timed.at(k) == row.at(k));
    }
    CHECK(num(timed, "sim_events") > 0);
  }
}

TEST_CASE("device.fdp and bare zones run every framework that can use them, functional and timed",
          "[engines][fdp][zns]") {
  // FDP (4 reclaim unit handles, more than any framework's data classes): every framework
  // places its classes and decides as on the null device; the handles' host and media pages add
  // up to the device's. Bare zones (no host FTL): the frameworks that write whole zones, with
  // device WA 1. Timed, the same counts.
  const std::string fdp =
      "device: {name: simflash, profile: tiny, size_to_cache: true, fdp: {handles: 4}}\n";
  const std::string zones =
      "device: {name: simflash, profile: tiny, size_to_cache: true, zns: {zone_capacity: "
      "256KiB}}\n";
  auto sum = [](const std::string& list) {
    const std::vector<double> v = per_handle(list);
    return std::accumulate(v.begin(), v.end(), 0.0);
  };
  for (const FrameworkCase& c : every_framework()) {
    INFO(c.name);
    const RowMap on_null = run_one(c.body);
    for (const bool timed : {false, true}) {
      INFO("timed " << timed);
      const std::string timing = timed ? "timing: {mode: simulated}\n" : "";
      const RowMap placed = run_one(c.body + fdp + timing);
      REQUIRE(placed.count("error") == 0);
      CHECK(placed.at("object_hit_ratio") == on_null.at("object_hit_ratio"));
      CHECK(sum(placed.at("fdp_handle_host_pages_written")) == num(placed, "host_pages_written"));
      CHECK(sum(placed.at("fdp_handle_media_pages_written")) == num(placed, "nand_pages_written"));
      CHECK(placed.at("fdp_invalid_placement_events") == "0");
      CHECK(num(placed, "host_pages_written") > 0);
      if (timed) CHECK(num(placed, "sim_events") > 0);
      if (c.in_place) continue;  // refused on bare zones (tested above: host FTL)
      const RowMap zoned = run_one(c.body + zones + timing);
      REQUIRE(zoned.count("error") == 0);
      CHECK(zoned.at("object_hit_ratio") == on_null.at("object_hit_ratio"));
      CHECK(zoned.at("wa_ftl") == "1");
      CHECK(zoned.at("gc_pages_copied") == "0");
      CHECK(num(zoned, "zone_resets") > 0);
      if (timed) CHECK(num(zoned, "sim_events") > 0);
    }
  }
}

TEST_CASE("blockcache s3fifo with one object per region is the DRAM S3-FIFO policy",
          "[engines][blockcache][s3fifo]") {
  // A second implementation: with regions of one slot (480-B objects in 512-B regions) and
  // enough clean regions that no move or second chance fails, S3-FIFO on regions decides object
  // by object, as policies/s3fifo.h does (the libCacheSim-equal policy) on a cache of the same
  // number of objects. FIFO regions against exact FIFO are the control. With one clean region a
  // move needs a clean region in the middle of the reclaim that one was taken for: it fails and
  // the object is dropped, as navy drops it (reinsertion errors), and the hit ratio falls.
  const std::string trace =
      "trace: {format: generator, generator: zipf, objects: 10000, alpha: 0.8, requests: "
      "200000, size: 480}\n";
  auto blockcache = [&](const std::string& eviction, uint32_t clean) {
    return run_one(trace +
                   "cache: {capacity: 512000}\npolicy: {name: fifo}\n"
                   "framework: {name: blockcache, blockcache_region_size: 512, "
                   "blockcache_clean_regions: " +
                   std::to_string(clean) + ", blockcache_region_eviction: " + eviction + "}\n");
  };
  auto exact = [&](const std::string& policy, uint64_t objects) {
    return run_one(trace + "cache: {capacity: " + std::to_string(objects * 480) +
                   "}\npolicy: {name: " + policy + "}\n");
  };
  const RowMap s3 = blockcache("s3fifo", 8);
  const RowMap fifo = blockcache("fifo", 8);
  // 1000 regions, about 8 of them clean and 2 open: the exact caches hold as many objects.
  const auto objects = static_cast<uint64_t>(num(s3, "cached_objects"));
  REQUIRE(objects >= 985);
  REQUIRE(objects <= 992);
  CHECK(num(fifo, "cached_objects") == objects);
  const RowMap s3_exact = exact("s3fifo", objects);
  const RowMap fifo_exact = exact("fifo", objects);
  CHECK(num(s3, "object_hit_ratio") == Approx(num(s3_exact, "object_hit_ratio")).margin(0.001));
  CHECK(num(fifo, "object_hit_ratio") == Approx(num(fifo_exact, "object_hit_ratio")).margin(0.001));
  CHECK(num(s3, "object_hit_ratio") > num(fifo, "object_hit_ratio") + 0.1);
  CHECK(num(s3, "reinsertions") > 10000);  // every move and second chance is a rewrite
  const RowMap starved = blockcache("s3fifo", 1);
  CHECK(num(starved, "object_hit_ratio") < num(s3, "object_hit_ratio") - 0.03);
}

TEST_CASE("experiments/placement/zns.yaml shows what its README says",
          "[engines][blockcache][zns][experiments][slow]") {
  // experiments/placement/README.md "Zoned Namespaces": on the same flash, the zoned drive
  // exports all of it and its cache hits more, both at device WA 1, with the same erases per
  // host page; the zoned drive's reclaims are zone resets.
  const Experiment ex = load_experiment(FLASHPQ_SOURCE_DIR "/experiments/placement/zns.yaml", {});
  REQUIRE(ex.cells.size() == 2);
  const std::vector<RowMap> rows = run_bundled(ex);
  const RowMap& conventional = rows[0];
  const RowMap& zoned = rows[1];
  REQUIRE(zoned.at("device.zns.zone_capacity") == "262144");
  CHECK(num(zoned, "device_exported_bytes") == 64 << 20);
  CHECK(num(conventional, "device_exported_bytes") < 0.94 * (64 << 20));
  CHECK(num(zoned, "object_hit_ratio") > num(conventional, "object_hit_ratio") + 0.005);
  for (const RowMap* r : {&conventional, &zoned}) {
    CHECK(r->at("wa_ftl") == "1");
    CHECK(r->at("gc_pages_copied") == "0");
    CHECK(num(*r, "erases") * 16 == num(*r, "host_pages_written"));
    CHECK(num(*r, "reinsertions") > 0);
  }
  CHECK(num(zoned, "erases") == 4 * num(zoned, "zone_resets"));
  CHECK(conventional.count("zone_resets") == 0);
}

TEST_CASE("experiments/placement/zns_host_ftl.yaml shows what its README says",
          "[engines][zns][host_ftl][experiments][slow]") {
  // experiments/placement/README.md "Zoned Namespaces: a host FTL for caches that write in
  // place": for BigHash and Kangaroo, the same hits on the conventional drive and under the host
  // FTL; the drive's WA 1 under it and the copies the host's; at the same spare flash the host
  // FTL copies less, and with one spare zone fewer it matches simflash's FTL within 1 %.
  const Experiment ex =
      load_experiment(FLASHPQ_SOURCE_DIR "/experiments/placement/zns_host_ftl.yaml", {});
  REQUIRE(ex.cells.size() == 6);
  const std::vector<RowMap> rows = run_bundled(ex);
  for (size_t f = 0; f < 2; ++f) {  // bighash, kangaroo
    const RowMap& conventional = rows[3 * f];
    const RowMap& same_spare = rows[3 * f + 1];
    const RowMap& one_less = rows[3 * f + 2];
    INFO(conventional.at("framework.name"));
    CHECK(conventional.at("device.zns.host_ftl") == "false");
    CHECK(num(conventional, "wa_ftl") > 4);
    for (const RowMap* r : {&same_spare, &one_less}) {
      CHECK(r->at("object_hit_ratio") == conventional.at("object_hit_ratio"));
      CHECK(r->at("wa_ftl") == "1");
      CHECK(r->at("gc_pages_copied") == "0");
      CHECK(num(*r, "device_exported_bytes") == 32 << 20);
    }
    CHECK(num(same_spare, "wa_host_ftl") < 0.95 * num(conventional, "wa_ftl"));
    CHECK(num(one_less, "wa_host_ftl") == Approx(num(conventional, "wa_ftl")).epsilon(0.01));
  }
}

TEST_CASE("experiments/placement/zns_regions.yaml shows what its README says",
          "[engines][blockcache][zns][host_ftl][experiments][slow]") {
  // experiments/placement/README.md "Zoned Namespaces: regions smaller than a zone": four
  // regions to a zone through the host FTL cost no copy when regions are reclaimed in the order
  // they were written (FIFO), and cost copies when not (LRU).
  const Experiment ex =
      load_experiment(FLASHPQ_SOURCE_DIR "/experiments/placement/zns_regions.yaml", {});
  REQUIRE(ex.cells.size() == 3);
  const std::vector<RowMap> rows = run_bundled(ex);
  const RowMap& native = rows[0];
  const RowMap& fifo = rows[1];
  const RowMap& lru = rows[2];
  CHECK(native.count("wa_host_ftl") == 0);
  CHECK(num(native, "zone_resets") > 0);
  for (const RowMap* r : {&native, &fifo, &lru}) CHECK(r->at("wa_ftl") == "1");
  CHECK(fifo.at("host_ftl_pages_copied") == "0");
  CHECK(fifo.at("wa_host_ftl") == "1");
  CHECK(num(fifo, "object_hit_ratio") == Approx(num(native, "object_hit_ratio")).margin(0.005));
  CHECK(num(lru, "wa_host_ftl") > 2);
  CHECK(num(lru, "object_hit_ratio") > num(fifo, "object_hit_ratio"));
  CHECK(num(lru, "wa_combined") > 2 * num(fifo, "wa_combined"));
}

#ifdef FLASHPQ_SHARED_TRACES
TEST_CASE("experiments/engines/blockcache_rules.yaml shows what its README says",
          "[engines][blockcache][experiments][slow]") {
  // experiments/engines/README.md "BlockCache's region rules": S3-FIFO on regions has the
  // highest hit ratio and the lowest WA of the rules that rewrite; 1-bit clock is the hits
  // policy with threshold 1; a 200-B object in a 512-B slot writes 2.56 bytes per byte admitted.
  const Experiment ex =
      load_experiment(FLASHPQ_SOURCE_DIR "/experiments/engines/blockcache_rules.yaml",
                      {{"trace.path", FLASHPQ_SHARED_TRACES "/converted/w106.oracleGeneral.zst"}});
  REQUIRE(ex.cells.size() == 7);
  std::map<std::string, RowMap> by;  // eviction/reinsertion/bits
  for (const RowMap& m : run_bundled(ex)) {
    by[m.at("framework.blockcache_region_eviction") + "/" +
       m.at("framework.blockcache_reinsertion") + "/" + m.at("framework.blockcache_clock_bits")] =
        m;
  }
  REQUIRE(by.size() == 7);
  const RowMap& s3 = by.at("s3fifo/none/1");
  for (const auto& [name, m] : by) {
    INFO(name);
    if (name == "s3fifo/none/1") continue;
    CHECK(num(s3, "object_hit_ratio") > num(m, "object_hit_ratio") + 0.01);
    if (num(m, "reinsertions") > 0) {
      CHECK(num(s3, "wa_implementation") < num(m, "wa_implementation"));
    } else {
      CHECK(num(m, "wa_implementation") == Approx(512.0 / 200).epsilon(0.001));
    }
  }
  CHECK(num(s3, "reinsertions") > 0);
  CHECK(num(s3, "dram_index_bytes_per_object") > 12);
  for (const char* k : {"object_hit_ratio", "reinsertions", "wa_implementation", "evictions"}) {
    CHECK(by.at("fifo/clock/1").at(k) == by.at("fifo/hits/1").at(k));
  }
  CHECK(num(by.at("fifo/clock/2"), "reinsertions") > num(by.at("fifo/clock/1"), "reinsertions"));
}
#endif

TEST_CASE("engines refuse what they cannot run, before any cell", "[engines]") {
  testing::TempDir dir;
  const std::string base = kSmallObjects + "cache: {capacity: 0.2}\n";
  CHECK_THROWS_WITH(load(dir, base + "framework: {name: bighash}\npolicy: {name: lru}\n"),
                    Contains("policy.name") && Contains("fifo") && Contains("bighash"));
  CHECK_THROWS_WITH(load(dir, base + "framework: {name: bighash}\npolicy: {name: fifo}\n"
                                     "admission: {name: tinylfu}\n"),
                    Contains("admission.name") && Contains("none"));
  CHECK_THROWS_WITH(load(dir, kSmallObjects + "cache: {capacity: 0.2, unit_size: true}\n"
                                              "framework: {name: bighash}\npolicy: {name: fifo}\n"),
                    Contains("unit_size"));
  CHECK_THROWS_WITH(load(dir, base + "framework: {name: bighash, bighash_bucket_size: 3000}\n"
                                     "policy: {name: fifo}\n"),
                    Contains("framework.bighash_bucket_size") && Contains("3000"));
  CHECK_THROWS_WITH(load(dir, base + "framework: {name: blockcache}\npolicy: {name: gdsf}\n"),
                    Contains("policy.name") && Contains("blockcache"));
}

}  // namespace
}  // namespace flashpq::test_engine_cells
