// engine/exact/exact_config.h — the keys of the `exact` framework: where its objects go on the
// device.
//
//   framework.placement            none | naive (default none)
//   framework.placement_alignment  bytes, a power of two (default 4 KiB)
// and framework.read_hits (engine/queue.h), which matters with naive placement only.
#pragma once

#include <cstdint>

#include "sim/params.h"

namespace flashpq {

/// What the exact framework reads of the framework section.
struct ExactConfig {
  /// "none" (false, the default): objects go nowhere, an in-memory baseline. "naive" (true):
  /// each object is written on its own at the lowest free offset aligned to
  /// `placement_alignment_bytes` and its extent is trimmed on eviction (RIPQ paper §4.2, "Naive
  /// Design"; engine/exact/naive_placement.h).
  bool naive_placement = false;
  /// With naive placement: alignment of each object's extent, bytes. Default 4096.
  /// REQUIRES: a power of two.
  uint32_t placement_alignment_bytes = 4096;

  /// Decodes `params` (framework.* keys; unset keys take their defaults). Throws
  /// std::invalid_argument quoting a bad value (an alignment that is not a power of two).
  static ExactConfig from(const Params& params);
};

extern const KeySpec kPlacementKey;
extern const KeySpec kPlacementAlignmentKey;

}  // namespace flashpq
