#include "experiments/run/cell_runner.h"

#include <chrono>
#include <cmath>

#include "devices/device.h"
#include "devices/simflash/simflash_device.h"
#include "engine/framework.h"
#include "experiments/run/direct.h"
#include "experiments/run/replay.h"
#include "experiments/run/simulated_runner.h"
#include "experiments/run/wall_cell.h"
#include "fmt/format.h"
#include "policies/registry.h"
#include "policies/wtinylfu.h"
#include "traces/prefetch_reader.h"

namespace flashpq {

namespace {

// Metric columns, in order; failed rows carry them empty.
const char* const kMetricNames[] = {
    "requests", "get_requests", "set_requests", "delete_requests", "hits", "object_hit_ratio",
    "byte_hit_ratio", "compulsory_misses", "bytes_requested", "bytes_hit", "evictions",
    "evicted_bytes", "admission_rejections", "miss_bytes_inserted", "placed_bytes", "reinsertions",
    "reinserted_bytes", "superseded_bytes", "wa_implementation", "wa_objects", "host_bytes_written",
    "device_writes", "device_reads", "device_read_bytes", "trims", "trimmed_bytes",
    "cached_objects", "cached_bytes", "dram_buffer_bytes", "index_bytes", "index_bytes_per_object",
    "queue_bytes", "queue_bytes_per_object", "admission_bytes",
    // simflash only (empty on other devices): FTL counters after the warm-up, erase counts
    // over all erase blocks at the end of the run, wa_ftl = NAND ÷ host pages written and
    // wa_combined = wa_implementation × wa_ftl = NAND bytes ÷ miss bytes (direct: wa_ftl, every
    // host byte being the workload's own).
    "host_pages_written", "nand_pages_written", "nand_bytes_written", "gc_pages_copied", "erases",
    "erase_count_min", "erase_count_mean", "erase_count_max", "wa_ftl", "wa_combined",
    "wall_seconds"};

// The framework's counters, or for W-TinyLFU (a cache of its own) those it keeps.
template <class C>
FrameworkCounters framework_counters(const C& c) {
  if constexpr (requires { c.queue().counters(); }) {
    return c.queue().counters();
  } else {
    FrameworkCounters f;
    f.evicted_objects = c.evictions();
    f.evicted_bytes = c.evicted_bytes();
    f.superseded_bytes = c.superseded_bytes();
    f.placed_bytes = c.miss_bytes_inserted();
    return f;
  }
}

// Counters that accumulate; the row reports their growth after the warm-up.
struct Snapshot {
  FrameworkCounters fw;
  DeviceCounters dev;
  FtlCounters ftl;
  uint64_t miss_bytes = 0;
  uint64_t rejections = 0;
};

// The FTL counters when the device is simflash, zeros otherwise.
FtlCounters ftl_counters(const Device& device) {
  const auto* sf = dynamic_cast<const SimFlashDevice*>(&device);
  return sf ? sf->ftl().counters() : FtlCounters{};
}

std::string num(uint64_t v) {
  return std::to_string(v);
}
// Shortest text that reads back as the same double; empty for NaN ("no value").
std::string num(double v) {
  return std::isnan(v) ? std::string() : fmt::format("{}", v);
}

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

uint64_t expected_cached_objects(uint64_t capacity_bytes, bool unit_size,
                                 const TraceSummary& summary) {
  if (unit_size) return std::max<uint64_t>(1, capacity_bytes);
  const uint64_t mean_object_bytes =
      summary.unique_objects
          ? std::max<uint64_t>(1, summary.working_set_bytes / summary.unique_objects)
          : 1;
  return std::max<uint64_t>(1, capacity_bytes / mean_object_bytes);
}

ResultRow run_cell(const CellConfig& cell, const TraceSummary& summary) {
  CacheConfig cache = cell.cache;
  const uint64_t working_set = cache.unit_size ? summary.unique_objects : summary.working_set_bytes;
  cache.capacity_bytes = cell.capacity.resolve(working_set);
  cache.validate();
  // A generator's sequential fill is always warm-up; the fraction applies to what follows.
  const uint64_t fill = cell.trace.format == "generator" ? cell.trace.device_io.fill_requests() : 0;
  const auto warmup_requests =
      fill +
      static_cast<uint64_t>(std::floor(
          cell.warmup * static_cast<double>(summary.requests - std::min(fill, summary.requests))));

  auto device = make_device(cell.device);
  // block: wall-clock timing, device columns (sim/block_cell.h); null on other devices.
  auto* const block_device = dynamic_cast<BlockDevice*>(device.get());
  BlockCellMetrics block_metrics;
  HitStats stats;
  HitCounters direct_counted;  // framework direct: requests, reads, writes, trims, bytes
  const bool direct = cell.framework.name == "direct";
  uint64_t replayed = 0, objects = 0, used = 0, index_bytes = 0, queue_bytes = 0,
           admission_bytes = 0;
  Snapshot warm, end;
  // Simulated time (sim/timed_runner.h): the same functional steps, issued at their arrivals.
  const bool timed = cell.timing.mode == TimingMode::kSimulated;
  auto* flash_device = dynamic_cast<SimFlashDevice*>(device.get());
  if (timed && flash_device == nullptr) {
    throw std::invalid_argument("timing.mode simulated needs device simflash, not '" +
                                cell.device.name + "'");
  }
  TimingMetrics timing;
  // Replays `reader`, calling step(request, index) for each request, functional or timed, and
  // snapshot() just before request warmup_requests (or at the end if the warm-up covers all).
  auto drive = [&](TraceReader& reader, auto&& snapshot, auto&& step) {
    if (!timed) return uint64_t{0};  // the functional paths below keep their batched loops
    bool warm_taken = false;
    const TimedRunResult r = run_timed(*flash_device, cell.timing, warmup_requests, cell.seed,
                                       reader, [&](const Request& q, uint64_t i) {
                                         if (i == warmup_requests) {
                                           warm = snapshot();
                                           warm_taken = true;
                                         }
                                         step(q, i);
                                       });
    if (!warm_taken) warm = snapshot();
    timing = r.metrics;
    return r.requests;
  };
  const auto t0 = std::chrono::steady_clock::now();  // wall_seconds only; never reaches results
  const uint64_t expected_objects =
      expected_cached_objects(cache.capacity_bytes, cache.unit_size, summary);
  stats.reserve(summary.unique_objects);
  auto body = [&](auto& c) {
    if constexpr (requires { c.reserve(size_t{}); }) c.reserve(expected_objects);
    auto snapshot = [&] {
      return Snapshot{framework_counters(c), device->counters(), ftl_counters(*device),
                      c.miss_bytes_inserted(), c.admission_rejections()};
    };
    PrefetchReader reader(open_trace(cell.trace));  // decoding overlaps the replay
    if (timed) {
      replayed = drive(reader, snapshot, [&](const Request& q, uint64_t i) {
        const bool hit = c.access(q);
        if (i >= warmup_requests) {
          stats.record(q, hit);
        } else {
          stats.record_warmup(q, hit);
        }
      });
      stats.flush();
    } else if (block_device) {
      WallTimedCache timed(c, warmup_requests, block_metrics.timing);
      block_device->begin_nvme_measurement();
      replayed = replay_stream(timed, reader, stats, warmup_requests, [&] { warm = snapshot(); });
      block_metrics.nvme = block_device->end_nvme_measurement();
    } else {
      replayed = replay_stream(c, reader, stats, warmup_requests, [&] { warm = snapshot(); });
    }
    end = snapshot();
    objects = c.object_count();
    used = c.used_bytes();
    index_bytes = c.index_bytes();
    queue_bytes = c.queue_bytes();
    admission_bytes = c.admission_bytes();
  };
  if (direct) {
    // No cache: block I/O straight to the device (sim/direct.h).
    auto snapshot = [&] { return Snapshot{{}, device->counters(), ftl_counters(*device), 0, 0}; };
    if (timed) {
      PrefetchReader reader(open_trace(cell.trace));
      const uint64_t unit = cell.framework.offset_unit_bytes;
      replayed = drive(reader, snapshot, [&](const Request& q, uint64_t i) {
        direct_issue(*device, q, unit, i);
        if (i >= warmup_requests) {
          direct_counted.requests++;
          (q.op == Op::kGet   ? direct_counted.get_requests
           : q.op == Op::kSet ? direct_counted.set_requests
                              : direct_counted.delete_requests)++;
          direct_counted.bytes_requested += q.size_bytes;
        }
      });
    } else if (block_device) {  // asynchronous, on the wall clock
      replayed = replay_direct_wall(
          *block_device, cell, warmup_requests, direct_counted, [&] { warm = snapshot(); },
          block_metrics);
    } else {
      PrefetchReader reader(open_trace(cell.trace));
      replayed = replay_direct(*device, reader, cell.framework.offset_unit_bytes, warmup_requests,
                               direct_counted, [&] { warm = snapshot(); });
    }
    end = snapshot();
  } else if (cell.policy.name == "wtinylfu") {
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
    throw std::runtime_error(
        fmt::format("{}: the trace yielded {} requests, but {} when summarised: did it change?",
                    cell.trace.path, replayed, summary.requests));
  }

  const HitCounters h = direct ? direct_counted : stats.counters();
  const double nan = std::nan("");
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
  // Implementation WA is "the byte-wise ratio of host-issued writes to those required to
  // insert cache misses" (RIPQ paper §4.5): the bytes that reached the device, whole blocks with
  // their padding, over the miss bytes — the factor the FTL's WA multiplies. wa_objects counts
  // object copies instead (insertions and reinsertions, §4.5's "writes"), without the padding.
  // The exact framework without placement writes nothing: no implementation WA.
  const bool writes_nothing = cell.framework.name == "exact" && cell.framework.placement == "none";
  const double wa_impl =
      direct || writes_nothing ? nan : ratio(dv.write_bytes - dv0.write_bytes, miss_bytes);
  const double wa_objects = direct ? nan : ratio(placed, miss_bytes);
  const auto* sf = dynamic_cast<const SimFlashDevice*>(device.get());
  const FtlCounters ftl = end.ftl - warm.ftl;
  const double wa_ftl = sf ? ratio(ftl.nand_pages_written, ftl.host_pages_written) : nan;
  const EraseCountStats erase_counts = sf ? sf->ftl().erase_count_stats() : EraseCountStats{};
  const uint64_t page_bytes = sf ? cell.device.simflash.page_size_bytes : 0;
  auto flash = [&](auto v) { return sf ? num(v) : std::string(); };
  const std::string metrics[] = {
      num(h.requests),
      num(h.get_requests),
      num(h.set_requests),
      num(h.delete_requests),
      direct ? num(nan) : num(h.hits),
      direct ? num(nan) : num(ratio(h.hits, h.get_requests)),
      direct ? num(nan) : num(ratio(h.bytes_hit, h.bytes_requested)),
      direct ? num(nan) : num(h.compulsory_misses),
      num(h.bytes_requested),
      direct ? num(nan) : num(h.bytes_hit),
      num(fw.evicted_objects - fw0.evicted_objects),
      num(fw.evicted_bytes - fw0.evicted_bytes),
      num(end.rejections - warm.rejections),
      num(miss_bytes),
      num(placed),
      num(fw.reinsertions - fw0.reinsertions),
      num(fw.reinserted_bytes - fw0.reinserted_bytes),
      num(fw.superseded_bytes - fw0.superseded_bytes),
      num(wa_impl),
      num(wa_objects),
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
      num(objects ? static_cast<double>(index_bytes) / static_cast<double>(objects) : std::nan("")),
      num(queue_bytes),
      num(objects ? static_cast<double>(queue_bytes) / static_cast<double>(objects) : std::nan("")),
      num(admission_bytes),
      flash(ftl.host_pages_written),
      flash(ftl.nand_pages_written),
      flash(ftl.nand_pages_written * page_bytes),
      flash(ftl.gc_pages_copied),
      flash(ftl.erases),
      flash(uint64_t{erase_counts.min}),
      flash(erase_counts.mean),
      flash(uint64_t{erase_counts.max}),
      num(wa_ftl),
      num(direct ? wa_ftl : wa_impl * wa_ftl),
      num(wall)};
  static_assert(std::size(metrics) == std::size(kMetricNames));
  // wall_seconds (last of kMetricNames) stays the last column before `error`.
  const size_t last = std::size(kMetricNames) - 1;
  for (size_t i = 0; i < last; ++i) row.push_back({kMetricNames[i], metrics[i], true});
  for (Column& col : block_columns(block_device, block_device ? &block_metrics : nullptr)) {
    row.push_back(std::move(col));
  }
  // Timing (sim/timing.h): simulated time, or the wall clock on a block device; empty in
  // functional runs. The same columns in every row.
  const TimingMetrics* tm = timed                                           ? &timing
                            : block_device && block_metrics.timing.requests ? &block_metrics.timing
                                                                            : nullptr;
  for (const auto& [name, value] : timing_columns(tm ? *tm : TimingMetrics{})) {
    row.push_back({name, tm ? num(value) : std::string(), true});
  }
  row.push_back({"latency_histogram", tm ? latency_histogram_text(tm->all) : "", false});
  row.push_back({kMetricNames[last], metrics[last], true});
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
  for (const char* name : {"trace_requests", "trace_unique_objects", "trace_working_set_bytes"}) {
    row.push_back({name, "", true});
  }
  for (size_t i = 0; i + 1 < std::size(kMetricNames); ++i) {
    row.push_back({kMetricNames[i], "", true});
  }
  for (Column& col : block_columns(nullptr, nullptr)) row.push_back(std::move(col));
  for (const std::string& name : timing_column_names()) row.push_back({name, "", true});
  row.push_back({"latency_histogram", "", false});
  row.push_back({kMetricNames[std::size(kMetricNames) - 1], "", true});
  row.push_back({"error", error, false});
  return row;
}

}  // namespace flashpq
