// tests/experiments/test_columns.cpp — the results columns (experiments/run/row.h,
// experiments/columns.h): every column declared once with a definition; docs/reference/
// columns.md equal to their rendering; a row carries the columns of the sections its cell uses,
// exactly those the sweep decided from the configuration before the first row; a file of one
// kind of cell has no column empty in every row (the bundled experiments, shrunk); a mixed file's
// header is the union; failed rows are identity + error; --resume of a file of the earlier
// all-columns format and of a file of other columns; collect of shards of different columns;
// CSV and JSON Lines each load in one line of pandas.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "devices/device.h"
#include "experiments/collect.h"
#include "experiments/columns.h"
#include "experiments/experiment.h"
#include "experiments/results.h"
#include "experiments/run/cell_runner.h"
#include "experiments/run/row.h"
#include "experiments/run/runners.h"
#include "experiments/sweep.h"
#include "sim/timing.h"
#include "tests/block_test_util.h"
#include "tests/test_util.h"
#include "traces/trace_summary.h"

namespace flashpq::test_columns {
namespace {

using namespace flashpq::testing;  // tests/test_util.h
namespace fs = std::filesystem;
using Catch::Contains;

const std::string kSource = FLASHPQ_SOURCE_DIR;
const std::string kTrace = kSource + "/traces/data/adaptsize-request.oracleGeneral.zst";

SweepOptions quiet() {
  SweepOptions o;
  o.jobs = 2;
  o.progress_seconds = 0;
  o.summaries.enabled = false;
  return o;
}

// The names of a section's columns, in order.
std::vector<std::string> section_list(const std::string& section) {
  for (const ColumnSection& s : result_column_sections()) {
    if (s.name == section) {
      std::vector<std::string> out;
      for (const ColumnSpec& c : s.columns) out.push_back(c.name);
      return out;
    }
  }
  FAIL("no section " << section);
  return {};
}
std::set<std::string> section_columns(const std::string& section) {
  const std::vector<std::string> v = section_list(section);
  return {v.begin(), v.end()};
}

// Columns of `header` that are empty in every row of `rows`.
std::vector<std::string> empty_everywhere(const StoredResults& r) {
  std::vector<std::string> out;
  for (const std::string& c : r.columns) {
    bool any = false;
    for (const StoredRow& row : r.rows) any = any || !row.field(c).empty();
    if (!any) out.push_back(c);
  }
  return out;
}

std::vector<std::string> names_of(const ResultRow& row) {
  std::vector<std::string> out;
  for (const Column& c : row) out.push_back(c.name);
  return out;
}

std::vector<std::string> keys_of(const StoredRow& row, const std::vector<std::string>& order) {
  std::vector<std::string> out;
  for (const std::string& c : order) {
    if (row.fields.contains(c)) out.push_back(c);
  }
  return out;
}

// ------------------------------------------------------------------------------------------
// Declarations and the reference

TEST_CASE("columns reference: docs/reference/columns.md is the rendering of the declarations",
          "[columns][columns-reference]") {
  const std::string path = kSource + "/docs/reference/columns.md";
  const std::string rendered = columns_reference_markdown();
  // The hidden way to regenerate it (until `flashpq columns` prints it):
  //   FLASHPQ_WRITE_COLUMNS_REFERENCE=1 build/flashpq_tests "[columns-reference]"
  if (const char* w = std::getenv("FLASHPQ_WRITE_COLUMNS_REFERENCE"); w && std::string(w) == "1") {
    fs::create_directories(fs::path(path).parent_path());
    std::ofstream(path, std::ios::binary | std::ios::trunc) << rendered;
    WARN("wrote " << path);
  }
  INFO(path << " differs from columns_reference_markdown() (experiments/columns.h): a column "
               "or key was declared, renamed or redefined. Regenerate it with\n"
               "  FLASHPQ_WRITE_COLUMNS_REFERENCE=1 build/flashpq_tests \"[columns-reference]\"\n"
               "and commit it.");
  CHECK(slurp(path) == rendered);
  // Every declared column is in it, under its section.
  for (const ColumnSection& s : result_column_sections()) {
    CHECK_THAT(rendered, Contains("\n## " + s.title + "\n"));
    for (const ColumnSpec& c : s.columns) CHECK_THAT(rendered, Contains("| `" + c.name + "` |"));
  }
}

TEST_CASE("columns: each declared once, with a definition, by the component that fills it",
          "[columns]") {
  std::set<std::string> seen;
  size_t n = 0;
  for (const ColumnSection& s : result_column_sections()) {
    INFO("section " << s.name);
    CHECK_FALSE(s.title.empty());
    CHECK_FALSE(s.when.empty());
    for (const ColumnSpec& c : s.columns) {
      INFO("column " << c.name);
      CHECK(seen.insert(c.name).second);
      CHECK_FALSE(c.description.empty());
      CHECK(c.description.find('\n') == std::string::npos);
      if (c.if_set) CHECK_FALSE(c.when.empty());  // says when it has a value
      ++n;
    }
  }
  CHECK(result_column_order().size() == n);
  // The sections, in row order.
  std::vector<std::string> names;
  for (const ColumnSection& s : result_column_sections()) names.push_back(s.name);
  CHECK(names == std::vector<std::string>{"identity", "parameters", "provenance", "cache",
                                          "hierarchy", "simflash", "block", "wall", "timing",
                                          "status"});
  // The parameters are the schema's keys, in its order; the devices' and the timing columns
  // are the ones those components declare; the wall clock's are the names its runner fills.
  TempDir dir;
  const Experiment ex = load_experiment(dir.write("e.yaml", "trace: {path: " + kTrace + "}\n"), {});
  std::vector<std::string> schema;
  for (const auto& [k, v] : ex.cells[0].parameters) schema.push_back(k);
  CHECK(section_list("parameters") == schema);
  for (const DeviceType* t : device_types()) {
    if (t->columns.empty()) continue;
    std::vector<std::string> declared;
    for (const ColumnSpec& c : t->columns) declared.push_back(c.name);
    CHECK(declared == section_list(t->spec().name));
  }
  CHECK(section_list("wall") == runner_column_names());
  const std::vector<std::string> timing = section_list("timing");
  const std::vector<std::string>& t = timing_column_names();
  REQUIRE(timing.size() > t.size());
  CHECK(std::vector<std::string>(timing.begin(), timing.begin() + t.size()) == t);
  CHECK(timing_column_names(true, true, true) == t);
  CHECK(timing_column_names(false, false, false).size() == t.size() - 3 * 8);
  for (const std::string& c : timing_column_names(true, false, false)) {
    CHECK_FALSE(c.starts_with("write_latency"));
    CHECK_FALSE(c.starts_with("delete_latency"));
  }
}

TEST_CASE("merge_columns: the union in declared order, unknown names after, first met",
          "[columns]") {
  CHECK(merge_columns({{"wall_seconds", "cell"}, {"experiment", "zz", "hits"}, {"aa", "zz"}}) ==
        std::vector<std::string>{"experiment", "cell", "hits", "wall_seconds", "zz", "aa"});
  CHECK(merge_columns({{"device.name", "seed"}, {"framework.name"}}) ==
        std::vector<std::string>{"seed", "framework.name", "device.name"});
  CHECK(merge_columns({}).empty());
}

// ------------------------------------------------------------------------------------------
// Which columns a row carries

TEST_CASE("a file of exact-queue cells on the null device has no device, tier or timing column",
          "[columns]") {
  TempDir dir;
  const Experiment ex = load_experiment(
      dir.write("e.yaml", "name: e\ntrace: {path: " + kTrace +
                              "}\nwarmup: 0.2\nframework: {name: exact, block_size: 256KiB}\n"
                              "policy: {segments: 3}\nmatrix:\n"
                              "  policy.name: [fifo, lru, slru, gdsf]\n"
                              "  cache.capacity: [0.05, 0.1]\n"),
      {});
  std::ostringstream log;
  REQUIRE(run_experiment(ex, dir.file("r.csv"), log, quiet()) == 0);
  const StoredResults r = read_results(dir.file("r.csv"));
  REQUIRE(r.rows.size() == 8);
  const std::set<std::string> header(r.columns.begin(), r.columns.end());
  for (const char* section : {"hierarchy", "simflash", "block", "wall", "timing"}) {
    for (const std::string& c : section_columns(section)) {
      INFO(section << ": " << c);
      CHECK_FALSE(header.contains(c));
    }
  }
  // Nothing of a device exact does no I/O on, nor the keys its components do not read at their
  // defaults.
  for (const char* c :
       {"wa_implementation", "host_bytes_written", "device_writes", "block_size_bytes",
        "dram_buffer_bytes", "device_exported_bytes", "framework.insertion_points",
        "framework.occupancy", "device.profile", "trace.generator", "tiers.dram_capacity",
        "backing.read_latency_us", "timing.arrival", "error", "notes"}) {
    INFO(c);
    CHECK_FALSE(header.contains(c));
  }
  // policy.segments where SLRU and GDSF read it (3, its default: not shown where unread); a
  // key exact does not read but set to another value than its default is shown as written; the
  // selectors everywhere.
  for (const StoredRow& row : r.rows) {
    const std::string p = row.field("policy.name");
    CHECK(row.field("policy.segments") == (p == "fifo" || p == "lru" ? "" : "3"));
    CHECK(row.field("framework.block_size") == "256KiB");
    CHECK(row.field("framework.name") == "exact");
    CHECK(row.field("device.name") == "null");
  }
  CHECK(empty_everywhere(r).empty());
}

// Cells of every kind the runners have: the row run_cell() builds carries exactly the columns
// the sweep decides before running (planned_row_columns()), and each such column has a value in
// these cells (none of them is a case where a column has no value).
TEST_CASE("the columns decided from the configuration are the ones the row builder emits",
          "[columns]") {
  TempDir dir;
  const std::string trace = "trace: {path: " + kTrace + "}\nwarmup: 0.2\n";
  const std::string gen =
      "trace: {format: generator, generator: zipf, objects: 2000, alpha: 0.8, size: 4KiB, "
      "requests: 20000}\nwarmup: 0.3\n";
  const std::vector<std::pair<std::string, std::string>> kinds = {
      {"exact on null", trace + "cache: {capacity: 0.1}\n"},
      {"exact naive placement on simflash",
       trace + "cache: {capacity: 0.1}\nframework: {name: exact, placement: naive}\n"
               "device: {name: simflash, profile: tiny, size_to_cache: true}\n"},
      {"ripq on simflash, simulated, with a series",
       trace + "cache: {capacity: 0.1}\nframework: {name: ripq, block_size: 0.00390625}\n"
               "device: {name: simflash, profile: tiny, size_to_cache: true}\n"
               "timing: {mode: simulated, arrival: poisson, rate: 20000}\n"
               "stats: {interval_s: 0.5}\n"},
      {"sipq on simflash, functional, TinyLFU admission",
       trace + "cache: {capacity: 0.1}\nframework: {name: sipq, block_size: 0.00390625}\n"
               "admission: {name: tinylfu}\n"
               "device: {name: simflash, profile: tiny, size_to_cache: true}\n"},
      {"W-TinyLFU", trace + "cache: {capacity: 0.1}\npolicy: {name: wtinylfu}\n"},
      {"direct on simflash, simulated",
       "trace: {format: generator, generator: device_io, pattern: uniform_random, op: write, "
       "io_size: 16KiB, requests: 4096}\nwarmup: 0.25\nframework: {name: direct}\n"
       "device: {name: simflash, profile: tiny}\ntiming: {mode: simulated, clients: 8}\n"},
      {"a hierarchy, functional",
       gen + "cache: {capacity: 0.3}\nframework: {name: ripq, block_size: 64KiB}\n"
             "device: {name: simflash, profile: tiny, size_to_cache: true}\n"
             "tiers: {mode: wb, dram_capacity: 0.05}\n"},
      {"NHC, simulated", gen +
                             "cache: {capacity: 0.99}\nframework: {name: exact, placement: naive}\n"
                             "device: {name: simflash, profile: tiny, size_to_cache: true}\n"
                             "timing: {mode: simulated, arrival: poisson, rate: 20000}\n"
                             "tiers: {mode: nhc_wa, dram: false}\n"
                             "backing: {device: fixed_latency, read_bandwidth_mib_s: 60, "
                             "write_bandwidth_mib_s: 60}\n"},
      {"a trace with deletes, simulated",
       "trace: {format: generator, generator: cachebench, num_keys: 2000, get_ratio: 0.6, "
       "set_ratio: 0.3, del_ratio: 0.1, requests: 20000}\nwarmup: 0.2\n"
       "cache: {capacity: 0.5}\nframework: {name: ripq, block_size: 16KiB}\n"
       "device: {name: simflash, profile: tiny, size_to_cache: true}\n"
       "timing: {mode: simulated}\n"},
  };
  for (const auto& [kind, yaml] : kinds) {
    INFO(kind);
    const Experiment ex = load_experiment(dir.write("k.yaml", "name: k\n" + yaml), {});
    REQUIRE(ex.cells.size() == 1);
    const CellConfig& cell = ex.cells[0];
    const TraceSummary summary = summarize_trace(cell.trace);
    CellConfig with_stats = cell;
    with_stats.stats_path = dir.file("k.stats/cell-0.csv");
    with_stats.stats_file = "k.stats/cell-0.csv";
    const ResultRow row = run_cell(with_stats, summary);
    const std::vector<std::string> planned = planned_row_columns(with_stats, &summary);
    CHECK(names_of(row) == planned);
    for (const Column& c : row) {
      if (c.name == "notes") continue;  // carried only with notes: not empty where carried
      INFO("column " << c.name);
      CHECK_FALSE(c.text.empty());
    }
  }
  SECTION("a cell that cannot be planned, or whose trace could not be summarised") {
    const Experiment ex = load_experiment(dir.write("k.yaml", "name: k\n" + trace), {});
    const std::vector<std::string> failed = names_of(failed_row(ex.cells[0], "boom"));
    CHECK(planned_row_columns(ex.cells[0], nullptr) == failed);
    TraceSummary empty;  // no requests: plan_cell() refuses it
    CHECK(planned_row_columns(ex.cells[0], &empty) == failed);
    CHECK(failed.back() == "error");
    CHECK(failed.size() == 2 + row_parameters(ex.cells[0]).size() + 1);
  }
}

TEST_CASE("a block device's row carries its own columns, decided as the builder emits them",
          "[columns][block]") {
  TempDir dir(scratch_dir());
  for (const std::string framework : {"direct", "ripq"}) {
    INFO(framework);
    const std::string yaml =
        framework == "direct"
            ? "trace: {format: generator, generator: device_io, op: write, io_size: 4KiB, "
              "requests: 512}\nframework: {name: direct}\n"
            : "trace: {path: " + kTrace +
                  ", transforms: [{name: limit, requests: 5000}]}\ncache: {capacity: 8MiB}\n"
                  "framework: {name: ripq, block_size: 256KiB}\n";
    const Experiment ex = load_experiment(
        dir.write("b.yaml", "name: b\n" + yaml + "device: {name: block, path: " +
                                dir.file("dev.img") + ", capacity: 16MiB, verify: true}\n"),
        {});
    const CellConfig& cell = ex.cells[0];
    REQUIRE(runner_for(cell) == RunnerKind::kWall);
    const TraceSummary summary = summarize_trace(cell.trace);
    const ResultRow row = run_cell(cell, summary);
    std::vector<std::string> planned = planned_row_columns(cell, &summary);
    // What the run met (block_notes, a drive's counters) is added where it has a value.
    std::vector<std::string> met;
    for (const ColumnSpec& c : device_type("block").columns) {
      for (const Column& r : row) {
        if (c.if_set && r.name == c.name) met.push_back(c.name);
      }
    }
    CHECK(names_of(row) == merge_columns({planned, met}));
    const std::set<std::string> names(planned.begin(), planned.end());
    for (const char* c : {"block_engine", "verify_blocks_checked", "iops", "lat_ns",
                          "latency_p99_us", "latency_histogram", "device_exported_bytes"}) {
      CHECK(names.contains(c));
    }
    CHECK(names.contains("clat_ns") == (framework == "direct"));
    CHECK(names.contains("hits") == (framework != "direct"));
    CHECK_FALSE(names.contains("sim_events"));
  }
}

// ------------------------------------------------------------------------------------------
// Files

// Exact cells on the null device and RIPQ cells timed on simflash, in one file.
std::string mixed_cells() {
  return "name: mixed\ntrace: {path: " + kTrace +
         ", transforms: [{name: limit, requests: 20000}]}\nwarmup: 0.2\n"
         "cache: {capacity: 0.1}\npolicy: {name: lru}\n"
         "framework: {block_size: 0.00390625}\n"
         "zip:\n  framework.name: [exact, ripq, exact, ripq]\n"
         "  device.name: [null, simflash, null, simflash]\n"
         "  device.profile: [\"\", tiny, \"\", tiny]\n"
         "  device.size_to_cache: [\"\", true, \"\", true]\n"
         "  timing.mode: [none, simulated, none, simulated]\n"
         "  cache.capacity: [0.1, 0.1, 0.2, 0.2]\n";
}

TEST_CASE("a mixed file's header is the union of its cells' columns, each row its own",
          "[columns]") {
  TempDir dir;
  const Experiment ex = load_experiment(dir.write("m.yaml", mixed_cells()), {});
  REQUIRE(ex.cells.size() == 4);
  std::ostringstream log;
  REQUIRE(run_experiment(ex, dir.file("m.csv"), log, quiet()) == 0);
  REQUIRE(run_experiment(ex, dir.file("m.jsonl"), log, quiet()) == 0);
  std::vector<std::vector<std::string>> planned;
  for (const CellConfig& cell : ex.cells) {
    const TraceSummary summary = summarize_trace(cell.trace);
    planned.push_back(planned_row_columns(cell, &summary));
  }
  const StoredResults csv = read_results(dir.file("m.csv"));
  const StoredResults jsonl = read_results(dir.file("m.jsonl"));
  CHECK(csv.columns == merge_columns(planned));
  CHECK(jsonl.columns == csv.columns);
  REQUIRE(jsonl.rows.size() == 4);
  for (size_t i = 0; i < 4; ++i) {
    INFO("cell " << i);
    CHECK(keys_of(jsonl.rows[i], csv.columns) == planned[i]);  // A key absent: column absent.
    CHECK(jsonl.rows[i].fields.size() == planned[i].size());
    for (const std::string& c : csv.columns) {
      if (c == "wall_seconds") continue;
      CHECK(csv.rows[i].field(c) == jsonl.rows[i].field(c));
    }
  }
  const std::set<std::string> header(csv.columns.begin(), csv.columns.end());
  for (const char* c : {"wa_ftl", "latency_p99_us", "sim_events", "framework.insertion_points",
                        "framework.placement", "device.profile"}) {
    CHECK(header.contains(c));
  }
  CHECK(csv.rows[0].field("wa_ftl").empty());  // exact on null: not carried
  CHECK_FALSE(csv.rows[1].field("wa_ftl").empty());
  CHECK(empty_everywhere(csv).empty());

  SECTION("each loads in one line of pandas") {
    if (std::system("/usr/bin/python3 -c 'import pandas' > /dev/null 2>&1") != 0) {
      WARN("pandas is not installed (not a FlashPQ dependency): the one-line loads are unchecked");
      return;
    }
    const std::string script =
        dir.write("load.py",
                  "import sys, pandas as pd\n"
                  "c = pd.read_csv(sys.argv[1])\n"
                  "j = pd.read_json(sys.argv[2], lines=True)\n"
                  "assert set(c.columns) == set(j.columns), set(c.columns) ^ set(j.columns)\n"
                  "assert len(c) == len(j) == 4\n"
                  "for col in ['object_hit_ratio', 'wa_ftl', 'latency_p99_us', 'cell']:\n"
                  "    assert c[col].dtype.kind in 'fi' and j[col].dtype.kind in 'fi', col\n"
                  "    # pandas' JSON reader parses floats to about 1e-15 (precise_float=False)\n"
                  "    assert ((c[col] - j[col]).abs() <= 1e-12 * c[col].abs()).sum() == "
                  "c[col].notna().sum()\n"
                  "    assert c[col].isna().equals(j[col].isna()), col\n"
                  "assert c['wa_ftl'].isna().tolist() == [True, False, True, False]\n"
                  "print('ok')\n");
    const std::string out = dir.file("py.out");
    const int rc = std::system(("/usr/bin/python3 " + script + " " + dir.file("m.csv") + " " +
                                dir.file("m.jsonl") + " > " + out + " 2>&1")
                                   .c_str());
    INFO(slurp(out));
    CHECK(rc == 0);
  }
}

// The bundled experiments, each a results file of its kind of cells, shrunk with --set:
// no column is empty in every row.
TEST_CASE("bundled experiments: no column empty in every row of a file", "[columns][slow]") {
  struct Case {
    const char* file;
    std::vector<Override> set;
    const char* cells;
  };
  const std::vector<Case> cases = {
      {"quickstart.yaml", {{"cache.capacity", "[0.1, 0.2]"}}, "0-11"},
      {"ripq_k.yaml",
       {{"trace.transforms", "[{name: limit, requests: 5000}]"}, {"policy.segments", "[3]"}},
       ""},
      {"flash_fig2.yaml", {{"trace.requests", "[2000]"}, {"trace.io_size", "[4KiB]"}}, ""},
      {"tiers.yaml",
       {{"trace.transforms", "[{name: limit, requests: 5000}]"}, {"tiers.mode", "[wt, wb]"}},
       ""},
      {"nhc.yaml", {{"trace.requests", "5000"}, {"timing.rate", "[10000]"}}, ""},
      {"kv_compare.yaml",
       {{"trace.operation_count", "20000"},
        {"trace.record_count", "[32000]"},
        {"tiers.admit_probability", "[1]"}},
       ""},
      {"over_time.yaml", {{"trace.requests", "20000"}}, ""},
  };
  TempDir dir;
  for (const Case& c : cases) {
    INFO(c.file);
    Experiment ex = load_experiment(kSource + "/experiments/" + c.file, c.set);
    for (CellConfig& cell : ex.cells) {  // as flashpq run places the series (over_time.yaml)
      cell.stats_file = "series/cell-" + std::to_string(cell.index) + ".csv";
      cell.stats_path = dir.file(cell.stats_file);
    }
    SweepOptions o = quiet();
    if (*c.cells) o.cells = parse_cell_ranges(c.cells);
    std::ostringstream log;
    const std::string out = dir.file(std::string(c.file) + ".csv");
    REQUIRE(run_experiment(ex, out, log, o) == 0);
    const StoredResults r = read_results(out);
    REQUIRE(!r.rows.empty());
    CHECK(empty_everywhere(r) == std::vector<std::string>{});
  }
}

TEST_CASE("a failed cell's row is its identity and error -- the first one adds error to the header",
          "[columns]") {
  TempDir dir;
  // Cell 1 fails while it runs (every device write fails), after cell 0's row is written.
  const Experiment ex = load_experiment(
      dir.write("f.yaml", "name: f\ntrace: {path: " + kTrace +
                              ", transforms: [{name: limit, requests: 5000}]}\n"
                              "framework: {name: exact, placement: naive}\n"
                              "device: {name: simflash, profile: tiny, size_to_cache: true}\n"
                              "matrix:\n  device.fault.write_error_rate: [0, 1]\n"),
      {});
  for (const char* name : {"f.csv", "f.jsonl"}) {
    INFO(name);
    SweepOptions o = quiet();
    o.jobs = 1;
    std::ostringstream log;
    CHECK(run_experiment(ex, dir.file(name), log, o) == 1);
    const StoredResults r = read_results(dir.file(name));
    REQUIRE(r.rows.size() == 2);
    CHECK(r.columns.back() == "error");
    CHECK(r.rows[0].field("error").empty());
    CHECK_FALSE(r.rows[1].field("error").empty());
    // The failed row: experiment, cell, the parameters, error.
    const std::vector<std::string> failed = names_of(failed_row(ex.cells[1], ""));
    if (std::string(name) == "f.jsonl") {
      CHECK(keys_of(r.rows[1], r.columns) == failed);
      CHECK_FALSE(r.rows[0].fields.contains("error"));
    } else {
      for (const std::string& c : r.columns) {
        const bool carried = std::find(failed.begin(), failed.end(), c) != failed.end();
        CHECK(r.rows[1].field(c).empty() == !carried);
      }
    }
    CHECK_FALSE(fs::exists(dir.file(name) + ".tmp"));
  }
}

// ------------------------------------------------------------------------------------------
// Resume and collect

// tests/data/results/paths-all-columns.csv: tests/data/golden/paths.csv as FlashPQ 0.2.0 wrote
// it before rows carried only their sections' columns (every column in every row).
TEST_CASE("resume: a file of the earlier all-columns format keeps its rows and columns",
          "[columns]") {
  TempDir dir;
  const std::string fixture = slurp(kSource + "/tests/data/results/paths-all-columns.csv");
  const auto all = parse_csv(fixture);
  REQUIRE(all.size() == 8);  // header + 7 rows
  REQUIRE(all[0].size() > 250);
  // The header and the rows of cells 0-3.
  size_t at = 0;
  for (int line = 0; line < 5; ++line) at = fixture.find('\n', at) + 1;
  const std::string out = dir.write("paths.csv", fixture.substr(0, at));
  const Experiment ex = load_experiment(kSource + "/tests/data/golden/paths.yaml", {});
  SweepOptions o = quiet();
  o.resume = true;
  o.stale = StaleRule::kKeep;  // a later FlashPQ version keeps these rows too
  std::ostringstream log;
  REQUIRE(run_experiment(ex, out, log, o) == 0);
  INFO(log.str());
  CHECK_THAT(log.str(), Contains("4 finished rows kept"));
  const StoredResults r = read_results(out);
  // A resumed file keeps every column it had, but those carried only where they have a value
  // (error, a block device's notes and counters) that no kept row has: no value is lost.
  std::vector<std::string> columns;
  for (const std::string& c : all[0]) {
    if (!column_if_set(c)) columns.push_back(c);
  }
  CHECK(columns.size() == all[0].size() - 5);
  // ... in their order, widened by the columns the cells run now carry that it lacked (those
  // declared since 0.2.0, as block_size_basis), and nothing else.
  const std::string fresh = dir.file("fresh.csv");
  REQUIRE(run_experiment(ex, fresh, log, quiet()) == 0);
  const StoredResults f = read_results(fresh);
  const std::set<std::string> old_set(all[0].begin(), all[0].end());
  std::vector<std::string> kept_order, widened, fresh_new;
  for (const std::string& c : r.columns) (old_set.count(c) ? kept_order : widened).push_back(c);
  for (const std::string& c : f.columns) {
    if (!old_set.count(c)) fresh_new.push_back(c);
  }
  CHECK(kept_order == columns);
  CHECK(widened == fresh_new);
  REQUIRE(r.rows.size() == 7);
  for (size_t i = 0; i < 4; ++i) {  // the kept rows: their fields as they were, wall_seconds too
    for (size_t k = 0; k < all[0].size(); ++k) {
      INFO("cell " << i << " " << all[0][k]);
      CHECK(r.rows[i].field(all[0][k]) == all[i + 1][k]);
    }
  }
  // The rows run now: the columns their cells carry hold what a fresh run writes, the others
  // are empty.
  for (size_t i = 4; i < 7; ++i) {
    INFO("cell " << i);
    for (const std::string& c : r.columns) {
      if (c == "wall_seconds") continue;
      INFO(c);
      CHECK(r.rows[i].field(c) == f.rows[i].field(c));
    }
  }
  // The kept rows, under the new rule, equal a fresh run's in every column a fresh row carries
  // and they had (the columns declared since are empty in them: they were not measured).
  for (size_t i = 0; i < 4; ++i) {
    for (const std::string& c : f.columns) {
      if (!old_set.count(c)) {
        CHECK(r.rows[i].field(c).empty());
        continue;
      }
      if (c == "wall_seconds" || f.rows[i].field(c).empty()) continue;
      INFO("cell " << i << " " << c);
      CHECK(r.rows[i].field(c) == f.rows[i].field(c));
    }
  }
}

TEST_CASE("resume: a file of other columns widens the header -- collect merges shards",
          "[columns]") {
  TempDir dir;
  const Experiment ex = load_experiment(dir.write("m.yaml", mixed_cells()), {});
  std::ostringstream log;
  for (const char* ext : {".csv", ".jsonl"}) {
    INFO(ext);
    const std::string whole = dir.file(std::string("whole") + ext);
    REQUIRE(run_experiment(ex, whole, log, quiet()) == 0);
    const StoredResults w = read_results(whole);
    // Shards of different kinds: the exact cells (0, 2) and the timed RIPQ ones (1, 3).
    SweepOptions exact = quiet(), timed = quiet();
    exact.cells = parse_cell_ranges("0,2");
    timed.cells = parse_cell_ranges("1,3");
    const std::string s0 = dir.file(std::string("s0") + ext);
    const std::string s1 = dir.file(std::string("s1") + ext);
    REQUIRE(run_experiment(ex, s0, log, exact) == 0);
    REQUIRE(run_experiment(ex, s1, log, timed) == 0);
    const StoredResults r0 = read_results(s0);
    CHECK(r0.columns.size() < w.columns.size());
    CHECK(std::find(r0.columns.begin(), r0.columns.end(), "wa_ftl") == r0.columns.end());

    auto same_rows = [&](const StoredResults& r) {
      REQUIRE(r.rows.size() == w.rows.size());
      CHECK(r.columns == w.columns);
      for (size_t i = 0; i < r.rows.size(); ++i) {
        CHECK(keys_of(r.rows[i], r.columns) == keys_of(w.rows[i], w.columns));
        for (const std::string& c : w.columns) {
          if (c == "wall_seconds") continue;
          INFO("row " << i << " " << c);
          CHECK(r.rows[i].field(c) == w.rows[i].field(c));
        }
      }
    };
    SECTION(std::string("collect of shards of different columns") + ext) {
      const std::string out = dir.file(std::string("all") + ext);
      const CollectReport c = collect_results(ex, {s1, s0}, out, log);
      CHECK(c.rows == 4);
      CHECK(c.missing.empty());
      same_rows(read_results(out));
    }
    SECTION(std::string("resume of a shard of other columns") + ext) {
      SweepOptions o = quiet();
      o.resume = true;
      const std::string before = slurp(s0);
      REQUIRE(run_experiment(ex, s0, log, o) == 0);
      CHECK_THAT(log.str(), Contains("2 finished rows kept"));
      same_rows(read_results(s0));
      if (std::string(ext) == ".jsonl") {
        // JSON lines are kept as written (cell 0's line first).
        const std::string first = before.substr(0, before.find('\n') + 1);
        CHECK(slurp(s0).substr(0, first.size()) == first);
      }
    }
  }
  SECTION("a file that is not a results file is refused, untouched") {
    const std::string other = dir.write("other.csv", "a,b\n1,2\n");
    SweepOptions o = quiet();
    o.resume = true;
    CHECK_THROWS_WITH(run_experiment(ex, other, log, o),
                      Contains("other.csv: cannot resume: not a results file (no 'experiment'"));
    CHECK(slurp(other) == "a,b\n1,2\n");
    CHECK_THROWS_WITH(collect_results(ex, {other}, dir.file("x.csv"), log),
                      Contains("other.csv: not a results file: no 'experiment' column"));
    CHECK_FALSE(fs::exists(dir.file("x.csv")));
  }
}

}  // namespace
}  // namespace flashpq::test_columns
