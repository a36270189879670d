// Tests of Zoned Namespaces in simflash (devices/simflash/ftl.h "Zoned Namespaces"): the zone
// state machine and its NVMe statuses worked by hand, device-level WA 1 by construction, resets
// as erases, the keys and their errors, and the Device seam's zone operations.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "devices/device.h"
#include "devices/null_device.h"
#include "devices/simflash/flash_timing.h"
#include "devices/simflash/ftl.h"
#include "devices/simflash/simflash_config.h"
#include "devices/simflash/simflash_device.h"
#include "engine/framework.h"
#include "policies/registry.h"
#include "sim/des.h"
#include "sim/rng.h"
#include "tests/test_util.h"

namespace flashpq::test_zns {
namespace {

using Catch::Contains;

// The tiny profile: 4 lanes (2 channels × 2 dies × 1 plane) × 16 pages = 64 pages (256 KiB) per
// superblock, 64 superblocks. Zones of `k` superblocks.
SimFlashConfig zoned(uint32_t k = 1, uint32_t max_open = 0, uint32_t max_active = 0) {
  SimFlashConfig c = simflash_profile("tiny");
  c.zns_zone_capacity_bytes = uint64_t{k} * c.superblock_bytes();
  c.zns_max_open_zones = max_open;
  c.zns_max_active_zones = max_active;
  return c;
}

// The NVMe status of the ZoneError `fn` throws (0 if it throws none).
template <class Fn>
uint16_t status_of(Fn&& fn) {
  try {
    fn();
  } catch (const ZoneError& e) {
    return e.status();
  }
  return 0;
}

TEST_CASE("ZNS: zones over the whole device, sequential writes, a reset erases what was written",
          "[simflash][zns]") {
  Ftl ftl(zoned(2));  // 32 zones of 128 pages
  REQUIRE(ftl.zoned());
  CHECK(ftl.zones() == 32);
  CHECK(ftl.zone_capacity_pages() == 128);
  CHECK(ftl.zone_size_pages() == 128);
  CHECK(ftl.logical_pages() == 64 * 64);  // no spare: every superblock is a zone's
  CHECK(ftl.free_superblocks() == 0);

  // Zone 3 written in three requests, then read below and above its write pointer.
  ftl.write_extent(3 * 128, 10);
  ftl.write_extent(3 * 128 + 10, 60);
  ftl.write(3 * 128 + 70);
  CHECK(ftl.zone_write_pointer(3) == 71);
  CHECK(ftl.zone_state(3) == ZoneState::kImplicitlyOpen);
  // Page p of zone z is page p mod 64 of superblock 2z + p div 64, lanes in order.
  CHECK(ftl.physical_page(3 * 128 + 70) == (6 + 1) * 64 + 6);
  CHECK(ftl.locate(ftl.physical_page(3 * 128 + 1)).channel == 1);
  ftl.read(3 * 128 + 70);
  ftl.read(3 * 128 + 71);
  CHECK(ftl.counters().nand_pages_read == 1);
  CHECK(ftl.counters().host_pages_read_unmapped == 1);
  ftl.check_invariants();

  // Filled to its capacity, the zone is full and leaves the open and active counts.
  ftl.write_extent(3 * 128 + 71, 57);
  CHECK(ftl.zone_state(3) == ZoneState::kFull);
  CHECK(ftl.open_zones() == 0);
  CHECK(ftl.active_zones() == 0);
  ftl.check_invariants();

  // A reset erases both superblocks (4 erase blocks each), unmaps every page.
  std::vector<FlashOp> log;
  ftl.set_op_log(&log);
  ftl.zone_reset(3);
  CHECK(ftl.zone_state(3) == ZoneState::kEmpty);
  CHECK(ftl.zone_write_pointer(3) == 0);
  CHECK(ftl.physical_page(3 * 128) == Ftl::kUnmapped);
  CHECK(ftl.counters().erases == 8);
  CHECK(ftl.counters().superblock_erases == 2);
  CHECK(ftl.counters().zone_resets == 1);
  CHECK(ftl.erase_count(6) == 1);
  CHECK(ftl.erase_count(7) == 1);
  REQUIRE(log.size() == 2);
  CHECK(log[0].kind == FlashOpKind::kErase);
  CHECK(log[0].cause == FlashOpCause::kHost);
  CHECK(log[0].target == 6);
  ftl.set_op_log(nullptr);
  // A zone that wrote into one superblock only erases that one; an empty zone's reset does
  // nothing and is not counted.
  ftl.write_extent(5 * 128, 3);
  ftl.zone_reset(5);
  ftl.zone_reset(5);
  CHECK(ftl.counters().superblock_erases == 3);
  CHECK(ftl.counters().zone_resets == 2);
  ftl.check_invariants();
}

TEST_CASE("ZNS: device-level WA is 1 at any use of the zones: no GC, every copy the host's",
          "[simflash][zns]") {
  // Random zones filled and reset, many device capacities over: NAND pages = host pages, no
  // GC, and erases = resets' superblocks; the page maps stay consistent.
  for (const uint32_t k : {1u, 4u}) {
    INFO("zone superblocks " << k);
    Ftl ftl(zoned(k));
    RngStream rng(3, 0);
    uint64_t written = 0, reset_sbs = 0;
    for (int step = 0; step < 20000; ++step) {
      const auto z = static_cast<uint32_t>(rng.below(ftl.zones()));
      const uint64_t wp = ftl.zone_write_pointer(z);
      if (ftl.zone_state(z) == ZoneState::kFull || rng.below(4) == 0) {
        reset_sbs += (wp + 63) / 64;
        ftl.zone_reset(z);
        continue;
      }
      const uint64_t n = 1 + rng.below(ftl.zone_capacity_pages() - wp);
      ftl.write_extent(uint64_t{z} * ftl.zone_size_pages() + wp, n);
      written += n;
    }
    const FtlCounters& c = ftl.counters();
    CHECK(written > 20 * ftl.logical_pages());
    CHECK(c.host_pages_written == written);
    CHECK(c.nand_pages_written == written);
    CHECK(c.wa_ftl() == 1.0);
    CHECK(c.gc_pages_copied == 0);
    CHECK(c.gc_runs == 0);
    CHECK(c.superblock_erases == reset_sbs);
    CHECK(c.erases == reset_sbs * 4);
    ftl.check_invariants();
  }
}

TEST_CASE("ZNS: writes off the write pointer, past the capacity or to a full zone are refused",
          "[simflash][zns]") {
  SimFlashConfig c = zoned(1);
  c.zns_zone_size_bytes = 2 * c.zns_zone_capacity_bytes;  // 64 writable pages of every 128
  Ftl ftl(c);
  CHECK(ftl.zone_size_pages() == 128);
  CHECK(ftl.logical_pages() == 64 * 128);
  ftl.write_extent(128, 8);
  // Zone Invalid Write (0xBC): ahead of or behind the write pointer, or in the gap past the
  // capacity.
  CHECK(status_of([&] { ftl.write_extent(128 + 9, 1); }) == 0xBC);
  CHECK(status_of([&] { ftl.write(128 + 7); }) == 0xBC);
  CHECK(status_of([&] { ftl.write(128 + 64); }) == 0xBC);
  // Zone Boundary Error (0xB8): the write runs past the capacity.
  CHECK(status_of([&] { ftl.write_extent(128 + 8, 57); }) == 0xB8);
  // Zone Is Full (0xB9), after a finish: the rest of the capacity is lost until a reset.
  ftl.zone_finish(1);
  CHECK(ftl.zone_state(1) == ZoneState::kFull);
  CHECK(ftl.counters().zone_finishes == 1);
  CHECK(status_of([&] { ftl.write(128 + 8); }) == 0xB9);
  // Nothing above changed the zone, and the message names the status, the zone and the pointer.
  CHECK(ftl.zone_write_pointer(1) == 8);
  CHECK(ftl.counters().host_pages_written == 8);
  CHECK_THROWS_WITH(ftl.write(128 + 8), Contains("Zone Is Full") && Contains("0xB9") &&
                                            Contains("zone 1") && Contains("write pointer at 136"));
  ftl.zone_reset(1);
  ftl.write_extent(128, 64);
  CHECK(ftl.zone_state(1) == ZoneState::kFull);
  ftl.check_invariants();
}

TEST_CASE("ZNS: the open limit closes the zone opened first, the active limit refuses",
          "[simflash][zns]") {
  // Worked by hand with at most 2 open and 3 active zones (QEMU's nvme_zrm_open: a write to a
  // zone not open, at the open limit, closes the first implicitly open zone).
  Ftl ftl(zoned(1, 2, 3));
  ftl.write(0 * 64);  // zone 0 open
  ftl.write(1 * 64);  // zone 1 open
  CHECK(ftl.open_zones() == 2);
  ftl.write(2 * 64);  // zone 2 opens; zone 0, opened first, is closed
  CHECK(ftl.zone_state(0) == ZoneState::kClosed);
  CHECK(ftl.zone_state(1) == ZoneState::kImplicitlyOpen);
  CHECK(ftl.zone_state(2) == ZoneState::kImplicitlyOpen);
  CHECK(ftl.counters().zone_implicit_closes == 1);
  CHECK(ftl.active_zones() == 3);
  // A fourth zone would be active: Too Many Active Zones (0xBD), and nothing is closed for it.
  CHECK(status_of([&] { ftl.write(3 * 64); }) == 0xBD);
  CHECK(ftl.zone_state(1) == ZoneState::kImplicitlyOpen);
  CHECK(ftl.counters().zone_implicit_closes == 1);
  // Writing closed zone 0 reopens it (active already) and closes zone 1, the first open now.
  ftl.write(0 * 64 + 1);
  CHECK(ftl.zone_state(0) == ZoneState::kImplicitlyOpen);
  CHECK(ftl.zone_state(1) == ZoneState::kClosed);
  CHECK(ftl.active_zones() == 3);
  // Finishing zone 1 frees an active zone: zone 3 opens, closing zone 2.
  ftl.zone_finish(1);
  CHECK(ftl.active_zones() == 2);
  ftl.write(3 * 64);
  CHECK(ftl.zone_state(2) == ZoneState::kClosed);
  CHECK(ftl.zone_state(3) == ZoneState::kImplicitlyOpen);
  CHECK(ftl.open_zones() == 2);
  CHECK(ftl.active_zones() == 3);
  ftl.check_invariants();
  // A reset frees a closed zone's active resource.
  ftl.zone_reset(2);
  CHECK(ftl.active_zones() == 2);
  ftl.check_invariants();
}

TEST_CASE("ZNS: zone append writes at the write pointer and says where", "[simflash][zns]") {
  Ftl ftl(zoned(1));
  CHECK(ftl.zone_append(7, 5) == 7 * 64);
  CHECK(ftl.zone_append(7, 3) == 7 * 64 + 5);
  CHECK(ftl.zone_write_pointer(7) == 8);
  CHECK(ftl.counters().zone_appends == 2);
  CHECK(status_of([&] { ftl.zone_append(7, 57); }) == 0xB8);
  CHECK_THROWS_AS(ftl.zone_append(64, 1), std::out_of_range);
  ftl.check_invariants();
}

TEST_CASE("ZNS through the Device seam: zone geometry, reset, finish, append, columns",
          "[simflash][zns]") {
  SimFlashDevice dev(zoned(2, 4, 8));
  const ZoneGeometry& g = dev.zone_geometry();
  REQUIRE(g.zoned());
  CHECK(g.zone_size_bytes == 512 * 1024);
  CHECK(g.zone_capacity_bytes == 512 * 1024);
  CHECK(g.zones == 32);
  CHECK(g.max_open_zones == 4);
  CHECK(g.max_active_zones == 8);
  CHECK(dev.capacity_bytes() == 16 * 1024 * 1024);
  dev.begin_measurement();
  dev.write(0, 512 * 1024);  // zone 0, whole
  CHECK(dev.zone_append(512 * 1024, 8192) == 512 * 1024);
  CHECK(dev.zone_append(512 * 1024, 4096) == 512 * 1024 + 8192);
  dev.zone_reset(0);
  dev.zone_finish(512 * 1024);
  CHECK(dev.counters().zone_resets == 1);
  CHECK(dev.counters().write_bytes == 512 * 1024 + 12288);
  CHECK_THROWS_AS(dev.write(512 * 1024 + 12288, 4096), ZoneError);
  CHECK_THROWS_WITH(dev.zone_reset(4096), Contains("zone's start") && Contains("524288"));
  std::map<std::string, std::string> cols;
  for (const Column& c : dev.columns(ReportContext{})) cols[c.name] = c.text;
  CHECK(cols.at("zone_resets") == "1");
  CHECK(cols.at("wa_ftl") == "1");
  CHECK(cols.at("gc_pages_copied") == "0");
  CHECK(cols.at("erases") == "8");
  // A device without zones refuses zone operations and leaves the column empty.
  NullDevice null;
  CHECK_FALSE(null.zone_geometry().zoned());
  CHECK_THROWS_WITH(null.zone_reset(0), Contains("no zones"));
  SimFlashDevice plain(simflash_profile("tiny"));
  for (const Column& c : plain.columns(ReportContext{})) {
    if (c.name == "zone_resets") CHECK(c.text.empty());
  }
}

TEST_CASE("ZNS keys: device.zns.* decoded, shown, and bad values named", "[simflash][zns]") {
  Params p;
  p.set("device.zns.zone_capacity", "512KiB");
  p.set("device.zns.max_open_zones", "14");
  const SimFlashConfig c = simflash_config(p, 1);
  CHECK(c.zoned());
  CHECK(c.zns_zone_capacity_bytes == 512 * 1024);
  CHECK(c.zone_size_bytes() == 512 * 1024);
  CHECK(c.zones() == 32);
  CHECK(c.zns_max_open_zones == 14);
  CHECK(c.exported_bytes() == c.physical_bytes());
  Params shown;
  show_simflash_config(c, shown);
  CHECK(shown.text("device.zns.zone_capacity") == "524288");
  CHECK(shown.text("device.zns.zone_size") == "524288");
  CHECK(shown.text("device.zns.max_active_zones") == "0");

  auto bad = [](const char* key, const char* value) {
    Params q;
    q.set("device.zns.zone_capacity", "256KiB");
    q.set(key, value);
    return q;
  };
  CHECK_THROWS_WITH(simflash_config(bad("device.zns.zone_capacity", "100KiB"), 1),
                    Contains("zns.zone_capacity") && Contains("whole number of superblocks") &&
                        Contains("262144"));
  CHECK_THROWS_WITH(simflash_config(bad("device.zns.zone_size", "128KiB"), 1),
                    Contains("zns.zone_size") && Contains("131072"));
  Params q = bad("device.zns.max_open_zones", "9");
  q.set("device.zns.max_active_zones", "8");
  CHECK_THROWS_WITH(simflash_config(q, 1), Contains("zns.max_open_zones") && Contains("9"));
  CHECK_THROWS_WITH(simflash_config(bad("device.fdp.handles", "2"), 1),
                    Contains("fdp.handles") && Contains("zoned"));
  CHECK_THROWS_WITH(simflash_config(bad("device.precondition", "true"), 1),
                    Contains("precondition") && Contains("zoned"));
  // 0 is "not zoned" (a matrix can sweep it); without zones the exported capacity is as before
  // the keys existed.
  Params off;
  off.set("device.zns.zone_capacity", "0");
  auto spec_of = [](const std::string& name) {
    for (const KeySpec& k : simflash_spec().keys) {
      if (k.name == name) return k;
    }
    FAIL("no key " << name);
    return KeySpec{};
  };
  CHECK_NOTHROW(check_value(spec_of("device.zns.zone_capacity"), "0"));
  CHECK_THROWS_WITH(check_value(spec_of("device.page_size"), "0"), Contains("at least 1 byte"));
  CHECK_FALSE(simflash_config(off, 1).zoned());
  CHECK_FALSE(simflash_config(Params{}, 1).zoned());
  CHECK(simflash_config(Params{}, 1).exported_bytes() == 12 * 1024 * 1024);
}

TEST_CASE("ZNS timed: a zone reset is a host erase on every die of the zone's superblock",
          "[simflash][zns][flash_timing]") {
  // The tiny profile's (MQSim's) timings: tPROG 750 µs, tBERS 3.8 ms, a 4 KiB page over
  // 333 MB/s in 12,300 ns (tests/devices/test_flash_timing.cpp).
  constexpr uint64_t kTprog = 750000, kTbers = 3800000, kXfer = 12300;
  const SimFlashConfig c = zoned(1);
  Ftl ftl(c);
  std::vector<FlashOp> log;
  ftl.set_op_log(&log);
  ftl.write(2 * 64);  // zone 2's page 0: superblock 2, channel 0, die 0
  ftl.zone_reset(2);
  REQUIRE(log.size() == 2);
  CHECK(log[1].kind == FlashOpKind::kErase);
  FlashTiming timing(c);
  EventQueue q;
  auto drain = [&] {
    std::vector<std::pair<uint32_t, uint64_t>> done;
    while (!q.empty()) {
      const Event e = q.pop();
      for (uint32_t tag : timing.handle(e, q)) done.emplace_back(tag, q.now());
    }
    return done;
  };
  REQUIRE(timing.submit(std::span(log).first(1), 1, q) == 1);
  CHECK(drain() == std::vector<std::pair<uint32_t, uint64_t>>{{1, kXfer + kTprog}});
  // The reset, issued once the write completed: tBERS on each of the 4 dies, no transfer.
  REQUIRE(timing.submit(std::span(log).subspan(1), 2, q) == 4);
  const auto done = drain();
  REQUIRE(done.size() == 4);
  for (const auto& d : done) CHECK(d == std::make_pair(2u, kXfer + kTprog + kTbers));
  CHECK(timing.counters().blocks_erased == 4);
  CHECK(timing.counters().transfers == 1);
}

// Requests of a Zipf(0.9) workload over `objects` keys of `size` bytes, seeded.
std::vector<Request> zipf_gets(uint64_t objects, uint64_t n, uint32_t size) {
  std::vector<Request> out;
  out.reserve(n);
  RngStream rng(11, 0);
  // Inverse-CDF sampling over a precomputed table: enough for a test's workload.
  std::vector<double> cdf(objects);
  double sum = 0;
  for (uint64_t k = 0; k < objects; ++k) cdf[k] = sum += 1.0 / std::pow(double(k + 1), 0.9);
  for (uint64_t i = 0; i < n; ++i) {
    const double u = rng.uniform() * sum;
    const uint64_t k = std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin();
    out.push_back(Request{0, k + 1, size, Op::kGet});
  }
  return out;
}

TEST_CASE("RIPQ and SIPQ on zones: a slot per zone, the same decisions, device WA 1",
          "[simflash][zns][frameworks]") {
  // 32 zones of one tiny superblock (256 KiB); the cache takes all of them, in blocks of one
  // zone. Zoned or not, the framework decides alike (hits, bytes written); zoned, no page is
  // ever copied by the device and every freed slot was a zone reset.
  const std::vector<Request> reqs = zipf_gets(20000, 100000, 4000);
  const uint64_t capacity = 32 * 262144;
  for (const FrameworkConfig& f :
       {testing::ripq_config(262144, 4, 2), testing::sipq_config(262144, 0.5)}) {
    INFO(f.name);
    SimFlashConfig plain_config = simflash_profile("tiny");
    plain_config.utilization = 0.5;  // exports 8 MiB: room for 32 blocks
    SimFlashDevice plain(plain_config);
    SimFlashDevice zoned_device(zoned(1));
    struct Run {
      uint64_t hits = 0;
    };
    Run runs[2];
    SimFlashDevice* devices[2] = {&plain, &zoned_device};
    for (int d = 0; d < 2; ++d) {
      testing::with_framework_among(
          TypeList<RipqFramework, SipqFramework>{}, f, testing::cache_config(capacity),
          LruPolicy(PolicyConfig{"lru", {}}), *devices[d], [&](auto& cache) {
            for (const Request& r : reqs) runs[d].hits += cache.access(r);
          });
    }
    CHECK(runs[0].hits == runs[1].hits);
    CHECK(runs[0].hits > 0);
    CHECK(plain.counters().write_bytes == zoned_device.counters().write_bytes);
    const FtlCounters& z = zoned_device.ftl().counters();
    CHECK(z.nand_pages_written == z.host_pages_written);
    CHECK(z.gc_pages_copied == 0);
    CHECK(z.host_pages_written * 4096 == zoned_device.counters().write_bytes);
    // Every block written after the first lap over the 32 zones reused a reset zone.
    const uint64_t blocks_written = zoned_device.counters().write_bytes / 262144;
    CHECK(blocks_written > 64);
    CHECK(z.zone_resets >= blocks_written - 32);
    CHECK(z.zone_resets <= blocks_written);
    CHECK(plain.counters().trims > 0);
    zoned_device.ftl().check_invariants();
  }
}

}  // namespace
}  // namespace flashpq::test_zns
