// tests/devices/test_block_device.cpp — the block device on a regular O_DIRECT file (no root
// needed): CRC32C against RFC 3720's vectors, configuration, geometry from statx, verify headers
// read back independently, corruption and stale writes caught with their offset, misaligned I/O
// refused, discard punching holes, splitting, the psync engine, the file lock, the signature
// gate; and the wall-clock runner (ordering, warm-up, arrivals, discards).
#include <fcntl.h>
#include <sys/stat.h>
#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "devices/block/block_device.h"
#include "devices/block/crc32c.h"
#include "sim/timing.h"
#include "tests/block_test_util.h"
#include "tests/test_util.h"

namespace flashpq::test_block_device {
namespace {

using Catch::Contains;
using testing::block_config;
using testing::scratch_dir;
using testing::TempDir;

// The logical block size statx reports for O_DIRECT on `path`'s filesystem, computed here
// independently of the device.
uint32_t dio_alignment(const std::string& path) {
  struct statx sx {};
  REQUIRE(::statx(AT_FDCWD, path.c_str(), 0, STATX_DIOALIGN, &sx) == 0);
  if (!(sx.stx_mask & STATX_DIOALIGN) || sx.stx_dio_offset_align == 0) return sx.stx_blksize;
  return sx.stx_dio_offset_align;
}

// ---------------------------------------------------------------------------------------------
// CRC32C

TEST_CASE("crc32c matches RFC 3720 B.4 and the check value of '123456789'", "[block][crc32c]") {
  // RFC 3720 Appendix B.4 (the CRC is printed there byte-reversed, as it goes on the wire).
  std::vector<unsigned char> zeros(32, 0x00), ones(32, 0xFF), inc(32), dec(32);
  for (int i = 0; i < 32; ++i) inc[i] = static_cast<unsigned char>(i), dec[i] = 31 - i;
  for (auto f : {crc32c, crc32c_portable}) {
    CHECK(f(zeros.data(), 32, 0) == 0x8A9136AAu);
    CHECK(f(ones.data(), 32, 0) == 0x62A8AB43u);
    CHECK(f(inc.data(), 32, 0) == 0x46DD794Eu);
    CHECK(f(dec.data(), 32, 0) == 0x113FDB5Cu);
    CHECK(f("123456789", 9, 0) == 0xE3069283u);  // the CRC catalogue's check value
    CHECK(f("", 0, 0) == 0u);
  }
}

TEST_CASE("crc32c: the hardware path equals the table one, in one piece or several",
          "[block][crc32c]") {
  INFO("SSE4.2 in use: " << crc32c_hardware());
  std::mt19937_64 rng(7);
  std::vector<unsigned char> buf(10000);
  for (auto& b : buf) b = static_cast<unsigned char>(rng());
  for (size_t len : {1, 7, 8, 9, 63, 64, 65, 511, 4096, 10000}) {
    for (size_t start : {0, 1, 3}) {
      if (start + len > buf.size()) continue;
      const uint32_t whole = crc32c_portable(buf.data() + start, len);
      CHECK(crc32c(buf.data() + start, len) == whole);
      const size_t cut = len / 3;
      CHECK(crc32c(buf.data() + start + cut, len - cut, crc32c(buf.data() + start, cut)) == whole);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Configuration

TEST_CASE("BlockConfig::validate quotes the bad value", "[block]") {
  BlockConfig c;
  CHECK_THROWS_WITH(c.validate(), Contains("device.path"));
  c.path = "/nonexistent";
  CHECK_NOTHROW(c.validate());
  c.queue_depth = 0;
  CHECK_THROWS_WITH(c.validate(), Contains("device.queue_depth") && Contains("0"));
  c.queue_depth = 5000;
  CHECK_THROWS_WITH(c.validate(), Contains("5000"));
  c.queue_depth = 32;
  c.max_io_bytes = 3000;
  CHECK_THROWS_WITH(c.validate(), Contains("device.max_io_size") && Contains("3000"));
  c.max_io_bytes = 6 << 20;  // not a power of two
  CHECK_THROWS_WITH(c.validate(), Contains("6291456"));
  c.max_io_bytes = 64 << 20;
  c.queue_depth = 4096;
  CHECK_THROWS_WITH(c.validate(), Contains("4 GiB"));
  CHECK(parse_io_engine("psync") == IoEngineKind::kPsync);
  CHECK_THROWS_WITH(parse_io_engine("aio"), Contains("io_uring, psync") && Contains("aio"));
}

TEST_CASE("a missing file is created with the capacity -- without one it is an error", "[block]") {
  TempDir dir(scratch_dir());
  const std::string path = dir.file("dev.img");
  CHECK_THROWS_WITH(BlockDevice(block_config(path, 0)), Contains("does not exist"));
  {
    BlockDevice dev(block_config(path, 1 << 20));
    CHECK(dev.capacity_bytes() == 1 << 20);
    CHECK(dev.logical_block_bytes() == dio_alignment(path));
    CHECK(dev.o_direct());
    CHECK(dev.engine() == IoEngineKind::kIoUring);
    CHECK(!dev.report().identity.block_device);
  }
  CHECK(std::filesystem::file_size(path) == 1 << 20);
  // An existing file without a capacity is used whole.
  BlockDevice again(block_config(path, 0));
  CHECK(again.capacity_bytes() == 1 << 20);
}

TEST_CASE("a capacity that is not a multiple of the logical block is refused", "[block]") {
  TempDir dir(scratch_dir());
  const std::string path = dir.file("dev.img");
  const uint32_t lbs = dio_alignment(testing::make_sparse_file(dir.file("probe"), 4096));
  CHECK_THROWS_WITH(BlockDevice(block_config(path, (1 << 20) + lbs / 2)),
                    Contains("not a multiple of the logical block size"));
}

TEST_CASE("a file held by another BlockDevice is refused (flock)", "[block]") {
  TempDir dir(scratch_dir());
  const std::string path = dir.file("dev.img");
  BlockDevice first(block_config(path, 1 << 20));
  CHECK_THROWS_AS(BlockDevice(block_config(path, 1 << 20)), SafetyError);
}

TEST_CASE("closing a device releases it at once, even with io_uring's registered file", "[block]") {
  TempDir dir(scratch_dir());
  const std::string path = dir.file("dev.img");
  for (int i = 0; i < 20; ++i) {
    BlockDevice dev(block_config(path, 1 << 20));
    dev.write(0, 64 << 10);
  }
}

// ---------------------------------------------------------------------------------------------
// Verify mode

TEST_CASE(
    "verify: every written block carries magic, offset, generation and the CRC32C of "
    "its payload, and reads check them",
    "[block][verify]") {
  TempDir dir(scratch_dir());
  const std::string path = dir.file("dev.img");
  const uint64_t cap = 4 << 20;
  auto engine = GENERATE(IoEngineKind::kIoUring, IoEngineKind::kPsync);
  BlockDevice dev(block_config(path, cap, true, engine));
  const uint32_t lbs = dev.logical_block_bytes();
  dev.write(0, 200 << 10);       // 4 pieces of 64 KiB (the last short): generations 1-4
  dev.write(1 << 20, lbs);       // generation 5
  dev.write(64 << 10, 2 * lbs);  // overwrites the start of piece 2: generation 6
  // Read back independently: the file, buffered, and the table CRC.
  auto check_block = [&](uint64_t off, uint64_t gen) {
    const auto blk = testing::read_bytes(path, off, lbs);
    BlockDevice::VerifyHeader h;
    std::memcpy(&h, blk.data(), sizeof h);
    CHECK(h.magic == 0x31304B4C42515046ull);
    CHECK(std::memcmp(blk.data(), "FPQBLK01", 8) == 0);
    CHECK(h.offset == off);
    CHECK(h.generation == gen);
    CHECK(h.zero == 0);
    CHECK(h.payload_crc32c == crc32c_portable(blk.data() + 32, lbs - 32));
  };
  check_block(0, 1);
  check_block(63 << 10, 1);
  check_block(64 << 10, 6);
  check_block((64 << 10) + lbs, 6);
  check_block((64 << 10) + 2 * lbs, 2);
  check_block(192 << 10, 4);
  check_block(1 << 20, 5);

  dev.read(0, 200 << 10);
  CHECK(dev.verify_counters().blocks_checked == (200u << 10) / lbs);
  CHECK(dev.verify_counters().blocks_unchecked == 0);
  dev.read(2 << 20, 4 * lbs);  // never written: not checked, counted
  CHECK(dev.verify_counters().blocks_unchecked == 4);
  CHECK(dev.counters().writes == 3);
  CHECK(dev.counters().reads == 2);
  // A cache's device (the cell runner sets it for every framework but direct): a read of a
  // block never written is reported with its offset, not accepted.
  dev.set_unwritten_reads_are_errors(true);
  dev.read(0, 4 * lbs);  // written: fine
  try {
    dev.read((2 << 20) - lbs, 2 * lbs);
    FAIL("read of an unwritten block accepted");
  } catch (const VerifyError& e) {
    CHECK(e.offset() == (2u << 20) - lbs);
    CHECK_THAT(e.what(), Catch::Contains("which this run never wrote"));
  }
  CHECK(dev.verify_counters().blocks_unchecked == 4);
}

TEST_CASE("verify: a flipped byte anywhere in a block fails the read with that block's offset",
          "[block][verify]") {
  TempDir dir(scratch_dir());
  const std::string path = dir.file("dev.img");
  BlockDevice dev(block_config(path, 1 << 20));
  const uint32_t lbs = dev.logical_block_bytes();
  dev.write(0, 64 * lbs);
  const uint64_t block = 17 * lbs;
  // magic, offset, generation, CRC, reserved, first and last payload byte
  auto where = GENERATE_COPY(values<uint64_t>({0, 9, 16, 24, 28, 32, lbs - 1u}));
  testing::flip_byte(path, block + where);
  try {
    dev.read(0, 64 * lbs);
    FAIL("the corruption at byte " << where << " of the block was not detected");
  } catch (const VerifyError& e) {
    CHECK(e.offset() == block);
    CHECK_THAT(e.what(), Contains("offset " + std::to_string(block)));
  }
  // The other blocks still verify; the device keeps working after the failure.
  dev.read(0, 16 * lbs);
  CHECK(dev.verify_counters().blocks_checked >= 16);
}

TEST_CASE(
    "verify: a stale block (an older write of the same offset) is caught by its "
    "generation",
    "[block][verify]") {
  TempDir dir(scratch_dir());
  const std::string path = dir.file("dev.img");
  BlockDevice dev(block_config(path, 1 << 20));
  const uint32_t lbs = dev.logical_block_bytes();
  dev.write(8 * lbs, lbs);
  const auto old = testing::read_bytes(path, 8 * lbs, lbs);  // a valid block, generation 1
  dev.write(8 * lbs, lbs);                                   // generation 2
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  REQUIRE(::pwrite(fd, old.data(), lbs, 8 * lbs) == static_cast<ssize_t>(lbs));
  ::fsync(fd);
  ::close(fd);
  CHECK_THROWS_WITH(dev.read(8 * lbs, lbs), Contains("generation 1 instead of 2"));
}

TEST_CASE("misaligned or out-of-range I/O is refused before it is issued", "[block]") {
  TempDir dir(scratch_dir());
  if (testing::on_tmpfs(dir.path())) {
    WARN("skipped: the scratch directory is on tmpfs, which accepts unaligned O_DIRECT");
    return;
  }
  const std::string path = dir.file("dev.img");
  BlockDevice dev(block_config(path, 1 << 20));
  const uint32_t lbs = dev.logical_block_bytes();
  CHECK_THROWS_AS(dev.write(lbs / 2, lbs), std::invalid_argument);
  CHECK_THROWS_AS(dev.read(0, lbs + 1), std::invalid_argument);
  CHECK_THROWS_AS(dev.trim(1, lbs), std::invalid_argument);
  CHECK_THROWS_WITH(dev.write((1 << 20) - lbs, 2 * lbs), Contains("past the capacity"));
  CHECK(dev.counters().writes == 0);
  CHECK(dev.counters().reads == 0);
  CHECK(testing::read_bytes(path, 0, 1 << 20) == std::vector<unsigned char>(1 << 20, 0));
}

// ---------------------------------------------------------------------------------------------
// Discard

TEST_CASE("trim punches holes in the file -- reads of discarded blocks are not verified",
          "[block][discard]") {
  TempDir dir(scratch_dir());
  const std::string path = dir.file("dev.img");
  BlockDevice dev(block_config(path, 4 << 20));
  dev.write(0, 4 << 20);
  const uint64_t full = testing::allocated_blocks(path);
  CHECK(full >= (4u << 20) / 512);
  dev.trim(1 << 20, 2 << 20);
  CHECK(dev.discard_supported());
  CHECK(testing::allocated_blocks(path) <= full - (2u << 20) / 512);
  CHECK(dev.counters().trims == 1);
  CHECK(dev.counters().trimmed_bytes == 2u << 20);
  const uint64_t checked = dev.verify_counters().blocks_checked;
  dev.read(0, 4 << 20);
  const uint32_t lbs = dev.logical_block_bytes();
  CHECK(dev.verify_counters().blocks_unchecked == (2u << 20) / lbs);
  CHECK(dev.verify_counters().blocks_checked - checked == (2u << 20) / lbs);
  // The hole reads as zeros.
  CHECK(testing::read_bytes(path, 1 << 20, 16) == std::vector<unsigned char>(16, 0));
}

TEST_CASE("discard_before_run starts from an empty (all holes) file", "[block][discard]") {
  TempDir dir(scratch_dir());
  const std::string path = dir.file("dev.img");
  {
    BlockDevice dev(block_config(path, 2 << 20, false));
    dev.write(0, 2 << 20);
  }
  CHECK(testing::allocated_blocks(path) >= (2u << 20) / 512);
  BlockConfig c = block_config(path, 2 << 20, false);
  c.discard_before_run = true;
  BlockDevice dev(c);
  CHECK(testing::allocated_blocks(path) == 0);
}

// ---------------------------------------------------------------------------------------------
// The signature gate on a file

TEST_CASE("a file carrying a filesystem is refused unless --force-destroy names it",
          "[block][safety]") {
  if (testing::shell("command -v mkfs.ext4") != 0) {
    WARN("skipped: mkfs.ext4 (e2fsprogs) is not installed");
    return;
  }
  TempDir dir(scratch_dir());
  const std::string path = testing::make_sparse_file(dir.file("fs.img"), 8 << 20);
  REQUIRE(testing::shell("mkfs.ext4 -q -F '" + path + "'") == 0);
  const DeviceReport r = inspect_device(path);
  REQUIRE(!r.signatures.empty());
  CHECK(r.signatures[0].type == "ext4");
  CHECK(r.signatures[0].offset == 0x438);  // the ext4 superblock magic (s_magic at 1024 + 56)
  try {
    BlockDevice dev(block_config(path, 0));
    FAIL("a file with an ext4 filesystem was accepted");
  } catch (const SafetyError& e) {
    CHECK_THAT(e.what(), Contains("ext4") && Contains("--force-destroy=" + r.identity.real_path));
  }
  BlockConfig wrong = block_config(path, 0);
  wrong.force_destroy = "SOMEONE-ELSES-SERIAL";
  CHECK_THROWS_WITH(BlockDevice(wrong), Contains("does not name this device"));
  BlockConfig forced = block_config(path, 0);
  forced.force_destroy = r.identity.real_path;
  BlockDevice dev(forced);
  dev.write(0, 64 << 10);
  CHECK(inspect_device(path).signatures.empty());  // the superblock was overwritten
}

}  // namespace
}  // namespace flashpq::test_block_device
