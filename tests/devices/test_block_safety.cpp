// tests/devices/test_block_safety.cpp — the safety gate: the mountinfo and swaps parsers, the
// refusal rules on hand-made reports, files (swap listed, loop backing, device check writes
// nothing), and, as root with losetup (skipped with a message otherwise), loop devices: plain, with
// 4 KiB logical sectors (512 B I/O refused), discard shrinking the backing file, ext4 mounted
// (whole device and partition), swap, a signature overridden by --force-destroy, holders, and an
// injected corruption caught by verify. Never a real disk of this machine: loop devices and
// files only, every one detached/unmounted by RAII.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "devices/block/block_device.h"
#include "devices/block/safety.h"
#include "experiments/run/wall_runner.h"
#include "tests/block_test_util.h"
#include "tests/test_util.h"

namespace flashpq::test_block_safety {
namespace {

using Catch::Contains;
using testing::block_config;
using testing::scratch_dir;
using testing::TempDir;

// ---------------------------------------------------------------------------------------------
// Parsers

TEST_CASE("parse_mountinfo: numbers, optional fields, the separator, octal escapes",
          "[block][safety]") {
  const std::string text =
      "22 27 0:21 / /proc rw,relatime - proc proc rw\n"
      "42 27 7:0 / /tmp/lt/mnt rw,relatime shared:5 master:1 - ext4 /dev/loop0 rw\n"
      "43 27 259:3 /sub /mnt/with\\040space rw - xfs /dev/nvme0n1p3 rw,attr2\n"
      "garbage line\n";
  const auto m = parse_mountinfo(text);
  REQUIRE(m.size() == 3);
  CHECK(m[1].major == 7);
  CHECK(m[1].minor == 0);
  CHECK(m[1].mount_point == "/tmp/lt/mnt");
  CHECK(m[1].fs_type == "ext4");
  CHECK(m[1].source == "/dev/loop0");
  CHECK(m[2].major == 259);
  CHECK(m[2].minor == 3);
  CHECK(m[2].mount_point == "/mnt/with space");
  CHECK(m[2].source == "/dev/nvme0n1p3");
}

TEST_CASE("parse_swaps: the paths, header skipped, escapes decoded", "[block][safety]") {
  const auto s = parse_swaps(
      "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
      "/dev/loop0                              partition\t65532\t\t0\t\t-2\n"
      "/swap\\040file                          file\t\t1024\t\t0\t\t-3\n");
  CHECK(s == std::vector<std::string>{"/dev/loop0", "/swap file"});
  CHECK(parse_swaps("Filename Type Size Used Priority\n").empty());
}

// ---------------------------------------------------------------------------------------------
// Refusal rules

DeviceReport clean_disk() {
  DeviceReport r;
  r.identity.path = r.identity.real_path = "/dev/sdz";
  r.identity.block_device = true;
  r.identity.kernel_name = r.identity.disk_name = "sdz";
  r.identity.serial = "S3EVNX0K123456";
  r.geometry.size_bytes = 1ull << 30;
  r.geometry.logical_block_bytes = 512;
  return r;
}

TEST_CASE("safety_refusals: a clean, large enough device passes", "[block][safety]") {
  CHECK(safety_refusals(clean_disk(), 1ull << 30, "").empty());
  CHECK(safety_refusals(clean_disk(), 0, "").empty());
}

TEST_CASE("safety_refusals: every check fails on its own and all are reported", "[block][safety]") {
  DeviceReport r = clean_disk();
  r.mounts = {"/dev/sdz1 on /data type ext4"};
  r.swaps = {"/dev/sdz2"};
  r.holders = {"sdz3 is held by md0"};
  r.geometry.read_only = true;
  r.signatures = {{"dos", "partition table", 510, ""}};
  const auto out = safety_refusals(r, 2ull << 30, "");
  REQUIRE(out.size() == 6);
  CHECK_THAT(out[0], Contains("mounted") && Contains("/data"));
  CHECK_THAT(out[1], Contains("swap") && Contains("/dev/sdz2"));
  CHECK_THAT(out[2], Contains("md0"));
  CHECK_THAT(out[3], Contains("read-only"));
  CHECK_THAT(out[4], Contains("too small") && Contains("1073741824"));
  CHECK_THAT(out[5], Contains("dos") && Contains("--force-destroy=S3EVNX0K123456"));
  CHECK_THROWS_AS(enforce_safety(r, 0, ""), SafetyError);
}

TEST_CASE("force-destroy overrides signatures only, and only with the device's identity",
          "[block][safety]") {
  DeviceReport r = clean_disk();
  r.signatures = {{"ext4", "filesystem", 0x438, "data"}};
  CHECK(safety_refusals(r, 0, "").size() == 1);
  CHECK(safety_refusals(r, 0, "S3EVNX0K123456").empty());
  const auto wrong = safety_refusals(r, 0, "S3EVNX0K999999");
  REQUIRE(wrong.size() == 2);
  CHECK_THAT(wrong[0], Contains("does not name this device"));
  // A mounted device stays refused.
  r.mounts = {"/dev/sdz on /data type ext4"};
  CHECK(safety_refusals(r, 0, "S3EVNX0K123456").size() == 1);
  // Identity: WWID first, then serial, then the canonical path.
  r.identity.wwid = "eui.0025388b91b2c3d4";
  CHECK(r.identity.force_identity() == "eui.0025388b91b2c3d4");
  r.identity.wwid.clear();
  r.identity.serial.clear();
  CHECK(r.identity.force_identity() == "/dev/sdz");
}

TEST_CASE("a file is never 'too small' (it is extended), a block device is", "[block][safety]") {
  DeviceReport r = clean_disk();
  CHECK(safety_refusals(r, (1ull << 30) + 512, "").size() == 1);
  r.identity.block_device = false;
  CHECK(safety_refusals(r, (1ull << 30) + 512, "").empty());
}

// ---------------------------------------------------------------------------------------------
// Files

TEST_CASE("inspect_device: a file's identity -- a missing path or a directory is an error",
          "[block][safety]") {
  TempDir dir(scratch_dir());
  const std::string path = testing::make_sparse_file(dir.file("f.img"), 1 << 20);
  const DeviceReport r = inspect_device(path);
  CHECK(!r.identity.block_device);
  CHECK(r.identity.real_path == std::filesystem::canonical(path).string());
  CHECK(r.identity.force_identity() == r.identity.real_path);
  CHECK(r.geometry.size_bytes == 1 << 20);
  CHECK(r.signatures.empty());
  CHECK(r.holders.empty());
  CHECK(r.swaps.empty());
  CHECK(safety_refusals(r, 0, "").empty());
  CHECK_THROWS_WITH(inspect_device(dir.file("missing")), Contains("missing"));
  CHECK_THROWS_WITH(inspect_device(dir.path().string()), Contains("neither"));
}

TEST_CASE("a file listed in /proc/swaps is refused (swaps file injected)", "[block][safety]") {
  TempDir dir(scratch_dir());
  const std::string path = testing::make_sparse_file(dir.file("swapfile"), 1 << 20);
  SystemPaths sys;
  sys.swaps =
      dir.write("swaps", "Filename\tType\tSize\tUsed\tPriority\n" + path + "\tfile\t1020\t0\t-2\n");
  const DeviceReport r = inspect_device(path, sys);
  REQUIRE(r.swaps.size() == 1);
  CHECK_THAT(safety_refusals(r, 0, "")[0], Contains("used as swap"));
  // Force does not help.
  CHECK(safety_refusals(r, 0, r.identity.force_identity()).size() == 1);
}

TEST_CASE("flashpq device check prints the report and writes nothing", "[block][safety][cli]") {
  TempDir dir(scratch_dir());
  const std::string path = dir.file("f.img");
  {
    std::ofstream f(path, std::ios::binary);
    for (int i = 0; i < 1 << 16; ++i) f.put(static_cast<char>(i * 7));
  }
  const auto before = testing::read_bytes(path, 0, 1 << 16);
  const auto mtime = std::filesystem::last_write_time(path);
  const std::string out =
      testing::shell_output(std::string(FLASHPQ_BINARY) + " device check " + path);
  CHECK_THAT(out, Contains("regular file") && Contains("logical block") &&
                      Contains("signatures: none") && Contains("may write"));
  CHECK(testing::shell(std::string(FLASHPQ_BINARY) + " device check " + path) == 0);
  CHECK(testing::read_bytes(path, 0, 1 << 16) == before);
  CHECK(std::filesystem::last_write_time(path) == mtime);
  CHECK(std::filesystem::file_size(path) == 1 << 16);
  CHECK(testing::shell(std::string(FLASHPQ_BINARY) + " device check " + dir.file("nope")) == 2);
}

// ---------------------------------------------------------------------------------------------
// Loop devices (root)

// Waits (up to `ms`) for a device node the kernel creates (devtmpfs). It returns as soon as
// the node is there, so the bound only decides how long a real failure takes to report: 30 s,
// far above what a loaded machine needs.
bool wait_for(const std::string& path, int ms = 30000) {
  for (int i = 0; i < ms / 50; ++i) {
    if (std::filesystem::exists(path)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

TEST_CASE(
    "loop device: identity, geometry, verify round trip through run_wall, corruption "
    "in the backing file caught",
    "[block][root]") {
  FLASHPQ_REQUIRE_LOOP_DEVICES();
  TempDir dir(scratch_dir());
  const std::string backing = testing::make_sparse_file(dir.file("backing.img"), 64 << 20);
  testing::LoopDevice loop(backing);
  const DeviceReport r = inspect_device(loop.path());
  CHECK(r.identity.block_device);
  CHECK(r.identity.kernel_name == loop.name());
  CHECK(!r.identity.partition);
  CHECK(std::filesystem::equivalent(r.identity.loop_backing_file, backing));
  CHECK(r.identity.force_identity() == loop.path());
  CHECK(r.geometry.size_bytes == 64 << 20);
  CHECK(r.geometry.logical_block_bytes == 512);
  CHECK(safety_refusals(r, 0, "").empty());

  BlockConfig c = block_config(loop.path(), 0);
  c.queue_depth = 32;
  BlockDevice dev(c);
  CHECK(dev.capacity_bytes() == 64 << 20);
  CHECK(dev.logical_block_bytes() == 512);
  CHECK(dev.o_direct());
  std::vector<Request> reqs;
  for (uint64_t k = 0; k < 256; ++k) reqs.push_back({0, k, 64 << 10, Op::kSet});
  for (uint64_t k = 0; k < 256; ++k) reqs.push_back({0, (k * 97) % 256, 64 << 10, Op::kGet});
  TimingConfig t;
  t.clients = 32;
  WallOptions o;
  o.offset_unit_bytes = 64 << 10;
  const WallResult w = run_wall(dev, t, std::span<const Request>(reqs), 0, o);
  CHECK(w.timing.requests == 512);
  CHECK(dev.verify_counters().blocks_checked == (16u << 20) / 512);
  // The O_DIRECT writes went through the loop device into the backing file.
  const auto blk = testing::read_bytes(backing, 5 << 20, 8);
  CHECK(std::memcmp(blk.data(), "FPQBLK01", 8) == 0);
  testing::flip_byte(backing, (5 << 20) + 1000);  // in the payload of block 5 MiB + 512
  try {
    dev.read(4 << 20, 2 << 20);
    FAIL("the corruption was not detected");
  } catch (const VerifyError& e) {
    CHECK(e.offset() == (5 << 20) + 512);
  }
}

TEST_CASE("loop device with 4 KiB logical sectors: 512-byte I/O is refused", "[block][root]") {
  FLASHPQ_REQUIRE_LOOP_DEVICES();
  TempDir dir(scratch_dir());
  const std::string backing = testing::make_sparse_file(dir.file("backing.img"), 16 << 20);
  testing::LoopDevice loop(backing, 4096);
  {
    BlockDevice dev(block_config(loop.path(), 0));
    CHECK(dev.logical_block_bytes() == 4096);
    CHECK_THROWS_WITH(dev.write(0, 512), Contains("not aligned") && Contains("4096"));
    CHECK_THROWS_AS(dev.write(512, 4096), std::invalid_argument);
    CHECK_THROWS_AS(dev.read(4096, 512), std::invalid_argument);
    CHECK(dev.counters().writes == 0);
    dev.write(0, 4096);
    dev.read(0, 4096);
    CHECK(dev.verify_counters().blocks_checked == 1);
    // A request stream with one 512-byte read is refused before the first I/O.
    std::vector<Request> reqs = {{0, 8, 4096, Op::kSet}, {0, 16, 512, Op::kGet}};
    WallOptions o;
    o.offset_unit_bytes = 512;
    CHECK_THROWS_WITH(run_wall(dev, TimingConfig{}, std::span<const Request>(reqs), 0, o),
                      Contains("request 1"));
    CHECK(dev.counters().writes == 1);
  }
  // A capacity that is not a multiple of 4 KiB.
  CHECK_THROWS_WITH(BlockDevice(block_config(loop.path(), (8 << 20) + 512)), Contains("multiple"));
}

TEST_CASE("loop device: discard shrinks the backing file", "[block][root][discard]") {
  FLASHPQ_REQUIRE_LOOP_DEVICES();
  TempDir dir(scratch_dir());
  const std::string backing = testing::make_sparse_file(dir.file("backing.img"), 32 << 20);
  testing::LoopDevice loop(backing);
  {
    BlockDevice dev(block_config(loop.path(), 0, false));
    dev.write(0, 32 << 20);
    REQUIRE(testing::shell("sync") == 0);
    const uint64_t full = testing::allocated_blocks(backing);
    CHECK(full >= (32u << 20) / 512);
    dev.trim(0, 24 << 20);
    CHECK(dev.discard_supported());
    CHECK(testing::allocated_blocks(backing) <= full - (24u << 20) / 512);
  }
  // discard_before_run empties it.
  BlockConfig c = block_config(loop.path(), 0, false);
  c.discard_before_run = true;
  BlockDevice dev(c);
  CHECK(testing::allocated_blocks(backing) < (1u << 20) / 512);
}

TEST_CASE("loop device with an ext4 filesystem mounted is refused, even with --force-destroy",
          "[block][root]") {
  FLASHPQ_REQUIRE_LOOP_DEVICES();
  TempDir dir(scratch_dir());
  const std::string backing = testing::make_sparse_file(dir.file("backing.img"), 32 << 20);
  testing::LoopDevice loop(backing);
  REQUIRE(testing::shell("mkfs.ext4 -q -F " + loop.path()) == 0);
  testing::Mount mount(loop.path(), dir.path() / "mnt");
  const DeviceReport r = inspect_device(loop.path());
  REQUIRE(r.mounts.size() == 1);
  CHECK_THAT(r.mounts[0], Contains("mnt") && Contains("ext4"));
  BlockConfig c = block_config(loop.path(), 0);
  c.force_destroy = loop.path();
  try {
    BlockDevice dev(c);
    FAIL("a mounted device was opened for writing");
  } catch (const SafetyError& e) {
    CHECK_THAT(e.what(), Contains("busy") && Contains("mounted:") && Contains("mnt"));
  }
  // The filesystem is intact.
  CHECK(inspect_device(loop.path()).signatures.at(0).type == "ext4");
}

// A DOS partition table with one partition starting at sector 2048.
void write_mbr(const std::string& path, uint32_t sectors) {
  std::vector<unsigned char> mbr(512, 0);
  unsigned char* e = &mbr[446];
  e[4] = 0x83;  // Linux
  const uint32_t start = 2048, count = sectors - 2048;
  std::memcpy(e + 8, &start, 4);
  std::memcpy(e + 12, &count, 4);
  mbr[510] = 0x55;
  mbr[511] = 0xAA;
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  REQUIRE(::pwrite(fd, mbr.data(), 512, 0) == 512);
  ::close(fd);
}

TEST_CASE("loop device whose partition is mounted is refused (partitions included)",
          "[block][root]") {
  FLASHPQ_REQUIRE_LOOP_DEVICES();
  TempDir dir(scratch_dir());
  const std::string backing = testing::make_sparse_file(dir.file("backing.img"), 32 << 20);
  write_mbr(backing, (32 << 20) / 512);
  testing::LoopDevice loop(backing, 0, true);
  const std::string part = loop.path() + "p1";
  if (!wait_for(part, 1000)) {
    // A kernel without the DOS partition parser (CONFIG_MSDOS_PARTITION) does not scan it:
    // add the partition by hand (BLKPG), as the table describes it. (losetup -P scans before
    // it returns; should a slow machine's scan add it after all, addpart finds it there and
    // fails, and the partition is as wanted: the wait below decides.)
    testing::shell("addpart " + loop.path() + " 1 2048 " + std::to_string((32 << 20) / 512 - 2048));
  }
  REQUIRE(wait_for(part));
  REQUIRE(testing::shell("mkfs.ext4 -q -F " + part) == 0);
  testing::Mount mount(part, dir.path() / "mnt");
  const DeviceReport r = inspect_device(loop.path());
  CHECK(r.partitions == std::vector<std::string>{loop.name() + "p1"});
  REQUIRE(r.mounts.size() == 1);
  CHECK_THAT(r.mounts[0], Contains(part));
  REQUIRE(!r.signatures.empty());
  CHECK(r.signatures[0].type == "dos");
  try {
    BlockDevice dev(block_config(loop.path(), 0));
    FAIL("a device with a mounted partition was opened for writing");
  } catch (const SafetyError& e) {
    CHECK_THAT(e.what(), Contains(part) && Contains("dos"));
  }
}

TEST_CASE("loop device used as swap is refused", "[block][root]") {
  FLASHPQ_REQUIRE_LOOP_DEVICES();
  TempDir dir(scratch_dir());
  const std::string backing = testing::make_sparse_file(dir.file("backing.img"), 16 << 20);
  testing::LoopDevice loop(backing);
  testing::SwapOn swap(loop.path());
  const DeviceReport r = inspect_device(loop.path());
  REQUIRE(r.swaps.size() == 1);
  CHECK_THROWS_WITH(BlockDevice(block_config(loop.path(), 0)),
                    Contains("used as swap") && Contains(loop.path()));
}

TEST_CASE("loop device carrying a filesystem (not mounted): refused, then forced",
          "[block][root]") {
  FLASHPQ_REQUIRE_LOOP_DEVICES();
  TempDir dir(scratch_dir());
  const std::string backing = testing::make_sparse_file(dir.file("backing.img"), 16 << 20);
  testing::LoopDevice loop(backing);
  REQUIRE(testing::shell("mkfs.ext4 -q -F " + loop.path()) == 0);
  const auto before = testing::read_bytes(backing, 0, 1 << 20);
  // `device check` reports it and writes nothing.
  const std::string check = std::string(FLASHPQ_BINARY) + " device check " + loop.path();
  CHECK_THAT(testing::shell_output(check), Contains("ext4") && Contains("refuses"));
  CHECK(testing::shell(check) == 1);
  CHECK_THROWS_WITH(BlockDevice(block_config(loop.path(), 0)),
                    Contains("ext4") && Contains("--force-destroy=" + loop.path()));
  CHECK(testing::read_bytes(backing, 0, 1 << 20) == before);
  BlockConfig c = block_config(loop.path(), 0);
  c.force_destroy = loop.path();
  BlockDevice dev(c);
  dev.write(0, 1 << 20);
  CHECK(testing::read_bytes(backing, 0, 1 << 20) != before);
}

TEST_CASE("a read-only loop device is refused", "[block][root]") {
  FLASHPQ_REQUIRE_LOOP_DEVICES();
  TempDir dir(scratch_dir());
  const std::string backing = testing::make_sparse_file(dir.file("backing.img"), 8 << 20);
  testing::LoopDevice loop(backing, 0, false, true);
  CHECK(inspect_device(loop.path()).geometry.read_only);
  CHECK_THROWS_WITH(BlockDevice(block_config(loop.path(), 0)), Contains("read-only"));
}

TEST_CASE("a file backing a loop device is refused", "[block][root]") {
  FLASHPQ_REQUIRE_LOOP_DEVICES();
  TempDir dir(scratch_dir());
  const std::string backing = testing::make_sparse_file(dir.file("backing.img"), 8 << 20);
  testing::LoopDevice loop(backing);
  const DeviceReport r = inspect_device(backing);
  REQUIRE(r.holders.size() == 1);
  CHECK_THAT(r.holders[0], Contains(loop.name()) && Contains("backed by this file"));
  CHECK_THROWS_WITH(BlockDevice(block_config(backing, 0)),
                    Contains("in use") && Contains(loop.name()));
}

TEST_CASE("holders in sysfs are refused (a fabricated sysfs over a real loop device)",
          "[block][root]") {
  FLASHPQ_REQUIRE_LOOP_DEVICES();
  TempDir dir(scratch_dir());
  const std::string backing = testing::make_sparse_file(dir.file("backing.img"), 8 << 20);
  testing::LoopDevice loop(backing);
  // /sys/dev/block/MAJ:MIN -> devices/NAME; NAME/holders/dm-0 (device mapper is not always
  // available to create a real holder).
  struct stat st {};
  REQUIRE(::stat(loop.path().c_str(), &st) == 0);
  const auto sys = dir.path() / "sys";
  const auto devdir = sys / "devices" / loop.name();
  std::filesystem::create_directories(devdir / "holders" / "dm-0");
  std::filesystem::create_directories(sys / "dev" / "block");
  std::filesystem::create_directories(sys / "class" / "block");
  std::filesystem::create_directory_symlink(
      devdir, sys / "dev" / "block" /
                  (std::to_string(major(st.st_rdev)) + ":" + std::to_string(minor(st.st_rdev))));
  std::filesystem::create_directory_symlink(devdir, sys / "class" / "block" / loop.name());
  SystemPaths paths;
  paths.sys_dev_block = (sys / "dev" / "block").string();
  paths.sys_class_block = (sys / "class" / "block").string();
  const DeviceReport r = inspect_device(loop.path(), paths);
  REQUIRE(r.holders.size() == 1);
  CHECK(r.holders[0] == loop.name() + " is held by dm-0");
  CHECK_THAT(safety_refusals(r, 0, loop.path())[0], Contains("in use"));
}

}  // namespace
}  // namespace flashpq::test_block_safety
