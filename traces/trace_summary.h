// traces/trace_summary.h — one pass over a trace for what a cell needs before it runs.
//
// The working set follows libCacheSim's cal_working_set_size(): the sum, over distinct keys, of
// each key's size at its first appearance (every object counts 1 in unit-size mode, so the
// working set is then the number of distinct keys). Deletes bring no data into a cache, so
// keys and sizes are taken from gets and sets only. A fractional `cache.capacity` multiplies it.
#pragma once

#include <cstdint>
#include <string>

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
};

/// Reads the whole trace once. Throws TraceError like the reader does.
TraceSummary summarize_trace(const TraceConfig& config);

}  // namespace flashpq
