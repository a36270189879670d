// devices/simflash/simflash_device.cpp — byte extents to FTL page operations.
#include "devices/simflash/simflash_device.h"

#include <bit>

namespace flashpq {

namespace {

// Validates before the Device base is built from the derived capacity.
const SimFlashConfig& validated(const SimFlashConfig& c) {
  c.validate();
  return c;
}

}  // namespace

SimFlashDevice::SimFlashDevice(const DeviceConfig& config) : SimFlashDevice(config.simflash) {}

SimFlashDevice::SimFlashDevice(const SimFlashConfig& config)
    : Device(validated(config).exported_bytes(), config.page_size_bytes),
      ftl_(config),
      page_shift_(uint32_t(std::countr_zero(config.page_size_bytes))) {}

void SimFlashDevice::do_write(uint64_t offset, uint64_t len) {
  ftl_.write_extent(offset >> page_shift_, len >> page_shift_);
}

void SimFlashDevice::do_read(uint64_t offset, uint64_t len) {
  const uint64_t end = (offset + len) >> page_shift_;
  for (uint64_t lpn = offset >> page_shift_; lpn < end; ++lpn) ftl_.read(lpn);
}

void SimFlashDevice::do_trim(uint64_t offset, uint64_t len) {
  const uint64_t end = (offset + len) >> page_shift_;
  for (uint64_t lpn = offset >> page_shift_; lpn < end; ++lpn) ftl_.trim(lpn);
}

}  // namespace flashpq
