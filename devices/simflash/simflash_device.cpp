// devices/simflash/simflash_device.cpp — byte extents to FTL page operations.
#include "devices/simflash/simflash_device.h"

#include <bit>
#include <cmath>
#include <iterator>
#include <memory>
#include <optional>

namespace flashpq {

namespace {

// Validates before the Device base is built from the derived capacity.
const SimFlashConfig& validated_for_device(const SimFlashConfig& c) {
  c.validate();
  return c;
}

}  // namespace

SimFlashDevice::SimFlashDevice(const DeviceConfig& config)
    : SimFlashDevice(simflash_config(config.params, config.seed)) {}

SimFlashDevice::SimFlashDevice(const SimFlashConfig& config)
    : Device(validated_for_device(config).exported_bytes(), config.page_size_bytes),
      ftl_(config),
      page_shift_(uint32_t(std::countr_zero(config.page_size_bytes))) {
  if (config.precondition) ftl_.write_extent(0, ftl_.logical_pages());
  if (config.zoned()) {
    set_zone_geometry(ZoneGeometry{config.zone_size_bytes(), config.zns_zone_capacity_bytes,
                                   config.zones(), config.zns_max_open_zones,
                                   config.zns_max_active_zones});
  }
}

void SimFlashDevice::do_write(uint64_t offset, uint64_t len) {
  ftl_.write_extent(offset >> page_shift_, len >> page_shift_);
}

void SimFlashDevice::do_write_placed(uint64_t offset, uint64_t len, uint32_t placement) {
  ftl_.write_extent(offset >> page_shift_, len >> page_shift_, placement);
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
  const std::vector<ColumnSpec>& specs = kSimFlashDeviceType.columns;
  const std::string values[] = {format_number(d.host_pages_written),
                                format_number(d.nand_pages_written),
                                format_number(d.nand_pages_written * page),
                                format_number(d.gc_pages_copied),
                                format_number(d.erases),
                                format_number(uint64_t{erases.min}),
                                format_number(erases.mean),
                                format_number(uint64_t{erases.max}),
                                format_number(wa_ftl),
                                format_number(context.host_write_factor * wa_ftl),
                                ftl_.zoned() ? format_number(d.zone_resets) : std::string()};
  static_assert(std::size(values) == 11);
  std::vector<Column> out;
  for (size_t i = 0; i < specs.size(); ++i) out.push_back(specs[i].with(values[i]));
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
    {column("host_pages_written")
         .units("pages")
         .desc("pages the host wrote to the FTL after the warm-up (a write covers whole pages)"),
     column("nand_pages_written")
         .units("pages")
         .desc("pages programmed into NAND after the warm-up: the host's and garbage "
               "collection's copies"),
     column("nand_bytes_written").units("bytes").desc("nand_pages_written × device.page_size"),
     column("gc_pages_copied")
         .units("pages")
         .desc("valid pages garbage collection moved after the warm-up"),
     column("erases").units("erases").desc("erase-block erases after the warm-up"),
     column("erase_count_min")
         .units("erases")
         .desc("fewest erases of any erase block, over the whole run (wear)"),
     column("erase_count_mean")
         .units("erases")
         .desc("mean erases per erase block, over the whole run"),
     column("erase_count_max")
         .units("erases")
         .desc("most erases of any erase block, over the whole run"),
     column("wa_ftl").units("ratio").desc(
         "the FTL's write amplification: nand_pages_written / host_pages_written"),
     column("wa_combined")
         .units("ratio")
         .desc("NAND bytes per byte of missed objects: wa_implementation × wa_ftl (RIPQ paper "
               "§6, Figure 8b; framework direct: wa_ftl)"),
     column("zone_resets")
         .units("resets")
         .desc("zones the host reset after the warm-up, each erasing the superblocks it wrote "
               "(ZNS; the host's collection)")
         .only_if_set("on a zoned simflash device (device.zns.zone_capacity)")},
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
