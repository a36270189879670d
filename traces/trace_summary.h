// traces/trace_summary.h — one pass over a trace for what a cell needs before it runs.
//
// The working set follows libCacheSim's cal_working_set_size(): the sum, over distinct keys, of
// each key's size at its first appearance (every object counts 1 in unit-size mode, so the
// working set is then the number of distinct keys). Deletes bring no data into a cache, so
// keys and sizes are taken from gets and sets only. A fractional `cache.capacity` multiplies it.
//
// The same pass gathers what `flashpq trace info` reports: the operation mix, the time span,
// one-hit wonders, the reuse distances and a fitted Zipf exponent, so that a run and trace info
// read a trace once between them (traces/summary_cache.h stores it all).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/size_histogram.h"
#include "traces/trace_reader.h"

namespace flashpq {

struct TraceSummary {
  /// Requests the reader yields (after op_count expansion and skipped zero-size records).
  uint64_t requests = 0;
  /// Distinct keys requested by gets or sets.
  uint64_t unique_objects = 0;
  /// Sum of first-seen sizes, in bytes.
  uint64_t working_set_bytes = 0;
  /// The largest size of a get or set, in bytes.
  uint64_t max_object_bytes = 0;
  /// The sizes of the gets and sets, requests per size bucket.
  SizeHistogram sizes;
  /// The format's content hash (TraceFormat::content_hash): XXH3-64 of the trace file's bytes as
  /// stored (compressed or not), or of a generator's parameters; 16 lowercase hex digits.
  std::string content_hash;
  /// Leading requests that always belong to the warm-up (TraceReader::preconditioning_requests).
  uint64_t preconditioning_requests = 0;

  /// Requests by operation.
  uint64_t gets = 0, sets = 0, deletes = 0;
  /// Objects (keys of gets and sets) requested exactly once.
  uint64_t one_hit_wonders = 0;
  /// The first and the last request's time, ns (0 and 0 without times or requests).
  uint64_t first_time_ns = 0, last_time_ns = 0;
  /// Reuse distances of gets and sets: bucket b counts the requests whose key was last requested
  /// d requests earlier (d ≥ 1, counting every request), with ⌊log2 d⌋ = b. First requests of a
  /// key are not counted (there are unique_objects of them).
  std::array<uint64_t, 64> reuse_log2{};
  /// The Zipf exponent fitted by least squares to log(requests) against log(rank) over the
  /// kZipfFitRanks most requested objects (gets and sets); 0 with fewer than 2 objects.
  double zipf_alpha = 0;
  static constexpr size_t kZipfFitRanks = 10'000;
};

/// The Zipf exponent of `counts` (requests per object): minus the least-squares slope of
/// log(count) against log(rank) over the `ranks` largest counts (ranks 1..min(ranks, objects));
/// 0 with fewer than 2 objects.
double fit_zipf_alpha(std::vector<uint32_t> counts, size_t ranks);

/// Reads the whole trace once. Throws TraceError like the reader does.
TraceSummary summarize_trace(const TraceConfig& config);

}  // namespace flashpq
