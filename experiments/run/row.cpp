// experiments/run/row.cpp — results rows and their columns (experiments/run/row.h).
#include "experiments/run/row.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <set>
#include <stdexcept>

#include "engine/framework.h"
#include "experiments/config/schema.h"
#include "experiments/run/runners.h"
#include "policies/registry.h"
#include "sim/timing.h"
#include "traces/transforms.h"

namespace flashpq {

namespace {

// When a row of its section carries a column declared here. The texts the reference shows
// (when_text) are written from this, so the documented rule is the one applied.
enum class When {
  kAlways,
  kCache,          // a cache: any framework but direct
  kDeviceIo,       // the cell does device I/O: framework direct, or a cache that places objects
  kCacheDeviceIo,  // a cache that places objects on its device
  kBlocks,         // the framework writes device blocks (RIPQ, SIPQ)
  kEngine,         // a flash engine (engine/framework.h is_engine_framework)
  kWriteRate,      // kCacheDeviceIo, and a clock: timed, or a trace with request times
  kLifetime,       // kWriteRate on a device with a capacity and an endurance (simflash, block)
  kBounded,        // the device has a capacity (not the null device)
  kNhc,            // tiers.mode nhc_wa or nhc_wb
  kTimed,          // timing.mode simulated or wall, or a real device
  kSimulated,      // simulated time
  kDirect,         // framework direct
  kStats,          // stats.interval_s > 0
  kNotes,          // the plan has notes
  kFailed,         // the cell failed (if_set)
};

const char* when_text(When w) {
  switch (w) {
    case When::kAlways:
      return "";
    case When::kCache:
      return "a cache (any framework but direct)";
    case When::kDeviceIo:
      return "the cell does device I/O (framework direct, or a cache that places objects on its "
             "device)";
    case When::kCacheDeviceIo:
      return "a cache that places objects on its device (RIPQ, SIPQ, exact with "
             "framework.placement naive)";
    case When::kBlocks:
      return "a framework that writes device blocks (RIPQ, SIPQ)";
    case When::kWriteRate:
      return "a cache that places objects on its device, timed or on a trace with request "
             "times";
    case When::kLifetime:
      return "a cache that places objects on a device with a capacity (simflash, block), timed "
             "or on a trace with request times";
    case When::kEngine:
      return "a flash engine (framework bighash, blockcache, kangaroo, hybrid)";
    case When::kBounded:
      return "a device with a capacity (simflash, block)";
    case When::kNhc:
      return "tiers.mode nhc_wa or nhc_wb";
    case When::kTimed:
      return "timed cells (timing.mode simulated or wall, or a real device)";
    case When::kSimulated:
      return "timing.mode simulated";
    case When::kDirect:
      return "framework direct";
    case When::kStats:
      return "stats.interval_s > 0";
    case When::kNotes:
      return "the configuration draws a warning";
    case When::kFailed:
      return "the cell failed";
  }
  return "";
}

// A column declared here, with its rule.
struct RowColumn {
  ColumnSpec spec;
  When when = When::kAlways;
};

RowColumn declare(ColumnSpec spec, When when = When::kAlways) {
  spec.when = when_text(when);
  spec.if_set = when == When::kFailed;
  return RowColumn{std::move(spec), when};
}

const std::vector<RowColumn>& identity_columns() {
  static const std::vector<RowColumn> v = {
      declare(column("experiment")
                  .text()
                  .desc("the experiment's name (its `name:`, or the file's "
                        "stem)")),
      declare(column("cell").desc(
          "the cell's index, 0-based, in the order the matrix expands (first key slowest, zip: "
          "fastest, less the cells exclude: drops); --cells selects by it"))};
  return v;
}

const std::vector<RowColumn>& provenance_columns() {
  static const std::vector<RowColumn> v = {
      declare(column("cache_capacity_bytes")
                  .units("bytes")
                  .desc("C resolved: cache.capacity in bytes, a fraction of the working set "
                        "resolved (objects with cache.unit_size)"),
              When::kCache),
      declare(column("block_size_bytes")
                  .units("bytes")
                  .desc("B resolved: framework.block_size auto, a fraction of C or bytes "
                        "(engine/queue.h kBlockSizeKey)"),
              When::kBlocks),
      declare(column("block_size_basis")
                  .text()
                  .desc("how B was chosen: auto: C/256 | auto: one logical block | auto: the "
                        "largest object | auto: C/N, the largest object being larger (N the "
                        "framework's fewest blocks) | fraction of C | fraction of C, raised to "
                        "one logical block | as written"),
              When::kBlocks),
      declare(column("device_exported_bytes")
                  .units("bytes")
                  .desc("the device's exported capacity (simflash: as device.size_to_cache "
                        "sized it)"),
              When::kBounded),
      declare(column("warmup_requests")
                  .units("requests")
                  .desc("requests not measured: the trace's preconditioning requests (a "
                        "generator's fill), then the warmup fraction of the rest")),
      declare(column("flashpq_version")
                  .text()
                  .desc("the FlashPQ that wrote the row (--resume keeps a row only of the same "
                        "version)")),
      declare(column("trace_hash")
                  .text()
                  .desc("XXH3-64 of the trace file's bytes as stored, or of a generator's "
                        "parameters: 16 hex digits")),
      declare(column("trace_requests")
                  .units("requests")
                  .desc("the requests the trace yields (after its transforms)")),
      declare(column("trace_unique_objects")
                  .units("objects")
                  .desc("distinct keys the trace's gets and sets request")),
      declare(column("trace_working_set_bytes")
                  .units("bytes")
                  .desc("sum of the first-seen sizes of the trace's objects (as libCacheSim); "
                        "a fractional cache.capacity is of this")),
      declare(column("trace_sample_rate")
                  .units("ratio")
                  .desc("the fraction of the key space trace.transforms' samples keep (1 "
                        "without): cache sizes scale by its inverse"))};
  return v;
}

// The cache's metric columns, in order (after the warm-up).
//   object_hit_ratio = hits / get_requests, byte_hit_ratio = bytes_hit / bytes_requested;
//   wa_implementation = host bytes written / miss bytes inserted (RIPQ paper §4.5: "the
//   byte-wise ratio of host-issued writes to those required to insert cache misses", whole
//   device blocks with their padding: the factor the FTL's WA multiplies); wa_objects = object
//   bytes placed / miss bytes (insertions and reinsertions, §4.5's "writes", without padding).
const std::vector<RowColumn>& cache_columns() {
  static const std::vector<RowColumn> v = {
      declare(column("requests")
                  .units("requests")
                  .desc("requests measured (after the warm-up); framework direct: reads, writes "
                        "and trims")),
      declare(column("get_requests").units("requests").desc("gets measured (direct: reads)")),
      declare(column("set_requests").units("requests").desc("sets measured (direct: writes)")),
      declare(column("delete_requests").units("requests").desc("deletes measured (direct: trims)")),
      declare(column("hits").units("requests").desc("gets that hit"), When::kCache),
      declare(column("object_hit_ratio").units("ratio").desc("hits / get_requests"), When::kCache),
      declare(column("byte_hit_ratio")
                  .units("ratio")
                  .desc("bytes_hit / bytes_requested (bytes of gets)"),
              When::kCache),
      declare(column("compulsory_misses")
                  .units("requests")
                  .desc("gets of keys never requested before (warm-up included)"),
              When::kCache),
      declare(column("bytes_requested").units("bytes").desc("bytes the gets requested")),
      declare(column("bytes_hit").units("bytes").desc("bytes of the gets that hit"), When::kCache),
      declare(column("evictions").units("objects").desc("objects evicted"), When::kCache),
      declare(column("evicted_bytes").units("bytes").desc("bytes of the objects evicted"),
              When::kCache),
      declare(column("admission_rejections")
                  .units("objects")
                  .desc("misses the admission policy kept out (a hierarchy: "
                        "flash_admission_rejects)"),
              When::kCache),
      declare(column("miss_bytes_inserted")
                  .units("bytes")
                  .desc("bytes inserting misses and sets required (RIPQ paper §4.5's "
                        "denominator)"),
              When::kCache),
      declare(column("placed_bytes")
                  .units("bytes")
                  .desc("object copies written: insertions and reinsertions; every placed byte "
                        "is live, evicted or superseded"),
              When::kCache),
      declare(column("reinsertions").units("objects").desc("objects reinserted (SIPQ, RIPQ)"),
              When::kCache),
      declare(column("reinserted_bytes").units("bytes").desc("bytes reinserted"), When::kCache),
      declare(column("superseded_bytes")
                  .units("bytes")
                  .desc("copies deleted, replaced, or left behind by a reinsertion"),
              When::kCache),
      declare(column("wa_implementation")
                  .units("ratio")
                  .desc("host_bytes_written / miss_bytes_inserted: whole device blocks with "
                        "their padding (RIPQ paper §4.5)"),
              When::kCacheDeviceIo),
      declare(column("wa_objects")
                  .units("ratio")
                  .desc("placed_bytes / miss_bytes_inserted: object bytes, no padding (RIPQ "
                        "paper §4.5's writes)"),
              When::kCache),
      declare(column("host_bytes_written").units("bytes").desc("bytes written to the device"),
              When::kDeviceIo),
      declare(column("flash_write_rate_mib_s")
                  .units("MiB/s")
                  .desc("host_bytes_written / 2^20 / the measured seconds: simulated or wall "
                        "time when timed, else the trace's time from the first to the last "
                        "request measured; empty without either"),
              When::kWriteRate),
      declare(column("device_lifetime_days")
                  .units("days")
                  .desc("days until the writes at flash_write_rate_mib_s use up the rated "
                        "endurance: device.endurance_dwpd × device bytes × 365 × "
                        "device.warranty_years / bytes written per day (device bytes: the "
                        "device's capacity)"),
              When::kLifetime),
      declare(column("device_writes").units("operations").desc("write operations on the device"),
              When::kDeviceIo),
      declare(column("device_reads").units("operations").desc("read operations on the device"),
              When::kDeviceIo),
      declare(column("device_read_bytes").units("bytes").desc("bytes read from the device"),
              When::kDeviceIo),
      declare(column("trims").units("operations").desc("trim operations on the device"),
              When::kDeviceIo),
      declare(column("trimmed_bytes").units("bytes").desc("bytes trimmed"), When::kDeviceIo),
      declare(column("cached_objects").units("objects").desc("objects cached at the end"),
              When::kCache),
      declare(column("cached_bytes")
                  .units("bytes")
                  .desc("bytes cached at the end (objects with cache.unit_size)"),
              When::kCache),
      declare(column("dram_buffer_bytes")
                  .units("bytes")
                  .desc("peak DRAM of the framework's block buffers (RIPQ paper §4.2)"),
              When::kBlocks),
      declare(column("index_bytes")
                  .units("bytes")
                  .desc("the index map at the end: buckets, and each entry's key, size, chain "
                        "link and location words (RIPQ paper §4.2)"),
              When::kCache),
      declare(column("index_bytes_per_object").units("bytes").desc("index_bytes / cached_objects"),
              When::kCache),
      declare(column("queue_bytes")
                  .units("bytes")
                  .desc("what orders the objects at the end (lists, RIPQ's virtual blocks)"),
              When::kCache),
      declare(column("queue_bytes_per_object").units("bytes").desc("queue_bytes / cached_objects"),
              When::kCache),
      declare(column("admission_bytes")
                  .units("bytes")
                  .desc("TinyLFU's count-min sketch and doorkeeper (admission, or inside "
                        "W-TinyLFU); 0 without"),
              When::kCache),
      declare(column("dram_index_bytes_per_object")
                  .units("bytes")
                  .desc("DRAM of the design's index per cached object at the end: a flash "
                        "engine's own accounting (navy BigHash: its Bloom filters, nothing per "
                        "object), else index_bytes_per_object (the RIPQ paper's index map)"),
              When::kCache),
      declare(column("bloom_false_positive_reads")
                  .units("reads")
                  .desc("lookups a Bloom filter passed for a key not cached: each reads a "
                        "bucket in vain (navy's bfFalsePositiveCount)"),
              When::kEngine)};
  return v;
}

// A hierarchy's columns (engine/tiers.h), after the warm-up. The cache columns are then the
// whole hierarchy's (hits, object_hit_ratio) or the flash tier's (evictions, placement,
// device, admission_rejections = flash_admission_rejects).
const std::vector<RowColumn>& tier_columns() {
  static const std::vector<RowColumn> v = {
      declare(column("dram_hits").units("requests").desc("gets the DRAM tier answered")),
      declare(column("flash_hits").units("requests").desc("gets the flash tier answered")),
      declare(column("dram_hit_ratio")
                  .units("ratio")
                  .desc("dram_hits / get_requests (dram_hit_ratio + flash_hit_ratio = "
                        "object_hit_ratio)")),
      declare(column("flash_hit_ratio").units("ratio").desc("flash_hits / get_requests")),
      declare(column("promotions").units("objects").desc("flash hits copied into DRAM")),
      declare(column("flash_admission_accepts")
                  .units("objects")
                  .desc("DRAM evictions offered to flash that tiers.flash_admission accepted "
                        "(victims flash already holds are not offered)")),
      declare(column("flash_admission_rejects")
                  .units("objects")
                  .desc("DRAM evictions offered to flash that tiers.flash_admission rejected")),
      declare(column("backing_reads")
                  .units("requests")
                  .desc("gets the backing store answered: misses, offloaded reads, every get in "
                        "pt")),
      declare(column("backing_read_bytes").units("bytes").desc("bytes of backing_reads")),
      declare(column("backing_writes")
                  .units("requests")
                  .desc("writes to the backing store: sets in wt, wa, pt; flushes")),
      declare(column("backing_write_bytes").units("bytes").desc("bytes of backing_writes")),
      declare(column("dirty_bytes_flushed")
                  .units("bytes")
                  .desc("dirty bytes written back when their object left the cache")),
      declare(column("cleaner_bytes_flushed")
                  .units("bytes")
                  .desc("dirty bytes the cleaner wrote back (tiers.cleaner_*)")),
      declare(column("offloaded_reads")
                  .units("requests")
                  .desc("flash hits NHC served from the backing store (in flash_hits and "
                        "backing_reads; engine/nhc.h)"),
              When::kNhc),
      declare(column("nhc_load_admit")
                  .units("ratio")
                  .desc("NHC's controller's share of flash hits served by flash, at the end "
                        "(engine/nhc.h)"),
              When::kNhc),
      declare(column("flash_throughput_mib_s")
                  .units("MiB/s")
                  .desc("bytes the flash device read and wrote for the requests / 2^20 / "
                        "sim_seconds"),
              When::kTimed),
      declare(column("backing_throughput_mib_s")
                  .units("MiB/s")
                  .desc("bytes the backing store read and wrote / 2^20 / sim_seconds"),
              When::kTimed)};
  return v;
}

// The wall-clock runner's columns (experiments/run/wall_cell.h fio_columns(): fio's names;
// runner_column_names() is their order, checked by a test).
const std::vector<RowColumn>& runner_columns() {
  static const std::vector<RowColumn> v = {
      declare(column("iops").units("requests/s").desc("fio's iops: throughput_rps")),
      declare(column("bw_bytes")
                  .units("bytes/s")
                  .desc("fio's bw_bytes: measured payload bytes / sim_seconds")),
      declare(column("clat_ns").units("ns").desc(
                  "fio's clat_ns, submission to completion: a JSON object (min, max, "
                  "mean, N, percentile; sim/fio_json.h), raw in JSON Lines, quoted in "
                  "CSV"),
              When::kDirect),
      declare(column("lat_ns").units("ns").desc(
          "fio's lat_ns, arrival to completion: a JSON object as clat_ns"))};
  return v;
}

// The timing section's columns beyond sim/timing.h's latency and throughput columns.
const std::vector<RowColumn>& timing_extra_columns() {
  static const std::vector<RowColumn> v = {
      declare(column("stats_file")
                  .text()
                  .desc("the cell's series over time (experiments/run/interval_stats.h), "
                        "relative to the results file's directory"),
              When::kStats),
      declare(column("sim_events")
                  .units("events")
                  .desc("events the discrete-event engine handled, warm-up included (/ "
                        "wall_seconds: its speed)"),
              When::kSimulated)};
  return v;
}

const std::vector<RowColumn>& status_columns() {
  static const std::vector<RowColumn> v = {
      declare(column("wall_seconds")
                  .units("seconds")
                  .desc("the host's time for the cell (the one column that differs between two "
                        "runs of a cell on a simulated device)")),
      declare(column("notes").text().desc(
                  "warnings on a legal but misleading configuration, \"; \"-separated "
                  "(docs/DESIGN.md \"Results\")"),
              When::kNotes),
      declare(column("error").text().desc(
                  "why the cell failed; a failed row carries only its identity and this"),
              When::kFailed)};
  return v;
}

std::vector<ColumnSpec> specs_of(const std::vector<RowColumn>& v) {
  std::vector<ColumnSpec> out;
  for (const RowColumn& c : v) out.push_back(c.spec);
  return out;
}

// What decides which columns a row carries.
struct RowTraits {
  bool cache = false;
  bool device_io = false;
  bool blocks = false;
  bool engine = false;
  bool trace_times = false;  // the trace's requests carry times (its summary's span > 0)
  bool bounded = false;
  bool tiered = false;
  bool nhc = false;
  RunnerKind runner = RunnerKind::kFunctional;
  bool reads = false, writes = false, deletes = false;
  bool stats = false;
  bool notes = false;

  bool timed() const { return runner != RunnerKind::kFunctional; }
  bool holds(When w) const {
    switch (w) {
      case When::kAlways:
        return true;
      case When::kCache:
        return cache;
      case When::kDeviceIo:
        return device_io;
      case When::kCacheDeviceIo:
        return cache && device_io;
      case When::kBlocks:
        return blocks;
      case When::kEngine:
        return engine;
      case When::kWriteRate:
        return cache && device_io && (timed() || trace_times);
      case When::kLifetime:
        return bounded && holds(When::kWriteRate);
      case When::kBounded:
        return bounded;
      case When::kNhc:
        return nhc;
      case When::kTimed:
        return timed();
      case When::kSimulated:
        return runner == RunnerKind::kSimulated;
      case When::kDirect:
        return !cache;
      case When::kStats:
        return stats;
      case When::kNotes:
        return notes;
      case When::kFailed:
        return false;
    }
    return false;
  }
};

RowTraits traits_of(const CellConfig& cell, const TraceSummary& summary, const CellPlan& plan) {
  RowTraits t;
  t.cache = !plan.direct;
  // W-TinyLFU is a cache of its own: it places nothing (policies/wtinylfu.h).
  t.device_io = plan.direct || (plan.layout.places_objects && !is_cache_policy(cell.policy.name));
  t.blocks = plan.layout.block_bytes != 0;
  t.engine = t.cache && framework_is_engine(cell.framework.name);
  t.trace_times = summary.last_time_ns > summary.first_time_ns;
  t.bounded = plan.device_bounds.capacity_bytes != 0;
  t.tiered = plan.tiers.enabled();
  t.nhc = plan.tiers.nhc();
  t.runner = runner_for(cell);
  // The operation classes the measured requests hold (OpClass): a generator's preconditioning
  // fill writes, and is never measured.
  t.reads = summary.gets != 0;
  t.writes = summary.sets > summary.preconditioning_requests;
  t.deletes = summary.deletes != 0;
  t.stats = cell.stats.enabled();
  t.notes = !plan.notes.empty();
  return t;
}

void add_carried(std::vector<std::string>& out, const std::vector<RowColumn>& columns,
                 const RowTraits& t) {
  for (const RowColumn& c : columns) {
    if (t.holds(c.when)) out.push_back(c.spec.name);
  }
}

std::vector<std::string> identity_names(const CellConfig& cell) {
  std::vector<std::string> out;
  for (const RowColumn& c : identity_columns()) out.push_back(c.spec.name);
  for (const auto& [k, v] : row_parameters(cell)) out.push_back(k);
  return out;
}

double ratio_or_nan(uint64_t a, uint64_t b) {
  return b == 0 ? std::nan("") : static_cast<double>(a) / static_cast<double>(b);
}

std::string joined(const std::vector<std::string>& notes) {
  std::string out;
  for (const std::string& n : notes) out += (out.empty() ? "" : "; ") + n;
  return out;
}

// A read-by-selection test as the loader's (experiments/config/cell_config.cpp): a key is read
// when it has no readers or when every (selector, value) pair of one of its chains holds.
bool read_by_selection(const SchemaKey& k, const std::map<std::string, std::string>& values) {
  if (k.readers.empty()) return true;
  return std::any_of(k.readers.begin(), k.readers.end(), [&](const auto& chain) {
    return std::all_of(chain.begin(), chain.end(), [&](const auto& pair) {
      const auto it = values.find(pair.first);
      return it != values.end() && it->second == pair.second;
    });
  });
}

}  // namespace

std::vector<std::pair<std::string, std::string>> row_parameters(const CellConfig& cell) {
  const std::map<std::string, std::string> values(cell.parameters.begin(), cell.parameters.end());
  const std::set<std::string> ignored(cell.ignored_keys.begin(), cell.ignored_keys.end());
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [k, v] : cell.parameters) {
    if (v.empty()) continue;
    const SchemaKey* key = find_key(k);
    // A key no selected component reads is carried only when set to another value than its
    // default: two cells that differ in a value written then never share a row's identity.
    if (key == nullptr || read_by_selection(*key, values) ||
        (ignored.contains(k) && v != key->spec.default_value)) {
      out.emplace_back(k, v);
    }
  }
  return out;
}

std::vector<std::string> row_columns(const CellConfig& cell, const TraceSummary& summary,
                                     const CellPlan& plan) {
  const RowTraits t = traits_of(cell, summary, plan);
  std::vector<std::string> out = identity_names(cell);
  add_carried(out, provenance_columns(), t);
  add_carried(out, cache_columns(), t);
  if (t.tiered) add_carried(out, tier_columns(), t);
  if (t.device_io) {
    for (const std::string& name : device_row_columns(plan.device)) out.push_back(name);
  }
  if (t.runner == RunnerKind::kWall) add_carried(out, runner_columns(), t);
  if (t.timed()) {
    for (const std::string& name : timing_column_names(t.reads, t.writes, t.deletes)) {
      out.push_back(name);
    }
    out.push_back(latency_histogram_column().name);
    add_carried(out, timing_extra_columns(), t);
  }
  add_carried(out, status_columns(), t);
  return out;
}

std::vector<std::string> planned_row_columns(const CellConfig& cell, const TraceSummary* summary) {
  if (summary != nullptr) {
    try {
      return row_columns(cell, *summary, plan_cell(cell, *summary));
    } catch (const std::exception&) {
      // The cell fails as it starts: its row is failed_row()'s.
    }
  }
  std::vector<std::string> out = identity_names(cell);
  out.push_back("error");
  return out;
}

const std::vector<ColumnSection>& result_column_sections() {
  static const std::vector<ColumnSection> sections = [] {
    std::vector<ColumnSection> v;
    v.push_back(
        {"identity", "Identity", "every row, a failed cell's too", specs_of(identity_columns())});
    ColumnSection parameters{
        "parameters",
        "Parameters",
        "every row, a failed cell's too: each key a selected component reads (\"read by\" empty: "
        "every cell), when its text is not empty; a key no selected component reads only when "
        "set to another value than its default (shown, not read)",
        {}};
    for (const SchemaKey& k : experiment_schema()) {
      ColumnSpec c = column(k.spec.name).text().units(k.spec.unit).desc(k.spec.description);
      c.when = k.readers.empty() ? "" : k.reader_names();
      parameters.columns.push_back(std::move(c));
    }
    v.push_back(std::move(parameters));
    v.push_back({"provenance", "Resolved values and provenance", "every row of a cell that ran",
                 specs_of(provenance_columns())});
    v.push_back({"cache", "Cache and workload metrics",
                 "every row of a cell that ran; counted after the warm-up",
                 specs_of(cache_columns())});
    v.push_back({"hierarchy", "Hierarchy (engine/tiers.h)",
                 "tiers.mode not none; counted after the warm-up", specs_of(tier_columns())});
    for (const DeviceType* type : device_types()) {
      if (type->columns.empty()) continue;
      const std::string name = type->spec().name;
      v.push_back({name, "Device: " + name,
                   "device.name " + name +
                       ", when the cell does device I/O (framework direct, "
                       "or a cache that places objects on its device)",
                   type->columns});
    }
    v.push_back({"wall", "Wall-clock runner (fio's names)",
                 "cells timed on the wall clock (a real device)", specs_of(runner_columns())});
    ColumnSection timing{"timing", "Timing (sim/timing.h)",
                         "timed cells (timing.mode simulated or wall, or a real device); "
                         "after the warm-up",
                         timing_column_specs()};
    timing.columns.push_back(latency_histogram_column());
    for (const RowColumn& c : timing_extra_columns()) timing.columns.push_back(c.spec);
    v.push_back(std::move(timing));
    v.push_back({"status", "Status", "every row", specs_of(status_columns())});
    std::set<std::string> seen;
    for (const ColumnSection& s : v) {
      for (const ColumnSpec& c : s.columns) {
        if (!seen.insert(c.name).second) {
          throw std::logic_error("results column '" + c.name + "' declared twice");
        }
      }
    }
    return v;
  }();
  return sections;
}

const std::vector<std::string>& result_column_order() {
  static const std::vector<std::string> order = [] {
    std::vector<std::string> v;
    for (const ColumnSection& s : result_column_sections()) {
      for (const ColumnSpec& c : s.columns) v.push_back(c.name);
    }
    return v;
  }();
  return order;
}

ResultRow build_row(const CellConfig& cell, const TraceSummary& summary, const CellPlan& plan,
                    const Measurement& m, const Device& device) {
  const HitCounters& h = m.counted;
  const bool direct = plan.direct;
  const double nan = std::nan("");
  auto n = [](auto v) { return format_number(v); };
  // Every value the run has, by name; the row takes those row_columns() names.
  std::map<std::string, Column> all;
  auto put = [&](const std::vector<RowColumn>& specs, const std::vector<std::string>& values) {
    if (specs.size() != values.size()) throw std::logic_error("results row: columns and values");
    for (size_t i = 0; i < specs.size(); ++i)
      all[specs[i].spec.name] = specs[i].spec.with(values[i]);
  };
  put(identity_columns(), {cell.experiment, n(static_cast<uint64_t>(cell.index))});
  for (const auto& [k, v] : row_parameters(cell)) all[k] = Column{k, v, false};
  put(provenance_columns(),
      {n(plan.cache.capacity_bytes), plan.layout.block_bytes ? n(plan.layout.block_bytes) : "",
       plan.layout.block_basis,
       plan.device_bounds.capacity_bytes ? n(plan.device_bounds.capacity_bytes) : "",
       n(plan.warmup_requests), FLASHPQ_VERSION, summary.content_hash, n(summary.requests),
       n(summary.unique_objects), n(summary.working_set_bytes),
       // The fraction of the key space a sampled trace keeps: cache sizes scale by its inverse.
       n(transforms_sample_rate(trace_transforms(cell.trace)))});
  const FrameworkCounters& fw = m.end.framework;
  const FrameworkCounters& fw0 = m.warm.framework;
  const DeviceCounters& dv = m.end.device;
  const DeviceCounters& dv0 = m.warm.device;
  const uint64_t miss_bytes = m.end.miss_bytes - m.warm.miss_bytes;
  const uint64_t placed = fw.placed_bytes - fw0.placed_bytes;
  const double wa_impl = direct || !m.places_objects
                             ? nan
                             : ratio_or_nan(dv.write_bytes - dv0.write_bytes, miss_bytes);
  const double wa_objects = direct ? nan : ratio_or_nan(placed, miss_bytes);
  auto per_object = [&](uint64_t bytes) {
    return m.objects ? static_cast<double>(bytes) / static_cast<double>(m.objects) : nan;
  };
  // The flash write rate over the measured seconds (simulated or wall time, else trace time)
  // and the days the rated endurance lasts at it.
  const double measured_s = m.timing && m.timing->interval_ns != 0
                                ? m.timing->seconds()
                                : static_cast<double>(h.last_time_ns - h.first_time_ns) / 1e9;
  const uint64_t written = dv.write_bytes - dv0.write_bytes;
  const double write_rate_mib_s =
      measured_s > 0 ? static_cast<double>(written) / 1048576.0 / measured_s : nan;
  const uint64_t device_bytes = plan.device_bounds.capacity_bytes;
  const double lifetime_days =
      measured_s > 0 && written > 0 && device_bytes > 0
          ? cell.device.params.get<double>(device_endurance_dwpd_key()) *
                static_cast<double>(device_bytes) * 365.0 *
                cell.device.params.get<double>(device_warranty_years_key()) /
                (static_cast<double>(written) / measured_s * 86400.0)
          : nan;
  put(cache_columns(), {n(h.requests),
                        n(h.get_requests),
                        n(h.set_requests),
                        n(h.delete_requests),
                        direct ? n(nan) : n(h.hits),
                        direct ? n(nan) : n(ratio_or_nan(h.hits, h.get_requests)),
                        direct ? n(nan) : n(ratio_or_nan(h.bytes_hit, h.bytes_requested)),
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
                        n(write_rate_mib_s),
                        n(lifetime_days),
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
                        n(m.admission_bytes),
                        n(per_object(m.dram_index_bytes)),
                        n(m.end.bloom_false_positive_reads - m.warm.bloom_false_positive_reads)});
  if (m.tiered) {
    const TierCounters& t = m.end.tiers;
    const TierCounters& t0 = m.warm.tiers;
    const uint64_t flash_bytes = m.end.device.read_bytes + m.end.device.write_bytes -
                                 m.warm.device.read_bytes - m.warm.device.write_bytes;
    const uint64_t backing_bytes = t.backing_read_bytes + t.backing_write_bytes -
                                   t0.backing_read_bytes - t0.backing_write_bytes;
    // MiB per second of the measured interval; empty without a clock.
    auto per_second = [&](uint64_t bytes) {
      if (!m.timing || m.timing->interval_ns == 0) return std::string();
      return n(static_cast<double>(bytes) / 1048576.0 / m.timing->seconds());
    };
    put(tier_columns(),
        {n(t.dram_hits - t0.dram_hits), n(t.flash_hits - t0.flash_hits),
         n(ratio_or_nan(t.dram_hits - t0.dram_hits, h.get_requests)),
         n(ratio_or_nan(t.flash_hits - t0.flash_hits, h.get_requests)),
         n(t.promotions - t0.promotions), n(t.flash_admission_accepts - t0.flash_admission_accepts),
         n(t.flash_admission_rejects - t0.flash_admission_rejects),
         n(t.backing_reads - t0.backing_reads), n(t.backing_read_bytes - t0.backing_read_bytes),
         n(t.backing_writes - t0.backing_writes), n(t.backing_write_bytes - t0.backing_write_bytes),
         n(t.dirty_bytes_flushed - t0.dirty_bytes_flushed),
         n(t.cleaner_bytes_flushed - t0.cleaner_bytes_flushed),
         n(t.offloaded_reads - t0.offloaded_reads),
         m.nhc_load_admit ? n(*m.nhc_load_admit) : std::string(), per_second(flash_bytes),
         per_second(backing_bytes)});
  }
  // The device's own columns: its combined WA multiplies what reached it per byte the
  // workload asked to insert (direct: every host byte is the workload's own).
  for (const Column& c : device.columns(ReportContext{direct ? 1.0 : wa_impl})) {
    all[c.name] = c;
  }
  for (const Column& c : m.runner_columns) all[c.name] = c;
  // Timing (sim/timing.h): simulated time, or the wall clock on a real device.
  if (m.timing) {
    for (const auto& [name, value] : timing_columns(*m.timing)) {
      all[name] = Column{name, format_number(value), true};
    }
    all["latency_histogram"] =
        latency_histogram_column().with(latency_histogram_text(m.timing->all));
  }
  put(timing_extra_columns(), {m.stats_file, m.sim_events ? n(m.sim_events) : ""});
  put(status_columns(), {n(m.wall_seconds), joined(plan.notes), ""});

  ResultRow row;
  const std::vector<std::string> names = row_columns(cell, summary, plan);
  const std::set<std::string> chosen(names.begin(), names.end());
  for (const std::string& name : names) {
    const auto it = all.find(name);
    if (it == all.end()) {
      throw std::logic_error("results row of cell " + std::to_string(cell.index) +
                             ": no value for its column '" + name + "'");
    }
    row.push_back(it->second);
  }
  // The device's if_set columns the run gave a value, in declared order among the others.
  const bool device_io = traits_of(cell, summary, plan).device_io;
  for (const ColumnSpec& spec : device_columns()) {
    if (!device_io || !spec.if_set || chosen.contains(spec.name)) continue;
    const auto it = all.find(spec.name);
    if (it == all.end() || it->second.text.empty()) continue;
    const std::vector<std::string>& order = result_column_order();
    const auto rank = [&](const std::string& c) {
      return std::find(order.begin(), order.end(), c) - order.begin();
    };
    const auto at = std::find_if(row.begin(), row.end(),
                                 [&](const Column& c) { return rank(c.name) > rank(spec.name); });
    row.insert(at, it->second);
  }
  return row;
}

ResultRow failed_row(const CellConfig& cell, const std::string& error) {
  ResultRow row;
  row.push_back(identity_columns()[0].spec.with(cell.experiment));
  row.push_back(identity_columns()[1].spec.with(format_number(static_cast<uint64_t>(cell.index))));
  for (const auto& [k, v] : row_parameters(cell)) row.push_back({k, v, false});
  row.push_back(status_columns()[2].spec.with(error));
  return row;
}

}  // namespace flashpq
