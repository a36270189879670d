// devices/block/safety.h — the safety gate of the block device: what a path is (identity,
// geometry) and every reason it must not be written, checked before the first write.
//
// Source: docs/guide/real-devices.md "The safety gate" (the safety gate). The checks, all of them
// run and all failures reported together:
//   * mounted — the device or any of its partitions appears in /proc/self/mountinfo (by
//     major:minor, and by the mount source's canonical path);
//   * swap — the device, a partition of it, or the file is listed in /proc/swaps;
//   * held — /sys/class/block/NAME/holders of the device or a partition is not empty (device
//     mapper, md, bcache…), or the file backs a loop device (/sys/class/block/loop*/loop/
//     backing_file);
//   * signatures — libblkid finds a filesystem, RAID, swap or partition-table signature (the
//     probe wipefs(8) runs; lsblk reads udev's database, which containers often lack);
//   * read-only — BLKROGET (or no write permission on a file);
//   * too small — a block device holds fewer bytes than the configured capacity;
//   * identity mismatch — --force-destroy names another device than this one.
// Only the signature check can be overridden, by --force-destroy=IDENTITY with this device's
// identity (DeviceIdentity::force_identity()): a device in use (mounted, swap, held) is never
// written. BlockDevice runs the gate after it has claimed the device (O_EXCL, which the kernel
// refuses while the device is mounted, used as swap or held, and which keeps it so) and holds
// the claim for the whole run.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace flashpq {

/// The safety gate refused a device. what() lists every failed check.
class SafetyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Where the gate reads the kernel's state; tests point these at fixture trees.
struct SystemPaths {
  std::string mountinfo = "/proc/self/mountinfo";
  std::string swaps = "/proc/swaps";
  /// /sys/class/block: one entry per block device and partition, by kernel name.
  std::string sys_class_block = "/sys/class/block";
  /// /sys/dev/block: one entry per block device, by "major:minor".
  std::string sys_dev_block = "/sys/dev/block";
};

/// What a path is.
struct DeviceIdentity {
  std::string path;       // as given
  std::string real_path;  // canonical (symlinks resolved)
  bool block_device = false;
  /// Block device: its numbers. Regular file: those of the device holding its filesystem (0:N
  /// for filesystems without one, e.g. tmpfs, btrfs).
  uint32_t major = 0, minor = 0;
  /// Kernel name ("loop3", "nvme0n1p2"); for a file, that of the device holding it (may be
  /// empty).
  std::string kernel_name;
  /// The whole disk: kernel_name itself, or the disk a partition belongs to.
  std::string disk_name;
  bool partition = false;
  /// From sysfs (device/serial, serial; wwid, device/wwid; device/model); empty when absent.
  std::string serial, wwid, model;
  /// Loop device: the file behind it.
  std::string loop_backing_file;

  /// What --force-destroy must name: the WWID, else the serial, else (loop devices, files) the
  /// canonical path.
  std::string force_identity() const;
};

/// Sizes and capabilities. 0 = unknown.
struct DeviceGeometry {
  /// Block device: BLKGETSIZE64. File: its size.
  uint64_t size_bytes = 0;
  /// Block device: BLKSSZGET. File: statx's dio_offset_align (STATX_DIOALIGN), else st_blksize.
  uint32_t logical_block_bytes = 0;
  /// Block device: BLKPBSZGET. File: st_blksize.
  uint32_t physical_block_bytes = 0;
  /// statx(STATX_DIOALIGN): required alignment of O_DIRECT buffers and offsets; 0 = unknown.
  uint32_t dio_mem_align = 0;
  uint32_t dio_offset_align = 0;
  /// BLKIOMIN / BLKIOOPT (block devices).
  uint32_t io_min_bytes = 0, io_opt_bytes = 0;
  bool read_only = false;
  /// queue/rotational (block devices).
  bool rotational = false;
  /// queue/discard_max_bytes (block devices; 0 = no discard). Files: punch holes.
  uint64_t discard_max_bytes = 0;
  uint32_t discard_granularity_bytes = 0;
};

/// One signature libblkid found.
struct Signature {
  std::string type;   // "ext4", "swap", "dos", "gpt" …
  std::string usage;  // "filesystem", "other", "partition table" …
  uint64_t offset = 0;
  std::string label;
};

/// Everything the gate found about a path.
struct DeviceReport {
  DeviceIdentity identity;
  DeviceGeometry geometry;
  /// Partitions of a whole disk, by kernel name.
  std::vector<std::string> partitions;
  /// "SOURCE on MOUNTPOINT type FSTYPE" for the device and its partitions.
  std::vector<std::string> mounts;
  /// "/proc/swaps: PATH" entries that are this device, a partition of it, or this file.
  std::vector<std::string> swaps;
  /// "NAME is held by HOLDER"; for a file, "loopN is backed by this file".
  std::vector<std::string> holders;
  std::vector<Signature> signatures;
  /// The NVMe namespace holding this device or file ("/dev/nvme0n1"), empty if none.
  std::string nvme_namespace;
};

/// Inspects `path` (a block device or regular file), reading only: sysfs, procfs, ioctls on a
/// read-only descriptor, statx, libblkid. Throws std::runtime_error (naming the path) when it
/// does not exist or is neither a block device nor a regular file.
DeviceReport inspect_device(const std::string& path, const SystemPaths& sys = {});

/// Every reason the gate refuses to write `capacity_bytes` (0 = the whole device) to the
/// inspected device, given the --force-destroy value (empty = none); empty when it may.
std::vector<std::string> safety_refusals(const DeviceReport& report, uint64_t capacity_bytes,
                                         const std::string& force_destroy);

/// Throws SafetyError listing safety_refusals() when there is any.
void enforce_safety(const DeviceReport& report, uint64_t capacity_bytes,
                    const std::string& force_destroy);

/// The text `flashpq device check PATH` prints: identity, geometry, partitions, mounts, swaps,
/// holders, signatures, and the verdict for the whole device without --force-destroy.
std::string describe_device(const DeviceReport& report);

// --- Parsers (exposed for tests) ---------------------------------------------------------------

/// One line of /proc/self/mountinfo (proc(5)): the fields the gate uses, octal escapes (\040)
/// decoded.
struct MountEntry {
  uint32_t major = 0, minor = 0;
  std::string mount_point;
  std::string fs_type;
  std::string source;
};
std::vector<MountEntry> parse_mountinfo(std::string_view text);

/// The paths of /proc/swaps (first column, octal escapes decoded), header skipped.
std::vector<std::string> parse_swaps(std::string_view text);

}  // namespace flashpq
