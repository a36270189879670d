// experiments/bench_device.h — `flashpq bench-device`: the block device's I/O path on one fio-like
// pattern, for comparison with fio on the same file (scripts/bench_vs_fio.sh).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>

#include "devices/block/block_config.h"

namespace flashpq {

/// The fio job it mirrors: --rw=PATTERN --bs=io_size --iodepth=queue_depth --direct=1
/// --ioengine=io_uring --size=size --time_based --runtime=seconds --norandommap.
struct BenchDeviceConfig {
  /// The device: path, engine, queue depth, O_DIRECT, capacity (fio's --size; 0 = the whole
  /// file or device), force_destroy. Its max_io_bytes is raised to io_size when smaller.
  BlockConfig block;
  /// "seq_write" (fio write), "seq_read" (read), "rand_read" (randread), "rand_write"
  /// (randwrite).
  std::string pattern = "rand_read";
  /// Bytes per I/O (fio --bs). Default 4 KiB.
  uint32_t io_size = 4096;
  /// Run time in seconds (fio --runtime with --time_based). Default 10.
  double seconds = 10;
  /// Seed of the random offsets. Default 1.
  uint64_t seed = 1;
  /// Print one JSON object with fio's names (iops, bw_bytes, clat_ns, lat_ns) instead of text.
  bool json = false;

  /// Throws std::invalid_argument quoting the bad value.
  void validate() const;
};

/// `flashpq device verify`: writes a region with verify headers, optionally corrupts one byte,
/// reads it back and checks every block (devices/block/block_device.h, verify mode).
struct VerifyDeviceConfig {
  /// The device: path, engine, queue depth, O_DIRECT, capacity = the region verified (0 = the
  /// whole file or device), force_destroy. verify is turned on; max_io_bytes is raised to
  /// io_size.
  BlockConfig block;
  /// Bytes per write and read call (each split into max_io_bytes pieces, queue_depth in
  /// flight). Default 64 MiB.
  uint64_t chunk_bytes = 64ull << 20;
  /// Between the write and the read pass, flip every bit of the byte at this offset through a
  /// second, buffered descriptor (pwrite, fsync): the read pass must report its block. Unset:
  /// nothing is corrupted.
  std::optional<uint64_t> flip_at;
};

/// The outcome of run_verify_device.
struct VerifyDeviceResult {
  uint64_t bytes_written = 0, bytes_read = 0;
  double write_seconds = 0, read_seconds = 0;
  /// Blocks checked against their header before the read pass stopped.
  uint64_t blocks_checked = 0;
  /// The corruption found (the read pass stops at the first): its block's offset and the
  /// message, or unset.
  std::optional<uint64_t> corrupt_offset;
  std::string corruption;
};

/// Runs the two passes and prints their figures to `out`. Throws std::invalid_argument for a
/// flip offset outside the region, and as BlockDevice for I/O errors (a VerifyError is reported
/// in the result, not thrown).
VerifyDeviceResult run_verify_device(const VerifyDeviceConfig& config, std::ostream& out);

/// Runs the pattern closed-loop with queue_depth requests in flight (run_wall) and prints
/// IOPS, MiB/s and latency percentiles. Returns 0. Throws as BlockDevice and run_wall.
int run_bench_device(const BenchDeviceConfig& config, std::ostream& out);

}  // namespace flashpq
