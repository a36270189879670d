// devices/fault.cpp — the fault layer (devices/fault.h).
#include "devices/fault.h"

#include <algorithm>

#include "fmt/format.h"

namespace flashpq {

namespace {

const KeySpec kReadErrorRate = key("device.fault.read_error_rate", ValueType::kUnitInterval)
                                   .def("0")
                                   .desc("fault layer: probability that a read fails (EIO)");
const KeySpec kWriteErrorRate = key("device.fault.write_error_rate", ValueType::kUnitInterval)
                                    .def("0")
                                    .desc("fault layer: probability that a write fails (EIO)");
const KeySpec kAtOffsets =
    key("device.fault.at_offsets", ValueType::kString)
        .from("none")
        .units("bytes")
        .desc(
            "fault layer: byte offsets (comma-separated, units allowed) whose every "
            "operation fails: bad sectors");
const KeySpec kFaultSeed = key("device.fault.seed", ValueType::kInt)
                               .def("0")
                               .range(0, 1e18)
                               .desc("fault layer: seed of the draws, 0 = the cell's seed");

const char* op_name(FaultInjector::Op op) {
  return op == FaultInjector::kRead ? "read" : op == FaultInjector::kWrite ? "write" : "trim";
}

}  // namespace

const std::vector<KeySpec>& fault_keys() {
  static const std::vector<KeySpec> keys = {kReadErrorRate, kWriteErrorRate, kAtOffsets,
                                            kFaultSeed};
  return keys;
}

FaultConfig fault_config(const Params& params) {
  FaultConfig c;
  c.read_error_rate = params.get<double>(kReadErrorRate);
  c.write_error_rate = params.get<double>(kWriteErrorRate);
  c.seed = params.get<uint64_t>(kFaultSeed);
  const std::string& text = params.text(kAtOffsets.name);
  for (size_t i = 0; i < text.size();) {
    const size_t comma = std::min(text.find(',', i), text.size());
    std::string item = text.substr(i, comma - i);
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    i = comma + 1;
    if (item.empty()) continue;
    if (item == "0") {
      c.at_offsets.push_back(0);
      continue;
    }
    try {
      c.at_offsets.push_back(parse_size(item));
    } catch (const std::invalid_argument&) {
      throw std::invalid_argument(fmt::format(
          "key '{}': expected byte offsets with units, comma-separated ('0, 4KiB, 1MiB'), found "
          "'{}'",
          kAtOffsets.name, text));
    }
  }
  std::sort(c.at_offsets.begin(), c.at_offsets.end());
  return c;
}

FaultInjector::FaultInjector(const FaultConfig& config, std::string device, uint64_t cell_seed)
    : config_(config),
      device_(std::move(device)),
      rng_(config.seed != 0 ? config.seed : cell_seed, RngStream::kFaultStream) {}

void FaultInjector::check(Op op, uint64_t offset, uint64_t len) {
  const auto bad = std::lower_bound(config_.at_offsets.begin(), config_.at_offsets.end(), offset);
  if (bad != config_.at_offsets.end() && *bad - offset < len) {
    fail(op, offset, len, "a bad sector");
  }
  const double rate = op == kRead    ? config_.read_error_rate
                      : op == kWrite ? config_.write_error_rate
                                     : 0.0;
  if (rate > 0 && rng_.uniform() < rate) fail(op, offset, len, "at random");
}

void FaultInjector::fail(Op op, uint64_t offset, uint64_t len, const char* why) {
  ++injected_;
  throw DeviceIoError(fmt::format("device {}: {} of {} bytes at offset {}: Input/output error "
                                  "(injected by device.fault: {})",
                                  device_, op_name(op), len, offset, why),
                      offset);
}

}  // namespace flashpq
