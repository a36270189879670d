#include "traces/trace_summary.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <functional>
#include <memory>
#include <vector>

#include "engine/key_hash.h"
#include "fmt/format.h"
#include "traces/prefetch_reader.h"

namespace flashpq {

namespace {

// Per key: requests and the index of the last one. Open addressing, linear probing; key 0 is
// kept aside (0 marks an empty slot). Grows at half full.
class KeyStats {
 public:
  KeyStats() : keys_(1024, 0), count_(1024, 0), last_(1024, 0) {}
  // Records a request at `index` to `key`; returns the index of its previous request, or
  // UINT64_MAX for its first.
  uint64_t touch(uint64_t key, uint64_t index) {
    if (key == 0) {
      const uint64_t prev = zero_count_ == 0 ? UINT64_MAX : zero_last_;
      ++zero_count_;
      zero_last_ = index;
      return prev;
    }
    const size_t mask = keys_.size() - 1;
    size_t i = home(key, keys_.size());
    while (keys_[i] != 0 && keys_[i] != key) i = (i + 1) & mask;
    if (keys_[i] == key) {
      const uint64_t prev = last_[i];
      ++count_[i];
      last_[i] = index;
      return prev;
    }
    keys_[i] = key;
    count_[i] = 1;
    last_[i] = index;
    if (++size_ * 2 > keys_.size()) grow();
    return UINT64_MAX;
  }
  // The request count of every key, in no particular order.
  std::vector<uint32_t> counts() const {
    std::vector<uint32_t> out;
    out.reserve(size_ + 1);
    for (size_t i = 0; i < keys_.size(); ++i) {
      if (keys_[i] != 0) out.push_back(count_[i]);
    }
    if (zero_count_ != 0) out.push_back(zero_count_);
    return out;
  }

 private:
  // The slot where `key`'s probe starts among `slots` (a power of two): the top bits of
  // hash_key, as KeySet takes them (engine/key_set.h).
  static size_t home(uint64_t key, size_t slots) {
    return static_cast<size_t>(hash_key(key) >> (64 - std::countr_zero(slots)));
  }
  void grow() {
    std::vector<uint64_t> keys(keys_.size() * 2, 0), last(keys_.size() * 2, 0);
    std::vector<uint32_t> count(keys_.size() * 2, 0);
    const size_t mask = keys.size() - 1;
    for (size_t j = 0; j < keys_.size(); ++j) {
      if (keys_[j] == 0) continue;
      size_t i = home(keys_[j], keys.size());
      while (keys[i] != 0) i = (i + 1) & mask;
      keys[i] = keys_[j];
      count[i] = count_[j];
      last[i] = last_[j];
    }
    keys_.swap(keys);
    count_.swap(count);
    last_.swap(last);
  }
  std::vector<uint64_t> keys_;
  std::vector<uint32_t> count_;
  std::vector<uint64_t> last_;
  size_t size_ = 0;
  uint32_t zero_count_ = 0;
  uint64_t zero_last_ = 0;
};

}  // namespace

double fit_zipf_alpha(std::vector<uint32_t> counts, size_t ranks) {
  const size_t n = std::min(ranks, counts.size());
  if (n < 2) return 0;
  std::partial_sort(counts.begin(), counts.begin() + static_cast<ptrdiff_t>(n), counts.end(),
                    std::greater<>());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (size_t r = 1; r <= n; ++r) {
    const double x = std::log(static_cast<double>(r));
    const double y = std::log(static_cast<double>(counts[r - 1]));
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
  }
  const double k = static_cast<double>(n);
  return -(k * sxy - sx * sy) / (k * sxx - sx * sx);
}

TraceSummary summarize_trace(const TraceConfig& config) {
  TraceSummary s;
  PrefetchReader reader(open_trace(config));
  s.preconditioning_requests = reader.preconditioning_requests();
  KeyStats keys;
  std::array<Request, 4096> batch;
  for (size_t n; (n = reader.read(batch)) != 0;) {
    for (size_t i = 0; i < n; ++i) {
      const Request& r = batch[i];
      const uint64_t index = s.requests + i;
      if (index == 0) s.first_time_ns = r.time_ns;
      s.last_time_ns = r.time_ns;
      // A delete brings no data into the cache: only gets and sets make the working set.
      if (r.op == Op::kDelete) {
        ++s.deletes;
        continue;
      }
      ++(r.op == Op::kGet ? s.gets : s.sets);
      if (r.size_bytes > s.max_object_bytes) s.max_object_bytes = r.size_bytes;
      s.sizes.add(r.size_bytes);
      const uint64_t prev = keys.touch(r.key, index);
      if (prev == UINT64_MAX) {
        s.working_set_bytes += r.size_bytes;
        ++s.unique_objects;
      } else {
        ++s.reuse_log2[static_cast<size_t>(std::bit_width(index - prev) - 1)];
      }
    }
    s.requests += n;
  }
  const std::vector<uint32_t> counts = keys.counts();
  s.one_hit_wonders = static_cast<uint64_t>(std::count(counts.begin(), counts.end(), 1u));
  s.zipf_alpha = fit_zipf_alpha(counts, TraceSummary::kZipfFitRanks);
  s.content_hash = trace_format(config.format).content_hash(config);
  return s;
}

}  // namespace flashpq
