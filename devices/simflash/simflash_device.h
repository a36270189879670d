// devices/simflash/simflash_device.h — the `simflash` device: byte-addressed writes, reads and
// TRIMs onto the page-mapped FTL (ftl.h).
//
// The device's logical block is the flash page (SimFlashConfig::page_size_bytes): the Device
// base rejects offsets and lengths that are not page multiples and extents past the exported
// capacity (exported logical pages × page size). A write is one FTL extent write
// (Ftl::write_extent: the old copies of all its pages are invalidated before any is
// programmed); reads and TRIMs are one FTL operation per page, in ascending page order. A read of a
// page never written (or trimmed) is allowed and counted (FtlCounters::host_pages_read_unmapped).
// Zoned (device.zns.zone_capacity), the device declares its zones (Device::zone_geometry) and
// passes zone reset, finish and append to the FTL's zones (ftl.h "Zoned Namespaces").
// Functional only: the timed mode drives the same FTL through Ftl::set_op_log().
#pragma once

#include <string>
#include <vector>

#include "devices/device.h"
#include "devices/simflash/ftl.h"

namespace flashpq {

class SimFlashDevice final : public Device {
 public:
  /// Decodes config.params (simflash_config(): the profile, then the keys set) with the cell's
  /// seed. The capacity is the exported capacity and the logical block the page size. Throws
  /// std::invalid_argument quoting a bad value.
  explicit SimFlashDevice(const DeviceConfig& config);
  /// Same, from a decoded config. Throws std::invalid_argument as SimFlashConfig::validate().
  explicit SimFlashDevice(const SimFlashConfig& config);

  const Ftl& ftl() const { return ftl_; }
  /// For the timed mode (Ftl::set_op_log) and tests.
  Ftl& ftl() { return ftl_; }

 private:
  void do_write(uint64_t offset, uint64_t len) override;
  void do_write_placed(uint64_t offset, uint64_t len, uint32_t placement) override;
  void do_read(uint64_t offset, uint64_t len) override;
  void do_zone_reset(uint32_t z) override { ftl_.zone_reset(z); }
  void do_zone_finish(uint32_t z) override { ftl_.zone_finish(z); }
  uint64_t do_zone_append(uint32_t z, uint64_t len) override {
    return ftl_.zone_append(z, len >> page_shift_) << page_shift_;
  }
  void do_trim(uint64_t offset, uint64_t len) override;
  void do_begin_measurement() override;
  std::vector<Column> do_columns(const ReportContext& context) const override;

  Ftl ftl_;
  FtlCounters measured_from_;                         // the FTL's counters at begin_measurement()
  std::vector<FdpHandleCounters> fdp_measured_from_;  // and its per-handle FDP counters
  uint32_t page_shift_;                               // log2(page size)
};

/// The simflash device as registered (devices/device.cpp). Its columns, after the warm-up:
/// host_pages_written, nand_pages_written, nand_bytes_written, gc_pages_copied, erases; the
/// erase counts over all erase blocks at the end of the run (erase_count_min, _mean, _max);
/// wa_ftl = NAND ÷ host pages written, and wa_combined = ReportContext::host_write_factor ×
/// wa_ftl (a cache's implementation WA × the FTL's: NAND bytes per miss byte; direct: wa_ftl).
extern const DeviceType kSimFlashDeviceType;

}  // namespace flashpq
