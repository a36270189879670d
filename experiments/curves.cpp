// experiments/curves.cpp — `flashpq mrc`: exact LRU, SHARDS and miniature-simulation curves
// (experiments/curves.h; docs/guide/curves.md).
#include "experiments/curves.h"

#include <fmt/format.h>
#include <stdlib.h>
#include <xxhash.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <map>
#include <ostream>
#include <queue>
#include <stdexcept>
#include <utility>

#include "engine/lru_stack.h"
#include "experiments/config/cell_config.h"
#include "experiments/results.h"
#include "experiments/run/cell_runner.h"
#include "experiments/run/measure.h"
#include "experiments/run/row.h"
#include "traces/fpq.h"
#include "traces/prefetch_reader.h"
#include "traces/summary_cache.h"
#include "traces/trace_reader.h"

namespace flashpq {

// Named, not anonymous: the unity build joins this file with others (their helpers' names).
namespace curves_internal {

namespace fs = std::filesystem;

// SHARDS' modulus P (§3: the hash's low 24 bits against a threshold T, R = T/P), as the
// `sample` transform's rule `shards` (traces/transforms.cpp), so that shards and minisim at rate
// R sample exactly the keys `trace.transforms: [{name: sample, rate: R}]` keeps.
constexpr uint64_t kModulus = uint64_t{1} << 24;

uint64_t sample_hash(uint64_t key) {
  return XXH3_64bits(&key, sizeof key) % kModulus;  // traces/transforms.cpp key_hash, mod P
}

// The threshold T of rate R, as the `sample` transform computes it, at least 1.
uint64_t threshold_of(double rate) {
  return std::max<uint64_t>(1, static_cast<uint64_t>(rate * static_cast<double>(kModulus)));
}

std::string number(double v) {
  return std::isnan(v) ? "" : fmt::format("{}", v);
}

double ratio(double a, double b) {
  return b == 0 ? std::nan("") : a / b;
}

// The schema's defaults, then --set, then the trace: the values a cell of the curve is made of.
std::map<std::string, SourcedValue> base_values(const CurveOptions& o) {
  std::map<std::string, SourcedValue> values;
  for (const auto& s : experiment_schema()) {
    values[s.spec.name] = {s.spec.default_value, "flashpq mrc (default)"};
  }
  for (const Override& ov : o.overrides) {
    if (find_key(ov.key) == nullptr) {
      throw ConfigError(
          fmt::format("flashpq mrc: --set {}: unknown key (flashpq keys lists the keys)", ov.key));
    }
    if (ov.key == "cache.capacity" || ov.key == "trace.path") {
      throw ConfigError(fmt::format(
          "flashpq mrc: --set {}: given by {} instead", ov.key,
          ov.key == "trace.path" ? "the TRACE argument" : "--sizes (e.g. --sizes 0.01,0.1)"));
    }
    values[ov.key] = {ov.value, "--set " + ov.key};
  }
  values["trace.path"] = {o.trace_path, "--set trace.path"};
  return values;
}

CellConfig cell_at(std::map<std::string, SourcedValue> values, const std::string& size,
                   size_t index) {
  values["cache.capacity"] = {size, "--sizes"};
  return make_cell("", "mrc", index, values);
}

// The cell's cache.capacity as written.
std::string size_text(const CellConfig& cell) {
  for (const auto& [k, v] : cell.parameters) {
    if (k == "cache.capacity") return v;
  }
  return "?";
}

// The rows' columns: the leading ones, the cell's parameters, then the metrics.
struct RowBuilder {
  ResultRow row;
  void add(const std::string& name, const std::string& text, bool numeric) {
    row.push_back(Column{name, text, numeric});
  }
};

ResultRow curve_row(const std::string& method, double rate, bool exact, const CellConfig& cell,
                    uint64_t capacity, double object_hit_ratio, double byte_hit_ratio) {
  RowBuilder b;
  b.add("curve_method", method, false);
  b.add("curve_sample_rate", number(rate), true);
  b.add("curve_exact", exact ? "true" : "false", false);
  for (const auto& [k, v] : row_parameters(cell)) b.add(k, v, false);
  b.add("cache_capacity_bytes", std::to_string(capacity), true);
  b.add("object_hit_ratio", number(object_hit_ratio), true);
  b.add("byte_hit_ratio", number(byte_hit_ratio), true);
  return b.row;
}

// ---- exact_lru and shards: LRU stack distances (engine/lru_stack.h) ----

// The hits of LRU caches of the sorted capacities, from the stack distances of the counted gets.
// A get of stack distance d (objects in unit-size mode, else bytes) hits every capacity C with
// d ≤ C; with sampling at rate R, the sampled stream's distance d stands for d / R (SHARDS §3),
// so it hits when d ≤ C × R. Each sampled get weighs 1 / R (fixed size: the R in force when it
// was sampled; SHARDS §4.2 rescales earlier counts by R'/R when R drops to R', which changes
// every count by one factor and no ratio).
class LruCurve {
 public:
  explicit LruCurve(std::vector<uint64_t> sorted_capacities)
      : capacities_(std::move(sorted_capacities)),
        thresholds_(capacities_.size()),
        hits_(capacities_.size() + 1, 0.0),
        hit_bytes_(capacities_.size() + 1, 0.0) {
    set_rate(1.0);
  }

  void set_rate(double rate) {
    rate_ = rate;
    weight_ = 1.0 / rate;
    for (size_t i = 0; i < capacities_.size(); ++i) {
      thresholds_[i] = static_cast<double>(capacities_[i]) * rate;
    }
  }

  // A counted get of `size` bytes; `distance` its stack distance when the key was in the stack.
  void get(bool reuse, uint64_t distance, uint32_t size) {
    gets_ += weight_;
    bytes_ += weight_ * size;
    if (!reuse) return;
    const size_t b = static_cast<size_t>(
        std::lower_bound(thresholds_.begin(), thresholds_.end(), static_cast<double>(distance)) -
        thresholds_.begin());
    hits_[b] += weight_;
    hit_bytes_[b] += weight_ * size;
  }

  // SHARDS_adj (§4.3): the counted gets expected at the sampling rate less those sampled, put
  // in the first bucket (hits at every size), so that the curve's denominator is the expected
  // count. `all_gets` and `all_bytes` are the counted gets of the whole trace and their bytes.
  void adjust(double all_gets, double all_bytes) {
    hits_[0] += all_gets - gets_;
    hit_bytes_[0] += all_bytes - bytes_;
    gets_ = all_gets;
    bytes_ = all_bytes;
  }

  // Hits and bytes hit at capacity index i (sorted order): the buckets 0..i.
  std::pair<double, double> hits_at(size_t i) const {
    double h = 0, hb = 0;
    for (size_t b = 0; b <= i; ++b) {
      h += hits_[b];
      hb += hit_bytes_[b];
    }
    return {h, hb};
  }
  double gets() const { return gets_; }
  double bytes() const { return bytes_; }

 private:
  std::vector<uint64_t> capacities_;
  std::vector<double> thresholds_;
  std::vector<double> hits_, hit_bytes_;  // by bucket: first capacity index with d ≤ C × R
  double gets_ = 0, bytes_ = 0;
  double rate_ = 1, weight_ = 1;
};

std::vector<ResultRow> lru_curve(const CurveMethod& o, const std::vector<CellConfig>& cells,
                                 const std::vector<uint64_t>& capacities,
                                 const TraceSummary& summary, uint64_t warmup, std::ostream& log) {
  const CellConfig& cell = cells.front();
  const bool unit = cell.cache.unit_size;
  const bool shards = o.method == "shards";
  const bool fixed_size = shards && o.sample_keys > 0;
  std::vector<size_t> order(capacities.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return capacities[a] < capacities[b]; });
  std::vector<uint64_t> sorted;
  for (size_t i : order) sorted.push_back(capacities[i]);
  LruCurve curve(sorted);

  uint64_t threshold = shards && !fixed_size ? threshold_of(o.rate) : kModulus;
  auto rate_of = [](uint64_t t) { return static_cast<double>(t) / static_cast<double>(kModulus); };
  curve.set_rate(rate_of(threshold));
  // SHARDS_max (§4.2): the sampled keys by hash, the largest on top.
  std::priority_queue<std::pair<uint64_t, uint64_t>> by_hash;

  LruStack stack(unit ? LruStack::Measure::kObjects : LruStack::Measure::kBytes);
  // Room for the keys the stack will hold: all of them, the sample's (R of them, with slack),
  // or at most sample_keys + 1.
  const uint64_t expected_keys =
      !shards      ? summary.unique_objects
      : fixed_size ? std::min<uint64_t>(summary.unique_objects, o.sample_keys + 1)
                   : static_cast<uint64_t>(static_cast<double>(summary.unique_objects) *
                                           rate_of(threshold) * 1.25) +
                         1024;
  stack.reserve(expected_keys);
  uint64_t index = 0, deletes = 0, size_changes = 0, max_size = 0, replayed = 0;
  double all_gets = 0, all_bytes = 0;
  // Decoded on a thread of its own, as a cell's trace is (traces/prefetch_reader.h).
  PrefetchReader reader(open_trace(cell.trace));
  std::array<Request, 4096> batch;
  // Without sampling every request's key is looked up: its index bucket is prefetched 16
  // requests ahead and its chain's first entry 8 ahead, as a cell's replay does
  // (experiments/run/replay.h). Only the speed changes.
  constexpr size_t D = 8;
  for (size_t n; (n = reader.read(batch)) != 0;) {
    for (size_t i = 0; i < n; ++i) {
      if (!shards) {
        if (i + 2 * D < n) stack.prefetch(batch[i + 2 * D].key);
        if (i + D < n) stack.prefetch_entry(batch[i + D].key);
      }
      const Request& r = batch[i];
      const bool counted = index++ >= warmup && r.op == Op::kGet;
      if (counted) {
        all_gets += 1;
        all_bytes += r.size_bytes;
      }
      if (r.op != Op::kDelete) max_size = std::max<uint64_t>(max_size, r.size_bytes);
      if (shards) {
        const uint64_t h = sample_hash(r.key);
        if (h >= threshold) continue;
        if (fixed_size && r.op != Op::kDelete && !stack.contains(r.key)) {
          // A new key for the sample. When the sample is full the largest hashes leave (the
          // new key's too, if it is among them) and T drops to the largest: only hashes below
          // T are sampled from then on (SHARDS_max, §4.2).
          by_hash.emplace(h, r.key);
          bool left = false;
          while (stack.keys() + 1 > o.sample_keys && !left && !by_hash.empty()) {
            const uint64_t top = by_hash.top().first;
            while (!by_hash.empty() && by_hash.top().first == top) {
              if (by_hash.top().second == r.key) left = true;
              stack.remove(by_hash.top().second);  // false for a key deleted since
              by_hash.pop();
            }
            threshold = std::max<uint64_t>(top, 1);
            curve.set_rate(rate_of(threshold));
          }
          if (left) continue;
        }
      }
      ++replayed;
      if (r.op == Op::kDelete) {
        deletes += stack.remove(r.key) ? 1 : 0;
        continue;
      }
      const LruStack::Reuse u = stack.touch(r.key, unit ? 1u : r.size_bytes);
      if (!unit && u.seen && u.previous_size != r.size_bytes) ++size_changes;
      if (counted) curve.get(u.seen, u.distance, r.size_bytes);
    }
  }
  if (shards) curve.adjust(all_gets, all_bytes);
  const double rate = rate_of(threshold);
  if (deletes > 0) {
    log << fmt::format(
        "flashpq mrc: {} deletes of cached keys: an LRU cell may differ (a delete "
        "leaves room an LRU stack does not)\n",
        deletes);
  }
  if (size_changes > 0) {
    log << fmt::format(
        "flashpq mrc: {} requests changed their key's size: an LRU cell may "
        "differ\n",
        size_changes);
  }
  log << fmt::format(
      "flashpq mrc: {}: {} of {} requests replayed{}, {} keys in the stack at the "
      "end ({:.1f} MiB)\n",
      o.method, replayed, index, shards ? fmt::format(" (rate {})", rate) : std::string(),
      stack.keys(), static_cast<double>(stack.memory_bytes()) / (1 << 20));
  std::vector<ResultRow> rows(capacities.size());
  for (size_t s = 0; s < order.size(); ++s) {
    const size_t i = order[s];
    const auto [hits, hit_bytes] = curve.hits_at(s);
    const bool exact =
        !shards && deletes == 0 && (unit || (size_changes == 0 && max_size <= capacities[i]));
    rows[i] = curve_row(o.method, shards ? rate : 1.0, exact, cells[i], capacities[i],
                        ratio(hits, curve.gets()), ratio(hit_bytes, curve.bytes()));
  }
  return rows;
}

// ---- minisim ----

// A directory of its own under the system's temporary directory, removed with everything in
// it when this goes out of scope: the sampled trace lives there while the cells run.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "flashpq-mrc-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw std::runtime_error("flashpq mrc: cannot create a temporary directory under " +
                               fs::temp_directory_path().string());
    }
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The sample, streamed: passes on the requests whose key hashes below `threshold` (the
// `sample` transform's rule) and counts, on the way, the whole trace's gets past the warm-up and
// their bytes. Nothing is held beyond the reader's batch.
class SampleReader final : public TraceReader {
 public:
  SampleReader(std::unique_ptr<TraceReader> in, uint64_t threshold, uint64_t warmup)
      : in_(std::move(in)), threshold_(threshold), warmup_(warmup) {}
  size_t read(std::span<Request> out) override {
    for (size_t n; (n = in_->read(out)) != 0;) {
      size_t kept = 0;
      for (size_t i = 0; i < n; ++i) {
        const Request r = out[i];
        if (index_++ >= warmup_ && r.op == Op::kGet) {
          gets += 1;
          bytes += r.size_bytes;
        }
        if (sample_hash(r.key) < threshold_) out[kept++] = r;
      }
      if (kept > 0) return kept;
    }
    return 0;
  }
  const std::string& path() const override { return in_->path(); }
  double gets = 0, bytes = 0;  // the whole trace's counted gets and their bytes, so far

 private:
  std::unique_ptr<TraceReader> in_;
  uint64_t threshold_, warmup_, index_ = 0;
};

std::vector<ResultRow> minisim_curve(const CurveMethod& o, const std::vector<CellConfig>& cells,
                                     const std::vector<uint64_t>& capacities, uint64_t warmup,
                                     std::ostream& log) {
  // One read of the trace: the sample (the cell's transforms, then sample at R) into a file.
  const uint64_t threshold = threshold_of(o.rate);
  const double rate = static_cast<double>(threshold) / static_cast<double>(kModulus);
  TempDir dir;
  const std::string sampled = (fs::path(dir.path()) / "sample.fpq").string();
  // The counted gets of the whole trace and their bytes (past the cell's warm-up): the sample's
  // misses, scaled by 1/R, are taken over them (below).
  double all_gets = 0, all_bytes = 0;
  {
    SampleReader sample(open_trace(cells.front().trace), threshold, warmup);
    write_fpq(sample, sampled, "flashpq mrc minisim sample");
    all_gets = sample.gets;
    all_bytes = sample.bytes;
  }
  // The cells run on the sample (an .fpq file, the transforms applied), each at R × its size.
  TraceConfig sample_trace = trace_file(sampled);
  sample_trace.seed = cells.front().trace.seed;
  const TraceSummary summary = summarize_trace(sample_trace);
  log << fmt::format("flashpq mrc: minisim: {} requests sampled at rate {}\n", summary.requests,
                     rate);
  std::vector<ResultRow> rows;
  for (size_t i = 0; i < cells.size(); ++i) {
    const uint64_t mini = std::max<uint64_t>(
        1, static_cast<uint64_t>(std::floor(static_cast<double>(capacities[i]) * rate)));
    CellConfig cell = cells[i];
    cell.trace = sample_trace;
    cell.capacity = CapacitySpec::parse(std::to_string(mini));
    cell.stats = StatsConfig{};  // no series: one row per size
    cell.iolog_path.clear();
    const ResultRow mini_row = run_cell(cell, summary);
    auto field = [&](const std::string& name) {
      for (const Column& c : mini_row) {
        if (c.name == name) return c.text;
      }
      return std::string();
    };
    if (const std::string error = field("error"); !error.empty()) {
      throw std::runtime_error(fmt::format("flashpq mrc: minisim at {} ({} sampled): {}",
                                           size_text(cells[i]), mini, error));
    }
    auto num = [&](const std::string& name) {
      const std::string t = field(name);
      if (t.empty()) throw std::logic_error("flashpq mrc: minisim: the cell's row lacks " + name);
      return std::stod(t);
    };
    // The sample's misses stand for 1/R times as many in the whole trace; the requests the
    // sample lacks against R × the whole (its hottest keys unsampled, say) count as hits, as
    // SHARDS_adj does and as libCacheSim's MINISIM scales its misses over the whole trace.
    const double misses = num("get_requests") - num("hits");
    const double missed_bytes = num("bytes_requested") - num("bytes_hit");
    ResultRow row =
        curve_row("minisim", rate, false, cells[i], capacities[i],
                  1 - ratio(misses / rate, all_gets), 1 - ratio(missed_bytes / rate, all_bytes));
    for (const Column& c : mini_row) {
      if (c.name.starts_with("wa_")) row.push_back(c);
    }
    row.push_back(Column{"curve_sample_capacity_bytes", std::to_string(mini), true});
    rows.push_back(std::move(row));
  }
  return rows;
}

// Sampling's error grows as the sample shrinks (SHARDS §5, miniature simulation §4): says so
// when the sample holds few keys, or when a size's sampled cache holds few objects.
void warn_small_samples(const CurveMethod& o, const std::vector<CellConfig>& cells, bool unit,
                        const TraceSummary& summary, const std::vector<uint64_t>& capacities,
                        std::ostream& log) {
  const double rate = static_cast<double>(threshold_of(o.rate)) / static_cast<double>(kModulus);
  const double keys = static_cast<double>(summary.unique_objects) * rate;
  if (keys < 1000) {
    log << fmt::format(
        "flashpq mrc: warning: rate {} samples about {:.0f} of the trace's {} keys: expect errors "
        "above 0.01 (docs/guide/curves.md \"Accuracy\"); raise --rate to {:.2g} or more for 1000 "
        "keys\n",
        o.rate, keys, summary.unique_objects,
        std::min(1.0, 1000.0 / static_cast<double>(std::max<uint64_t>(1, summary.unique_objects))));
  }
  const double mean = unit ? 1.0
                           : static_cast<double>(summary.working_set_bytes) /
                                 static_cast<double>(std::max<uint64_t>(1, summary.unique_objects));
  for (size_t i = 0; i < capacities.size(); ++i) {
    const double objects = static_cast<double>(capacities[i]) * rate / mean;
    if (objects < 100) {
      log << fmt::format(
          "flashpq mrc: warning: size {}: the sampled cache holds about {:.0f} objects (under "
          "100): the point is unreliable; raise --rate\n",
          size_text(cells[i]), objects);
    }
  }
}

}  // namespace curves_internal

using namespace curves_internal;

std::vector<std::string> curve_columns(const std::vector<ResultRow>& rows) {
  std::vector<std::string> columns;
  for (const ResultRow& row : rows) {
    for (const Column& c : row) {
      if (std::find(columns.begin(), columns.end(), c.name) == columns.end()) {
        columns.push_back(c.name);
      }
    }
  }
  return columns;
}

void write_curves(const std::vector<ResultRow>& rows, const std::string& path) {
  ResultsWriter out(path, curve_columns(rows));
  for (const ResultRow& row : rows) out.write(row);
}

std::vector<ResultRow> curve_of_cells(const CurveMethod& o, const std::vector<CellConfig>& cells,
                                      std::ostream& log) {
  if (o.method != "exact_lru" && o.method != "shards" && o.method != "minisim") {
    throw ConfigError(fmt::format(
        "flashpq mrc: --method: expected exact_lru, shards or minisim, found '{}'", o.method));
  }
  if (!(o.rate > 0 && o.rate <= 1)) {
    throw ConfigError(
        fmt::format("flashpq mrc: --rate: expected a rate in (0, 1], e.g. 0.01, found {}", o.rate));
  }
  if (cells.empty()) throw ConfigError("flashpq mrc: expected at least one size");
  const CellConfig& first = cells.front();
  if (o.method != "minisim") {
    std::vector<std::string> refused;
    if (first.policy.name != "lru") refused.push_back("policy.name " + first.policy.name);
    if (first.framework.name != "exact")
      refused.push_back("framework.name " + first.framework.name);
    if (first.admission.name != "none") refused.push_back("admission.name " + first.admission.name);
    for (const auto& [k, v] : first.parameters) {
      if ((k == "tiers.mode" || k == "framework.placement") && !v.empty() && v != "none") {
        refused.push_back(k + " " + v);
      }
    }
    if (!refused.empty()) {
      throw std::invalid_argument(fmt::format(
          "curve method {} computes LRU on the exact framework without admission or "
          "placement; found {}: use method minisim for them (flashpq mrc --method minisim, or "
          "curve.method: minisim)",
          o.method, fmt::join(refused, ", ")));
    }
  }
  const TraceSummary summary = cached_summary(first.trace, SummaryCacheOptions{});
  std::vector<uint64_t> capacities;
  uint64_t warmup = 0;
  for (const CellConfig& cell : cells) {
    const CellPlan plan = plan_cell(cell, summary);
    capacities.push_back(plan.cache.capacity_bytes);
    warmup = plan.warmup_requests;
  }
  if (o.method == "minisim" || (o.method == "shards" && o.sample_keys == 0)) {
    warn_small_samples(o, cells, first.cache.unit_size, summary, capacities, log);
  }
  if (o.method == "minisim") return minisim_curve(o, cells, capacities, warmup, log);
  return lru_curve(o, cells, capacities, summary, warmup, log);
}

std::vector<ResultRow> compute_curve(const CurveOptions& o, std::ostream& log) {
  if (o.sizes.empty()) throw ConfigError("flashpq mrc: --sizes: expected at least one size");
  const std::map<std::string, SourcedValue> values = base_values(o);
  std::vector<CellConfig> cells;
  for (size_t i = 0; i < o.sizes.size(); ++i) cells.push_back(cell_at(values, o.sizes[i], i));
  return curve_of_cells(o, cells, log);
}

std::vector<ResultRow> compute_experiment_curves(const Experiment& ex, const CurveMethod& o,
                                                 std::ostream& log) {
  // The cells grouped by every parameter but cache.capacity, groups in order of first cell.
  std::vector<std::vector<std::pair<std::string, std::string>>> keys;
  std::vector<std::vector<CellConfig>> groups;
  for (const CellConfig& cell : ex.cells) {
    std::vector<std::pair<std::string, std::string>> key;
    for (const auto& kv : cell.parameters) {
      if (kv.first != "cache.capacity") key.push_back(kv);
    }
    const auto it = std::find(keys.begin(), keys.end(), key);
    if (it == keys.end()) {
      keys.push_back(std::move(key));
      groups.push_back({cell});
    } else {
      groups[static_cast<size_t>(it - keys.begin())].push_back(cell);
    }
  }
  std::vector<ResultRow> rows;
  for (size_t g = 0; g < groups.size(); ++g) {
    log << fmt::format("flashpq mrc: {}: curve {} of {}, {} sizes\n", ex.name, g + 1, groups.size(),
                       groups[g].size());
    for (ResultRow& r : curve_of_cells(o, groups[g], log)) rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace flashpq
