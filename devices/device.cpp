#include "devices/device.h"

#include <algorithm>

#include "devices/block/block_device.h"
#include "devices/null_device.h"
#include "devices/simflash/simflash_device.h"

namespace flashpq {

namespace {

struct DeviceEntry {
  const char* name;
  std::unique_ptr<Device> (*make)(const DeviceConfig&);
};

// The registry: one line per device implementation.
const DeviceEntry kDevices[] = {
    {"null",
     [](const DeviceConfig& c) -> std::unique_ptr<Device> {
       return std::make_unique<NullDevice>(c);
     }},
    {"simflash",
     [](const DeviceConfig& c) -> std::unique_ptr<Device> {
       return std::make_unique<SimFlashDevice>(c);
     }},
    {"block",
     [](const DeviceConfig& c) -> std::unique_ptr<Device> {
       return std::make_unique<BlockDevice>(c);
     }},
};

}  // namespace

const std::vector<std::string>& device_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& d : kDevices) v.emplace_back(d.name);
    return v;
  }();
  return names;
}

void DeviceConfig::validate() const {
  const auto& names = device_names();
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    std::string allowed;
    for (const auto& n : names) allowed += (allowed.empty() ? "" : ", ") + n;
    throw std::invalid_argument("device.name: unknown device '" + name + "' (allowed: " + allowed +
                                ")");
  }
  if (logical_block_bytes == 0 || (logical_block_bytes & (logical_block_bytes - 1)) != 0) {
    throw std::invalid_argument("device.logical_block_bytes: expected a power of two, found " +
                                std::to_string(logical_block_bytes));
  }
  if (name == "simflash") simflash.validate();
  if (name == "block") block.validate();
}

std::unique_ptr<Device> make_device(const DeviceConfig& config) {
  config.validate();
  for (const auto& d : kDevices) {
    if (config.name == d.name) return d.make(config);
  }
  throw std::invalid_argument("device.name: unknown device '" + config.name + "'");
}

void Device::check_slow(uint64_t offset, uint64_t len, const char* what) const {
  if (len == 0 || offset % block_bytes_ != 0 || len % block_bytes_ != 0) {
    throw std::invalid_argument(std::string("device ") + what + " at offset " +
                                std::to_string(offset) + " length " + std::to_string(len) +
                                ": not aligned to the logical block size " +
                                std::to_string(block_bytes_) + " B");
  }
  if (capacity_bytes_ != 0 && (offset > capacity_bytes_ || len > capacity_bytes_ - offset)) {
    throw std::invalid_argument(std::string("device ") + what + " at offset " +
                                std::to_string(offset) + " length " + std::to_string(len) +
                                ": past the capacity " + std::to_string(capacity_bytes_) + " B");
  }
}

}  // namespace flashpq
