// sim/replay.h — the per-request loop: trace → cache → stats.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "engine/request.h"
#include "sim/stats.h"
#include "traces/trace_reader.h"

namespace flashpq {

/// Replays requests[0..n) (already in memory) through `cache`, numbering them from `first_index`
/// for the warm-up test. Returns the index after the last request.
template <class CacheT>
uint64_t replay_span(CacheT& cache, std::span<const Request> requests, HitStats& stats,
                     uint64_t first_index, uint64_t warmup_requests) {
  uint64_t i = first_index;
  for (const Request& r : requests) {
    const bool hit = cache.access(r);
    stats.record(r, hit, i >= warmup_requests);
    ++i;
  }
  return i;
}

/// Streams the whole trace from `reader` through `cache` in batches (one virtual call per batch
/// of 4096 requests). Returns the number of requests replayed.
template <class CacheT>
uint64_t replay_stream(CacheT& cache, TraceReader& reader, HitStats& stats,
                       uint64_t warmup_requests) {
  std::array<Request, 4096> batch;
  uint64_t i = 0;
  for (size_t n; (n = reader.read(batch)) != 0;) {
    i = replay_span(cache, std::span<const Request>(batch.data(), n), stats, i, warmup_requests);
  }
  return i;
}

}  // namespace flashpq
