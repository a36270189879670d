// devices/simflash/simflash_device.cpp — byte extents to FTL page operations.
#include "devices/simflash/simflash_device.h"

#include <bit>
#include <cmath>
#include <iterator>
#include <memory>
#include <optional>

#include "devices/host_ftl/host_ftl.h"
#include "devices/simflash/simflash_service.h"

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
  fdp_measured_from_ = ftl_.fdp_counters();
}

std::vector<Column> SimFlashDevice::do_columns(const ReportContext& context) const {
  const FtlCounters d = ftl_.counters() - measured_from_;
  const EraseCountStats erases = ftl_.erase_count_stats();
  const double wa_ftl = d.host_pages_written == 0 ? std::nan("")
                                                  : static_cast<double>(d.nand_pages_written) /
                                                        static_cast<double>(d.host_pages_written);
  const uint64_t page = ftl_.config().page_size_bytes;
  const std::vector<ColumnSpec>& specs = kSimFlashDeviceType.columns;
  // FDP: one count per reclaim unit handle since the warm-up, handle 0 first, comma-separated.
  const bool fdp = ftl_.config().fdp();
  auto fdp_handle_list = [&](uint64_t FdpHandleCounters::*field) {
    std::string out;
    if (!fdp) return out;
    const std::vector<FdpHandleCounters>& now = ftl_.fdp_counters();
    for (size_t h = 0; h < now.size(); ++h) {
      const uint64_t before = h < fdp_measured_from_.size() ? fdp_measured_from_[h].*field : 0;
      if (h != 0) out += ',';
      out += std::to_string(now[h].*field - before);
    }
    return out;
  };
  const std::string values[] = {
      format_number(d.host_pages_written), format_number(d.nand_pages_written),
      format_number(d.nand_pages_written * page), format_number(d.gc_pages_copied),
      format_number(d.erases), format_number(uint64_t{erases.min}), format_number(erases.mean),
      format_number(uint64_t{erases.max}), format_number(wa_ftl),
      format_number(context.host_write_factor * wa_ftl),
      ftl_.zoned() ? format_number(d.zone_resets) : std::string(),
      fdp_handle_list(&FdpHandleCounters::host_pages_written),
      fdp_handle_list(&FdpHandleCounters::media_pages_written),
      fdp ? format_number(d.fdp_media_reallocated_events) : std::string(),
      fdp ? format_number(d.fdp_invalid_placement_events) : std::string(),
      fdp ? format_number(d.fdp_misplaced_writes) : std::string(),
      // host_ftl_*: filled by a host FTL above (HostFtlDevice)
      std::string(), std::string(), std::string()};
  static_assert(std::size(values) == 19);
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
      return DeviceBounds{f.cache_visible_bytes(), f.page_size_bytes};
    },
    [](const DeviceConfig& config) -> std::unique_ptr<Device> {
      auto flash = std::make_unique<SimFlashDevice>(config);
      const SimFlashConfig& f = flash->ftl().config();
      if (f.zns_host_ftl) {
        const double op_rate = f.zns_host_ftl_op_rate;
        return std::make_unique<HostFtlDevice>(std::move(flash), op_rate);
      }
      return flash;
    },
    [] {
      std::vector<ColumnSpec> columns{
          column("host_pages_written")
              .units("pages")
              .desc(
                  "pages the host wrote to the FTL after the warm-up (a write covers whole pages)"),
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
                    "§6, Figure 8b; framework direct: wa_ftl), × wa_host_ftl with a host FTL"),
          column("zone_resets")
              .units("resets")
              .desc("zones the host reset after the warm-up, each erasing the superblocks it wrote "
                    "(ZNS; the host's collection)")
              .only_if_set("on a zoned simflash device (device.zns.zone_capacity)"),
          column("fdp_handle_host_pages_written")
              .units("pages")
              .text()
              .desc("FDP: pages the host wrote through each reclaim unit handle after the warm-up, "
                    "handle 0 first, comma-separated (FEMU's per-handle HBMW)")
              .only_if_set("with FDP (device.fdp.handles > 0)"),
          column("fdp_handle_media_pages_written")
              .units("pages")
              .text()
              .desc(
                  "FDP: pages of each handle's data programmed after the warm-up (its host writes "
                  "and GC's copies of them), handle 0 first (FEMU's per-handle MBMW); one over "
                  "the other is that handle's device-level WA")
              .only_if_set("with FDP (device.fdp.handles > 0)"),
          column("fdp_media_reallocated_events")
              .units("events")
              .desc("FDP event 80h after the warm-up: reclaim units of initially isolated handles "
                    "garbage collection moved valid data out of")
              .only_if_set("with FDP (device.fdp.handles > 0)"),
          column("fdp_invalid_placement_events")
              .units("events")
              .desc(
                  "FDP event 03h after the warm-up: writes whose placement handle the device does "
                  "not have (written through handle 0)")
              .only_if_set("with FDP (device.fdp.handles > 0)"),
          column("fdp_misplaced_writes")
              .units("requests")
              .desc("write requests sent through another handle than their own "
                    "(device.fdp.misplaced_fraction) after the warm-up")
              .only_if_set("with FDP (device.fdp.handles > 0)")};
      // Then those the host FTL over the zones fills (devices/host_ftl/host_ftl.h).
      for (ColumnSpec& c : HostFtlDevice::column_specs()) columns.push_back(std::move(c));
      return columns;
    }(),
    DeviceClock::kSimulated,
    [](DeviceConfig& config, uint64_t footprint_bytes) -> std::optional<DeviceBounds> {
      if (!simflash_size_to_cache(config.params)) {
        return std::nullopt;
      }
      SimFlashConfig f = simflash_config(config.params, config.seed);
      f.blocks_per_plane = simflash_blocks_per_plane_for(f, footprint_bytes);
      config.params = simflash_with_blocks_per_plane(config.params, f.blocks_per_plane);
      return DeviceBounds{f.cache_visible_bytes(), f.page_size_bytes};
    },
    nullptr,
    [](Device& device, const ServiceModel::Options& options) -> std::unique_ptr<ServiceModel> {
      // make() built it (DeviceType::service_model's contract): the simflash device, or a
      // host FTL over it, whose operations reach the same FTL.
      auto* host_ftl = dynamic_cast<HostFtlDevice*>(&device);
      auto& flash = static_cast<SimFlashDevice&>(host_ftl ? host_ftl->zoned() : device);
      return std::make_unique<SimFlashServiceModel>(device, flash, options);
    },
    // The FTL's page map: about 24 B per 4 KiB of exported space (its forward and reverse
    // maps and per-block state); a host FTL adds 4 B per page of its own space and of the
    // zones' (its two maps).
    [](const DeviceConfig& config, const DeviceBounds& bounds) -> uint64_t {
      const SimFlashConfig f = simflash_config(config.params, config.seed);
      const uint64_t ftl = 24 * (f.exported_bytes() / 4096 + 1);
      if (!f.zns_host_ftl) return ftl;
      return ftl + 4 * (f.exported_bytes() + bounds.capacity_bytes) / f.page_size_bytes;
    },
    // A preconditioned device holds valid data everywhere; bare zones have no collection.
    [](const DeviceConfig& config) {
      const SimFlashConfig f = simflash_config(config.params, config.seed);
      return !f.precondition && (!f.zoned() || f.zns_host_ftl);
    }};

}  // namespace flashpq
