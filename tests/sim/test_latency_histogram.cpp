// Tests of sim/latency_histogram.h against a brute-force reference (sorted samples).
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "catch2/catch.hpp"
#include "sim/latency_histogram.h"

namespace flashpq::test_latency_histogram {

namespace {
// Nearest-rank percentile of the exact samples.
uint64_t exact_percentile(std::vector<uint64_t> v, double q) {
  std::sort(v.begin(), v.end());
  const auto rank = static_cast<size_t>(std::ceil(q * static_cast<double>(v.size())));
  return v[rank - 1];
}
}  // namespace

TEST_CASE("latency histogram: bucket boundaries tile the uint64 range", "[latency_histogram]") {
  // Consecutive buckets are adjacent and every value maps into the bucket that claims it.
  for (size_t i = 0; i + 1 < LatencyHistogram::kBuckets; ++i) {
    REQUIRE(LatencyHistogram::bucket_upper_ns(i) + 1 == LatencyHistogram::bucket_lower_ns(i + 1));
    REQUIRE(LatencyHistogram::bucket_index(LatencyHistogram::bucket_lower_ns(i)) == i);
    REQUIRE(LatencyHistogram::bucket_index(LatencyHistogram::bucket_upper_ns(i)) == i);
  }
  REQUIRE(LatencyHistogram::bucket_upper_ns(LatencyHistogram::kBuckets - 1) == UINT64_MAX);
  REQUIRE(LatencyHistogram::bucket_index(UINT64_MAX) == LatencyHistogram::kBuckets - 1);
  // Hand-computed: 127 is exact; 128..129 share a bucket of width 2 (2^7 / 64).
  REQUIRE(LatencyHistogram::bucket_index(127) == 127);
  REQUIRE(LatencyHistogram::bucket_index(128) == 128);
  REQUIRE(LatencyHistogram::bucket_index(129) == 128);
  REQUIRE(LatencyHistogram::bucket_index(130) == 129);
  REQUIRE(LatencyHistogram::bucket_index(256) == 192);
}

TEST_CASE("latency histogram: reported values within 1 % of every value of the bucket",
          "[latency_histogram]") {
  for (size_t i = 0; i < LatencyHistogram::kBuckets; ++i) {
    const double lo = static_cast<double>(LatencyHistogram::bucket_lower_ns(i));
    const double hi = static_cast<double>(LatencyHistogram::bucket_upper_ns(i));
    const double v = static_cast<double>(LatencyHistogram::bucket_value_ns(i));
    REQUIRE(v >= lo);
    REQUIRE(v <= hi);
    if (lo > 0) REQUIRE((hi - lo) / lo <= 1.0 / 64.0);
    if (lo > 0) REQUIRE(std::max(v - lo, hi - v) / lo <= 0.01);
  }
}

TEST_CASE("latency histogram: percentiles agree with sorted samples within 1 %",
          "[latency_histogram]") {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> dist(std::log(80'000.0), 1.2);  // ~80 µs median
  std::vector<uint64_t> samples;
  LatencyHistogram h;
  for (int i = 0; i < 200'000; ++i) {
    const auto ns = static_cast<uint64_t>(dist(rng)) + 1;
    samples.push_back(ns);
    h.record(ns);
  }
  REQUIRE(h.count() == samples.size());
  for (double q : {0.01, 0.5, 0.9, 0.99, 0.999, 0.9999, 1.0}) {
    const double exact = static_cast<double>(exact_percentile(samples, q));
    const double got = static_cast<double>(h.percentile_ns(q));
    INFO("q = " << q << " exact " << exact << " histogram " << got);
    REQUIRE(std::abs(got - exact) / exact <= 0.01);
  }
  REQUIRE(h.percentile_ns(1.0) == *std::max_element(samples.begin(), samples.end()));
  REQUIRE(h.min_ns() == *std::min_element(samples.begin(), samples.end()));
  double sum = 0;
  for (auto s : samples) sum += static_cast<double>(s);
  REQUIRE(h.mean_ns() == Approx(sum / static_cast<double>(samples.size())));
  // The CDF ends at 1 and is non-decreasing.
  const auto cdf = h.cdf();
  REQUIRE(cdf.back().second == 1.0);
  for (size_t i = 1; i < cdf.size(); ++i) {
    REQUIRE(cdf[i].first > cdf[i - 1].first);
    REQUIRE(cdf[i].second > cdf[i - 1].second);
  }
}

TEST_CASE("latency histogram: small values are exact, merge adds, bad q is rejected",
          "[latency_histogram]") {
  LatencyHistogram a, b;
  for (uint64_t v : {5, 5, 7, 100}) a.record(v);
  b.record(3);
  a.merge(b);
  REQUIRE(a.count() == 5);
  REQUIRE(a.percentile_ns(0.2) == 3);  // rank 1
  REQUIRE(a.percentile_ns(0.5) == 5);  // rank 3 of {3,5,5,7,100}
  REQUIRE(a.percentile_ns(0.8) == 7);  // rank 4
  REQUIRE(a.percentile_ns(1.0) == 100);
  REQUIRE(LatencyHistogram().percentile_ns(0.5) == 0);
  REQUIRE_THROWS_AS(a.percentile_ns(0.0), std::invalid_argument);
  REQUIRE_THROWS_AS(a.percentile_ns(1.5), std::invalid_argument);
}

}  // namespace flashpq::test_latency_histogram
