// devices/device.h — the device extension point.
//
// Source: DESIGN.md "Data flow" (device), modelled on CacheLib navy's Device: the public
// non-virtual write/read/trim check alignment and bounds and do the accounting; a private
// virtual hook does the work. A framework places objects on a device only through this class,
// so the same framework runs on `null`, `simflash` and `block` unchanged.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "devices/block/block_config.h"
#include "devices/simflash/simflash_config.h"

namespace flashpq {

/// Counters every device keeps, in bytes and operations.
struct DeviceCounters {
  uint64_t writes = 0;
  uint64_t write_bytes = 0;
  uint64_t reads = 0;
  uint64_t read_bytes = 0;
  uint64_t trims = 0;
  uint64_t trimmed_bytes = 0;
};

/// The `device:` section of an experiment.
struct DeviceConfig {
  /// Registered device name: "null" (counts only, unbounded), "simflash" (the simulated
  /// FTL and flash of devices/simflash/) or "block" (a real file or block device,
  /// devices/block/). Default "null".
  std::string name = "null";
  /// Exported capacity in bytes; 0 (default) means unbounded (the null device only).
  uint64_t capacity_bytes = 0;
  /// Logical block size in bytes: every offset and length must be a multiple. Default 1
  /// (byte-addressed, for the null device). REQUIRES: a power of two.
  uint32_t logical_block_bytes = 1;
  /// The simflash device's geometry, capacity, GC and timings (read by "simflash" only; it
  /// sets the capacity and the logical block size itself, from these).
  SimFlashConfig simflash;
  /// The block device's path, engine, queue depth and options (read by "block" only; it sets
  /// the capacity and the logical block size itself, from the device it opens).
  BlockConfig block;

  /// Throws std::invalid_argument quoting the bad value (unknown name, block size not a power
  /// of two, and for simflash and block anything their configs' validate() rejects).
  void validate() const;
};

/// A byte-addressed device. Not thread-safe.
class Device {
 public:
  virtual ~Device() = default;
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  /// Writes `len` bytes at byte `offset`. Throws std::invalid_argument if offset or len is not
  /// a multiple of the logical block size, len is 0, or the extent ends past the capacity.
  void write(uint64_t offset, uint64_t len) {
    check(offset, len, "write");
    do_write(offset, len);
    count_write(len);
  }
  /// Reads `len` bytes at byte `offset`. Same checks as write.
  void read(uint64_t offset, uint64_t len) {
    check(offset, len, "read");
    do_read(offset, len);
    count_read(len);
  }
  /// Reads the whole logical blocks that cover [offset, offset + len): how a cache reads an
  /// object stored at any byte offset (a hit, a materialization, a reinsertion). Nothing when
  /// len is 0. Throws as read() when the covering extent ends past the capacity.
  void read_covering(uint64_t offset, uint64_t len) {
    if (len == 0) return;
    const uint64_t lo = round_down(offset);
    read(lo, round_down(offset + len + block_bytes_ - 1) - lo);
  }
  /// Discards `len` bytes at byte `offset` (TRIM). Same checks as write.
  void trim(uint64_t offset, uint64_t len) {
    check(offset, len, "trim");
    do_trim(offset, len);
    count_trim(len);
  }

  const DeviceCounters& counters() const { return counters_; }
  /// Exported capacity in bytes; 0 = unbounded.
  uint64_t capacity_bytes() const { return capacity_bytes_; }
  uint32_t logical_block_bytes() const { return block_bytes_; }

 protected:
  Device(uint64_t capacity_bytes, uint32_t logical_block_bytes)
      : capacity_bytes_(capacity_bytes), block_bytes_(logical_block_bytes) {}

  /// The checks of write/read/trim: throws std::invalid_argument naming `what`, the offset and
  /// the length when the extent is empty, misaligned or past the capacity. Inline, without a
  /// division, when the logical block size is a power of two (every hit of a flash framework
  /// reads: this is on the per-request path); check_slow() otherwise and to throw.
  void check(uint64_t offset, uint64_t len, const char* what) const {
    const uint64_t mask = uint64_t{block_bytes_} - 1;
    if ((block_bytes_ & mask) == 0 && len != 0 && ((offset | len) & mask) == 0 &&
        (capacity_bytes_ == 0 || (offset <= capacity_bytes_ && len <= capacity_bytes_ - offset)))
        [[likely]] {
      return;
    }
    check_slow(offset, len, what);
  }
  void check_slow(uint64_t offset, uint64_t len, const char* what) const;
  /// x rounded down to a multiple of the logical block size (a mask when a power of two).
  uint64_t round_down(uint64_t x) const {
    const uint64_t b = block_bytes_;
    return (b & (b - 1)) == 0 ? x & ~(b - 1) : x / b * b;
  }
  /// For an implementation with an I/O path besides write/read/trim (the block device's
  /// asynchronous runner): counts an operation as those calls do.
  void count_write(uint64_t len) {
    counters_.writes++;
    counters_.write_bytes += len;
  }
  void count_read(uint64_t len) {
    counters_.reads++;
    counters_.read_bytes += len;
  }
  void count_trim(uint64_t len) {
    counters_.trims++;
    counters_.trimmed_bytes += len;
  }

 private:
  virtual void do_write(uint64_t offset, uint64_t len) = 0;
  virtual void do_read(uint64_t offset, uint64_t len) = 0;
  virtual void do_trim(uint64_t offset, uint64_t len) = 0;

  uint64_t capacity_bytes_;
  uint32_t block_bytes_;
  DeviceCounters counters_;
};

/// Creates the device registered under config.name (validated here). Throws
/// std::invalid_argument for an unknown name.
std::unique_ptr<Device> make_device(const DeviceConfig& config);

/// The registered device names.
const std::vector<std::string>& device_names();

}  // namespace flashpq
