// experiments/config/stats_config.h — the `stats:` section (stats.interval_s): how often a
// timed cell writes its statistics over time. The series itself is written by the runners
// (experiments/run/interval_stats.h); the configuration lives here so that the cell's
// configuration (experiments/config/cell_config.h) does not include the runners.
#pragma once

#include <cstdint>

#include "sim/params.h"

namespace flashpq {

/// The `stats:` section: stats.interval_s.
const SectionSpec& stats_section();
extern const KeySpec kStatsIntervalKey;

/// The section resolved.
struct StatsConfig {
  /// The interval, simulated ns; 0 = no series (the default).
  uint64_t interval_ns = 0;
  bool enabled() const { return interval_ns != 0; }
  /// Decodes stats.interval_s (seconds, >= 0). Throws std::invalid_argument quoting a bad value.
  static StatsConfig from(const Params& params);
};

}  // namespace flashpq
