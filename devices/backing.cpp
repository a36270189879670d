// devices/backing.cpp — the `backing:` section and the fixed_latency device (devices/backing.h).
#include "devices/backing.h"

#include <algorithm>
#include <cmath>

#include "devices/simflash/simflash_config.h"

namespace flashpq {

const KeySpec kBackingDeviceKey =
    key("backing.device", ValueType::kEnum)
        .def("counted")
        .choices({"counted", "fixed_latency", "simflash", "block"})
        .desc(
            "a hierarchy's backing store: counted (bytes only, no time), fixed_latency (a "
            "FIFO server of fixed bandwidth, then a fixed latency), simflash (a second "
            "simulated flash device) or block (a real file or device, on the wall clock)");

namespace {

const FixedLatencyKeys kFixed = fixed_latency_keys("backing");
const KeySpec& kReadLatency = kFixed.read_latency;
const KeySpec& kWriteLatency = kFixed.write_latency;
const KeySpec& kReadBandwidth = kFixed.read_bandwidth;
const KeySpec& kWriteBandwidth = kFixed.write_bandwidth;

const KeySpec kProfile =
    key("backing.profile", ValueType::kEnum)
        .def("tiny")
        .choices(simflash_profile_names())
        .existing_file()
        .desc("simflash: the backing device's profile: a built-in name, or a profile file");
const KeySpec kUtilization =
    key("backing.utilization", ValueType::kFloat)
        .def("0.8")
        .range(0.01, 0.99)
        .desc(
            "simflash: exported / physical space of the backing device, sized to hold every "
            "object");

const KeySpec kBackingPath =
    key("backing.path", ValueType::kPath)
        .desc(
            "block: the backing store's file (created or extended to hold every object) or "
            "block device (checked by the same gate as device.path)");

}  // namespace

const SectionSpec& backing_section() {
  static const SectionSpec section{
      "backing",
      {kBackingDeviceKey},
      kBackingDeviceKey.name,
      {ComponentSpec{"counted", "bytes counted, no time", {}, {}, {}, {}},
       ComponentSpec{"fixed_latency",
                     "fixed latency and bandwidth",
                     {kReadLatency, kWriteLatency, kReadBandwidth, kWriteBandwidth},
                     {},
                     {},
                     {}},
       ComponentSpec{
           "simflash", "a second simulated flash device", {kProfile, kUtilization}, {}, {}, {}},
       ComponentSpec{"block", "a real file or block device", {kBackingPath}, {}, {}, {}}}};
  return section;
}

BackingConfig BackingConfig::from(const Params& params) {
  BackingConfig c;
  const std::string kind = params.get<std::string>(kBackingDeviceKey);
  if (kind == "block") {
    c.kind = BackingKind::kBlock;
    c.path = params.get<std::string>(kBackingPath);
    return c;
  }
  if (kind == "simflash") {
    c.kind = BackingKind::kSimFlash;
    c.profile = params.get<std::string>(kProfile);
    c.utilization = params.get<double>(kUtilization);
    return c;
  }
  if (kind != "fixed_latency") return c;
  c.kind = BackingKind::kFixedLatency;
  kFixed.decode(params, &c);
  return c;
}

FixedLatencyKeys fixed_latency_keys(const std::string& section, bool strict) {
  auto k = [&](const char* name) {
    KeySpec s = key(section + "." + name, ValueType::kFloat);
    return strict ? s.strict_to_readers() : s;
  };
  return FixedLatencyKeys{k("read_latency_us")
                              .def("100")
                              .units("us")
                              .range(0, 1e9)
                              .desc("fixed_latency: the delay after a request's reads"),
                          k("write_latency_us")
                              .def("100")
                              .units("us")
                              .range(0, 1e9)
                              .desc("fixed_latency: the delay after a request's writes"),
                          k("read_bandwidth_mib_s")
                              .def("500")
                              .units("MiB/s")
                              .range(1e-6, 1e9)
                              .desc("fixed_latency: the rate at which reads are transferred"),
                          k("write_bandwidth_mib_s")
                              .def("500")
                              .units("MiB/s")
                              .range(1e-6, 1e9)
                              .desc("fixed_latency: the rate at which writes are transferred")};
}

void FixedLatencyKeys::decode(const Params& params, BackingConfig* c) const {
  c->read_latency_us = params.get<double>(read_latency);
  c->write_latency_us = params.get<double>(write_latency);
  c->read_bandwidth_mib_s = params.get<double>(read_bandwidth);
  c->write_bandwidth_mib_s = params.get<double>(write_bandwidth);
}

FixedLatencyServer::FixedLatencyServer(const BackingConfig& config)
    : read_ns_per_byte_(1e9 / (config.read_bandwidth_mib_s * 1048576.0)),
      write_ns_per_byte_(1e9 / (config.write_bandwidth_mib_s * 1048576.0)),
      read_latency_ns_(static_cast<uint64_t>(std::llround(config.read_latency_us * 1e3))),
      write_latency_ns_(static_cast<uint64_t>(std::llround(config.write_latency_us * 1e3))) {}

uint64_t FixedLatencyServer::submit(uint64_t now_ns, uint64_t read_bytes, uint64_t write_bytes) {
  if (read_bytes == 0 && write_bytes == 0) return now_ns;
  const auto transfer =
      static_cast<uint64_t>(std::llround(read_ns_per_byte_ * static_cast<double>(read_bytes) +
                                         write_ns_per_byte_ * static_cast<double>(write_bytes)));
  free_ns_ = std::max(free_ns_, now_ns) + transfer;
  busy_ns_ += transfer;
  const uint64_t latency =
      std::max(read_bytes != 0 ? read_latency_ns_ : 0, write_bytes != 0 ? write_latency_ns_ : 0);
  return free_ns_ + latency;
}

}  // namespace flashpq
