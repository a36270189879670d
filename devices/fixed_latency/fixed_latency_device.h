// devices/fixed_latency/fixed_latency_device.h — a device of fixed latency and bandwidth with a
// simulated clock: the smallest device with a clock, and the example of one
// (docs/guide/extending.md "A device with a clock").
//
// Functionally it stores nothing and counts, as the null device, over `device.capacity` bytes
// (byte-addressed). Its clock is a datasheet's view of a drive (devices/backing.h, the
// fixed_latency backing store, the same FixedLatencyServer): one FIFO server that transfers
// each request's reads at device.read_bandwidth_mib_s and its writes at
// device.write_bandwidth_mib_s, in issue order, then a fixed delay in which requests overlap
// (device.read_latency_us if the request read, device.write_latency_us if it wrote, the larger
// if both):
//     done = max(now, server free) + read_bytes / read_bw + write_bytes / write_bw
//     completion = done + latency.
// A request that moves no byte (a hit in DRAM) takes no time. It models a bottleneck, not the
// inside of a drive: no queue depth, no garbage collection, device-level WA 1 (use simflash for
// those).
#pragma once

#include <cstdint>
#include <memory>

#include "devices/backing.h"
#include "devices/device.h"
#include "devices/service_model.h"

namespace flashpq {

class FixedLatencyDevice final : public Device {
 public:
  /// Decodes config.params (device.capacity and the four timing keys). Throws
  /// std::invalid_argument naming a bad key.
  explicit FixedLatencyDevice(const DeviceConfig& config);

  /// The timing keys, resolved.
  const BackingConfig& timing() const { return timing_; }

 private:
  void do_write(uint64_t, uint64_t) override {}
  void do_read(uint64_t, uint64_t) override {}
  void do_trim(uint64_t, uint64_t) override {}

  BackingConfig timing_;
};

/// Its clock (devices/service_model.h): the bytes each request read and wrote, from the device's
/// counters between begin() and submit(), through the FIFO server. Not thread-safe.
class FixedLatencyServiceModel final : public ServiceModel {
 public:
  FixedLatencyServiceModel(FixedLatencyDevice& device, const Options& options)
      : device_(device), base_(options.id_base), server_(device.timing()) {}

  void begin(uint64_t now_ns) override {
    at_ = device_.counters();
    if (FioIoLog* io_log = device_.io_log()) io_log->set_now_ns(now_ns);
  }
  bool submit(uint32_t slot, uint64_t, EventQueue& events) override {
    const DeviceCounters now = device_.counters();
    const uint64_t done = server_.submit(events.now(), now.read_bytes - at_.read_bytes,
                                         now.write_bytes - at_.write_bytes);
    if (done == events.now()) return false;
    events.schedule(done, EventKind::kRequestDone, base_ + slot);
    return true;
  }
  void handle(const Event& event, EventQueue&, std::vector<uint32_t>& done) override {
    done.push_back(event.id - base_);
  }
  uint64_t media_bytes_written() const override { return device_.counters().write_bytes; }

 private:
  FixedLatencyDevice& device_;
  uint32_t base_;
  FixedLatencyServer server_;
  DeviceCounters at_;
};

/// The fixed_latency device as registered (devices/device.cpp).
extern const DeviceType kFixedLatencyDeviceType;

}  // namespace flashpq
