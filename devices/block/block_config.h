// devices/block/block_config.h — the `device.block` section: which file or block device, how
// its I/O is issued, and the run's safety and verification options.
//
// Source: docs/DESIGN.md "Data flow" (device). Every size is in bytes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "devices/device.h"
#include "sim/params.h"

namespace flashpq {

/// How I/O reaches the kernel (fio's ioengine names).
enum class IoEngineKind : uint8_t {
  /// io_uring through liburing: asynchronous, up to queue_depth I/Os in flight, registered
  /// buffers and file, setup flags dropped one by one when the kernel refuses them.
  kIoUring,
  /// pread(2)/pwrite(2): one synchronous I/O at a time; the fallback when io_uring cannot be
  /// set up, and the reference it is compared with.
  kPsync,
};

/// "io_uring", "psync", in the order of IoEngineKind.
const std::vector<std::string>& io_engine_names();
/// "io_uring", "psync".
const char* io_engine_name(IoEngineKind kind);
/// Inverse of io_engine_name. Throws std::invalid_argument listing the allowed values.
IoEngineKind parse_io_engine(const std::string& name);

/// The `device.block` section.
struct BlockConfig {
  /// A regular file or a block device. Required. A file that does not exist is created with
  /// capacity_bytes (which must then be set); a file smaller than capacity_bytes is extended.
  std::string path;
  /// Exported capacity: I/O goes to [0, capacity_bytes). 0 (default) = the whole device, or the
  /// whole file as it is. REQUIRES: a multiple of the device's logical block size (checked at
  /// open); a block device must hold at least this much (the safety gate refuses it otherwise).
  uint64_t capacity_bytes = 0;
  /// Default io_uring.
  IoEngineKind engine = IoEngineKind::kIoUring;
  /// I/Os in flight at most (io_uring's submission queue entries; psync issues one at a time).
  /// Default 32. Range [1, 4096].
  uint32_t queue_depth = 32;
  /// Largest single I/O: each of the queue_depth buffers has this size, and a longer request
  /// is issued as pieces of it (in parallel, up to queue_depth). Default 1 MiB. REQUIRES: a
  /// power of two in [4 KiB, 64 MiB].
  uint32_t max_io_bytes = 1u << 20;
  /// Open with O_DIRECT (bypass the page cache). When a filesystem refuses O_DIRECT (EINVAL
  /// at open), the file is reopened without it and the row says so (block_o_direct = false,
  /// block_notes). false = buffered I/O on purpose. Default true.
  bool o_direct = true;
  /// Register the buffers (and the file) with io_uring (READ_FIXED/WRITE_FIXED). Dropped, and
  /// said so in block_notes, when the kernel refuses (e.g. RLIMIT_MEMLOCK). Default true.
  bool registered_buffers = true;
  /// Verify mode: every written logical block carries a header (magic, offset, generation,
  /// CRC32C of the payload) and every read checks it against what this run last wrote there;
  /// a mismatch throws VerifyError naming the offset. Costs 4 bytes of memory per logical
  /// block of capacity. Default false.
  bool verify = false;
  /// Discard (TRIM; punch holes in a file) the whole exported capacity before the run, to
  /// start from a trimmed device as the RIPQ paper's evaluation and CacheBench's SSD guide do.
  /// Default false.
  bool discard_before_run = false;
  /// Read the drive's write counters with nvme-cli before and after the run, for wa_device,
  /// when the device (or the filesystem holding the file) is an NVMe namespace. Default true.
  bool nvme_counters = true;
  /// The identity (serial or WWID; the canonical path for a device with neither, such as a
  /// loop device or a file) that overrides the signature check of the safety gate: the device
  /// carries a filesystem or partition table and its contents will be destroyed. Set from the
  /// command line (--force-destroy=SERIAL), never from a YAML file. Default empty.
  std::string force_destroy;
  /// Seed of the data pattern written when verify is off. Default 1.
  uint64_t pattern_seed = 1;

  /// Throws std::invalid_argument quoting the bad value (empty path, queue_depth or
  /// max_io_bytes out of range).
  void validate() const;
};

/// Decodes the block keys of `config` (device.path, capacity, engine, queue_depth, max_io_size,
/// o_direct, registered_buffers, verify, discard_before_run, nvme_counters; unset keys take
/// their defaults) with the cell's seed as the pattern seed and the command line's
/// force_destroy. Throws std::invalid_argument quoting a bad value.
BlockConfig block_config_of(const DeviceConfig& config);
/// The block device's name, keys and summary.
const ComponentSpec& block_spec();

}  // namespace flashpq
