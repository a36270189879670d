// Tests of devices/fixed_latency: the device with a clock of its own that the extending guide
// shows. Its latencies are the formula's (devices/fixed_latency/fixed_latency_device.h); the
// simulated runner times it as it times simflash, chosen by its declared clock; a cache's
// decisions on it are the functional run's.
#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "devices/device.h"
#include "devices/fixed_latency/fixed_latency_device.h"
#include "experiments/experiment.h"
#include "tests/cell_test_util.h"

namespace flashpq::test_fixed_latency {
namespace {

using testing::num;
using testing::RowMap;
using testing::run_one;

}  // namespace

TEST_CASE("fixed_latency declares a simulated clock and the runners time it by that",
          "[devices][fixed_latency]") {
  CHECK(device_type("fixed_latency").clock == DeviceClock::kSimulated);
  CHECK(device_type("fixed_latency").service_model != nullptr);
  CHECK(device_type("simflash").clock == DeviceClock::kSimulated);
  CHECK(device_type("block").clock == DeviceClock::kWall);
  CHECK(device_type("null").clock == DeviceClock::kFunctional);
  CHECK(device_names_with_clock(DeviceClock::kSimulated) ==
        std::vector<std::string>{"simflash", "fixed_latency"});
  // A device without a simulated clock is refused for timing.mode simulated, naming those with
  // one.
  testing::TempDir dir;
  CHECK_THROWS_WITH(
      load_experiment(dir.write("e.yaml",
                                "trace: {format: generator, generator: zipf, requests: 10}\n"
                                "cache: {capacity: 1MiB}\ntiming: {mode: simulated}\n"),
                      {}),
      Catch::Contains("timing.mode simulated needs device simflash or fixed_latency"));
}

TEST_CASE("fixed_latency: one client's writes take latency + size / bandwidth each",
          "[devices][fixed_latency]") {
  // 4 KiB writes, one at a time: 4096 B / 500 MiB/s = 7812.5 ns (7813 rounded) + 100 us. The
  // sequential fill of the 1 MiB device is the warm-up.
  const RowMap r = run_one(
      "trace: {format: generator, generator: device_io, io_size: 4KiB, requests: 2000}\n"
      "framework: {name: direct}\n"
      "device: {name: fixed_latency, capacity: 1MiB, write_latency_us: 100, "
      "write_bandwidth_mib_s: 500}\n"
      "timing: {mode: simulated, arrival: closed_loop, clients: 1}\n");
  REQUIRE(r.count("error") == 0);
  const double per_request_us = 107.813;
  CHECK(num(r, "latency_mean_us") == Approx(per_request_us).epsilon(1e-4));
  CHECK(num(r, "latency_p50_us") == Approx(per_request_us).epsilon(0.02));
  CHECK(num(r, "throughput_rps") == Approx(1e6 / per_request_us).epsilon(1e-3));
  CHECK(num(r, "device_writes") == 2000);
  // Four clients: the FIFO server is the bottleneck only for its transfers (7.8 us each), the
  // latency overlaps: each request still takes about latency + one transfer, and four times
  // the throughput.
  const RowMap four = run_one(
      "trace: {format: generator, generator: device_io, io_size: 4KiB, requests: 2000}\n"
      "framework: {name: direct}\n"
      "device: {name: fixed_latency, capacity: 1MiB, write_latency_us: 100, "
      "write_bandwidth_mib_s: 500}\n"
      "timing: {mode: simulated, arrival: closed_loop, clients: 4}\n");
  CHECK(num(four, "throughput_rps") == Approx(4 * num(r, "throughput_rps")).epsilon(0.01));
}

TEST_CASE("fixed_latency: a cache on it decides as on the null device, and is timed",
          "[devices][fixed_latency]") {
  const std::string body =
      "trace:\n  format: generator\n  generator: zipf\n  objects: 5000\n  alpha: 0.9\n"
      "  requests: 40000\n  size: 1000\ncache: {capacity: 1MiB}\npolicy: {name: lru}\n"
      "framework: {name: ripq, block_size: 64KiB}\n";
  const RowMap functional = run_one(body + "device: {name: \"null\"}\n");
  const RowMap timed = run_one(body +
                               "device: {name: fixed_latency, read_latency_us: 80}\n"
                               "timing: {mode: simulated, arrival: closed_loop, clients: 8}\n");
  REQUIRE(timed.count("error") == 0);
  for (const char* k : {"object_hit_ratio", "host_bytes_written", "device_reads", "evictions"}) {
    INFO(k);
    CHECK(timed.at(k) == functional.at(k));
  }
  // A hit on flash reads its object (framework.read_hits): 80 us and a transfer; a block
  // written on a miss is 100 us and its transfer; a hit in RIPQ's DRAM buffer takes no time.
  CHECK(num(timed, "read_latency_p99_us") >= 80);
  CHECK(num(timed, "latency_mean_us") > 0);
  CHECK(num(timed, "throughput_rps") > 0);
  CHECK(functional.count("latency_p50_us") == 0);
}

}  // namespace flashpq::test_fixed_latency
