// experiments/characterize.h — `flashpq device characterize`: a fixed plan of fio-like I/O
// patterns measured on a file or block device through FlashPQ's own I/O path
// (experiments/run/wall_runner.h), and the same plan run on simflash in simulated time
// (experiments/run/simulated_runner.h), which is what `flashpq device calibrate` fits
// (experiments/calibrate.h; docs/DESIGN.md "Calibration").
//
// The plan (characterization_plan(); fio's names: --rw, --bs, --iodepth, --rwmixread):
//   1. preconditioning: one sequential pass of 1 MiB writes over the whole region at queue
//      depth 32, so every read is of written data (a file's holes and a trimmed SSD's unmapped
//      blocks read without touching flash) and every write overwrites (SNIA SSS PTS 2.0.2 §3
//      "Preconditioning", workload-independent: twice the capacity for a steady state; one pass
//      here, since the plan measures latency and bandwidth, not write-cliff endurance);
//   2. randread 4 KiB at iodepth 1, 4, 16, 32; read (sequential) 128 KiB and 1 MiB at iodepth
//      1 and 32; randwrite 4 KiB and write (sequential) 1 MiB at iodepth 1 and 32; randrw
//      4 KiB 70 % reads at iodepth 16 — in that order, each for `seconds` after a warm-up of
//      `iodepth` I/Os, `repeats` times.
// Offsets are multiples of the block size in [0, region): sequential patterns start at 0 and
// wrap, random ones draw uniformly with replacement (fio --norandommap) from
// RngStream::kBenchDeviceStream of the seed; randrw draws read or write per I/O from the same
// stream.
//
// Recorded per pattern and repeat (fio's JSON names): iops and bw (every completion, warm-up
// requests' included, between the first measured arrival and the last measured completion:
// the steady state's rate, without the bias of counting only measured requests over an
// interval that also drains the warm-up's backlog) and the latency (lat_ns: completion − arrival,
// queueing included) mean, p50, p99 and p99.9 in µs; and, on every row, the device's identity
// (path, kind, kernel name, model, serial, size), the region, the engine, O_DIRECT, the date (UTC)
// and the version.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "devices/block/block_config.h"
#include "devices/simflash/simflash_config.h"

namespace flashpq {

/// One pattern of the plan.
struct IoPatternSpec {
  /// "randread_4k_qd1" … ("rw_bs_qdN"; randrw: "randrw70_4k_qd16").
  std::string name;
  /// fio --rw: randread, read, randwrite, write, randrw.
  std::string rw;
  /// fio --bs, bytes.
  uint32_t bs = 4096;
  /// fio --iodepth: requests in flight (closed loop).
  uint32_t iodepth = 1;
  /// fio --rwmixread: percent of reads (randrw; 100 for reads, 0 for writes).
  uint32_t rwmixread = 100;
  bool random() const { return rw == "randread" || rw == "randwrite" || rw == "randrw"; }
};

/// The fixed plan, in the order it runs (see the file comment): 13 patterns.
const std::vector<IoPatternSpec>& characterization_plan();

/// What one run of a pattern measured.
struct PatternMeasurement {
  IoPatternSpec pattern;
  /// 1-based repeat; 0 in medians().
  uint32_t repeat = 1;
  /// Measured interval (s) and I/Os in it.
  double runtime_s = 0;
  uint64_t ios = 0;
  double iops = 0;
  double bw_mib_s = 0;
  double lat_mean_us = 0, lat_p50_us = 0, lat_p99_us = 0, lat_p99_9_us = 0;
};

/// A characterization file's content.
struct Characterization {
  /// The device measured: path, kind (file | block_device | simflash), kernel_name, model,
  /// serial, size_bytes; for simflash, the profile's keys in `simulated`.
  std::string device_path, device_kind, kernel_name, model, serial;
  uint64_t device_size_bytes = 0;
  /// Bytes the patterns addressed, [0, region).
  uint64_t region_bytes = 0;
  /// "io_uring" | "psync" | "simulated"; O_DIRECT in effect.
  std::string engine;
  bool o_direct = true;
  /// ISO 8601 UTC ("2026-11-25T20:16:18Z") and the FlashPQ version that measured.
  std::string date, flashpq_version;
  /// Seconds per pattern and repeats asked.
  double seconds = 0;
  uint32_t repeats = 0;
  /// Every run, in plan order, repeats together.
  std::vector<PatternMeasurement> rows;

  /// Per pattern of the plan, in plan order: the median over its repeats of every figure
  /// (repeat = 0). REQUIRES: validate() passed.
  std::vector<PatternMeasurement> medians() const;
  /// "model serial (kernel_name)" — what identifies the device to people and to the
  /// sim_vs_real check.
  std::string identity_text() const;
  /// Throws std::invalid_argument naming `file`: a pattern of the plan missing, a pattern not
  /// in it, a figure that is not a finite positive number (ios and iops > 0; latencies > 0).
  void validate(const std::string& file) const;
};

/// Options of characterize_device.
struct CharacterizeOptions {
  /// Seconds per pattern and repeat (time based). Default 5. Range (0, 3600].
  double seconds = 5;
  /// Runs of each pattern. Default 3. Range [1, 100].
  uint32_t repeats = 3;
  /// Bytes addressed: [0, region). 0 = min(device or file size, 1 GiB); a file that does not
  /// exist is created with 1 GiB. Rounded down to whole MiB.
  uint64_t region_bytes = 0;
  /// Seed of the random offsets. Default 1.
  uint64_t seed = 1;
};

/// Runs the plan on `block` (its path, engine, O_DIRECT and force_destroy are used; queue
/// depth and max_io_bytes are set for the plan) through the safety gate: a device that is
/// mounted, in use, or holds a filesystem or partition table is refused unless force_destroy
/// names it (it is overwritten). Progress goes to `log` (one line per pattern). Throws
/// std::invalid_argument (bad options), SafetyError, std::system_error (I/O).
Characterization characterize_device(const BlockConfig& block, const CharacterizeOptions& options,
                                     std::ostream& log);

/// I/Os of each pattern when the plan runs on simflash: enough for the closed loop to reach its
/// steady state (≥ 8 × iodepth after a warm-up of iodepth), few enough to fit many times.
struct SimulatedPlanOptions {
  /// Bytes of the simulated device's exported space the patterns address. Default 256 MiB.
  uint64_t region_bytes = 256ull << 20;
  /// Scales every pattern's I/O count (1 = the defaults of simulate_pattern). Range (0, 100].
  double scale = 1.0;
  uint64_t seed = 1;
};

/// The plan on simflash `config` (its geometry and timings; blocks_per_plane is resized so that
/// the exported space holds the region) in simulated time: the functional fill, then each
/// pattern once. Deterministic. Throws std::invalid_argument as SimFlashConfig::validate().
std::vector<PatternMeasurement> simulate_plan(const SimFlashConfig& config,
                                              const std::vector<IoPatternSpec>& patterns,
                                              const SimulatedPlanOptions& options = {});

/// As characterize_device, on simflash: a Characterization whose rows are simulate_plan's
/// (device_kind "simflash", engine "simulated", one repeat).
Characterization characterize_simflash(const SimFlashConfig& config,
                                       const SimulatedPlanOptions& options = {});

/// Writes `c` as CSV (a header, then one row per run, every column on every row).
void write_characterization(const Characterization& c, std::ostream& out);
/// Reads a file written by write_characterization and validates it. Throws
/// std::invalid_argument naming the file and line: unreadable, a missing or unknown column, a
/// bad number (NaN, inf, not a number), rows of different devices, and as validate().
Characterization read_characterization(const std::string& path);

}  // namespace flashpq
