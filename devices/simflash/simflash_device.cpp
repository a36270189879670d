// devices/simflash/simflash_device.cpp — byte extents to FTL page operations.
#include "devices/simflash/simflash_device.h"

#include <bit>
#include <cmath>
#include <memory>
#include <optional>

namespace flashpq {

namespace {

// Validates before the Device base is built from the derived capacity.
const SimFlashConfig& validated(const SimFlashConfig& c) {
  c.validate();
  return c;
}

}  // namespace

SimFlashDevice::SimFlashDevice(const DeviceConfig& config)
    : SimFlashDevice(simflash_config(config.params, config.seed)) {}

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

void SimFlashDevice::do_begin_measurement() {
  measured_from_ = ftl_.counters();
}

std::vector<Column> SimFlashDevice::do_columns(const ReportContext& context) const {
  const FtlCounters d = ftl_.counters() - measured_from_;
  const EraseCountStats erases = ftl_.erase_count_stats();
  const double wa_ftl = d.host_pages_written == 0 ? std::nan("")
                                                  : static_cast<double>(d.nand_pages_written) /
                                                        static_cast<double>(d.host_pages_written);
  const uint64_t page = ftl_.config().page_size_bytes;
  std::vector<Column> out = kSimFlashDeviceType.columns;
  const std::string values[] = {format_number(d.host_pages_written),
                                format_number(d.nand_pages_written),
                                format_number(d.nand_pages_written * page),
                                format_number(d.gc_pages_copied),
                                format_number(d.erases),
                                format_number(uint64_t{erases.min}),
                                format_number(erases.mean),
                                format_number(uint64_t{erases.max}),
                                format_number(wa_ftl),
                                format_number(context.host_write_factor * wa_ftl)};
  for (size_t i = 0; i < out.size(); ++i) out[i].text = values[i];
  return out;
}

const DeviceType kSimFlashDeviceType{
    &simflash_spec,
    [](const DeviceConfig& config, Params& shown) {
      const SimFlashConfig f = simflash_config(config.params, config.seed);
      show_simflash_config(f, shown);
      // Sized per cell: the row's device_exported_bytes says
      // what it became.
      if (simflash_size_to_cache(config.params)) {
        shown.set("device.blocks_per_plane", "");
      }
      return DeviceBounds{f.exported_bytes(), f.page_size_bytes};
    },
    [](const DeviceConfig& config) -> std::unique_ptr<Device> {
      return std::make_unique<SimFlashDevice>(config);
    },
    {{"host_pages_written", "", true},
     {"nand_pages_written", "", true},
     {"nand_bytes_written", "", true},
     {"gc_pages_copied", "", true},
     {"erases", "", true},
     {"erase_count_min", "", true},
     {"erase_count_mean", "", true},
     {"erase_count_max", "", true},
     {"wa_ftl", "", true},
     {"wa_combined", "", true}},
    false,
    [](DeviceConfig& config, uint64_t footprint_bytes) -> std::optional<DeviceBounds> {
      if (!simflash_size_to_cache(config.params)) {
        return std::nullopt;
      }
      SimFlashConfig f = simflash_config(config.params, config.seed);
      f.blocks_per_plane = simflash_blocks_per_plane_for(f, footprint_bytes);
      config.params = simflash_with_blocks_per_plane(config.params, f.blocks_per_plane);
      return DeviceBounds{f.exported_bytes(), f.page_size_bytes};
    }};

}  // namespace flashpq
