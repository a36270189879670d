#include "sim/cell_runner.h"

#include <chrono>
#include <cmath>

#include "devices/device.h"
#include "engine/framework.h"
#include "fmt/format.h"
#include "policies/registry.h"
#include "policies/wtinylfu.h"
#include "sim/replay.h"
#include "traces/prefetch_reader.h"

namespace flashpq {

namespace {

// Metric columns, in order; failed rows carry them empty.
const char* const kMetricNames[] = {
    "requests", "get_requests", "set_requests", "delete_requests", "hits", "object_hit_ratio",
    "byte_hit_ratio", "compulsory_misses", "bytes_requested", "bytes_hit", "evictions",
    "evicted_bytes", "admission_rejections", "miss_bytes_inserted", "placed_bytes",
    "reinsertions", "reinserted_bytes", "superseded_bytes", "wa_implementation",
    "host_bytes_written", "device_writes", "device_reads", "device_read_bytes", "trims",
    "trimmed_bytes", "cached_objects", "cached_bytes", "dram_buffer_bytes", "index_bytes",
    "index_bytes_per_object", "wall_seconds"};

// The framework's counters, or for W-TinyLFU (a cache of its own) those it keeps.
template <class C>
FrameworkCounters framework_counters(const C& c) {
  if constexpr (requires { c.queue().counters(); }) {
    return c.queue().counters();
  } else {
    FrameworkCounters f;
    f.evicted_objects = c.evictions();
    f.placed_bytes = c.miss_bytes_inserted();
    return f;
  }
}

// Counters that accumulate; the row reports their growth after the warm-up.
struct Snapshot {
  FrameworkCounters fw;
  DeviceCounters dev;
  uint64_t miss_bytes = 0;
  uint64_t rejections = 0;
};

std::string num(uint64_t v) { return std::to_string(v); }
// Shortest text that reads back as the same double; empty for NaN ("no value").
std::string num(double v) { return std::isnan(v) ? std::string() : fmt::format("{}", v); }

double ratio(uint64_t a, uint64_t b) {
  return b == 0 ? std::nan("") : static_cast<double>(a) / static_cast<double>(b);
}

ResultRow head_columns(const CellConfig& cell) {
  ResultRow row;
  row.push_back({"experiment", cell.experiment, false});
  row.push_back({"cell", num(static_cast<uint64_t>(cell.index)), true});
  for (const auto& [k, v] : cell.parameters) row.push_back({k, v, false});
  return row;
}

}  // namespace

ResultRow run_cell(const CellConfig& cell, const TraceSummary& summary) {
  CacheConfig cache = cell.cache;
  const uint64_t working_set = cache.unit_size ? summary.unique_objects
                                               : summary.working_set_bytes;
  cache.capacity_bytes = cell.capacity.resolve(working_set);
  cache.validate();
  const auto warmup_requests = static_cast<uint64_t>(
      std::floor(cell.warmup * static_cast<double>(summary.requests)));

  auto device = make_device(cell.device);
  HitStats stats;
  uint64_t replayed = 0, objects = 0, used = 0, index_bytes = 0;
  Snapshot warm, end;
  const auto t0 = std::chrono::steady_clock::now();  // wall_seconds only; never reaches results
  // Sketches are sized by an object count, never by bytes (TinyLFU, engine/admission.h).
  const uint64_t mean_object_bytes =
      summary.unique_objects ? std::max<uint64_t>(1, summary.working_set_bytes /
                                                         summary.unique_objects)
                             : 1;
  const uint64_t expected_objects = std::max<uint64_t>(
      1, cache.unit_size ? cache.capacity_bytes : cache.capacity_bytes / mean_object_bytes);
  stats.reserve(summary.unique_objects);
  auto body = [&](auto& c) {
    if constexpr (requires { c.reserve(size_t{}); }) c.reserve(expected_objects);
    auto snapshot = [&] {
      return Snapshot{framework_counters(c), device->counters(), c.miss_bytes_inserted(),
                      c.admission_rejections()};
    };
    PrefetchReader reader(open_trace(cell.trace));  // decoding overlaps the replay
    replayed = replay_stream(c, reader, stats, warmup_requests, [&] { warm = snapshot(); });
    end = snapshot();
    objects = c.object_count();
    used = c.used_bytes();
    index_bytes = c.index_bytes();
  };
  if (cell.policy.name == "wtinylfu") {
    // W-TinyLFU is a whole cache (window + SLRU main + sketch), not a priority rule.
    if (cell.framework.name != "exact") {
      throw std::invalid_argument("policy wtinylfu runs on framework exact only, not '" +
                                  cell.framework.name + "'");
    }
    with_wtinylfu_cache(cache, cell.admission, expected_objects, body);
  } else {
    with_policy(cell.policy, [&](auto policy) {
      with_admission(cell.admission, expected_objects, [&](auto admission) {
        with_framework(cell.framework, cache, std::move(policy), *device, std::move(admission),
                       body);
      });
    });
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (replayed != summary.requests) {
    throw std::runtime_error(fmt::format(
        "{}: the trace yielded {} requests, but {} when summarised: did it change?",
        cell.trace.path, replayed, summary.requests));
  }

  const HitCounters h = stats.counters();
  ResultRow row = head_columns(cell);
  row.push_back({"cache_capacity_bytes", num(cache.capacity_bytes), true});
  row.push_back({"warmup_requests", num(warmup_requests), true});
  row.push_back({"flashpq_version", FLASHPQ_VERSION, false});
  row.push_back({"trace_hash", summary.content_hash, false});
  row.push_back({"trace_requests", num(summary.requests), true});
  row.push_back({"trace_unique_objects", num(summary.unique_objects), true});
  row.push_back({"trace_working_set_bytes", num(summary.working_set_bytes), true});
  const FrameworkCounters& fw = end.fw;
  const FrameworkCounters& fw0 = warm.fw;
  const DeviceCounters& dv = end.dev;
  const DeviceCounters& dv0 = warm.dev;
  const uint64_t miss_bytes = end.miss_bytes - warm.miss_bytes;
  const uint64_t placed = fw.placed_bytes - fw0.placed_bytes;
  const std::string metrics[] = {
      num(h.requests),
      num(h.get_requests),
      num(h.set_requests),
      num(h.delete_requests),
      num(h.hits),
      num(ratio(h.hits, h.get_requests)),
      num(ratio(h.bytes_hit, h.bytes_requested)),
      num(h.compulsory_misses),
      num(h.bytes_requested),
      num(h.bytes_hit),
      num(fw.evicted_objects - fw0.evicted_objects),
      num(fw.evicted_bytes - fw0.evicted_bytes),
      num(end.rejections - warm.rejections),
      num(miss_bytes),
      num(placed),
      num(fw.reinsertions - fw0.reinsertions),
      num(fw.reinserted_bytes - fw0.reinserted_bytes),
      num(fw.superseded_bytes - fw0.superseded_bytes),
      num(ratio(placed, miss_bytes)),
      num(dv.write_bytes - dv0.write_bytes),
      num(dv.writes - dv0.writes),
      num(dv.reads - dv0.reads),
      num(dv.read_bytes - dv0.read_bytes),
      num(dv.trims - dv0.trims),
      num(dv.trimmed_bytes - dv0.trimmed_bytes),
      num(objects),
      num(used),
      num(fw.dram_buffer_bytes),
      num(index_bytes),
      num(objects ? static_cast<double>(index_bytes) / static_cast<double>(objects)
                  : std::nan("")),
      num(wall)};
  static_assert(std::size(metrics) == std::size(kMetricNames));
  for (size_t i = 0; i < std::size(kMetricNames); ++i) {
    row.push_back({kMetricNames[i], metrics[i], true});
  }
  row.push_back({"error", "", false});
  return row;
}

ResultRow failed_row(const CellConfig& cell, const std::string& error) {
  ResultRow row = head_columns(cell);
  for (const char* name : {"cache_capacity_bytes", "warmup_requests"}) {
    row.push_back({name, "", true});
  }
  row.push_back({"flashpq_version", FLASHPQ_VERSION, false});
  for (const char* name : {"trace_hash"}) row.push_back({name, "", false});
  for (const char* name :
       {"trace_requests", "trace_unique_objects", "trace_working_set_bytes"}) {
    row.push_back({name, "", true});
  }
  for (const char* name : kMetricNames) row.push_back({name, "", true});
  row.push_back({"error", error, false});
  return row;
}

}  // namespace flashpq
