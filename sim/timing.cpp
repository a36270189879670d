#include "sim/timing.h"

#include <cmath>

#include "fmt/format.h"

namespace flashpq {

namespace {
constexpr const char* kModes[] = {"none", "simulated", "wall"};
constexpr const char* kArrivals[] = {"closed_loop", "trace", "constant", "poisson"};
}  // namespace

const char* timing_mode_name(TimingMode mode) { return kModes[static_cast<int>(mode)]; }

TimingMode parse_timing_mode(const std::string& name) {
  for (int i = 0; i < 3; ++i)
    if (name == kModes[i]) return static_cast<TimingMode>(i);
  throw std::invalid_argument("timing.mode must be one of none, simulated, wall; got '" + name +
                              "'");
}

const char* arrival_process_name(ArrivalProcess process) {
  return kArrivals[static_cast<int>(process)];
}

ArrivalProcess parse_arrival_process(const std::string& name) {
  for (int i = 0; i < 4; ++i)
    if (name == kArrivals[i]) return static_cast<ArrivalProcess>(i);
  throw std::invalid_argument(
      "timing.arrival must be one of closed_loop, trace, constant, poisson; got '" + name + "'");
}

std::vector<std::pair<std::string, double>> timing_columns(const TimingMetrics& m) {
  const double none = std::nan("");
  auto p = [&](double q) {
    return m.all.count() ? static_cast<double>(m.all.percentile_ns(q)) / 1e3 : none;
  };
  const bool any = m.requests > 0 && m.interval_ns > 0;
  return {{"latency_p50_us", p(0.5)},
          {"latency_p90_us", p(0.9)},
          {"latency_p99_us", p(0.99)},
          {"latency_p999_us", p(0.999)},
          {"latency_p9999_us", p(0.9999)},
          {"throughput_rps", any ? m.throughput_rps() : none},
          {"throughput_mib_s", any ? m.throughput_mib_s() : none},
          {"sim_seconds", any ? m.seconds() : none}};
}

std::string fio_latency_json(const LatencyHistogram& h) {
  static constexpr double kPercentiles[] = {1,  5,  10, 20, 30,   40,   50,    60,   70,
                                            80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99};
  std::string out = fmt::format("{{\"min\":{},\"max\":{},\"mean\":{},\"N\":{},\"percentile\":{{",
                                h.min_ns(), h.max_ns(), h.mean_ns(), h.count());
  for (size_t i = 0; i < std::size(kPercentiles); ++i) {
    const double q = kPercentiles[i];
    out +=
        fmt::format("{}\"{:.6f}\":{}", i ? "," : "", q, h.count() ? h.percentile_ns(q / 100.0) : 0);
  }
  return out + "}}";
}

}  // namespace flashpq
