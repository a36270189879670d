// experiments/run/row.cpp — results rows (experiments/run/row.h).
#include "experiments/run/row.h"

#include <cmath>
#include <iterator>

#include "experiments/run/runners.h"
#include "sim/timing.h"
#include "traces/transforms.h"

namespace flashpq {

namespace {

// The cache's metric columns, in order (after the warm-up); failed rows carry them empty.
//   object_hit_ratio = hits / get_requests, byte_hit_ratio = bytes_hit / bytes_requested;
//   wa_implementation = host bytes written / miss bytes inserted (RIPQ paper §4.5: "the
//   byte-wise ratio of host-issued writes to those required to insert cache misses", whole
//   device blocks with their padding: the factor the FTL's WA multiplies), empty when the
//   framework places nothing on the device; wa_objects = object bytes placed / miss bytes
//   (insertions and reinsertions, §4.5's "writes", without padding).
const char* const kMetricNames[] = {"requests",
                                    "get_requests",
                                    "set_requests",
                                    "delete_requests",
                                    "hits",
                                    "object_hit_ratio",
                                    "byte_hit_ratio",
                                    "compulsory_misses",
                                    "bytes_requested",
                                    "bytes_hit",
                                    "evictions",
                                    "evicted_bytes",
                                    "admission_rejections",
                                    "miss_bytes_inserted",
                                    "placed_bytes",
                                    "reinsertions",
                                    "reinserted_bytes",
                                    "superseded_bytes",
                                    "wa_implementation",
                                    "wa_objects",
                                    "host_bytes_written",
                                    "device_writes",
                                    "device_reads",
                                    "device_read_bytes",
                                    "trims",
                                    "trimmed_bytes",
                                    "cached_objects",
                                    "cached_bytes",
                                    "dram_buffer_bytes",
                                    "index_bytes",
                                    "index_bytes_per_object",
                                    "queue_bytes",
                                    "queue_bytes_per_object",
                                    "admission_bytes"};

// A hierarchy's columns (engine/tiers.h), after the warm-up; empty for a cache alone. The
// cache columns above are then the whole hierarchy's (hits, object_hit_ratio) or the flash
// tier's (evictions, placement, device, admission_rejections = flash_admission_rejects).
//   dram_hit_ratio = dram_hits / get_requests, flash_hit_ratio = flash_hits / get_requests:
//   their sum is object_hit_ratio. offloaded_reads: nhc's flash hits served by the backing
//   store; nhc_load_admit: the controller's share at the end (engine/nhc.h). Timed hierarchies
//   only: flash_throughput_mib_s and backing_throughput_mib_s, the bytes each device read and
//   wrote for the requests (the flash tier's host bytes; the backing store's) per second of the
//   measured interval (sim_seconds): the served throughput per device.
const char* const kTierMetricNames[] = {"dram_hits",
                                        "flash_hits",
                                        "dram_hit_ratio",
                                        "flash_hit_ratio",
                                        "promotions",
                                        "flash_admission_accepts",
                                        "flash_admission_rejects",
                                        "backing_reads",
                                        "backing_read_bytes",
                                        "backing_writes",
                                        "backing_write_bytes",
                                        "dirty_bytes_flushed",
                                        "cleaner_bytes_flushed",
                                        "offloaded_reads",
                                        "nhc_load_admit",
                                        "flash_throughput_mib_s",
                                        "backing_throughput_mib_s"};

double ratio(uint64_t a, uint64_t b) {
  return b == 0 ? std::nan("") : static_cast<double>(a) / static_cast<double>(b);
}

ResultRow head_columns(const CellConfig& cell) {
  ResultRow row;
  row.push_back({"experiment", cell.experiment, false});
  row.push_back({"cell", format_number(static_cast<uint64_t>(cell.index)), true});
  for (const auto& [k, v] : cell.parameters) row.push_back({k, v, false});
  return row;
}

std::string joined(const std::vector<std::string>& notes) {
  std::string out;
  for (const std::string& n : notes) out += (out.empty() ? "" : "; ") + n;
  return out;
}

// Appends every device's columns: `own` (the cell's device's) where they are, empty elsewhere.
void append_device_columns(ResultRow& row, const std::vector<Column>& own) {
  for (const Column& c : device_columns()) {
    Column out = c;
    for (const Column& o : own) {
      if (o.name == c.name) out.text = o.text;
    }
    row.push_back(std::move(out));
  }
}

// Appends the runners' columns: `own` (the cell's runner's) where they are, empty elsewhere.
void append_runner_columns(ResultRow& row, const std::vector<Column>& own) {
  for (const std::string& name : runner_column_names()) {
    Column out{name, "", true};
    for (const Column& o : own) {
      if (o.name == name) out = o;
    }
    row.push_back(std::move(out));
  }
}

}  // namespace

ResultRow build_row(const CellConfig& cell, const TraceSummary& summary, const CellPlan& plan,
                    const Measurement& m, const Device& device) {
  const HitCounters& h = m.counted;
  const bool direct = plan.direct;
  const double nan = std::nan("");
  ResultRow row = head_columns(cell);
  row.push_back({"cache_capacity_bytes", format_number(plan.cache.capacity_bytes), true});
  row.push_back({"block_size_bytes",
                 plan.layout.block_bytes ? format_number(plan.layout.block_bytes) : "", true});
  row.push_back(
      {"device_exported_bytes",
       plan.device_bounds.capacity_bytes ? format_number(plan.device_bounds.capacity_bytes) : "",
       true});
  row.push_back({"warmup_requests", format_number(plan.warmup_requests), true});
  row.push_back({"flashpq_version", FLASHPQ_VERSION, false});
  row.push_back({"trace_hash", summary.content_hash, false});
  row.push_back({"trace_requests", format_number(summary.requests), true});
  row.push_back({"trace_unique_objects", format_number(summary.unique_objects), true});
  row.push_back({"trace_working_set_bytes", format_number(summary.working_set_bytes), true});
  // The fraction of the key space a sampled trace keeps: cache sizes scale by its inverse.
  row.push_back({"trace_sample_rate",
                 format_number(transforms_sample_rate(trace_transforms(cell.trace))), true});
  const FrameworkCounters& fw = m.end.framework;
  const FrameworkCounters& fw0 = m.warm.framework;
  const DeviceCounters& dv = m.end.device;
  const DeviceCounters& dv0 = m.warm.device;
  const uint64_t miss_bytes = m.end.miss_bytes - m.warm.miss_bytes;
  const uint64_t placed = fw.placed_bytes - fw0.placed_bytes;
  const double wa_impl =
      direct || !m.places_objects ? nan : ratio(dv.write_bytes - dv0.write_bytes, miss_bytes);
  const double wa_objects = direct ? nan : ratio(placed, miss_bytes);
  auto per_object = [&](uint64_t bytes) {
    return m.objects ? static_cast<double>(bytes) / static_cast<double>(m.objects) : nan;
  };
  auto n = [](auto v) { return format_number(v); };
  const std::string metrics[] = {n(h.requests),
                                 n(h.get_requests),
                                 n(h.set_requests),
                                 n(h.delete_requests),
                                 direct ? n(nan) : n(h.hits),
                                 direct ? n(nan) : n(ratio(h.hits, h.get_requests)),
                                 direct ? n(nan) : n(ratio(h.bytes_hit, h.bytes_requested)),
                                 direct ? n(nan) : n(h.compulsory_misses),
                                 n(h.bytes_requested),
                                 direct ? n(nan) : n(h.bytes_hit),
                                 n(fw.evicted_objects - fw0.evicted_objects),
                                 n(fw.evicted_bytes - fw0.evicted_bytes),
                                 n(m.end.rejections - m.warm.rejections),
                                 n(miss_bytes),
                                 n(placed),
                                 n(fw.reinsertions - fw0.reinsertions),
                                 n(fw.reinserted_bytes - fw0.reinserted_bytes),
                                 n(fw.superseded_bytes - fw0.superseded_bytes),
                                 n(wa_impl),
                                 n(wa_objects),
                                 n(dv.write_bytes - dv0.write_bytes),
                                 n(dv.writes - dv0.writes),
                                 n(dv.reads - dv0.reads),
                                 n(dv.read_bytes - dv0.read_bytes),
                                 n(dv.trims - dv0.trims),
                                 n(dv.trimmed_bytes - dv0.trimmed_bytes),
                                 n(m.objects),
                                 n(m.used_bytes),
                                 n(fw.dram_buffer_bytes),
                                 n(m.index_bytes),
                                 n(per_object(m.index_bytes)),
                                 n(m.queue_bytes),
                                 n(per_object(m.queue_bytes)),
                                 n(m.admission_bytes)};
  static_assert(std::size(metrics) == std::size(kMetricNames));
  for (size_t i = 0; i < std::size(kMetricNames); ++i) {
    row.push_back({kMetricNames[i], metrics[i], true});
  }
  const TierCounters& t = m.end.tiers;
  const TierCounters& t0 = m.warm.tiers;
  const uint64_t flash_bytes = m.end.device.read_bytes + m.end.device.write_bytes -
                               m.warm.device.read_bytes - m.warm.device.write_bytes;
  const uint64_t backing_bytes =
      t.backing_read_bytes + t.backing_write_bytes - t0.backing_read_bytes - t0.backing_write_bytes;
  // MiB per second of the measured interval; empty without a clock.
  auto per_second = [&](uint64_t bytes) {
    if (!m.timing || m.timing->interval_ns == 0) return std::string();
    return n(static_cast<double>(bytes) / 1048576.0 / m.timing->seconds());
  };
  const std::string tier_metrics[] = {n(t.dram_hits - t0.dram_hits),
                                      n(t.flash_hits - t0.flash_hits),
                                      n(ratio(t.dram_hits - t0.dram_hits, h.get_requests)),
                                      n(ratio(t.flash_hits - t0.flash_hits, h.get_requests)),
                                      n(t.promotions - t0.promotions),
                                      n(t.flash_admission_accepts - t0.flash_admission_accepts),
                                      n(t.flash_admission_rejects - t0.flash_admission_rejects),
                                      n(t.backing_reads - t0.backing_reads),
                                      n(t.backing_read_bytes - t0.backing_read_bytes),
                                      n(t.backing_writes - t0.backing_writes),
                                      n(t.backing_write_bytes - t0.backing_write_bytes),
                                      n(t.dirty_bytes_flushed - t0.dirty_bytes_flushed),
                                      n(t.cleaner_bytes_flushed - t0.cleaner_bytes_flushed),
                                      n(t.offloaded_reads - t0.offloaded_reads),
                                      m.nhc_load_admit ? n(*m.nhc_load_admit) : std::string(),
                                      per_second(flash_bytes),
                                      per_second(backing_bytes)};
  static_assert(std::size(tier_metrics) == std::size(kTierMetricNames));
  for (size_t i = 0; i < std::size(kTierMetricNames); ++i) {
    row.push_back({kTierMetricNames[i], m.tiered ? tier_metrics[i] : std::string(), true});
  }
  // The device's own columns: its combined WA multiplies what reached it per byte the
  // workload asked to insert (direct: every host byte is the workload's own).
  append_device_columns(row, device.columns(ReportContext{direct ? 1.0 : wa_impl}));
  append_runner_columns(row, m.runner_columns);
  // Timing (sim/timing.h): simulated time, or the wall clock on a real device; empty in
  // functional runs. The same columns in every row.
  const TimingMetrics* tm = m.timing ? &*m.timing : nullptr;
  for (const auto& [name, value] : timing_columns(tm ? *tm : TimingMetrics{})) {
    row.push_back({name, tm ? format_number(value) : std::string(), true});
  }
  row.push_back({"latency_histogram", tm ? latency_histogram_text(tm->all) : "", false});
  row.push_back({"stats_file", m.stats_file, false});
  row.push_back({"sim_events", m.sim_events ? format_number(m.sim_events) : "", true});
  row.push_back({"wall_seconds", format_number(m.wall_seconds), true});
  row.push_back({"notes", joined(plan.notes), false});
  row.push_back({"error", "", false});
  return row;
}

ResultRow failed_row(const CellConfig& cell, const std::string& error) {
  ResultRow row = head_columns(cell);
  for (const char* name :
       {"cache_capacity_bytes", "block_size_bytes", "device_exported_bytes", "warmup_requests"}) {
    row.push_back({name, "", true});
  }
  row.push_back({"flashpq_version", FLASHPQ_VERSION, false});
  row.push_back({"trace_hash", "", false});
  for (const char* name :
       {"trace_requests", "trace_unique_objects", "trace_working_set_bytes", "trace_sample_rate"}) {
    row.push_back({name, "", true});
  }
  for (const char* name : kMetricNames) row.push_back({name, "", true});
  for (const char* name : kTierMetricNames) row.push_back({name, "", true});
  append_device_columns(row, {});
  append_runner_columns(row, {});
  for (const std::string& name : timing_column_names()) row.push_back({name, "", true});
  row.push_back({"latency_histogram", "", false});
  row.push_back({"stats_file", "", false});
  row.push_back({"sim_events", "", true});
  row.push_back({"wall_seconds", "", true});
  row.push_back({"notes", "", false});
  row.push_back({"error", error, false});
  return row;
}

}  // namespace flashpq
