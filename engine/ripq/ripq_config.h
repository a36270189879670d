// engine/ripq/ripq_config.h — the keys of the `ripq` framework (RIPQ paper §4, Table 3).
//
//   framework.block_size             device block size B (engine/queue.h, shared with sipq)
//   framework.insertion_points       K, α = 1/K (default 8)
//   framework.reserved_blocks        free device blocks kept for sealing (default 10)
//   framework.materialize_threshold  evict instead of materializing below this (default 0)
//   framework.histogram_bins         κ, absolute priorities only (default 100)
// and framework.read_hits (engine/queue.h).
#pragma once

#include <cstdint>
#include <string>

#include "sim/params.h"

namespace flashpq {

/// What RIPQ reads of the framework section.
struct RipqConfig {
  /// Device block size B in bytes (kBlockSizeKey, resolved by resolve_block_size(); a cell's
  /// plan gives the framework bytes). Default 1 MiB when built without a configuration.
  uint64_t block_size_bytes = 1 << 20;
  /// Insertion points K; α = 1/K (§4.2, Table 3). Default 8. Range [1, 64].
  uint32_t insertion_points = 8;
  /// Free device blocks kept for sealing; delete-min runs below it (§4.4 footnote 6: 10).
  /// Default 10. Range [1, 1000]. A reclaimed block's slot is free only once its
  /// materializations are appended, so with 1 an active block that fills meanwhile finds no
  /// slot and a further tail block is reclaimed early (adaptsize at 10 %, B = C/256, SLRU-3:
  /// 54 % of the flash holds objects at the end against 88 % with 10, hit ratio 0.3715 against
  /// 0.3797); 2 or more avoid it.
  uint32_t reserved_blocks = 10;
  /// Objects whose relative priority is below this are evicted instead of materialized (§4.4,
  /// the occupancy trade-off; 0 = always materialize). Default 0. Range [0, 1).
  double materialize_threshold = 0.0;
  /// Bins κ of the dynamic histogram translating absolute priorities (§4.3). Default 100.
  /// Range [2, 100000].
  uint32_t histogram_bins = 100;

  /// Decodes `params` (framework.* keys; unset keys take their defaults) for a cache of
  /// `capacity_bytes` on a device of logical block `granule` bytes, which resolve a fractional
  /// block size (block_size_bytes(), engine/queue.h; capacity 0 checks the text only). Throws
  /// std::invalid_argument quoting a bad value.
  static RipqConfig from(const Params& params, uint64_t capacity_bytes = 0, uint64_t granule = 1);
};

/// Most device blocks RIPQ accepts: block ids are 24-bit in the object entry (a slot, its
/// virtual block and the blocks open in sections stay well below 2^24 blocks).
inline constexpr uint64_t kRipqMaxBlocks = uint64_t{1} << 22;

/// Checks that a cache of `capacity_bytes` makes between framework.reserved_blocks + 2 and
/// kRipqMaxBlocks device blocks of c.block_size_bytes (`blocks` = ⌊C/B⌋; `basis` says how B was
/// chosen, BlockSize::basis; `granule` the device's logical block, 1 in unit-size mode). Throws
/// std::invalid_argument naming the values that would work: a block size, a reserve, a cache
/// size.
void check_ripq_blocks(uint64_t capacity_bytes, uint64_t blocks, const RipqConfig& c,
                       const std::string& basis, uint64_t granule);

extern const KeySpec kInsertionPointsKey;
extern const KeySpec kReservedBlocksKey;
extern const KeySpec kMaterializeThresholdKey;
extern const KeySpec kHistogramBinsKey;

}  // namespace flashpq
