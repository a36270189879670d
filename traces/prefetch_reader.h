// traces/prefetch_reader.h — runs a TraceReader on a background thread, a few batches ahead.
//
// Decoding (zstd, CSV parsing) then overlaps with the replay on a second core. The requests
// come out in exactly the inner reader's order, so results do not change; an error the inner
// reader throws is re-thrown by read() at the same point of the stream, after every request
// that preceded it has been handed out.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "traces/trace_reader.h"

namespace flashpq {

class PrefetchReader final : public TraceReader {
 public:
  /// Takes ownership of `inner`. `batch_requests` per batch, `depth` batches in flight.
  /// REQUIRES: inner non-null, batch_requests >= 1, depth >= 2.
  explicit PrefetchReader(std::unique_ptr<TraceReader> inner, size_t batch_requests = 1 << 16,
                          size_t depth = 4);
  ~PrefetchReader() override;

  PrefetchReader(const PrefetchReader&) = delete;
  PrefetchReader& operator=(const PrefetchReader&) = delete;

  /// As TraceReader::read. Re-throws the inner reader's error at its place in the stream.
  size_t read(std::span<Request> out) override;

  const std::string& path() const override { return path_; }
  uint64_t preconditioning_requests() const override { return preconditioning_; }

 private:
  struct Batch {
    std::vector<Request> requests;
    size_t count = 0;
    std::exception_ptr error;  // set on the batch after the last good one
    bool last = false;         // end of trace (or error)
  };

  void produce();

  std::unique_ptr<TraceReader> inner_;
  std::string path_;
  uint64_t preconditioning_ = 0;
  std::vector<Batch> ring_;
  size_t head_ = 0;      // next batch the consumer reads
  size_t tail_ = 0;      // next batch the producer fills
  size_t filled_ = 0;    // batches ready for the consumer
  size_t consumed_ = 0;  // requests already handed out of ring_[head_]
  bool stop_ = false;
  bool finished_ = false;  // the consumer saw the last batch
  std::mutex mu_;
  std::condition_variable cv_;
  std::thread worker_;
};

}  // namespace flashpq
