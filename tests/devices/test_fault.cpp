// tests/devices/test_fault.cpp — the fault layer (devices/fault.h): bad sectors fail every
// operation covering them, random errors at the configured rate from the cell's seeded stream,
// an injected write leaves the device as it was; in a sweep, the failing cell records the
// operation and byte offset and the others run with rows equal to a fault-free run; on a real
// path, a loop device over a file on a filesystem that fills up gives a genuine error (EIO or
// ENOSPC) with the offset.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "devices/block/block_device.h"
#include "devices/fault.h"
#include "devices/null_device.h"
#include "experiments/experiment.h"
#include "experiments/results.h"
#include "experiments/sweep.h"
#include "tests/block_test_util.h"
#include "tests/test_util.h"

namespace flashpq::test_fault {
namespace {

using Catch::Contains;
using testing::TempDir;

const std::string kTrace = FLASHPQ_SOURCE_DIR "/traces/data/adaptsize-request.oracleGeneral.zst";

FaultConfig offsets(std::vector<uint64_t> at) {
  FaultConfig c;
  c.at_offsets = std::move(at);
  return c;
}

TEST_CASE("fault: a bad sector fails every operation whose extent covers it, and only those",
          "[fault]") {
  FaultInjector f(offsets({8192}), "simflash", 1);
  CHECK_NOTHROW(f.check(FaultInjector::kRead, 0, 8192));       // ends right before it
  CHECK_NOTHROW(f.check(FaultInjector::kWrite, 12288, 4096));  // starts after it
  for (const auto op : {FaultInjector::kRead, FaultInjector::kWrite, FaultInjector::kTrim}) {
    try {
      f.check(op, 4096, 8192);  // [4096, 12288) covers 8192
      FAIL("no error");
    } catch (const DeviceIoError& e) {
      CHECK(e.offset() == 4096);
      CHECK_THAT(e.what(), Contains("device simflash: ") &&
                               Contains("of 8192 bytes at offset 4096: Input/output error") &&
                               Contains("a bad sector"));
    }
  }
  CHECK_THROWS_AS(f.check(FaultInjector::kRead, 8192, 4096), DeviceIoError);  // every time
  CHECK(f.injected() == 4);
}

TEST_CASE("fault: random errors come at the configured rate, the same for the same seed",
          "[fault]") {
  FaultConfig c;
  c.write_error_rate = 0.1;
  auto count = [&](uint64_t seed, std::vector<int>* which) {
    FaultInjector f(c, "x", seed);
    int n = 0;
    for (int i = 0; i < 100'000; ++i) {
      try {
        f.check(FaultInjector::kWrite, 0, 4096);
        f.check(FaultInjector::kRead, 0, 4096);  // rate 0: never, and draws nothing
        f.check(FaultInjector::kTrim, 0, 4096);  // never at random
      } catch (const DeviceIoError&) {
        ++n;
        if (which) which->push_back(i);
      }
    }
    return n;
  };
  std::vector<int> a, b, other;
  const int n = count(7, &a);
  // Binomial(100000, 0.1): mean 10000, sd 94.9; 5 sd either side.
  CHECK(std::abs(n - 10'000) < 475);
  count(7, &b);
  CHECK(a == b);
  count(8, &other);
  CHECK(a != other);
}

TEST_CASE("fault: device.fault.at_offsets reads offsets with units, and refuses what is not one",
          "[fault]") {
  Params p;
  p.set("device.fault.at_offsets", "1MiB, 0,4KiB");
  CHECK(fault_config(p).at_offsets == std::vector<uint64_t>{0, 4096, 1 << 20});
  CHECK_FALSE(FaultConfig{}.active());
  CHECK(fault_config(p).active());
  p.set("device.fault.at_offsets", "4KiB, sector 9");
  CHECK_THROWS_WITH(fault_config(p), Contains("key 'device.fault.at_offsets'") &&
                                         Contains("found '4KiB, sector 9'"));
}

TEST_CASE("fault: an injected error leaves the device as it was and is not counted", "[fault]") {
  NullDevice dev(1 << 20, 4096);
  FaultInjector f(offsets({4096}), "null", 1);
  dev.set_fault(&f);
  dev.write(0, 4096);
  CHECK_THROWS_AS(dev.write(0, 8192), DeviceIoError);
  CHECK_THROWS_AS(dev.read(4096, 4096), DeviceIoError);
  CHECK(dev.counters().writes == 1);
  CHECK(dev.counters().write_bytes == 4096);
  CHECK(dev.counters().reads == 0);
}

TEST_CASE("fault: in a sweep the failing cell records the operation and offset, the others run",
          "[fault]") {
  TempDir dir;
  // Three RIPQ cells on simflash; the second's device fails one write in a thousand.
  const std::string body = "trace: {path: " + kTrace +
                           "}\ncache: {capacity: 0.05}\npolicy: {name: lru}\n"
                           "framework: {name: ripq, block_size: 0.00390625}\n"
                           "device: {name: simflash, size_to_cache: true}\n";
  const Experiment ex =
      load_experiment(dir.write("f.yaml", "name: f\n" + body +
                                              "zip:\n  policy.name: [lru, fifo, slru]\n"
                                              "  device.fault.write_error_rate: [0, 0.001, 0]\n"),
                      {});
  const Experiment clean =
      load_experiment(dir.write("c.yaml", "name: f\n" + body +
                                              "zip:\n  policy.name: [lru, fifo, slru]\n"
                                              "  device.fault.write_error_rate: [0, 0, 0]\n"),
                      {});
  std::ostringstream log;
  CHECK(run_experiment(ex, dir.file("f.csv"), log) == 1);
  CHECK(run_experiment(clean, dir.file("c.csv"), log) == 0);
  const StoredResults faulty = read_results(dir.file("f.csv"));
  const StoredResults ok = read_results(dir.file("c.csv"));
  REQUIRE(faulty.rows.size() == 3);
  CHECK_FALSE(faulty.truncated_tail);
  const std::string error = faulty.rows[1].fields.at("error");
  CHECK_THAT(error, Contains("device simflash: write of ") && Contains(" bytes at offset ") &&
                        Contains("Input/output error (injected by device.fault: at random)"));
  for (const size_t r : {0, 2}) {
    INFO("row " << r);
    CHECK(faulty.rows[r].fields.at("error").empty());
    for (const char* c :
         {"object_hit_ratio", "wa_implementation", "wa_ftl", "host_bytes_written"}) {
      CHECK(faulty.rows[r].fields.at(c) == ok.rows[r].fields.at(c));
    }
  }
}

TEST_CASE("fault: a loop device over a file on a full filesystem gives a genuine error and offset",
          "[fault][block]") {
  FLASHPQ_REQUIRE_LOOP_DEVICES();
  TempDir dir(testing::scratch_dir());
  // A 4 MiB tmpfs holding a sparse 64 MiB file: writes past ~4 MiB of data find no space.
  const std::string small = (dir.path() / "small").string();
  const testing::TmpfsMount mount(small, "4m");
  REQUIRE(mount.mounted());
  const std::string file = testing::make_sparse_file(small + "/backing.img", 64 << 20);
  std::string error;
  {
    testing::LoopDevice loop(file);
    const Experiment ex = load_experiment(
        dir.write("l.yaml", "name: l\ntrace: {path: " + kTrace +
                                "}\ncache: {capacity: 32MiB}\npolicy: {name: lru}\n"
                                "framework: {name: ripq, block_size: 128KiB}\n"
                                "device: {name: block, path: " +
                                loop.path() + ", capacity: 64MiB}\ntiming: {mode: wall}\n"),
        {});
    std::ostringstream log;
    CHECK(run_experiment(ex, dir.file("l.csv"), log) == 1);
    const StoredResults rows = read_results(dir.file("l.csv"));
    REQUIRE(rows.rows.size() == 1);
    error = rows.rows[0].fields.at("error");
    INFO(error);
    // The loop driver passes the backing file's error on: EIO, or ENOSPC where the block
    // layer has BLK_STS_NOSPC (Linux 4.13 on).
    CHECK_THAT(error, Contains("write of ") && Contains(" bytes at offset ") &&
                          Contains("of " + loop.path() + ": ") &&
                          (Contains("Input/output error") || Contains("No space left on device")));
  }
}

}  // namespace
}  // namespace flashpq::test_fault
