#include "traces/prefetch_reader.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace flashpq {

PrefetchReader::PrefetchReader(std::unique_ptr<TraceReader> inner, size_t batch_requests,
                               size_t depth)
    : inner_(std::move(inner)),
      path_(inner_ ? inner_->path() : std::string()),
      preconditioning_(inner_ ? inner_->preconditioning_requests() : 0),
      ring_(depth) {
  if (!inner_ || batch_requests < 1 || depth < 2) {
    throw std::invalid_argument("PrefetchReader: needs a reader, batch >= 1 and depth >= 2");
  }
  for (Batch& b : ring_) b.requests.resize(batch_requests);
  worker_ = std::thread([this] { produce(); });
}

PrefetchReader::~PrefetchReader() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  worker_.join();
}

void PrefetchReader::produce() {
  for (;;) {
    Batch* b;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return stop_ || filled_ < ring_.size(); });
      if (stop_) return;
      b = &ring_[tail_];
    }
    // The consumer never touches a batch that is not yet filled, so this runs unlocked.
    b->error = nullptr;
    b->last = false;
    try {
      b->count = inner_->read(b->requests);
      b->last = b->count == 0;
    } catch (...) {
      b->count = 0;
      b->error = std::current_exception();
      b->last = true;
    }
    const bool last = b->last;
    {
      std::lock_guard lock(mu_);
      tail_ = (tail_ + 1) % ring_.size();
      ++filled_;
    }
    cv_.notify_all();
    if (last) return;
  }
}

size_t PrefetchReader::read(std::span<Request> out) {
  size_t n = 0;
  while (n < out.size() && !finished_) {
    Batch* b;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return filled_ > 0; });
      b = &ring_[head_];
    }
    if (b->last) {
      if (n > 0) break;  // hand out what precedes the end or the error first
      finished_ = true;
      if (b->error) std::rethrow_exception(b->error);
      break;
    }
    const size_t take = std::min(out.size() - n, b->count - consumed_);
    std::memcpy(out.data() + n, b->requests.data() + consumed_, take * sizeof(Request));
    n += take;
    consumed_ += take;
    if (consumed_ == b->count) {
      consumed_ = 0;
      {
        std::lock_guard lock(mu_);
        head_ = (head_ + 1) % ring_.size();
        --filled_;
      }
      cv_.notify_all();
    }
  }
  return n;
}

}  // namespace flashpq
