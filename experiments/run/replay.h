// experiments/run/replay.h — the per-request loop: trace → cache → stats.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>

#include "engine/request.h"
#include "experiments/run/stats.h"
#include "traces/trace_reader.h"

namespace flashpq {

/// Replays requests[0..n) (already in memory) through `cache`, numbering them from `first_index`
/// for the warm-up test. Returns the index after the last request. Never inlined, so profilers
/// can isolate the per-request path (callgrind --toggle-collect='*flashpq::replay_span*').
template <class CacheT>
[[gnu::noinline]] uint64_t replay_span(CacheT& cache, std::span<const Request> requests,
                                       HitStats& stats, uint64_t first_index,
                                       uint64_t warmup_requests) {
  // The requests before index warmup_requests, then the counted ones: no test per request.
  const size_t cold =
      first_index >= warmup_requests
          ? 0
          : static_cast<size_t>(std::min<uint64_t>(requests.size(), warmup_requests - first_index));
  if constexpr (requires { cache.prefetch_bucket(uint64_t{}); }) {
    // Requests in memory: the index bucket of request i + 2D and the chain's first entry of
    // request i + D are prefetched (two dependent loads, each given D requests to arrive), so
    // that request i's lookup hits the CPU cache. Only the speed changes.
    constexpr size_t D = 8;
    const Request* const q = requests.data();
    const size_t n = requests.size();
    auto step = [&](size_t i) {
      if (i + 2 * D < n) cache.prefetch_bucket(q[i + 2 * D].key);
      if (i + D < n) cache.prefetch_entry(q[i + D].key);
    };
    for (size_t i = 0; i < cold; ++i) {
      step(i);
      stats.record_warmup(q[i], cache.access(q[i]));
    }
    for (size_t i = cold; i < n; ++i) {
      step(i);
      stats.record(q[i], cache.access(q[i]));
    }
  } else {
    for (const Request& r : requests.first(cold)) stats.record_warmup(r, cache.access(r));
    for (const Request& r : requests.subspan(cold)) stats.record(r, cache.access(r));
  }
  if (cold < requests.size()) stats.note_times(requests[cold].time_ns, requests.back().time_ns);
  stats.flush();
  return first_index + requests.size();
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
