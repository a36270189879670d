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
/// of 4096 requests). Calls on_warmup_end() once, just before request index warmup_requests is
/// replayed (before the first request when it is 0), so counters can be snapshotted there.
/// Returns the number of requests replayed.
template <class CacheT, class OnWarmupEnd>
uint64_t replay_stream(CacheT& cache, TraceReader& reader, HitStats& stats,
                       uint64_t warmup_requests, OnWarmupEnd&& on_warmup_end) {
  std::array<Request, 4096> batch;
  uint64_t i = 0;
  bool warm = false;
  for (size_t n; (n = reader.read(batch)) != 0;) {
    std::span<const Request> rest(batch.data(), n);
    if (!warm && i + n > warmup_requests) {
      const size_t before = static_cast<size_t>(warmup_requests - i);
      i = replay_span(cache, rest.first(before), stats, i, warmup_requests);
      on_warmup_end();
      warm = true;
      rest = rest.subspan(before);
    }
    i = replay_span(cache, rest, stats, i, warmup_requests);
  }
  return i;
}

/// As above, without a warm-up callback.
template <class CacheT>
uint64_t replay_stream(CacheT& cache, TraceReader& reader, HitStats& stats,
                       uint64_t warmup_requests) {
  return replay_stream(cache, reader, stats, warmup_requests, [] {});
}

}  // namespace flashpq
