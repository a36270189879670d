// tests/experiments/test_sweep.cpp — the sweep (experiments/sweep.h): rows identical for any
// number of jobs and in cell order, the memory bound, cell ranges, resume that refuses or
// reruns stale rows (another FlashPQ version, other trace bytes), the file sorted after a
// resume, the progress lines, and the kill points of fault injection (KillPoint).
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "experiments/experiment.h"
#include "experiments/results.h"
#include "experiments/run/cell_runner.h"
#include "experiments/sweep.h"
#include "tests/block_test_util.h"
#include "tests/test_util.h"
#include "traces/trace_summary.h"

namespace flashpq::test_sweep {
namespace {

using namespace flashpq::testing;  // tests/test_util.h
namespace fs = std::filesystem;
using Catch::Contains;

const std::string kTrace = FLASHPQ_SOURCE_DIR "/traces/data/adaptsize-request.oracleGeneral.zst";

// Eight cells: exact and RIPQ on simflash (sized for the cache), FIFO and LRU, two capacities.
std::string eight_cells(const std::string& trace = kTrace) {
  return "name: eight\ntrace:\n  path: " + trace +
         "\nwarmup: 0.2\nframework: {block_size: 0.00390625}\n"
         "device: {name: simflash, profile: tiny, utilization: 0.9, size_to_cache: true}\n"
         "matrix:\n  cache.capacity: [0.1, 0.2]\n  framework.name: [exact, ripq]\n"
         "  policy.name: [fifo, lru]\n";
}

Experiment load(const TempDir& dir, const std::string& yaml) {
  return load_experiment(dir.write("x.yaml", yaml), {});
}

// The rows of a CSV results file, wall_seconds blanked (the one column that measures the host).
std::vector<std::vector<std::string>> rows_of(const std::string& path) {
  auto csv = parse_csv(slurp(path));
  REQUIRE(!csv.empty());
  for (size_t c = 0; c < csv[0].size(); ++c) {
    if (csv[0][c] != "wall_seconds") continue;
    for (size_t r = 1; r < csv.size(); ++r) csv[r][c].clear();
  }
  return csv;
}

std::vector<std::string> cells_of(const std::vector<std::vector<std::string>>& csv) {
  std::vector<std::string> out;
  for (size_t r = 1; r < csv.size(); ++r) out.push_back(csv[r][1]);  // column 2 is "cell"
  return out;
}

SweepOptions jobs(unsigned n) {
  SweepOptions o;
  o.jobs = n;
  o.progress_seconds = 0;
  o.summaries.enabled = false;
  return o;
}

TEST_CASE("sweep: the rows are the same, in cell order, for 1, 2 and 3 jobs", "[sweep]") {
  TempDir dir;
  const Experiment ex = load(dir, eight_cells());
  REQUIRE(ex.cells.size() == 8);
  std::ostringstream log;
  REQUIRE(run_experiment(ex, dir.file("j1.csv"), log, jobs(1)) == 0);
  REQUIRE(run_experiment(ex, dir.file("j2.csv"), log, jobs(2)) == 0);
  REQUIRE(run_experiment(ex, dir.file("j3.csv"), log, jobs(3)) == 0);
  const auto one = rows_of(dir.file("j1.csv"));
  CHECK(cells_of(one) == std::vector<std::string>{"0", "1", "2", "3", "4", "5", "6", "7"});
  CHECK(rows_of(dir.file("j2.csv")) == one);
  CHECK(rows_of(dir.file("j3.csv")) == one);
  // The per-cell log lines come in cell order too.
  const std::string text = log.str();
  CHECK(text.find("[cell 0 of 0-7]") < text.find("[cell 7 of 0-7]"));
}

// SIGINT while a sweep runs in this process sets g_stop, as flashpq run's handler sets its
// flag; the handler before is restored at the end of the scope.
std::atomic<bool> g_stop{false};
extern "C" void stop_on_signal(int) {
  g_stop.store(true);
}
class StopOnSigint {
 public:
  StopOnSigint() {
    g_stop.store(false);
    struct sigaction sa {};
    sa.sa_handler = stop_on_signal;
    sigemptyset(&sa.sa_mask);
    REQUIRE(::sigaction(SIGINT, &sa, &old_) == 0);
  }
  ~StopOnSigint() { ::sigaction(SIGINT, &old_, nullptr); }
  StopOnSigint(const StopOnSigint&) = delete;
  StopOnSigint& operator=(const StopOnSigint&) = delete;

 private:
  struct sigaction old_ {};
};

TEST_CASE("sweep: an interrupt stops it with whole rows of finished cells, naming the others",
          "[sweep]") {
  TempDir dir;
  const Experiment ex = load(dir, eight_cells());
  std::ostringstream log;
  REQUIRE(run_experiment(ex, dir.file("ref.csv"), log, jobs(1)) == 0);
  const auto ref = rows_of(dir.file("ref.csv"));
  const uint64_t per_cell = summarize_trace(ex.cells[0].trace).requests;
  const StopOnSigint handler;
  SweepOptions o = jobs(2);
  o.interrupt = &g_stop;
  // SIGINT (a user's ^C) at a point chosen by the work done, not by the clock: once the cells
  // have read 2 × per_cell + 1 requests together. On 2 workers, more than 2 cells have read
  // requests then, so at least one finished (a worker takes a third cell only then); at most 2
  // finished before that point and at most 2 more ran: 1 to 4 rows of 8, however fast the
  // machine, and the cells running when it came stop at their next batch.
  o.kill_after = KillPoint{KillPoint::Event::kRequests, 2 * per_cell + 1, SIGINT};
  std::vector<size_t> remaining;
  bool interrupted = false;
  try {
    run_experiment(ex, dir.file("i.csv"), log, o);
  } catch (const SweepInterrupted& e) {
    interrupted = true;
    remaining = e.remaining;
  }
  REQUIRE(interrupted);
  CHECK(g_stop.load());
  const auto got = rows_of(dir.file("i.csv"));
  REQUIRE(got.size() >= 2);
  REQUIRE(got.size() <= 5);
  CHECK(got[0] == ref[0]);
  std::vector<size_t> all;
  for (size_t r = 1; r < got.size(); ++r) {
    const size_t cell = std::stoul(got[r][1]);
    CHECK(got[r] == ref[cell + 1]);  // whole, and the uninterrupted run's
    all.push_back(cell);
  }
  CHECK(std::is_sorted(remaining.begin(), remaining.end()));
  all.insert(all.end(), remaining.begin(), remaining.end());
  std::sort(all.begin(), all.end());
  CHECK(all == std::vector<size_t>{0, 1, 2, 3, 4, 5, 6, 7});  // each cell once: a row or named
}

TEST_CASE("sweep: kill points -- rows:0 comes before any cell starts, rows:N after the N-th row",
          "[sweep]") {
  TempDir dir;
  const Experiment ex = load(dir, eight_cells());
  std::ostringstream log;
  REQUIRE(run_experiment(ex, dir.file("ref.csv"), log, jobs(1)) == 0);
  const auto ref = rows_of(dir.file("ref.csv"));
  const StopOnSigint handler;
  SweepOptions o = jobs(2);
  o.interrupt = &g_stop;
  // rows:0: the file is created with its header (the union of the planned cells' columns),
  // then no cell starts: every cell remains, the file holds the reference's header alone.
  o.kill_after = KillPoint{KillPoint::Event::kRows, 0, SIGINT};
  std::vector<size_t> remaining;
  try {
    run_experiment(ex, dir.file("z.csv"), log, o);
  } catch (const SweepInterrupted& e) {
    remaining = e.remaining;
  }
  CHECK(remaining == std::vector<size_t>{0, 1, 2, 3, 4, 5, 6, 7});
  REQUIRE(fs::exists(dir.file("z.csv")));
  CHECK(rows_of(dir.file("z.csv")) == std::vector<std::vector<std::string>>{ref.front()});
  // rows:3 on --resume of that empty file: at least 3 rows, those of the first cells, whole.
  g_stop.store(false);
  o.resume = true;
  o.kill_after = KillPoint{KillPoint::Event::kRows, 3, SIGINT};
  remaining.clear();
  try {
    run_experiment(ex, dir.file("z.csv"), log, o);
  } catch (const SweepInterrupted& e) {
    remaining = e.remaining;
  }
  const auto got = rows_of(dir.file("z.csv"));
  REQUIRE(got.size() >= 4);
  REQUIRE(got.size() + remaining.size() == 9);
  for (size_t r = 1; r < got.size(); ++r) CHECK(got[r] == ref[r]);
  // Once past the last row, no signal: the run completes.
  g_stop.store(false);
  o.kill_after = KillPoint{KillPoint::Event::kRows, 9, SIGINT};
  REQUIRE(run_experiment(ex, dir.file("z.csv"), log, o) == 0);
  CHECK(!g_stop.load());
  CHECK(rows_of(dir.file("z.csv")) == ref);
}

TEST_CASE("sweep: FLASHPQ_KILL_AFTER's text", "[sweep]") {
  const KillPoint rows = parse_kill_point("rows:0");
  CHECK(rows.event == KillPoint::Event::kRows);
  CHECK(rows.count == 0);
  CHECK(rows.signal_number == SIGKILL);
  const KillPoint torn = parse_kill_point("torn-row:12");
  CHECK(torn.event == KillPoint::Event::kTornRow);
  CHECK(torn.count == 12);
  const KillPoint requests = parse_kill_point("requests:150000:INT");
  CHECK(requests.event == KillPoint::Event::kRequests);
  CHECK(requests.count == 150000);
  CHECK(requests.signal_number == SIGINT);
  CHECK(parse_kill_point("rows:2:TERM").signal_number == SIGTERM);
  CHECK(parse_kill_point("rows:2:KILL").signal_number == SIGKILL);
  for (const char* bad :
       {"", "rows", "rows:", "rows:-1", "rows:1x", "rows:1:", "rows:1:HUP", "lines:3", "requests:0",
        "torn-row:0", "torn-row:1:INT", "rows:1234567890123456789"}) {
    INFO("'" << bad << "'");
    CHECK_THROWS_WITH(parse_kill_point(bad),
                      Contains("FLASHPQ_KILL_AFTER") && Contains(std::string("'") + bad + "'"));
  }
}

TEST_CASE("sweep: a memory bound below every cell's estimate runs them one at a time", "[sweep]") {
  TempDir dir;
  const Experiment ex = load(dir, eight_cells());
  SweepOptions o = jobs(2);
  o.memory_bytes = 1;  // every cell is over it: each runs alone, none is refused
  std::ostringstream log;
  REQUIRE(run_experiment(ex, dir.file("m.csv"), log, o) == 0);
  REQUIRE(run_experiment(ex, dir.file("j1.csv"), log, jobs(1)) == 0);
  CHECK(rows_of(dir.file("m.csv")) == rows_of(dir.file("j1.csv")));
}

TEST_CASE("sweep: --cells runs a range of cells, as a cluster task does", "[sweep]") {
  TempDir dir;
  const Experiment ex = load(dir, eight_cells());
  SweepOptions o = jobs(2);
  o.cells = parse_cell_ranges("2-3,4");
  std::ostringstream log;
  REQUIRE(run_experiment(ex, dir.file("part.csv"), log, o) == 0);
  REQUIRE(run_experiment(ex, dir.file("all.csv"), log, jobs(1)) == 0);
  const auto part = rows_of(dir.file("part.csv"));
  const auto all = rows_of(dir.file("all.csv"));
  REQUIRE(part.size() == 4);
  for (size_t r = 1; r < part.size(); ++r) CHECK(part[r] == all[r + 2]);
  using Ranges = std::vector<std::pair<size_t, size_t>>;
  CHECK(parse_cell_ranges("7") == Ranges{{7, 7}});
  CHECK(parse_cell_ranges("0-3,7,9-12") == Ranges{{0, 3}, {7, 7}, {9, 12}});
  CHECK(format_cell_ranges({0, 1, 2, 3, 7, 9, 10, 11, 12}) == "0-3,7,9-12");
  CHECK(format_cell_ranges({}) == "");
  CHECK_THROWS_WITH(parse_cell_ranges("4-2"), Contains("ends before it starts"));
  CHECK_THROWS_WITH(parse_cell_ranges("a-2"), Contains("'a-2'"));
  CHECK_THROWS_WITH(parse_cell_ranges("1,,2"), Contains("'1,,2'"));
  CHECK_THROWS_WITH(parse_stale_rule("never"), Contains("'never'"));
}

// Replaces field `column` of data row `row` (1-based, as in parse_csv) in a CSV file.
void edit_field(const std::string& path, size_t row, const std::string& column,
                const std::string& value) {
  auto csv = parse_csv(slurp(path));
  size_t c = 0;
  while (csv[0][c] != column) ++c;
  csv[row][c] = value;
  std::string text;
  for (const auto& r : csv) {
    for (size_t k = 0; k < r.size(); ++k) {
      if (k != 0) text += ',';
      text += csv_field(r[k]);
    }
    text += "\n";
  }
  std::ofstream(path, std::ios::trunc) << text;
}

TEST_CASE("sweep: resume keeps only rows of this version and these trace bytes", "[sweep]") {
  TempDir dir;
  const Experiment ex = load(dir, eight_cells());
  std::ostringstream log;
  const std::string out = dir.file("r.csv");
  REQUIRE(run_experiment(ex, out, log, jobs(2)) == 0);
  const auto full = rows_of(out);
  SweepOptions o = jobs(2);
  o.resume = true;

  SECTION("a row from another version: refused by default, the file untouched") {
    edit_field(out, 3, "flashpq_version", "0.1.0");
    const std::string before = slurp(out);
    std::ostringstream l;
    CHECK_THROWS_WITH(run_experiment(ex, out, l, o),
                      Contains("1 rows are stale") && Contains("1 by FlashPQ 0.1.0") &&
                          Contains("first: cell 2") && Contains("--stale rerun"));
    CHECK(slurp(out) == before);
    o.stale = StaleRule::kRerun;
    REQUIRE(run_experiment(ex, out, l, o) == 0);
    CHECK_THAT(l.str(), Contains("7 finished rows kept") &&
                            Contains("1 stale rows to run again (1 by FlashPQ 0.1.0)"));
    CHECK(rows_of(out) == full);  // rerun, then sorted back into cell order
  }
  SECTION("--stale keep keeps the old row as the cell's") {
    edit_field(out, 3, "flashpq_version", "0.1.0");
    o.stale = StaleRule::kKeep;
    std::ostringstream l;
    REQUIRE(run_experiment(ex, out, l, o) == 0);
    CHECK_THAT(l.str(), Contains("8 finished rows kept (1 of them stale"));
    const auto kept = rows_of(out);
    REQUIRE(kept.size() == full.size());
    CHECK(kept[3] != full[3]);
    CHECK(kept[4] == full[4]);
  }
  SECTION("rows of other trace bytes are stale") {
    edit_field(out, 1, "trace_hash", "0123456789abcdef");
    edit_field(out, 8, "trace_hash", "0123456789abcdef");
    std::ostringstream l;
    CHECK_THROWS_WITH(run_experiment(ex, out, l, o), Contains("2 rows are stale") &&
                                                         Contains("2 on other trace bytes") &&
                                                         Contains("trace_hash 0123456789abcdef"));
    o.stale = StaleRule::kRerun;
    REQUIRE(run_experiment(ex, out, l, o) == 0);
    CHECK(rows_of(out) == full);
  }
  SECTION("missing rows in the middle: run, and the file sorted by cell") {
    auto lines = parse_csv(slurp(out));
    std::vector<std::string> raw;
    std::istringstream in(slurp(out));
    for (std::string l; std::getline(in, l);) raw.push_back(l);
    std::string cut;
    for (size_t r = 0; r < raw.size(); ++r) {
      if (r != 2 && r != 5) cut += raw[r] + "\n";  // cells 1 and 4 lost
    }
    std::ofstream(out, std::ios::trunc) << cut;
    std::ostringstream l;
    REQUIRE(run_experiment(ex, out, l, o) == 0);
    CHECK_THAT(l.str(), Contains("6 finished rows kept"));
    CHECK(rows_of(out) == full);
  }
}

TEST_CASE("sweep: the trace is summarised once and read back from the summary cache", "[sweep]") {
  TempDir dir;
  const Experiment ex = load(dir, eight_cells());
  SweepOptions o = jobs(2);
  o.summaries.enabled = true;
  o.summaries.dir = dir.file("summaries");
  std::ostringstream first, second;
  REQUIRE(run_experiment(ex, dir.file("a.csv"), first, o) == 0);
  CHECK_THAT(first.str(),
             Contains("flashpq: traces: 1 summarised (stored in " + dir.file("summaries") + ")\n"));
  REQUIRE(run_experiment(ex, dir.file("b.csv"), second, o) == 0);
  CHECK_THAT(second.str(), Contains("flashpq: traces: 1 read from the summary cache (" +
                                    dir.file("summaries") + ")\n"));
  CHECK(rows_of(dir.file("a.csv")) == rows_of(dir.file("b.csv")));
}

TEST_CASE("sweep: progress lines, plain and live", "[sweep]") {
  TempDir dir;
  const Experiment ex = load(dir, eight_cells());
  SweepOptions o = jobs(1);
  o.progress_seconds = 1e-6;  // a line at every wake-up
  std::ostringstream plain;
  REQUIRE(run_experiment(ex, dir.file("p.csv"), plain, o) == 0);
  CHECK_THAT(plain.str(), Contains("cells done, 0 failed") && Contains("req/s, elapsed"));
  CHECK(plain.str().find("\x1b[K") == std::string::npos);
  o.live_progress = true;
  std::ostringstream live;
  REQUIRE(run_experiment(ex, dir.file("l.csv"), live, o) == 0);
  CHECK_THAT(live.str(), Contains("\r\x1b[K"));
}

}  // namespace
}  // namespace flashpq::test_sweep

namespace flashpq::test_sweep {
namespace {

TEST_CASE("sweep: cells on a real device run alone, whatever --jobs says", "[sweep][block]") {
  // Four cells on one file device with 3 workers: run together, all but one would be refused
  // (the device is locked by the cell writing it), and their latencies would share the CPU.
  TempDir dir(scratch_dir());
  const std::string dev = dir.file("dev.img");
  const Experiment ex = load_experiment(
      dir.write("b.yaml",
                "name: b\ntrace: {format: generator, generator: device_io, op: write, io_size: "
                "64KiB, requests: 200}\nframework: {name: direct}\n"
                "device: {name: block, path: " +
                    dev +
                    ", capacity: 4MiB}\nmatrix:\n  trace.io_size: [4KiB, 16KiB, 64KiB, 256KiB]\n"),
      {});
  REQUIRE(ex.cells.size() == 4);
  SweepOptions o;
  o.jobs = 3;
  o.progress_seconds = 0;
  std::ostringstream log;
  CHECK(run_experiment(ex, dir.file("out.csv"), log, o) == 0);
  INFO(log.str());
  CHECK(log.str().find("FAILED") == std::string::npos);
}

}  // namespace
}  // namespace flashpq::test_sweep

namespace flashpq::test_sweep {
namespace {

TEST_CASE("sweep: a cell's progress counter ends at the requests it replayed", "[sweep]") {
  TempDir dir;
  const Experiment ex = load(dir, eight_cells());
  const TraceSummary summary = summarize_trace(ex.cells.front().trace);
  for (const size_t i : {size_t{0}, size_t{3}}) {  // exact on simflash, RIPQ on simflash
    std::atomic<uint64_t> progress{0};
    const ResultRow with = run_cell(ex.cells[i], summary, &progress);
    CHECK(progress.load() == summary.requests);
    const ResultRow without = run_cell(ex.cells[i], summary);
    for (size_t c = 0; c < with.size(); ++c) {  // counting changes no column but the clock
      if (with[c].name != "wall_seconds") CHECK(with[c].text == without[c].text);
    }
  }
}

}  // namespace
}  // namespace flashpq::test_sweep
