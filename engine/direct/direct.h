// engine/direct/direct.h — the `direct` framework: no cache; every request is block I/O sent
// straight to the device (docs/DESIGN.md "Data flow", framework). It replays block traces and
// device workload generators (sequential or random I/O of a given size) to characterise a device.
//
// A request maps to one device operation at byte offset key × framework.offset_unit of
// size_bytes bytes: get → read, set → write, delete → trim. The device's own checks (alignment
// to its logical block, bounds) decide whether it is accepted: a request it refuses fails the
// run with the request's index, op, key and size and the device's reason — never rounded or
// wrapped silently. The runners (experiments/run/) issue the requests, in the functional,
// simulated-time and wall-clock modes alike, through direct_io_of().
#pragma once

#include <cstdint>
#include <string>

#include "devices/device.h"
#include "engine/request.h"
#include "sim/params.h"

namespace flashpq {

/// What framework direct reads of the framework section.
struct DirectConfig {
  /// Bytes per unit of a request's key: the I/O's byte offset is key × offset_unit (1 for
  /// byte offsets, as the device_io generator yields; 512 for sector numbers). Default 1.
  /// Range [1, 2^32].
  uint64_t offset_unit_bytes = 1;

  /// Decodes `params` (framework.* keys; unset keys take their defaults). Throws
  /// std::invalid_argument quoting a bad value.
  static DirectConfig from(const Params& params);
};

extern const KeySpec kOffsetUnitKey;

/// The `direct` framework as registered (engine/framework.h): it has no cache to build; the
/// runners replay its requests with direct_issue().
struct DirectFramework {
  /// "direct": framework.offset_unit.
  static const ComponentSpec& spec();
  /// Decodes the keys it reads, to check them. Throws std::invalid_argument.
  static void check(const Params& params) { DirectConfig::from(params); }
  static constexpr bool kHasQueue = false;
};

/// The device operation a request of framework direct maps to.
struct DirectIo {
  enum Kind : uint8_t { kRead, kWrite, kTrim } kind;
  uint64_t offset;
  uint64_t len;
};

/// Maps request r, the index-th of its trace, and checks it against `device` (alignment,
/// capacity, length > 0) without issuing it. Throws std::invalid_argument "request INDEX (OP
/// key KEY size SIZE): REASON" when the offset overflows 64 bits or the device would refuse it.
DirectIo direct_io_of(const Device& device, const Request& r, uint64_t offset_unit_bytes,
                      uint64_t index);

/// Issues request r on `device` (write, read or trim). Throws as direct_io_of().
inline void direct_issue(Device& device, const Request& r, uint64_t offset_unit_bytes,
                         uint64_t index) {
  const DirectIo io = direct_io_of(device, r, offset_unit_bytes, index);
  switch (io.kind) {
    case DirectIo::kRead:
      device.read(io.offset, io.len);
      break;
    case DirectIo::kWrite:
      device.write(io.offset, io.len);
      break;
    case DirectIo::kTrim:
      device.trim(io.offset, io.len);
      break;
  }
}

}  // namespace flashpq
