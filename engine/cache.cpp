// engine/cache.cpp — the cache section's keys and the capacity (engine/cache.h).
#include "engine/cache.h"

#include <algorithm>
#include <cmath>

namespace flashpq {

void throw_not_zoned(const std::string& framework) {
  throw std::invalid_argument(
      "framework.name: '" + framework +
      "' writes its data in place, and the device is zoned (device.zns.zone_capacity), which "
      "takes writes only at each zone's write pointer: expected a framework that writes whole "
      "zones and resets them, blockcache, ripq or sipq (a region or block per zone), a host "
      "FTL over the zones (device.zns.host_ftl: true), or a device without zones");
}

QueueContext with_placement_handles(QueueContext c) {
  const std::string text = c.framework.params.get<std::string>(kPlacementHandlesKey);
  c.placement_handles.clear();
  if (text == "auto") return c;
  std::vector<int64_t> items;
  if (!parse_int_list(text, 0, 65535, &items)) {
    throw std::invalid_argument(
        "key 'framework.placement_handles': expected placement handles, integers in [0, 65535] "
        "separated by commas, one per data class (e.g. 1,2), or auto, found '" +
        text + "'");
  }
  c.placement_handles.assign(items.begin(), items.end());
  return c;
}

uint32_t QueueContext::placement(uint32_t i,
                                 std::initializer_list<std::string_view> classes) const {
  if (placement_handles.empty()) return placement_first + i;
  if (placement_handles.size() != classes.size()) {
    std::string names;
    for (const std::string_view n : classes) {
      if (!names.empty()) names += ", ";
      names += n;
    }
    std::string given;
    for (const uint32_t h : placement_handles) {
      if (!given.empty()) given += ',';
      given += std::to_string(h);
    }
    throw std::invalid_argument("key 'framework.placement_handles': framework '" + framework.name +
                                "' writes " + std::to_string(classes.size()) + " data class(es) (" +
                                names + "): expected " + std::to_string(classes.size()) +
                                " handle(s), found '" + given + "'");
  }
  return placement_handles[i];
}

bool zoned_units(const Device& device, uint64_t unit_bytes, uint64_t base,
                 const std::string& unit_key) {
  const ZoneGeometry& z = device.zone_geometry();
  if (!z.zoned()) return false;
  if (unit_bytes != z.zone_capacity_bytes) {
    throw std::invalid_argument(unit_key +
                                ": on a zoned device each unit is one zone: expected "
                                "the zone capacity, " +
                                std::to_string(z.zone_capacity_bytes) +
                                " B (device.zns.zone_capacity), found " +
                                std::to_string(unit_bytes) +
                                " B; units of another size run on zones through a host FTL "
                                "(device.zns.host_ftl: true)");
  }
  if (z.zone_size_bytes != z.zone_capacity_bytes) {
    throw std::invalid_argument(
        "device.zns.zone_size: " + unit_key +
        " units are addressed one unit apart, so a zone must have no bytes past its capacity: "
        "expected " +
        std::to_string(z.zone_capacity_bytes) + " B (or 0), found " +
        std::to_string(z.zone_size_bytes) + " B");
  }
  if (base % z.zone_size_bytes != 0) {
    throw std::invalid_argument("on a zoned device the cache's " + unit_key +
                                " units must start at a zone (a multiple of " +
                                std::to_string(z.zone_size_bytes) + " B), found offset " +
                                std::to_string(base));
  }
  return true;
}

const KeySpec kCapacityKey =
    key("cache.capacity", ValueType::kCapacity)
        .def("0.1")
        .units("bytes or fraction")
        .desc(
            "bytes with a unit (256MiB, 4KiB; a plain integer is bytes) or, written with a "
            "decimal point, a fraction in (0, 1] of the working set (sum of first-seen sizes)");

const KeySpec kUnitSizeKey = key("cache.unit_size", ValueType::kBool)
                                 .def("false")
                                 .desc("count every object as size 1 (capacity in objects)");

const KeySpec kOnSizeChangeKey =
    key("cache.on_size_change", ValueType::kEnum)
        .def("keep")
        .choices({"keep", "update"})
        .desc(
            "a get whose size differs from the cached copy: keep = hit, copy keeps its size "
            "(libCacheSim); update = miss, reinsert with the new size");

const SectionSpec& cache_section() {
  static const SectionSpec section{"cache", {kCapacityKey, kUnitSizeKey, kOnSizeChangeKey}, "", {}};
  return section;
}

CacheConfig CacheConfig::from(const Params& params) {
  CacheConfig c;
  c.unit_size = params.get<bool>(kUnitSizeKey);
  c.on_size_change = params.get<std::string>(kOnSizeChangeKey) == "update" ? SizeChange::kUpdate
                                                                           : SizeChange::kKeep;
  return c;
}

CapacitySpec CapacitySpec::parse(const std::string& text) {
  check_value(kCapacityKey, text);
  CapacitySpec c;
  if (text.find('.') != std::string::npos) {
    c.is_fraction = true;
    parse_double(text, &c.fraction);
  } else {
    c.bytes = parse_size(text);
  }
  return c;
}

uint64_t CapacitySpec::resolve(uint64_t working_set) const {
  if (!is_fraction) return bytes;
  const auto v = static_cast<uint64_t>(std::floor(fraction * static_cast<double>(working_set)));
  return std::max<uint64_t>(v, 1);
}

}  // namespace flashpq
