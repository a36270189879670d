// Tests of experiments/run/interval_stats.h: a hand-computed series, and a timed cell's series
// against its own row (a second implementation of every count, and of the percentiles over one
// interval), with and without a hierarchy; the series changes nothing in the row; bad keys.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "experiments/config/cell_config.h"
#include "experiments/experiment.h"
#include "experiments/run/cell_runner.h"
#include "experiments/run/interval_stats.h"
#include "tests/test_util.h"
#include "traces/trace_summary.h"

namespace flashpq::test_interval_stats {
namespace {

using namespace flashpq::testing;  // tests/test_util.h
using Catch::Contains;
// A row's fields; a column the row does not carry reads as "" (tests/test_util.h).
using RowMap = testing::RowFields;
using Series = std::vector<RowMap>;

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> out(1);
  for (char ch : line) {
    if (ch == sep) {
      out.emplace_back();
    } else {
      out.back() += ch;
    }
  }
  return out;
}

double num(const RowMap& r, const std::string& k) {
  return std::stod(r.at(k));
}

// The rows of a series file (no field of which is quoted), by column.
Series read_series(const std::string& path) {
  std::istringstream in(slurp(path));
  std::string line;
  std::getline(in, line);
  std::vector<std::string> header = split(line, ',');
  Series out;
  while (std::getline(in, line)) {
    std::vector<std::string> fields = split(line, ',');
    fields.resize(header.size());
    RowMap r;
    for (size_t i = 0; i < header.size(); ++i) r[header[i]] = fields[i];
    out.push_back(std::move(r));
  }
  return out;
}

double sum(const Series& s, const std::string& column) {
  double total = 0;
  for (const RowMap& r : s) {
    if (!r.at(column).empty()) total += std::stod(r.at(column));
  }
  return total;
}

TEST_CASE("interval stats: a hand-computed series", "[interval_stats]") {
  TempDir dir;
  const std::string path = dir.file("s/cell-0.csv");
  IntervalCounters c;
  {
    IntervalStats s(1'000'000, path, IntervalStats::Shape::kCache);  // 1 ms
    auto snap = [&] { return c; };
    s.advance(200'000, snap);  // a warm-up get that hits, at 0.2 ms
    s.issued(true);
    c.gets = 1;
    c.get_hits = 1;
    s.advance(300'000, snap);  // it completes after 100 µs
    s.completed(OpClass::kRead, 100'000);
    s.advance(900'000, snap);  // a measured set at 0.9 ms writes 4 KiB
    s.issued(false);
    c.sets = 1;
    c.flash_bytes_written = 4096;
    c.nand_bytes_written = 8192;
    s.advance(2'500'000, snap);  // it completes at 2.5 ms: intervals 0 and 1 close first
    CHECK(s.intervals() == 2);
    s.completed(OpClass::kWrite, 1'600'000);
    CHECK_FALSE(std::filesystem::exists(path));  // PATH.tmp until finished
    s.finish(2'750'000, c);
    CHECK(s.intervals() == 3);
  }
  const Series rows = read_series(path);
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].size() == interval_stats_columns().size());
  const RowMap& a = rows[0];
  CHECK(a.at("interval") == "0");
  CHECK(a.at("time_s") == "0.001");
  CHECK(a.at("warmup") == "1");
  CHECK(a.at("requests") == "2");
  CHECK(a.at("get_requests") == "1");
  CHECK(a.at("set_requests") == "1");
  CHECK(a.at("object_hit_ratio") == "1");
  CHECK(a.at("dram_hit_ratio").empty());  // a cache alone
  CHECK(a.at("completed_requests") == "1");
  CHECK(a.at("throughput_rps") == "1000");
  CHECK(a.at("flash_bytes_written") == "4096");
  CHECK(a.at("flash_write_mib_s") == "3.90625");  // 4096 B / 2^20 / 1 ms
  CHECK(a.at("nand_bytes_written") == "8192");
  CHECK(a.at("read_latency_p50_us") == "100");  // one value: the exact minimum and maximum
  CHECK(a.at("read_latency_p999_us") == "100");
  CHECK(a.at("write_latency_p50_us").empty());
  CHECK(a.at("nhc_load_admit").empty());
  const RowMap& b = rows[1];  // nothing happened in [1, 2) ms
  CHECK(b.at("time_s") == "0.002");
  CHECK(b.at("warmup") == "0");
  CHECK(b.at("requests") == "0");
  CHECK(b.at("object_hit_ratio").empty());
  CHECK(b.at("throughput_rps") == "0");
  CHECK(b.at("flash_bytes_written") == "0");
  const RowMap& e = rows[2];  // [2, 2.75) ms: the set's completion
  CHECK(e.at("time_s") == "0.00275");
  CHECK(e.at("completed_requests") == "1");
  CHECK(std::stod(e.at("throughput_rps")) == Approx(1 / 0.00075));
  CHECK(e.at("write_latency_p50_us") == "1600");
  CHECK(e.at("read_latency_p50_us").empty());
}

TEST_CASE("interval stats: an unfinished series leaves no file", "[interval_stats]") {
  TempDir dir;
  const std::string path = dir.file("cell-0.csv");
  { IntervalStats s(1000, path, IntervalStats::Shape::kCache); }
  CHECK_FALSE(std::filesystem::exists(path));
  CHECK_FALSE(std::filesystem::exists(path + ".tmp"));
  CHECK_THROWS_WITH(IntervalStats(1000, "", IntervalStats::Shape::kCache),
                    Contains("stats.interval_s"));
}

// A timed cell on 20,000 YCSB A requests (reads and updates: gets and sets), no warm-up (so the row
// counts what the series counts), with `extra` appended; its row and series (written under `dir`).
// The cache is 1 MiB, 16 RIPQ blocks (a share of the working set would move with the keys the
// run touches).
std::pair<RowMap, Series> timed_cell(const TempDir& dir, const std::string& extra,
                                     bool with_stats = true) {
  const std::string yaml = R"(name: t
trace:
  format: generator
  generator: ycsb
  workload: a
  record_count: 4000
  operation_count: 20000
seed: 3
cache:
  capacity: 1MiB
policy:
  name: lru
framework:
  name: ripq
  block_size: 64KiB
device:
  name: simflash
  profile: tiny
  size_to_cache: true
timing:
  mode: simulated
  arrival: poisson
  rate: 20000
)" + extra;
  Experiment ex = load_experiment(dir.write("t.yaml", yaml), {});
  REQUIRE(ex.cells.size() == 1);
  CellConfig& cell = ex.cells[0];
  if (with_stats) {
    cell.stats_path = dir.file("t.stats/cell-0.csv");
    cell.stats_file = "t.stats/cell-0.csv";
  }
  RowMap row;
  for (const Column& col : run_cell(cell, summarize_trace(cell.trace))) row[col.name] = col.text;
  REQUIRE(row.at("error").empty());
  Series series;
  if (with_stats) series = read_series(cell.stats_path);
  return {row, series};
}

TEST_CASE("interval stats: a timed cell's series sums to its row", "[interval_stats]") {
  TempDir dir;
  const auto [row, series] = timed_cell(dir, "stats:\n  interval_s: 0.05\n");
  CHECK(row.at("stats_file") == "t.stats/cell-0.csv");
  CHECK(row.at("stats.interval_s") == "0.05");
  // 20,000 requests at 20,000/s: about 1 s; one row per 50 ms up to the last completion.
  CHECK(series.size() >= 20);
  CHECK(series.size() ==
        static_cast<size_t>(std::ceil(std::stod(series.back().at("time_s")) / 0.05 - 1e-9)));
  for (size_t i = 0; i + 1 < series.size(); ++i) {
    CHECK(std::stod(series[i].at("time_s")) == Approx(0.05 * static_cast<double>(i + 1)));
  }
  CHECK(sum(series, "requests") == num(row, "requests"));
  CHECK(sum(series, "get_requests") == num(row, "get_requests"));
  CHECK(sum(series, "set_requests") == num(row, "set_requests"));
  CHECK(sum(series, "completed_requests") == num(row, "requests"));
  double hits = 0;
  for (const RowMap& r : series) {
    if (!r.at("object_hit_ratio").empty()) {
      hits += std::round(std::stod(r.at("object_hit_ratio")) * std::stod(r.at("get_requests")));
    }
  }
  CHECK(hits == num(row, "hits"));
  CHECK(sum(series, "flash_bytes_written") == num(row, "host_bytes_written"));
  CHECK(sum(series, "flash_bytes_read") == num(row, "device_read_bytes"));
  CHECK(sum(series, "nand_bytes_written") == num(row, "nand_bytes_written"));
  CHECK(sum(series, "warmup") == 0);
  // The last interval ends with the run (the last completion).
  CHECK(std::stod(series.back().at("time_s")) == Approx(num(row, "sim_seconds")).epsilon(0.01));
  // One interval longer than the run: its percentiles are the row's (the same histogram).
  TempDir dir2;
  const auto [row2, one] = timed_cell(dir2, "stats:\n  interval_s: 100\n");
  REQUIRE(one.size() == 1);
  for (const char* op : {"read", "write"}) {
    for (const char* p : {"p50", "p95", "p99", "p999"}) {
      const std::string col = std::string(op) + "_latency_" + p + "_us";
      INFO(col);
      CHECK(std::stod(one[0].at(col)) == Approx(num(row2, col)).epsilon(1e-9));
    }
  }
  CHECK(std::stod(one[0].at("throughput_rps")) * std::stod(one[0].at("time_s")) ==
        Approx(num(row2, "requests")));
}

TEST_CASE("interval stats: the series changes nothing else in the row", "[interval_stats]") {
  TempDir a, b;
  RowMap with = timed_cell(a, "stats:\n  interval_s: 0.01\n").first;
  RowMap without = timed_cell(b, "", false).first;
  for (const auto& [k, v] : without) {
    if (k == "wall_seconds" || k == "stats.interval_s" || k == "stats_file") continue;
    INFO(k);
    CHECK(with.at(k) == v);
  }
  CHECK(without.at("stats_file").empty());
  CHECK(without.at("stats.interval_s") == "0");
}

TEST_CASE("interval stats: a hierarchy's series sums to its row", "[interval_stats][tiers]") {
  TempDir dir;
  const auto [row, series] = timed_cell(dir, R"(tiers:
  mode: nhc_wb
  dram: false
  nhc_interval_us: 5000
  nhc_stable_interval_us: 10000
backing:
  device: fixed_latency
  read_bandwidth_mib_s: 60
  write_bandwidth_mib_s: 60
stats:
  interval_s: 0.05
)");
  CHECK(sum(series, "requests") == num(row, "requests"));
  CHECK(sum(series, "offloaded_reads") == num(row, "offloaded_reads"));
  CHECK(sum(series, "backing_bytes_read") == num(row, "backing_read_bytes"));
  CHECK(sum(series, "backing_bytes_written") == num(row, "backing_write_bytes"));
  CHECK(series.back().at("nhc_load_admit") == row.at("nhc_load_admit"));
  double flash_hits = 0;
  for (const RowMap& r : series) {
    if (!r.at("flash_hit_ratio").empty()) {
      flash_hits +=
          std::round(std::stod(r.at("flash_hit_ratio")) * std::stod(r.at("get_requests")));
    }
    CHECK(r.at("dram_hit_ratio") == (r.at("get_requests") == "0" ? "" : "0"));  // no DRAM tier
  }
  CHECK(flash_hits == num(row, "flash_hits"));
}

TEST_CASE("interval stats: experiments/over_time.yaml shows what its comments say",
          "[interval_stats][tiers][experiments]") {
  TempDir dir;
  Experiment ex = load_experiment(FLASHPQ_SOURCE_DIR "/experiments/over_time.yaml", {});
  REQUIRE(ex.cells.size() == 2);
  std::map<std::string, std::pair<RowMap, Series>> by;  // flash_admission → row, series
  for (CellConfig& cell : ex.cells) {
    cell.stats_path = dir.file("cell-" + std::to_string(cell.index) + ".csv");
    RowMap row;
    for (const Column& c : run_cell(cell, summarize_trace(cell.trace))) row[c.name] = c.text;
    REQUIRE(row.at("error").empty());
    CHECK(row.at("notes").empty());
    by[row.at("tiers.flash_admission")] = {row, read_series(cell.stats_path)};
  }
  const RowMap& all = by["all"].first;
  const RowMap& limited = by["rate_limited"].first;
  // rate_limited serves what is offered; all saturates the flash device.
  CHECK(num(limited, "throughput_rps") == Approx(8000).epsilon(0.01));
  CHECK(num(all, "throughput_rps") < 0.9 * 8000);
  CHECK(num(limited, "read_latency_p99_us") < 100e3);
  CHECK(num(all, "read_latency_p99_us") > 1e6);
  // Bytes inserted into flash over the measured interval: the target, 4 MiB/s, within 2 %.
  CHECK(num(limited, "miss_bytes_inserted") / num(limited, "sim_seconds") ==
        Approx(4 * 1048576.0).epsilon(0.02));
  CHECK(num(limited, "flash_hit_ratio") > num(all, "flash_hit_ratio"));
  // The series, while requests arrive (0-60 s): from 10 s on all serves under 7,800 per second
  // on average; from 5 s on rate_limited serves 8,000 (mean within 1 %; each 0.5 s interval,
  // whose completions bunch behind RIPQ's block writes, within 8 %).
  auto mean_rps = [](const Series& s, double from, std::vector<double>* each) {
    double total = 0;
    int n = 0;
    for (const RowMap& r : s) {
      const double t = std::stod(r.at("time_s"));
      if (t <= from || t > 59.5) continue;
      total += std::stod(r.at("throughput_rps"));
      ++n;
      if (each) each->push_back(std::stod(r.at("throughput_rps")));
    }
    return total / n;
  };
  CHECK(mean_rps(by["all"].second, 10, nullptr) < 7800);
  std::vector<double> each;
  CHECK(mean_rps(by["rate_limited"].second, 5, &each) == Approx(8000).epsilon(0.01));
  for (double rps : each) CHECK(rps == Approx(8000).epsilon(0.08));
}

TEST_CASE("interval stats: the loader refuses a series without simulated time",
          "[interval_stats]") {
  TempDir dir;
  const std::string body = R"(name: t
trace:
  format: generator
  generator: zipf
  objects: 100
  requests: 100
cache:
  capacity: 0.5
)";
  CHECK_THROWS_WITH(
      load_experiment(dir.write("a.yaml", body + "stats:\n  interval_s: 1\n"), {}),
      Contains("stats.interval_s") && Contains("timing.mode simulated") && Contains("none"));
  CHECK_THROWS_WITH(load_experiment(dir.write("b.yaml", body + "stats:\n  interval_s: -1\n"), {}),
                    Contains("stats.interval_s") && Contains("-1"));
  CHECK_THROWS_WITH(load_experiment(dir.write("c.yaml", body + "stats:\n  interval: 1\n"), {}),
                    Contains("stats.interval"));
}

}  // namespace
}  // namespace flashpq::test_interval_stats
