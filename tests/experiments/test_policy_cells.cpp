// tests/experiments/test_policy_cells.cpp — the policies that own their structure and the offline
// bounds as cells run them (docs/guide/policies.md): every name on framework exact with device
// null and on simflash with naive placement, with TinyLFU admission, as a hierarchy's flash tier;
// the bounds' next-access file; and the configurations refused before any cell runs.
#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <vector>

#include "experiments/experiment.h"
#include "experiments/run/cell_runner.h"
#include "fmt/format.h"
#include "tests/block_test_util.h"
#include "tests/test_util.h"
#include "traces/trace_summary.h"

namespace flashpq::test_policy_cells {
namespace {

using Catch::Contains;
using RowMap = std::map<std::string, std::string>;

const std::string kTrace = FLASHPQ_SOURCE_DIR "/traces/data/adaptsize-request.oracleGeneral.zst";

const TraceSummary& bundled_summary() {
  static const TraceSummary s = [] {
    TraceConfig t;
    t.params.set("trace.path", kTrace);
    return summarize_trace(t);
  }();
  return s;
}

Experiment load(const testing::TempDir& dir, const std::string& body) {
  return load_experiment(
      dir.write("c.yaml", "name: c\ntrace:\n  path: " + kTrace + "\nseed: 1\nwarmup: 0\n" + body),
      {});
}

RowMap run_one(const std::string& body) {
  testing::TempDir dir;
  const Experiment ex = load(dir, body);
  REQUIRE(ex.cells.size() == 1);
  RowMap m;
  for (const Column& c : run_cell(ex.cells[0], bundled_summary())) m[c.name] = c.text;
  return m;
}

const std::vector<std::string> kNames = {"s3fifo", "sieve", "arc",   "twoq",   "lirs",
                                         "lfu",    "lfuda", "clock", "belady", "pfoo_l"};

TEST_CASE("every new policy runs as a cell on exact with device null", "[experiments][policies]") {
  std::map<std::string, double> hit_ratio;
  for (const std::string& name : kNames) {
    INFO(name);
    const RowMap row =
        run_one("cache: {capacity: 0.05, unit_size: true}\npolicy: {name: " + name + "}\n");
    REQUIRE(row.count("object_hit_ratio") == 1);
    CHECK(row.count("error") == 0);
    hit_ratio[name] = std::stod(row.at("object_hit_ratio"));
    CHECK(hit_ratio[name] > 0.1);
  }
  // Unit sizes: MIN is the optimum, PFOO-L's bound above it.
  for (const std::string& name : kNames) {
    INFO(name);
    if (name != "pfoo_l") CHECK(hit_ratio[name] <= hit_ratio["belady"]);
  }
  CHECK(hit_ratio["pfoo_l"] >= hit_ratio["belady"]);
}

TEST_CASE("the new policies on simflash: objects placed, device writes and WA",
          "[experiments][policies]") {
  for (const char* name : {"s3fifo", "sieve", "arc", "lirs", "belady"}) {
    INFO(name);
    const RowMap row = run_one(
        "cache: {capacity: 0.1}\npolicy: {name: " + std::string(name) +
        "}\nframework: {name: exact, placement: naive}\ndevice: {name: simflash, profile: tiny, "
        "size_to_cache: true}\n");
    CHECK(row.count("error") == 0);
    CHECK(std::stod(row.at("host_bytes_written")) > 0);
    CHECK(std::stod(row.at("wa_combined")) >= 1.0);
    CHECK(std::stod(row.at("placed_bytes")) == std::stod(row.at("miss_bytes_inserted")));
  }
}

TEST_CASE("a policy that owns its structure on a real file decides as on the null device",
          "[experiments][policies][block][slow]") {
  // Naive placement: every admitted object written to the file at an extent of its own, read on
  // each hit and checked (verify), trimmed when it leaves.
  testing::TempDir dir(testing::scratch_dir());
  const std::string body =
      "cache: {capacity: 16MiB}\npolicy: {name: s3fifo}\nframework: {name: exact, placement: "
      "naive}\n";
  const RowMap on_null = run_one(body);
  const RowMap on_file = run_one(body + "device: {name: block, path: " + dir.file("dev.img") +
                                 ", capacity: 32MiB, verify: true, discard_before_run: true}\n");
  REQUIRE(on_file.count("error") == 0);
  for (const char* k :
       {"requests", "hits", "object_hit_ratio", "byte_hit_ratio", "host_bytes_written",
        "device_writes", "device_reads", "trims", "evictions"}) {
    INFO(k);
    CHECK(on_null.at(k) == on_file.at(k));
  }
  CHECK(std::stod(on_file.at("device_writes")) > 0);
  CHECK(std::stod(on_file.at("verify_blocks_checked")) > 0);
}

TEST_CASE("the new policies take TinyLFU admission and run as a hierarchy's flash tier",
          "[experiments][policies]") {
  const RowMap plain = run_one("cache: {capacity: 0.05}\npolicy: {name: s3fifo}\n");
  const RowMap admitted =
      run_one("cache: {capacity: 0.05}\npolicy: {name: s3fifo}\nadmission: {name: tinylfu}\n");
  CHECK(std::stod(admitted.at("admission_rejections")) > 0);
  CHECK(admitted.at("object_hit_ratio") != plain.at("object_hit_ratio"));
  const RowMap tiered = run_one(
      "cache: {capacity: 0.05}\npolicy: {name: arc}\ntiers: {mode: wt, dram_capacity: 0.01, "
      "dram_policy: lru}\n");
  CHECK(tiered.count("error") == 0);
  CHECK(std::stod(tiered.at("flash_hits")) > 0);
  CHECK(std::stod(tiered.at("dram_hits")) > 0);
}

TEST_CASE("the new policies run as a hierarchy's DRAM tier, as their own cache of its size",
          "[experiments][policies][dram-tier]") {
  // A get-only trace, write-through: the DRAM tier sees every get as a cache of its size alone.
  for (const char* name : {"s3fifo", "sieve", "lirs"}) {
    INFO(name);
    const RowMap tiered = run_one(fmt::format(
        "cache: {{capacity: 0.05}}\npolicy: {{name: lru}}\ntiers: {{mode: wt, dram_capacity: "
        "0.01, dram_policy: {}}}\n",
        name));
    const RowMap alone =
        run_one(fmt::format("cache: {{capacity: 0.01}}\npolicy: {{name: {}}}\n", name));
    REQUIRE(tiered.count("error") == 0);
    CHECK(tiered.at("dram_hits") == alone.at("hits"));
    CHECK(std::stod(tiered.at("flash_hits")) > 0);
  }
}

TEST_CASE("experiments/policies.yaml: PFOO-L's miss ratio is below every policy's",
          "[experiments][policies]") {
  const Experiment ex = load_experiment(FLASHPQ_SOURCE_DIR "/experiments/policies.yaml", {});
  REQUIRE(ex.cells.size() == 56);
  // By capacity: each policy's object miss ratio, and the bound's.
  std::map<std::string, std::map<std::string, double>> miss;
  for (const CellConfig& cell : ex.cells) {
    RowMap row;
    for (const Column& c : run_cell(cell, bundled_summary())) row[c.name] = c.text;
    REQUIRE(row.count("error") == 0);
    CHECK(row.count("notes") == 0);  // no warm-up: no note on the bounds
    miss[row.at("cache.capacity")][cell.policy.name] = 1 - std::stod(row.at("object_hit_ratio"));
  }
  REQUIRE(miss.size() == 4);
  for (const auto& [capacity, by_policy] : miss) {
    for (const auto& [policy, m] : by_policy) {
      INFO("capacity " << capacity << " policy " << policy);
      CHECK(by_policy.at("pfoo_l") <= m);
    }
  }
}

TEST_CASE("configurations the new policies cannot run are refused before any cell",
          "[experiments][policies]") {
  testing::TempDir dir;
  CHECK_THROWS_WITH(load(dir,
                         "cache: {capacity: 0.1}\npolicy: {name: s3fifo}\nframework: {name: "
                         "ripq}\n"),
                    Contains("framework.name") && Contains("exact"));
  CHECK_THROWS_WITH(load(dir,
                         "cache: {capacity: 0.1}\npolicy: {name: belady}\ntiers: {mode: wt, "
                         "dram_capacity: 0.01}\n"),
                    Contains("tiers.mode") && Contains("belady"));
  CHECK_THROWS_WITH(load(dir,
                         "cache: {capacity: 0.1}\npolicy: {name: lru}\ntiers: {mode: wt, "
                         "dram_capacity: 0.01, dram_policy: belady}\n"),
                    Contains("tiers.dram_policy") && Contains("belady") && Contains("next-access"));
  CHECK_THROWS_WITH(load(dir,
                         "cache: {capacity: 0.1}\npolicy: {name: pfoo_l}\ndevice: {name: "
                         "simflash, profile: tiny}\n"),
                    Contains("device.name") && Contains("pfoo_l"));
  CHECK_THROWS_WITH(load(dir,
                         "cache: {capacity: 0.1}\npolicy: {name: s3fifo, "
                         "s3fifo_small_ratio: 1.5}\n"),
                    Contains("policy.s3fifo_small_ratio") && Contains("1.5"));
}

}  // namespace
}  // namespace flashpq::test_policy_cells
