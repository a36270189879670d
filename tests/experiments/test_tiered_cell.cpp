// Tests of experiments/run/tiered_cell.cpp: a hierarchy's row, and what the loader refuses.
#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "experiments/config/cell_config.h"
#include "experiments/experiment.h"
#include "experiments/run/cell_runner.h"
#include "tests/test_util.h"
#include "traces/trace_summary.h"

namespace flashpq {
namespace {

using namespace flashpq::testing;  // tests/test_util.h
using Catch::Contains;
using RowMap = std::map<std::string, std::string>;

const std::string kTrace = FLASHPQ_SOURCE_DIR "/traces/data/adaptsize-request.oracleGeneral.zst";

const std::string kCell = R"(
warmup: 0.2
cache:
  capacity: 0.1
policy:
  name: lru
framework:
  name: ripq
  block_size: 0.00390625
device:
  name: simflash
  profile: tiny
  size_to_cache: true
)";

// The rows of `body` (the sections after trace:) on the bundled trace, by cell.
std::vector<RowMap> run_all(const std::string& body) {
  TempDir dir;
  const Experiment ex = load_experiment(
      dir.write("c.yaml", "name: c\ntrace:\n  path: " + kTrace + "\nseed: 1\n" + body), {});
  TraceConfig t;
  t.params.set("trace.path", kTrace);
  const TraceSummary summary = summarize_trace(t);
  std::vector<RowMap> rows;
  for (const CellConfig& cell : ex.cells) {
    RowMap m;
    for (const Column& c : run_cell(cell, summary)) m[c.name] = c.text;
    rows.push_back(std::move(m));
  }
  return rows;
}

double num(const RowMap& r, const std::string& k) {
  return std::stod(r.at(k));
}

TEST_CASE("tiered cell: the row's tiers add up, and a cache alone leaves their columns empty",
          "[tiers][experiments]") {
  const std::vector<RowMap> rows = run_all("matrix:\n  tiers.mode: [none, wt, pt]\n" + kCell +
                                           "tiers:\n  dram_capacity: 0.01\n");
  REQUIRE(rows.size() == 3);
  const RowMap& alone = rows[0];
  const RowMap& wt = rows[1];
  const RowMap& pt = rows[2];
  CHECK(alone.at("error").empty());
  for (const char* k : {"dram_hits", "flash_hit_ratio", "backing_reads", "dirty_bytes_flushed"}) {
    CHECK(alone.at(k).empty());
  }
  CHECK(wt.at("error") == "");
  // Every get is a DRAM hit, a flash hit or a backing-store read (the trace has only gets).
  CHECK(num(wt, "dram_hits") + num(wt, "flash_hits") == num(wt, "hits"));
  CHECK(num(wt, "hits") + num(wt, "backing_reads") == num(wt, "get_requests"));
  CHECK(num(wt, "dram_hit_ratio") + num(wt, "flash_hit_ratio") ==
        Approx(num(wt, "object_hit_ratio")).epsilon(1e-12));
  CHECK(num(wt, "dram_hits") > 0);
  CHECK(num(wt, "flash_hits") > 0);
  CHECK(num(wt, "promotions") == num(wt, "flash_hits"));
  CHECK(num(wt, "flash_admission_rejects") == 0);
  CHECK(num(wt, "backing_writes") == 0);
  // The flash tier writes what DRAM evicts into it: at least one device block's worth.
  CHECK(num(wt, "host_bytes_written") > 0);
  // Pass-through: the backing store serves everything, flash is never written.
  CHECK(num(pt, "hits") == 0);
  CHECK(num(pt, "backing_reads") == num(pt, "get_requests"));
  CHECK(num(pt, "host_bytes_written") == 0);
}

TEST_CASE("tiered cell: experiments/tiers.yaml shows what its comments say",
          "[tiers][experiments]") {
  const Experiment ex = load_experiment(FLASHPQ_SOURCE_DIR "/experiments/tiers.yaml", {});
  REQUIRE(ex.cells.size() == 15);
  TraceConfig t;
  t.params.set("trace.path", kTrace);
  const TraceSummary summary = summarize_trace(t);
  std::map<std::string, RowMap> wt;  // write-through, by admission
  for (const CellConfig& cell : ex.cells) {
    RowMap m;
    for (const Column& c : run_cell(cell, summary)) m[c.name] = c.text;
    REQUIRE(m.at("error").empty());
    CHECK(m.at("notes").empty());
    if (m.at("tiers.mode") == "wt") wt[m.at("tiers.flash_admission")] = m;
    if (m.at("tiers.mode") == "wo" || m.at("tiers.mode") == "pt") CHECK(num(m, "hits") == 0);
  }
  REQUIRE(wt.size() == 3);
  // nhit earns the highest flash hit ratio with under a fifth of the flash writes; random 0.5
  // about halves the writes and still beats all.
  CHECK(num(wt["nhit"], "flash_hit_ratio") > num(wt["random"], "flash_hit_ratio"));
  CHECK(num(wt["random"], "flash_hit_ratio") > num(wt["all"], "flash_hit_ratio"));
  CHECK(5 * num(wt["nhit"], "host_bytes_written") < num(wt["all"], "host_bytes_written"));
  const double accepted =
      num(wt["random"], "flash_admission_accepts") /
      (num(wt["random"], "flash_admission_accepts") + num(wt["random"], "flash_admission_rejects"));
  CHECK(accepted == Approx(0.5).margin(0.02));
  // The DRAM tier is the same in every admission policy.
  CHECK(wt["nhit"].at("dram_hits") == wt["all"].at("dram_hits"));
}

TEST_CASE("tiered cell: a DRAM tier as large as the flash tier is noted", "[tiers][experiments]") {
  const std::vector<RowMap> rows = run_all(kCell + "tiers:\n  mode: wt\n  dram_capacity: 0.1\n");
  REQUIRE(rows.size() == 1);
  CHECK_THAT(rows[0].at("notes"), Contains("the DRAM tier") && Contains("at least as large"));
  const std::vector<RowMap> fine = run_all(kCell + "tiers:\n  mode: wt\n  dram_capacity: 0.01\n");
  CHECK_THAT(fine[0].at("notes"), !Contains("DRAM tier"));
}

TEST_CASE("tiered cell: the loader refuses what a hierarchy cannot run", "[tiers][experiments]") {
  TempDir dir;
  auto load = [&](const std::string& extra) {
    return load_experiment(
        dir.write("c.yaml", "name: c\ntrace:\n  path: " + kTrace + "\nseed: 1\n" + kCell +
                                "tiers:\n  mode: wb\n" + extra),
        {});
  };
  CHECK_NOTHROW(load(""));
  CHECK_THROWS_WITH(load("timing:\n  mode: simulated\n"),
                    Contains("timing.mode") && Contains("a hierarchy runs functional only"));
  CHECK_THROWS_WITH(load("admission:\n  name: tinylfu\n"),
                    Contains("tiers.flash_admission decides"));
  CHECK_THROWS_WITH(load("  dram_policy: wtinylfu\n"),
                    Contains("tiers.dram_policy") && Contains("wtinylfu"));
  CHECK_THROWS_WITH(load("  flash_admission: nhit\n  nhit_table_slots: 1000\n"),
                    Contains("power of two"));
}

}  // namespace
}  // namespace flashpq
