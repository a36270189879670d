// devices/null_device.h — a device that stores nothing and only counts (Device's counters).
// For pure hit-ratio sweeps at full speed (docs/DESIGN.md "Data flow", device). Registered as
// "null": no keys, unbounded, byte-addressed, no columns of its own.
#pragma once

#include <cstdint>

#include "devices/device.h"

namespace flashpq {

class NullDevice final : public Device {
 public:
  /// `capacity_bytes` 0 = unbounded; every offset and length must be a multiple of
  /// `logical_block_bytes` (≥ 1; registered as "null", the device is unbounded and
  /// byte-addressed).
  explicit NullDevice(uint64_t capacity_bytes = 0, uint32_t logical_block_bytes = 1)
      : Device(capacity_bytes, logical_block_bytes) {}

 private:
  void do_write(uint64_t, uint64_t) override {}
  void do_read(uint64_t, uint64_t) override {}
  void do_trim(uint64_t, uint64_t) override {}
};

/// The null device as registered (devices/device.cpp).
extern const DeviceType kNullDeviceType;

}  // namespace flashpq
