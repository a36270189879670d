// sim/fio_json.h — fio's names for the timing of a run, so a FlashPQ row and a fio result
// read the same way (docs/guide/real-devices.md "A file or block device").
#pragma once

#include <string>

#include "sim/latency_histogram.h"

namespace flashpq {

/// A latency histogram as fio's JSON output prints one (fio 3.x stat.c, show_clat_percentiles
/// in JSON form): {"min": ns, "max": ns, "mean": ns, "N": count, "percentile": {"1.000000": ns,
/// …, "99.990000": ns}} over fio's default percentile list (1, 5, 10, 20, 30, 40, 50, 60, 70,
/// 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99), each the nearest-rank percentile of `h`. No
/// stddev: the histogram keeps no sum of squares.
std::string fio_latency_json(const LatencyHistogram& h);

}  // namespace flashpq
