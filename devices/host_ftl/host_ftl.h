// devices/host_ftl/host_ftl.h — a host FTL: a conventional device over a zoned one.
//
// Source: dm-zap, the Zone Append device mapper target of Western Digital (github
// westerndigitalcorporation/dm-zap: Documentation/device-mapper/dm-zap.txt, "Design";
// drivers/md/dm-zap-target.c, dmzap_geometry_init; drivers/md/dm-zap-reclaim.c, greedy victim
// selection), the host-side page-mapped log that lets software which writes in place run on a
// Zoned Namespace. docs/guide/devices.md "A host FTL over the zones" says what it answers.
//
// Geometry (dmzap_geometry_init): of the zoned device's Z zones, ⌊Z × op_rate⌋ are held back as
// spare and E = Z − ⌊Z × op_rate⌋ are exposed: the device this class presents exports
// E × zone capacity bytes, every offset writable at any time, in the zoned device's logical
// block (a page). Zone size past the capacity is never used.
//
// Mapping: one entry per logical page (its physical page, or unmapped), one per physical page
// (its logical page, or invalid), a valid-page count per zone. Physical page p is zone
// p ÷ C at page p mod C (C = zone capacity in pages), byte z × zone size + (p mod C) × page.
//
// Writes. A write of n pages unmaps the old copies of all n pages first (as simflash's
// Ftl::write_extent: a collection the write triggers does not copy them), then appends them at
// the host
// frontier, the zone being written, through the zoned device's write at the write pointer
// (one device write per zone the extent touches). When the frontier is full the next free zone
// becomes the frontier, collection first if it is needed (below). Placement handles are
// ignored: ZNS has none. A TRIM unmaps its pages (dm-zap's discard); zones keep them until
// collected.
//
// Collection (the host's GC). Before a free zone becomes the host frontier, while at most one
// zone is free (the one the GC frontier may need), the full zone with the fewest valid pages is
// collected (greedy, dm-zap's victim_selection_method 0; ties to the lowest zone index): each
// run of consecutive valid pages is read from it and written at the GC frontier, a second zone
// being written (a free zone when it is full), then the victim is reset (Zone Reset: its erase
// units are erased) and becomes the last free zone. Free zones are taken first in, first out
// (initially in index order). Collection is foreground: its reads, writes and the reset are the
// device operations of the write that triggered it, so the timed mode charges them to that
// request, as simflash's own GC. With at least 3 spare zones a victim always holds an invalid
// page (at most 1 zone free and 1 GC frontier, ≥ E + 1 zones are full and hold ≤ E × C valid
// pages), so collection always ends.
//
// Counters. Pages the host wrote through this device, pages collection copied, zones it reset.
// Write amplification of the host FTL = (host + copied pages) ÷ host pages: the zoned device's
// host writes per host write to the host FTL. The zoned device does no GC, so its own WA is 1
// and every copy is the host's. Not modelled: dm-zap's zone headers, footers and mapping
// metadata (a few pages per zone), its background reclaim threshold (reclaim_limit) and its
// cost-benefit victim selections.
//
// Reads. Each run of logical pages mapped to consecutive physical pages of one zone is one read
// of the zoned device; unmapped pages read nothing.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "devices/device.h"

namespace flashpq {

/// The counters of a host FTL, since it was built.
struct HostFtlCounters {
  /// Pages written through the host FTL (its user's writes).
  uint64_t host_pages_written = 0;
  /// Valid pages collection moved to the GC frontier.
  uint64_t pages_copied = 0;
  /// Zones collection reset (each Zone Reset the host FTL sent).
  uint64_t zones_reset = 0;
};

/// The zones a host FTL exposes of `zones` with `op_rate` held back (dmzap_geometry_init):
/// zones − ⌊zones × op_rate⌋. Throws std::invalid_argument naming `op_rate_key` unless
/// op_rate is in [0, 1) and at least 3 zones are spare (the collection's progress, file
/// comment), quoting a rate that would do; and naming `max_active_key` when `max_active_zones`
/// is 1 (the host and GC frontiers are active at once: 0, no limit, or ≥ 2).
uint32_t host_ftl_exposed_zones(uint32_t zones, double op_rate, uint32_t max_active_zones,
                                const char* op_rate_key, const char* max_active_key);

/// A conventional device over a zoned device (file comment). Not thread-safe.
class HostFtlDevice final : public Device {
 public:
  /// Takes the zoned device. Throws std::invalid_argument when it has no zones, and as
  /// host_ftl_exposed_zones (keys named as simflash's device.zns.host_ftl_op_rate and
  /// device.zns.max_active_zones).
  HostFtlDevice(std::unique_ptr<Device> zoned, double op_rate);

  /// The zoned device below (its counters, its FTL for the timed mode).
  Device& zoned() { return *zoned_; }
  const Device& zoned() const { return *zoned_; }
  const HostFtlCounters& counters_host_ftl() const { return counters_; }
  /// Zones exposed and spare, of the zoned device's.
  uint32_t exposed_zones() const { return exposed_zones_; }
  uint32_t spare_zones() const { return zones_ - exposed_zones_; }
  /// Logical page `lpn`'s physical page (file comment), or kUnmapped. REQUIRES: lpn below the
  /// exported pages.
  uint32_t physical_page(uint64_t lpn) const { return l2p_[lpn]; }
  /// Valid pages in zone z. REQUIRES: z below the zoned device's zones.
  uint32_t zone_valid_pages(uint32_t z) const { return valid_[z]; }
  static constexpr uint32_t kUnmapped = ~uint32_t{0};

  /// The columns this layer fills among a device's (by name): host_ftl_pages_written,
  /// host_ftl_pages_copied, wa_host_ftl; simflash declares them (devices/simflash/).
  static std::vector<ColumnSpec> column_specs();

 private:
  void do_write(uint64_t offset, uint64_t len) override;
  void do_read(uint64_t offset, uint64_t len) override;
  void do_trim(uint64_t offset, uint64_t len) override;
  void do_begin_measurement() override;
  std::vector<Column> do_columns(const ReportContext& context) const override;

  // The zone the host frontier (gc = false) or the GC frontier writes next, a new one taken
  // from the free zones when it is full (collection first for the host frontier).
  uint32_t frontier(bool gc);
  void collect();            // one greedy victim: copies its valid pages, resets it
  void unmap(uint32_t ppn);  // the physical page's data is no longer valid
  uint64_t byte_offset(uint64_t ppn) const {
    return (ppn / cap_) * zone_bytes_ + (ppn % cap_) * page_;
  }

  std::unique_ptr<Device> zoned_;
  uint32_t zones_;
  uint32_t exposed_zones_;
  uint64_t cap_;                 // zone capacity in pages
  uint64_t zone_bytes_;          // zone size in bytes
  uint64_t page_;                // logical block in bytes
  std::vector<uint32_t> l2p_;    // logical page → physical page (kUnmapped)
  std::vector<uint32_t> p2l_;    // physical page → logical page (kUnmapped: invalid or unwritten)
  std::vector<uint32_t> valid_;  // per zone
  std::vector<uint64_t> wp_;     // per zone: pages written (the host FTL's view of the pointer)
  std::vector<uint32_t> free_;   // free zones, a FIFO as a ring over [free_head_, ...)
  size_t free_head_ = 0;
  size_t free_count_ = 0;
  uint32_t host_zone_ = kUnmapped;  // the frontiers (kUnmapped: none yet)
  uint32_t gc_zone_ = kUnmapped;
  HostFtlCounters counters_;
  HostFtlCounters measured_from_;
  uint64_t zoned_pages_at_measure_ = 0;
};

}  // namespace flashpq
