// experiments/config/stats_config.cpp — the `stats:` section (experiments/config/stats_config.h).
#include "experiments/config/stats_config.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

namespace flashpq {

const KeySpec kStatsIntervalKey =
    key("stats.interval_s", ValueType::kFloat)
        .def("0")
        .units("s")
        .range(0, 1e9)
        .desc(
            "timed cells: write per-interval statistics (hit ratios, device bytes, latency "
            "percentiles) to a series file beside the results; 0 = none");

const SectionSpec& stats_section() {
  static const SectionSpec section{"stats", {kStatsIntervalKey}, "", {}};
  return section;
}

StatsConfig StatsConfig::from(const Params& params) {
  StatsConfig c;
  const double s = params.get<double>(kStatsIntervalKey);
  c.interval_ns = static_cast<uint64_t>(std::llround(s * 1e9));
  if (s > 0 && c.interval_ns == 0) {
    throw std::invalid_argument(
        fmt::format("key 'stats.interval_s': expected 0 or at least 1 ns, found {}", s));
  }
  return c;
}

}  // namespace flashpq
