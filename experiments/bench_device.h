// experiments/bench_device.h — `flashpq bench-device`: the block device's I/O path on one fio-like
// pattern, for comparison with fio on the same file (scripts/bench_vs_fio.sh).
#pragma once

#include <cstdint>
#include <iosfwd>
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

/// Runs the pattern closed-loop with queue_depth requests in flight (run_wall) and prints
/// IOPS, MiB/s and latency percentiles. Returns 0. Throws as BlockDevice and run_wall.
int run_bench_device(const BenchDeviceConfig& config, std::ostream& out);

}  // namespace flashpq
