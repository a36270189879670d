// devices/device.h — the device extension point.
//
// Source: docs/DESIGN.md "Data flow" (device), modelled on CacheLib navy's Device: the public
// non-virtual write/read/trim check alignment and bounds and do the accounting; a private
// virtual hook does the work. A framework places objects on a device only through this class,
// so the same framework runs on `null`, `simflash` and `block` unchanged.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "devices/fault.h"
#include "devices/io_log.h"
#include "devices/service_model.h"
#include "sim/columns.h"
#include "sim/params.h"

namespace flashpq {

/// Counters every device keeps, in bytes and operations.
struct DeviceCounters {
  uint64_t writes = 0;
  uint64_t write_bytes = 0;
  uint64_t reads = 0;
  uint64_t read_bytes = 0;
  uint64_t trims = 0;
  uint64_t trimmed_bytes = 0;
  /// Zone Reset commands sent (zoned devices), a reset of an empty zone included; simflash's
  /// zone_resets column counts only the resets that erased (FtlCounters::zone_resets). A zone
  /// append counts as a write.
  uint64_t zone_resets = 0;
};

/// A zoned device's zones (NVMe Zoned Namespace Command Set 1.1): zone i spans the logical
/// bytes [i·zone_size_bytes, (i + 1)·zone_size_bytes), of which the first zone_capacity_bytes
/// are writable, sequentially at the zone's write pointer. All zero on a device without zones.
struct ZoneGeometry {
  uint64_t zone_size_bytes = 0;
  uint64_t zone_capacity_bytes = 0;
  uint32_t zones = 0;
  /// Zones open at once, and open or closed at once, at most; 0 = no limit.
  uint32_t max_open_zones = 0;
  uint32_t max_active_zones = 0;
  bool zoned() const { return zone_size_bytes > 0; }
};

/// The `device:` section of an experiment: the registered name of the device (the registry in
/// devices/device.cpp), the values of the section's keys, which each device declares and
/// decodes itself (SimFlashConfig, BlockConfig), and what the cell adds to them.
struct DeviceConfig {
  /// Registered device name: "null" (counts only, unbounded), "simflash" (the simulated FTL
  /// and flash of devices/simflash/) or "block" (a real file or block device, devices/block/).
  /// Default "null".
  std::string name = "null";
  /// The device.* values, by dotted key.
  Params params;
  /// The cell's seed: the streams a device draws from (simflash's d_choices GC, the block
  /// device's data pattern) follow it. Default 1.
  uint64_t seed = 1;
  /// Set from the command line (--force-destroy=ID), never from a YAML file: the identity of a
  /// real device whose filesystem or partition-table signature may be overwritten
  /// (devices/block/safety.h). Default empty.
  std::string force_destroy;
};

/// What every request must respect on a device: its exported capacity and logical block.
struct DeviceBounds {
  /// Exported capacity in bytes; 0 = unbounded.
  uint64_t capacity_bytes = 0;
  /// Every offset and length is a multiple of it (a power of two).
  uint32_t logical_block_bytes = 1;
};

/// What a device is told of the workload when it reports its columns.
struct ReportContext {
  /// Host bytes written per byte the workload asked to insert: a cache's implementation WA
  /// (RIPQ paper §4.5), 1 for framework direct (every host byte is the workload's own), NaN
  /// when nothing is placed on the device. The device's combined WA multiplies it.
  double host_write_factor = 1.0;
};

/// A byte-addressed device. Not thread-safe.
class Device {
 public:
  virtual ~Device() = default;
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  /// Writes `len` bytes at byte `offset`, tagged with placement handle `placement` (NVMe
  /// Flexible Data Placement's, docs/reference/fdp-spec.md; 0, the default handle, by default).
  /// A device with placement (simflash with device.fdp.handles) writes through that reclaim
  /// unit handle; every other device ignores the tag. Throws std::invalid_argument if offset or
  /// len is not a multiple of the logical block size, len is 0, or the extent ends past the
  /// capacity.
  [[gnu::always_inline]] void write(uint64_t offset, uint64_t len, uint32_t placement = 0) {
    check(offset, len, "write");
    if (fault_) [[unlikely]]
      fault_->check(FaultInjector::kWrite, offset, len);
    if (io_log_) [[unlikely]]
      io_log_->record(FioIoLog::kWrite, offset, len);
    if (placement == 0) [[likely]] {
      do_write(offset, len);
    } else {
      do_write_placed(offset, len, placement);
    }
    count_write(len);
  }
  /// Reads `len` bytes at byte `offset`. Same checks as write.
  [[gnu::always_inline]] void read(uint64_t offset, uint64_t len) {
    check(offset, len, "read");
    if (fault_) [[unlikely]]
      fault_->check(FaultInjector::kRead, offset, len);
    if (io_log_) [[unlikely]]
      io_log_->record(FioIoLog::kRead, offset, len);
    do_read(offset, len);
    count_read(len);
  }
  /// Reads the whole logical blocks that cover [offset, offset + len): how a cache reads an
  /// object stored at any byte offset (a hit, a materialization, a reinsertion). Nothing when
  /// len is 0. Throws as read() when the covering extent ends past the capacity.
  [[gnu::always_inline]] void read_covering(uint64_t offset, uint64_t len) {
    if (len == 0) return;
    const uint64_t lo = round_down(offset);
    read(lo, round_down(offset + len + block_bytes_ - 1) - lo);
  }
  /// Discards `len` bytes at byte `offset` (TRIM). Same checks as write.
  [[gnu::always_inline]] void trim(uint64_t offset, uint64_t len) {
    check(offset, len, "trim");
    if (fault_) [[unlikely]]
      fault_->check(FaultInjector::kTrim, offset, len);
    if (io_log_) [[unlikely]]
      io_log_->record(FioIoLog::kTrim, offset, len);
    do_trim(offset, len);
    count_trim(len);
  }

  /// The device's zones (zone_geometry().zoned() false on a device without zones, where every
  /// zone operation throws std::invalid_argument). On a zoned device write() must be at the
  /// zone's write pointer and within its capacity: the device throws (simflash: ZoneError,
  /// devices/simflash/ftl.h) otherwise.
  const ZoneGeometry& zone_geometry() const { return zones_; }
  /// Zone Reset of the zone starting at byte `zone_offset`: its data is discarded, its write
  /// pointer returns to its start. Throws std::invalid_argument when the device has no zones
  /// or zone_offset is not a zone's start.
  void zone_reset(uint64_t zone_offset) {
    const uint32_t z = zone_index(zone_offset, "zone reset");
    counters_.zone_resets++;
    do_zone_reset(z);
  }
  /// Zone Finish: the zone becomes full at its write pointer. Throws as zone_reset().
  void zone_finish(uint64_t zone_offset) { do_zone_finish(zone_index(zone_offset, "zone finish")); }
  /// Zone Append of `len` bytes to the zone starting at `zone_offset`: written at the zone's
  /// write pointer, whose byte offset is returned. Counted as a write. Throws as zone_reset(),
  /// for len as write(), and as the device refuses the write (a full zone, past the capacity).
  uint64_t zone_append(uint64_t zone_offset, uint64_t len) {
    const uint32_t z = zone_index(zone_offset, "zone append");
    check(zone_offset, len, "zone append");
    if (fault_) [[unlikely]]
      fault_->check(FaultInjector::kWrite, zone_offset, len);
    const uint64_t at = do_zone_append(z, len);
    count_write(len);
    return at;
  }

  /// Throws std::invalid_argument as write/read/trim would for this extent (`what` names the
  /// operation in the message), without doing anything: for callers that check a whole
  /// workload before its first I/O.
  void check_extent(uint64_t offset, uint64_t len, const char* what) const {
    check(offset, len, what);
  }

  const DeviceCounters& counters() const { return counters_; }

  /// Records every write, read and trim that passes the checks in `log` (devices/io_log.h;
  /// nullptr, the default, records nothing), and the asynchronous path's requests where its
  /// runner issues them. The runner keeps log->set_now_ns() current. Not owned.
  void set_io_log(FioIoLog* log) { io_log_ = log; }
  FioIoLog* io_log() const { return io_log_; }

  /// Passes every write, read and trim through `fault` (devices/fault.h) before the device
  /// does it: an injected error throws DeviceIoError and the device is left as it was.
  /// nullptr, the default, injects nothing. Not owned.
  void set_fault(FaultInjector* fault) { fault_ = fault; }
  /// For a runner with its own I/O path (the block device's asynchronous one): the fault
  /// layer's check of one operation, as write/read/trim make it.
  void check_fault(FaultInjector::Op op, uint64_t offset, uint64_t len) {
    if (fault_) [[unlikely]]
      fault_->check(op, offset, len);
  }

  /// Marks the start of the measured interval (the end of the warm-up): the device snapshots
  /// what its columns report the growth of. A runner calls it exactly once per run.
  void begin_measurement() { do_begin_measurement(); }
  /// The device's own results columns for the interval since begin_measurement(), named and
  /// ordered as its registration lists them (DeviceType::columns): FTL counters and write
  /// amplification on simflash, engine, verify and drive counters on a block device, none on
  /// the null device. Columns the device cannot fill are empty.
  std::vector<Column> columns(const ReportContext& context) const { return do_columns(context); }
  /// Exported capacity in bytes; 0 = unbounded.
  uint64_t capacity_bytes() const { return capacity_bytes_; }
  uint32_t logical_block_bytes() const { return block_bytes_; }

 protected:
  Device(uint64_t capacity_bytes, uint32_t logical_block_bytes)
      : capacity_bytes_(capacity_bytes), block_bytes_(logical_block_bytes) {}

  /// The checks of write/read/trim: throws std::invalid_argument naming `what`, the offset and
  /// the length when the extent is empty, misaligned or past the capacity. Inline, without a
  /// division, when the logical block size is a power of two (every hit of a flash framework
  /// reads: this is on the per-request path); check_slow() otherwise and to throw.
  [[gnu::always_inline]] void check(uint64_t offset, uint64_t len, const char* what) const {
    const uint64_t mask = uint64_t{block_bytes_} - 1;
    if ((block_bytes_ & mask) == 0 && len != 0 && ((offset | len) & mask) == 0 &&
        (capacity_bytes_ == 0 || (offset <= capacity_bytes_ && len <= capacity_bytes_ - offset)))
        [[likely]] {
      return;
    }
    check_slow(offset, len, what);
  }
  void check_slow(uint64_t offset, uint64_t len, const char* what) const;
  /// x rounded down to a multiple of the logical block size (a mask when a power of two).
  uint64_t round_down(uint64_t x) const {
    const uint64_t b = block_bytes_;
    return (b & (b - 1)) == 0 ? x & ~(b - 1) : x / b * b;
  }
  /// For an implementation with an I/O path besides write/read/trim (the block device's
  /// asynchronous runner): counts an operation as those calls do.
  void count_write(uint64_t len) {
    counters_.writes++;
    counters_.write_bytes += len;
  }
  void count_read(uint64_t len) {
    counters_.reads++;
    counters_.read_bytes += len;
  }
  void count_trim(uint64_t len) {
    counters_.trims++;
    counters_.trimmed_bytes += len;
  }
  /// A zoned implementation declares its zones once, at construction.
  void set_zone_geometry(const ZoneGeometry& zones) { zones_ = zones; }

 private:
  virtual void do_write(uint64_t offset, uint64_t len) = 0;
  // A write with a placement handle other than 0; devices without placement write it as any.
  virtual void do_write_placed(uint64_t offset, uint64_t len, uint32_t /*placement*/) {
    do_write(offset, len);
  }
  virtual void do_read(uint64_t offset, uint64_t len) = 0;
  // Zone operations on zone index z (zone_geometry() checked by the callers); only a device
  // that declares zones is called.
  virtual void do_zone_reset(uint32_t /*z*/) {}
  virtual void do_zone_finish(uint32_t /*z*/) {}
  virtual uint64_t do_zone_append(uint32_t /*z*/, uint64_t /*len*/) { return 0; }
  // The zone starting at byte `offset`; throws std::invalid_argument naming `what` otherwise.
  uint32_t zone_index(uint64_t offset, const char* what) const;
  virtual void do_trim(uint64_t offset, uint64_t len) = 0;
  virtual void do_begin_measurement() {}
  virtual std::vector<Column> do_columns(const ReportContext&) const { return {}; }

  uint64_t capacity_bytes_;
  uint32_t block_bytes_;
  ZoneGeometry zones_;
  DeviceCounters counters_;
  FioIoLog* io_log_ = nullptr;
  FaultInjector* fault_ = nullptr;
};

/// How a device's cells are timed (DeviceType::clock): the runners choose by it
/// (experiments/run/runners.h), never by a device's name.
enum class DeviceClock {
  /// Functional only: counts, no time (timing.mode none).
  kFunctional,
  /// Functional, or timed by its simulated service model on the event kernel
  /// (DeviceType::service_model, devices/service_model.h; timing.mode simulated).
  kSimulated,
  /// Real hardware: every cell on it is timed by the wall clock.
  kWall,
};

/// A device implementation as registered (devices/device.cpp, one line per device).
struct DeviceType {
  /// Name, summary, keys and requirements.
  const ComponentSpec& (*spec)();
  /// Decodes and checks config.params before anything runs, reading but never writing a real
  /// device; returns the geometry the device will have and sets in `shown` the text the
  /// results row shows for each of its keys (the value it resolved). Throws
  /// std::invalid_argument naming the key.
  DeviceBounds (*resolve)(const DeviceConfig& config, Params& shown);
  /// Builds the device. Throws as resolve(), and as the device itself.
  std::unique_ptr<Device> (*make)(const DeviceConfig& config);
  /// The columns the device reports (Device::columns), in order, declared with their units and
  /// definitions (sim/columns.h; docs/reference/columns.md, the device's section). A row of a
  /// cell whose device does I/O carries them (experiments/run/row.h), less those row_columns
  /// leaves out and those declared if_set that the run left empty.
  std::vector<ColumnSpec> columns;
  /// What times its cells. kSimulated requires service_model.
  DeviceClock clock = DeviceClock::kFunctional;
  /// Sizing for the cache, when the device's keys ask for it (simflash's device.size_to_cache):
  /// sets config.params so the exported capacity is the smallest the device can have that holds
  /// `footprint_bytes` (the bytes the cache's framework addresses) and returns the new bounds
  /// (the row's device_exported_bytes); returns std::nullopt when the keys do not ask for it.
  /// nullptr: the device is never sized (its capacity is what it is). Throws
  /// std::invalid_argument when no geometry of the device holds the footprint.
  std::optional<DeviceBounds> (*size_for_cache)(DeviceConfig& config,
                                                uint64_t footprint_bytes) = nullptr;
  /// The names of `columns` a row carries on the device `config` describes (read-only, from
  /// its keys: the block device's verify columns only with device.verify), in order; columns
  /// declared if_set are never listed. nullptr: every column not declared if_set.
  std::vector<std::string> (*row_columns)(const DeviceConfig& config) = nullptr;
  /// The simulated clock of a device this type made (DeviceClock::kSimulated; nullptr for the
  /// others): its service model, placed on the runner's clock by `options`. REQUIRES: `device`
  /// was made by make() and outlives the model.
  std::unique_ptr<ServiceModel> (*service_model)(Device& device,
                                                 const ServiceModel::Options& options) = nullptr;
  /// The memory the simulator holds for a device of `bounds` (its maps and tables), in bytes:
  /// part of a cell's memory estimate (experiments/run/cell_runner.h). nullptr: negligible.
  uint64_t (*memory_bytes)(const DeviceConfig& config, const DeviceBounds& bounds) = nullptr;
  /// Whether the space a cache leaves unaddressed on a device `config` describes is free space
  /// to the device's own collection, so that a cache on part of it sees its write amplification
  /// understated (a cell then carries a note, experiments/run/cell_runner.cpp): simflash's FTL
  /// or its host FTL over zones, unless preconditioned. nullptr: never.
  bool (*collects_unaddressed_space)(const DeviceConfig& config) = nullptr;
};

/// The names of the registered devices timed by `clock`, in registration order.
std::vector<std::string> device_names_with_clock(DeviceClock clock);

/// The key device.capacity, read by the block device (bytes used from offset 0 of the file or
/// device) and by simflash (the exported space: blocks_per_plane is chosen as the smallest that
/// exports at least this), so that one value sizes both sides of a simulated-versus-real
/// comparison.
const KeySpec& device_capacity_key();

/// device.endurance_dwpd and device.warranty_years, keys of the devices with a capacity
/// (simflash, block; the null device has no endurance): the rated endurance
/// (full drive writes per day over the warranty period) that a row's device_lifetime_days is
/// computed against (experiments/run/row.cpp).
const KeySpec& device_endurance_dwpd_key();
const KeySpec& device_warranty_years_key();

/// The registered device types, in registration order.
const std::vector<const DeviceType*>& device_types();
/// The type registered under `name`. Throws std::invalid_argument naming the allowed names.
const DeviceType& device_type(const std::string& name);
/// The registered device names.
const std::vector<std::string>& device_names();
/// The `device:` section: device.name, then every device's keys (sim/params.h).
const SectionSpec& device_section();
/// Every device's columns, in registration order.
const std::vector<ColumnSpec>& device_columns();
/// The names of the columns a row of a cell on the device `config` describes carries
/// (DeviceType::row_columns), in declared order; the if_set columns not among them.
std::vector<std::string> device_row_columns(const DeviceConfig& config);

/// Creates the device registered under config.name. Throws std::invalid_argument for an
/// unknown name or a bad key.
std::unique_ptr<Device> make_device(const DeviceConfig& config);

}  // namespace flashpq
