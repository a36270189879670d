// tests/devices/test_host_ftl.cpp — the host FTL over a zoned simflash device
// (devices/host_ftl/host_ftl.h): a sequence worked by hand, a brute-force reference on random
// writes and TRIMs, the greedy mean-field model of write amplification (Van Houdt, SIGMETRICS'13,
// tests/devices/flash_models.h), a second implementation (simflash's own greedy
// FTL on the same flash), device-level WA 1, the keys and their errors, the columns.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "devices/device.h"
#include "devices/host_ftl/host_ftl.h"
#include "devices/simflash/ftl.h"
#include "devices/simflash/simflash_config.h"
#include "devices/simflash/simflash_device.h"
#include "tests/devices/flash_models.h"

namespace flashpq::test_host_ftl {
namespace {

using Catch::Contains;
using flash_models::Mix;
using flash_models::wa_greedy_meanfield;

constexpr uint64_t kPage = 4096;

// One lane (1 channel, 1 die, 1 plane): a superblock is one erase block of `pages` pages, and
// each zone one superblock.
SimFlashConfig zoned_flash(uint32_t zones, uint32_t pages) {
  SimFlashConfig c = simflash_profile("tiny");
  c.channels = 1;
  c.dies_per_channel = 1;
  c.planes_per_die = 1;
  c.pages_per_block = pages;
  c.blocks_per_plane = zones;
  c.page_size_bytes = kPage;
  c.zns_zone_capacity_bytes = uint64_t{pages} * kPage;
  return c;
}

std::unique_ptr<HostFtlDevice> host_ftl(uint32_t zones, uint32_t pages, double op_rate) {
  return std::make_unique<HostFtlDevice>(
      std::make_unique<SimFlashDevice>(zoned_flash(zones, pages)), op_rate);
}

const Ftl& ftl_of(const HostFtlDevice& d) {
  return static_cast<const SimFlashDevice&>(d.zoned()).ftl();
}

void write_page(Device& d, uint64_t lpn) {
  d.write(lpn * kPage, kPage);
}

TEST_CASE("host FTL: a sequence worked by hand — frontiers, greedy victims, copies, resets",
          "[host_ftl]") {
  // 5 zones of 4 pages, op_rate 0.6: 3 spare zones, 2 exposed (8 logical pages).
  auto d = host_ftl(5, 4, 0.6);
  REQUIRE(d->exposed_zones() == 2);
  REQUIRE(d->spare_zones() == 3);
  REQUIRE(d->capacity_bytes() == 8 * kPage);
  REQUIRE_FALSE(d->zone_geometry().zoned());  // the cache sees a conventional device

  // One 8-page write fills zone 0 (pages 0-3) then zone 1 (4-7): one device write per zone.
  d->write(0, 8 * kPage);
  CHECK(d->zoned().counters().writes == 2);
  for (uint32_t lpn = 0; lpn < 8; ++lpn) CHECK(d->physical_page(lpn) == lpn);
  // A read of all 8 pages is one read per zone: physical pages 3 and 4 are adjacent numbers
  // but in different zones.
  d->read(0, 8 * kPage);
  CHECK(d->zoned().counters().reads == 2);

  // Zone 2 takes 0, 4, 1, 5; zone 3 takes 2, 6, 0, 4 (free zones in index order).
  for (uint32_t lpn : {0u, 4u, 1u, 5u, 2u, 6u, 0u, 4u}) write_page(*d, lpn);
  CHECK(d->counters_host_ftl().pages_copied == 0);
  // Valid now: zone 0 {3}, zone 1 {7}, zone 2 {1, 5}, zone 3 {2, 6, 0, 4}; only zone 4 free.
  CHECK(d->zone_valid_pages(0) == 1);
  CHECK(d->zone_valid_pages(1) == 1);
  CHECK(d->zone_valid_pages(2) == 2);
  CHECK(d->zone_valid_pages(3) == 4);

  // The next write needs a zone with one free: collect zone 0 (1 valid, the lowest index of the
  // two with the fewest): lpn 3 is copied to zone 4, the GC frontier, and zone 0 reset. Still
  // one free zone: collect zone 1, lpn 7 to zone 4. Two free (0, 1): the host takes zone 0.
  write_page(*d, 1);
  CHECK(d->counters_host_ftl().pages_copied == 2);
  CHECK(d->counters_host_ftl().zones_reset == 2);
  CHECK(d->counters_host_ftl().host_pages_written == 17);
  const uint32_t expected[8] = {14, 0, 12, 16, 15, 11, 13, 17};  // zone × 4 + page
  for (uint32_t lpn = 0; lpn < 8; ++lpn) {
    INFO("lpn " << lpn);
    CHECK(d->physical_page(lpn) == expected[lpn]);
  }
  CHECK(d->zone_valid_pages(0) == 1);
  CHECK(d->zone_valid_pages(1) == 0);
  CHECK(d->zone_valid_pages(2) == 1);
  CHECK(d->zone_valid_pages(3) == 4);
  CHECK(d->zone_valid_pages(4) == 2);

  // The zoned device saw 19 page writes (17 + 2 copies), read each copy once, did no GC of its
  // own and erased the two reset zones: device-level WA 1, host-FTL WA 19/17.
  const Ftl& ftl = ftl_of(*d);
  CHECK(ftl.counters().host_pages_written == 19);
  CHECK(ftl.counters().nand_pages_written == 19);
  CHECK(ftl.counters().gc_pages_copied == 0);
  CHECK(ftl.counters().zone_resets == 2);
  CHECK(d->zoned().counters().reads == 2 + 2);
  CHECK(ftl.zone_write_pointer(4) == 2);
  CHECK(ftl.zone_write_pointer(0) == 1);

  // TRIM unmaps: the page reads nothing afterwards, and its zone holds one valid page fewer.
  d->trim(5 * kPage, kPage);
  CHECK(d->physical_page(5) == HostFtlDevice::kUnmapped);
  CHECK(d->zone_valid_pages(2) == 0);
  const uint64_t reads = d->zoned().counters().reads;
  d->read(5 * kPage, kPage);
  CHECK(d->zoned().counters().reads == reads);
  d->read(6 * kPage, 2 * kPage);  // 13 and 17: two zones, two reads
  CHECK(d->zoned().counters().reads == reads + 2);
}

// A second implementation, the plainest one: each zone a vector of logical pages (−1 invalid),
// the victim found by counting. Same rules as the file comment of host_ftl.h.
struct Reference {
  uint32_t zones, cap;
  std::vector<std::vector<int64_t>> z;
  std::vector<int64_t> where;  // lpn → zone·cap + page, or −1
  std::vector<uint32_t> free;  // FIFO
  int64_t host = -1, gc = -1;
  uint64_t copies = 0, resets = 0;
  Reference(uint32_t zones_, uint32_t cap_, uint64_t lpns)
      : zones(zones_), cap(cap_), z(zones_), where(lpns, -1) {
    for (uint32_t i = 0; i < zones; ++i) free.push_back(i);
  }
  uint32_t valid(uint32_t i) const {
    return uint32_t(std::count_if(z[i].begin(), z[i].end(), [](int64_t l) { return l >= 0; }));
  }
  void place(int64_t& frontier, int64_t lpn) {
    const auto zone = static_cast<uint32_t>(frontier);
    where[lpn] = int64_t{zone} * cap + int64_t(z[zone].size());
    z[zone].push_back(lpn);
  }
  void collect() {
    int64_t victim = -1;
    for (uint32_t i = 0; i < zones; ++i) {
      if (z[i].size() == cap && (victim < 0 || valid(i) < valid(uint32_t(victim)))) victim = i;
    }
    REQUIRE(victim >= 0);
    for (int64_t lpn : z[victim]) {
      if (lpn < 0) continue;
      if (gc < 0 || z[gc].size() == cap) {
        REQUIRE(!free.empty());
        gc = free.front();
        free.erase(free.begin());
      }
      place(gc, lpn);
      ++copies;
    }
    z[victim].clear();
    ++resets;
    free.push_back(uint32_t(victim));
    if (gc == victim) gc = -1;
    if (host == victim) host = -1;
  }
  void unmap(int64_t lpn) {
    if (where[lpn] >= 0) z[where[lpn] / cap][where[lpn] % cap] = -1;
    where[lpn] = -1;
  }
  // An extent: every old copy invalid first, then the pages in order.
  void write(int64_t lpn, int64_t len) {
    for (int64_t k = 0; k < len; ++k) unmap(lpn + k);
    for (int64_t k = 0; k < len; ++k) {
      if (host < 0 || z[host].size() == cap) {
        while (free.size() <= 1) collect();
        host = free.front();
        free.erase(free.begin());
      }
      place(host, lpn + k);
    }
  }
};

TEST_CASE("host FTL: random writes and TRIMs agree with a brute-force reference", "[host_ftl]") {
  // 12 zones of 8 pages, 3 spare (op_rate 0.25): 72 logical pages, written until every zone
  // was collected many times.
  auto d = host_ftl(12, 8, 0.25);
  REQUIRE(d->exposed_zones() == 9);
  const uint64_t lpns = d->capacity_bytes() / kPage;
  Reference ref(12, 8, lpns);
  Mix rng{7};
  for (int op = 0; op < 20000; ++op) {
    const uint64_t lpn = rng.below(lpns);
    const uint64_t len = std::min<uint64_t>(1 + rng.below(5), lpns - lpn);
    if (rng.below(10) == 0) {
      d->trim(lpn * kPage, len * kPage);
      for (uint64_t k = 0; k < len; ++k) ref.unmap(int64_t(lpn + k));
    } else {
      d->write(lpn * kPage, len * kPage);
      ref.write(int64_t(lpn), int64_t(len));
    }
  }
  CHECK(d->counters_host_ftl().pages_copied == ref.copies);
  CHECK(d->counters_host_ftl().zones_reset == ref.resets);
  CHECK(ref.resets > 500);
  for (uint64_t lpn = 0; lpn < lpns; ++lpn) {
    INFO("lpn " << lpn);
    const uint32_t ppn = d->physical_page(lpn);
    CHECK((ppn == HostFtlDevice::kUnmapped ? int64_t{-1} : int64_t{ppn}) == ref.where[lpn]);
  }
  for (uint32_t z = 0; z < 12; ++z) CHECK(d->zone_valid_pages(z) == ref.valid(z));
  // The zoned device agrees: every copy and host page written once, no GC of its own.
  const Ftl& ftl = ftl_of(*d);
  CHECK(ftl.counters().nand_pages_written ==
        d->counters_host_ftl().host_pages_written + d->counters_host_ftl().pages_copied);
  CHECK(ftl.counters().gc_pages_copied == 0);
}

struct RandomRun {
  double wa = 0;   // (host + copied) ÷ host pages, over the measurement
  double rho = 0;  // user pages ÷ mean pages in circulation (written since their zone's reset)
};

// Sequential fill, `warm` × the user pages of uniform random single-page writes, then
// `measure` × measured; the pages in circulation sampled every 64 writes.
RandomRun run_random(HostFtlDevice& d, double warm, double measure, uint64_t seed) {
  const uint64_t lpns = d.capacity_bytes() / kPage;
  d.write(0, lpns * kPage);
  Mix rng{seed};
  for (uint64_t i = 0; i < uint64_t(warm * lpns); ++i) write_page(d, rng.below(lpns));
  const HostFtlCounters before = d.counters_host_ftl();
  const Ftl& ftl = ftl_of(d);
  double circulating = 0;
  uint64_t samples = 0;
  for (uint64_t i = 0; i < uint64_t(measure * lpns); ++i) {
    write_page(d, rng.below(lpns));
    if (i % 64 == 0) {
      uint64_t pages = 0;
      for (uint32_t z = 0; z < ftl.zones(); ++z) pages += ftl.zone_write_pointer(z);
      circulating += double(pages);
      ++samples;
    }
  }
  const HostFtlCounters& after = d.counters_host_ftl();
  const double host = double(after.host_pages_written - before.host_pages_written);
  const double copied = double(after.pages_copied - before.pages_copied);
  return RandomRun{(host + copied) / host, double(lpns) / (circulating / double(samples))};
}

TEST_CASE("host FTL: WA of uniform random writes matches the greedy mean-field model",
          "[host_ftl]") {
  // 1024 zones of 32 pages; the spare share 1 − ρ. Errors printed (within 1 % here).
  for (double op_rate : {0.1, 0.2, 0.3}) {
    auto d = host_ftl(1024, 32, op_rate);
    const RandomRun r = run_random(*d, 4.0, 4.0, 21);
    const double model = wa_greedy_meanfield(r.rho, 32);
    std::printf("  host FTL greedy b=32 op_rate %.2f: rho %.4f  WA %.4f  model %.4f  err %+.2f%%\n",
                op_rate, r.rho, r.wa, model, 100.0 * (r.wa / model - 1.0));
    CHECK(r.wa == Approx(model).epsilon(0.02));
    CHECK(ftl_of(*d).counters().gc_pages_copied == 0);  // the zoned device never collects
  }
}

TEST_CASE("host FTL: the same WA as simflash's own greedy FTL on the same flash", "[host_ftl]") {
  // A second implementation of one design: the conventional simflash device, greedy, a separate
  // GC frontier, a superblock of 32 pages where the zone is, the same exported pages (ρ =
  // 0.8), the same random pages: WA within 1 %.
  auto d = host_ftl(1024, 32, 0.2);
  const RandomRun zoned = run_random(*d, 4.0, 4.0, 5);

  SimFlashConfig c = zoned_flash(1024, 32);
  c.zns_zone_capacity_bytes = 0;
  c.utilization = double(d->exposed_zones()) / 1024.0;
  c.gc_policy = GcPolicy::kGreedy;
  c.gc_stream = GcStream::kSeparate;
  c.gc_low_watermark = 2;
  c.gc_high_watermark = 2;
  SimFlashDevice conventional(c);
  REQUIRE(conventional.capacity_bytes() == d->capacity_bytes());
  const uint64_t lpns = d->capacity_bytes() / kPage;
  conventional.write(0, lpns * kPage);
  Mix rng{5};
  for (uint64_t i = 0; i < 4 * lpns; ++i) write_page(conventional, rng.below(lpns));
  const FtlCounters before = conventional.ftl().counters();
  for (uint64_t i = 0; i < 4 * lpns; ++i) write_page(conventional, rng.below(lpns));
  const FtlCounters after = conventional.ftl().counters() - before;
  const double wa_device = double(after.nand_pages_written) / double(after.host_pages_written);
  std::printf("  ρ 0.8: host FTL on zones WA %.4f, simflash's greedy FTL WA %.4f\n", zoned.wa,
              wa_device);
  CHECK(zoned.wa == Approx(wa_device).epsilon(0.01));
  CHECK(zoned.wa > 1.5);  // the comparison is not between two trivial WAs
}

TEST_CASE("host FTL: keys, columns, and the errors of a bad geometry", "[host_ftl]") {
  Params p;
  p.set("device.profile", "tiny");
  p.set("device.zns.zone_capacity", "256KiB");
  p.set("device.zns.host_ftl", "true");
  const DeviceConfig config{"simflash", p, 1, ""};
  // tiny: 64 superblocks of 256 KiB = 64 zones; 0.07 × 64 = 4.48: 4 spare, 60 exposed.
  Params shown;
  const DeviceBounds bounds = device_type("simflash").resolve(config, shown);
  CHECK(bounds.capacity_bytes == 60 * 262144);
  CHECK(shown.text("device.zns.host_ftl") == "true");
  CHECK(shown.text("device.zns.host_ftl_op_rate") == "0.07");
  std::unique_ptr<Device> d = make_device(config);
  CHECK(d->capacity_bytes() == 60 * 262144);
  CHECK_FALSE(d->zone_geometry().zoned());
  // A random write anywhere: the host FTL takes it; a plain zoned device would refuse it.
  d->write(5 * 262144 + 3 * 4096, 2 * 4096);
  d->begin_measurement();
  for (int round = 0; round < 3; ++round) d->write(0, 60 * 262144);  // three full overwrites
  const std::vector<Column> cols = d->columns(ReportContext{1.5});
  auto value = [&](const std::string& name) {
    for (const Column& c : cols) {
      if (c.name == name) return c.text;
    }
    FAIL("no column " << name);
    return std::string();
  };
  CHECK(value("host_ftl_pages_written") == std::to_string(3 * 60 * 64));
  const double copied = std::stod(value("host_ftl_pages_copied"));
  const double wa = std::stod(value("wa_host_ftl"));
  CHECK(wa == Approx((3 * 60 * 64 + copied) / (3 * 60 * 64)));
  CHECK(value("wa_ftl") == "1");
  CHECK(std::stod(value("wa_combined")) == Approx(1.5 * wa));
  CHECK(std::stod(value("host_pages_written")) == 3 * 60 * 64 + copied);
  CHECK(std::stod(value("zone_resets")) > 0);
  // Without a host FTL the columns are empty (declared only_if_set).
  Params plain_p = p;
  plain_p.set("device.zns.host_ftl", "false");
  std::unique_ptr<Device> plain = make_device(DeviceConfig{"simflash", plain_p, 1, ""});
  for (const Column& c : plain->columns(ReportContext{})) {
    if (c.name.rfind("host_ftl_", 0) == 0 || c.name == "wa_host_ftl") CHECK(c.text.empty());
  }

  // Errors name the key, the value, and one that would do.
  Params no_zones;
  no_zones.set("device.profile", "tiny");
  no_zones.set("device.zns.host_ftl", "true");
  CHECK_THROWS_WITH(make_device(DeviceConfig{"simflash", no_zones, 1, ""}),
                    Contains("device.zns.host_ftl") && Contains("zone_capacity"));
  Params few = p;
  few.set("device.zns.host_ftl_op_rate", "0.02");  // 1 spare zone of 64
  CHECK_THROWS_WITH(make_device(DeviceConfig{"simflash", few, 1, ""}),
                    Contains("device.zns.host_ftl_op_rate") && Contains("0.02") &&
                        Contains("at least 3") && Contains("e.g. 0.047"));
  Params one_active = p;
  one_active.set("device.zns.max_active_zones", "1");
  one_active.set("device.zns.max_open_zones", "1");
  CHECK_THROWS_WITH(make_device(DeviceConfig{"simflash", one_active, 1, ""}),
                    Contains("device.zns.max_active_zones") && Contains("at least 2"));
  // A plain device below is refused by the class itself.
  SimFlashConfig conventional = zoned_flash(8, 4);
  conventional.zns_zone_capacity_bytes = 0;
  conventional.utilization = 0.5;
  CHECK_THROWS_WITH(HostFtlDevice(std::make_unique<SimFlashDevice>(conventional), 0.5),
                    Contains("must be zoned"));
}

TEST_CASE("host FTL: device.size_to_cache gives the fewest zones whose exposed part holds it",
          "[host_ftl]") {
  // Through the device type: 1 MiB zones leave the tiny profile 16 zones, too few for 3 spare
  // at 0.07; sized for the cache, the device has what the spare needs and the cache's bytes.
  Params p;
  p.set("device.profile", "tiny");
  p.set("device.size_to_cache", "true");
  p.set("device.zns.zone_capacity", "1MiB");
  p.set("device.zns.host_ftl", "true");
  DeviceConfig config{"simflash", p, 1, ""};
  Params shown;
  CHECK_NOTHROW(device_type("simflash").resolve(config, shown));
  const std::optional<DeviceBounds> sized =
      device_type("simflash").size_for_cache(config, uint64_t{60} << 20);
  REQUIRE(sized.has_value());
  // 60 exposed zones of 1 MiB: 64 zones, ⌊64 × 0.07⌋ = 4 spare (63 would expose 59).
  CHECK(sized->capacity_bytes == uint64_t{60} << 20);
  CHECK(make_device(config)->capacity_bytes() == uint64_t{60} << 20);

  SimFlashConfig c = simflash_profile("tiny");
  c.zns_zone_capacity_bytes = c.superblock_bytes();  // 256 KiB zones
  c.zns_host_ftl = true;
  c.zns_host_ftl_op_rate = 0.1;
  for (uint64_t bytes : {uint64_t{1} << 20, uint64_t{10} << 20, uint64_t{100} << 20}) {
    const uint32_t n = simflash_blocks_per_plane_for(c, bytes);
    SimFlashConfig sized = c;
    sized.blocks_per_plane = n;
    CHECK(sized.cache_visible_bytes() >= bytes);
    if (n > 4) {  // one zone fewer does not hold it (or leaves too few spare)
      sized.blocks_per_plane = n - 1;
      bool holds = false;
      try {
        sized.validate();
        holds = sized.cache_visible_bytes() >= bytes;
      } catch (const std::invalid_argument&) {
      }
      CHECK_FALSE(holds);
    }
  }
}

}  // namespace
}  // namespace flashpq::test_host_ftl
