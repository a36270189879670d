// devices/fault.h — the fault layer: device errors injected the way a failing drive returns
// them, on any device (the `device.fault.*` keys).
//
// A drive that fails returns EIO for an operation, and keeps returning it for a bad sector
// (an unrecoverable read error, a write to a worn-out block). The layer models both: every
// read (write) fails with probability read_error_rate (write_error_rate), drawn from the cell's
// seeded stream RngStream::kFaultStream, and every operation whose extent covers one of
// at_offsets fails, every time. It sits at the device seam (Device::write/read/trim, and the
// block device's asynchronous path where the wall runner issues a request), before the device
// does the work, so an injected write leaves the device as it was. The error, DeviceIoError,
// names the device, the operation, the byte offset and the length; the cell fails with it in
// its row's `error` column and the other cells of a sweep run (docs/guide/errors.md "Injected
// faults"). Real I/O errors of a block device (a loop device over a full filesystem gives EIO)
// carry the same facts (devices/block/block_device.h).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/params.h"
#include "sim/rng.h"

namespace flashpq {

/// An I/O error of a device: injected by the fault layer (EIO, as a failing drive).
class DeviceIoError : public std::runtime_error {
 public:
  DeviceIoError(const std::string& what, uint64_t offset)
      : std::runtime_error(what), offset_(offset) {}
  /// Byte offset of the failing operation.
  uint64_t offset() const { return offset_; }

 private:
  uint64_t offset_;
};

/// What the device.fault.* keys say. Default: no fault.
struct FaultConfig {
  /// Probability that a read (a write) fails, in [0, 1]. Default 0.
  double read_error_rate = 0;
  double write_error_rate = 0;
  /// Byte offsets that fail every operation covering them (bad sectors), ascending. Default
  /// none.
  std::vector<uint64_t> at_offsets;
  /// Seed of the draws; 0 = the cell's seed. Default 0.
  uint64_t seed = 0;

  bool active() const { return read_error_rate > 0 || write_error_rate > 0 || !at_offsets.empty(); }
};

/// The device.fault.* keys (every device declares them): read_error_rate, write_error_rate,
/// at_offsets ("4096, 1MiB": byte offsets with units, comma-separated), seed.
const std::vector<KeySpec>& fault_keys();
/// Decodes the device.fault.* values of `params`. Throws std::invalid_argument naming the key
/// and quoting a bad value (an offset that is not a size).
FaultConfig fault_config(const Params& params);

/// The layer itself: decides, operation by operation, whether it fails.
class FaultInjector {
 public:
  enum Op : uint8_t { kRead, kWrite, kTrim };
  /// `device` names the device in messages; `cell_seed` is used when config.seed is 0.
  FaultInjector(const FaultConfig& config, std::string device, uint64_t cell_seed);

  /// Throws DeviceIoError if the operation on [offset, offset + len) fails: a trim never fails
  /// at random, a bad sector fails every operation covering it. One uniform draw per read or
  /// write when its rate is positive, none otherwise.
  void check(Op op, uint64_t offset, uint64_t len);

  /// Errors injected so far.
  uint64_t injected() const { return injected_; }

 private:
  [[noreturn]] void fail(Op op, uint64_t offset, uint64_t len, const char* why);

  FaultConfig config_;
  std::string device_;
  RngStream rng_;
  uint64_t injected_ = 0;
};

}  // namespace flashpq
