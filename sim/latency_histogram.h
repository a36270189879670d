// sim/latency_histogram.h — fio-style log-linear latency histogram, in integer nanoseconds.
//
// Source: fio's completion-latency histogram (stat.h: FIO_IO_U_PLAT_BITS = 6,
// plat_val_to_idx / plat_idx_to_val). Values below 2·64 ns have one bucket each (exact); above,
// every power of two [2^m, 2^(m+1)) is split into 64 equal sub-buckets of width 2^(m−6). A bucket
// is reported by its midpoint, so a reported value is within 1/128 (< 0.8 %) of every value the
// bucket holds: the ≤ 1 % error the timed mode promises. The whole uint64 range is covered
// (3,776 buckets, 30 KiB): no value is clamped.
//
// Percentiles use the nearest-rank definition: percentile q is the smallest recorded value v
// such that at least ceil(q · count) values are ≤ v; the histogram returns the midpoint of v's
// bucket (or v itself below 128 ns). Record: O(1), no allocation. Not thread-safe.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace flashpq {

class LatencyHistogram {
 public:
  /// log2 of the sub-buckets per power of two (fio's FIO_IO_U_PLAT_BITS).
  static constexpr int kSubBucketBits = 6;
  static constexpr uint64_t kSubBuckets = uint64_t{1} << kSubBucketBits;  // 64
  /// Buckets covering [0, 2^64): 2·64 exact ones, then 64 per power of two from 2^7 to 2^63.
  static constexpr size_t kBuckets = (64 - kSubBucketBits + 1) * kSubBuckets;  // 3,776

  LatencyHistogram() : counts_(kBuckets, 0) {}

  /// Index of the bucket holding `ns`.
  static size_t bucket_index(uint64_t ns) {
    if (ns < 2 * kSubBuckets) return static_cast<size_t>(ns);
    const int msb = 63 - std::countl_zero(ns);    // ≥ 7
    const int error_bits = msb - kSubBucketBits;  // ≥ 1
    const uint64_t base = static_cast<uint64_t>(error_bits + 1) << kSubBucketBits;
    return static_cast<size_t>(base + ((ns >> error_bits) & (kSubBuckets - 1)));
  }
  /// Smallest value in bucket `index`. REQUIRES: index < kBuckets.
  static uint64_t bucket_lower_ns(size_t index) {
    if (index < 2 * kSubBuckets) return index;
    const int error_bits = static_cast<int>(index >> kSubBucketBits) - 1;
    const uint64_t offset = index & (kSubBuckets - 1);
    return (kSubBuckets + offset) << error_bits;
  }
  /// Largest value in bucket `index`. REQUIRES: index < kBuckets.
  static uint64_t bucket_upper_ns(size_t index) {
    if (index < 2 * kSubBuckets) return index;
    const int error_bits = static_cast<int>(index >> kSubBucketBits) - 1;
    return bucket_lower_ns(index) + ((uint64_t{1} << error_bits) - 1);
  }
  /// The value reported for bucket `index`: its midpoint (exact below 128 ns).
  static uint64_t bucket_value_ns(size_t index) {
    const uint64_t lo = bucket_lower_ns(index);
    return lo + (bucket_upper_ns(index) - lo) / 2;
  }

  /// Counts one latency of `ns` nanoseconds.
  void record(uint64_t ns) {
    counts_[bucket_index(ns)]++;
    count_++;
    sum_ns_ += static_cast<double>(ns);
    min_ns_ = std::min(min_ns_, ns);
    max_ns_ = std::max(max_ns_, ns);
  }
  /// Adds every count of `other`.
  void merge(const LatencyHistogram& other) {
    for (size_t i = 0; i < kBuckets; ++i) counts_[i] += other.counts_[i];
    count_ += other.count_;
    sum_ns_ += other.sum_ns_;
    min_ns_ = std::min(min_ns_, other.min_ns_);
    max_ns_ = std::max(max_ns_, other.max_ns_);
  }
  void clear() {
    std::fill(counts_.begin(), counts_.end(), 0);
    count_ = 0;
    sum_ns_ = 0;
    min_ns_ = UINT64_MAX;
    max_ns_ = 0;
  }

  uint64_t count() const { return count_; }
  /// Exact minimum, maximum and mean of the recorded values; 0 when empty.
  uint64_t min_ns() const { return count_ ? min_ns_ : 0; }
  uint64_t max_ns() const { return max_ns_; }
  double mean_ns() const { return count_ ? sum_ns_ / static_cast<double>(count_) : 0.0; }

  /// Nearest-rank percentile, `q` a fraction in (0, 1] (0.99 = p99), as the bucket's reported
  /// value, clamped to the exact [min, max]; the first and last ranks return the exact minimum
  /// and maximum. 0 when empty.
  /// Throws std::invalid_argument when q is outside (0, 1].
  uint64_t percentile_ns(double q) const {
    if (!(q > 0.0 && q <= 1.0))
      throw std::invalid_argument("LatencyHistogram::percentile_ns: q must be in (0, 1], got " +
                                  std::to_string(q));
    if (count_ == 0) return 0;
    const auto rank = static_cast<uint64_t>(std::ceil(q * static_cast<double>(count_)));
    if (rank >= count_) return max_ns_;  // the extremes are known exactly
    if (rank <= 1) return min_ns_;
    uint64_t seen = 0;
    for (size_t i = 0; i < kBuckets; ++i) {
      seen += counts_[i];
      if (seen >= rank) return std::clamp(bucket_value_ns(i), min_ns(), max_ns_);
    }
    return max_ns_;
  }

  /// The non-empty buckets as (reported value ns, cumulative fraction ≤ it), ascending: the
  /// latency CDF the plots draw.
  std::vector<std::pair<uint64_t, double>> cdf() const {
    std::vector<std::pair<uint64_t, double>> points;
    uint64_t seen = 0;
    for (size_t i = 0; i < kBuckets; ++i) {
      if (counts_[i] == 0) continue;
      seen += counts_[i];
      points.emplace_back(std::clamp(bucket_value_ns(i), min_ns(), max_ns_),
                          static_cast<double>(seen) / static_cast<double>(count_));
    }
    return points;
  }

  /// Count in bucket `index`. REQUIRES: index < kBuckets.
  uint64_t bucket_count(size_t index) const { return counts_[index]; }

 private:
  std::vector<uint64_t> counts_;
  uint64_t count_ = 0;
  double sum_ns_ = 0;
  uint64_t min_ns_ = UINT64_MAX;
  uint64_t max_ns_ = 0;
};

}  // namespace flashpq
