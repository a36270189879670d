// devices/null_device.h — a device that stores nothing and only counts (Device's counters).
// For pure hit-ratio sweeps at full speed (DESIGN.md "device").
#pragma once

#include "devices/device.h"

namespace flashpq {

class NullDevice final : public Device {
 public:
  /// REQUIRES: config validated.
  explicit NullDevice(const DeviceConfig& config)
      : Device(config.capacity_bytes, config.logical_block_bytes) {}

 private:
  void do_write(uint64_t, uint64_t) override {}
  void do_read(uint64_t, uint64_t) override {}
  void do_trim(uint64_t, uint64_t) override {}
};

}  // namespace flashpq
