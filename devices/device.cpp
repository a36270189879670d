// devices/device.cpp — the device registry and the checks of the device seam.
#include "devices/device.h"

#include <algorithm>

namespace flashpq {

const KeySpec& device_capacity_key() {
  static const KeySpec k =
      key("device.capacity", ValueType::kSize)
          .units("bytes")
          .from("the device")
          .strict_to_readers()
          .desc(
              "bytes used from offset 0 (block: of the file or device; simflash: the exported "
              "space, blocks_per_plane sized to hold it)");
  return k;
}

// The registry, in registration order: one X(...) line per device type, each defined in its
// own file (docs/guide/extending.md "The other kinds"). The list both declares the types and fills
// the table.
#define FLASHPQ_DEVICE_TYPES(X) \
  X(kNullDeviceType)            \
  X(kSimFlashDeviceType)        \
  X(kBlockDeviceType)           \
  X(kFixedLatencyDeviceType)

#define FLASHPQ_DECLARE(type) extern const DeviceType type;
FLASHPQ_DEVICE_TYPES(FLASHPQ_DECLARE)
#undef FLASHPQ_DECLARE

const std::vector<const DeviceType*>& device_types() {
#define FLASHPQ_ADDRESS(type) &type,
  static const std::vector<const DeviceType*> types = {FLASHPQ_DEVICE_TYPES(FLASHPQ_ADDRESS)};
#undef FLASHPQ_ADDRESS
  return types;
}

const std::vector<std::string>& device_names() {
  static const std::vector<std::string> names = entry_names(device_types());
  return names;
}

const DeviceType& device_type(const std::string& name) {
  return entry_named(device_types(), name, "device.name");
}

const KeySpec& device_endurance_dwpd_key() {
  static const KeySpec k =
      key("device.endurance_dwpd", ValueType::kFloat)
          .def("1")
          .range(0.001, 1000)
          .units("drive writes per day")
          .strict_to_readers()
          .desc(
              "rated endurance: full drive writes per day over device.warranty_years (a "
              "datacenter read-intensive SSD: 1; mixed use: 3), for device_lifetime_days");
  return k;
}

const KeySpec& device_warranty_years_key() {
  static const KeySpec k = key("device.warranty_years", ValueType::kFloat)
                               .def("5")
                               .range(0.01, 100)
                               .units("years")
                               .strict_to_readers()
                               .desc("the warranty period the endurance rating is given over");
  return k;
}

const SectionSpec& device_section() {
  static const SectionSpec section = registry_section(
      "device", fault_keys(), key("device.name", ValueType::kEnum).def("null").desc("device"),
      entry_specs(device_types()));
  return section;
}

const std::vector<ColumnSpec>& device_columns() {
  static const std::vector<ColumnSpec> columns = [] {
    std::vector<ColumnSpec> v;
    for (const DeviceType* t : device_types()) {
      for (const ColumnSpec& c : t->columns) v.push_back(c);
    }
    return v;
  }();
  return columns;
}

std::vector<std::string> device_row_columns(const DeviceConfig& config) {
  const DeviceType& type = device_type(config.name);
  if (type.row_columns != nullptr) return type.row_columns(config);
  std::vector<std::string> out;
  for (const ColumnSpec& c : type.columns) {
    if (!c.if_set) out.push_back(c.name);
  }
  return out;
}

std::vector<std::string> device_names_with_clock(DeviceClock clock) {
  std::vector<std::string> out;
  for (const DeviceType* t : device_types()) {
    if (t->clock == clock) out.push_back(t->spec().name);
  }
  return out;
}

std::unique_ptr<Device> make_device(const DeviceConfig& config) {
  return device_type(config.name).make(config);
}

uint32_t Device::zone_index(uint64_t offset, const char* what) const {
  if (!zones_.zoned()) {
    throw std::invalid_argument(std::string("device ") + what + " at offset " +
                                std::to_string(offset) +
                                ": the device has no zones (simflash with device.zns.zone_capacity "
                                "has)");
  }
  if (offset % zones_.zone_size_bytes != 0 || offset / zones_.zone_size_bytes >= zones_.zones) {
    throw std::invalid_argument(
        std::string("device ") + what + " at offset " + std::to_string(offset) +
        ": expected a zone's start, a multiple of " + std::to_string(zones_.zone_size_bytes) +
        " below " + std::to_string(zones_.zone_size_bytes * zones_.zones));
  }
  return static_cast<uint32_t>(offset / zones_.zone_size_bytes);
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
