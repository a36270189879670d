#include "sim/timing.h"

#include <algorithm>
#include <cmath>
#include <iterator>

#include "fmt/format.h"

namespace flashpq {

namespace {
constexpr const char* kModes[] = {"none", "simulated", "wall"};
constexpr const char* kArrivals[] = {"closed_loop", "trace", "constant", "poisson", "token_bucket"};

}  // namespace

// The keys of the timing section. The arrival keys apply to the timed modes only, each to the
// arrival processes that read it.
const KeySpec kTimingModeKey =
    key("timing.mode", ValueType::kEnum)
        .def("none")
        .choices(timing_mode_names())
        .desc(
            "none = functional (counts only); simulated = discrete-event time "
            "on simflash; wall = the wall clock on device block (which is "
            "timed anyway: with none, framework direct keeps "
            "device.queue_depth requests in flight)");
const KeySpec kTimingArrivalKey =
    key("timing.arrival", ValueType::kEnum)
        .def("closed_loop")
        .choices(arrival_process_names())
        .strict_to_readers()
        .desc(
            "closed_loop = `clients` requests in flight; trace = the "
            "trace's timestamps x time_scale; constant or poisson = open "
            "loop at `rate`; token_bucket = open loop through a bucket of "
            "`burst` tokens refilled at `rate` (CacheBench's opRatePerSec, opRateBurstSize)");
const KeySpec kTimingClientsKey = key("timing.clients", ValueType::kInt)
                                      .def("1")
                                      .units("requests")
                                      .range(1, 65536)
                                      .strict_to_readers()
                                      .desc("clients (queue depth)");

namespace {
const KeySpec kThinkTime = key("timing.think_time_us", ValueType::kFloat)
                               .def("0")
                               .units("us")
                               .range(0, 1e12)
                               .strict_to_readers()
                               .desc("delay between a completion and the client's next request");
const KeySpec kRate = key("timing.rate", ValueType::kFloat)
                          .def("1000")
                          .units("requests/s")
                          .range(1e-6, 1e12)
                          .strict_to_readers()
                          .desc("arrival rate");
const KeySpec kBurst = key("timing.burst", ValueType::kInt)
                           .def("1")
                           .units("requests")
                           .range(1, 1e12)
                           .strict_to_readers()
                           .desc("token_bucket: the bucket's size, full at time 0");
const KeySpec kTimeScale = key("timing.time_scale", ValueType::kFloat)
                               .def("1")
                               .range(1e-9, 1e9)
                               .strict_to_readers()
                               .desc("multiplies inter-arrival times");

ComponentSpec timed_mode(const std::string& name, const std::string& summary) {
  return ComponentSpec{
      name,
      summary,
      {kTimingArrivalKey},
      {},
      kTimingArrivalKey.name,
      {ComponentSpec{"closed_loop",
                     "clients issue on completion",
                     {kTimingClientsKey, kThinkTime},
                     {},
                     {},
                     {}},
       ComponentSpec{"trace", "the trace's timestamps", {kTimeScale}, {}, {}, {}},
       ComponentSpec{"constant", "open loop at a fixed rate", {kRate}, {}, {}, {}},
       ComponentSpec{"poisson", "open loop, exponential gaps", {kRate}, {}, {}, {}},
       ComponentSpec{
           "token_bucket", "open loop through a token bucket", {kRate, kBurst}, {}, {}, {}}}};
}

// Percentile columns: suffix and fraction.
struct Quantile {
  const char* suffix;
  double q;
  const char* percent;
};
constexpr Quantile kQuantiles[] = {{"_p50_us", 0.5, "50"},      {"_p90_us", 0.9, "90"},
                                   {"_p95_us", 0.95, "95"},     {"_p99_us", 0.99, "99"},
                                   {"_p999_us", 0.999, "99.9"}, {"_p9999_us", 0.9999, "99.99"}};
// All requests; gets (device reads); sets (device writes); deletes (device trims).
constexpr const char* kHistograms[] = {"latency", "read_latency", "write_latency",
                                       "delete_latency"};
}  // namespace

const std::vector<ColumnSpec>& timing_column_specs() {
  static const std::vector<ColumnSpec> specs = [] {
    // What each histogram holds (an OpClass), for the definitions.
    const char* const of[] = {"every measured request",
                              "measured reads: cache gets, device reads (framework direct)",
                              "measured writes: cache sets, device writes (framework direct)",
                              "measured deletes: cache deletes, device trims (framework direct)"};
    const char* const when[] = {
        "", "the trace has gets (reads)",
        "the trace has sets (writes) beyond a generator's preconditioning fill",
        "the trace has deletes (trims)"};
    std::vector<ColumnSpec> v;
    for (size_t h = 0; h < std::size(kHistograms); ++h) {
      for (const Quantile& q : kQuantiles) {
        v.push_back(column(std::string(kHistograms[h]) + q.suffix)
                        .units("us")
                        .desc(fmt::format("{}th percentile of the latency of {}, arrival to "
                                          "completion (nearest rank, within 1 % of the exact "
                                          "value: sim/latency_histogram.h)",
                                          q.percent, of[h]))
                        .only(when[h]));
      }
      v.push_back(column(std::string(kHistograms[h]) + "_mean_us")
                      .units("us")
                      .desc(fmt::format("mean latency of {} (exact)", of[h]))
                      .only(when[h]));
      v.push_back(column(std::string(kHistograms[h]) + "_max_us")
                      .units("us")
                      .desc(fmt::format("largest latency of {} (exact)", of[h]))
                      .only(when[h]));
    }
    v.push_back(
        column("throughput_rps").units("requests/s").desc("measured requests / sim_seconds"));
    v.push_back(column("throughput_mib_s")
                    .units("MiB/s")
                    .desc("measured requests' payload bytes / 2^20 / sim_seconds"));
    v.push_back(column("sim_seconds")
                    .units("seconds")
                    .desc("the measured interval, from the first measured arrival to the last "
                          "completion: simulated time, or the monotonic clock's on the wall "
                          "clock"));
    return v;
  }();
  return specs;
}

const std::vector<std::string>& timing_column_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const ColumnSpec& c : timing_column_specs()) n.push_back(c.name);
    return n;
  }();
  return names;
}

std::vector<std::string> timing_column_names(bool reads, bool writes, bool deletes) {
  const bool carried[] = {true, reads, writes, deletes};
  const size_t per_histogram = std::size(kQuantiles) + 2;
  const std::vector<std::string>& all = timing_column_names();
  std::vector<std::string> out;
  for (size_t i = 0; i < all.size(); ++i) {
    const size_t h = i / per_histogram;
    if (h >= std::size(kHistograms) || carried[h]) out.push_back(all[i]);
  }
  return out;
}

const ColumnSpec& latency_histogram_column() {
  static const ColumnSpec c =
      column("latency_histogram")
          .text()
          .units("ns")
          .desc(
              "every measured request's latency as \"value_ns:count\" pairs, space-separated, "
              "values ascending (one per non-empty bucket of sim/latency_histogram.h, clamped to "
              "the exact min and max): plots/flash.py draws latency CDFs from it");
  return c;
}

std::vector<std::pair<std::string, double>> timing_columns(const TimingMetrics& m) {
  const std::vector<std::string>& names = timing_column_names();
  std::vector<std::pair<std::string, double>> out;
  out.reserve(names.size());
  const double none = std::nan("");
  size_t i = 0;
  for (const LatencyHistogram* h : {&m.all, &m.read, &m.write, &m.other}) {
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

const SectionSpec& timing_section() {
  static const SectionSpec section{
      "timing",
      {kTimingModeKey, kTimingArrivalKey, kTimingClientsKey, kThinkTime, kRate, kBurst, kTimeScale},
      kTimingModeKey.name,
      {ComponentSpec{"none", "functional: counts only", {}, {}, {}, {}},
       timed_mode("simulated", "discrete-event time on simflash"),
       timed_mode("wall", "the wall clock on a real device")}};
  return section;
}

TimingConfig timing_config(const Params& params) {
  TimingConfig c;
  c.mode = parse_timing_mode(params.get<std::string>(kTimingModeKey));
  c.arrival = parse_arrival_process(params.get<std::string>(kTimingArrivalKey));
  c.clients = params.get<uint32_t>(kTimingClientsKey);
  c.think_time_ns = static_cast<uint64_t>(std::llround(params.get<double>(kThinkTime) * 1e3));
  c.rate_rps = params.get<double>(kRate);
  c.burst = params.get<uint64_t>(kBurst);
  c.time_scale = params.get<double>(kTimeScale);
  c.validate();
  return c;
}

const std::vector<std::string>& timing_mode_names() {
  static const std::vector<std::string> names(std::begin(kModes), std::end(kModes));
  return names;
}

const std::vector<std::string>& arrival_process_names() {
  static const std::vector<std::string> names(std::begin(kArrivals), std::end(kArrivals));
  return names;
}

const char* timing_mode_name(TimingMode mode) {
  return kModes[static_cast<int>(mode)];
}

TimingMode parse_timing_mode(const std::string& name) {
  for (int i = 0; i < 3; ++i)
    if (name == kModes[i]) return static_cast<TimingMode>(i);
  throw_unknown_name("timing.mode", name, timing_mode_names());
}

const char* arrival_process_name(ArrivalProcess process) {
  return kArrivals[static_cast<int>(process)];
}

ArrivalProcess parse_arrival_process(const std::string& name) {
  for (size_t i = 0; i < std::size(kArrivals); ++i)
    if (name == kArrivals[i]) return static_cast<ArrivalProcess>(i);
  throw_unknown_name("timing.arrival", name, arrival_process_names());
}

}  // namespace flashpq
