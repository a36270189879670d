#include "sim/fio_json.h"

#include <iterator>

#include "fmt/format.h"

namespace flashpq {

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
