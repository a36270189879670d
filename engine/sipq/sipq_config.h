// engine/sipq/sipq_config.h — the keys of the `sipq` framework (RIPQ paper §5).
//
//   framework.block_size  device block size B (engine/queue.h, shared with ripq)
//   framework.occupancy   logical occupancy θ (default 0.5)
// and framework.read_hits (engine/queue.h).
#pragma once

#include <cstdint>

#include "sim/params.h"

namespace flashpq {

/// What SIPQ reads of the framework section.
struct SipqConfig {
  /// Device block size B in bytes (kBlockSizeKey, resolved by block_size_bytes()). Default
  /// 1 MiB.
  uint64_t block_size_bytes = 1 << 20;
  /// Logical occupancy θ (§5): the in-memory virtual cache holds at most ⌊θ · (M·B − padding)⌋
  /// bytes, M·B the log's bytes and padding the unused tails of its written blocks
  /// (engine/sipq/sipq_queue.h). Default 0.5. Range [0, 1]; the paper's is (0, 1). At 1 the
  /// virtual cache is the whole log, so a miss reclaims block after block, reinserting each,
  /// for up to a lap of the log before the stall guard drops objects: w106 at 10 %, B = C/256,
  /// LRU: implementation WA 16,082 and 160 s, against 3.16 and 0.6 s at 0.9.
  double occupancy = 0.5;

  /// Decodes `params` (framework.* keys; unset keys take their defaults) for a cache of
  /// `capacity_bytes` on a device of logical block `granule` bytes, which resolve a fractional
  /// block size (block_size_bytes(), engine/queue.h; capacity 0 checks the text only). Throws
  /// std::invalid_argument quoting a bad value.
  static SipqConfig from(const Params& params, uint64_t capacity_bytes = 0, uint64_t granule = 1);
};

extern const KeySpec kOccupancyKey;

}  // namespace flashpq
