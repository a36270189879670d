// tests/experiments/test_cli.cpp — the `flashpq` command line, run as a process: exit statuses (0
// ok, 1 some cells failed, 2 bad command line or configuration), results files, --set, -o and
// --help.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "experiments/experiment.h"
#include "experiments/sweep.h"
#include "fmt/format.h"
#include "tests/block_test_util.h"
#include "tests/test_util.h"

namespace flashpq::test_cli {
namespace {

using namespace flashpq::testing;  // tests/test_util.h

namespace fs = std::filesystem;
using Catch::Contains;

const std::string kTrace = FLASHPQ_SOURCE_DIR "/traces/data/adaptsize-request.oracleGeneral.zst";

// Single-quotes for the shell.
std::string q(const std::string& s) {
  std::string out = "'";
  for (const char ch : s) {
    if (ch == '\'')
      out += "'\\''";
    else
      out += ch;
  }
  return out + "'";
}

struct Result {
  int status = -1;  // exit status, or -1 if the process did not exit normally
  std::string out, err;
};

// Runs `flashpq ARGS` with `dir` as the current directory, `env` ("NAME=VALUE", quoted here)
// added to its environment; captures stdout and stderr.
Result flashpq(const TempDir& dir, const std::string& args, const std::string& env = "") {
  const std::string out = dir.file(".stdout"), err = dir.file(".stderr");
  const std::string cmd = "cd " + q(dir.path().string()) + " && " +
                          (env.empty() ? "" : "env " + q(env) + " ") + q(FLASHPQ_BINARY) + " " +
                          args + " >" + q(out) + " 2>" + q(err);
  const int rc = std::system(cmd.c_str());
  Result r;
  r.status = rc != -1 && WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  fs::remove(out);
  fs::remove(err);
  return r;
}

// The value of column `name` in each data row of a parsed CSV.
std::vector<std::string> column(const std::vector<std::vector<std::string>>& csv,
                                const std::string& name) {
  REQUIRE(!csv.empty());
  size_t idx = csv[0].size();
  for (size_t i = 0; i < csv[0].size(); ++i) {
    if (csv[0][i] == name) idx = i;
  }
  REQUIRE(idx < csv[0].size());
  std::vector<std::string> out;
  for (size_t r = 1; r < csv.size(); ++r) {
    REQUIRE(csv[r].size() == csv[0].size());
    out.push_back(csv[r][idx]);
  }
  return out;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// Two cells: fifo and lru at 5% of the working set.
std::string two_cells(const std::string& extra = "") {
  return "name: two\ntrace:\n  path: " + kTrace +
         "\ncache: {capacity: 0.05}\nmatrix:\n  policy.name: [fifo, lru]\n" + extra;
}

TEST_CASE("flashpq run: a valid 2-cell experiment exits 0 and writes header + 2 rows", "[cli]") {
  TempDir dir;
  dir.write("two.yaml", two_cells());
  const Result r = flashpq(dir, "run two.yaml -o out.csv");
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto csv = parse_csv(slurp(dir.file("out.csv")));
  REQUIRE(csv.size() == 3);
  CHECK(csv[0][0] == "experiment");
  CHECK(csv[0][1] == "cell");
  CHECK(column(csv, "policy.name") == std::vector<std::string>{"fifo", "lru"});
  CHECK(column(csv, "cell") == std::vector<std::string>{"0", "1"});
  CHECK(column(csv, "experiment") == std::vector<std::string>{"two", "two"});
  CHECK(column(csv, "cache_capacity_bytes") ==
        std::vector<std::string>{"13942711", "13942711"});  // floor(0.05 × 278,854,232)
  CHECK(column(csv, "trace_requests") == std::vector<std::string>{"66987", "66987"});
  // No cell failed: no error column (a row carries error only when its cell failed).
  CHECK(std::find(csv[0].begin(), csv[0].end(), "error") == csv[0].end());
  CHECK(column(csv, "trace.format") == std::vector<std::string>{"oracleGeneral", "oracleGeneral"});
  CHECK_THAT(r.err, Contains("2 cells"));
}

TEST_CASE("flashpq run: a cell's series goes beside the results, named in its row", "[cli]") {
  TempDir dir;
  dir.write("t.yaml", R"(name: t
matrix:
  stats.interval_s: [0, 0.01]
trace: {format: generator, generator: zipf, objects: 500, requests: 4000}
cache: {capacity: 0.5}
device: {name: simflash, profile: tiny, size_to_cache: true}
framework: {name: ripq, block_size: 64KiB}
timing: {mode: simulated, arrival: poisson, rate: 100000}
)");
  Result r = flashpq(dir, "run t.yaml -o sub/res.csv");
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto csv = parse_csv(slurp(dir.file("sub/res.csv")));
  CHECK(column(csv, "stats_file") == std::vector<std::string>{"", "res.stats/cell-1.csv"});
  const std::vector<std::string> series = lines(slurp(dir.file("sub/res.stats/cell-1.csv")));
  REQUIRE(series.size() > 2);  // 4,000 requests at 100,000/s: about 40 ms, 10 ms intervals
  CHECK(series[0].starts_with("interval,time_s,warmup,requests,"));
  CHECK_FALSE(fs::exists(dir.file("sub/res.stats/cell-0.csv")));
  CHECK_FALSE(fs::exists(dir.file("sub/res.stats/cell-1.csv.tmp")));
  // --stats-dir: the series elsewhere, named by that folder's name and the file.
  r = flashpq(dir, "run t.yaml -o res2.csv --stats-dir other/series");
  REQUIRE(r.status == 0);
  CHECK(column(parse_csv(slurp(dir.file("res2.csv"))), "stats_file") ==
        std::vector<std::string>{"", "series/cell-1.csv"});
  CHECK(fs::exists(dir.file("other/series/cell-1.csv")));
}

TEST_CASE("flashpq run: the output key of the file is used without -o", "[cli]") {
  TempDir dir;
  dir.write("two.yaml", two_cells("output: sub/dir/res.csv\n"));
  const Result r = flashpq(dir, "run two.yaml");
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(parse_csv(slurp(dir.file("sub/dir/res.csv"))).size() == 3);
}

TEST_CASE("flashpq run: without output or -o, results go to results/NAME.csv", "[cli]") {
  TempDir dir;
  dir.write("two.yaml", two_cells());
  const Result r = flashpq(dir, "run two.yaml");
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(parse_csv(slurp(dir.file("results/two.csv"))).size() == 3);
}

TEST_CASE("flashpq run: --set on the command line reduces or grows the matrix", "[cli]") {
  TempDir dir;
  dir.write("two.yaml", two_cells());
  SECTION("pin one axis") {
    const Result r = flashpq(dir, "run two.yaml --set policy.name=lru -o one.csv");
    INFO(r.err);
    REQUIRE(r.status == 0);
    const auto csv = parse_csv(slurp(dir.file("one.csv")));
    REQUIRE(csv.size() == 2);
    CHECK(column(csv, "policy.name") == std::vector<std::string>{"lru"});
  }
  SECTION("two --set, one of them a list") {
    const Result r = flashpq(
        dir,
        "run two.yaml --set 'policy.name=[slru, gdsf, lru]' --set policy.segments=2 -o three.csv");
    INFO(r.err);
    REQUIRE(r.status == 0);
    const auto csv = parse_csv(slurp(dir.file("three.csv")));
    REQUIRE(csv.size() == 4);
    CHECK(column(csv, "policy.name") == std::vector<std::string>{"slru", "gdsf", "lru"});
    // LRU does not read policy.segments: its row shows it as set (not the default, 3).
    CHECK(column(csv, "policy.segments") == std::vector<std::string>{"2", "2", "2"});
  }
}

TEST_CASE("flashpq run: -o out.jsonl writes JSON Lines", "[cli]") {
  TempDir dir;
  dir.write("two.yaml", two_cells());
  const Result r = flashpq(dir, "run two.yaml -o out.jsonl");
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, !Contains("Allocator Stats"));  // CacheBench's report only when asked
  const auto ls = lines(slurp(dir.file("out.jsonl")));
  REQUIRE(ls.size() == 2);
  // --cachebench-summary: one report per row, read back from the JSON Lines.
  const Result again = flashpq(dir, "run two.yaml -o again.jsonl --cachebench-summary");
  REQUIRE(again.status == 0);
  CHECK_THAT(again.out, Contains("== flashpq: cell 0 of two ==") &&
                            Contains("== flashpq: cell 1 of two ==") && Contains("Hit Ratio"));
  const char* policies[] = {"fifo", "lru"};
  for (size_t i = 0; i < 2; ++i) {
    INFO(ls[i]);
    CHECK(ls[i].front() == '{');
    CHECK(ls[i].back() == '}');
    CHECK_THAT(ls[i], Contains("\"experiment\":\"two\""));
    CHECK_THAT(ls[i], Contains(std::string("\"policy.name\":\"") + policies[i] + "\""));
    CHECK_THAT(ls[i], Contains("\"cell\":" + std::to_string(i) + ","));
    CHECK_THAT(ls[i], Contains("\"cache_capacity_bytes\":13942711,"));
    CHECK_THAT(ls[i], Contains("\"trace_requests\":66987,"));
    CHECK_THAT(ls[i], Contains("\"wall_seconds\":"));
    CHECK_THAT(ls[i], !Contains("\"error\""));  // carried only by a failed cell's row
  }
  CHECK_FALSE(fs::exists(dir.file("results")));  // -o replaces the default output.
}

TEST_CASE("flashpq run: a relative trace.path is found next to the YAML file", "[cli]") {
  TempDir dir;
  fs::create_directories(dir.file("exp"));
  fs::copy_file(kTrace, dir.file("exp/t.oracleGeneral.zst"));
  dir.write("exp/rel.yaml", "trace: {path: t.oracleGeneral.zst}\n");
  const Result r = flashpq(dir, "run exp/rel.yaml -o rel.csv");
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto csv = parse_csv(slurp(dir.file("rel.csv")));
  REQUIRE(csv.size() == 2);
  CHECK(column(csv, "trace_requests") == std::vector<std::string>{"66987"});
}

// One rule for paths: written in the experiment file, from the file's directory; on the command
// line (-o, --set, --iolog, --stats-dir), from the working directory; the log names them whole.
// Run from a working directory beside the file's, holding decoys of the file's names that the
// file must not reach.
TEST_CASE(
    "flashpq run: paths in the file are the file's, on the command line the working "
    "directory's",
    "[cli]") {
  TempDir dir;
  fs::create_directories(dir.file("exp"));
  fs::create_directories(dir.file("work"));
  fs::copy_file(kTrace, dir.file("exp/t.oracleGeneral.zst"));
  dir.write("exp/prof.yaml",
            "format: flashpq-simflash-profile 1\nbase: tiny\ndevice:\n  channels: 1\n");
  // Decoys where the working directory would find them: not a trace, not a profile.
  dir.write("work/t.oracleGeneral.zst", "not a trace\n");
  dir.write("work/prof.yaml", "not: [a profile\n");
  dir.write("exp/p.yaml", R"(name: p
trace: {path: t.oracleGeneral.zst}
cache: {capacity: 0.05}
framework: {name: ripq, block_size: 64KiB}
device: {name: simflash, profile: prof.yaml, size_to_cache: true}
output: out/res.csv
)");
  // flashpq ARGS run in dir/work.
  auto run_in_work = [&](const std::string& args) {
    const std::string out = dir.file("work/.stdout"), err = dir.file("work/.stderr");
    const std::string cmd = "cd " + q(dir.file("work")) + " && " + q(FLASHPQ_BINARY) + " " + args +
                            " >" + q(out) + " 2>" + q(err);
    const int rc = std::system(cmd.c_str());
    Result r;
    r.status = rc != -1 && WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
    r.out = slurp(out);
    r.err = slurp(err);
    return r;
  };
  const std::string results = (dir.path() / "exp/out/res.csv").string();
  SECTION("output:, trace.path and device.profile from the file's directory") {
    const Result r = run_in_work("run ../exp/p.yaml");
    INFO(r.err);
    REQUIRE(r.status == 0);
    const auto csv = parse_csv(slurp(results));
    REQUIRE(csv.size() == 2);
    CHECK(column(csv, "trace_requests") == std::vector<std::string>{"66987"});
    CHECK(column(csv, "device.channels") == std::vector<std::string>{"1"});  // prof.yaml's
    CHECK(column(csv, "trace.path") ==
          std::vector<std::string>{"t.oracleGeneral.zst"});  // as written
    CHECK_FALSE(fs::exists(dir.file("work/out")));
    CHECK_THAT(r.err, Contains("1 cells -> " + results + "\n"));  // absolute
  }
  SECTION("-o and --set output= from the working directory") {
    Result r = run_in_work("run ../exp/p.yaml -o here.csv");
    INFO(r.err);
    REQUIRE(r.status == 0);
    CHECK(parse_csv(slurp(dir.file("work/here.csv"))).size() == 2);
    CHECK_THAT(r.err, Contains("-> " + (dir.path() / "work/here.csv").string() + "\n"));
    r = run_in_work("run ../exp/p.yaml --set output=set.csv");
    REQUIRE(r.status == 0);
    CHECK(parse_csv(slurp(dir.file("work/set.csv"))).size() == 2);
    CHECK_FALSE(fs::exists(results));
  }
  SECTION("--set trace.path= and device.profile= from the working directory") {
    fs::copy_file(kTrace, dir.file("work/t2.oracleGeneral.zst"));
    dir.write("work/prof2.yaml",
              "format: flashpq-simflash-profile 1\nbase: tiny\ndevice:\n  channels: 3\n");
    Result r = run_in_work(
        "run ../exp/p.yaml -o s.csv --set trace.path=t2.oracleGeneral.zst --set "
        "device.profile=prof2.yaml");
    INFO(r.err);
    REQUIRE(r.status == 0);
    const auto csv = parse_csv(slurp(dir.file("work/s.csv")));
    CHECK(column(csv, "trace_requests") == std::vector<std::string>{"66987"});
    CHECK(column(csv, "device.channels") == std::vector<std::string>{"3"});
    // The file's name on the command line is the working directory's decoy: refused at load.
    r = run_in_work("run ../exp/p.yaml -o s2.csv --set device.profile=absent.yaml");
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Contains((dir.path() / "work/absent.yaml").string()));
    CHECK_FALSE(fs::exists(dir.file("work/s2.csv")));
  }
  SECTION("--iolog and --stats-dir from the working directory") {
    const Result r = run_in_work(
        "run ../exp/p.yaml -o o.csv --iolog io.log --stats-dir series "
        "--set stats.interval_s=0.01 --set timing.mode=simulated --set timing.arrival=poisson "
        "--set timing.rate=100000");
    INFO(r.err);
    REQUIRE(r.status == 0);
    CHECK(fs::exists(dir.file("work/io.log")));
    CHECK(fs::exists(dir.file("work/series/cell-0.csv")));
    CHECK(column(parse_csv(slurp(dir.file("work/o.csv"))), "stats_file") ==
          std::vector<std::string>{"series/cell-0.csv"});
  }
}

TEST_CASE("flashpq run: a config error exits 2, names file:line and key, writes nothing", "[cli]") {
  TempDir dir;
  dir.write("bad.yaml", two_cells("policy:\n  segments: 65\n"));
  const Result r = flashpq(dir, "run bad.yaml -o out.csv");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains("bad.yaml:8:"));
  CHECK_THAT(r.err, Contains("policy.segments"));
  CHECK_THAT(r.err, Contains("[0, 64]"));
  CHECK_FALSE(fs::exists(dir.file("out.csv")));
  CHECK_FALSE(fs::exists(dir.file("results")));

  SECTION("an error in a later matrix value is also found before anything runs") {
    dir.write("late.yaml",
              "trace: {path: " + kTrace + "}\nmatrix:\n  policy.name: [fifo, lru, nope]\n");
    const Result r2 = flashpq(dir, "run late.yaml -o late.csv");
    CHECK(r2.status == 2);
    CHECK_THAT(r2.err, Contains("late.yaml:3:"));
    CHECK_THAT(r2.err, Contains("'nope'"));
    CHECK_FALSE(fs::exists(dir.file("late.csv")));
  }
  SECTION("an unknown --set key") {
    dir.write("two.yaml", two_cells());
    const Result r2 = flashpq(dir, "run two.yaml --set policy.nme=lru -o s.csv");
    CHECK(r2.status == 2);
    CHECK_THAT(r2.err, Contains("policy.nme"));
    CHECK_FALSE(fs::exists(dir.file("s.csv")));
  }
  SECTION("a --set without =") {
    dir.write("two.yaml", two_cells());
    const Result r2 = flashpq(dir, "run two.yaml --set policy.name -o s.csv");
    CHECK(r2.status == 2);
    CHECK_THAT(r2.err, Contains("KEY=VALUE"));
    CHECK_FALSE(fs::exists(dir.file("s.csv")));
  }
  SECTION("a missing experiment file") {
    const Result r2 = flashpq(dir, "run absent.yaml -o s.csv");
    CHECK(r2.status == 2);
    CHECK_THAT(r2.err, Contains("absent.yaml"));
    CHECK_FALSE(fs::exists(dir.file("s.csv")));
  }
}

TEST_CASE("flashpq run: a cell that fails exits 1 and its row carries the error", "[cli]") {
  TempDir dir;
  dir.write("bad.oracleGeneral", std::string(30, '\x01'));  // One record and a truncated one.
  dir.write("mixed.yaml", "matrix:\n  trace.path: [" + kTrace + ", bad.oracleGeneral]\n");
  const Result r = flashpq(dir, "run mixed.yaml -o m.csv");
  CHECK(r.status == 1);
  CHECK_THAT(r.err, Contains("1 of 2 cells failed"));
  const auto csv = parse_csv(slurp(dir.file("m.csv")));
  REQUIRE(csv.size() == 3);
  const auto err = column(csv, "error");
  CHECK(err[0].empty());
  CHECK_THAT(err[1], Contains("bad.oracleGeneral"));
  CHECK(column(csv, "hits")[1].empty());
  CHECK_FALSE(column(csv, "hits")[0].empty());
}

// A row's fields without wall_seconds (the one column that is not a function of the cell).
std::vector<std::string> without_wall(const std::vector<std::string>& header,
                                      std::vector<std::string> row) {
  for (size_t i = 0; i < header.size() && i < row.size(); ++i) {
    if (header[i] == "wall_seconds") row[i].clear();
  }
  return row;
}

TEST_CASE("flashpq run --resume keeps finished rows and runs the rest", "[cli]") {
  TempDir dir;
  dir.write("two.yaml", two_cells());
  REQUIRE(flashpq(dir, "run two.yaml -o full.csv").status == 0);
  const std::string full = slurp(dir.file("full.csv"));
  const auto full_lines = lines(full);
  REQUIRE(full_lines.size() == 3);

  SECTION("an interrupted CSV: the finished row is kept as written, the unfinished one rerun") {
    // The header, cell 0's row, and the first 40 bytes of cell 1's: a write cut short.
    dir.write("cut.csv", full_lines[0] + "\n" + full_lines[1] + "\n" + full_lines[2].substr(0, 40));
    const Result r = flashpq(dir, "run two.yaml -o cut.csv --resume");
    INFO(r.err);
    REQUIRE(r.status == 0);
    CHECK_THAT(r.err, Contains("1 finished rows kept") && Contains("unfinished last row dropped"));
    CHECK_THAT(r.err, Contains("[cell 0 of 0-1] finished before"));
    const auto cut = lines(slurp(dir.file("cut.csv")));
    REQUIRE(cut.size() == 3);
    CHECK(cut[0] == full_lines[0]);
    CHECK(cut[1] == full_lines[1]);  // byte for byte: not run again
    const auto csv = parse_csv(slurp(dir.file("cut.csv")));
    const auto ref = parse_csv(full);
    CHECK(without_wall(csv[0], csv[2]) == without_wall(ref[0], ref[2]));
    // Resuming a complete file runs nothing and changes nothing.
    const std::string before = slurp(dir.file("cut.csv"));
    const Result again = flashpq(dir, "run two.yaml -o cut.csv --resume");
    CHECK(again.status == 0);
    CHECK_THAT(again.err,
               Contains("2 finished rows kept") && Contains("[cell 1 of 0-1] finished before"));
    CHECK(slurp(dir.file("cut.csv")) == before);
    // Without --resume the file is replaced, not appended to.
    REQUIRE(flashpq(dir, "run two.yaml -o cut.csv").status == 0);
    CHECK(lines(slurp(dir.file("cut.csv"))).size() == 3);
  }
  SECTION("JSON Lines") {
    REQUIRE(flashpq(dir, "run two.yaml -o full.jsonl").status == 0);
    const auto json = lines(slurp(dir.file("full.jsonl")));
    REQUIRE(json.size() == 2);
    dir.write("cut.jsonl", json[0] + "\n");
    const Result r = flashpq(dir, "run two.yaml -o cut.jsonl --resume");
    REQUIRE(r.status == 0);
    const auto cut = lines(slurp(dir.file("cut.jsonl")));
    REQUIRE(cut.size() == 2);
    CHECK(cut[0] == json[0]);
    auto strip = [](std::string l) {  // drop the NUMBER of "wall_seconds":NUMBER
      const size_t at = l.find("\"wall_seconds\":");
      if (at == std::string::npos) return l;
      const size_t from = at + 15, to = l.find_first_of(",}", from);
      return l.erase(from, to - from);
    };
    CHECK(strip(cut[1]) == strip(json[1]));
  }
  SECTION("a failed cell runs again once its cause is fixed") {
    dir.write("bad.oracleGeneral", std::string(30, '\x01'));  // one record and a truncated one
    dir.write("mixed.yaml", "matrix:\n  trace.path: [" + kTrace + ", bad.oracleGeneral]\n");
    CHECK(flashpq(dir, "run mixed.yaml -o m.csv").status == 1);
    const std::string first_header = lines(slurp(dir.file("m.csv")))[0];
    const std::string first_row = lines(slurp(dir.file("m.csv")))[1];
    dir.write("bad.oracleGeneral", std::string(48, '\x01'));  // now two whole records
    const Result r = flashpq(dir, "run mixed.yaml -o m.csv --resume");
    INFO(r.err);
    CHECK(r.status == 0);
    CHECK_THAT(r.err, Contains("1 finished rows kept, 1 failed rows to run again"));
    const auto csv = parse_csv(slurp(dir.file("m.csv")));
    REQUIRE(csv.size() == 3);
    // No row has an error now: the column is gone (a row carries it only when its cell failed);
    // the kept row is the same row, not run again (its wall_seconds too).
    CHECK(std::find(csv[0].begin(), csv[0].end(), "error") == csv[0].end());
    const auto before = parse_csv(first_header + "\n" + first_row + "\n");
    for (size_t k = 0; k < before[0].size(); ++k) {
      const auto at = std::find(csv[0].begin(), csv[0].end(), before[0][k]);
      if (at == csv[0].end()) {
        CHECK(before[0][k] == "error");
        CHECK(before[1][k].empty());
        continue;
      }
      CHECK(csv[1][at - csv[0].begin()] == before[1][k]);
    }
    CHECK(column(csv, "trace_requests")[1] == "2");
  }
  SECTION("a file with other columns is refused and left as it was") {
    dir.write("other.csv", "a,b\n1,2\n");
    const Result r = flashpq(dir, "run two.yaml -o other.csv --resume");
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Contains("other.csv: cannot resume: not a results file (no 'experiment' "
                               "column)"));
    CHECK(slurp(dir.file("other.csv")) == "a,b\n1,2\n");
    dir.write("broken.csv", full_lines[0] + "\n1,2\n");  // a record of 2 fields
    const std::string broken = slurp(dir.file("broken.csv"));
    const Result b = flashpq(dir, "run two.yaml -o broken.csv --resume");
    CHECK(b.status == 2);
    CHECK_THAT(b.err, Contains("broken.csv:2: 2 fields"));
    CHECK(slurp(dir.file("broken.csv")) == broken);
  }
}

// main.cpp documents "2 bad command line or configuration (nothing ran)", but CLI11_PARSE returns
// CLI11's own exit codes (105 ValidationError, 106 RequiredError, 109 ExtrasError).
TEST_CASE("flashpq mrc and a curve: section write one row per size", "[cli]") {
  TempDir dir;
  // A trace: CSV on standard output, one row per size in the order given.
  Result r = flashpq(dir, "mrc " + q(kTrace) + " --sizes 0.1,0.05 --set cache.unit_size=true");
  INFO(r.err);
  REQUIRE(r.status == 0);
  auto csv = parse_csv(r.out);
  REQUIRE(csv.size() == 3);
  CHECK(column(csv, "curve_method") == std::vector<std::string>{"exact_lru", "exact_lru"});
  CHECK(column(csv, "cache.capacity") == std::vector<std::string>{"0.1", "0.05"});
  CHECK(column(csv, "curve_exact") == std::vector<std::string>{"true", "true"});
  // An experiment with a curve: section under flashpq run: its two policies' curves, to -o.
  dir.write("two.yaml", two_cells("curve: {method: minisim, rate: 0.5}\n"));
  r = flashpq(dir, "run two.yaml -o curve.csv");
  REQUIRE(r.status == 0);
  csv = parse_csv(slurp(dir.file("curve.csv")));
  REQUIRE(csv.size() == 3);
  CHECK(column(csv, "policy.name") == std::vector<std::string>{"fifo", "lru"});
  CHECK(column(csv, "curve_method") == std::vector<std::string>{"minisim", "minisim"});
  // --sizes belongs to a trace; an experiment's sizes are its own.
  r = flashpq(dir, "mrc two.yaml --sizes 0.1");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains("--sizes is for a trace"));
  r = flashpq(dir, "run two.yaml --cells 0 -o x.csv");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains("a curve: section"));
}

TEST_CASE("flashpq: a bad command line exits 2", "[cli]") {
  TempDir dir;
  dir.write("two.yaml", two_cells());
  for (const char* args : {"", "run", "run two.yaml --bogus", "frobnicate", "bench --fraction 2"}) {
    INFO("flashpq " << args);
    const Result r = flashpq(dir, args);
    CHECK(r.status == 2);
    CHECK_FALSE(r.err.empty());
  }
  CHECK_FALSE(fs::exists(dir.file("results")));
}

TEST_CASE("flashpq --help lists the subcommands run and bench", "[cli]") {
  TempDir dir;
  const Result r = flashpq(dir, "--help");
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Contains("run"));
  CHECK_THAT(r.out, Contains("bench"));
  CHECK_THAT(r.out, Contains("Subcommands"));
}

// A word followed by ": " and the same word again ("fpq: fpq:"): a prefix said twice.
std::string doubled_prefix(const std::string& text) {
  static const std::regex doubled(R"((^|[^\w.])([\w.]+(, [\w.]+)*): \2:)");
  std::smatch m;
  return std::regex_search(text, m, doubled) ? m.str(0) : "";
}

TEST_CASE("doubled_prefix finds a prefix said twice, and only that", "[cli]") {
  CHECK(doubled_prefix("  trace.preload  fpq: fpq: fault the file") == " fpq: fpq:");
  CHECK(doubled_prefix("x nhc_wa, nhc_wb: nhc_wa, nhc_wb: the step") ==
        " nhc_wa, nhc_wb: nhc_wa, nhc_wb:");
  CHECK(doubled_prefix("ycsb: hotspot: share of the records") == "");
  CHECK(doubled_prefix("csv: 1-based time column") == "");
}

// Every help screen: `flashpq --help` at most 30 lines, a subcommand's at most 40, no line over
// 100 characters, no prefix said twice; each subcommand's own options only (no key list).
TEST_CASE("flashpq help fits a screen: 30 lines, 40 per subcommand, 100 columns", "[cli]") {
  TempDir dir;
  const Result root = flashpq(dir, "--help");
  REQUIRE(root.status == 0);
  const auto root_lines = lines(root.out);
  CHECK(root_lines.size() <= 30);
  // One line per subcommand: its name, then its summary on the same line.
  const std::vector<std::string> subcommands = {"run",    "plan",         "collect", "trace",
                                                "device", "bench-device", "bench",   "keys"};
  for (const std::string& name : subcommands) {
    INFO(name);
    const auto at = std::find_if(root_lines.begin(), root_lines.end(), [&](const std::string& l) {
      return l.starts_with("  " + name + " ");
    });
    REQUIRE(at != root_lines.end());
    CHECK(at->size() > name.size() + 10);  // the summary follows the name
    CHECK((at + 1 == root_lines.end() || !(at + 1)->starts_with("      ")));  // on one line
  }
  const std::vector<std::string> screens = {"",
                                            "run",
                                            "plan",
                                            "collect",
                                            "trace",
                                            "trace info",
                                            "trace convert",
                                            "trace bench",
                                            "device",
                                            "device check",
                                            "device characterize",
                                            "device verify",
                                            "device calibrate",
                                            "bench-device",
                                            "bench",
                                            "keys"};
  for (const std::string& s : screens) {
    INFO("flashpq " << s << " --help");
    const Result r = flashpq(dir, s + " --help");
    REQUIRE(r.status == 0);
    const auto ls = lines(r.out);
    CHECK(ls.size() <= (s.empty() ? 30u : 40u));
    for (const std::string& l : ls) {
      INFO(l);
      CHECK(l.size() <= 100);
    }
    CHECK(doubled_prefix(r.out) == "");
    // The experiment keys are `flashpq keys`'s, not every subcommand's.
    CHECK_THAT(r.out, !Contains("framework.insertion_points"));
  }
  // Its own options: run's --resume is not plan's.
  CHECK_THAT(flashpq(dir, "run --help").out, Contains("--resume") && Contains("-o,--output"));
  CHECK_THAT(flashpq(dir, "plan --help").out, Contains("--sample") && !Contains("--resume"));
}

// `key`'s block in `flashpq keys` output: its first line, then its indented lines, each joined
// by one space ("" when the key is not there).
std::string key_block(const std::string& out, const std::string& key) {
  const auto ls = lines(out);
  std::string block;
  for (size_t i = 0; i < ls.size(); ++i) {
    if (!ls[i].starts_with("  " + key + "  ")) continue;
    block = ls[i];
    for (size_t j = i + 1; j < ls.size() && ls[j].starts_with("      "); ++j) {
      block.append(" ").append(ls[j], 6);
    }
  }
  return block;
}

TEST_CASE("flashpq keys SECTION: every key with its default, unit, values and readers", "[cli]") {
  TempDir dir;
  std::map<std::string, std::string> out;  // section -> `flashpq keys SECTION`
  for (const std::string& section : schema_sections()) {
    const std::string name = section.empty() ? "experiment" : section;
    const Result r = flashpq(dir, "keys " + name);
    INFO(name << ": " << r.err);
    REQUIRE(r.status == 0);
    CHECK(doubled_prefix(r.out) == "");
    for (const std::string& l : lines(r.out)) CHECK(l.size() <= 100);
    out[section] = r.out;
  }
  for (const auto& k : experiment_schema()) {
    const KeySpec& s = k.spec;
    INFO(s.name);
    const std::string b = key_block(out[k.section], s.name);
    REQUIRE_FALSE(b.empty());
    // The default, or where the value comes from when none is written.
    CHECK_THAT(b, Contains(!s.default_value.empty() ? "default " + s.default_value
                           : !s.filled_by.empty()   ? "from " + s.filled_by
                                                    : "required"));
    if (!s.unit.empty()) CHECK_THAT(b, Contains("[" + s.unit + "]"));
  }
  // The profile fills in simflash's keys, the device its capacity; a trace file is required.
  const std::string& device = out["device"];
  CHECK_THAT(key_block(device, "device.channels"),
             Contains("from device.profile") && Contains("read when device.name simflash"));
  CHECK_THAT(key_block(device, "device.capacity"), Contains("from the device"));
  CHECK_THAT(key_block(out["trace"], "trace.path"), Contains("required"));
  CHECK_THAT(key_block(out["framework"], "framework.block_size"),
             Contains("read when framework.name ripq or sipq"));
  CHECK_THAT(key_block(out["cache"], "cache.capacity"),
             Contains("default 0.1") && Contains("[bytes or fraction]"));
  CHECK_THAT(key_block(out["policy"], "policy.segments"),
             Contains("default 3") && Contains("an integer in [0, 64]"));
  CHECK_THAT(key_block(out["policy"], "policy.name"), Contains("one of fifo, lru, slru, gdsf"));
  CHECK_THAT(key_block(out[""], "warmup"), Contains("default 0") && Contains("[fraction]"));
  CHECK_FALSE(key_block(out[""], "name").empty());
  CHECK_FALSE(key_block(out[""], "output").empty());
  // The once-doubled prefix: said once, as who reads the key.
  CHECK_THAT(key_block(out["trace"], "trace.preload"),
             Contains("read when trace.format fpq") && Contains("false fault the whole file"));
  // A section lists the components its selector picks among, with their summaries.
  CHECK_THAT(out["framework"], Contains("framework.name selects one of:") && Contains("ripq: "));
}

TEST_CASE("flashpq keys: an overview, a component, one key -- an unknown one lists the sections",
          "[cli]") {
  TempDir dir;
  const Result overview = flashpq(dir, "keys");
  REQUIRE(overview.status == 0);
  for (const std::string& section : schema_sections()) {
    CHECK_THAT(overview.out, Contains("\n  " + (section.empty() ? "experiment" : section) + " "));
  }
  // A component: the keys it reads, and no key only another component reads.
  const Result ripq = flashpq(dir, "keys framework.ripq");
  REQUIRE(ripq.status == 0);
  CHECK_FALSE(key_block(ripq.out, "framework.insertion_points").empty());
  CHECK_FALSE(key_block(ripq.out, "framework.block_size").empty());
  CHECK(key_block(ripq.out, "framework.occupancy").empty());  // sipq's
  // A nested choice: trace.zipf's keys.
  const Result zipf = flashpq(dir, "keys trace.zipf");
  REQUIRE(zipf.status == 0);
  CHECK_FALSE(key_block(zipf.out, "trace.alpha").empty());
  CHECK(key_block(zipf.out, "trace.workload").empty());  // ycsb's
  // One key.
  const Result one = flashpq(dir, "keys policy.segments");
  REQUIRE(one.status == 0);
  CHECK(lines(one.out).size() == 3);
  CHECK(one.out.starts_with("  policy.segments  default 3"));
  // Unknown: exit 2, the valid sections named.
  for (const char* bad : {"nope", "framework.nope"}) {
    INFO(bad);
    const Result r = flashpq(dir, std::string("keys ") + bad);
    CHECK(r.status == 2);
    CHECK(r.out.empty());
    CHECK_THAT(r.err, Contains(std::string("unknown '") + bad + "'") &&
                          Contains("trace, experiment, cache, policy, admission, framework"));
  }
  CHECK_THAT(flashpq(dir, "keys framework.nope").err,
             Contains("under framework: framework.exact, framework.ripq"));
  const Result md = flashpq(dir, "keys --markdown");
  REQUIRE(md.status == 0);
  CHECK(md.out == keys_markdown());
  CHECK(flashpq(dir, "keys framework --markdown").status == 2);
}

namespace {

// `flashpq bench`'s in-memory rows by "framework/admission": frame policy admit mode requests
// seconds Mreq/s hit_ratio index_B/obj queue_B/obj total_B/obj admit_B/obj [overhead].
// Runs `yaml` (written as NAME.yaml) with `flashpq run` in `dir` and returns the CSV's columns
// `names`, one vector per name; REQUIREs exit 0 and `cells` rows.
std::vector<std::vector<std::string>> run_columns(TempDir& dir, const std::string& yaml,
                                                  size_t cells,
                                                  const std::vector<std::string>& names) {
  dir.write("same.yaml", yaml);
  const Result run = flashpq(dir, "run same.yaml -o same.csv");
  INFO(run.err);
  REQUIRE(run.status == 0);
  const auto csv = parse_csv(slurp(dir.file("same.csv")));
  REQUIRE(csv.size() == cells + 1);
  std::vector<std::vector<std::string>> out;
  for (const std::string& n : names) out.push_back(column(csv, n));
  return out;
}

std::map<std::string, std::vector<std::string>> bench_rows(const std::string& out) {
  std::map<std::string, std::vector<std::string>> rows;
  for (const auto& l : lines(out)) {
    std::istringstream in(l);
    std::vector<std::string> f;
    for (std::string w; in >> w;) f.push_back(w);
    if (f.size() >= 12 && f[3] == "in-memory") rows[f[0] + "/" + f[2]] = f;
  }
  return rows;
}

}  // namespace

// The bench and `flashpq run` build their caches apart (experiments/bench.cpp, experiments/run/):
// the same framework, policy and admission at the same capacity must give the same hit ratio.
TEST_CASE("flashpq bench --admission: rows per admission, TinyLFU's overhead, hit ratios as run",
          "[cli]") {
  TempDir dir;
  const Result r = flashpq(dir, "bench --trace " + q(kTrace) +
                                    " --fraction 0.05 --frameworks exact,ripq --policies lru "
                                    "--admission none,tinylfu --no-streamed --repeat 1");
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  std::map<std::string, std::vector<std::string>> rows = bench_rows(r.out);
  REQUIRE(rows.size() == 4);
  REQUIRE(rows["exact/none"].size() == 12);  // no overhead column
  REQUIRE(rows["exact/tinylfu"].size() == 14);
  CHECK(rows["exact/tinylfu"][13] == "%");
  const std::string overhead = rows["exact/tinylfu"][12];  // "+31.3" or "-5.4"
  for (const auto& [name, f] : rows) {
    INFO(name);
    // total = index + queue, each printed to 0.1 B.
    CHECK(std::abs(std::stod(f[10]) - std::stod(f[8]) - std::stod(f[9])) <= 0.11);
    // The sketch's bytes per cached object: none without admission.
    CHECK((std::stod(f[11]) > 0) == (f[2] == "tinylfu"));
  }
  CHECK((overhead.front() == '+' || overhead.front() == '-'));
  CHECK(std::stod(overhead) > -100.0);

  // The same four cells through `flashpq run`; the bench prints hit ratios to 4 decimals.
  // RIPQ's block is the bench's default, capacity / 256 = floor(13942711 / 256).
  const auto cols = run_columns(dir,
                                "name: same\ntrace:\n  path: " + kTrace +
                                    "\ncache: {capacity: 0.05}\npolicy: {name: lru}\n"
                                    "framework: {block_size: 54463}\nmatrix:\n"
                                    "  framework.name: [exact, ripq]\n  admission.name: [none, "
                                    "tinylfu]\n",
                                4, {"framework.name", "admission.name", "object_hit_ratio"});
  const auto& frameworks = cols[0];
  const auto& admissions = cols[1];
  const auto& ratios = cols[2];
  for (size_t i = 0; i < 4; ++i) {
    INFO(frameworks[i] << "/" << admissions[i]);
    const auto& row = rows[frameworks[i] + "/" + admissions[i]];
    REQUIRE(row.size() >= 10);
    CHECK(row[7] == fmt::format("{:.4f}", std::stod(ratios[i])));
  }
  CHECK(rows["exact/none"][7] != rows["exact/tinylfu"][7]);

  const Result bad = flashpq(dir, "bench --trace " + q(kTrace) + " --admission lfu --repeat 1");
  CHECK(bad.status == 2);
  CHECK_THAT(bad.err, Contains("'lfu'"));
}

// --set gives every framework measured its keys: the engines' hit ratios equal `flashpq run`'s
// with the same keys; a key outside framework: exits 2 naming it.
TEST_CASE("flashpq bench --set: the flash engines' keys, hit ratios as run", "[cli][engines]") {
  TempDir dir;
  const std::string sets =
      " --set framework.blockcache_region_size=256KiB"
      " --set framework.blockcache_region_eviction=s3fifo";
  const Result r = flashpq(dir, "bench --trace " + q(kTrace) +
                                    " --fraction 0.05 --frameworks blockcache,bighash "
                                    "--policies fifo --no-streamed --repeat 1" +
                                    sets);
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  std::map<std::string, std::vector<std::string>> rows = bench_rows(r.out);
  REQUIRE(rows.size() == 2);
  const auto cols = run_columns(dir,
                                "name: same\ntrace:\n  path: " + kTrace +
                                    "\ncache: {capacity: 0.05}\npolicy: {name: fifo}\n"
                                    "framework: {blockcache_region_size: 256KiB, "
                                    "blockcache_region_eviction: s3fifo}\nmatrix:\n"
                                    "  framework.name: [blockcache, bighash]\n",
                                2, {"framework.name", "object_hit_ratio", "reinsertions"});
  const auto& frameworks = cols[0];
  const auto& ratios = cols[1];
  const auto& reinserted = cols[2];
  for (size_t i = 0; i < 2; ++i) {
    INFO(frameworks[i]);
    CHECK(rows[frameworks[i] + "/none"][7] == fmt::format("{:.4f}", std::stod(ratios[i])));
  }
  CHECK(std::stod(reinserted[0]) > 0);  // S3-FIFO's moves and second chances
  for (const char* bad :
       {"framework.nope=1", "cache.capacity=1", "framework.blockcache_region_size"}) {
    const Result b =
        flashpq(dir, "bench --trace " + q(kTrace) +
                         " --frameworks blockcache --policies fifo --repeat 1 --set " + bad);
    INFO(bad);
    CHECK(b.status == 2);
    CHECK_THAT(b.err, Contains(std::string("'") + bad + "'"));
  }
}

TEST_CASE("flashpq trace info: the mix, sizes, one-hit wonders, reuse and Zipf fit, --json",
          "[cli]") {
  TempDir dir;
  dir.write("t.csv",
            "5,1,10,get\n6,2,20,set\n7,1,10,get\n8,3,30,get\n9,9,1,delete\n10,1,10,get\n"
            "11,2,20,get\n12,4,40,set\n13,1,10,get\n");
  const std::string args =
      "trace info t.csv --format csv --set trace.time_col=1 --set trace.key_col=2 --set "
      "trace.size_col=3 --set trace.op_col=4 --summary-cache cache";
  const Result r = flashpq(dir, args);
  REQUIRE(r.status == 0);
  for (const char* line : {"requests 9\n", "unique_objects 4\n", "working_set_bytes 100\n",
                           "gets 6\n", "sets 2\n", "deletes 1\n", "size_p50_bytes 10\n",
                           "max_object_bytes 40\n", "one_hit_wonders 2 (50.0 % of objects)\n",
                           "time_span_s 8\n", "reuse_distance_log2 1:0 2:3 4:1 "}) {
    CHECK_THAT(r.out, Catch::Contains(line));
  }
  CHECK_THAT(r.out, Catch::Contains("summary computed"));
  const Result again = flashpq(dir, args + " --json");
  REQUIRE(again.status == 0);
  CHECK_THAT(again.out, Catch::StartsWith("{\"trace\": \"t.csv\"") &&
                            Catch::Contains("\"requests\": 9,") &&
                            Catch::Contains("\"one_hit_wonder_ratio\": 0.500000") &&
                            Catch::Contains("{\"from\": 2, \"requests\": 3}"));
  // A generator's: Zipf(1.2) over 1000 keys fitted near 1.2.
  const Result z = flashpq(dir,
                           "trace info generator:zipf --set trace.objects=1000 --set "
                           "trace.alpha=1.2 --set trace.requests=2000000 --summary-cache cache");
  REQUIRE(z.status == 0);
  const auto at = z.out.find("zipf_alpha ");
  REQUIRE(at != std::string::npos);
  CHECK(std::stod(z.out.substr(at + 11)) == Approx(1.2).margin(0.03));
}

TEST_CASE("flashpq run: a truncated .fpq exits 2 before any cell, naming file and record",
          "[cli]") {
  TempDir dir;
  const Result c = flashpq(dir, "trace convert " + std::string(FLASHPQ_SOURCE_DIR) +
                                    "/traces/data/adaptsize-request.oracleGeneral.zst a.fpq");
  REQUIRE(c.status == 0);
  std::string bytes = slurp(dir.file("a.fpq"));
  dir.write("cut.fpq", bytes.substr(0, 5000));
  dir.write("e.yaml", "trace: {path: cut.fpq, format: fpq}\ncache: {capacity: 0.1}\n");
  const Result r = flashpq(dir, "run e.yaml -o out.csv");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains("e.yaml:1") && Contains("cut.fpq: truncated") &&
                        Contains("record 37 at byte offset 4984"));
  CHECK_FALSE(fs::exists(dir.file("out.csv")));
}

TEST_CASE("flashpq trace bench reads a generator whole: its requests and their checksum", "[cli]") {
  TempDir dir;
  const Result r = flashpq(dir,
                           "trace bench --format generator --set trace.generator=ycsb --set "
                           "trace.workload=f --set trace.record_count=1000 --set "
                           "trace.operation_count=5000 --repeat 2 --seed 3");
  REQUIRE(r.status == 0);
  // The same stream read here: its requests and the sum of keys, sizes and ops.
  TraceConfig t;
  t.format = "generator";
  t.params.set("trace.generator", "ycsb");
  t.params.set("trace.workload", "f");
  t.params.set("trace.record_count", 1000);
  t.params.set("trace.operation_count", 5000);
  t.seed = 3;
  auto reader = open_trace(t);
  std::vector<Request> batch(777);
  uint64_t requests = 0, checksum = 0;
  for (size_t n; (n = reader->read(batch)) != 0;) {
    requests += n;
    for (size_t i = 0; i < n; ++i)
      checksum += batch[i].key + batch[i].size_bytes + static_cast<uint64_t>(batch[i].op);
  }
  CHECK(requests > 5000);  // a read-modify-write is two requests
  CHECK_THAT(r.out, Catch::Contains(fmt::format("requests {}\n", requests)));
  CHECK_THAT(r.out, Catch::Contains(fmt::format("checksum {}\n", checksum)));
  CHECK_THAT(r.out, Catch::Contains("requests_per_s "));
  const Result bad = flashpq(dir,
                             "trace bench --format generator --set trace.generator=ycsb "
                             "--set trace.workload=z");
  CHECK(bad.status != 0);
  CHECK_THAT(bad.err, Catch::Contains("trace.workload"));
}

TEST_CASE("flashpq bench --des runs the timed mode -- a bad profile exits 2", "[cli][des]") {
  TempDir dir;
  const Result r = flashpq(dir, "bench --des --profile tiny --requests 3000 --clients 4");
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Contains("3000 random page writes"));
  CHECK_THAT(r.out, Contains("M events/s"));
  CHECK_THAT(r.out, Contains("simulated:"));
  const Result bad = flashpq(dir, "bench --des --profile nope");
  CHECK(bad.status == 2);
  CHECK_THAT(bad.err, Contains("--profile: unknown 'nope' (allowed: tiny"));
  CHECK(flashpq(dir, "bench --des --clients 0").status == 2);
}

// Starts `flashpq ARGS` in `dir`; its stdout is discarded, its stderr goes to `err` (a file),
// else to /dev/null; `env` ("NAME=VALUE") is added to the environment. Returns its process id.
pid_t spawn_flashpq(const TempDir& dir, const std::vector<std::string>& args,
                    const std::string& err = "", const std::vector<std::string>& env = {}) {
  // Everything the child needs is built before fork(): it only calls async-signal-safe
  // functions.
  std::vector<std::string> args_and_env;
  std::vector<char*> argv{const_cast<char*>(FLASHPQ_BINARY)};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (char** e = environ; *e != nullptr; ++e) envp.push_back(*e);
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  const std::string cwd = dir.path().string();
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    if (::chdir(cwd.c_str()) != 0) ::_exit(127);
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1);
    ::dup2(err.empty() ? null : ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644), 2);
    ::execve(FLASHPQ_BINARY, argv.data(), envp.data());
    ::_exit(127);
  }
  return pid;
}

// Waits for a process started by spawn_flashpq(); its wait status.
int wait_status(pid_t pid) {
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  return status;
}

TEST_CASE("flashpq run: SIGINT and SIGTERM stop cleanly: whole rows, the cells left named, 128+N",
          "[cli]") {
  TempDir dir;
  // 6 cells of 2 M requests (a few tenths of a second each in Release).
  dir.write("s.yaml",
            "name: s\ntrace: {format: generator, generator: zipf, objects: 200000, "
            "requests: 2000000}\ncache: {capacity: 0.1}\n"
            "matrix:\n  policy.name: [fifo, lru, slru]\n  cache.capacity: [0.05, 0.1]\n");
  const Result ref = flashpq(dir, "run s.yaml -o ref.csv --jobs 2");
  INFO(ref.err);
  REQUIRE(ref.status == 0);
  const auto expected = parse_csv(slurp(dir.file("ref.csv")));
  REQUIRE(expected.size() == 7);
  const uint64_t per_cell = std::stoull(column(expected, "trace_requests")[0]);  // 2,000,000
  for (const int sig : {SIGINT, SIGTERM}) {
    const std::string name = sig == SIGINT ? "SIGINT" : "SIGTERM";
    INFO(name);
    fs::remove(dir.file("s.csv"));
    // The signal comes at a point chosen by the work done (FLASHPQ_KILL_AFTER, experiments/
    // sweep.h), not by the clock: once the cells have read 2 × 2 M + 1 requests together. With 2
    // workers, each cell reading 2 M: more than 2 cells have read requests, so at least one
    // finished (a worker takes a third cell only then); at most 2 finished before that point
    // and at most 2 more ran, so 1 to 4 rows of 6, whatever the machine's speed or load.
    const pid_t pid =
        spawn_flashpq(dir, {"run", "s.yaml", "-o", "s.csv", "--jobs", "2"}, dir.file("s.log"),
                      {fmt::format("FLASHPQ_KILL_AFTER=requests:{}:{}", 2 * per_cell + 1,
                                   sig == SIGINT ? "INT" : "TERM")});
    const int status = wait_status(pid);
    const std::string log = slurp(dir.file("s.log"));
    INFO(log);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 128 + sig);
    CHECK_THAT(log, Contains("flashpq: interrupted by " + name));
    CHECK_THAT(log, Contains("--resume` runs them"));
    // Every row in the file is whole and equals the uninterrupted run's row of its cell.
    const auto got = parse_csv(slurp(dir.file("s.csv")));
    REQUIRE(got.size() >= 2);
    REQUIRE(got.size() <= 5);  // stopped before the end
    CHECK(got[0] == expected[0]);
    const std::vector<std::string> cells = column(got, "cell");
    std::vector<size_t> done;
    for (size_t r = 1; r < got.size(); ++r) {
      const size_t cell = std::stoul(cells[r - 1]);
      done.push_back(cell);
      CHECK(without_wall(got[0], got[r]) == without_wall(expected[0], expected[cell + 1]));
    }
    // The log names exactly the cells without a row.
    std::vector<size_t> left;
    for (size_t c = 0; c < 6; ++c) {
      if (std::find(done.begin(), done.end(), c) == done.end()) left.push_back(c);
    }
    // Numbered from 0, as the cell column and --cells number them.
    CHECK_THAT(log, Contains(fmt::format("{} of 6 cells remain without a row: {} (of cells 0-5)",
                                         left.size(), format_cell_ranges(left))));
    // --resume runs just those and ends with the uninterrupted run's rows.
    const Result resumed = flashpq(dir, "run s.yaml -o s.csv --resume --jobs 2");
    INFO(resumed.err);
    REQUIRE(resumed.status == 0);
    size_t kept = 0;
    for (const std::string& l : lines(resumed.err)) kept += l.ends_with("] finished before");
    CHECK(kept == done.size());
    const auto all = parse_csv(slurp(dir.file("s.csv")));
    REQUIRE(all.size() == expected.size());
    for (size_t r = 1; r < all.size(); ++r) {
      CHECK(without_wall(all[0], all[r]) == without_wall(expected[0], expected[r]));
    }
  }
}

TEST_CASE(
    "flashpq run: FLASHPQ_KILL_AFTER kills at its row -- a bad value exits 2, writing nothing",
    "[cli]") {
  TempDir dir;
  dir.write("two.yaml", two_cells());
  const Result ref = flashpq(dir, "run two.yaml -o ref.csv");
  REQUIRE(ref.status == 0);
  const auto expected = parse_csv(slurp(dir.file("ref.csv")));
  REQUIRE(expected.size() == 3);
  // rows:1: dead by SIGKILL right after the first row, which is whole.
  int status = wait_status(spawn_flashpq(dir, {"run", "two.yaml", "-o", "k.csv", "--jobs", "2"}, "",
                                         {"FLASHPQ_KILL_AFTER=rows:1"}));
  REQUIRE(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGKILL);
  auto got = parse_csv(slurp(dir.file("k.csv")));
  REQUIRE(got.size() == 2);
  CHECK(without_wall(got[0], got[1]) == without_wall(expected[0], expected[1]));
  // torn-row:2: the second row cut to its first half, without its line break; --resume drops
  // it and runs its cell again.
  status = wait_status(spawn_flashpq(dir, {"run", "two.yaml", "-o", "t.csv"}, "",
                                     {"FLASHPQ_KILL_AFTER=torn-row:2"}));
  REQUIRE(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGKILL);
  const std::string torn = slurp(dir.file("t.csv"));
  const size_t cut = torn.rfind('\n') + 1;
  got = parse_csv(torn.substr(0, cut));
  REQUIRE(got.size() == 2);
  CHECK(without_wall(got[0], got[1]) == without_wall(expected[0], expected[1]));
  const std::string tail = torn.substr(cut);  // half of cell 1's row: "two,1,..."
  CHECK(tail.starts_with("two,1,"));
  const double row_chars = static_cast<double>(lines(slurp(dir.file("ref.csv")))[2].size());
  CHECK(std::abs(2.0 * static_cast<double>(tail.size()) - row_chars) < 20);  // wall_seconds
  const Result resumed = flashpq(dir, "run two.yaml -o t.csv --resume");
  INFO(resumed.err);
  REQUIRE(resumed.status == 0);
  CHECK_THAT(resumed.err,
             Contains("1 finished rows kept") && Contains("an unfinished last row dropped"));
  got = parse_csv(slurp(dir.file("t.csv")));
  REQUIRE(got.size() == 3);
  for (size_t r = 1; r < 3; ++r) {
    CHECK(without_wall(got[0], got[r]) == without_wall(expected[0], expected[r]));
  }
  // A bad value: exit 2 naming the variable and the text, before anything is written.
  for (const char* bad :
       {"rows", "rows:x", "lines:3", "requests:0", "rows:1:HUP", "torn-row:1:INT"}) {
    INFO(bad);
    const Result r =
        flashpq(dir, "run two.yaml -o bad.csv", std::string("FLASHPQ_KILL_AFTER=") + bad);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Contains("FLASHPQ_KILL_AFTER") && Contains(bad));
    CHECK(!fs::exists(dir.file("bad.csv")));
  }
}

TEST_CASE("flashpq run: a full disk while writing results is a clear error that keeps every row",
          "[cli]") {
  TempDir dir;
  // A filesystem of 2 pages (8 KiB, tmpfs): the header and a few rows of ~0.5 KiB fit.
  const testing::TmpfsMount full(dir.path() / "full", "8k");
  if (!full.mounted()) {
    WARN("skipped: mounting a small tmpfs needs root");
    return;
  }
  dir.write("f.yaml", "name: f\ntrace:\n  path: " + kTrace +
                          "\nmatrix:\n  policy.name: [fifo, lru, slru, gdsf]\n"
                          "  cache.capacity: [0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.4]\n");
  const Result ref = flashpq(dir, "run f.yaml -o ref.csv --jobs 2");
  REQUIRE(ref.status == 0);
  const auto expected = parse_csv(slurp(dir.file("ref.csv")));
  REQUIRE(expected.size() == 29);
  REQUIRE(slurp(dir.file("ref.csv")).size() > 12000);  // more than the filesystem holds

  const Result r = flashpq(dir, "run f.yaml -o full/f.csv --jobs 2");
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains("full/f.csv: cannot write the row of cell ") &&
                        Contains("No space left on device") &&
                        Contains("the rows written before it are kept"));
  // Every whole row in the file is the uninterrupted run's (a last unfinished one is dropped,
  // as --resume drops it).
  std::string text = slurp(dir.file("full/f.csv"));
  text.erase(text.rfind('\n') + 1);
  const auto got = parse_csv(text);
  REQUIRE(got.size() >= 2);
  REQUIRE(got.size() < expected.size());
  CHECK(got[0] == expected[0]);
  for (size_t r = 1; r < got.size(); ++r) {
    CHECK(without_wall(got[0], got[r]) == without_wall(expected[0], expected[r]));
  }
}

TEST_CASE("flashpq device verify: a clean pass has 0 corruptions, a flipped byte its offset",
          "[cli][verify]") {
  TempDir dir;
  const Result clean = flashpq(dir, "device verify v.img --size 64MiB --chunk 8MiB");
  INFO(clean.out << clean.err);
  REQUIRE(clean.status == 0);
  CHECK_THAT(clean.out, Contains("write pass: 67108864 bytes") && Contains("0 corruptions"));
  // Every logical block of the 64 MiB checked: 16384 of 4 KiB or 131072 of 512 B.
  CHECK((clean.out.find("read pass:  67108864 bytes") != std::string::npos &&
         (clean.out.find(" 16384 blocks checked") != std::string::npos ||
          clean.out.find(" 131072 blocks checked") != std::string::npos)));
  // The flipped byte, 100 bytes into the block at 40 MiB + 8 KiB (its payload, past the 32-byte
  // header): that block is reported.
  const uint64_t block = (40 << 20) + 8192;
  const Result flipped = flashpq(dir, "device verify v.img --size 64MiB --chunk 8MiB --flip-at " +
                                          std::to_string(block + 100));
  INFO(flipped.out << flipped.err);
  CHECK(flipped.status == 1);
  CHECK_THAT(flipped.out,
             Contains("corruption at offset " + std::to_string(block) + ": verify: ") &&
                 Contains("payload CRC32C"));
  CHECK_THAT(flipped.out, !Contains("0 corruptions"));
  const Result past = flashpq(dir, "device verify v.img --size 64MiB --flip-at 67108864");
  CHECK(past.status == 2);
  CHECK_THAT(past.err, Contains("--flip-at: offset 67108864 is past the region"));
}

TEST_CASE(
    "flashpq run: kill -9 at points chosen by the work done, then --resume, gives every cell once",
    "[cli][slow]") {
  TempDir dir;
  // 24 cells of the bundled trace, a few tens of milliseconds each.
  dir.write("k.yaml",
            "name: k\ntrace:\n  path: " + kTrace +
                "\nwarmup: 0.2\nframework: {block_size: 0.00390625}\n"
                "matrix:\n  cache.capacity: [0.05, 0.1, 0.2]\n"
                "  framework.name: [exact, ripq]\n  policy.name: [fifo, lru, slru, gdsf]\n");
  const Result ref = flashpq(dir, "run k.yaml -o ref.csv --jobs 1 --summary-cache sc");
  INFO(ref.err);
  REQUIRE(ref.status == 0);
  const auto expected = parse_csv(slurp(dir.file("ref.csv")));
  const size_t kCells = 24;
  REQUIRE(expected.size() == kCells + 1);
  // Every cell reads the whole trace: R requests (the requests:N point counts them).
  const uint64_t R = std::stoull(column(expected, "trace_requests")[0]);
  REQUIRE(R == 66987);

  // The file's whole rows (each checked against the uninterrupted run's row of its cell, wall
  // time aside) as cell indices in file order; `torn`: an unfinished last record follows them.
  auto read_file = [&](bool& torn) {
    std::string text = slurp(dir.file("k.csv"));
    const size_t whole = text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1;
    torn = whole < text.size();
    text.erase(whole);
    std::vector<size_t> cells;
    const auto got = parse_csv(text);
    if (got.empty()) return cells;  // killed before the first row (rows:0): empty
    REQUIRE(got[0] == expected[0]);
    for (size_t r = 1; r < got.size(); ++r) {
      REQUIRE(got[r].size() == expected[0].size());
      const size_t cell = std::stoul(got[r][1]);  // column 2 is "cell"
      REQUIRE(cell < kCells);
      INFO("cell " << cell);
      CHECK(without_wall(got[0], got[r]) == without_wall(expected[0], expected[cell + 1]));
      cells.push_back(cell);
    }
    return cells;
  };
  // Every cell once, in cell order: what an uninterrupted run writes.
  auto check_complete = [&](const std::string& why) {
    INFO(why);
    bool torn = false;
    const std::vector<size_t> cells = read_file(torn);
    CHECK(!torn);
    std::vector<size_t> all(kCells);
    for (size_t c = 0; c < kCells; ++c) all[c] = c;
    CHECK(cells == all);
  };

  // Each trial resumes what the previous ones left and is killed (SIGKILL) at a point of
  // FLASHPQ_KILL_AFTER (experiments/sweep.h) chosen by a fixed seed, so a failure replays:
  // after 0 to 4 rows, in the middle of the 1st to 4th row (torn), or once 1 to 4 cells' worth
  // of requests have been read (in the middle of a cell, or right before its row), on 1, 2 or 3
  // workers. Once every cell has a row the file is checked and removed, and it starts afresh.
  // The point is reached whatever the machine's speed: each trial has at least as many rows
  // and requests left to do as its point names.
  std::mt19937_64 rng(20261125);
  const int kTrials = 40;
  std::vector<size_t> kept;  // cells with a whole row in k.csv
  bool was_torn = false;
  int passes = 0;
  for (int trial = 0; trial < kTrials; ++trial) {
    std::vector<size_t> pending;  // the cells the trial runs, in the order it writes their rows
    for (size_t c = 0; c < kCells; ++c) {
      if (std::find(kept.begin(), kept.end(), c) == kept.end()) pending.push_back(c);
    }
    if (pending.empty()) {
      // Every cell has a row: a resume runs none (and sorts the file, were it out of order).
      const Result done = flashpq(dir, "run k.yaml -o k.csv --resume --summary-cache sc");
      INFO(done.err);
      REQUIRE(done.status == 0);
      CHECK_THAT(done.err, Contains(fmt::format("{} finished rows kept", kCells)));
      check_complete(fmt::format("pass {} complete before trial {}", passes, trial));
      fs::remove(dir.file("k.csv"));
      kept.clear();
      for (size_t c = 0; c < kCells; ++c) pending.push_back(c);
      ++passes;
    }
    const uint64_t most = std::min<uint64_t>(pending.size(), 4);
    const int kind = static_cast<int>(rng() % 3);
    uint64_t n = 0;
    std::string point;
    if (kind == 0) {
      n = rng() % (most + 1);
      point = fmt::format("rows:{}", n);
    } else if (kind == 1) {
      n = 1 + rng() % most;
      point = fmt::format("torn-row:{}", n);
    } else {
      n = 1 + rng() % (most * R);
      point = fmt::format("requests:{}", n);
    }
    const std::string jobs = std::to_string(1 + trial % 3);
    INFO("trial " << trial << ": FLASHPQ_KILL_AFTER=" << point << ", --jobs " << jobs << ", "
                  << kept.size() << " rows kept");
    const int status = wait_status(spawn_flashpq(
        dir, {"run", "k.yaml", "-o", "k.csv", "--resume", "--jobs", jobs, "--summary-cache", "sc"},
        dir.file("k.log"), {"FLASHPQ_KILL_AFTER=" + point}));
    const std::string log = slurp(dir.file("k.log"));
    INFO(log);
    REQUIRE(WIFSIGNALED(status));
    REQUIRE(WTERMSIG(status) == SIGKILL);
    // The resume kept every whole row, and dropped the torn one.
    size_t finished_before = 0;
    for (const std::string& l : lines(log)) finished_before += l.ends_with("] finished before");
    CHECK(finished_before == kept.size());
    if (was_torn) CHECK_THAT(log, Contains("an unfinished last row dropped"));
    // The file: the kept rows (rewritten in cell order), then the rows of the first `added`
    // pending cells, in cell order.
    bool torn = false;
    const std::vector<size_t> cells = read_file(torn);
    REQUIRE(cells.size() >= kept.size());
    const size_t added = cells.size() - kept.size();
    REQUIRE(added <= pending.size());
    std::vector<size_t> want = kept;
    std::sort(want.begin(), want.end());
    want.insert(want.end(), pending.begin(), pending.begin() + static_cast<std::ptrdiff_t>(added));
    CHECK(cells == want);
    if (kind == 0) {
      CHECK(added == n);
      CHECK(!torn);
    } else if (kind == 1) {
      CHECK(added == n - 1);
      CHECK(torn);
    } else {
      CHECK(added * R < n);  // rows only of cells that finished before the n-th request
    }
    kept = cells;
    was_torn = torn;
  }
  INFO(passes << " passes through every cell");
  const Result last = flashpq(dir, "run k.yaml -o k.csv --resume --jobs 2 --summary-cache sc");
  INFO(last.err);
  REQUIRE(last.status == 0);
  check_complete("the last resume");
}

}  // namespace
}  // namespace flashpq::test_cli

namespace flashpq::test_cli {
namespace {

TEST_CASE("flashpq import cachebench writes the experiment, flashpq run CONFIG.json runs it",
          "[cli][cachebench]") {
  TempDir dir;
  const std::string config =
      FLASHPQ_SOURCE_DIR "/tests/data/cachebench/feature_stress/navy/bc_fifo.json";
  Result r = flashpq(dir, "import cachebench " + q(config) + " -o bc.yaml");
  INFO(r.err);
  REQUIRE(r.status == 0);
  const std::string yaml = slurp(dir.file("bc.yaml"));
  CHECK_THAT(yaml, Catch::Contains("framework:") && Catch::Contains("blockcache"));
  CHECK_THAT(r.err, Catch::Contains("not mapped: "));
  CHECK_FALSE(fs::exists(dir.file("bc.yaml.tmp")));
  // The same config run as it is, with fewer requests: the rows of the imported experiment.
  r = flashpq(dir, "run " + q(config) + " --set trace.requests=20000 -o out.csv");
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK_THAT(slurp(dir.file("out.csv")), Catch::Contains("blockcache"));
  // CacheBench's report of the row on stdout (experiments/import/cachebench_report.h).
  CHECK_THAT(r.out, Catch::Contains("== Allocator Stats ==") &&
                        Catch::Contains("Hit Ratio     :") &&
                        Catch::Contains("NVM app write amplification") &&
                        Catch::Contains("== Throughput Stats =="));
  // Nothing written beside the user's config.
  CHECK_FALSE(
      fs::exists(FLASHPQ_SOURCE_DIR "/tests/data/cachebench/feature_stress/navy/bc_fifo.yaml"));
  r = flashpq(dir, "import cachebench nope.json -o x.yaml");
  CHECK(r.status != 0);
  CHECK_THAT(r.err, Catch::Contains("nope.json"));
}

}  // namespace
}  // namespace flashpq::test_cli
