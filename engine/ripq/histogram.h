// engine/ripq/histogram.h — the dynamic histogram that translates absolute priorities into
// relative ones for RIPQ.
//
// Source: RIPQ paper §4.3 "Supporting Absolute Priorities": "a dynamic histogram that supports
// insertion/deletion of absolute priority values, and when given an absolute priority returns
// approximate quantiles, which are used as the internal relative priority values. The histogram
// consists of a set of bins, and we merge/split bins dynamically based on their relative
// sizes", with κ bins (Table 3: κ = 100).
//
// Bins are contiguous value ranges [lo, hi) ordered by value, each with the bytes of the
// priorities in it (the queue's relative priorities are byte-weighted, like its sections). A bin
// holding more than 2/κ of the bytes is split at the middle of its range (bytes halved: values
// inside a bin are taken as uniform); two neighbours holding less than 1/κ together are merged.
// quantile(v) interpolates linearly inside v's bin.
//
// Bin bytes are integers: a split gives the lower half ⌊bytes/2⌋ and the upper half the rest, and
// a removal takes exactly its bytes (from v's bin, then its neighbours). So the bins always sum
// to total(), and quantile() needs no sum over all bins: it adds the bins below v's, exactly
// (integer sums do not depend on their order), once per insertion or increase. (Doubles halved
// at every split lose their low bits over a long run, and summing 2κ of them in a dependent
// chain per call made RIPQ-GDSF 5 times slower than exact GDSF.)
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace flashpq {

class DynamicHistogram {
 public:
  /// REQUIRES: bins >= 2, or 0 for a histogram that is never used (it allocates nothing).
  explicit DynamicHistogram(uint32_t bins) : kappa_(bins) {
    if (bins > 0) {
      lo_.reserve(2 * bins + 2);
      hi_.reserve(2 * bins + 2);
      bytes_.reserve(2 * bins + 2);
    }
  }

  /// Adds `bytes` at priority v.
  void add(double v, uint64_t bytes) {
    total_ += bytes;
    if (lo_.empty()) {
      push(0, v, v, bytes);
      return;
    }
    const size_t i = find(v);
    lo_[i] = std::min(lo_[i], v);
    hi_[i] = std::max(hi_[i], v);
    bytes_[i] += bytes;
    // bytes > 2/κ of the total, in integers (no overflow in 128 bits).
    if (static_cast<unsigned __int128>(bytes_[i]) * kappa_ >
            2 * static_cast<unsigned __int128>(total_) &&
        hi_[i] > lo_[i]) {
      split(i);
    }
  }

  /// Removes `bytes` at priority v (added before): from v's bin, then from its neighbours,
  /// nearest first, since the uniform split may have put them there.
  /// REQUIRES: bytes <= total() (they were added).
  void remove(double v, uint64_t bytes) {
    total_ -= std::min<uint64_t>(total_, bytes);
    if (lo_.empty()) return;
    uint64_t left = bytes;
    const size_t i = find(v);
    const size_t n = bytes_.size();
    for (size_t step = 0; left > 0 && step < 2 * n; ++step) {
      const size_t j = step % 2 == 0 ? i + step / 2 : i - (step + 1) / 2;
      if (j >= n) continue;  // also i − k below 0, which wraps
      const uint64_t take = std::min(left, bytes_[j]);
      bytes_[j] -= take;
      left -= take;
    }
    merge_around(i);
  }

  /// The fraction of bytes at priorities below v, in [0, 1]: the bytes of the bins wholly
  /// below v plus the share of v's bin below v (linear inside the bin), over total(); 1 for an
  /// empty histogram.
  double quantile(double v) const {
    if (total_ == 0) return 1.0;
    // The bins wholly below v: those with hi <= v, a prefix since the ranges are ordered
    // (each bin's hi is at most the next one's lo). Their bytes are contiguous, so the sum
    // vectorizes.
    const size_t i = static_cast<size_t>(
        std::partition_point(hi_.begin(), hi_.end(), [v](double hi) { return v >= hi; }) -
        hi_.begin());
    uint64_t below = 0;
    for (size_t k = 0; k < i; ++k) below += bytes_[k];
    double partial = 0;
    if (i < lo_.size() && v > lo_[i]) {
      partial = static_cast<double>(bytes_[i]) * (v - lo_[i]) / (hi_[i] - lo_[i]);
    }
    return std::clamp((static_cast<double>(below) + partial) / static_cast<double>(total_), 0.0,
                      1.0);
  }

  size_t bins() const { return lo_.size(); }
  /// Bytes added and not removed; always the sum of the bins' bytes.
  uint64_t total() const { return total_; }
  /// Bin k's range and bytes (k < bins()), for tests.
  double bin_lo(size_t k) const { return lo_[k]; }
  double bin_hi(size_t k) const { return hi_[k]; }
  uint64_t bin_bytes(size_t k) const { return bytes_[k]; }
  size_t memory_bytes() const {
    return lo_.capacity() * sizeof(double) + hi_.capacity() * sizeof(double) +
           bytes_.capacity() * sizeof(uint64_t);
  }

 private:
  // The bin containing v, extending the first or last bin when v lies outside them: the last
  // bin whose lo is at most v (0 if none).
  size_t find(double v) const {
    const auto it = std::upper_bound(lo_.begin(), lo_.end(), v);
    return it == lo_.begin() ? 0 : static_cast<size_t>(it - lo_.begin()) - 1;
  }

  void push(size_t at, double lo, double hi, uint64_t bytes) {
    const auto d = static_cast<std::ptrdiff_t>(at);
    lo_.insert(lo_.begin() + d, lo);
    hi_.insert(hi_.begin() + d, hi);
    bytes_.insert(bytes_.begin() + d, bytes);
  }
  void erase(size_t at) {
    const auto d = static_cast<std::ptrdiff_t>(at);
    lo_.erase(lo_.begin() + d);
    hi_.erase(hi_.begin() + d);
    bytes_.erase(bytes_.begin() + d);
  }

  // Halves bin i at the middle of its range: the lower half ⌊bytes/2⌋, the upper the rest.
  void split(size_t i) {
    const double mid = lo_[i] + (hi_[i] - lo_[i]) / 2;
    const double hi = hi_[i];
    const uint64_t bytes = bytes_[i];
    hi_[i] = mid;
    bytes_[i] = bytes / 2;
    push(i + 1, mid, hi, bytes - bytes / 2);
  }

  void merge_around(size_t i) {
    for (size_t j : {i + 1, i}) {  // try (i, i+1) then (i-1, i)
      if (j == 0 || j >= bytes_.size() || bytes_.size() <= 1) continue;
      // Together below 1/κ of the total, in integers.
      if (static_cast<unsigned __int128>(bytes_[j - 1] + bytes_[j]) * kappa_ < total_) {
        hi_[j - 1] = hi_[j];
        bytes_[j - 1] += bytes_[j];
        erase(j);
        return;
      }
    }
  }

  uint32_t kappa_;
  // The bins, ordered by value, as three arrays (quantile() sums a prefix of bytes_): bin k
  // covers [lo_[k], hi_[k]) (the last one [lo, hi]) and holds bytes_[k] bytes.
  std::vector<double> lo_, hi_;
  std::vector<uint64_t> bytes_;
  uint64_t total_ = 0;
};

}  // namespace flashpq
