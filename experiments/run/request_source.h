// experiments/run/request_source.h — where the runners take their requests from.
//
// Two interfaces, one per need:
//   * batched, `size_t read(std::span<Request> out)` (TraceReader's): fills `out`, returns the
//     count, 0 at the end. The functional and simulated runners read traces this way.
//   * one at a time, `bool next(Request& out)`: false at the end. The wall-clock runner reads
//     this way, so that a run stopped by time has taken exactly the requests it issued.
// SpanSource serves requests held in memory through both; RequestReader reads a batched source
// one request at a time.
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <vector>

#include "engine/request.h"

namespace flashpq {

/// The requests of a span, in order, through either interface. REQUIRES: the requests outlive
/// it.
class SpanSource {
 public:
  explicit SpanSource(std::span<const Request> requests) : rest_(requests) {}
  size_t read(std::span<Request> out) {
    const size_t n = std::min(out.size(), rest_.size());
    std::copy_n(rest_.begin(), n, out.begin());
    rest_ = rest_.subspan(n);
    return n;
  }
  bool next(Request& out) {
    if (rest_.empty()) return false;
    out = rest_.front();
    rest_ = rest_.subspan(1);
    return true;
  }

 private:
  std::span<const Request> rest_;
};

/// Reads a batched source (read(span)) one request at a time (next()), 1024 requests ahead.
template <class Source>
class RequestReader {
 public:
  explicit RequestReader(Source& source) : source_(source), buffer_(1024) {}
  bool next(Request& out) {
    if (pos_ == size_) {
      size_ = source_.read(std::span<Request>(buffer_));
      pos_ = 0;
      if (size_ == 0) return false;
    }
    out = buffer_[pos_++];
    return true;
  }

 private:
  Source& source_;
  std::vector<Request> buffer_;
  size_t pos_ = 0;
  size_t size_ = 0;
};

}  // namespace flashpq
