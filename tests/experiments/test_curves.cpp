// Tests of experiments/curves.h (`flashpq mrc`): the exact LRU curve against full LRU cells on
// the shared traces (to 1e-12 where its rows say exact), SHARDS and miniature simulation against
// the exact curve within the errors docs/guide/curves.md states, miniature simulation of LRU
// against SHARDS on the same sample (a second implementation: equal), fixed-size SHARDS with
// room for every key against the exact curve (equal), and the refusals.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "experiments/config/cell_config.h"
#include "experiments/curves.h"
#include "experiments/experiment.h"
#include "experiments/run/cell_runner.h"
#include "tests/test_util.h"
#include "traces/trace_summary.h"

namespace flashpq::test_curves {
namespace {

using flashpq::testing::TempDir;

const std::vector<std::string> kSizes = {"0.01", "0.02", "0.05", "0.1", "0.2", "0.5"};

std::string field(const ResultRow& row, const std::string& name) {
  for (const Column& c : row) {
    if (c.name == name) return c.text;
  }
  FAIL("no column " << name);
  return "";
}
double num(const ResultRow& row, const std::string& name) {
  return std::stod(field(row, name));
}

std::vector<ResultRow> curve(const std::string& trace, const std::string& method,
                             std::vector<Override> sets, double rate = 0.01,
                             uint64_t sample_keys = 0,
                             const std::vector<std::string>& sizes = kSizes) {
  CurveOptions o;
  o.trace_path = trace;
  o.method = method;
  o.sizes = sizes;
  o.rate = rate;
  o.sample_keys = sample_keys;
  o.overrides = std::move(sets);
  std::ostringstream log;
  return compute_curve(o, log);
}

// Full cells at `sizes` of `body` (policy, framework ...): the rows `flashpq run` writes.
std::vector<ResultRow> full_cells(const std::string& trace, const std::string& body,
                                  const std::vector<std::string>& sizes) {
  TempDir dir;
  std::string list;
  for (const std::string& size : sizes) list += (list.empty() ? "" : ", ") + size;
  const std::string file =
      dir.write("cells.yaml", "name: cells\ntrace:\n  path: " + trace + "\n" + body +
                                  "matrix:\n  cache.capacity: [" + list + "]\n");
  const Experiment ex = load_experiment(file, {});
  const TraceSummary summary = summarize_trace(ex.cells.front().trace);
  std::vector<ResultRow> rows;
  for (const CellConfig& c : ex.cells) rows.push_back(run_cell(c, summary));
  return rows;
}

// The full LRU cells.
std::vector<ResultRow> lru_cells(const std::string& trace, bool unit, const std::string& warmup,
                                 const std::vector<std::string>& sizes) {
  return full_cells(trace,
                    std::string("cache:\n  unit_size: ") + (unit ? "true" : "false") +
                        "\npolicy:\n  name: lru\nwarmup: " + warmup + "\n",
                    sizes);
}

double mean_abs_error(const std::vector<ResultRow>& a, const std::vector<ResultRow>& b,
                      const std::string& column) {
  double sum = 0;
  for (size_t i = 0; i < a.size(); ++i) sum += std::abs(num(a[i], column) - num(b[i], column));
  return sum / static_cast<double>(a.size());
}

#ifdef FLASHPQ_SHARED_TRACES
const std::string kW106 = FLASHPQ_SHARED_TRACES "/converted/w106.oracleGeneral.zst";
const std::string kCloud = FLASHPQ_SHARED_TRACES "/libcachesim/cloudPhysicsIO.oracleGeneral.bin";
const std::string kAdapt = FLASHPQ_SHARED_TRACES "/converted/adaptsize-request.oracleGeneral.zst";

TEST_CASE("exact_lru equals the LRU cells where its rows say exact", "[curves][slow]") {
  struct Case {
    std::string trace;
    bool unit;
    std::string warmup;
    bool exact;  // no delete; with sizes, no key changing size and none larger than a size
  };
  for (const Case& k : {Case{kCloud, false, "0", true}, Case{kCloud, true, "0.3", true},
                        Case{kAdapt, true, "0", true}, Case{kW106, true, "0.1", true},
                        Case{kAdapt, false, "0", false}}) {
    // w106 (5.3 M requests) at three sizes: the run stays short.
    const std::vector<std::string> sizes =
        k.trace == kW106 ? std::vector<std::string>{"0.01", "0.1", "0.5"} : kSizes;
    INFO(k.trace << " unit_size " << k.unit << " warmup " << k.warmup);
    const std::vector<ResultRow> c = curve(
        k.trace, "exact_lru",
        {{"cache.unit_size", k.unit ? "true" : "false"}, {"warmup", k.warmup}}, 0.01, 0, sizes);
    const std::vector<ResultRow> cells = lru_cells(k.trace, k.unit, k.warmup, sizes);
    REQUIRE(c.size() == cells.size());
    for (size_t i = 0; i < c.size(); ++i) {
      INFO("size " << sizes[i]);
      CHECK(field(c[i], "curve_method") == "exact_lru");
      CHECK(field(c[i], "curve_exact") == (k.exact ? "true" : "false"));
      CHECK(field(c[i], "cache_capacity_bytes") == field(cells[i], "cache_capacity_bytes"));
      if (!k.exact) continue;
      CHECK(std::abs(num(c[i], "object_hit_ratio") - num(cells[i], "object_hit_ratio")) <= 1e-12);
      CHECK(std::abs(num(c[i], "byte_hit_ratio") - num(cells[i], "byte_hit_ratio")) <= 1e-12);
    }
    if (!k.exact) {
      // adaptsize: 4876 requests change their key's size; the curve stays close all the same.
      CHECK(mean_abs_error(c, cells, "object_hit_ratio") < 0.002);
    }
  }
}

TEST_CASE("SHARDS and miniature simulation: the stated errors against the exact curve",
          "[curves][slow]") {
  // docs/guide/curves.md "Accuracy": mean absolute error over the six sizes.
  const std::vector<Override> unit = {{"cache.unit_size", "true"}};
  const std::vector<ResultRow> exact = curve(kW106, "exact_lru", unit);
  const std::vector<ResultRow> shards = curve(kW106, "shards", unit, 0.01);
  const std::vector<ResultRow> mini = curve(kW106, "minisim", unit, 0.01);
  const std::vector<ResultRow> shards_max = curve(kW106, "shards", unit, 0.01, 8000);
  CHECK(mean_abs_error(shards, exact, "object_hit_ratio") <= 0.0035);
  CHECK(mean_abs_error(mini, exact, "object_hit_ratio") <= 0.0035);
  CHECK(mean_abs_error(shards_max, exact, "object_hit_ratio") <= 0.001);
  for (const ResultRow& r : shards) CHECK(field(r, "curve_exact") == "false");
  // Sized, cloudPhysicsIO (114 k requests): at 10 % of the keys.
  const std::vector<ResultRow> exact_c = curve(kCloud, "exact_lru", {});
  const std::vector<ResultRow> shards_c = curve(kCloud, "shards", {}, 0.1);
  CHECK(mean_abs_error(shards_c, exact_c, "object_hit_ratio") <= 0.01);
  CHECK(mean_abs_error(shards_c, exact_c, "byte_hit_ratio") <= 0.01);
}

TEST_CASE("miniature simulation of LRU equals SHARDS on the same sample", "[curves][slow]") {
  // Both keep the keys hashing below R 2^24; a mini cache of floor(C R) objects or bytes hits
  // exactly the sampled requests whose stack distance d has d <= C R; both count the sample's
  // shortfall against R times the whole trace as hits (SHARDS_adj).
  for (const auto& [trace, unit] : {std::pair{kW106, true}, std::pair{kCloud, false}}) {
    INFO(trace);
    const std::vector<Override> sets = {{"cache.unit_size", unit ? "true" : "false"}};
    const std::vector<ResultRow> shards = curve(trace, "shards", sets, 0.05);
    const std::vector<ResultRow> mini = curve(trace, "minisim", sets, 0.05);
    for (size_t i = 0; i < shards.size(); ++i) {
      CHECK(std::abs(num(shards[i], "object_hit_ratio") - num(mini[i], "object_hit_ratio")) <=
            1e-9);
      CHECK(std::abs(num(shards[i], "byte_hit_ratio") - num(mini[i], "byte_hit_ratio")) <= 1e-9);
      CHECK(field(shards[i], "curve_sample_rate") == field(mini[i], "curve_sample_rate"));
    }
  }
}

TEST_CASE("fixed-size SHARDS with room for every key is the exact curve", "[curves]") {
  const std::vector<ResultRow> exact = curve(kCloud, "exact_lru", {});
  const std::vector<ResultRow> all = curve(kCloud, "shards", {}, 0.01, 1'000'000);
  for (size_t i = 0; i < exact.size(); ++i) {
    CHECK(field(all[i], "curve_sample_rate") == "1");
    CHECK(num(all[i], "object_hit_ratio") == num(exact[i], "object_hit_ratio"));
    CHECK(num(all[i], "byte_hit_ratio") == num(exact[i], "byte_hit_ratio"));
  }
}

TEST_CASE("minisim at 1 %: RIPQ-SLRU's hit ratio and WA against full cells", "[curves][slow]") {
  // docs/guide/curves.md "Accuracy": w106 in unit-size mode, RIPQ with SLRU-3.
  const std::vector<Override> sets = {
      {"cache.unit_size", "true"}, {"framework.name", "ripq"}, {"policy.name", "slru"}};
  const std::vector<std::string> sizes = {"0.02", "0.1", "0.5"};
  const std::vector<ResultRow> mini = curve(kW106, "minisim", sets, 0.01, 0, sizes);
  const std::vector<ResultRow> cells = full_cells(
      kW106, "cache:\n  unit_size: true\npolicy:\n  name: slru\nframework:\n  name: ripq\n", sizes);
  CHECK(mean_abs_error(mini, cells, "object_hit_ratio") <= 0.005);
  double relative = 0;
  for (size_t i = 0; i < cells.size(); ++i) {
    relative +=
        std::abs(num(mini[i], "wa_implementation") / num(cells[i], "wa_implementation") - 1);
  }
  CHECK(relative / static_cast<double>(cells.size()) <= 0.02);
}

TEST_CASE("minisim: any policy and framework, write amplification as a curve", "[curves]") {
  const std::vector<ResultRow> rows = curve(kCloud, "minisim",
                                            {{"framework.name", "ripq"},
                                             {"policy.name", "slru"},
                                             {"device.name", "simflash"},
                                             {"device.size_to_cache", "true"}},
                                            0.1);
  REQUIRE(rows.size() == kSizes.size());
  for (const ResultRow& r : rows) {
    CHECK(field(r, "framework.name") == "ripq");
    CHECK(num(r, "wa_combined") >= 1);
    CHECK(num(r, "wa_ftl") >= 1);
    CHECK(num(r, "curve_sample_capacity_bytes") ==
          std::floor(num(r, "cache_capacity_bytes") * num(r, "curve_sample_rate")));
  }
}
TEST_CASE("an experiment's curves: one per cell group, at its cache.capacity values", "[curves]") {
  TempDir dir;
  const std::string file =
      dir.write("e.yaml", "name: e\ntrace:\n  path: " + kCloud +
                              "\nmatrix:\n  policy.name: [lru, fifo]\n  cache.capacity: [0.1, "
                              "0.5]\n");
  CurveMethod m;
  m.method = "minisim";
  m.rate = 0.1;
  std::ostringstream log;
  const std::vector<ResultRow> rows = compute_experiment_curves(load_experiment(file, {}), m, log);
  REQUIRE(rows.size() == 4);
  const std::vector<std::string> policies = {"lru", "lru", "fifo", "fifo"};
  const std::vector<std::string> sizes = {"0.1", "0.5", "0.1", "0.5"};
  for (size_t i = 0; i < 4; ++i) {
    CHECK(field(rows[i], "policy.name") == policies[i]);
    CHECK(field(rows[i], "cache.capacity") == sizes[i]);
  }
  // The same points as the trace's curve of each policy.
  CurveOptions o;
  o.trace_path = kCloud;
  o.method = "minisim";
  o.rate = 0.1;
  o.sizes = {"0.1", "0.5"};
  o.overrides = {{"policy.name", "fifo"}};
  const std::vector<ResultRow> fifo = compute_curve(o, log);
  CHECK(field(rows[2], "object_hit_ratio") == field(fifo[0], "object_hit_ratio"));
  CHECK(field(rows[3], "byte_hit_ratio") == field(fifo[1], "byte_hit_ratio"));
}
#endif

TEST_CASE("an experiment's curve: section", "[curves]") {
  TempDir dir;
  auto load = [&](const std::string& curve) {
    return load_experiment(dir.write("c.yaml",
                                     "name: c\ntrace:\n  format: generator\n  "
                                     "generator: zipf\n  requests: 1000\n" +
                                         curve),
                           {});
  };
  CHECK(load("").curve.method.empty());
  const Experiment ex = load("curve: {method: shards, rate: 0.05, sample_keys: 10}\n");
  CHECK(ex.curve.method == "shards");
  CHECK(ex.curve.rate == 0.05);
  CHECK(ex.curve.sample_keys == 10);
  CHECK_THROWS_WITH(load("curve: {method: belady}\n"),
                    Catch::Contains("c.yaml:6: key 'curve.method': expected exact_lru, shards or "
                                    "minisim, found 'belady'"));
  CHECK_THROWS_WITH(load("curve: {method: minisim, rte: 0.1}\n"),
                    Catch::Contains("unknown key 'curve.rte' (allowed under curve: method, rate, "
                                    "sample_keys)"));
  CHECK_THROWS_WITH(load("curve: {rate: 2}\n"), Catch::Contains("expected a rate in (0, 1]"));
  CHECK_THROWS_WITH(load("curve: {rate: 0.1}\n"), Catch::Contains("expected curve.method"));
  // --set curve.KEY as for any key.
  const Experiment set = load_experiment(dir.write("d.yaml",
                                                   "name: d\ntrace:\n  format: "
                                                   "generator\n  generator: zipf\n"),
                                         {{"curve.method", "minisim"}, {"curve.rate", "0.5"}});
  CHECK(set.curve.method == "minisim");
  CHECK(set.curve.rate == 0.5);
}

TEST_CASE("every bundled experiment loads", "[curves]") {
  // experiments/**/*.yaml but the simflash profiles (not experiments): a file mangled by a tool
  // or a key renamed shows here, before anyone runs it.
  size_t n = 0;
  for (const auto& e :
       std::filesystem::recursive_directory_iterator(FLASHPQ_SOURCE_DIR "/experiments")) {
    const std::string path = e.path().string();
    if (e.path().extension() != ".yaml" || path.find("/profiles/") != std::string::npos) continue;
    INFO(path);
    try {
      const Experiment ex = load_experiment(path, {});
      CHECK_FALSE(ex.cells.empty());
    } catch (const ConfigError& err) {
      // A trace of ../shared absent from this checkout is the one thing allowed to be missing.
      CHECK_THAT(err.what(), Catch::Contains("shared/traces"));
    }
    ++n;
  }
  CHECK(n >= 20);
}

TEST_CASE("flashpq mrc refuses what it cannot compute", "[curves]") {
  TempDir dir;
  const std::string trace = dir.write("t.oracleGeneral", "");  // refused before it is read
  CurveOptions o;
  o.trace_path = trace;
  o.sizes = {"0.1"};
  std::ostringstream log;
  o.method = "belady";
  CHECK_THROWS_WITH(compute_curve(o, log), Catch::Contains("exact_lru, shards or minisim"));
  o.method = "exact_lru";
  o.overrides = {{"policy.name", "fifo"}};
  CHECK_THROWS_WITH(compute_curve(o, log), Catch::Contains("--method minisim"));
  o.overrides = {{"cache.capacity", "0.1"}};
  CHECK_THROWS_WITH(compute_curve(o, log), Catch::Contains("--sizes"));
  o.overrides = {{"policy.nme", "lru"}};
  CHECK_THROWS_WITH(compute_curve(o, log), Catch::Contains("unknown key"));
  o.overrides = {};
  o.rate = 0;
  CHECK_THROWS_WITH(compute_curve(o, log), Catch::Contains("--rate"));
}

}  // namespace
}  // namespace flashpq::test_curves
