// devices/simflash/simflash_device.h — the `simflash` device: byte-addressed writes, reads and
// TRIMs onto the page-mapped FTL (ftl.h).
//
// The device's logical block is the flash page (SimFlashConfig::page_size_bytes): the Device
// base rejects offsets and lengths that are not page multiples and extents past the exported
// capacity (exported logical pages × page size). A write is one FTL extent write
// (Ftl::write_extent: the old copies of all its pages are invalidated before any is
// programmed); reads and TRIMs are one FTL operation per page, in ascending page order. A read of a
// page never written (or trimmed) is allowed and counted (FtlCounters::host_pages_read_unmapped).
// Functional only: the timed mode drives the same FTL through Ftl::set_op_log().
#pragma once

#include "devices/device.h"
#include "devices/simflash/ftl.h"

namespace flashpq {

class SimFlashDevice final : public Device {
 public:
  /// Uses config.simflash only: capacity_bytes and logical_block_bytes come from it (exported
  /// capacity, page size); config.capacity_bytes and config.logical_block_bytes are ignored.
  /// Throws std::invalid_argument as SimFlashConfig::validate().
  explicit SimFlashDevice(const DeviceConfig& config);
  /// Same, from the simflash section alone.
  explicit SimFlashDevice(const SimFlashConfig& config);

  const Ftl& ftl() const { return ftl_; }
  /// For the timed mode (Ftl::set_op_log) and tests.
  Ftl& ftl() { return ftl_; }

 private:
  void do_write(uint64_t offset, uint64_t len) override;
  void do_read(uint64_t offset, uint64_t len) override;
  void do_trim(uint64_t offset, uint64_t len) override;

  Ftl ftl_;
  uint32_t page_shift_;  // log2(page size)
};

}  // namespace flashpq
