#include "sim/timing.h"

#include <algorithm>
#include <cmath>

namespace flashpq {

namespace {
constexpr const char* kModes[] = {"none", "simulated", "wall"};
constexpr const char* kArrivals[] = {"closed_loop", "trace", "constant", "poisson"};

// Percentile columns: suffix and fraction.
struct Quantile {
  const char* suffix;
  double q;
};
constexpr Quantile kQuantiles[] = {{"_p50_us", 0.5},
                                   {"_p90_us", 0.9},
                                   {"_p99_us", 0.99},
                                   {"_p999_us", 0.999},
                                   {"_p9999_us", 0.9999}};
constexpr const char* kHistograms[] = {"latency", "read_latency", "write_latency"};
}  // namespace

const std::vector<std::string>& timing_column_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const char* h : kHistograms) {
      for (const Quantile& q : kQuantiles) n.push_back(std::string(h) + q.suffix);
      n.push_back(std::string(h) + "_mean_us");
      n.push_back(std::string(h) + "_max_us");
    }
    n.push_back("throughput_rps");
    n.push_back("throughput_mib_s");
    n.push_back("sim_seconds");
    return n;
  }();
  return names;
}

std::vector<std::pair<std::string, double>> timing_columns(const TimingMetrics& m) {
  const std::vector<std::string>& names = timing_column_names();
  std::vector<std::pair<std::string, double>> out;
  out.reserve(names.size());
  const double none = std::nan("");
  size_t i = 0;
  for (const LatencyHistogram* h : {&m.all, &m.read, &m.write}) {
    const bool empty = h->count() == 0;
    for (const Quantile& q : kQuantiles) {
      out.emplace_back(names[i++],
                       empty ? none : static_cast<double>(h->percentile_ns(q.q)) * 1e-3);
    }
    out.emplace_back(names[i++], empty ? none : h->mean_ns() * 1e-3);
    out.emplace_back(names[i++], empty ? none : static_cast<double>(h->max_ns()) * 1e-3);
  }
  const bool measured = m.requests != 0 && m.interval_ns != 0;
  out.emplace_back(names[i++], measured ? m.throughput_rps() : none);
  out.emplace_back(names[i++], measured ? m.throughput_mib_s() : none);
  out.emplace_back(names[i++], m.requests != 0 ? m.seconds() : none);
  return out;
}

std::string latency_histogram_text(const LatencyHistogram& h) {
  std::string out;
  if (h.count() == 0) return out;
  for (size_t i = 0; i < LatencyHistogram::kBuckets; ++i) {
    const uint64_t n = h.bucket_count(i);
    if (n == 0) continue;
    const uint64_t v = std::clamp(LatencyHistogram::bucket_value_ns(i), h.min_ns(), h.max_ns());
    if (!out.empty()) out += ' ';
    out += std::to_string(v);
    out += ':';
    out += std::to_string(n);
  }
  return out;
}

const char* timing_mode_name(TimingMode mode) {
  return kModes[static_cast<int>(mode)];
}

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

}  // namespace flashpq
