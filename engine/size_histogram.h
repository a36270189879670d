// engine/size_histogram.h — how many requests a trace makes for objects of each size, in
// logarithmic buckets: 8 per power of two (relative width 1/8 at most), exact below 8 bytes.
//
// The trace summary (traces/trace_summary.h) fills one in its single pass; frameworks ask it how
// many requests are for objects too large for their blocks (FrameworkLayout notes,
// engine/queue.h). Counts are exact per bucket; a question about a size inside a bucket is
// answered conservatively (count_above counts only whole buckets above the size).
#pragma once

#include <array>
#include <bit>
#include <cstdint>

namespace flashpq {

class SizeHistogram {
 public:
  /// Counts one request for an object of `size` bytes.
  void add(uint64_t size) {
    ++counts_[bucket(size)];
    ++total_;
  }
  /// Requests counted.
  uint64_t total() const { return total_; }

  /// Number of buckets; bucket b counts the sizes from lowest(b) up to lowest(b + 1) - 1.
  static constexpr size_t buckets() { return kBuckets; }
  /// Requests counted in bucket `b`. REQUIRES: b < buckets().
  uint64_t bucket_count(size_t b) const { return counts_[b]; }
  /// Adds `n` requests to bucket `b` (restoring a stored histogram, traces/summary_cache.h).
  /// REQUIRES: b < buckets().
  void add_to_bucket(size_t b, uint64_t n) {
    counts_[b] += n;
    total_ += n;
  }
  friend bool operator==(const SizeHistogram&, const SizeHistogram&) = default;
  /// The q-quantile of the sizes counted, q in [0, 1], as the smallest size of the bucket that
  /// holds it: exact below 8 bytes, at most 1/8 below the true quantile above. 0 when empty.
  uint64_t quantile(double q) const {
    if (total_ == 0) return 0;
    const double rank = q * static_cast<double>(total_);
    uint64_t seen = 0;
    for (size_t b = 0; b < kBuckets; ++b) {
      seen += counts_[b];
      if (counts_[b] != 0 && static_cast<double>(seen) >= rank) return lowest(b);
    }
    return 0;
  }
  /// Requests for objects larger than `bytes`, at least: every bucket whose smallest size
  /// exceeds `bytes` (exact when `bytes` + 1 starts a bucket, as every size below 16 does).
  uint64_t count_above(uint64_t bytes) const {
    uint64_t n = 0;
    for (size_t b = 0; b < kBuckets; ++b) {
      if (lowest(b) > bytes) n += counts_[b];
    }
    return n;
  }

 private:
  static constexpr size_t kBuckets = 8 + 61 * 8;  // sizes 0..7, then 8 per octave 2^3..2^63

  static size_t bucket(uint64_t size) {
    if (size < 8) return static_cast<size_t>(size);
    const int e = 63 - std::countl_zero(size);  // 2^e <= size < 2^(e+1), e >= 3
    const uint64_t sub = (size >> (e - 3)) & 7;
    return 8 + static_cast<size_t>(e - 3) * 8 + static_cast<size_t>(sub);
  }
  // The smallest size of bucket b.
  static uint64_t lowest(size_t b) {
    if (b < 8) return b;
    const size_t e = (b - 8) / 8 + 3, sub = (b - 8) % 8;
    return (uint64_t{1} << e) + (uint64_t{sub} << (e - 3));
  }

  std::array<uint64_t, kBuckets> counts_{};
  uint64_t total_ = 0;
};

}  // namespace flashpq
