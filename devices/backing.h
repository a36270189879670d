// devices/backing.h — the backing store of a cache hierarchy (engine/tiers.h), Open CAS's
// "core" device: the `backing:` section.
//
// Source: docs/DESIGN.md "Tiers". Two kinds:
//   counted        bytes read and written are counted, no time passes (the functional
//                  hierarchy; the default);
//   fixed_latency  a device of fixed latency and bandwidth, for the timed hierarchy: one FIFO
//                  server that transfers each request's reads at read_bandwidth_mib_s and its
//                  writes at write_bandwidth_mib_s, one after the other in arrival order, then a
//                  fixed delay in which requests overlap (read_latency_us if the request read,
//                  write_latency_us if it wrote, the larger if both). A request's backing work
//                  completes at
//                      done = max(now, server free) + read_bytes / read_bw + write_bytes / write_bw
//                      completion = done + latency.
//                  Its throughput is bounded by the bandwidths, and a lone small request takes
//                  about its latency: the two numbers a datasheet gives for a "slower device".
//                  It is a model of the device's bottleneck, not of its internals (no queue
//                  depth, no garbage collection): use a simflash device for those.
//   simflash       a second simulated flash device (a built-in profile, `backing.profile`,
//                  normally a slower one than the flash tier's), for the timed hierarchy: its
//                  dies and channels run on the same event clock as the flash tier's, and a
//                  request's backing work completes when its NAND operations do
//                  (experiments/run/backing_store.h lays the objects out on it).
//   block          a real file or block device (`backing.path`), for a hierarchy on the wall
//                  clock: every backing read and write is I/O there, inside the request's
//                  timed access (laid out as for simflash; the device's safety gate applies).
#pragma once

#include <cstdint>
#include <string>

#include "sim/params.h"

namespace flashpq {

/// backing.device.
enum class BackingKind { kCounted, kFixedLatency, kSimFlash, kBlock };

/// The `backing:` section, resolved.
struct BackingConfig {
  BackingKind kind = BackingKind::kCounted;
  /// fixed_latency: the delays, µs, ≥ 0; the bandwidths, MiB/s, > 0.
  double read_latency_us = 100;
  double write_latency_us = 100;
  double read_bandwidth_mib_s = 500;
  double write_bandwidth_mib_s = 500;
  /// simflash: the built-in profile (devices/simflash/simflash_config.h) and the share of its
  /// physical space exported, in (0, 1).
  std::string profile = "tiny";
  double utilization = 0.8;
  /// block: the file or device.
  std::string path;

  bool timed() const { return kind != BackingKind::kCounted; }
  /// Decodes the backing.* values of `params` (unset keys take their defaults). Throws
  /// std::invalid_argument quoting a bad value.
  static BackingConfig from(const Params& params);
};

/// The four keys of a fixed-latency device under `section` ("backing", or "device" for the
/// fixed_latency device, devices/fixed_latency/): SECTION.read_latency_us, write_latency_us
/// (µs, ≥ 0, default 100), read_bandwidth_mib_s, write_bandwidth_mib_s (MiB/s, > 0, default
/// 500). `strict`: each is read only by the component that declares it (KeySpec's
/// strict_to_readers).
struct FixedLatencyKeys {
  KeySpec read_latency, write_latency, read_bandwidth, write_bandwidth;
  /// Sets c's four timing fields from `params` (unset keys: their defaults). Throws
  /// std::invalid_argument quoting a bad value.
  void decode(const Params& params, BackingConfig* c) const;
};
FixedLatencyKeys fixed_latency_keys(const std::string& section, bool strict = false);

/// The `backing:` section: backing.device, then the fixed_latency keys.
const SectionSpec& backing_section();
extern const KeySpec kBackingDeviceKey;

/// The fixed_latency device's clock (see the header comment). Not thread-safe.
class FixedLatencyServer {
 public:
  /// REQUIRES: config.timed().
  explicit FixedLatencyServer(const BackingConfig& config);

  /// Queues a request issued at now_ns that reads read_bytes and writes write_bytes (either may
  /// be 0; both 0 returns now_ns and takes no time) and returns its completion time, ns.
  /// REQUIRES: now_ns does not decrease from one call to the next.
  uint64_t submit(uint64_t now_ns, uint64_t read_bytes, uint64_t write_bytes);

  /// Time the transfer stage was busy, ns.
  uint64_t busy_ns() const { return busy_ns_; }

 private:
  double read_ns_per_byte_, write_ns_per_byte_;
  uint64_t read_latency_ns_, write_latency_ns_;
  uint64_t free_ns_ = 0;
  uint64_t busy_ns_ = 0;
};

}  // namespace flashpq
