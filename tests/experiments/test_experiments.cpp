// tests/experiments/test_experiments.cpp — the experiment layer: YAML loading and matrix expansion,
// error messages (file, line, key, what is allowed), --set overrides, sizes and capacities, and the
// results rows run_cell produces on the bundled AdaptSize trace, checked against the figures of
// its README (66,987 requests, 36,815 unique objects, working set 278,854,232 bytes; computed
// independently of FlashPQ), and every framework × policy × admission through the sweep, with
// the byte accounting each framework's design implies.
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "experiments/experiment.h"
#include "experiments/results.h"
#include "experiments/run/cell_runner.h"
#include "experiments/run/row.h"
#include "experiments/sweep.h"
#include "policies/registry.h"
#include "tests/test_util.h"
#include "traces/trace_summary.h"

namespace flashpq::test_experiments {
namespace {

using namespace flashpq::testing;  // tests/test_util.h

namespace fs = std::filesystem;
using Catch::Contains;

const std::string kTrace = FLASHPQ_SOURCE_DIR "/traces/data/adaptsize-request.oracleGeneral.zst";
// From traces/data README (computed independently).
constexpr uint64_t kTraceRequests = 66'987;
constexpr uint64_t kTraceUnique = 36'815;
constexpr uint64_t kTraceWorkingSet = 278'854'232;

// A fresh directory under the system temp dir, removed with its contents on destruction.

// The first lines every test file starts with: line 1 name, lines 2–3 the trace.
std::string header(const std::string& name = "t") {
  return "name: " + name + "\ntrace:\n  path: " + kTrace + "\n";
}

// The message of the ConfigError load_experiment throws; fails the test if it does not throw.
std::string config_error(const std::string& path, const std::vector<Override>& overrides = {}) {
  try {
    load_experiment(path, overrides);
  } catch (const ConfigError& e) {
    return e.what();
  } catch (const std::exception& e) {
    FAIL("expected a ConfigError, got another exception: " << e.what());
  }
  FAIL("expected a ConfigError for " << path);
  return {};
}

std::string param(const CellConfig& c, const std::string& key) {
  for (const auto& [k, v] : c.parameters) {
    if (k == key) return v;
  }
  FAIL("no parameter " << key);
  return {};
}

// A row's fields; a column the row does not carry reads as "" (tests/test_util.h).
using RowMap = testing::RowFields;

RowMap to_map(const ResultRow& row) {
  RowMap m;
  for (const auto& c : row) {
    REQUIRE(m.count(c.name) == 0);  // Column names are unique.
    m[c.name] = c.text;
  }
  return m;
}

uint64_t u64(const RowMap& m, const std::string& k) {
  REQUIRE(m.count(k) == 1);
  REQUIRE_FALSE(m.at(k).empty());
  return std::stoull(m.at(k));
}

double dbl(const RowMap& m, const std::string& k) {
  REQUIRE(m.count(k) == 1);
  REQUIRE_FALSE(m.at(k).empty());
  return std::stod(m.at(k));
}

// The summary of the bundled trace, computed once for the whole test binary.
const TraceSummary& bundled_summary() {
  static const TraceSummary s = [] {
    TraceConfig t;
    t.params.set("trace.path", kTrace);
    return summarize_trace(t);
  }();
  return s;
}

// Loads `yaml` (written to dir/NAME) and runs every cell on the bundled trace.
std::vector<RowMap> run_all(const TempDir& dir, const std::string& yaml,
                            const std::vector<Override>& overrides = {}) {
  const Experiment ex = load_experiment(dir.write("run.yaml", yaml), overrides);
  std::vector<RowMap> rows;
  for (const CellConfig& c : ex.cells) {
    REQUIRE(c.trace.path() == kTrace);
    rows.push_back(to_map(run_cell(c, bundled_summary())));
  }
  return rows;
}

// ------------------------------------------------------------------------------------------
// Matrix expansion and defaults.

TEST_CASE("a 2x3 matrix expands to 6 cells, the first key varying slowest", "[experiments]") {
  TempDir dir;
  const std::string path = dir.write("mx.yaml", header("mx") +
                                                    "policy: {name: slru, segments: 4}\n"
                                                    "matrix:\n"
                                                    "  policy.name: [fifo, gdsf]\n"
                                                    "  cache.capacity: [0.01, 0.5, 16MiB]\n");
  const Experiment ex = load_experiment(path, {});
  REQUIRE(ex.name == "mx");
  REQUIRE(ex.cells.size() == 6);
  const char* policies[] = {"fifo", "fifo", "fifo", "gdsf", "gdsf", "gdsf"};
  const char* caps[] = {"0.01", "0.5", "16MiB", "0.01", "0.5", "16MiB"};
  for (size_t i = 0; i < 6; ++i) {
    const CellConfig& c = ex.cells[i];
    INFO("cell " << i);
    CHECK(c.index == i);
    CHECK(c.experiment == "mx");
    CHECK(param(c, "policy.name") == policies[i]);
    CHECK(c.policy.name == policies[i]);
    CHECK(param(c, "cache.capacity") == caps[i]);
    CHECK(c.policy.params.get<uint32_t>(kSegmentsKey) == 4);  // Base value, not an axis.
    CHECK(param(c, "policy.segments") == "4");
  }
  CHECK(ex.cells[0].capacity.is_fraction);
  CHECK(ex.cells[0].capacity.fraction == 0.01);
  CHECK(ex.cells[1].capacity.is_fraction);
  CHECK(ex.cells[1].capacity.fraction == 0.5);
  CHECK_FALSE(ex.cells[2].capacity.is_fraction);
  CHECK(ex.cells[2].capacity.bytes == 16u << 20);
}

TEST_CASE("parameters are every schema key in schema order", "[experiments]") {
  TempDir dir;
  const Experiment ex = load_experiment(dir.write("p.yaml", header()), {});
  REQUIRE(ex.cells.size() == 1);
  const auto& schema = experiment_schema();
  const auto& params = ex.cells[0].parameters;
  REQUIRE(params.size() == schema.size());
  for (size_t i = 0; i < schema.size(); ++i) CHECK(params[i].first == schema[i].spec.name);
}

TEST_CASE("absent keys take the schema's defaults", "[experiments]") {
  TempDir dir;
  const std::string path = dir.write("defaults_only.yaml", "trace:\n  path: " + kTrace + "\n");
  const Experiment ex = load_experiment(path, {});
  CHECK(ex.name == "defaults_only");  // The file's stem.
  // The default output is from the working directory, made absolute.
  CHECK(ex.output == (fs::current_path() / "results/defaults_only.csv").string());
  REQUIRE(ex.cells.size() == 1);
  const CellConfig& c = ex.cells[0];
  // Keys that apply only to another choice (the generator, framework direct, device simflash)
  // are empty in the row.
  const std::set<std::string> not_applicable = {
      "trace.generator", "trace.pattern", "trace.op", "trace.io_size", "trace.requests",
      "trace.fill", "trace.objects", "trace.alpha", "trace.scramble", "trace.size_distribution",
      "trace.size", "trace.size_min", "trace.size_max", "trace.size_sigma", "trace.size_shape",
      "framework.offset_unit", "timing.arrival", "timing.clients", "timing.think_time_us",
      "timing.rate", "timing.burst", "timing.time_scale",
      // the fpq format's, the ycsb generator's
      "trace.preload", "trace.workload", "trace.read_proportion", "trace.update_proportion",
      "trace.insert_proportion", "trace.scan_proportion", "trace.rmw_proportion",
      "trace.request_distribution", "trace.record_count", "trace.operation_count",
      "trace.zipfian_constant", "trace.min_scan_length", "trace.max_scan_length",
      "trace.scan_length_distribution", "trace.hotspot_data_fraction", "trace.hotspot_opn_fraction",
      "trace.field_count", "trace.field_length", "trace.load",
      // the generators' times, the cachebench generator's
      "trace.rate", "trace.arrival", "trace.num_keys", "trace.get_ratio", "trace.set_ratio",
      "trace.del_ratio", "trace.key_size_range", "trace.key_size_range_probability",
      "trace.val_size_range", "trace.val_size_range_probability", "trace.popularity",
      "trace.zipf_alpha", "trace.size_trace", "trace.size_trace_format"};
  for (const auto& k : experiment_schema()) {
    const std::string& key = k.spec.name;
    if (key == "trace.path") continue;
    INFO(key);
    // The device's keys are shown empty for the null device, but for the fault layer's, which
    // every device has.
    const bool device_own =
        key.rfind("device.", 0) == 0 && key != "device.name" && key.rfind("device.fault.", 0) != 0;
    if (not_applicable.count(key) || device_own) {
      CHECK(param(c, key).empty());
    } else {
      CHECK(param(c, key) == k.spec.default_value);
    }
  }
  // The typed fields agree with the documented defaults.
  CHECK(c.trace.format == "oracleGeneral");
  CHECK(c.seed == 1);
  CHECK(c.warmup == 0.0);
  CHECK(c.capacity.is_fraction);
  CHECK(c.capacity.fraction == 0.1);
  CHECK_FALSE(c.cache.unit_size);
  CHECK(c.cache.on_size_change == SizeChange::kKeep);
  CHECK(c.policy.name == "lru");
  CHECK(c.policy.params.get<uint32_t>(kSegmentsKey) == 3);
  CHECK(c.framework.name == "exact");
  CHECK(c.device.name == "null");
}

TEST_CASE("`null` as device.name is the null device, not a YAML null", "[experiments]") {
  TempDir dir;
  SECTION("flow mapping") {
    const Experiment ex =
        load_experiment(dir.write("n1.yaml", header() + "device: {name: null}\n"), {});
    REQUIRE(ex.cells.size() == 1);
    CHECK(ex.cells[0].device.name == "null");
    CHECK(param(ex.cells[0], "device.name") == "null");
  }
  SECTION("block mapping") {
    const Experiment ex =
        load_experiment(dir.write("n2.yaml", header() + "device:\n  name: null\n"), {});
    CHECK(ex.cells[0].device.name == "null");
  }
  SECTION("matrix axis") {
    const Experiment ex =
        load_experiment(dir.write("n3.yaml", header() + "matrix:\n  device.name: [null]\n"), {});
    REQUIRE(ex.cells.size() == 1);
    CHECK(ex.cells[0].device.name == "null");
  }
  SECTION("--set") {
    const Experiment ex =
        load_experiment(dir.write("n4.yaml", header()), {{"device.name", "null"}});
    CHECK(ex.cells[0].device.name == "null");
  }
}

TEST_CASE("top-level dotted keys, name and output are accepted", "[experiments]") {
  TempDir dir;
  const Experiment ex = load_experiment(
      dir.write("dotted.yaml", header("custom") + "policy.name: gdsf\nwarmup: 0.25\n"
                                                  "output: out/x.jsonl\n"),
      {});
  CHECK(ex.name == "custom");
  CHECK(ex.output == (dir.path() / "out/x.jsonl").lexically_normal().string());  // the file's
  REQUIRE(ex.cells.size() == 1);
  CHECK(ex.cells[0].policy.name == "gdsf");
  CHECK(ex.cells[0].warmup == 0.25);
}

TEST_CASE("a nested group inside a section reads as its dotted keys", "[experiments]") {
  TempDir dir;
  const Experiment ex = load_experiment(
      dir.write("nested.yaml", header() + "device:\n  name: simflash\n"
                                          "  fdp: {handles: 2, isolation: persistent}\n"),
      {});
  REQUIRE(ex.cells.size() == 1);
  CHECK(ex.cells[0].device.params.text("device.fdp.handles") == "2");
  CHECK(ex.cells[0].device.params.text("device.fdp.isolation") == "persistent");
  const std::string bad =
      dir.write("bad.yaml", header() + "device:\n  name: simflash\n  fdp:\n    handels: 2\n");
  const std::string msg = config_error(bad);
  CHECK_THAT(msg, Contains(bad + ":7:"));
  CHECK_THAT(msg, Contains("device.fdp.handels"));
  CHECK_THAT(msg, Contains("handles"));
}

// ------------------------------------------------------------------------------------------
// Errors: file, 1-based line, key and what is allowed.

TEST_CASE("unknown top-level key is an error naming file, line, key and allowed keys",
          "[experiments]") {
  TempDir dir;
  SECTION("a section") {
    const std::string path = dir.write("e.yaml", header() + "scheduler: {name: none}\n");
    const std::string msg = config_error(path);
    CHECK_THAT(msg, Contains(path + ":4:"));
    CHECK_THAT(msg, Contains("'scheduler'"));
    CHECK_THAT(msg, Contains("allowed"));
    CHECK_THAT(msg, Contains("policy"));
    CHECK_THAT(msg, Contains("matrix"));
  }
  SECTION("a scalar") {
    const std::string path = dir.write("e.yaml", header() + "seed: 3\ncolour: red\n");
    const std::string msg = config_error(path);
    CHECK_THAT(msg, Contains(path + ":5:"));
    CHECK_THAT(msg, Contains("'colour'"));
    CHECK_THAT(msg, Contains("warmup"));
  }
}

TEST_CASE("unknown key under cache: is an error listing the keys allowed there", "[experiments]") {
  TempDir dir;
  const std::string path =
      dir.write("e.yaml", header() + "cache:\n  unit_size: false\n  capacty: 0.1\n");
  const std::string msg = config_error(path);
  CHECK_THAT(msg, Contains(path + ":6:"));
  CHECK_THAT(msg, Contains("cache.capacty"));
  CHECK_THAT(msg, Contains("capacity"));
  CHECK_THAT(msg, Contains("unit_size"));
  CHECK_THAT(msg, Contains("on_size_change"));
}

TEST_CASE("unknown matrix key is an error listing the schema keys", "[experiments]") {
  TempDir dir;
  const std::string path =
      dir.write("e.yaml", header() + "matrix:\n  policy.name: [fifo]\n  policy.nme: [lru, fifo]\n");
  const std::string msg = config_error(path);
  CHECK_THAT(msg, Contains(path + ":6:"));
  CHECK_THAT(msg, Contains("policy.nme"));
  CHECK_THAT(msg, Contains("policy.name"));
  CHECK_THAT(msg, Contains("cache.capacity"));
}

TEST_CASE("a bad size unit is an error naming the units allowed", "[experiments]") {
  TempDir dir;
  const std::string path = dir.write("e.yaml", header() + "cache: {capacity: 12XB}\n");
  const std::string msg = config_error(path);
  CHECK_THAT(msg, Contains(path + ":4:"));
  CHECK_THAT(msg, Contains("cache.capacity"));
  CHECK_THAT(msg, Contains("12XB"));
  CHECK_THAT(msg, Contains("KiB"));
  CHECK_THAT(msg, Contains("fraction"));
}

TEST_CASE("capacity fractions above 1 or not above 0, and capacity 0, are errors",
          "[experiments]") {
  TempDir dir;
  SECTION("1.5") {
    const std::string path = dir.write("e.yaml", header() + "cache:\n  capacity: 1.5\n");
    const std::string msg = config_error(path);
    CHECK_THAT(msg, Contains(path + ":5:"));
    CHECK_THAT(msg, Contains("cache.capacity"));
    CHECK_THAT(msg, Contains("'1.5'"));
    CHECK_THAT(msg, Contains("(0, 1]"));
  }
  SECTION("0.0") {
    const std::string path = dir.write("e.yaml", header() + "cache:\n  capacity: 0.0\n");
    const std::string msg = config_error(path);
    CHECK_THAT(msg, Contains(path + ":5:"));
    CHECK_THAT(msg, Contains("(0, 1]"));
  }
  SECTION("0") {
    const std::string path = dir.write("e.yaml", header() + "cache:\n  capacity: 0\n");
    const std::string msg = config_error(path);
    CHECK_THAT(msg, Contains(path + ":5:"));
    CHECK_THAT(msg, Contains("cache.capacity"));
    CHECK_THAT(msg, Contains("'0'"));
    CHECK_THAT(msg, Contains("at least 1 byte"));
  }
}

// CacheConfig::validate() caps capacities at 2^62 bytes, but the loader only checks >= 1, so
// 5000000TB passes load_experiment and the cell fails at run time (exit 1, after the trace was
// summarised) instead of being a configuration error "found before any cell runs".
TEST_CASE("a byte capacity above 2^62 is a config error before anything runs", "[experiments]") {
  TempDir dir;
  const std::string path = dir.write("e.yaml", header() + "cache: {capacity: 5000000TB}\n");
  const std::string msg = config_error(path);
  CHECK_THAT(msg, Contains(path + ":4:"));
  CHECK_THAT(msg, Contains("cache.capacity"));
  CHECK_THAT(msg, Contains("5000000TB"));
  // 2^62 itself is fine.
  const std::string ok = dir.write("ok.yaml", header() + "cache: {capacity: 4194304TiB}\n");
  CHECK(load_experiment(ok, {}).cells.at(0).capacity.bytes == uint64_t{1} << 62);
}

// `cache: 0.1` (a forgotten `capacity:`) or an empty `policy:` currently reports
// "unknown key 'cache' (allowed: ..., cache, ...)": the key it calls unknown is in its own list.
TEST_CASE("a section given a scalar says a mapping is expected, not 'unknown key'",
          "[experiments]") {
  TempDir dir;
  for (const char* body : {"cache: 0.1\n", "policy:\n"}) {
    INFO(body);
    const std::string path = dir.write("e.yaml", header() + body);
    const std::string msg = config_error(path);
    CHECK_THAT(msg, Contains(path + ":4:"));
    CHECK_THAT(msg, !Contains("unknown key"));
    CHECK_THAT(msg, Contains("mapping"));
  }
}

TEST_CASE("warmup below 0 or at least 1 is an error", "[experiments]") {
  TempDir dir;
  for (const char* bad : {"1.0", "-0.1", "1", "abc"}) {
    INFO(bad);
    const std::string path = dir.write("e.yaml", header() + "seed: 2\nwarmup: " + bad + "\n");
    const std::string msg = config_error(path);
    CHECK_THAT(msg, Contains(path + ":5:"));
    CHECK_THAT(msg, Contains("'warmup'"));
    CHECK_THAT(msg, Contains("[0, 1)"));
    CHECK_THAT(msg, Contains(std::string("'") + bad + "'"));
  }
}

TEST_CASE("policy.segments outside 1..64 is an error", "[experiments]") {
  TempDir dir;
  for (const char* bad : {"0", "65", "-1", "3.5"}) {
    INFO(bad);
    const std::string path =
        dir.write("e.yaml", header() + "policy:\n  name: slru\n  segments: " + bad + "\n");
    const std::string msg = config_error(path);
    CHECK_THAT(msg, Contains(path + ":6:"));
    CHECK_THAT(msg, Contains("policy.segments"));
    // 0 is GDSF's "no cap": slru refuses it itself; the key's range is [0, 64].
    CHECK_THAT(msg, Contains(std::string(bad) == "0" ? "[1, 64] for slru" : "[0, 64]"));
  }
  // The bounds themselves are fine.
  for (const char* ok : {"1", "64"}) {
    const std::string path = dir.write("ok.yaml", header() + "policy: {segments: " + ok + "}\n");
    CHECK(load_experiment(path, {}).cells.at(0).policy.params.get<uint32_t>(kSegmentsKey) ==
          std::stoul(ok));
  }
}

TEST_CASE("unknown policy name is an error listing the registered policies", "[experiments]") {
  TempDir dir;
  const std::string path = dir.write("e.yaml", header() + "policy: {name: hyperbolic}\n");
  const std::string msg = config_error(path);
  CHECK_THAT(msg, Contains(path + ":4:"));
  CHECK_THAT(msg, Contains("policy.name"));
  CHECK_THAT(msg, Contains("'hyperbolic'"));
  for (const auto& name : policy_names()) CHECK_THAT(msg, Contains(name));
  CHECK_THAT(msg, Contains("fifo, lru, slru, gdsf"));
}

TEST_CASE("a list outside matrix: is an error", "[experiments]") {
  TempDir dir;
  SECTION("under a section") {
    const std::string path = dir.write("e.yaml", header() + "policy: {name: [fifo, lru]}\n");
    const std::string msg = config_error(path);
    CHECK_THAT(msg, Contains(path + ":4:"));
    CHECK_THAT(msg, Contains("policy.name"));
    CHECK_THAT(msg, Contains("matrix"));
  }
  SECTION("at the top level") {
    const std::string path = dir.write("e.yaml", header() + "seed:\n  - 1\n  - 2\n");
    const std::string msg = config_error(path);
    CHECK_THAT(msg, Contains(path + ":4:"));
    CHECK_THAT(msg, Contains("'seed'"));
    CHECK_THAT(msg, Contains("matrix"));
  }
}

TEST_CASE("an empty matrix list is an error", "[experiments]") {
  TempDir dir;
  const std::string path =
      dir.write("e.yaml", header() + "matrix:\n  policy.name: [fifo]\n  cache.capacity: []\n");
  const std::string msg = config_error(path);
  CHECK_THAT(msg, Contains(path + ":6:"));
  CHECK_THAT(msg, Contains("cache.capacity"));
  CHECK_THAT(msg, Contains("non-empty list"));
}

TEST_CASE("a bad value inside a matrix list names the line of that value", "[experiments]") {
  TempDir dir;
  const std::string path = dir.write("e.yaml", header() +
                                                   "matrix:\n"
                                                   "  cache.capacity:\n"
                                                   "    - 0.1\n"
                                                   "    - 4KiB\n"
                                                   "    - 12XB\n");
  const std::string msg = config_error(path);
  CHECK_THAT(msg, Contains(path + ":8:"));
  CHECK_THAT(msg, Contains("cache.capacity"));
  CHECK_THAT(msg, Contains("12XB"));
}

TEST_CASE("a missing trace file is an error naming the trace.path line", "[experiments]") {
  TempDir dir;
  const std::string path =
      dir.write("e.yaml", "name: t\ntrace:\n  path: no_such_trace.oracleGeneral.zst\n");
  const std::string msg = config_error(path);
  CHECK_THAT(msg, Contains(path + ":3:"));
  CHECK_THAT(msg, Contains("trace.path"));
  CHECK_THAT(msg, Contains("no_such_trace.oracleGeneral.zst"));
  CHECK_THAT(msg, Contains("an existing file"));
}

TEST_CASE("a missing trace.path is an error saying it is required", "[experiments]") {
  TempDir dir;
  const std::string path = dir.write("e.yaml", "name: t\npolicy: {name: lru}\n");
  const std::string msg = config_error(path);
  CHECK_THAT(msg, Contains(path));
  CHECK_THAT(msg, Contains("trace.path"));
  CHECK_THAT(msg, Contains("required"));
}

TEST_CASE("a YAML syntax error names the file and line", "[experiments]") {
  TempDir dir;
  const std::string path = dir.write("e.yaml", header() + "policy:\n  name: lru\n   segments: 3\n");
  const std::string msg = config_error(path);
  CHECK_THAT(msg, Contains(path + ":6:"));
  CHECK_THAT(msg, Contains("YAML syntax error"));
}

TEST_CASE("a missing experiment file is a ConfigError naming it", "[experiments]") {
  TempDir dir;
  const std::string msg = config_error(dir.file("absent.yaml"));
  CHECK_THAT(msg, Contains(dir.file("absent.yaml")));
}

TEST_CASE("a matrix key given twice is an error", "[experiments]") {
  TempDir dir;
  const std::string path =
      dir.write("e.yaml", header() + "matrix:\n  policy.name: [fifo]\n  policy.name: [lru]\n");
  const std::string msg = config_error(path);
  CHECK_THAT(msg, Contains(path + ":6:"));
  CHECK_THAT(msg, Contains("policy.name"));
}

// yaml-cpp accepts duplicate mapping keys (YAML 1.2 forbids them) and the loader keeps the last
// one silently; the matrix already rejects duplicates. A silently ignored `seed: 1` is the kind of
// misconfiguration the loader promises to catch. [!mayfail]: a proposal, see the report.
TEST_CASE("a top-level key given twice is an error", "[experiments][!mayfail]") {
  TempDir dir;
  const std::string path = dir.write("e.yaml", header() + "seed: 1\nwarmup: 0\nseed: 2\n");
  const std::string msg = config_error(path);
  CHECK_THAT(msg, Contains(path + ":6:"));
  CHECK_THAT(msg, Contains("seed"));
}

// ------------------------------------------------------------------------------------------
// --set overrides.

TEST_CASE("override: --set replaces a scalar", "[experiments]") {
  TempDir dir;
  const std::string path = dir.write(
      "s.yaml",
      header() + "policy: {name: slru, segments: 3}\nmatrix:\n  policy.name: [slru, gdsf]\n");
  const Experiment ex = load_experiment(path, {{"policy.segments", "7"}, {"warmup", "0.5"}});
  REQUIRE(ex.cells.size() == 2);
  for (const CellConfig& c : ex.cells) {
    CHECK(c.policy.params.get<uint32_t>(kSegmentsKey) == 7);
    CHECK(param(c, "policy.segments") == "7");
    CHECK(c.warmup == 0.5);
  }
}

TEST_CASE("override: --set replaces a matrix axis: the axis disappears", "[experiments]") {
  TempDir dir;
  const std::string path = dir.write("s.yaml", header() +
                                                   "matrix:\n  policy.name: [fifo, lru]\n"
                                                   "  cache.capacity: [0.01, 0.1, 0.2]\n");
  REQUIRE(load_experiment(path, {}).cells.size() == 6);
  const Experiment ex = load_experiment(path, {{"policy.name", "gdsf"}});
  REQUIRE(ex.cells.size() == 3);
  const char* caps[] = {"0.01", "0.1", "0.2"};
  for (size_t i = 0; i < 3; ++i) {
    CHECK(ex.cells[i].policy.name == "gdsf");
    CHECK(param(ex.cells[i], "cache.capacity") == caps[i]);
    CHECK(ex.cells[i].index == i);
  }
  // Pinning both axes leaves one cell.
  CHECK(load_experiment(path, {{"policy.name", "lru"}, {"cache.capacity", "1MiB"}}).cells.size() ==
        1);
}

TEST_CASE("override: --set with a list creates a matrix axis", "[experiments]") {
  TempDir dir;
  SECTION("no matrix in the file") {
    const std::string path = dir.write("s.yaml", header() + "policy: {name: slru}\n");
    const Experiment ex = load_experiment(path, {{"policy.name", "[fifo,lru]"}});
    REQUIRE(ex.cells.size() == 2);
    CHECK(ex.cells[0].policy.name == "fifo");
    CHECK(ex.cells[1].policy.name == "lru");
  }
  SECTION("with spaces, next to a matrix from the file") {
    const std::string path =
        dir.write("s.yaml", header() + "matrix:\n  cache.capacity: [0.01, 0.1]\n");
    const Experiment ex = load_experiment(path, {{"policy.name", "[fifo, lru, gdsf]"}});
    REQUIRE(ex.cells.size() == 6);
    std::vector<std::pair<std::string, std::string>> got;
    for (const auto& c : ex.cells) got.emplace_back(c.policy.name, param(c, "cache.capacity"));
    // Every combination exactly once.
    for (const char* p : {"fifo", "lru", "gdsf"}) {
      for (const char* cap : {"0.01", "0.1"}) {
        CHECK(std::count(got.begin(), got.end(),
                         std::make_pair(std::string(p), std::string(cap))) == 1);
      }
    }
  }
  SECTION("a value in the list is validated, the error naming --set") {
    const std::string path = dir.write("s.yaml", header());
    const std::string msg = config_error(path, {{"policy.name", "[fifo,hyperbolic]"}});
    CHECK_THAT(msg, Contains("--set"));
    CHECK_THAT(msg, Contains("policy.name"));
    CHECK_THAT(msg, Contains("'hyperbolic'"));
  }
}

// The header says the first matrix key varies slowest; replacing an axis's list with --set keeps
// that key's position in the file's order (cells then come out in the order the file promises).
// Currently the replaced axis moves to the end and varies fastest. [!mayfail]: see the report.
TEST_CASE("override: --set replacing a matrix axis with a list keeps the axis in place",
          "[experiments][!mayfail]") {
  TempDir dir;
  const std::string path = dir.write("s.yaml", header() +
                                                   "matrix:\n  policy.name: [fifo, lru, slru]\n"
                                                   "  cache.capacity: [0.01, 0.1]\n");
  const Experiment ex = load_experiment(path, {{"policy.name", "[fifo,lru]"}});
  REQUIRE(ex.cells.size() == 4);
  CHECK(ex.cells[0].policy.name == "fifo");
  CHECK(ex.cells[1].policy.name == "fifo");
  CHECK(ex.cells[2].policy.name == "lru");
  CHECK(ex.cells[3].policy.name == "lru");
}

TEST_CASE("override: --set of an unknown key is an error naming it", "[experiments]") {
  TempDir dir;
  const std::string path = dir.write("s.yaml", header());
  const std::string msg = config_error(path, {{"policy.nme", "lru"}});
  CHECK_THAT(msg, Contains("--set"));
  CHECK_THAT(msg, Contains("'policy.nme'"));
  CHECK_THAT(msg, Contains("policy.name"));
}

TEST_CASE("override: --set of a bad value is an error naming --set and the key", "[experiments]") {
  TempDir dir;
  const std::string path = dir.write("s.yaml", header());
  const std::string msg = config_error(path, {{"warmup", "1.5"}});
  CHECK_THAT(msg, Contains("--set"));
  CHECK_THAT(msg, Contains("warmup"));
  CHECK_THAT(msg, Contains("[0, 1)"));
}

TEST_CASE("override: --set name and output replace the experiment's", "[experiments]") {
  TempDir dir;
  const std::string path = dir.write("s.yaml", header("orig") + "output: a.csv\n");
  const Experiment ex = load_experiment(path, {{"name", "renamed"}, {"output", "b.jsonl"}});
  CHECK(ex.name == "renamed");
  CHECK(ex.output == (fs::current_path() / "b.jsonl").string());  // --set: the working dir's
  CHECK(ex.cells.at(0).experiment == "renamed");
}

// One rule for paths (experiments/experiment.h): a relative path written in the file is the
// file's directory's; one given with --set, the working directory's. The same relative text
// names two different files depending on where it was written.
TEST_CASE("paths: written in the file from its directory, with --set from the working directory",
          "[experiments]") {
  TempDir dir;
  // The experiment's folder deeper than the working directory, so that the `..`s of a path
  // relative to the working directory, taken from the folder, stay inside `dir`.
  const fs::path cwd = fs::current_path();
  fs::path exp = dir.path();
  for (auto it = cwd.begin(); it != cwd.end(); ++it) exp /= "d";
  exp /= "exp";
  fs::create_directories(exp);
  fs::copy_file(kTrace, exp / "t.oracleGeneral.zst");
  const std::string file = (exp / "p.yaml").string();
  std::ofstream(file) << "trace: {path: t.oracleGeneral.zst}\n";
  const std::string beside = (exp / "t.oracleGeneral.zst").lexically_normal().string();
  // Written in the file: beside it, whatever the working directory.
  const Experiment ex = load_experiment(file, {});
  CHECK(ex.cells.at(0).trace.params.text("trace.path") == beside);
  CHECK(param(ex.cells.at(0), "trace.path") == "t.oracleGeneral.zst");  // the row: as written
  // With --set: from the working directory. `rel` names the trace from here, not from exp/.
  const std::string rel = fs::relative(beside, cwd).string();
  REQUIRE(fs::path(rel).is_relative());
  const Experiment set = load_experiment(file, {{"trace.path", rel}});
  CHECK(set.cells.at(0).trace.params.text("trace.path") == beside);
  // The same text written in the file is taken from exp/, where it names nothing: an error
  // that names the file, the line, and the path looked for.
  const std::string moved = (exp / "q.yaml").string();
  std::ofstream(moved) << "trace: {path: " << rel << "}\n";
  const std::string looked_for = (exp / rel).lexically_normal().string();
  REQUIRE_FALSE(fs::exists(looked_for));
  CHECK_THAT(config_error(moved), Contains("q.yaml:1: key 'trace.path': expected an existing "
                                           "file (" +
                                           looked_for + ")"));
}

TEST_CASE("resolve_path: the file's directory unless given with --set, an absolute path as given",
          "[experiments]") {
  const fs::path cwd = fs::current_path();
  CHECK(resolve_path("a/b.yaml", "/x/y/e.yaml:3", "/x/y/e.yaml") == "/x/y/a/b.yaml");
  CHECK(resolve_path("../b", "/x/y/e.yaml (default)", "/x/y/e.yaml") == "/x/b");
  CHECK(resolve_path("a/b.yaml", "--set device.profile", "/x/y/e.yaml") ==
        (cwd / "a/b.yaml").string());
  CHECK(resolve_path("/abs/f", "/x/y/e.yaml:3", "/x/y/e.yaml") == "/abs/f");
  CHECK(resolve_path("", "/x/y/e.yaml:3", "/x/y/e.yaml") == "");
  // A file named without a directory: its directory is the working directory.
  CHECK(resolve_path("t.zst", "e.yaml:2", "e.yaml") == (cwd / "t.zst").string());
}

// ------------------------------------------------------------------------------------------
// parse_size and CapacitySpec.

TEST_CASE("parse_int_list: comma-separated integers in a range, blanks allowed", "[experiments]") {
  std::vector<int64_t> v;
  CHECK(parse_int_list("1, 2,3", 0, 10, &v));
  CHECK(v == std::vector<int64_t>{1, 2, 3});
  CHECK(parse_int_list(" 7 ", 7, 7, &v));
  CHECK(v == std::vector<int64_t>{7});
  CHECK(parse_int_list("-2,0", -5, 0, &v));
  CHECK(v == std::vector<int64_t>{-2, 0});
  for (const char* bad : {"", "1,,2", "1,", ",1", "1;2", "1.5", "x", "11", "0,11"}) {
    INFO(bad);
    CHECK_FALSE(parse_int_list(bad, 0, 10, &v));
  }
}

TEST_CASE("parse_size accepts bytes and binary and decimal units", "[experiments]") {
  CHECK(parse_size("4096") == 4096);
  CHECK(parse_size("0") == 0);
  CHECK(parse_size("1B") == 1);
  CHECK(parse_size("4KiB") == 4096);
  CHECK(parse_size("1MiB") == 1048576);
  CHECK(parse_size("256MiB") == 268435456);
  CHECK(parse_size("1GiB") == 1073741824);
  CHECK(parse_size("1TiB") == 1099511627776ull);
  CHECK(parse_size("1kB") == 1000);
  CHECK(parse_size("1KB") == 1000);
  CHECK(parse_size("3MB") == 3000000);
  CHECK(parse_size("1GB") == 1000000000);
  CHECK(parse_size("2TB") == 2000000000000ull);
  CHECK(parse_size("18446744073709551615") == UINT64_MAX);
  CHECK(parse_size("16777215TiB") == 16777215ull << 40);  // Just below 2^64.
}

TEST_CASE("parse_size rejects fractions, signs, empty text, bad units and overflow",
          "[experiments]") {
  for (const char* bad :
       {"1.5MiB", "", "-1", "+1", "12XB", "MiB", "4 KiBs", "1mib", "0x10", "18446744073709551616",
        "16777216TiB", "17179869184GiB", "18446744073709552KB"}) {
    INFO("'" << bad << "'");
    CHECK_THROWS_AS(parse_size(bad), std::invalid_argument);
  }
  // The message says what is allowed.
  CHECK_THROWS_WITH(parse_size("12XB"), Contains("KiB") && Contains("12XB"));
}

TEST_CASE("CapacitySpec::resolve: floor(fraction x working set), bytes pass through",
          "[experiments]") {
  CapacitySpec f;
  f.is_fraction = true;
  f.fraction = 0.1;
  CHECK(f.resolve(kTraceWorkingSet) == 27'885'423);
  CHECK(f.resolve(kTraceUnique) == 3'681);
  f.fraction = 0.5;
  CHECK(f.resolve(7) == 3);
  f.fraction = 1.0;
  CHECK(f.resolve(kTraceWorkingSet) == kTraceWorkingSet);
  f.fraction = 0.25;
  CHECK(f.resolve(1'000'000'000'000ull) == 250'000'000'000ull);
  f.fraction = 0.01;
  CHECK(f.resolve(50) == 1);  // floor(0.5) = 0, but a cache holds at least 1 byte.

  CapacitySpec b;
  b.bytes = 4096;
  CHECK(b.resolve(kTraceWorkingSet) == 4096);
  CHECK(b.resolve(1) == 4096);
  CHECK(b.resolve(0) == 4096);
}

// ------------------------------------------------------------------------------------------
// Results rows on the bundled trace.

TEST_CASE("the bundled trace's summary matches its README", "[experiments]") {
  const TraceSummary& s = bundled_summary();
  CHECK(s.requests == kTraceRequests);
  CHECK(s.unique_objects == kTraceUnique);
  CHECK(s.working_set_bytes == kTraceWorkingSet);
  CHECK(s.content_hash.size() == 16);
}

TEST_CASE("a capacity fraction resolves against the trace's working set", "[experiments]") {
  TempDir dir;
  const auto rows = run_all(dir, header("frac") + "cache: {capacity: 0.1}\n");
  REQUIRE(rows.size() == 1);
  const RowMap& r = rows[0];
  CHECK(r.at("cache.capacity") == "0.1");
  CHECK(u64(r, "cache_capacity_bytes") == 27'885'423);  // floor(0.1 × 278,854,232)
  CHECK(u64(r, "trace_working_set_bytes") == kTraceWorkingSet);
  CHECK(u64(r, "trace_unique_objects") == kTraceUnique);
  CHECK(u64(r, "trace_requests") == kTraceRequests);
  CHECK(r.at("experiment") == "frac");
  CHECK(r.at("cell") == "0");
  CHECK(r.at("seed") == "1");
  CHECK(r.at("flashpq_version") == FLASHPQ_VERSION);
  CHECK(r.at("trace_hash") == bundled_summary().content_hash);
  CHECK(r.at("trace_hash").find_first_not_of("0123456789abcdef") == std::string::npos);
  CHECK(r.at("error").empty());
}

TEST_CASE("capacities in bytes and in unit-size mode resolve as written", "[experiments]") {
  TempDir dir;
  const auto rows = run_all(dir, header() +
                                     "matrix:\n  cache.capacity: [16MiB, 0.1]\n"
                                     "  cache.unit_size: [false, true]\n");
  REQUIRE(rows.size() == 4);
  CHECK(u64(rows[0], "cache_capacity_bytes") == 16u << 20);
  CHECK(u64(rows[1], "cache_capacity_bytes") == 16u << 20);  // Bytes are bytes, even in unit mode.
  CHECK(u64(rows[2], "cache_capacity_bytes") == 27'885'423);
  CHECK(u64(rows[3], "cache_capacity_bytes") == 3'681);  // floor(0.1 × 36,815 objects)
  // Unit-size mode: at most `capacity` objects cached.
  CHECK(u64(rows[3], "cached_objects") <= 3'681);
  CHECK(u64(rows[3], "cached_bytes") == u64(rows[3], "cached_objects"));
}

TEST_CASE("warm-up excludes the first floor(warmup x requests) requests", "[experiments]") {
  TempDir dir;
  const auto rows = run_all(dir, header() +
                                     "cache: {capacity: 0.05}\n"
                                     "matrix:\n  policy.name: [fifo, lru, slru, gdsf]\n"
                                     "  warmup: [0, 0.2]\n");
  REQUIRE(rows.size() == 8);
  for (size_t i = 0; i < rows.size(); i += 2) {
    const RowMap& cold = rows[i];
    const RowMap& warm = rows[i + 1];
    INFO(cold.at("policy.name"));
    REQUIRE(cold.at("warmup") == "0");
    REQUIRE(warm.at("warmup") == "0.2");
    CHECK(u64(cold, "warmup_requests") == 0);
    CHECK(u64(cold, "requests") == kTraceRequests);
    CHECK(u64(cold, "get_requests") == kTraceRequests);  // An all-get trace.
    CHECK(u64(warm, "warmup_requests") == 13'397);       // floor(0.2 × 66,987)
    CHECK(u64(warm, "requests") == kTraceRequests - 13'397);
    CHECK(u64(warm, "get_requests") == kTraceRequests - 13'397);
    CHECK(u64(cold, "set_requests") == 0);
    CHECK(u64(cold, "delete_requests") == 0);
    // The warm-up only removes requests from the count; the replay is the same.
    CHECK(u64(cold, "hits") >= u64(warm, "hits"));
    CHECK(u64(cold, "compulsory_misses") >= u64(warm, "compulsory_misses"));
    // Counters that accumulate (evictions, bytes placed) are measured after the warm-up
    // too; the state at the end (cached bytes) is the same replay's.
    CHECK(u64(cold, "evictions") > u64(warm, "evictions"));
    CHECK(u64(cold, "miss_bytes_inserted") > u64(warm, "miss_bytes_inserted"));
    CHECK(u64(cold, "cached_bytes") == u64(warm, "cached_bytes"));
  }
}

TEST_CASE("with no warm-up, compulsory misses = unique objects at any capacity", "[experiments]") {
  TempDir dir;
  const auto rows = run_all(dir, header() +
                                     "matrix:\n  policy.name: [fifo, lru, slru, gdsf]\n"
                                     "  cache.capacity: [1, 4KiB, 0.001, 0.1, 1.0]\n");
  REQUIRE(rows.size() == 20);
  for (const RowMap& r : rows) {
    INFO(r.at("policy.name") << " capacity " << r.at("cache.capacity"));
    CHECK(u64(r, "compulsory_misses") == kTraceUnique);
    CHECK(u64(r, "hits") + kTraceUnique <= u64(r, "get_requests"));
  }
}

TEST_CASE("a cache as large as the working set only misses compulsorily", "[experiments]") {
  // With on_size_change = keep, cached copies keep their first-seen size, so the working set
  // (the sum of first-seen sizes) always fits: no eviction, every re-request hits.
  TempDir dir;
  const auto rows = run_all(
      dir, header() + "cache: {capacity: 1.0}\nmatrix:\n  policy.name: [fifo, lru, slru, gdsf]\n");
  REQUIRE(rows.size() == 4);
  for (const RowMap& r : rows) {
    INFO(r.at("policy.name"));
    CHECK(u64(r, "cache_capacity_bytes") == kTraceWorkingSet);
    CHECK(u64(r, "evictions") == 0);
    CHECK(u64(r, "hits") == kTraceRequests - kTraceUnique);
    CHECK(u64(r, "cached_objects") == kTraceUnique);
    CHECK(u64(r, "cached_bytes") == kTraceWorkingSet);
  }
}

TEST_CASE("a 1-byte cache holds at most one 1-byte object", "[experiments]") {
  TempDir dir;
  const auto rows = run_all(dir, header() + "cache: {capacity: 1}\n");
  REQUIRE(rows.size() == 1);
  CHECK(u64(rows[0], "cache_capacity_bytes") == 1);
  // Only 1-byte objects are admitted, so every hit is worth exactly 1 byte.
  CHECK(u64(rows[0], "bytes_hit") == u64(rows[0], "hits"));
  CHECK(u64(rows[0], "cached_objects") <= 1);
  CHECK(u64(rows[0], "cached_bytes") <= 1);
  CHECK(u64(rows[0], "hits") < 100);
}

TEST_CASE("run_cell is deterministic: every column but wall_seconds repeats", "[experiments]") {
  TempDir dir;
  const Experiment ex = load_experiment(
      dir.write("d.yaml", header() +
                              "warmup: 0.2\nmatrix:\n  policy.name: [fifo, lru, slru, gdsf]\n"
                              "  cache.capacity: [0.01, 0.2]\n"),
      {});
  REQUIRE(ex.cells.size() == 8);
  for (const CellConfig& c : ex.cells) {
    const ResultRow a = run_cell(c, bundled_summary());
    const ResultRow b = run_cell(c, bundled_summary());
    REQUIRE(a.size() == b.size());
    bool saw_wall = false;
    for (size_t i = 0; i < a.size(); ++i) {
      INFO("cell " << c.index << " column " << a[i].name);
      CHECK(a[i].name == b[i].name);
      CHECK(a[i].numeric == b[i].numeric);
      if (a[i].name == "wall_seconds") {
        saw_wall = true;
        continue;
      }
      CHECK(a[i].text == b[i].text);
    }
    CHECK(saw_wall);
  }
}

TEST_CASE("results rows satisfy the metric invariants", "[experiments]") {
  TempDir dir;
  const auto rows = run_all(dir, header() +
                                     "matrix:\n  policy.name: [fifo, lru, slru, gdsf]\n"
                                     "  cache.capacity: [4KiB, 0.01, 0.1, 0.5]\n"
                                     "  warmup: [0, 0.2]\n  admission.name: [none, tinylfu]\n");
  REQUIRE(rows.size() == 64);
  for (const RowMap& r : rows) {
    INFO(r.at("policy.name") << " capacity " << r.at("cache.capacity") << " warmup "
                             << r.at("warmup") << " admission " << r.at("admission.name"));
    const uint64_t gets = u64(r, "get_requests");
    const uint64_t hits = u64(r, "hits");
    const uint64_t bytes_req = u64(r, "bytes_requested");
    const uint64_t bytes_hit = u64(r, "bytes_hit");
    REQUIRE(gets > 0);
    CHECK(hits <= gets);
    CHECK(dbl(r, "object_hit_ratio") == static_cast<double>(hits) / static_cast<double>(gets));
    CHECK(bytes_hit <= bytes_req);
    CHECK(dbl(r, "byte_hit_ratio") ==
          static_cast<double>(bytes_hit) / static_cast<double>(bytes_req));
    CHECK(u64(r, "cached_bytes") <= u64(r, "cache_capacity_bytes"));
    CHECK(u64(r, "compulsory_misses") <= gets - hits);
    CHECK(u64(r, "requests") == gets + u64(r, "set_requests") + u64(r, "delete_requests"));
    CHECK(u64(r, "cached_objects") <= kTraceUnique);
    if (u64(r, "cached_objects") > 0) {
      CHECK(u64(r, "index_bytes") > 0);
      CHECK(dbl(r, "index_bytes_per_object") == static_cast<double>(u64(r, "index_bytes")) /
                                                    static_cast<double>(u64(r, "cached_objects")));
      CHECK(dbl(r, "queue_bytes_per_object") == static_cast<double>(u64(r, "queue_bytes")) /
                                                    static_cast<double>(u64(r, "cached_objects")));
      // Every cached object's key, size and chain link (16 B) are in the index map, and its
      // 28-byte entry is split between the index map and the queue structure.
      CHECK(u64(r, "index_bytes") >= 16 * u64(r, "cached_objects"));
      CHECK(u64(r, "index_bytes") + u64(r, "queue_bytes") >= 28 * u64(r, "cached_objects"));
    }
    CHECK(r.count("queue_bytes") == 1);
    // The sketch: none without admission; with TinyLFU at least its 8 words (FrequencySketch).
    if (r.at("admission.name") == "none") {
      CHECK(u64(r, "admission_bytes") == 0);
    } else {
      CHECK(u64(r, "admission_bytes") >= 64);
    }
    CHECK(dbl(r, "wall_seconds") >= 0);
    CHECK(r.at("error").empty());
  }
}

TEST_CASE("run_cell's row has the columns row_columns() names -- failed_row the identity and error",
          "[experiments]") {
  TempDir dir;
  const Experiment ex = load_experiment(dir.write("c.yaml", header()), {});
  const ResultRow ok = run_cell(ex.cells[0], bundled_summary());
  std::vector<std::string> names;
  for (const Column& c : ok) names.push_back(c.name);
  CHECK(names == planned_row_columns(ex.cells[0], &bundled_summary()));
  const ResultRow bad = failed_row(ex.cells[0], "boom");
  // The identity (experiment, cell, the parameters the row carries), then error.
  REQUIRE(bad.size() == 2 + row_parameters(ex.cells[0]).size() + 1);
  for (size_t i = 0; i + 1 < bad.size(); ++i) {
    CHECK(ok[i].name == bad[i].name);
    CHECK(ok[i].text == bad[i].text);
  }
  const RowMap m = to_map(bad);
  CHECK(m.at("error") == "boom");
  CHECK(m.count("hits") == 0);
  CHECK(m.at("policy.name") == "lru");
  CHECK(to_map(ok).count("error") == 0);
  // The metrics docs/DESIGN.md "Results" names that this layer produces.
  const RowMap o = to_map(ok);
  for (const char* name : {"requests", "get_requests", "hits", "object_hit_ratio", "byte_hit_ratio",
                           "compulsory_misses", "index_bytes", "wall_seconds",
                           "cache_capacity_bytes", "trace_hash", "seed"}) {
    CHECK(o.count(name) == 1);
  }
}

// ------------------------------------------------------------------------------------------
TEST_CASE("zip lists vary together, fastest, and must have one length", "[experiments]") {
  TempDir dir;
  const std::string file = dir.write(
      "z.yaml", header() +
                    "matrix:\n  policy.name: [fifo, lru]\n"
                    "zip:\n  cache.capacity: [0.1, 0.2, 0.3]\n  policy.segments: [1, 2, 3]\n");
  const Experiment ex = load_experiment(file, {});
  REQUIRE(ex.cells.size() == 6);
  const char* expected[6][3] = {{"fifo", "0.1", "1"}, {"fifo", "0.2", "2"}, {"fifo", "0.3", "3"},
                                {"lru", "0.1", "1"},  {"lru", "0.2", "2"},  {"lru", "0.3", "3"}};
  for (size_t i = 0; i < 6; ++i) {
    INFO(i);
    CHECK(param(ex.cells[i], "policy.name") == expected[i][0]);
    CHECK(param(ex.cells[i], "cache.capacity") == expected[i][1]);
    CHECK(param(ex.cells[i], "policy.segments") == expected[i][2]);
  }
  // --set pins a zipped key (the others still zip) or replaces its list.
  const Experiment pinned = load_experiment(file, {{"policy.segments", "2"}});
  REQUIRE(pinned.cells.size() == 6);
  CHECK(param(pinned.cells[2], "policy.segments") == "2");
  CHECK(param(pinned.cells[2], "cache.capacity") == "0.3");
  CHECK_THROWS_WITH(load_experiment(file, {{"policy.segments", "[1, 2]"}}),
                    Contains("one length") && Contains("policy.segments"));
  const std::string twice = dir.write(
      "z2.yaml", header() + "matrix:\n  policy.name: [fifo]\nzip:\n  policy.name: [lru]\n");
  CHECK_THROWS_WITH(load_experiment(twice, {}), Contains("given twice"));
}

TEST_CASE("exclude drops the cells matching every key of an entry -- typos are errors",
          "[experiments]") {
  TempDir dir;
  // 3 policies × 2 frameworks × 2 capacities = 12 cells; W-TinyLFU runs on exact only, and
  // GDSF on RIPQ only at the larger capacity.
  const std::string file =
      dir.write("x.yaml", header() +
                              "matrix:\n  policy.name: [lru, wtinylfu, gdsf]\n"
                              "  framework.name: [exact, ripq]\n  cache.capacity: [0.05, 0.1]\n"
                              "exclude:\n"
                              "  - {policy.name: wtinylfu, framework.name: ripq}\n"
                              "  - policy.name: gdsf\n    framework.name: [ripq]\n"
                              "    cache.capacity: 0.05\n");
  const Experiment ex = load_experiment(file, {});
  std::vector<std::string> cells;
  for (const auto& c : ex.cells) {
    cells.push_back(param(c, "policy.name") + "/" + param(c, "framework.name") + "/" +
                    param(c, "cache.capacity"));
  }
  CHECK(cells == std::vector<std::string>{"lru/exact/0.05", "lru/exact/0.1", "lru/ripq/0.05",
                                          "lru/ripq/0.1", "wtinylfu/exact/0.05",
                                          "wtinylfu/exact/0.1", "gdsf/exact/0.05", "gdsf/exact/0.1",
                                          "gdsf/ripq/0.1"});
  for (size_t i = 0; i < ex.cells.size(); ++i) CHECK(ex.cells[i].index == i);  // renumbered

  // A key pinned by --set is matched as a fixed value: pinning ripq leaves lru and gdsf/0.1.
  const Experiment pinned = load_experiment(file, {{"framework.name", "ripq"}});
  CHECK(pinned.cells.size() == 3);

  auto error_of = [&](const std::string& exclude) {
    return config_error(dir.write("bad.yaml", header() +
                                                  "matrix:\n  policy.name: [lru, gdsf]\n"
                                                  "  cache.capacity: [0.05, 0.1]\n" +
                                                  exclude));
  };
  // A value the axis does not take, an unknown key, a malformed entry, everything excluded.
  CHECK_THAT(error_of("exclude:\n  - {cache.capacity: 0.10}\n"),
             Contains("bad.yaml:8") && Contains("'0.10' is not a value of cache.capacity") &&
                 Contains("0.05, 0.1"));
  CHECK_THAT(error_of("exclude:\n  - {policy.nam: lru}\n"),
             Contains("unknown exclude key 'policy.nam'"));
  CHECK_THAT(error_of("exclude:\n  - lru\n"), Contains("exclude") && Contains("mappings"));
  CHECK_THAT(error_of("exclude: {policy.name: lru}\n"), Contains("a list of mappings"));
  CHECK_THAT(error_of("exclude:\n  - {policy.name: [lru, gdsf]}\n"), Contains("drops every cell"));
}

// The sweep.

// Reads a file's lines (our rows here never contain line breaks).
std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream f(path);
  std::vector<std::string> out;
  for (std::string line; std::getline(f, line);) out.push_back(line);
  return out;
}

TEST_CASE("run_experiment writes one row per cell and records failed cells", "[experiments]") {
  TempDir dir;
  // 30 bytes: one whole oracleGeneral record and a truncated one.
  dir.write("bad.oracleGeneral", std::string(30, '\x01'));
  const std::string path =
      dir.write("sw.yaml", "name: sw\nmatrix:\n  trace.path: [" + kTrace + ", " +
                               dir.file("bad.oracleGeneral") + "]\n  policy.name: [fifo, lru]\n");
  const Experiment ex = load_experiment(path, {});
  REQUIRE(ex.cells.size() == 4);
  std::ostringstream log;
  const std::string out = dir.file("out/sw.csv");
  CHECK(run_experiment(ex, out, log) == 2);
  const auto lines = lines_of(out);
  REQUIRE(lines.size() == 5);
  CHECK(lines[0].rfind("experiment,cell,", 0) == 0);
  CHECK(lines[0].substr(lines[0].size() - 6) == ",error");
  // Good cells end with an empty error; failed ones carry the reader's message.
  CHECK(lines[1].back() == ',');
  CHECK(lines[2].back() == ',');
  CHECK_THAT(lines[3], Contains("truncated"));
  CHECK_THAT(lines[4], Contains("truncated"));
  CHECK_THAT(log.str(), Contains("[cell 0 of 0-3]"));
  CHECK_THAT(log.str(), Contains("[cell 3 of 0-3]"));
  CHECK_THAT(log.str(), Contains("FAILED"));
}

TEST_CASE("a sweep written twice is identical but for wall_seconds", "[experiments]") {
  TempDir dir;
  const Experiment ex =
      load_experiment(dir.write("tw.yaml", header() + "matrix:\n  policy.name: [lru, gdsf]\n"), {});
  std::ostringstream log;
  REQUIRE(run_experiment(ex, dir.file("a.csv"), log) == 0);
  REQUIRE(run_experiment(ex, dir.file("b.csv"), log) == 0);
  const auto a = lines_of(dir.file("a.csv"));
  const auto b = lines_of(dir.file("b.csv"));
  REQUIRE(a.size() == 3);
  REQUIRE(b.size() == 3);
  CHECK(a[0] == b[0]);
  // wall_seconds is the last column (no notes, no error here: not carried) and no field is
  // quoted.
  REQUIRE(a[0].ends_with(",wall_seconds"));
  auto drop_wall = [](const std::string& line) { return line.substr(0, line.rfind(',')); };
  for (size_t i = 1; i < 3; ++i) CHECK(drop_wall(a[i]) == drop_wall(b[i]));
}

// ------------------------------------------------------------------------------------------
// Every framework × policy × admission, through the sweep users run.

// The DRAM of TinyLFU's sketch and doorkeeper for a cache of `capacity` bytes on the bundled
// trace, from their specifications (experiments/run/measure.h expected_cached_objects,
// policies/tinylfu.h FrequencySketch and Doorkeeper), not from the code that sizes them: n =
// capacity ÷ ⌊working set ÷ unique objects⌋ objects expected; the sketch max(8, 2^⌈log2 n⌉) words
// of 8 bytes; the doorkeeper max(128, 2^⌈log2 ⌈3n × −ln 0.01 ÷ ln²2⌉⌉) bits (3 insertions per
// object at fpp 1 %).
uint64_t expected_objects(uint64_t capacity) {
  return std::max<uint64_t>(1, capacity / (kTraceWorkingSet / kTraceUnique));
}
uint64_t sketch_bytes(uint64_t capacity) {
  return 8 * std::max<uint64_t>(8, std::bit_ceil(expected_objects(capacity)));
}
uint64_t doorkeeper_bytes(uint64_t capacity) {
  const double bits = std::ceil(static_cast<double>(3 * expected_objects(capacity)) *
                                -std::log(0.01) / (std::log(2.0) * std::log(2.0)));
  return std::max<uint64_t>(128, std::bit_ceil(static_cast<uint64_t>(bits))) / 8;
}

TEST_CASE("every framework x policy x admission runs on the bundled trace with balanced bytes",
          "[experiments][frameworks][admission]") {
  // B = 128 KiB: at 2 % of the working set (5.6 MB) RIPQ and SIPQ have 42 device blocks, more
  // than RIPQ's reserved_blocks + 2 = 12 and SIPQ's 2; at 10 %, 212. Objects larger than B (the
  // trace's largest is 4 MB) are never admitted there. exact reads no block size.
  constexpr uint64_t kBlock = 128 << 10;
  constexpr uint64_t kInsertionPoints = 8;  // framework.insertion_points' default
  TempDir dir;
  const Experiment ex = load_experiment(
      dir.write("all.yaml",
                header("all") +
                    "framework: {block_size: 128KiB}\n"
                    "matrix:\n"
                    "  framework.name: [exact, ripq, sipq]\n"
                    "  policy.name: [fifo, lru, slru, gdsf, wtinylfu]\n"
                    "  admission.name: [none, tinylfu]\n"
                    "  admission.doorkeeper: [false, true]\n"
                    "  cache.capacity: [0.02, 0.1]\n"
                    "  warmup: [0, 0.3]\n"
                    "exclude:\n"
                    // W-TinyLFU is a whole cache (a window, an SLRU main and its own sketch),
                    // not a priority rule a queue framework orders: load_experiment refuses it
                    // on ripq and sipq ("runs on framework exact only").
                    "  - {policy.name: wtinylfu, framework.name: [ripq, sipq]}\n"
                    // The doorkeeper is a tinylfu field: the priority policies without admission
                    // never read it, so those cells would repeat admission none. W-TinyLFU takes
                    // every admission.name and never reads it: its own sketch always decides,
                    // built from the tinylfu fields, doorkeeper included (checked below).
                    "  - {admission.name: none, admission.doorkeeper: true,\n"
                    "     policy.name: [fifo, lru, slru, gdsf]}\n"),
      {});
  // Per capacity and warm-up: exact 4 policies × 3 admissions + W-TinyLFU × 2 admission names ×
  // 2 doorkeepers; ripq and sipq 4 × 3 each.
  REQUIRE(ex.cells.size() == 2 * 2 * (12 + 4 + 12 + 12));
  std::ostringstream log;
  const std::string out = dir.file("all.csv");
  CHECK(run_experiment(ex, out, log) == 0);
  const StoredResults results = read_results(out);
  REQUIRE(results.rows.size() == ex.cells.size());
  // The first exclusion is the tool's: without it the experiment does not load.
  CHECK_THAT(config_error(dir.write("w.yaml", header() + "policy: {name: wtinylfu}\n"
                                                         "framework: {name: sipq}\n")),
             Contains("framework exact only"));

  std::map<std::string, RowMap> wtinylfu;  // by admission.name / doorkeeper / capacity / warmup
  for (const StoredRow& stored : results.rows) {
    const RowMap r(stored.fields);
    const std::string fw = r.at("framework.name"), policy = r.at("policy.name");
    const bool admission = r.at("admission.name") == "tinylfu";
    const bool doorkeeper = r.at("admission.doorkeeper") == "true";
    const bool warm = r.at("warmup") != "0";
    INFO(fw << " " << policy << " admission " << r.at("admission.name") << " doorkeeper "
            << doorkeeper << " capacity " << r.at("cache.capacity") << " warmup "
            << r.at("warmup"));
    REQUIRE(r.at("error").empty());
    const uint64_t capacity = u64(r, "cache_capacity_bytes");
    const uint64_t placed = u64(r, "placed_bytes"), miss = u64(r, "miss_bytes_inserted");
    const uint64_t cached = u64(r, "cached_bytes"), evicted = u64(r, "evicted_bytes");
    const uint64_t superseded = u64(r, "superseded_bytes");
    const uint64_t reinserted = u64(r, "reinserted_bytes");
    // Device I/O and block buffers: exact places nothing, and its row carries none of them
    // (docs/reference/columns.md); they count 0.
    auto io = [&](const char* k) {
      if (fw != "exact") return u64(r, k);
      CHECK(r.at(k).empty());
      return uint64_t{0};
    };
    const uint64_t writes = io("device_writes"), written = io("host_bytes_written");
    const uint64_t trims = io("trims"), trimmed = io("trimmed_bytes");
    const uint64_t dram = io("dram_buffer_bytes");
    const uint64_t gets = u64(r, "get_requests"), hits = u64(r, "hits");
    const uint64_t rejections = u64(r, "admission_rejections");

    // Every copy placed is a miss's insertion or a reinsertion (RIPQ materialization, SIPQ
    // reinsertion); both counters grow together, so this holds after any warm-up.
    CHECK(placed == miss + reinserted);
    // Every copy placed is cached, evicted or superseded (engine/queue.h). The row's counters
    // grow from the warm-up snapshot while cached_bytes is the end's, so with a warm-up the
    // two sides differ by the bytes cached at the snapshot, at most the capacity.
    if (!warm) {
      CHECK(placed == cached + evicted + superseded);
    } else {
      CHECK(cached + evicted + superseded >= placed);
      CHECK(cached + evicted + superseded - placed <= capacity);
    }
    CHECK(cached <= capacity);
    // An all-get trace: every byte inserted is a missed get's, every rejection a missed get.
    CHECK(miss <= u64(r, "bytes_requested") - u64(r, "bytes_hit"));
    CHECK(rejections <= gets - hits);

    if (fw == "exact") {
      // No placement: nothing reaches the device, nothing is reinserted, no block buffers.
      CHECK(reinserted == 0);
      CHECK(u64(r, "reinsertions") == 0);
      CHECK(writes == 0);
      CHECK(written == 0);
      CHECK(trims == 0);
      CHECK(dram == 0);
    } else {
      // Both frameworks write and trim whole device blocks only, padding included.
      CHECK(written == writes * kBlock);
      CHECK(trimmed == trims * kBlock);
      const uint64_t slots = capacity / kBlock;
      if (fw == "ripq") {
        // One active device buffer per section; §4.4's splits (past 2α) and merges (below α)
        // keep the sections between about K and 2K.
        CHECK(dram % kBlock == 0);
        CHECK(dram >= kBlock);
        CHECK(dram <= 2 * kInsertionPoints * kBlock);
        if (!warm) {
          // Each trim frees a slot a write filled: writes − trims slots are in use at the end,
          // and every cached object's data is in one of them or in an active buffer.
          CHECK(trims <= writes);
          CHECK(writes - trims <= slots);
          CHECK(cached <= (writes - trims) * kBlock + dram);
        }
      } else {
        CHECK(dram == kBlock);  // the one write buffer
        if (!warm) {
          // The cyclic log: once M − 1 blocks are sealed (the M-th is the buffer), every
          // further seal reclaims and trims the slot the buffer moves to.
          CHECK(writes - trims == std::min(writes, slots - 1));
          CHECK(cached <= (writes - trims) * kBlock + kBlock);
        }
      }
    }

    // TinyLFU: a candidate seen once (estimate 1) never beats a victim seen before, and 29,858
    // of the trace's objects are requested once: a full cache rejects some. W-TinyLFU rejects
    // (evicts a losing candidate) and builds its sketch, doorkeeper included, whatever
    // admission.name says.
    if (admission || policy == "wtinylfu") {
      CHECK(rejections > 0);
      uint64_t sketch = sketch_bytes(capacity);
      if (doorkeeper) sketch += doorkeeper_bytes(capacity);
      CHECK(u64(r, "admission_bytes") == sketch);
    } else {
      CHECK(rejections == 0);
      CHECK(u64(r, "admission_bytes") == 0);
    }
    const uint64_t objects = u64(r, "cached_objects");
    if (objects > 0) {
      // As in "results rows satisfy the metric invariants": each cached object's key, size and
      // chain link (16 B) are in the index map, its whole 28-byte entry in one part or the other.
      CHECK(u64(r, "index_bytes") >= 16 * objects);
      CHECK(u64(r, "index_bytes") + u64(r, "queue_bytes") >= 28 * objects);
    }
    if (policy == "wtinylfu") {
      // admission.doorkeeper: read under tinylfu; under none (W-TinyLFU reads it all the same)
      // the row shows it only when set to another value than its default, false.
      wtinylfu[r.at("admission.name") + "/" + (doorkeeper ? "true" : "false") + "/" +
               r.at("cache.capacity") + "/" + r.at("warmup")] = r;
    }
  }

  // W-TinyLFU does not read admission.name: the rows of none and tinylfu are the same run.
  REQUIRE(wtinylfu.size() == 16);
  for (const auto& [key, r] : wtinylfu) {
    if (!key.starts_with("none/")) continue;
    const RowMap& t = wtinylfu.at("tinylfu/" + key.substr(5));
    INFO(key);
    for (const char* column :
         {"hits", "bytes_hit", "evictions", "evicted_bytes", "admission_rejections", "placed_bytes",
          "cached_bytes", "admission_bytes"}) {
      CHECK(r.at(column) == t.at(column));
    }
  }
}

}  // namespace
}  // namespace flashpq::test_experiments

namespace flashpq::test_experiments {
namespace {

TEST_CASE("trace.transforms: a YAML list of maps is one value, a list of them an axis",
          "[experiments]") {
  TempDir dir;
  const std::string path =
      dir.write("tr.yaml", "trace:\n  path: " + kTrace +
                               "\n  transforms: [{name: sample, rate: 0.5}, {name: limit, "
                               "requests: 100}]\n");
  const Experiment ex = load_experiment(path, {});
  REQUIRE(ex.cells.size() == 1);
  CHECK(param(ex.cells[0], "trace.transforms") == "sample rate=0.5; limit requests=100");
  // Under matrix: each list one cell.
  const std::string m =
      dir.write("m.yaml", "trace: {path: " + kTrace +
                              "}\nmatrix:\n  trace.transforms: [[{name: limit, requests: 10}], "
                              "[{name: amplify_keys, factor: 2}, {name: limit, requests: 5}]]\n");
  const Experiment mx = load_experiment(m, {});
  REQUIRE(mx.cells.size() == 2);
  CHECK(param(mx.cells[0], "trace.transforms") == "limit requests=10");
  CHECK(param(mx.cells[1], "trace.transforms") == "amplify_keys factor=2; limit requests=5");
  // With --set: one list, or a list of lists (an axis); the text form too.
  CHECK(
      param(load_experiment(path, {{"trace.transforms", "[{name: limit, requests: 3}]"}}).cells[0],
            "trace.transforms") == "limit requests=3");
  CHECK(load_experiment(path, {{"trace.transforms", "[[{name: limit, requests: 3}], []]"}})
            .cells.size() == 2);
  CHECK(param(load_experiment(path, {{"trace.transforms", "limit requests=4"}}).cells[0],
              "trace.transforms") == "limit requests=4");
  // Errors name the file and line, the transform and the key.
  const std::string bad = dir.write(
      "bad.yaml", "trace:\n  path: " + kTrace + "\n  transforms: [{name: sample, rat: 0.5}]\n");
  CHECK_THROWS_WITH(load_experiment(bad, {}),
                    Catch::Contains("bad.yaml:3") && Catch::Contains("'rat'"));
  const std::string no_name =
      dir.write("nn.yaml", "trace:\n  path: " + kTrace + "\n  transforms: [{rate: 0.5}]\n");
  CHECK_THROWS_WITH(load_experiment(no_name, {}),
                    Catch::Contains("nn.yaml:3") && Catch::Contains("with a name"));
}

}  // namespace
}  // namespace flashpq::test_experiments

namespace flashpq::test_experiments {
namespace {

TEST_CASE("a key declared as a list takes a YAML list of scalars", "[experiments]") {
  TempDir dir;
  const std::string path = dir.write(
      "cb.yaml",
      "trace:\n  format: generator\n  generator: cachebench\n  key_size_range: [1, 8, 64]\n"
      "  key_size_range_probability: [0.3, 0.7]\n  requests: 100\n"
      "matrix:\n  trace.val_size_range: [[1, 32], [100, 200, 300]]\n"
      "  trace.val_size_range_probability: [[1], [0.5, 0.5]]\n"
      "exclude: [{trace.val_size_range: '1,32', trace.val_size_range_probability: '0.5,0.5'},\n"
      "          {trace.val_size_range: '100,200,300', trace.val_size_range_probability: '1'}]\n");
  const Experiment ex = load_experiment(path, {});
  REQUIRE(ex.cells.size() == 2);
  CHECK(param(ex.cells[0], "trace.key_size_range") == "1,8,64");
  CHECK(param(ex.cells[0], "trace.val_size_range") == "1,32");
  CHECK(param(ex.cells[1], "trace.val_size_range_probability") == "0.5,0.5");
  CHECK(param(load_experiment(path, {{"trace.key_size_range", "[2, 4]"},
                                     {"trace.key_size_range_probability", "[1]"}})
                  .cells[0],
              "trace.key_size_range") == "2,4");
}

}  // namespace
}  // namespace flashpq::test_experiments
