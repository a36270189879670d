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
    if (bins > 0) bins_.reserve(2 * bins + 2);
  }

  /// Adds `bytes` at priority v.
  void add(double v, uint64_t bytes) {
    total_ += bytes;
    if (bins_.empty()) {
      bins_.push_back(Bin{v, v, static_cast<double>(bytes)});
      return;
    }
    const size_t i = find(v);
    Bin& b = bins_[i];
    b.lo = std::min(b.lo, v);
    b.hi = std::max(b.hi, v);
    b.bytes += static_cast<double>(bytes);
    if (b.bytes * kappa_ > 2.0 * static_cast<double>(total_) && b.hi > b.lo) split(i);
  }

  /// Removes `bytes` at priority v (added before). Bytes are clamped at zero per bin, since the
  /// uniform split may have put them in a neighbour.
  void remove(double v, uint64_t bytes) {
    total_ -= std::min<uint64_t>(total_, bytes);
    if (bins_.empty()) return;
    double left = static_cast<double>(bytes);
    size_t i = find(v);
    // Take from v's bin, then its neighbours, nearest first.
    for (size_t step = 0; left > 0 && step < bins_.size(); ++step) {
      const size_t j = step % 2 == 0 ? i + step / 2 : i - (step + 1) / 2;
      if (j >= bins_.size()) continue;
      const double take = std::min(left, bins_[j].bytes);
      bins_[j].bytes -= take;
      left -= take;
    }
    merge_around(i);
  }

  /// The fraction of bytes at priorities below v, in [0, 1]; 1 for an empty histogram.
  double quantile(double v) const {
    double below = 0, all = 0;
    for (const Bin& b : bins_) all += b.bytes;
    if (all <= 0) return 1.0;
    for (const Bin& b : bins_) {
      if (v >= b.hi) {
        below += b.bytes;
      } else {
        if (v > b.lo) below += b.bytes * (v - b.lo) / (b.hi - b.lo);
        break;
      }
    }
    return std::clamp(below / all, 0.0, 1.0);
  }

  size_t bins() const { return bins_.size(); }
  size_t memory_bytes() const { return bins_.capacity() * sizeof(Bin); }

 private:
  struct Bin {
    double lo, hi;  // the bin covers [lo, hi); the last one [lo, hi]
    double bytes;
  };

  // The bin containing v, extending the first or last bin when v lies outside them.
  size_t find(double v) const {
    auto it = std::upper_bound(bins_.begin(), bins_.end(), v,
                               [](double x, const Bin& b) { return x < b.lo; });
    return it == bins_.begin() ? 0 : static_cast<size_t>(it - bins_.begin()) - 1;
  }

  void split(size_t i) {
    const Bin b = bins_[i];
    const double mid = b.lo + (b.hi - b.lo) / 2;
    bins_[i] = Bin{b.lo, mid, b.bytes / 2};
    bins_.insert(bins_.begin() + static_cast<std::ptrdiff_t>(i) + 1, Bin{mid, b.hi, b.bytes / 2});
  }

  void merge_around(size_t i) {
    const double floor_bytes = static_cast<double>(total_) / kappa_;
    for (size_t j : {i + 1, i}) {  // try (i, i+1) then (i-1, i)
      if (j == 0 || j >= bins_.size() || bins_.size() <= 1) continue;
      if (bins_[j - 1].bytes + bins_[j].bytes < floor_bytes) {
        bins_[j - 1].hi = bins_[j].hi;
        bins_[j - 1].bytes += bins_[j].bytes;
        bins_.erase(bins_.begin() + static_cast<std::ptrdiff_t>(j));
        return;
      }
    }
  }

  uint32_t kappa_;
  std::vector<Bin> bins_;
  uint64_t total_ = 0;
};

}  // namespace flashpq
