// tests/devices/test_flash_timing.cpp — simflash timing (devices/simflash/flash_timing.h) and the
// timed runner (experiments/run/simulated_runner.h): hand-computed timelines of single operations,
// multi-plane commands and GC copies; closed- and open-loop runs with hand-computed latencies; and
// the three checks of docs/DESIGN.md "Time":
//   * one closed-loop client reading one page sees exactly tR + page / channel bandwidth;
//   * sequential writes reach min(channels × channel bandwidth, dies × planes × page / tPROG)
//     within 2 % (die-bound and channel-bound geometries);
//   * uniform random page writes at ρ = 0.9 sustain the sequential bandwidth ÷ the measured FTL
//     write amplification within 10 % — the shape of the RIPQ paper's Figure 2 (FAST'15 §3:
//     small random writes on Model A get a fraction of the sequential bandwidth). With Model A's
//     timings the GC reads (tR ≪ tPROG) and erases (tBERS per 128 pages) cost ~5 % on top.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "devices/simflash/flash_timing.h"
#include "devices/simflash/ftl.h"
#include "devices/simflash/simflash_config.h"
#include "devices/simflash/simflash_device.h"
#include "engine/request.h"
#include "experiments/run/simulated_runner.h"
#include "sim/des.h"
#include "sim/rng.h"
#include "sim/timing.h"

namespace flashpq::test_flash_timing {
namespace {

// The tiny profile's (MQSim's) timings in ns: tR 75 µs, tPROG 750 µs, tBERS 3.8 ms; a 4 KiB page
// over 333 MB/s (317.57 MiB/s) takes 4096 / 333e6 s = 12300.3 ns → 12300 ns.
constexpr uint64_t kTr = 75000, kTprog = 750000, kTbers = 3800000, kXfer = 12300;

SimFlashConfig geometry(uint32_t channels, uint32_t dies, uint32_t planes, uint32_t blocks,
                        uint32_t pages, double rho = 0.5) {
  SimFlashConfig c = simflash_profile("tiny");
  c.channels = channels;
  c.dies_per_channel = dies;
  c.planes_per_die = planes;
  c.blocks_per_plane = blocks;
  c.pages_per_block = pages;
  c.utilization = rho;
  return c;
}

// Physical page at (channel, die, plane, block, page) in the FTL's lane order (ftl.h).
uint32_t ppn_at(const SimFlashConfig& c, uint32_t ch, uint32_t die, uint32_t plane, uint32_t block,
                uint32_t page) {
  const uint32_t lane = ch + c.channels * (die + c.dies_per_channel * plane);
  return block * c.pages_per_superblock() + page * c.erase_blocks_per_superblock() + lane;
}

// Runs the events of `q` to the end; returns (tag, completion time) in completion order.
std::vector<std::pair<uint32_t, uint64_t>> drain(FlashTiming& ft, EventQueue& q) {
  std::vector<std::pair<uint32_t, uint64_t>> done;
  while (!q.empty()) {
    const Event e = q.pop();
    for (uint32_t tag : ft.handle(e, q)) done.emplace_back(tag, q.now());
  }
  return done;
}

FlashOp op(FlashOpKind kind, uint32_t target, FlashOpCause cause = FlashOpCause::kHost) {
  return FlashOp{kind, cause, target};
}

TimingConfig closed_loop(uint32_t clients, uint64_t think_ns = 0) {
  TimingConfig t;
  t.mode = TimingMode::kSimulated;
  t.arrival = ArrivalProcess::kClosedLoop;
  t.clients = clients;
  t.think_time_ns = think_ns;
  return t;
}

Request io(Op o, uint64_t offset, uint32_t bytes, uint64_t time_ns = 0) {
  Request r;
  r.op = o;
  r.key = offset;
  r.size_bytes = bytes;
  r.time_ns = time_ns;
  return r;
}

// The direct issue step: a get reads, a set writes, a delete trims `size_bytes` at byte `key`.
auto direct(SimFlashDevice& dev) {
  return [&dev](const Request& r, uint64_t) {
    if (r.op == Op::kGet) dev.read(r.key, r.size_bytes);
    if (r.op == Op::kSet) dev.write(r.key, r.size_bytes);
    if (r.op == Op::kDelete) dev.trim(r.key, r.size_bytes);
  };
}

struct Observed {
  uint64_t arrival = 0, completion = 0;
};

// ---------------------------------------------------------------------------------------------
// The model in isolation.

TEST_CASE("flash timing: durations derived from the config", "[flash_timing]") {
  FlashTiming ft(simflash_profile("tiny"));
  CHECK(ft.read_ns() == kTr);
  CHECK(ft.program_ns() == kTprog);
  CHECK(ft.erase_ns() == kTbers);
  CHECK(ft.transfer_ns() == kXfer);
  CHECK(ft.dies() == 4);
  CHECK(ft.channels() == 2);
  // model_a: 16 KiB over 333 MB/s = 49201.2 ns; FEMU: no channel time.
  CHECK(FlashTiming(simflash_profile("model_a")).transfer_ns() == 49201);
  CHECK(FlashTiming(simflash_profile("femu")).transfer_ns() == 0);
  SimFlashConfig bad = simflash_profile("tiny");
  bad.tR_us = -1;
  CHECK_THROWS_WITH(FlashTiming(bad), Catch::Contains("tR_us") && Catch::Contains("-1"));
}

TEST_CASE("flash timing: die, plane and page of every physical page agree with Ftl::locate",
          "[flash_timing]") {
  for (const SimFlashConfig& c : {geometry(3, 2, 2, 16, 5), geometry(2, 2, 2, 8, 4),
                                  geometry(1, 3, 4, 8, 3), simflash_profile("tiny")}) {
    Ftl ftl(c);
    FlashTiming ft(c);
    for (uint32_t ppn = 0; ppn < ftl.physical_pages(); ++ppn) {
      const FlashAddress a = ftl.locate(ppn);
      REQUIRE(ft.die_of(ppn) == a.channel + c.channels * a.die);
      REQUIRE(ft.plane_of(ppn) == a.plane);
      REQUIRE(ft.page_of(ppn) == a.page);
      REQUIRE(ft.channel_of_die(ft.die_of(ppn)) == a.channel);
      REQUIRE(ppn_at(c, a.channel, a.die, a.plane, a.block, a.page) == ppn);
    }
  }
}

TEST_CASE("flash timing: single operations on an idle device", "[flash_timing]") {
  const SimFlashConfig c = simflash_profile("tiny");  // 2 channels × 2 dies × 1 plane
  FlashTiming ft(c);
  EventQueue q;
  SECTION("read: tR, then the transfer") {
    const FlashOp ops[] = {op(FlashOpKind::kRead, ppn_at(c, 1, 1, 0, 3, 2))};
    REQUIRE(ft.submit(ops, 7, q) == 1);
    const auto done = drain(ft, q);
    REQUIRE(done.size() == 1);
    CHECK(done[0] == std::make_pair(7u, kTr + kXfer));
  }
  SECTION("program: the transfer, then tPROG") {
    const FlashOp ops[] = {op(FlashOpKind::kProgram, ppn_at(c, 0, 1, 0, 0, 0))};
    REQUIRE(ft.submit(ops, 3, q) == 1);
    CHECK(drain(ft, q) == std::vector<std::pair<uint32_t, uint64_t>>{{3, kXfer + kTprog}});
  }
  SECTION("erase: tBERS on every die at once, no transfer") {
    const FlashOp ops[] = {op(FlashOpKind::kErase, 5, FlashOpCause::kGc)};
    REQUIRE(ft.submit(ops, 1, q) == 4);
    const auto done = drain(ft, q);
    REQUIRE(done.size() == 4);
    for (const auto& d : done) CHECK(d == std::make_pair(1u, kTbers));
    CHECK(ft.counters().erase_commands == 4);
    CHECK(ft.counters().blocks_erased == 4);
    CHECK(ft.counters().transfers == 0);
  }
  SECTION("GC copy: read, out over the source channel, in over the destination's, program") {
    const FlashOp ops[] = {op(FlashOpKind::kRead, ppn_at(c, 0, 0, 0, 2, 1), FlashOpCause::kGc),
                           op(FlashOpKind::kProgram, ppn_at(c, 1, 1, 0, 9, 0), FlashOpCause::kGc)};
    REQUIRE(ft.submit(ops, 2, q) == 1);  // one job
    CHECK(drain(ft, q) ==
          std::vector<std::pair<uint32_t, uint64_t>>{{2, kTr + 2 * kXfer + kTprog}});
    CHECK(ft.counters().transfers == 2);
    CHECK(ft.counters().pages_read == 1);
    CHECK(ft.counters().pages_programmed == 1);
  }
  SECTION("nothing to do") {
    CHECK(ft.submit({}, 0, q) == 0);
    CHECK(q.empty());
  }
  CHECK(ft.jobs_in_flight() == 0);
}

TEST_CASE("flash timing: a channel is shared, dies run in parallel", "[flash_timing]") {
  const SimFlashConfig c = simflash_profile("tiny");
  FlashTiming ft(c);
  EventQueue q;
  SECTION("two dies on one channel: transfers serialize, programs overlap") {
    const FlashOp ops[] = {op(FlashOpKind::kProgram, ppn_at(c, 0, 0, 0, 0, 0)),
                           op(FlashOpKind::kProgram, ppn_at(c, 0, 1, 0, 0, 0))};
    ft.submit(ops, 0, q);
    CHECK(drain(ft, q) ==
          std::vector<std::pair<uint32_t, uint64_t>>{{0, kXfer + kTprog}, {0, 2 * kXfer + kTprog}});
    CHECK(ft.counters().die_busy_ns == 2 * kTprog);
    CHECK(ft.counters().channel_busy_ns == 2 * kXfer);
  }
  SECTION("one die: the second program waits for the die, its transfer does not") {
    const FlashOp ops[] = {op(FlashOpKind::kProgram, ppn_at(c, 1, 0, 0, 0, 0)),
                           op(FlashOpKind::kProgram, ppn_at(c, 1, 0, 0, 0, 1))};
    ft.submit(ops, 0, q);
    CHECK(drain(ft, q) ==
          std::vector<std::pair<uint32_t, uint64_t>>{{0, kXfer + kTprog}, {0, kXfer + 2 * kTprog}});
  }
  SECTION("reads on two channels finish together; on one channel their transfers queue") {
    const FlashOp ops[] = {op(FlashOpKind::kRead, ppn_at(c, 0, 0, 0, 0, 0)),
                           op(FlashOpKind::kRead, ppn_at(c, 1, 0, 0, 0, 0)),
                           op(FlashOpKind::kRead, ppn_at(c, 1, 1, 0, 0, 0))};
    ft.submit(ops, 0, q);
    const auto done = drain(ft, q);
    REQUIRE(done.size() == 3);
    CHECK(done[0].second == kTr + kXfer);
    CHECK(done[1].second == kTr + kXfer);
    CHECK(done[2].second == kTr + 2 * kXfer);
  }
}

TEST_CASE("flash timing: multi-plane commands gather one same-page operation per plane",
          "[flash_timing]") {
  const SimFlashConfig c = geometry(1, 1, 2, 8, 4);  // one die with two planes
  FlashTiming ft(c);
  EventQueue q;
  SECTION("programs: the die takes each plane's first queued page if the page index matches") {
    // Planes 0/1 of page 0, then of page 1, all transferred back to back. The die starts page 0
    // of plane 0 alone at x (idle); at x + T it takes plane 1 page 0, and the plane-0 page 1
    // behind it closes plane 0; at x + 2T pages 1 of both planes go together.
    const FlashOp ops[] = {op(FlashOpKind::kProgram, ppn_at(c, 0, 0, 0, 0, 0)),
                           op(FlashOpKind::kProgram, ppn_at(c, 0, 0, 1, 0, 0)),
                           op(FlashOpKind::kProgram, ppn_at(c, 0, 0, 0, 0, 1)),
                           op(FlashOpKind::kProgram, ppn_at(c, 0, 0, 1, 0, 1))};
    for (uint32_t tag = 0; tag < 4; ++tag) ft.submit(std::span(ops + tag, 1), tag, q);
    CHECK(drain(ft, q) == std::vector<std::pair<uint32_t, uint64_t>>{{0, kXfer + kTprog},
                                                                     {1, kXfer + 2 * kTprog},
                                                                     {2, kXfer + 3 * kTprog},
                                                                     {3, kXfer + 3 * kTprog}});
    CHECK(ft.counters().program_commands == 3);
    CHECK(ft.counters().multiplane_commands == 1);
    CHECK(ft.counters().pages_programmed == 4);
  }
  SECTION("reads queued behind a busy die go together; their transfers queue") {
    // An erase keeps the die busy; the two reads of page 2 (planes 0 and 1) then take one tR.
    const FlashOp ops[] = {op(FlashOpKind::kErase, 7, FlashOpCause::kGc),
                           op(FlashOpKind::kRead, ppn_at(c, 0, 0, 0, 3, 2)),
                           op(FlashOpKind::kRead, ppn_at(c, 0, 0, 1, 3, 2))};
    for (uint32_t tag = 0; tag < 3; ++tag) ft.submit(std::span(ops + tag, 1), tag, q);
    CHECK(drain(ft, q) ==
          std::vector<std::pair<uint32_t, uint64_t>>{
              {0, kTbers}, {1, kTbers + kTr + kXfer}, {2, kTbers + kTr + 2 * kXfer}});
    CHECK(ft.counters().read_commands == 1);
    CHECK(ft.counters().multiplane_commands == 2);  // the two-plane erase and the read
  }
  SECTION("different page indices do not combine") {
    const FlashOp ops[] = {op(FlashOpKind::kErase, 7, FlashOpCause::kGc),
                           op(FlashOpKind::kRead, ppn_at(c, 0, 0, 0, 3, 2)),
                           op(FlashOpKind::kRead, ppn_at(c, 0, 0, 1, 3, 1))};
    for (uint32_t tag = 0; tag < 3; ++tag) ft.submit(std::span(ops + tag, 1), tag, q);
    CHECK(drain(ft, q) ==
          std::vector<std::pair<uint32_t, uint64_t>>{
              {0, kTbers}, {1, kTbers + kTr + kXfer}, {2, kTbers + 2 * kTr + kXfer}});
  }
  SECTION("a read never jumps over an erase") {
    const FlashOp ops[] = {op(FlashOpKind::kErase, 7, FlashOpCause::kGc),
                           op(FlashOpKind::kRead, ppn_at(c, 0, 0, 0, 3, 2)),
                           op(FlashOpKind::kErase, 6, FlashOpCause::kGc),
                           op(FlashOpKind::kRead, ppn_at(c, 0, 0, 1, 3, 2))};
    for (uint32_t tag = 0; tag < 4; ++tag) ft.submit(std::span(ops + tag, 1), tag, q);
    CHECK(drain(ft, q) ==
          std::vector<std::pair<uint32_t, uint64_t>>{{0, kTbers},
                                                     {1, kTbers + kTr + kXfer},
                                                     {2, 2 * kTbers + kTr},
                                                     {3, 2 * kTbers + 2 * kTr + kXfer}});
  }
  SECTION("gathering passes over operations of another kind, as MQSim's scan does") {
    // Behind the erase, the die's queue holds: read (plane 1, page 0), program (plane 0,
    // page 0), read (plane 0, page 0). The first read takes the second with it, past the
    // program; the program follows.
    const FlashOp first[] = {op(FlashOpKind::kErase, 7, FlashOpCause::kGc),
                             op(FlashOpKind::kRead, ppn_at(c, 0, 0, 1, 2, 0)),
                             op(FlashOpKind::kProgram, ppn_at(c, 0, 0, 0, 1, 0))};
    for (uint32_t tag = 0; tag < 3; ++tag) ft.submit(std::span(first + tag, 1), tag, q);
    // The program reaches the die's queue when its transfer ends, at x; the last read after.
    const Event e = q.pop();
    REQUIRE(e.kind == EventKind::kChannelDone);
    REQUIRE(q.now() == kXfer);
    REQUIRE(ft.handle(e, q).empty());
    const FlashOp last[] = {op(FlashOpKind::kRead, ppn_at(c, 0, 0, 0, 2, 0))};
    ft.submit(last, 3, q);
    CHECK(drain(ft, q) == std::vector<std::pair<uint32_t, uint64_t>>{{0, kTbers},
                                                                     {1, kTbers + kTr + kXfer},
                                                                     {3, kTbers + kTr + 2 * kXfer},
                                                                     {2, kTbers + kTr + kTprog}});
    CHECK(ft.counters().multiplane_commands == 2);  // the erase and the reads
  }
}

// ---------------------------------------------------------------------------------------------
// The runner: arrivals, latencies, warm-up.

TEST_CASE("closed loop: one client reading one page sees exactly tR + page / bandwidth",
          "[flash_timing][runner]") {
  SimFlashDevice dev(simflash_profile("tiny"));
  dev.write(0, 4096);  // functional: the page is mapped; nothing is timed yet
  std::vector<Request> reqs(10, io(Op::kGet, 0, 4096));
  SpanSource src(reqs);
  std::vector<Observed> seen(reqs.size());
  const auto r = run_timed(dev, closed_loop(1), 0, 1, src, direct(dev),
                           [&](uint64_t i, uint64_t a, uint64_t c) {
                             seen[i] = {a, c};
                           });
  const uint64_t lat = kTr + kXfer;  // 87300 ns
  for (size_t i = 0; i < seen.size(); ++i) {
    CHECK(seen[i].arrival == i * lat);
    CHECK(seen[i].completion - seen[i].arrival == lat);
  }
  const TimingMetrics& m = r.metrics;
  CHECK(m.requests == 10);
  CHECK(m.bytes == 40960);
  CHECK(m.all.min_ns() == lat);
  CHECK(m.all.max_ns() == lat);
  CHECK(m.read.count() == 10);
  CHECK(m.write.count() == 0);
  CHECK(m.interval_ns == 10 * lat);
  CHECK(m.throughput_rps() == Approx(1e9 / lat));
  CHECK(r.requests == 10);
  CHECK(r.max_in_flight == 1);
  CHECK(r.events == 10 + 2 * 10 + 1);  // client wake-ups (one more at the end), die + channel
  CHECK(r.end_ns == 10 * lat);
  CHECK(r.flash.pages_read == 10);
}

TEST_CASE("closed loop: one client writing one page sees exactly the transfer + tPROG",
          "[flash_timing][runner]") {
  SimFlashDevice dev(simflash_profile("tiny"));
  std::vector<Request> reqs;
  for (uint64_t i = 0; i < 20; ++i) reqs.push_back(io(Op::kSet, i * 4096, 4096));
  SpanSource src(reqs);
  const auto r = run_timed(dev, closed_loop(1), 0, 1, src, direct(dev));
  CHECK(r.metrics.write.min_ns() == kXfer + kTprog);
  CHECK(r.metrics.write.max_ns() == kXfer + kTprog);
  CHECK(r.metrics.interval_ns == 20 * (kXfer + kTprog));
}

TEST_CASE("a request without NAND operations completes at its arrival", "[flash_timing][runner]") {
  SimFlashDevice dev(simflash_profile("tiny"));
  dev.write(4096, 4096);
  // Page 0 was never written (no NAND read), page 1 was; a TRIM has no NAND operation.
  std::vector<Request> reqs = {io(Op::kGet, 0, 4096), io(Op::kGet, 4096, 4096),
                               io(Op::kDelete, 8192, 4096), io(Op::kGet, 0, 4096)};
  SpanSource src(reqs);
  std::vector<Observed> seen(reqs.size());
  const auto r = run_timed(dev, closed_loop(1), 0, 1, src, direct(dev),
                           [&](uint64_t i, uint64_t a, uint64_t c) {
                             seen[i] = {a, c};
                           });
  CHECK(seen[0].arrival == 0);
  CHECK(seen[0].completion == 0);
  CHECK(seen[1].arrival == 0);
  CHECK(seen[1].completion == kTr + kXfer);
  CHECK(seen[2].arrival == kTr + kXfer);
  CHECK(seen[2].completion == kTr + kXfer);
  CHECK(seen[3].completion == kTr + kXfer);
  CHECK(r.metrics.all.count() == 4);
  CHECK(r.metrics.read.count() == 3);
  CHECK(r.metrics.all.min_ns() == 0);
}

TEST_CASE("closed loop: N clients never have more than N requests in flight",
          "[flash_timing][runner]") {
  const uint32_t n = GENERATE(1u, 4u, 13u);
  const uint64_t think = GENERATE(uint64_t{0}, uint64_t{5000});
  SimFlashDevice dev(simflash_profile("tiny"));
  const uint64_t pages = dev.capacity_bytes() / 4096;
  RngStream rng(3, 0);
  std::vector<Request> reqs;
  for (int i = 0; i < 3000; ++i) {
    reqs.push_back(io(rng.below(3) == 0 ? Op::kGet : Op::kSet, rng.below(pages) * 4096, 4096));
  }
  SpanSource src(reqs);
  std::vector<Observed> seen(reqs.size());
  const auto r = run_timed(dev, closed_loop(n, think), 0, 1, src, direct(dev),
                           [&](uint64_t i, uint64_t a, uint64_t c) {
                             seen[i] = {a, c};
                           });
  REQUIRE(r.requests == reqs.size());
  // Sweep: +1 at each arrival, −1 at each completion (completions first at equal times: a
  // client's next request may arrive at the instant its previous one completed).
  std::vector<std::pair<uint64_t, int>> points;
  for (const Observed& o : seen) {
    points.emplace_back(o.arrival, +1);
    points.emplace_back(o.completion, -1);
  }
  std::sort(points.begin(), points.end());
  int level = 0, peak = 0;
  for (const auto& [t, d] : points) peak = std::max(peak, level += d);
  CHECK(peak == static_cast<int>(n));
  CHECK(r.max_in_flight == n);
  // Requests n, n+1, … arrive think_time after the completions, in completion-time order.
  std::vector<uint64_t> completions, later_arrivals;
  for (const Observed& o : seen) completions.push_back(o.completion + think);
  std::sort(completions.begin(), completions.end());
  completions.resize(reqs.size() - n);
  for (size_t i = n; i < seen.size(); ++i) later_arrivals.push_back(seen[i].arrival);
  std::sort(later_arrivals.begin(), later_arrivals.end());
  CHECK(later_arrivals == completions);
  for (uint32_t i = 0; i < n; ++i) CHECK(seen[i].arrival == 0);
}

TEST_CASE("open loop: requests queue behind a busy die (hand-computed)", "[flash_timing][runner]") {
  // One channel, one die, one plane: reads of one page every 10 µs. The die reads back to back,
  // read i on [i·tR, (i+1)·tR]; the channel is free again before the next read ends (x < tR),
  // so request i completes at (i+1)·tR + x and waited (i+1)·tR + x − i·10 µs.
  SimFlashDevice dev(geometry(1, 1, 1, 16, 8));
  dev.write(0, 4096);
  std::vector<Request> reqs(50, io(Op::kGet, 0, 4096));
  SpanSource src(reqs);
  TimingConfig t;
  t.mode = TimingMode::kSimulated;
  t.arrival = ArrivalProcess::kConstant;
  t.rate_rps = 1e5;
  std::vector<Observed> seen(reqs.size());
  const auto r =
      run_timed(dev, t, 10, 1, src, direct(dev), [&](uint64_t i, uint64_t a, uint64_t c) {
        seen[i] = {a, c};
      });
  for (uint64_t i = 0; i < reqs.size(); ++i) {
    CHECK(seen[i].arrival == i * 10000);
    CHECK(seen[i].completion == (i + 1) * kTr + kXfer);
  }
  // Warm-up 10: requests 10..49 measured, from the arrival of request 10 to the last completion.
  CHECK(r.metrics.requests == 40);
  CHECK(r.metrics.interval_ns == 50 * kTr + kXfer - 10 * 10000);
  CHECK(r.metrics.all.min_ns() == 11 * kTr + kXfer - 100000);
  CHECK(r.metrics.all.max_ns() == 50 * kTr + kXfer - 490000);
  CHECK(r.max_in_flight > 1);
}

TEST_CASE("open loop: trace timestamps scaled, and an idle device serves each read alone",
          "[flash_timing][runner]") {
  SimFlashDevice dev(simflash_profile("tiny"));
  dev.write(0, 4096);
  const uint64_t ts[] = {7'000'000, 7'500'000, 9'000'000, 9'000'000};
  std::vector<Request> reqs;
  for (uint64_t t : ts) reqs.push_back(io(Op::kGet, 0, 4096, t));
  SpanSource src(reqs);
  TimingConfig t;
  t.mode = TimingMode::kSimulated;
  t.arrival = ArrivalProcess::kTrace;
  t.time_scale = 2.0;
  std::vector<Observed> seen(reqs.size());
  run_timed(dev, t, 0, 1, src, direct(dev), [&](uint64_t i, uint64_t a, uint64_t c) {
    seen[i] = {a, c};
  });
  const uint64_t arrivals[] = {0, 1'000'000, 4'000'000, 4'000'000};
  for (size_t i = 0; i < 4; ++i) CHECK(seen[i].arrival == arrivals[i]);
  CHECK(seen[0].completion == kTr + kXfer);
  CHECK(seen[1].completion == 1'000'000 + kTr + kXfer);
  CHECK(seen[2].completion == 4'000'000 + kTr + kXfer);
  CHECK(seen[3].completion == 4'000'000 + 2 * kTr + kXfer);  // same die: the second waits tR
}

TEST_CASE("timed runs are reproducible and reject a non-simulated mode", "[flash_timing][runner]") {
  auto once = [](uint64_t seed) {
    SimFlashDevice dev(simflash_profile("tiny"));
    const uint64_t pages = dev.capacity_bytes() / 4096;
    RngStream rng(11, 0);
    std::vector<Request> reqs;
    for (int i = 0; i < 5000; ++i) reqs.push_back(io(Op::kSet, rng.below(pages) * 4096, 4096));
    SpanSource src(reqs);
    TimingConfig t;
    t.mode = TimingMode::kSimulated;
    t.arrival = ArrivalProcess::kPoisson;
    t.rate_rps = 3000;
    return run_timed(dev, t, 100, seed, src, direct(dev));
  };
  const TimedRunResult a = once(5), b = once(5), c = once(6);
  CHECK(a.metrics.interval_ns == b.metrics.interval_ns);
  CHECK(a.events == b.events);
  CHECK(a.metrics.all.mean_ns() == b.metrics.all.mean_ns());
  bool same_buckets = true;
  for (size_t i = 0; i < LatencyHistogram::kBuckets; ++i) {
    same_buckets &= a.metrics.all.bucket_count(i) == b.metrics.all.bucket_count(i);
  }
  CHECK(same_buckets);
  CHECK(a.metrics.interval_ns != c.metrics.interval_ns);  // other arrival times

  SimFlashDevice dev(simflash_profile("tiny"));
  std::vector<Request> none;
  SpanSource src(none);
  TimingConfig t;  // mode none
  CHECK_THROWS_WITH(run_timed(dev, t, 0, 1, src, direct(dev)), Catch::Contains("simulated"));
}

// ---------------------------------------------------------------------------------------------
// Throughput (docs/DESIGN.md "Time").

// Closed loop of `clients`, one page per request, writes at the page offsets `pages` (in order);
// returns the result, with the FTL counters of the measured part in *ftl_measured.
SimFlashTimedRunResult write_run(SimFlashDevice& dev, const std::vector<uint64_t>& pages,
                                 uint32_t clients, uint64_t warmup,
                                 FtlCounters* ftl_measured = nullptr) {
  const uint32_t page = dev.logical_block_bytes();
  std::vector<Request> reqs;
  reqs.reserve(pages.size());
  for (uint64_t p : pages) reqs.push_back(io(Op::kSet, p * page, page));
  SpanSource src(reqs);
  FtlCounters at_warmup;
  auto issue = [&](const Request& r, uint64_t i) {
    if (i == warmup) at_warmup = dev.ftl().counters();
    dev.write(r.key, r.size_bytes);
  };
  SimFlashTimedRunResult res = run_timed(dev, closed_loop(clients), warmup, 1, src, issue);
  if (ftl_measured) *ftl_measured = dev.ftl().counters() - at_warmup;
  return res;
}

TEST_CASE("sequential writes reach min(channels × bandwidth, dies × planes × page / tPROG)",
          "[flash_timing][throughput]") {
  // 2 channels × 2 dies × 2 planes, 4 KiB pages, 131072 physical pages: 100,000 sequential
  // page writes fit in the erased superblocks (no GC, no erase), as on a fresh device.
  SimFlashConfig c = geometry(2, 2, 2, 256, 64, 0.9);
  std::vector<uint64_t> pages(100000);
  for (uint64_t i = 0; i < pages.size(); ++i) pages[i] = i;
  const double mib = 1024.0 * 1024.0;
  SECTION("die-bound: 8 planes × 4 KiB per 750 µs = 41.67 MiB/s < 2 × 317.57 MiB/s") {
    const double expected = 8 * 4096 / mib / 750e-6;
    CHECK(c.peak_write_mib_s() == Approx(expected));
    SimFlashDevice dev(c);
    const auto r = write_run(dev, pages, 64, 10000);
    INFO("measured " << r.metrics.throughput_mib_s() << " MiB/s, expected " << expected);
    CHECK(std::abs(r.metrics.throughput_mib_s() / expected - 1.0) < 0.02);
    CHECK(dev.ftl().counters().gc_runs == 0);
    // Saturated dies program both planes at once.
    CHECK(r.flash.pages_programmed == 100000);
    CHECK(r.flash.multiplane_commands > 0.95 * r.flash.program_commands);
  }
  SECTION("channel-bound: 2 channels × 10 MiB/s = 20 MiB/s < 41.67 MiB/s") {
    c.channel_bandwidth_mib_s = 10.0;
    const double expected = 2 * 10.0;
    CHECK(c.peak_write_mib_s() == Approx(expected));
    SimFlashDevice dev(c);
    const auto r = write_run(dev, pages, 64, 10000);
    INFO("measured " << r.metrics.throughput_mib_s() << " MiB/s, expected " << expected);
    CHECK(std::abs(r.metrics.throughput_mib_s() / expected - 1.0) < 0.02);
  }
  SECTION("die-bound, one plane, no channel time (FEMU): 4 dies × 4 KiB per 200 µs") {
    c = geometry(2, 2, 1, 512, 64, 0.9);
    c.tPROG_us = 200;
    c.channel_bandwidth_mib_s = 0;
    const double expected = 4 * 4096 / mib / 200e-6;
    CHECK(c.peak_write_mib_s() == Approx(expected));
    SimFlashDevice dev(c);
    const auto r = write_run(dev, pages, 16, 10000);
    INFO("measured " << r.metrics.throughput_mib_s() << " MiB/s, expected " << expected);
    CHECK(std::abs(r.metrics.throughput_mib_s() / expected - 1.0) < 0.02);
  }
}

TEST_CASE("random writes at rho = 0.9 sustain the sequential bandwidth / WA within 10 %",
          "[flash_timing][throughput][slow]") {
  // Model A's NAND (simflash_config.cpp: 16 KiB pages, 256 → here 128 pages per block, tR 75 µs,
  // tPROG 1695 µs, tBERS 3.8 ms, 333 MT/s channels) on 2 channels × 2 dies × 2 planes and 128
  // superblocks of 1024 pages, ρ = 0.9, greedy GC.
  SimFlashConfig c = simflash_profile("model_a");
  c.channels = 2;
  c.dies_per_channel = 2;
  c.planes_per_die = 2;
  c.blocks_per_plane = 128;
  c.pages_per_block = 128;
  c.utilization = 0.9;
  const double seq_mib_s = c.peak_write_mib_s();  // die-bound: 8 × 16 KiB / 1695 µs
  CHECK(seq_mib_s == Approx(8 * 16384 / 1048576.0 / 1695e-6));

  SimFlashDevice dev(c);
  const uint64_t exported = dev.ftl().logical_pages();
  // Functional preconditioning: a sequential fill, then 2 × the exported pages of uniform
  // random writes, so GC is in its steady state before anything is timed.
  for (uint64_t p = 0; p < exported; ++p) dev.ftl().write(p);
  RngStream rng(2024, 0);
  for (uint64_t i = 0; i < 2 * exported; ++i) dev.ftl().write(rng.below(exported));
  // Timed: 2 × exported uniform random page writes by 64 clients; the first 10 % warm the
  // queues up.
  std::vector<uint64_t> pages(2 * exported);
  for (uint64_t& p : pages) p = rng.below(exported);
  FtlCounters measured;
  const auto r = write_run(dev, pages, 64, pages.size() / 10, &measured);
  const double wa = measured.wa_ftl();
  INFO("pages per program command " << double(r.flash.pages_programmed) / r.flash.program_commands
                                    << ", per read command "
                                    << double(r.flash.pages_read) / r.flash.read_commands);
  const double expected = seq_mib_s / wa;
  INFO("WA " << wa << ", measured " << r.metrics.throughput_mib_s() << " MiB/s, sequential "
             << seq_mib_s << " MiB/s / WA = " << expected << " MiB/s");
  CHECK(wa > 3.0);  // the regime of the check: GC copies dominate
  CHECK(std::abs(r.metrics.throughput_mib_s() / expected - 1.0) < 0.10);
  // The GC reads and erases make it a little slower than programs alone would.
  CHECK(r.metrics.throughput_mib_s() < expected);
}

}  // namespace
}  // namespace flashpq::test_flash_timing
