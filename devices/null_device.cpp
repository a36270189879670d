// devices/null_device.cpp — the null device's registration (devices/null_device.h).
#include "devices/null_device.h"

#include <memory>

namespace flashpq {

namespace {

const ComponentSpec& null_spec() {
  static const ComponentSpec spec{
      "null", "counts bytes only, unbounded: for pure hit-ratio sweeps", {}, {}, {}, {}};
  return spec;
}

}  // namespace

const DeviceType kNullDeviceType{
    &null_spec,
    [](const DeviceConfig&, Params&) { return DeviceBounds{}; },
    [](const DeviceConfig&) -> std::unique_ptr<Device> { return std::make_unique<NullDevice>(); },
    {},
    DeviceClock::kFunctional};

}  // namespace flashpq
