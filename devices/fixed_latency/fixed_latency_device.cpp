// devices/fixed_latency/fixed_latency_device.cpp — the fixed_latency device's keys and
// registration (devices/fixed_latency/fixed_latency_device.h).
#include "devices/fixed_latency/fixed_latency_device.h"

#include <memory>

namespace flashpq {

namespace {

const KeySpec kFlReadLatency = key("device.read_latency_us", ValueType::kFloat)
                                   .def("100")
                                   .units("us")
                                   .range(0, 1e9)
                                   .strict_to_readers()
                                   .desc("fixed_latency: the delay after a request's reads");
const KeySpec kFlWriteLatency = key("device.write_latency_us", ValueType::kFloat)
                                    .def("100")
                                    .units("us")
                                    .range(0, 1e9)
                                    .strict_to_readers()
                                    .desc("fixed_latency: the delay after a request's writes");
const KeySpec kFlReadBandwidth =
    key("device.read_bandwidth_mib_s", ValueType::kFloat)
        .def("500")
        .units("MiB/s")
        .range(1e-6, 1e9)
        .strict_to_readers()
        .desc("fixed_latency: the rate at which a request's reads are transferred");
const KeySpec kFlWriteBandwidth =
    key("device.write_bandwidth_mib_s", ValueType::kFloat)
        .def("500")
        .units("MiB/s")
        .range(1e-6, 1e9)
        .strict_to_readers()
        .desc("fixed_latency: the rate at which a request's writes are transferred");

const ComponentSpec& fixed_latency_spec() {
  static const ComponentSpec spec{
      "fixed_latency",
      "counts bytes, timed as one FIFO server of fixed bandwidth then a fixed latency (a "
      "datasheet's drive: no queue depth, no GC)",
      {kFlReadLatency, kFlWriteLatency, kFlReadBandwidth, kFlWriteBandwidth, device_capacity_key()},
      {},
      {},
      {}};
  return spec;
}

BackingConfig timing_of(const Params& params) {
  BackingConfig c;
  c.kind = BackingKind::kFixedLatency;
  c.read_latency_us = params.get<double>(kFlReadLatency);
  c.write_latency_us = params.get<double>(kFlWriteLatency);
  c.read_bandwidth_mib_s = params.get<double>(kFlReadBandwidth);
  c.write_bandwidth_mib_s = params.get<double>(kFlWriteBandwidth);
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
