// tests/devices/test_devices.cpp — the device extension point: the null device's accounting,
// alignment and bounds checks, DeviceConfig validation and the registry.
#include <catch2/catch.hpp>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "devices/device.h"
#include "devices/null_device.h"
#include "tests/test_util.h"

namespace flashpq::test_devices {
namespace {

using Catch::Contains;

bool counters_equal(const DeviceCounters& a, const DeviceCounters& b) {
  return a.writes == b.writes && a.write_bytes == b.write_bytes && a.reads == b.reads &&
         a.read_bytes == b.read_bytes && a.trims == b.trims && a.trimmed_bytes == b.trimmed_bytes;
}

TEST_CASE("the null device counts writes, reads and trims and their bytes", "[devices]") {
  NullDevice d(1 << 20, 4096);
  CHECK(d.capacity_bytes() == 1 << 20);
  CHECK(d.logical_block_bytes() == 4096);
  const DeviceCounters& c = d.counters();
  CHECK(counters_equal(c, DeviceCounters{}));

  d.write(0, 4096);
  d.write(8192, 3 * 4096);
  d.read(4096, 4096);
  d.read(0, 2 * 4096);
  d.read(0, 4096);
  d.trim(0, 16 * 4096);
  CHECK(c.writes == 2);
  CHECK(c.write_bytes == 4 * 4096);
  CHECK(c.reads == 3);
  CHECK(c.read_bytes == 4 * 4096);
  CHECK(c.trims == 1);
  CHECK(c.trimmed_bytes == 16 * 4096);
}

TEST_CASE("an extent ending exactly at the capacity is allowed", "[devices]") {
  NullDevice d(1 << 20, 4096);
  d.write((1 << 20) - 4096, 4096);
  d.read(0, 1 << 20);
  d.trim(0, 1 << 20);
  CHECK(d.counters().writes == 1);
  CHECK(d.counters().read_bytes == 1 << 20);
  CHECK(d.counters().trimmed_bytes == 1 << 20);
}

TEST_CASE("misaligned offset or length throws std::invalid_argument naming both", "[devices]") {
  NullDevice d(1 << 20, 4096);
  const DeviceCounters before = d.counters();
  SECTION("misaligned offset") {
    CHECK_THROWS_AS(d.write(100, 4096), std::invalid_argument);
    CHECK_THROWS_WITH(d.write(100, 4096),
                      Contains("offset 100") && Contains("length 4096") && Contains("4096"));
    CHECK_THROWS_WITH(d.read(4095, 4096), Contains("offset 4095") && Contains("length 4096"));
    CHECK_THROWS_WITH(d.trim(2048, 4096), Contains("offset 2048") && Contains("length 4096"));
  }
  SECTION("misaligned length") {
    CHECK_THROWS_AS(d.write(4096, 100), std::invalid_argument);
    CHECK_THROWS_WITH(d.write(4096, 100), Contains("offset 4096") && Contains("length 100"));
    CHECK_THROWS_WITH(d.read(0, 4097), Contains("offset 0") && Contains("length 4097"));
    CHECK_THROWS_WITH(d.trim(0, 1), Contains("offset 0") && Contains("length 1"));
  }
  SECTION("the operation is named") {
    CHECK_THROWS_WITH(d.write(1, 4096), Contains("write"));
    CHECK_THROWS_WITH(d.read(1, 4096), Contains("read"));
    CHECK_THROWS_WITH(d.trim(1, 4096), Contains("trim"));
  }
  // A rejected operation is not counted.
  CHECK(counters_equal(d.counters(), before));
}

TEST_CASE("a zero length throws std::invalid_argument", "[devices]") {
  for (uint32_t block : {1u, 4096u}) {
    NullDevice d(0, block);
    CHECK_THROWS_AS(d.write(0, 0), std::invalid_argument);
    CHECK_THROWS_AS(d.read(0, 0), std::invalid_argument);
    CHECK_THROWS_AS(d.trim(0, 0), std::invalid_argument);
    CHECK_THROWS_WITH(d.write(4096, 0), Contains("length 0"));
    CHECK(counters_equal(d.counters(), DeviceCounters{}));
  }
}

TEST_CASE("an extent past the capacity throws std::invalid_argument", "[devices]") {
  NullDevice d(1 << 20, 4096);
  CHECK_THROWS_AS(d.write(1 << 20, 4096), std::invalid_argument);           // Starts at the end.
  CHECK_THROWS_AS(d.write((1 << 20) - 4096, 8192), std::invalid_argument);  // Straddles it.
  CHECK_THROWS_AS(d.read(0, (1 << 20) + 4096), std::invalid_argument);      // Longer than it.
  CHECK_THROWS_AS(d.trim(2 << 20, 4096), std::invalid_argument);            // Far past it.
  // offset + len would wrap around 2^64: still rejected.
  const uint64_t huge = UINT64_MAX - 4095;  // A multiple of 4096.
  CHECK_THROWS_AS(d.write(4096, huge), std::invalid_argument);
  CHECK_THROWS_AS(d.write(huge, 4096), std::invalid_argument);
  CHECK_THROWS_WITH(d.write(1 << 20, 4096), Contains("offset 1048576") && Contains("length 4096") &&
                                                Contains("capacity 1048576"));
  CHECK(counters_equal(d.counters(), DeviceCounters{}));
}

TEST_CASE("the extent checks accept exactly the aligned, non-empty extents within capacity",
          "[devices]") {
  // Brute force against the definition, for power-of-two block sizes (the inline fast path)
  // and others (the out-of-line path), bounded and unbounded.
  for (uint32_t block : {1u, 2u, 512u, 3000u, 4096u}) {
    for (uint64_t capacity : {uint64_t{0}, uint64_t{12288}, uint64_t{12000}}) {
      NullDevice d(capacity, block);
      for (uint64_t offset = 0; offset <= 13000; offset += 250) {
        for (uint64_t len : {0ull, 1ull, 2ull, 512ull, 3000ull, 4096ull, 6000ull, 8192ull}) {
          const bool ok = len != 0 && offset % block == 0 && len % block == 0 &&
                          (capacity == 0 || offset + len <= capacity);
          INFO("block " << block << " capacity " << capacity << " offset " << offset << " len "
                        << len);
          if (ok) {
            CHECK_NOTHROW(d.read(offset, len));
          } else {
            CHECK_THROWS_AS(d.read(offset, len), std::invalid_argument);
          }
        }
      }
    }
  }
}

TEST_CASE("capacity 0 means unbounded and block size 1 accepts any extent", "[devices]") {
  NullDevice d(0, 1);
  d.write(123456789012345ull, 3);
  d.read(7, 1);
  d.trim(1, 9);
  CHECK(d.counters().writes == 1);
  CHECK(d.counters().write_bytes == 3);
  CHECK(d.counters().read_bytes == 1);
  CHECK(d.counters().trimmed_bytes == 9);
}

TEST_CASE("make_device builds the registered devices and rejects others", "[devices]") {
  REQUIRE(device_names().size() >= 1);
  CHECK(device_names().front() == "null");
  CHECK(device_names() == std::vector<std::string>{"null", "simflash", "block", "fixed_latency"});

  auto d = make_device(DeviceConfig{});
  REQUIRE(d != nullptr);
  CHECK(d->capacity_bytes() == 0);
  CHECK(d->logical_block_bytes() == 1);
  d->write(1, 4096);
  CHECK(d->counters().writes == 1);
  CHECK(d->counters().write_bytes == 4096);

  DeviceConfig bad;
  bad.name = "nope";
  CHECK_THROWS_AS(make_device(bad), std::invalid_argument);
  CHECK_THROWS_WITH(make_device(bad), Contains("nope") && Contains("null, simflash, block"));
}

TEST_CASE("each device reports the columns its registration names, in order", "[devices]") {
  // The null device has none; simflash fills its ten (devices/simflash/simflash_device.h).
  const NullDevice null;
  CHECK(null.columns(ReportContext{}).empty());
  DeviceConfig sf;
  sf.name = "simflash";
  auto flash = make_device(sf);
  flash->begin_measurement();
  flash->write(0, 4096);
  const std::vector<Column> cols = flash->columns(ReportContext{2.0});
  const DeviceType& type = device_type("simflash");
  REQUIRE(cols.size() == type.columns.size());
  for (size_t i = 0; i < cols.size(); ++i) CHECK(cols[i].name == type.columns[i].name);
  auto col = [&](const std::string& name) {
    for (const Column& c : cols) {
      if (c.name == name) return c.text;
    }
    return std::string("?");
  };
  CHECK(col("host_pages_written") == "1");
  CHECK(col("nand_pages_written") == "1");
  CHECK(col("nand_bytes_written") == "4096");
  CHECK(col("wa_ftl") == "1");
  CHECK(col("wa_combined") == "2");  // host_write_factor × wa_ftl
  // Every registered device's columns, in registration order, make the row's device columns.
  size_t n = 0;
  for (const DeviceType* t : device_types()) n += t->columns.size();
  CHECK(device_columns().size() == n);
  // Each declared with a definition; a simflash cell's row carries every one of simflash's but
  // those carried only where set (zone_resets, on a zoned device).
  for (const ColumnSpec& c : device_columns()) CHECK_FALSE(c.description.empty());
  size_t always = 0;
  std::vector<std::string> if_set;
  for (const ColumnSpec& c : type.columns) {
    always += !c.if_set;
    if (c.if_set) if_set.push_back(c.name);
  }
  CHECK(if_set ==
        std::vector<std::string>{"zone_resets", "fdp_handle_host_pages_written",
                                 "fdp_handle_media_pages_written", "fdp_media_reallocated_events",
                                 "fdp_invalid_placement_events", "fdp_misplaced_writes",
                                 "host_ftl_pages_written", "host_ftl_pages_copied", "wa_host_ftl"});
  CHECK(device_row_columns(sf).size() == always);
  CHECK(device_row_columns(DeviceConfig{}).empty());  // null
}

TEST_CASE("a block device's row carries its verify columns only with device.verify", "[devices]") {
  DeviceConfig b;
  b.name = "block";
  b.params.set("device.path", "/nonexistent/flashpq-columns.img");
  b.params.set("device.capacity", "1MiB");
  const std::vector<std::string> plain = {"block_engine", "block_o_direct",
                                          "block_logical_block_bytes"};
  CHECK(device_row_columns(b) == plain);  // block_notes only where it has a value (if_set)
  b.params.set("device.verify", "true");
  CHECK(device_row_columns(b) ==
        std::vector<std::string>{"block_engine", "block_o_direct", "block_logical_block_bytes",
                                 "verify_blocks_checked", "verify_blocks_unchecked"});
  // The notes and the drive's counters depend on what the run meets: only where they have a
  // value.
  size_t if_set = 0;
  for (const ColumnSpec& c : device_type("block").columns) if_set += c.if_set ? 1 : 0;
  CHECK(if_set == 4);
}

TEST_CASE("read_covering reads the whole logical blocks around an extent", "[devices]") {
  using testing::R;
  using Io = testing::RecordingDevice::Io;
  for (const uint32_t lbs : {512u, 3000u}) {  // a power of two (mask) and not (division)
    INFO("logical block " << lbs);
    testing::RecordingDevice dev(100 * uint64_t{lbs}, lbs);
    dev.read_covering(100, 10);         // inside block 0
    dev.read_covering(lbs - 1, 2);      // straddles blocks 0 and 1
    dev.read_covering(lbs, lbs);        // exactly block 1
    dev.read_covering(2 * lbs + 5, 0);  // nothing
    CHECK(dev.log == std::vector<Io>{R(0, lbs), R(0, 2 * lbs), R(lbs, lbs)});
    CHECK(dev.counters().read_bytes == 4 * uint64_t{lbs});
    CHECK_THROWS_AS(dev.read_covering(100 * uint64_t{lbs} - 1, 2), std::invalid_argument);
  }
}

}  // namespace
}  // namespace flashpq::test_devices
