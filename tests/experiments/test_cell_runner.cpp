// tests/experiments/test_cell_runner.cpp — what plan_cell resolves before a cell runs
// (experiments/run/cell_runner.h): a fractional block size (framework.block_size, the row's
// block_size_bytes), a simflash device sized for the cache (device.size_to_cache, the row's
// device_exported_bytes), a device too small for the cache's blocks (an error), and the notes on
// legal but misleading configurations (the row's notes column and the log's warnings), and
// traces that leave nothing to measure (errors). Expected
// figures are computed by hand from the bundled AdaptSize trace's README (working set
// 278,854,232 bytes) and the tiny profile (superblocks of 4 lanes × 16 pages × 4 KiB).
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "experiments/experiment.h"
#include "experiments/run/cell_runner.h"
#include "experiments/sweep.h"
#include "tests/test_util.h"
#include "traces/trace_summary.h"

namespace flashpq::test_cell_runner {
namespace {

using namespace flashpq::testing;  // tests/test_util.h
using Catch::Contains;
// A row's fields; a column the row does not carry reads as "" (tests/test_util.h).
using RowMap = testing::RowFields;

const std::string kTrace = FLASHPQ_SOURCE_DIR "/traces/data/adaptsize-request.oracleGeneral.zst";

const TraceSummary& bundled_summary() {
  static const TraceSummary s = [] {
    TraceConfig t;
    t.params.set("trace.path", kTrace);
    return summarize_trace(t);
  }();
  return s;
}

// Runs the single cell of `body` (the sections after trace:) on the bundled trace.
RowMap run_one(const std::string& body) {
  TempDir dir;
  const Experiment ex = load_experiment(
      dir.write("c.yaml", "name: c\ntrace:\n  path: " + kTrace + "\nseed: 1\n" + body), {});
  REQUIRE(ex.cells.size() == 1);
  RowMap m;
  for (const Column& c : run_cell(ex.cells[0], bundled_summary())) m[c.name] = c.text;
  return m;
}

// C = ⌊0.1 × 278,854,232⌋ = 27,885,423 B; C/256 = 108,927.4 B.
TEST_CASE("a fractional block size resolves per cell to the device's logical block",
          "[experiments][plan]") {
  const RowMap on_null =
      run_one("cache: {capacity: 0.1}\nframework: {name: ripq, block_size: 0.00390625}\n");
  CHECK(on_null.at("framework.block_size") == "0.00390625");
  CHECK(on_null.at("block_size_bytes") == "108927");  // the null device's logical block is 1 B
  const RowMap on_flash = run_one(
      "cache: {capacity: 0.1}\nframework: {name: sipq, block_size: 0.00390625}\n"
      "device: {name: simflash, size_to_cache: true}\n");
  CHECK(on_flash.at("block_size_bytes") == "106496");  // 26 pages of 4 KiB
  const RowMap bytes =
      run_one("cache: {capacity: 0.1}\nframework: {name: ripq, block_size: 256KiB}\n");
  CHECK(bytes.at("block_size_bytes") == "262144");
  const RowMap exact = run_one("cache: {capacity: 0.1}\n");
  CHECK(exact.at("block_size_bytes").empty());  // exact writes no blocks
}

TEST_CASE("device.size_to_cache exports the smallest simflash device holding the cache's blocks",
          "[experiments][plan]") {
  // ⌊C/B⌋ = 261 blocks of 106,496 B = 27,795,456 B = 6,786 pages. At utilization 0.9 a
  // superblock of 64 pages exports 57.6: ⌊57.6 n⌋ >= 6,786 first at n = 118 (6,796 pages =
  // 27,836,416 B; n = 117 gives 6,739).
  const RowMap r = run_one(
      "cache: {capacity: 0.1}\nframework: {name: ripq, block_size: 0.00390625}\n"
      "device: {name: simflash, utilization: 0.9, size_to_cache: true}\n");
  CHECK(r.at("device_exported_bytes") == "27836416");
  CHECK(r.at("device.size_to_cache") == "true");
  CHECK(r.at("device.blocks_per_plane").empty());  // sized per cell: see device_exported_bytes
  CHECK(r.at("notes").empty());
  CHECK(r.at("error").empty());

  TempDir dir;
  const std::string both = dir.write(
      "b.yaml", "name: b\ntrace:\n  path: " + kTrace +
                    "\ndevice: {name: simflash, size_to_cache: true, blocks_per_plane: 64}\n");
  CHECK_THROWS_WITH(load_experiment(both, {}), Contains("device.size_to_cache") &&
                                                   Contains("blocks_per_plane") &&
                                                   Contains("'64'"));
}

TEST_CASE("a device smaller than the cache's blocks is an error before the cell runs",
          "[experiments][plan]") {
  // tiny exports 12 MiB; a cache of 0.1 (26.6 MiB) in 1 MiB blocks needs 26 MiB.
  TempDir dir;
  auto cell_on_tiny = [&](const std::string& framework) {
    const Experiment ex = load_experiment(
        dir.write("s.yaml", "name: s\ntrace:\n  path: " + kTrace +
                                "\ncache: {capacity: 0.1}\nframework: " + framework +
                                "\ndevice: {name: simflash}\n"),
        {});
    return ex.cells[0];
  };
  CHECK_THROWS_WITH(run_cell(cell_on_tiny("{name: ripq, block_size: 1MiB}"), bundled_summary()),
                    Contains("26 device blocks of 1048576 B need 27262976 B") &&
                        Contains("exports only 12582912 B"));
  // Every framework that places objects refuses: exact with naive placement needs C bytes.
  CHECK_THROWS_WITH(run_cell(cell_on_tiny("{name: exact, placement: naive}"), bundled_summary()),
                    Contains("framework exact: placing the cache's objects needs its 27885423 B") &&
                        Contains("exports only 12582912 B"));
  // In memory (placement none) the device is not used: no refusal.
  CHECK_NOTHROW(run_cell(cell_on_tiny("{name: exact}"), bundled_summary()));
}

TEST_CASE("a trace with no requests, or none left to measure, is an error naming it",
          "[experiments][plan]") {
  TempDir dir;
  auto cell_of = [&](const std::string& trace_yaml) {
    const Experiment ex = load_experiment(
        dir.write("d.yaml", "name: d\ntrace: " + trace_yaml + "\ncache: {capacity: 1MiB}\n"), {});
    REQUIRE(ex.cells.size() == 1);
    return ex.cells[0];
  };
  SECTION("an empty trace file") {
    const std::string empty = dir.write("empty.oracleGeneral", "");
    const CellConfig cell = cell_of("{path: " + empty + "}");
    CHECK_THROWS_WITH(run_cell(cell, summarize_trace(cell.trace)),
                      Contains(empty + ": the trace holds no requests"));
  }
  SECTION("transforms that keep nothing (the bundled trace has no deletes)") {
    const CellConfig cell = cell_of("{path: " + kTrace + ", transforms: 'filter_ops keep=delete'}");
    CHECK_THROWS_WITH(run_cell(cell, summarize_trace(cell.trace)),
                      Contains(kTrace + ": no request is left after trace.transforms "
                                        "'filter_ops keep=delete'"));
  }
  SECTION("a warm-up that takes every request (all of them preconditioning)") {
    const CellConfig cell = cell_of("{path: " + kTrace + "}");
    TraceSummary s = bundled_summary();
    s.preconditioning_requests = s.requests;
    CHECK_THROWS_WITH(run_cell(cell, s),
                      Contains(kTrace + ": the warm-up") &&
                          Contains("leaves none of the trace's " + std::to_string(s.requests)));
    s.preconditioning_requests = s.requests - 1;  // one left: it runs
    CHECK_NOTHROW(run_cell(cell, s));
  }
}

TEST_CASE("notes name legal but misleading configurations", "[experiments][plan]") {
  SECTION("RIPQ with fewer than 4·K blocks and a reserve over a quarter of them") {
    // 0.1 in 1 MiB blocks: 26 blocks < 32 = 4 × 8, and 10 reserved > 26 / 4.
    const RowMap r = run_one("cache: {capacity: 0.1}\nframework: {name: ripq, block_size: 1MiB}\n");
    CHECK_THAT(r.at("notes"), Contains("26 device blocks for K = 8 insertion points"));
    CHECK_THAT(r.at("notes"), Contains("reserved_blocks = 10 is over a quarter of the 26"));
    CHECK_THAT(r.at("notes"), !Contains("larger than its device blocks"));  // 4 requests > 1 MiB
    const RowMap k2 = run_one(
        "cache: {capacity: 0.1}\nframework: {name: ripq, block_size: 1MiB, insertion_points: 2, "
        "reserved_blocks: 6}\n");
    CHECK(k2.at("notes").empty());  // 26 >= 8 and 24 <= 26
  }
  SECTION("blocks smaller than objects drawing 1 % of the requests") {
    // 16 KiB blocks: 9.5 % of the requests are for larger objects, 8.25 % for objects of
    // 18,432 B or more, the size histogram's bucket above 16 KiB (counted with a script
    // reading the trace's records, not with FlashPQ): the note gives that lower bound.
    const RowMap r =
        run_one("cache: {capacity: 0.1}\nframework: {name: sipq, block_size: 16KiB}\n");
    CHECK_THAT(r.at("notes"), Contains("framework sipq: at least 8.3 %") &&
                                  Contains("% of the requests are for objects larger than its "
                                           "device blocks of 16384 B"));
  }
  SECTION("a warm-up that leaves under 10 % of the requests") {
    CHECK_THAT(run_one("warmup: 0.95\n").at("notes"), Contains("under 10 %"));
    CHECK(run_one("warmup: 0.85\n").at("notes").empty());
  }
  SECTION("a cache that holds the whole working set") {
    CHECK_THAT(run_one("cache: {capacity: 1.0}\n").at("notes"),
               Contains("holds the whole working set (278854232)"));
  }
  SECTION("a simflash device much larger than the cache") {
    // 1000 superblocks export 0.75 × 1000 × 256 KiB = 187.5 MiB; the cache's 26 MiB is 14 %.
    const RowMap r = run_one(
        "cache: {capacity: 0.1}\nframework: {name: ripq, block_size: 0.00390625}\n"
        "device: {name: simflash, blocks_per_plane: 1000}\n");
    CHECK_THAT(r.at("notes"), Contains("addresses 14 % of the device's exported 196608000 B"));
  }
}

TEST_CASE("the log prints each note of a cell as a warning line", "[experiments][plan]") {
  TempDir dir;
  const Experiment ex = load_experiment(
      dir.write("w.yaml",
                "name: w\ntrace:\n  path: " + kTrace +
                    "\ncache: {capacity: 0.1}\nframework: {name: ripq, block_size: 1MiB}\n"),
      {});
  std::ostringstream log;
  CHECK(run_experiment(ex, dir.file("w.csv"), log) == 0);
  CHECK_THAT(log.str(), Contains("[cell 0 of 0-0] warning: framework ripq: 26 device blocks"));
  CHECK_THAT(log.str(),
             Contains("[cell 0 of 0-0] warning: framework ripq: framework.reserved_blocks = 10"));
}

}  // namespace
}  // namespace flashpq::test_cell_runner

namespace flashpq::test_cell_runner {
namespace {

// The growth of the peak resident set (VmHWM, /proc/self/status) while `fn` runs in a child
// process, in bytes; the child starts with the parent's pages already resident.
uint64_t peak_growth_in_child(const std::function<void()>& fn) {
  auto hwm = []() -> uint64_t {
    std::ifstream in("/proc/self/status");
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("VmHWM:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
    }
    return uint64_t{0};
  };
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(fds[0]);
    const uint64_t before = hwm();
    fn();
    const uint64_t growth = hwm() - before;
    if (::write(fds[1], &growth, sizeof growth) != sizeof growth) ::_exit(1);
    ::_exit(0);
  }
  ::close(fds[1]);
  uint64_t growth = 0;
  const auto got = ::read(fds[0], &growth, sizeof growth);
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  REQUIRE(got == static_cast<ssize_t>(sizeof growth));
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  return growth;
}

TEST_CASE("the memory estimate of a cell bounds the peak memory it adds",
          "[experiments][plan][slow]") {
  // 1.5 M distinct keys (each requested twice, 100 B): large enough that the estimate's
  // per-object parts, not its fixed part, decide.
  TempDir dir;
  {
    std::ofstream t(dir.file("keys.csv"));
    for (int pass = 0; pass < 2; ++pass) {
      for (uint64_t k = 1; k <= 1'500'000; ++k) t << k * 2654435761u % 1000000007u << ",100\n";
    }
  }
  const std::string head = "name: mem\ntrace: {format: csv, path: " + dir.file("keys.csv") +
                           ", key_col: 1, size_col: 2}\n";
  for (const std::string& body :
       {std::string("cache: {capacity: 0.5}\npolicy: {name: lru}\n"),
        std::string("cache: {capacity: 0.3}\npolicy: {name: slru}\nadmission: {name: tinylfu}\n"),
        std::string("cache: {capacity: 0.5}\nframework: {name: ripq, block_size: 0.00390625}\n"
                    "device: {name: simflash, profile: tiny, utilization: 0.9, "
                    "size_to_cache: true}\n")}) {
    const Experiment ex = load_experiment(dir.write("m.yaml", head + body), {});
    REQUIRE(ex.cells.size() == 1);
    const CellConfig& cell = ex.cells[0];
    const TraceSummary summary = summarize_trace(cell.trace);
    REQUIRE(summary.unique_objects > 1'400'000);
    const uint64_t estimate = estimate_cell_memory(cell, summary);
    const uint64_t growth = peak_growth_in_child([&] { run_cell(cell, summary); });
    INFO(body << "estimate " << estimate << " B, peak growth " << growth << " B");
    CHECK(growth > (uint64_t{20} << 20));  // the cell does allocate per object
    CHECK(estimate >= growth);             // an upper bound...
    CHECK(estimate <= 4 * growth);         // ...that does not starve the pool
  }
}

}  // namespace
}  // namespace flashpq::test_cell_runner
