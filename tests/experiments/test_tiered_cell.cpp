// Tests of experiments/run/tiered_cell.cpp: a hierarchy's row, and what the loader refuses.
#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "devices/simflash/flash_timing.h"
#include "devices/simflash/simflash_config.h"
#include "experiments/config/cell_config.h"
#include "experiments/experiment.h"
#include "experiments/run/cell_runner.h"
#include "tests/test_util.h"
#include "traces/trace_summary.h"

namespace flashpq::test_tiered_cell {
namespace {

using namespace flashpq::testing;  // tests/test_util.h
using Catch::Contains;
// A row's fields; a column the row does not carry reads as "" (tests/test_util.h).
using RowMap = testing::RowFields;

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
  REQUIRE(ex.cells.size() == 25);
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
  REQUIRE(wt.size() == 5);
  // nhit earns the highest flash hit ratio with under a fifth of the flash writes; random 0.5
  // about halves the writes and still beats all.
  CHECK(num(wt["nhit"], "flash_hit_ratio") > num(wt["random"], "flash_hit_ratio"));
  CHECK(num(wt["random"], "flash_hit_ratio") > num(wt["all"], "flash_hit_ratio"));
  CHECK(5 * num(wt["nhit"], "host_bytes_written") < num(wt["all"], "host_bytes_written"));
  const double accepted =
      num(wt["random"], "flash_admission_accepts") /
      (num(wt["random"], "flash_admission_accepts") + num(wt["random"], "flash_admission_rejects"));
  CHECK(accepted == Approx(0.5).margin(0.02));
  // tinylfu: a higher flash hit ratio than all's with under a fifth of its writes.
  CHECK(num(wt["tinylfu"], "flash_hit_ratio") > num(wt["random"], "flash_hit_ratio"));
  CHECK(5 * num(wt["tinylfu"], "host_bytes_written") < num(wt["all"], "host_bytes_written"));
  // rate_limited: the bytes inserted into flash over the measured requests (timestamps 1 s
  // apart) within 5 % of the target rate, 0.001 MiB/s, times that span.
  const double span_s = num(wt["rate_limited"], "requests");
  CHECK(num(wt["rate_limited"], "miss_bytes_inserted") ==
        Approx(0.001 * 1024 * 1024 * span_s).epsilon(0.05));
  // The DRAM tier is the same in every admission policy.
  CHECK(wt["nhit"].at("dram_hits") == wt["all"].at("dram_hits"));
  CHECK(wt["tinylfu"].at("dram_hits") == wt["all"].at("dram_hits"));
}

// The rows of an experiment whose trace is a generator, by cell.
std::vector<RowMap> run_generated(const Experiment& ex) {
  std::vector<RowMap> rows;
  for (const CellConfig& cell : ex.cells) {
    const TraceSummary summary = summarize_trace(cell.trace);
    RowMap m;
    for (const Column& c : run_cell(cell, summary)) m[c.name] = c.text;
    rows.push_back(std::move(m));
  }
  return rows;
}

// 4 KiB gets of 2,000 keys at 10,000 requests/s on a pass-through hierarchy with a core device
// of 40 MiB/s and 100 µs: every get goes to the core device alone.
const std::string kPassThrough = R"(name: pt
trace:
  format: generator
  generator: zipf
  objects: 2000
  alpha: 0
  size: 4KiB
  requests: 20000
seed: 1
cache:
  capacity: 0.5
policy:
  name: lru
framework:
  name: exact
  placement: naive
device:
  name: simflash
  profile: tiny
  size_to_cache: true
tiers:
  mode: pt
  dram: false
backing:
  device: fixed_latency
  read_bandwidth_mib_s: 40
  read_latency_us: 100
)";

TEST_CASE("tiered cell: timed pass-through equals the core device's analytic figures",
          "[tiers][experiments]") {
  TempDir dir;
  // One client, closed loop: each get takes 4096 B / 40 MiB/s (97,656.25 ns, rounded to
  // 97,656) + 100 µs = 197.656 µs, one after the other.
  std::vector<RowMap> rows = run_generated(load_experiment(
      dir.write("a.yaml", kPassThrough + "timing:\n  mode: simulated\n  arrival: closed_loop\n"),
      {}));
  REQUIRE(rows.size() == 1);
  RowMap r = rows[0];
  REQUIRE(r.at("error").empty());
  CHECK(num(r, "latency_p50_us") == Approx(197.656).epsilon(0.01));  // the histogram's 1 %
  CHECK(num(r, "latency_max_us") == Approx(197.656).margin(1e-9));
  CHECK(num(r, "latency_mean_us") == Approx(197.656).margin(1e-6));
  CHECK(num(r, "throughput_rps") == Approx(1e6 / 197.656).epsilon(1e-6));
  CHECK(num(r, "backing_throughput_mib_s") == Approx(4096 / 197.656e-6 / 1048576).epsilon(1e-6));
  CHECK(num(r, "flash_throughput_mib_s") == 0);
  CHECK(num(r, "hits") == 0);
  // Events: per get, the client's readiness and the core device's completion; then the
  // client's last readiness, which finds the trace ended.
  CHECK(num(r, "sim_events") == 2 * 20000 + 1);
  // Open loop at 20,000 requests/s, twice what 40 MiB/s carries (10,240 of 4 KiB): the core
  // device serves its bandwidth.
  rows = run_generated(load_experiment(
      dir.write("b.yaml",
                kPassThrough + "timing:\n  mode: simulated\n  arrival: poisson\n  rate: 20000\n"),
      {}));
  r = rows[0];
  CHECK(num(r, "throughput_rps") == Approx(10240).epsilon(0.01));
  CHECK(num(r, "backing_throughput_mib_s") == Approx(40).epsilon(0.01));
}

TEST_CASE("tiered cell: a backing store on a second simflash device takes its NAND time",
          "[tiers][experiments]") {
  TempDir dir;
  // Pass-through over a backing device of simflash's mqsim profile: one closed-loop client,
  // every 4 KiB get one page read there: tR + one page's transfer, nothing else queued.
  std::string body = kPassThrough;
  body = body.substr(0, body.find("backing:")) +
         "backing:\n  device: simflash\n  profile: mqsim\ntiming:\n  mode: simulated\n"
         "  arrival: closed_loop\n";
  const Experiment ex = load_experiment(dir.write("s.yaml", body), {});
  std::vector<RowMap> rows = run_generated(ex);
  REQUIRE(rows.size() == 1);
  const RowMap& r = rows[0];
  REQUIRE(r.at("error").empty());
  Params p;
  p.set("device.profile", std::string("mqsim"));
  const FlashTiming mqsim(simflash_config(p, 1));
  const double read_us = static_cast<double>(mqsim.read_ns() + mqsim.transfer_ns()) / 1e3;
  CHECK(num(r, "latency_max_us") == Approx(read_us).margin(1e-9));
  CHECK(num(r, "latency_mean_us") == Approx(read_us).margin(1e-6));
  CHECK(num(r, "throughput_rps") == Approx(1e6 / read_us).epsilon(1e-6));
  CHECK(num(r, "backing_read_bytes") == num(r, "requests") * 4096);
  CHECK(num(r, "host_bytes_written") == 0);  // the flash tier is never written
  // The same cell again: the same row (the fill and the layout are deterministic).
  const RowMap again = run_generated(ex)[0];
  for (const auto& [k, v] : r) {
    if (k != "wall_seconds") CHECK(again.at(k) == v);
  }
  // Open loop at four times what one die serves: requests queue on the backing device's dies,
  // never below one read each.
  const std::vector<RowMap> open = run_generated(load_experiment(
      dir.write("o.yaml", body.substr(0, body.find("timing:")) +
                              "timing:\n  mode: simulated\n  arrival: poisson\n  rate: " +
                              std::to_string(static_cast<int>(4e6 / read_us)) + "\n"),
      {}));
  CHECK(num(open[0], "latency_p50_us") >= read_us * 0.99);
}

// The rows of an NHC experiment by mode and offered rate: 12 cells at a 99 % hit ratio, none
// failed or noted.
std::map<std::string, std::map<int, RowMap>> nhc_rows(const std::string& file) {
  const Experiment ex = load_experiment(file, {});
  REQUIRE(ex.cells.size() == 12);
  std::map<std::string, std::map<int, RowMap>> by;
  for (const RowMap& m : run_generated(ex)) {
    REQUIRE(m.at("error").empty());
    CHECK(m.at("notes").empty());
    CHECK(num(m, "object_hit_ratio") == Approx(0.99).margin(0.001));
    by[m.at("tiers.mode")][std::stoi(m.at("timing.rate"))] = m;
  }
  return by;
}

TEST_CASE("tiered cell: experiments/nhc_flash_core.yaml shows what its comments say",
          "[tiers][experiments][slow]") {
  auto by = nhc_rows(FLASHPQ_SOURCE_DIR "/experiments/nhc_flash_core.yaml");
  CHECK(by["wa"][10000].at("backing.device") == "simflash");
  auto rps = [&](const std::string& mode, int rate) {
    return num(by[mode][rate], "throughput_rps");
  };
  for (int rate : {10000, 20000, 30000}) {
    INFO("offered " << rate);
    CHECK(rps("wa", rate) == Approx(rate).epsilon(0.01));
    CHECK(rps("nhc_wa", rate) == Approx(rate).epsilon(0.01));
  }
  for (int rate : {50000, 60000}) {
    INFO("offered " << rate);
    CHECK(rps("nhc_wa", rate) > 1.3 * rps("wa", rate));
    CHECK(num(by["nhc_wa"][rate], "backing_throughput_mib_s") > 30);
    CHECK(num(by["wa"][rate], "backing_throughput_mib_s") < 3);  // the 1 % of misses
  }
}

TEST_CASE("tiered cell: experiments/nhc.yaml shows what its comments say",
          "[tiers][experiments][slow]") {
  auto by = nhc_rows(FLASHPQ_SOURCE_DIR "/experiments/nhc.yaml");
  auto rps = [&](const std::string& mode, int rate) {
    return num(by[mode][rate], "throughput_rps");
  };
  // Below the cache device's bandwidth both serve what is offered.
  for (int rate : {10000, 20000, 30000}) {
    INFO("offered " << rate);
    CHECK(rps("wa", rate) == Approx(rate).epsilon(0.01));
    CHECK(rps("nhc_wa", rate) == Approx(rps("wa", rate)).epsilon(0.01));
  }
  // Beyond it wa is stuck at the cache device; nhc_wa adds the core device's share.
  for (int rate : {50000, 60000}) {
    INFO("offered " << rate);
    CHECK(rps("wa", rate) < 37000);
    CHECK(rps("nhc_wa", rate) > 1.3 * rps("wa", rate));
    const RowMap& n = by["nhc_wa"][rate];
    CHECK(num(n, "backing_throughput_mib_s") > 35);
    CHECK(num(n, "flash_throughput_mib_s") > num(by["wa"][rate], "flash_throughput_mib_s"));
    CHECK(num(n, "offloaded_reads") > 0);
    CHECK(num(n, "nhc_load_admit") < 1);
  }
  // wa offloads nothing and has no controller: its row carries neither column.
  CHECK(by["wa"][60000].count("offloaded_reads") == 0);
  CHECK(by["wa"][60000].count("nhc_load_admit") == 0);
}

TEST_CASE("tiered cell: experiments/kv_compare.yaml shows what its comments say",
          "[tiers][experiments][slow]") {
  const Experiment ex = load_experiment(FLASHPQ_SOURCE_DIR "/experiments/kv_compare.yaml", {});
  REQUIRE(ex.cells.size() == 20);
  // records → workload (letter, "-uniform") → admit probability → row
  std::map<int, std::map<std::string, std::map<std::string, RowMap>>> by;
  for (const RowMap& m : run_generated(ex)) {
    REQUIRE(m.at("error").empty());
    CHECK(m.at("notes").empty());
    // The load phase (every record set once) is the warm-up.
    CHECK(m.at("warmup_requests") == m.at("trace.record_count"));
    const std::string w = m.at("trace.workload") +
                          (m.at("trace.request_distribution") == "uniform" ? "-uniform" : "");
    by[std::stoi(m.at("trace.record_count"))][w][m.at("tiers.admit_probability")] = m;
  }
  for (const std::string w : {"a", "b", "c", "b-uniform"}) {
    INFO("workload " << w);
    // Data in DRAM: the configurations agree, every request takes DRAM's 10 µs.
    const RowMap& dram = by[2000][w]["0"];
    const RowMap& flash = by[2000][w]["1"];
    CHECK(num(dram, "object_hit_ratio") == 1);
    CHECK(dram.at("read_latency_p95_us") == flash.at("read_latency_p95_us"));
    CHECK(num(dram, "throughput_rps") == Approx(4 / 10e-6));
    CHECK(num(flash, "throughput_rps") == Approx(4 / 10e-6));
    // 7.6× DRAM: flash serves the reads, its read p95 is a flash read, its writes stay in DRAM;
    // DRAM alone misses most gets (0.36 hit with YCSB's zipfian, 0.13 uniform).
    const RowMap& big_dram = by[32000][w]["0"];
    const RowMap& big_flash = by[32000][w]["1"];
    CHECK(num(big_dram, "object_hit_ratio") < 0.4);
    CHECK(num(big_flash, "object_hit_ratio") > 0.99);
    CHECK(num(big_dram, "read_latency_p95_us") == Approx(10).epsilon(0.01));
    CHECK(num(big_flash, "read_latency_p95_us") > 150);
    CHECK(num(big_flash, "throughput_rps") < num(big_dram, "throughput_rps") / 5);
    if (w != "c") CHECK(num(big_flash, "write_latency_p95_us") == Approx(10).epsilon(0.01));
  }
  // Uniform keys: DRAM's hit ratio falls to about a third, more reads go to flash, throughput
  // falls.
  CHECK(num(by[32000]["b-uniform"]["0"], "object_hit_ratio") <
        0.5 * num(by[32000]["b"]["0"], "object_hit_ratio"));
  CHECK(num(by[32000]["b-uniform"]["1"], "throughput_rps") <
        num(by[32000]["b"]["1"], "throughput_rps"));
  // D's inserts grow the data past DRAM even from 2,000 records.
  CHECK(num(by[2000]["d"]["0"], "object_hit_ratio") < 0.95);
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
  CHECK_THROWS_WITH(
      load_experiment(dir.write("d.yaml", "name: d\ntrace:\n  path: " + kTrace + "\nseed: 1\n" +
                                              kCell + "backing:\n  device: fixed_latency\n"),
                      {}),
      Contains("tiers.mode") && Contains("a backing device sits under a hierarchy"));
  CHECK_THROWS_WITH(load("timing:\n  mode: simulated\n"),
                    Contains("backing.device") && Contains("a timed hierarchy needs a backing"));
  CHECK_NOTHROW(load("timing:\n  mode: simulated\nbacking:\n  device: fixed_latency\n"));
  CHECK_THROWS_WITH(load("timing:\n  mode: wall\n"), Contains("timing.mode wall"));
  CHECK_THROWS_WITH(load("  dram: false\n  flash_admission: retention\n"),
                    Contains("tiers.flash_admission") && Contains("needs a DRAM tier"));
  const std::string nhc =
      "name: n\ntrace:\n  path: " + kTrace + "\nseed: 1\n" + kCell + "tiers:\n  mode: nhc_wa\n";
  CHECK_THROWS_WITH(load_experiment(dir.write("n.yaml", nhc), {}),
                    Contains("timing.mode") && Contains("NHC's controller measures"));
  CHECK_THROWS_WITH(
      load_experiment(dir.write("n.yaml", nhc + "  nhc_step: 0.03\ntiming:\n  mode: "
                                                "simulated\nbacking:\n  device: fixed_latency\n"),
                      {}),
      Contains("tiers.nhc_step") && Contains("0.03"));
  CHECK_THROWS_WITH(load("admission:\n  name: tinylfu\n"),
                    Contains("tiers.flash_admission decides"));
  CHECK_THROWS_WITH(load("  dram_policy: wtinylfu\n"),
                    Contains("tiers.dram_policy") && Contains("wtinylfu"));
  CHECK_THROWS_WITH(load("  flash_admission: nhit\n  nhit_table_slots: 1000\n"),
                    Contains("power of two"));
}

}  // namespace
}  // namespace flashpq::test_tiered_cell
