// tests/experiments/test_wall_runner.cpp — the wall-clock runner (experiments/run/
// wall_runner.h) on a file: pieces, overlaps, discards, open-loop arrivals (the same times as the
// simulated-time runner's for the same seed), the time limit and the warm-up.
#include <catch2/catch.hpp>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "devices/block/block_device.h"
#include "devices/simflash/simflash_device.h"
#include "experiments/run/simulated_runner.h"
#include "experiments/run/wall_runner.h"
#include "sim/timing.h"
#include "tests/block_test_util.h"
#include "tests/test_util.h"

namespace flashpq::test_wall_runner {
namespace {

using Catch::Contains;
using testing::block_config;
using testing::scratch_dir;
using testing::TempDir;

// ---------------------------------------------------------------------------------------------
// The wall-clock runner

std::vector<Request> pairs_write_then_read(uint64_t blocks, size_t n, uint32_t size,
                                           uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Request> r;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t key = rng() % blocks;
    r.push_back({0, key, size, Op::kSet});
    r.push_back({0, key, size, Op::kGet});
  }
  return r;
}

TEST_CASE(
    "run_wall: a read waits for the write in flight to its blocks (verify would see a "
    "stale generation)",
    "[block][wall]") {
  TempDir dir(scratch_dir());
  const std::string path = dir.file("dev.img");
  auto engine = GENERATE(IoEngineKind::kIoUring, IoEngineKind::kPsync);
  BlockConfig c = block_config(path, 8 << 20, true, engine);
  c.queue_depth = 32;
  BlockDevice dev(c);
  const uint32_t size = 16 << 10;
  dev.write(0, 8 << 20);  // generation 1 everywhere: a read that overtakes sees it, and fails
  const auto reqs = pairs_write_then_read((8 << 20) / size, 300, size, 3);
  TimingConfig t;
  t.clients = 32;
  WallOptions o;
  o.offset_unit_bytes = size;
  const WallResult r = run_wall(dev, t, std::span<const Request>(reqs), 0, o);
  CHECK(r.timing.requests == reqs.size());
  CHECK(r.requests_issued == reqs.size());
  // Every read had to wait for its write (io_uring), and every block read was checked.
  // (More than 300 when two pairs drew the same block.)
  if (engine == IoEngineKind::kIoUring) CHECK(r.overlap_waits >= 300);
  CHECK(dev.verify_counters().blocks_checked == 300u * size / dev.logical_block_bytes());
  CHECK(r.timing.bytes == uint64_t{600} * size);
  CHECK(r.timing.read.count() == 300);
  CHECK(r.timing.write.count() == 300);
  CHECK(r.timing.all.count() == 600);
  CHECK(r.clat.count() == 600);
  CHECK(r.clat.min_ns() <= r.timing.all.max_ns());
  CHECK(dev.counters().writes == 301);
  CHECK(dev.counters().reads == 300);
  CHECK(dev.in_flight() == 0);
}

TEST_CASE("run_wall: requests longer than max_io_bytes go as pieces and complete once",
          "[block][wall]") {
  TempDir dir(scratch_dir());
  const std::string path = dir.file("dev.img");
  BlockDevice dev(block_config(path, 8 << 20));  // 8 slots of 64 KiB
  std::vector<Request> reqs;
  for (uint64_t k = 0; k < 8; ++k) reqs.push_back({0, k, 1 << 20, Op::kSet});  // 16 pieces each
  for (uint64_t k = 0; k < 8; ++k) reqs.push_back({0, 7 - k, 1 << 20, Op::kGet});
  TimingConfig t;
  t.clients = 4;
  WallOptions o;
  o.offset_unit_bytes = 1 << 20;
  const WallResult r = run_wall(dev, t, std::span<const Request>(reqs), 4, o);
  CHECK(r.timing.requests == 12);  // 4 in the warm-up
  CHECK(r.timing.bytes == uint64_t{12} << 20);
  CHECK(dev.counters().writes == 8);
  CHECK(dev.counters().write_bytes == uint64_t{8} << 20);
  CHECK(dev.verify_counters().blocks_checked == (8u << 20) / dev.logical_block_bytes());
}

TEST_CASE("run_wall: a misaligned request anywhere in a span fails before the first I/O",
          "[block][wall]") {
  TempDir dir(scratch_dir());
  if (testing::on_tmpfs(dir.path())) {
    WARN("skipped: the scratch directory is on tmpfs");
    return;
  }
  const std::string path = dir.file("dev.img");
  BlockDevice dev(block_config(path, 1 << 20));
  const uint32_t lbs = dev.logical_block_bytes();
  std::vector<Request> reqs(100, Request{0, 1, lbs, Op::kSet});
  reqs[99].size_bytes = lbs + lbs / 2;
  TimingConfig t;
  WallOptions o;
  o.offset_unit_bytes = lbs;
  CHECK_THROWS_WITH(run_wall(dev, t, std::span<const Request>(reqs), 0, o),
                    Contains("request 99") && Contains("not aligned"));
  CHECK(dev.counters().writes == 0);
  reqs[99].size_bytes = lbs;
  reqs[50].key = (1 << 20) / lbs;  // one block past the end
  CHECK_THROWS_WITH(run_wall(dev, t, std::span<const Request>(reqs), 0, o),
                    Contains("request 50") && Contains("past the capacity"));
  CHECK(dev.counters().writes == 0);
}

TEST_CASE("run_wall: deletes discard, and only once nothing overlapping is in flight",
          "[block][wall][discard]") {
  TempDir dir(scratch_dir());
  const std::string path = dir.file("dev.img");
  BlockConfig c = block_config(path, 4 << 20);
  c.queue_depth = 16;
  BlockDevice dev(c);
  const uint32_t size = 64 << 10;
  std::vector<Request> reqs;
  for (uint64_t k = 0; k < 64; ++k) reqs.push_back({0, k, size, Op::kSet});
  for (uint64_t k = 0; k < 32; ++k) reqs.push_back({0, k, size, Op::kDelete});
  for (uint64_t k = 0; k < 64; ++k) reqs.push_back({0, k, size, Op::kGet});
  TimingConfig t;
  t.clients = 16;
  WallOptions o;
  o.offset_unit_bytes = size;
  const WallResult r = run_wall(dev, t, std::span<const Request>(reqs), 0, o);
  CHECK(r.timing.requests == 160);
  CHECK(r.timing.bytes == uint64_t{128} * size);  // reads and writes; discards carry none
  CHECK(dev.counters().trims == 32);
  CHECK(dev.counters().trimmed_bytes == uint64_t{32} * size);
  const uint32_t lbs = dev.logical_block_bytes();
  CHECK(dev.verify_counters().blocks_unchecked == 32u * size / lbs);
  CHECK(dev.verify_counters().blocks_checked == 32u * size / lbs);
  CHECK(testing::allocated_blocks(path) <= (2u << 20) / 512 + 64);
}

TEST_CASE("run_wall: open-loop arrivals are never earlier than scheduled", "[block][wall]") {
  TempDir dir(scratch_dir());
  const std::string path = dir.file("dev.img");
  BlockDevice dev(block_config(path, 1 << 20, false));
  const uint32_t lbs = dev.logical_block_bytes();
  std::vector<Request> reqs;
  for (uint64_t k = 0; k < 50; ++k) reqs.push_back({k * 1'000'000, k, lbs, Op::kGet});
  WallOptions o;
  o.offset_unit_bytes = lbs;
  o.seed = 9;
  TimingConfig t;
  SECTION("constant: 50 requests at 5000/s span at least 49 × 200 µs") {
    t.arrival = ArrivalProcess::kConstant;
    t.rate_rps = 5000;
    const WallResult r = run_wall(dev, t, std::span<const Request>(reqs), 0, o);
    CHECK(r.timing.requests == 50);
    CHECK(r.timing.interval_ns >= 49u * 200'000u);
  }
  SECTION("trace: timestamps 1 ms apart, time_scale 0.5, span at least 49 × 0.5 ms") {
    t.arrival = ArrivalProcess::kTrace;
    t.time_scale = 0.5;
    const WallResult r = run_wall(dev, t, std::span<const Request>(reqs), 0, o);
    CHECK(r.timing.interval_ns >= 49u * 500'000u);
  }
  SECTION("poisson: at least the sum of the seeded exponential gaps") {
    t.arrival = ArrivalProcess::kPoisson;
    t.rate_rps = 20000;
    std::mt19937_64 rng(9);
    std::exponential_distribution<double> gap(20000 / 1e9);
    double last = 0;
    for (int i = 0; i < 49; ++i) last += gap(rng);
    const WallResult r = run_wall(dev, t, std::span<const Request>(reqs), 0, o);
    CHECK(static_cast<double>(r.timing.interval_ns) >= std::floor(last));
  }
  SECTION("closed loop with think time: one client spans at least 49 think times") {
    t.clients = 1;
    t.think_time_ns = 100'000;
    const WallResult r = run_wall(dev, t, std::span<const Request>(reqs), 0, o);
    CHECK(r.timing.interval_ns >= 49u * 100'000u);
  }
}

TEST_CASE("run_wall: max_seconds stops an endless source -- the warm-up is not measured",
          "[block][wall]") {
  TempDir dir(scratch_dir());
  const std::string path = dir.file("dev.img");
  BlockDevice dev(block_config(path, 1 << 20, false));
  struct Endless {
    uint64_t i = 0;
    uint32_t size;
    bool next(Request& r) {
      r = {0, i++ % 64, size, Op::kGet};
      return true;
    }
  } src{0, dev.logical_block_bytes()};
  TimingConfig t;
  t.clients = 4;
  WallOptions o;
  o.offset_unit_bytes = dev.logical_block_bytes();
  o.max_seconds = 0.05;
  const WallResult r = run_wall(dev, t, src, 10, o);
  CHECK(r.stopped_by_time);
  CHECK(r.requests_issued == src.i);
  CHECK(r.timing.requests == r.requests_issued - 10);
  CHECK(dev.counters().reads == r.requests_issued);
}

TEST_CASE("open-loop arrivals: the wall clock and simulated time give a seed the same times",
          "[block][wall][arrivals]") {
  // One arrival process (sim/arrivals.h) for both runners: the same requests, timing and seed
  // arrive at the same ns offsets on the wall clock (from the run's start) and in simulated time.
  TempDir dir(scratch_dir());
  BlockDevice file(block_config(dir.file("dev.img"), 1 << 20));
  SimFlashDevice flash(simflash_profile("tiny"));
  std::vector<Request> reqs;
  for (uint64_t i = 0; i < 300; ++i) {
    // Reads of 4 KiB pages, with trace timestamps 0, 7, 14, … µs (and one out of order).
    reqs.push_back(Request{i == 150 ? 0 : i * 7000, i % 64, 4096, Op::kGet});
  }
  for (const ArrivalProcess process :
       {ArrivalProcess::kPoisson, ArrivalProcess::kConstant, ArrivalProcess::kTrace}) {
    INFO("arrival " << arrival_process_name(process));
    TimingConfig t;
    t.arrival = process;
    t.rate_rps = 50'000;  // 300 requests in about 6 ms of wall time
    t.time_scale = 0.5;
    const uint64_t seed = 11;
    std::vector<uint64_t> wall(reqs.size()), simulated(reqs.size());
    WallOptions o;
    o.offset_unit_bytes = 4096;
    o.seed = seed;
    SpanSource wall_source(reqs);
    t.mode = TimingMode::kWall;
    run_wall(
        file, t, wall_source, 0, o, [] {},
        [&](uint64_t i, uint64_t arrival, uint64_t) { wall[i] = arrival; });
    SpanSource sim_source(reqs);
    t.mode = TimingMode::kSimulated;
    run_timed(
        flash, t, 0, seed, sim_source,
        [&](const Request& r, uint64_t) { flash.read(r.key * 4096, r.size_bytes); },
        [&](uint64_t i, uint64_t arrival, uint64_t) { simulated[i] = arrival; });
    CHECK(wall == simulated);
    // Never decreasing, and not all alike.
    CHECK(std::is_sorted(wall.begin(), wall.end()));
    CHECK(wall.back() > wall.front());
  }
}

}  // namespace
}  // namespace flashpq::test_wall_runner
