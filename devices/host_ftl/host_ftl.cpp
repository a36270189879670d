// devices/host_ftl/host_ftl.cpp — the host FTL's map, frontiers and greedy collection.
#include "devices/host_ftl/host_ftl.h"

#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

namespace flashpq {

namespace host_ftl_impl {

// ⌊zones × rate⌋, a rate written in decimal counted as meant (0.29 × 100 = 28.999… is 29).
uint32_t spare_zones(uint32_t zones, double op_rate) {
  return static_cast<uint32_t>(std::floor(zones * op_rate + 1e-9));
}

}  // namespace host_ftl_impl

uint32_t host_ftl_exposed_zones(uint32_t zones, double op_rate, uint32_t max_active_zones,
                                const char* op_rate_key, const char* max_active_key) {
  // The rate that leaves 3 spare zones: ⌊zones × r⌋ ≥ 3.
  const double works = zones > 0 ? std::ceil(3.0 / zones * 1000.0) / 1000.0 : 1.0;
  if (!(op_rate >= 0.0 && op_rate < 1.0) || host_ftl_impl::spare_zones(zones, op_rate) < 3 ||
      zones < 4 || host_ftl_impl::spare_zones(zones, op_rate) >= zones) {
    std::ostringstream rate, good;
    rate << op_rate;
    good << works;
    std::string suggestion = works < 1.0 && zones >= 4
                                 ? "; e.g. " + good.str()
                                 : "; the device has too few zones (" + std::to_string(zones) +
                                       "): at least 4 are needed";
    throw std::invalid_argument(
        std::string(op_rate_key) +
        ": expected a share of the zones in [0, 1) that holds back at least 3 of the device's " +
        std::to_string(zones) +
        " zones (the host FTL's collection needs them: devices/host_ftl/host_ftl.h), found " +
        rate.str() + suggestion);
  }
  if (max_active_zones == 1) {
    throw std::invalid_argument(std::string(max_active_key) +
                                ": the host FTL writes two zones at once (its host and GC "
                                "frontiers): expected 0 (no limit) or at least 2, found 1");
  }
  return zones - host_ftl_impl::spare_zones(zones, op_rate);
}

namespace host_ftl_impl {

const ZoneGeometry& checked_zones(const Device& zoned) {
  if (!zoned.zone_geometry().zoned()) {
    throw std::invalid_argument(
        "device.zns.host_ftl: the device below a host FTL must be zoned "
        "(device.zns.zone_capacity)");
  }
  return zoned.zone_geometry();
}

uint64_t exported_bytes_of(const Device& zoned, double op_rate) {
  const ZoneGeometry& z = checked_zones(zoned);
  return uint64_t{host_ftl_exposed_zones(z.zones, op_rate, z.max_active_zones,
                                         "device.zns.host_ftl_op_rate",
                                         "device.zns.max_active_zones")} *
         z.zone_capacity_bytes;
}

}  // namespace host_ftl_impl

HostFtlDevice::HostFtlDevice(std::unique_ptr<Device> zoned, double op_rate)
    : Device(host_ftl_impl::exported_bytes_of(*zoned, op_rate), zoned->logical_block_bytes()),
      zoned_(std::move(zoned)),
      zones_(zoned_->zone_geometry().zones),
      exposed_zones_(
          static_cast<uint32_t>(capacity_bytes() / zoned_->zone_geometry().zone_capacity_bytes)),
      cap_(zoned_->zone_geometry().zone_capacity_bytes / zoned_->logical_block_bytes()),
      zone_bytes_(zoned_->zone_geometry().zone_size_bytes),
      page_(zoned_->logical_block_bytes()) {
  const uint64_t physical = uint64_t{zones_} * cap_;
  if (physical > kUnmapped - 1) {
    throw std::invalid_argument(
        "device.zns.host_ftl: at most 4294967294 pages of zones (a "
        "32-bit page map), found " +
        std::to_string(physical));
  }
  l2p_.assign(capacity_bytes() / page_, kUnmapped);
  p2l_.assign(physical, kUnmapped);
  valid_.assign(zones_, 0);
  wp_.assign(zones_, 0);
  free_.resize(zones_);
  for (uint32_t z = 0; z < zones_; ++z) free_[z] = z;
  free_count_ = zones_;
}

std::vector<ColumnSpec> HostFtlDevice::column_specs() {
  const char* when = "with a host FTL over the zones (device.zns.host_ftl)";
  return {column("host_ftl_pages_written")
              .units("pages")
              .desc("pages the cache wrote through the host FTL after the warm-up")
              .only_if_set(when),
          column("host_ftl_pages_copied")
              .units("pages")
              .desc("valid pages the host FTL's collection copied to another zone after the "
                    "warm-up (host writes to the zoned device)")
              .only_if_set(when),
          column("wa_host_ftl")
              .units("ratio")
              .desc("the host FTL's write amplification: (host_ftl_pages_written + "
                    "host_ftl_pages_copied) / host_ftl_pages_written")
              .only_if_set(when)};
}

void HostFtlDevice::unmap(uint32_t ppn) {
  p2l_[ppn] = kUnmapped;
  --valid_[ppn / cap_];
}

uint32_t HostFtlDevice::frontier(bool gc) {
  uint32_t& zone = gc ? gc_zone_ : host_zone_;
  if (zone != kUnmapped && wp_[zone] < cap_) return zone;
  if (!gc) {
    // Keep one free zone for the GC frontier while collecting (file comment).
    while (free_count_ <= 1) collect();
  }
  if (free_count_ == 0) {  // unreachable with ≥ 3 spare zones (file comment)
    throw std::logic_error("host FTL: no free zone for the GC frontier");
  }
  zone = free_[free_head_];
  free_head_ = free_head_ + 1 == zones_ ? 0 : free_head_ + 1;
  --free_count_;
  return zone;
}

void HostFtlDevice::collect() {
  uint32_t victim = kUnmapped;
  uint32_t fewest = ~uint32_t{0};
  for (uint32_t z = 0; z < zones_; ++z) {
    if (wp_[z] == cap_ && valid_[z] < fewest) {  // full (the frontiers are not, or are done)
      fewest = valid_[z];
      victim = z;
    }
  }
  if (victim == kUnmapped || fewest == cap_) {  // unreachable with ≥ 3 spare zones
    throw std::logic_error("host FTL: no full zone with an invalid page to collect");
  }
  // Each run of consecutive valid pages: one read, then writes at the GC frontier.
  const uint64_t base = uint64_t{victim} * cap_;
  uint64_t i = 0;
  while (i < cap_ && valid_[victim] > 0) {
    if (p2l_[base + i] == kUnmapped) {
      ++i;
      continue;
    }
    uint64_t end = i + 1;
    while (end < cap_ && p2l_[base + end] != kUnmapped) ++end;
    zoned_->read(byte_offset(base + i), (end - i) * page_);
    while (i < end) {
      const uint32_t g = frontier(true);
      const uint64_t n = std::min(end - i, cap_ - wp_[g]);
      const uint64_t to = uint64_t{g} * cap_ + wp_[g];
      zoned_->write(byte_offset(to), n * page_);
      for (uint64_t k = 0; k < n; ++k) {
        const uint32_t lpn = p2l_[base + i + k];
        p2l_[base + i + k] = kUnmapped;
        p2l_[to + k] = lpn;
        l2p_[lpn] = static_cast<uint32_t>(to + k);
      }
      valid_[victim] -= static_cast<uint32_t>(n);
      valid_[g] += static_cast<uint32_t>(n);
      wp_[g] += n;
      counters_.pages_copied += n;
      i += n;
    }
  }
  zoned_->zone_reset(uint64_t{victim} * zone_bytes_);
  wp_[victim] = 0;
  counters_.zones_reset++;
  // A full frontier may have been the victim: it is free now, not a frontier.
  if (gc_zone_ == victim) gc_zone_ = kUnmapped;
  if (host_zone_ == victim) host_zone_ = kUnmapped;
  free_[(free_head_ + free_count_) % zones_] = victim;
  ++free_count_;
}

void HostFtlDevice::do_write(uint64_t offset, uint64_t len) {
  const uint64_t first = offset / page_;
  const uint64_t count = len / page_;
  counters_.host_pages_written += count;
  // The old copies of all its pages are invalid before any is written (as simflash's
  // Ftl::write_extent): a collection the write triggers does not copy them.
  for (uint64_t lpn = first; lpn < first + count; ++lpn) {
    if (l2p_[lpn] != kUnmapped) {
      unmap(l2p_[lpn]);
      l2p_[lpn] = kUnmapped;
    }
  }
  uint64_t lpn = first;
  uint64_t left = count;
  while (left > 0) {
    const uint32_t h = frontier(false);
    const uint64_t n = std::min(left, cap_ - wp_[h]);
    const uint64_t to = uint64_t{h} * cap_ + wp_[h];
    for (uint64_t k = 0; k < n; ++k) {
      l2p_[lpn + k] = static_cast<uint32_t>(to + k);
      p2l_[to + k] = static_cast<uint32_t>(lpn + k);
    }
    zoned_->write(byte_offset(to), n * page_);
    valid_[h] += static_cast<uint32_t>(n);
    wp_[h] += n;
    lpn += n;
    left -= n;
  }
}

void HostFtlDevice::do_read(uint64_t offset, uint64_t len) {
  const uint64_t end = (offset + len) / page_;
  uint64_t lpn = offset / page_;
  while (lpn < end) {
    const uint32_t first = l2p_[lpn];
    if (first == kUnmapped) {
      ++lpn;
      continue;
    }
    uint64_t n = 1;
    while (lpn + n < end && l2p_[lpn + n] == first + n && (first + n) % cap_ != 0) ++n;
    zoned_->read(byte_offset(first), n * page_);
    lpn += n;
  }
}

void HostFtlDevice::do_trim(uint64_t offset, uint64_t len) {
  const uint64_t end = (offset + len) / page_;
  for (uint64_t lpn = offset / page_; lpn < end; ++lpn) {
    if (l2p_[lpn] == kUnmapped) continue;
    unmap(l2p_[lpn]);
    l2p_[lpn] = kUnmapped;
  }
}

void HostFtlDevice::do_begin_measurement() {
  measured_from_ = counters_;
  zoned_->begin_measurement();
}

std::vector<Column> HostFtlDevice::do_columns(const ReportContext& context) const {
  const uint64_t host = counters_.host_pages_written - measured_from_.host_pages_written;
  const uint64_t copied = counters_.pages_copied - measured_from_.pages_copied;
  const double wa =
      host == 0 ? std::nan("") : static_cast<double>(host + copied) / static_cast<double>(host);
  // The zoned device's combined WA multiplies the host FTL's in (NAND bytes per miss byte).
  std::vector<Column> out = zoned_->columns(ReportContext{context.host_write_factor * wa});
  for (Column& c : out) {
    if (c.name == "host_ftl_pages_written") {
      c.text = format_number(host);
    } else if (c.name == "host_ftl_pages_copied") {
      c.text = format_number(copied);
    } else if (c.name == "wa_host_ftl") {
      c.text = format_number(wa);
    }
  }
  return out;
}

}  // namespace flashpq
