// traces/device_io.h — the `device_io` request generator: how users characterise a device and
// how simflash is validated (docs/DESIGN.md "Data flow", trace source).
//
// It yields block I/O for the `direct` framework: each Request's key is a byte offset, its size
// the I/O size, its op kSet (write) or kGet (read); time_ns is 0 (no timestamps: use a
// constant, Poisson or closed-loop arrival process in timed runs).
//
// The exported space [0, span_bytes) is divided into floor(span / io_size) aligned slots.
//   1. Fill (fill = true, the default): one sequential write of every slot, in ascending
//      order, so every later read is of mapped data and every later write is an overwrite —
//      the "sequential fill" of the write-amplification literature (Desnoyers ToS'14 §6) and of
//      fio preconditioning.
//   2. `requests` I/Os of the pattern: `sequential` continues from slot 0 and wraps;
//      `uniform_random` draws every slot with equal probability, independently, from the
//      stream RngStream::kDeviceIoStream of the cell seed (sim/rng.h), mapped to [0, slots) by
//      the multiply-high method (RngStream::below; Lemire 2019; bias < slots / 2^64).
// The fill requests come first and always belong to the warm-up (they are the reader's
// preconditioning_requests(): the warm-up fraction applies to the `requests` part only). It
// needs framework direct (a requirement the experiment loader checks) and I/O sizes aligned to
// the device's logical block.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "traces/trace_reader.h"

namespace flashpq {

enum class IoPattern : uint8_t { kSequential, kUniformRandom };

/// The generator's part of the `trace:` section (format: generator, generator: device_io).
struct DeviceIoConfig {
  /// Default uniform_random.
  IoPattern pattern = IoPattern::kUniformRandom;
  /// true: writes; false: reads. Default writes.
  bool write = true;
  /// Bytes per I/O; offsets are multiples of it. Default 4096. REQUIRES: ≥ 1 and ≤ span.
  uint64_t io_size_bytes = 4096;
  /// I/Os after the fill. Default 1,000,000. Range [1, 2^50].
  uint64_t requests = 1'000'000;
  /// Sequential fill of the whole span first. Default true.
  bool fill = true;
  /// Bytes addressed, [0, span): the device's exported capacity (TraceConfig::device); 0 =
  /// unknown (an unbounded device), which validate() refuses.
  uint64_t span_bytes = 0;
  /// Seed of the uniform_random stream (the cell seed).
  uint64_t seed = 1;

  uint64_t slots() const { return io_size_bytes ? span_bytes / io_size_bytes : 0; }
  uint64_t fill_requests() const { return fill ? slots() : 0; }
  uint64_t total_requests() const { return fill_requests() + requests; }
  /// A stable text of every field (and, for uniform_random, the random stream), hashed as the
  /// trace's content hash.
  std::string identity() const;

  /// Throws std::invalid_argument quoting the bad value: io_size 0, requests out of range, or a
  /// span unresolved (0) or smaller than one I/O. (Reads without a fill are allowed: simflash
  /// counts reads of unwritten pages as unmapped reads.)
  void validate() const;

  /// Decodes the generator's keys (trace.pattern, op, io_size, requests, fill) of `config`,
  /// its span from config.device and its seed from config.seed. Not validated.
  static DeviceIoConfig from(const TraceConfig& config);
};

/// "sequential", "uniform_random", in the order of IoPattern.
const std::vector<std::string>& io_pattern_names();
const char* io_pattern_name(IoPattern pattern);
/// "sequential" | "uniform_random". Throws std::invalid_argument listing the allowed values.
IoPattern parse_io_pattern(const std::string& name);

}  // namespace flashpq
