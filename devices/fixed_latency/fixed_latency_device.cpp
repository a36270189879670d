// devices/fixed_latency/fixed_latency_device.cpp — the fixed_latency device's keys and
// registration (devices/fixed_latency/fixed_latency_device.h).
#include "devices/fixed_latency/fixed_latency_device.h"

#include <memory>

namespace flashpq {

namespace {

// The backing store's fixed_latency keys, under device.
const FixedLatencyKeys& keys() {
  static const FixedLatencyKeys k = fixed_latency_keys("device", true);
  return k;
}

const ComponentSpec& fixed_latency_spec() {
  static const ComponentSpec spec{
      "fixed_latency",
      "counts bytes, timed as one FIFO server of fixed bandwidth then a fixed latency (a "
      "datasheet's drive: no queue depth, no GC)",
      {keys().read_latency, keys().write_latency, keys().read_bandwidth, keys().write_bandwidth,
       device_capacity_key()},
      {},
      {},
      {}};
  return spec;
}

BackingConfig timing_of(const Params& params) {
  BackingConfig c;
  c.kind = BackingKind::kFixedLatency;
  keys().decode(params, &c);
  return c;
}

// device.capacity, 0 (unbounded) when unset.
uint64_t capacity_of(const Params& params) {
  return params.has(device_capacity_key().name) ? params.get<uint64_t>(device_capacity_key()) : 0;
}

}  // namespace

FixedLatencyDevice::FixedLatencyDevice(const DeviceConfig& config)
    : Device(capacity_of(config.params), 1), timing_(timing_of(config.params)) {}

const DeviceType kFixedLatencyDeviceType{
    &fixed_latency_spec,
    [](const DeviceConfig& config, Params& shown) {
      timing_of(config.params);  // checks the keys
      const uint64_t capacity = capacity_of(config.params);
      shown.set(device_capacity_key().name, capacity == 0 ? "" : std::to_string(capacity));
      return DeviceBounds{capacity, 1};
    },
    [](const DeviceConfig& config) -> std::unique_ptr<Device> {
      return std::make_unique<FixedLatencyDevice>(config);
    },
    {},
    DeviceClock::kSimulated,
    nullptr,
    nullptr,
    [](Device& device, const ServiceModel::Options& options) -> std::unique_ptr<ServiceModel> {
      // make() built it (DeviceType::service_model's contract).
      return std::make_unique<FixedLatencyServiceModel>(static_cast<FixedLatencyDevice&>(device),
                                                        options);
    }};

}  // namespace flashpq
