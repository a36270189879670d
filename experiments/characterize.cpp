#include "experiments/characterize.h"

#include <time.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include "devices/block/block_device.h"
#include "devices/simflash/simflash_device.h"
#include "engine/direct/direct.h"
#include "experiments/results.h"
#include "experiments/run/simulated_runner.h"
#include "experiments/run/wall_runner.h"
#include "fmt/format.h"
#include "sim/rng.h"

namespace flashpq {

namespace {

constexpr uint32_t kKiB = 1024, kMiB = 1024 * 1024;

IoPatternSpec pattern(const std::string& rw, uint32_t bs, uint32_t qd, uint32_t mix = 100) {
  IoPatternSpec p;
  p.rw = rw;
  p.bs = bs;
  p.iodepth = qd;
  p.rwmixread = rw == "randrw" ? mix : (rw == "randread" || rw == "read") ? 100 : 0;
  const std::string size =
      bs >= kMiB ? fmt::format("{}m", bs / kMiB) : fmt::format("{}k", bs / kKiB);
  p.name = fmt::format("{}{}_{}_qd{}", rw, rw == "randrw" ? std::to_string(mix) : "", size, qd);
  return p;
}

// The requests of one pattern: byte offsets (key, offset unit 1) over [0, region).
class CharacterizationSource {
 public:
  CharacterizationSource(const IoPatternSpec& p, uint64_t region, uint64_t seed, uint64_t limit)
      : p_(p), slots_(region / p.bs), limit_(limit), rng_(seed, RngStream::kBenchDeviceStream) {}
  bool next(Request& r) {
    if (count_ == limit_) return false;
    ++count_;
    const uint64_t slot = p_.random() ? rng_.below(slots_) : seq_;
    if (!p_.random() && ++seq_ == slots_) seq_ = 0;
    r = Request{};
    r.key = slot * p_.bs;
    r.size_bytes = p_.bs;
    const bool read = p_.rwmixread == 100 ? true
                      : p_.rwmixread == 0 ? false
                                          : rng_.below(100) < p_.rwmixread;
    r.op = read ? Op::kGet : Op::kSet;
    return true;
  }
  size_t read(std::span<Request> out) {
    size_t n = 0;
    while (n < out.size() && next(out[n])) ++n;
    return n;
  }

 private:
  IoPatternSpec p_;
  uint64_t slots_;
  uint64_t limit_;
  uint64_t count_ = 0, seq_ = 0;
  RngStream rng_;
};

// Completions over the measured interval, warm-up requests included. The runners' throughput
// counts the measured requests only, over an interval that also serves the warm-up's backlog:
// with a closed loop of depth q and n measured requests that is q / (n + q) low, 6 % for the
// short simulated runs of depth 32. Throughput here is every completion in the interval.
class CompletionWindow {
 public:
  explicit CompletionWindow(uint64_t warmup) : warmup_(warmup) {}
  void operator()(uint64_t index, uint64_t arrival_ns, uint64_t completion_ns) {
    if (index < warmup_) {  // at most `warmup` of them: kept to count those inside the window
      warmup_completions_.push_back(completion_ns);
      return;
    }
    if (index == warmup_) first_measured_arrival_ = arrival_ns;
    last_measured_completion_ = std::max(last_measured_completion_, completion_ns);
    ++measured_;
  }
  /// Completions per second in (first measured arrival, last measured completion]: every
  /// measured request (each arrives at or after the first and completes after it) and the
  /// warm-up requests that complete inside; 0 when nothing was measured.
  double per_second() const {
    if (last_measured_completion_ <= first_measured_arrival_) return 0;
    uint64_t n = measured_;
    for (const uint64_t t : warmup_completions_) {
      // (T1, T2]: the completion that let the first measured request in is not in it.
      n += t > first_measured_arrival_ && t <= last_measured_completion_;
    }
    return static_cast<double>(n) * 1e9 /
           static_cast<double>(last_measured_completion_ - first_measured_arrival_);
  }

 private:
  uint64_t warmup_;
  uint64_t first_measured_arrival_ = 0, last_measured_completion_ = 0, measured_ = 0;
  std::vector<uint64_t> warmup_completions_;
};

PatternMeasurement measurement(const IoPatternSpec& p, uint32_t repeat, const TimingMetrics& m,
                               const CompletionWindow& window) {
  PatternMeasurement out;
  out.pattern = p;
  out.repeat = repeat;
  out.runtime_s = m.seconds();
  out.ios = m.requests;
  out.iops = window.per_second();
  out.bw_mib_s = out.iops * p.bs / 1048576.0;
  out.lat_mean_us = m.all.mean_ns() / 1e3;
  out.lat_p50_us = static_cast<double>(m.all.percentile_ns(0.5)) / 1e3;
  out.lat_p99_us = static_cast<double>(m.all.percentile_ns(0.99)) / 1e3;
  out.lat_p99_9_us = static_cast<double>(m.all.percentile_ns(0.999)) / 1e3;
  return out;
}

std::string utc_now() {
  // Metadata only (the date of the measurement): never reaches a figure.
  const time_t t = time(nullptr);
  tm u{};
  gmtime_r(&t, &u);
  char buf[32];
  strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &u);
  return buf;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// The CSV columns, in order.
const std::vector<std::string>& columns() {
  static const std::vector<std::string> c = {
      "pattern",      "rw",          "bs",         "iodepth",      "rwmixread",
      "repeat",       "runtime_s",   "ios",        "iops",         "bw_mib_s",
      "lat_mean_us",  "lat_p50_us",  "lat_p99_us", "lat_p99_9_us", "device_path",
      "device_kind",  "kernel_name", "model",      "serial",       "device_size_bytes",
      "region_bytes", "engine",      "o_direct",   "date",         "flashpq_version",
      "seconds",      "repeats"};
  return c;
}

}  // namespace

const std::vector<IoPatternSpec>& characterization_plan() {
  static const std::vector<IoPatternSpec> plan = {
      pattern("randread", 4 * kKiB, 1),
      pattern("randread", 4 * kKiB, 4),
      pattern("randread", 4 * kKiB, 16),
      pattern("randread", 4 * kKiB, 32),
      pattern("read", 128 * kKiB, 1),
      pattern("read", 128 * kKiB, 32),
      pattern("read", kMiB, 1),
      pattern("read", kMiB, 32),
      pattern("randwrite", 4 * kKiB, 1),
      pattern("randwrite", 4 * kKiB, 32),
      pattern("write", kMiB, 1),
      pattern("write", kMiB, 32),
      pattern("randrw", 4 * kKiB, 16, 70),
  };
  return plan;
}

std::vector<PatternMeasurement> Characterization::medians() const {
  std::vector<PatternMeasurement> out;
  for (const IoPatternSpec& p : characterization_plan()) {
    std::vector<double> f[9];
    for (const PatternMeasurement& r : rows) {
      if (r.pattern.name != p.name) continue;
      const double v[9] = {r.runtime_s,
                           static_cast<double>(r.ios),
                           r.iops,
                           r.bw_mib_s,
                           r.lat_mean_us,
                           r.lat_p50_us,
                           r.lat_p99_us,
                           r.lat_p99_9_us,
                           0};
      for (int i = 0; i < 8; ++i) f[i].push_back(v[i]);
    }
    if (f[0].empty()) continue;
    PatternMeasurement m;
    m.pattern = p;
    m.repeat = 0;
    m.runtime_s = median(f[0]);
    m.ios = static_cast<uint64_t>(median(f[1]));
    m.iops = median(f[2]);
    m.bw_mib_s = median(f[3]);
    m.lat_mean_us = median(f[4]);
    m.lat_p50_us = median(f[5]);
    m.lat_p99_us = median(f[6]);
    m.lat_p99_9_us = median(f[7]);
    out.push_back(m);
  }
  return out;
}

std::string Characterization::identity_text() const {
  std::string s = model.empty() ? device_kind : model;
  if (!serial.empty()) s += " " + serial;
  if (!kernel_name.empty()) s += " (" + kernel_name + ")";
  return s;
}

void Characterization::validate(const std::string& file) const {
  const auto& plan = characterization_plan();
  for (const IoPatternSpec& p : plan) {
    const bool found = std::any_of(rows.begin(), rows.end(), [&](const PatternMeasurement& r) {
      return r.pattern.name == p.name;
    });
    if (!found) {
      throw std::invalid_argument(fmt::format(
          "{}: pattern '{}' is missing: a characterization holds every pattern of the plan "
          "(flashpq device characterize writes them all)",
          file, p.name));
    }
  }
  for (const PatternMeasurement& r : rows) {
    const bool known = std::any_of(
        plan.begin(), plan.end(), [&](const IoPatternSpec& p) { return p.name == r.pattern.name; });
    if (!known) {
      throw std::invalid_argument(fmt::format(
          "{}: pattern '{}' is not in the characterization plan", file, r.pattern.name));
    }
    const std::pair<const char*, double> figures[] = {{"runtime_s", r.runtime_s},
                                                      {"ios", static_cast<double>(r.ios)},
                                                      {"iops", r.iops},
                                                      {"bw_mib_s", r.bw_mib_s},
                                                      {"lat_mean_us", r.lat_mean_us},
                                                      {"lat_p50_us", r.lat_p50_us},
                                                      {"lat_p99_us", r.lat_p99_us},
                                                      {"lat_p99_9_us", r.lat_p99_9_us}};
    for (const auto& [name, v] : figures) {
      if (!std::isfinite(v) || v <= 0) {
        throw std::invalid_argument(
            fmt::format("{}: pattern '{}' repeat {}: {} expected a finite number > 0, found {}",
                        file, r.pattern.name, r.repeat, name, v));
      }
    }
  }
}

Characterization characterize_device(const BlockConfig& block, const CharacterizeOptions& o,
                                     std::ostream& log) {
  if (!(o.seconds > 0 && o.seconds <= 3600)) {
    throw std::invalid_argument(
        fmt::format("--seconds: expected a number in (0, 3600], found {}", o.seconds));
  }
  if (o.repeats < 1 || o.repeats > 100) {
    throw std::invalid_argument(
        fmt::format("--repeats: expected an integer in [1, 100], found {}", o.repeats));
  }
  uint64_t region = o.region_bytes;
  if (region == 0) {
    // A missing file is created with 1 GiB; an existing file or device gives at most that.
    const uint64_t size =
        std::filesystem::exists(block.path) ? inspect_device(block.path).geometry.size_bytes : 0;
    region = std::min<uint64_t>(size == 0 ? 1ull << 30 : size, 1ull << 30);
  }
  region = region / kMiB * kMiB;
  if (region < 2 * kMiB) {
    throw std::invalid_argument(fmt::format(
        "--region: expected at least 2 MiB of the device to measure, found {} bytes", region));
  }
  BlockConfig bc = block;
  bc.capacity_bytes = region;
  bc.queue_depth = 32;
  bc.max_io_bytes = kMiB;
  BlockDevice dev(bc);

  Characterization c;
  const DeviceIdentity& id = dev.report().identity;
  c.device_path = id.path;
  c.device_kind = id.block_device ? "block_device" : "file";
  c.kernel_name = id.kernel_name;
  c.model = id.model;
  c.serial = !id.serial.empty() ? id.serial : id.wwid;
  // (A file the device created reports its size at open, 0: it has the region now.)
  c.device_size_bytes = std::max<uint64_t>(dev.report().geometry.size_bytes, region);
  c.region_bytes = region;
  c.engine = io_engine_name(dev.engine());
  c.o_direct = dev.o_direct();
  c.date = utc_now();
  c.flashpq_version = FLASHPQ_VERSION;
  c.seconds = o.seconds;
  c.repeats = o.repeats;

  auto run = [&](const IoPatternSpec& p, double seconds, uint64_t limit, CompletionWindow& window) {
    CharacterizationSource source(p, region, o.seed, limit);
    TimingConfig timing;
    timing.mode = TimingMode::kWall;
    timing.arrival = ArrivalProcess::kClosedLoop;
    timing.clients = p.iodepth;
    WallOptions wo;
    wo.offset_unit_bytes = 1;
    wo.max_seconds = seconds;
    return run_wall(
        dev, timing, source, p.iodepth, wo, [] {}, std::ref(window));
  };
  // 1. Preconditioning: one sequential pass of 1 MiB writes at queue depth 32.
  IoPatternSpec fill = pattern("write", kMiB, 32);
  log << fmt::format("characterize {}: preconditioning {} MiB (sequential 1 MiB writes, qd 32)\n",
                     c.device_path, region / kMiB)
      << std::flush;
  CompletionWindow fill_window(fill.iodepth);
  run(fill, 0, region / kMiB, fill_window);
  // 2. The plan.
  for (const IoPatternSpec& p : characterization_plan()) {
    for (uint32_t r = 1; r <= o.repeats; ++r) {
      CompletionWindow window(p.iodepth);
      const WallResult w = run(p, o.seconds, UINT64_MAX, window);
      PatternMeasurement m = measurement(p, r, w.timing, window);
      log << fmt::format(
                 "  {:<20} repeat {}: {:>9.0f} IOPS {:>8.1f} MiB/s  lat mean {:.1f} p50 "
                 "{:.1f} p99 {:.1f} p99.9 {:.1f} us\n",
                 p.name, r, m.iops, m.bw_mib_s, m.lat_mean_us, m.lat_p50_us, m.lat_p99_us,
                 m.lat_p99_9_us)
          << std::flush;
      c.rows.push_back(m);
    }
  }
  c.validate(c.device_path);
  return c;
}

std::vector<PatternMeasurement> simulate_plan(const SimFlashConfig& config,
                                              const std::vector<IoPatternSpec>& patterns,
                                              const SimulatedPlanOptions& o) {
  if (!(o.scale > 0 && o.scale <= 100)) {
    throw std::invalid_argument(fmt::format("scale: expected (0, 100], found {}", o.scale));
  }
  SimFlashConfig sc = config;
  sc.blocks_per_plane = simflash_blocks_per_plane_for(sc, o.region_bytes);
  SimFlashDevice dev(sc);
  const uint64_t region = o.region_bytes / kMiB * kMiB;
  // The functional fill: every page of the region written once, in order (no time).
  for (uint64_t off = 0; off < region; off += kMiB) dev.write(off, kMiB);
  std::vector<PatternMeasurement> out;
  for (const IoPatternSpec& p : patterns) {
    // Enough I/O for a steady state: ≥ 8 rounds of the queue and ≥ 2 MiB for the small
    // patterns, 64 MiB at most per pattern.
    const uint64_t by_rounds = 8ull * p.iodepth + 32;
    const uint64_t by_bytes = std::max<uint64_t>(2ull * kMiB / p.bs, 1);
    const uint64_t cap = std::max<uint64_t>(64ull * kMiB / p.bs, by_rounds);
    const auto n = static_cast<uint64_t>(
        std::ceil(o.scale * static_cast<double>(std::min(std::max(by_rounds, by_bytes), cap))));
    CharacterizationSource source(p, region, o.seed, n + p.iodepth);
    TimingConfig timing;
    timing.mode = TimingMode::kSimulated;
    timing.arrival = ArrivalProcess::kClosedLoop;
    timing.clients = p.iodepth;
    CompletionWindow window(p.iodepth);
    const TimedRunResult r = run_timed(
        dev, timing, p.iodepth, o.seed, source,
        [&](const Request& q, uint64_t i) { direct_issue(dev, q, 1, i); }, std::ref(window));
    out.push_back(measurement(p, 1, r.metrics, window));
  }
  return out;
}

Characterization characterize_simflash(const SimFlashConfig& config,
                                       const SimulatedPlanOptions& options) {
  Characterization c;
  c.device_path = "simflash";
  c.device_kind = "simflash";
  c.model = fmt::format("simflash {}x{}x{} tR {} tPROG {} bw {} host {}", config.channels,
                        config.dies_per_channel, config.planes_per_die, config.tR_us,
                        config.tPROG_us, config.channel_bandwidth_mib_s, config.host_overhead_us);
  c.device_size_bytes = options.region_bytes;
  c.region_bytes = options.region_bytes;
  c.engine = "simulated";
  c.date = "";
  c.flashpq_version = FLASHPQ_VERSION;
  c.repeats = 1;
  c.rows = simulate_plan(config, characterization_plan(), options);
  return c;
}

void write_characterization(const Characterization& c, std::ostream& out) {
  const auto& cols = columns();
  for (size_t i = 0; i < cols.size(); ++i) out << (i ? "," : "") << cols[i];
  out << "\n";
  for (const PatternMeasurement& r : c.rows) {
    const IoPatternSpec& p = r.pattern;
    out << fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},", p.name, p.rw, p.bs, p.iodepth,
                       p.rwmixread, r.repeat, r.runtime_s, r.ios, r.iops, r.bw_mib_s, r.lat_mean_us,
                       r.lat_p50_us, r.lat_p99_us, r.lat_p99_9_us)
        << fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{}\n", csv_field(c.device_path),
                       c.device_kind, csv_field(c.kernel_name), csv_field(c.model),
                       csv_field(c.serial), c.device_size_bytes, c.region_bytes, c.engine,
                       c.o_direct ? "true" : "false", c.date, c.flashpq_version, c.seconds,
                       c.repeats);
  }
}

Characterization read_characterization(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument(path + ": cannot read the characterization file");
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (data.empty()) throw std::invalid_argument(path + ": empty, expected a CSV header");
  if (data.back() != '\n') data += '\n';  // a last line without its line break is whole here
  std::vector<CsvRecord> records;
  bool truncated = false;
  try {
    records = split_csv(data, path, truncated);
  } catch (const std::runtime_error& e) {
    throw std::invalid_argument(e.what());
  }
  // The data ends in '\n', so a last record without its line break is one whose quoted field
  // never closes.
  if (truncated) {
    throw std::invalid_argument(fmt::format("{}:{}: a quoted field is not closed before the end",
                                            path, records.empty() ? 1 : records.back().line + 1));
  }
  const std::vector<std::string>& header = records.front().fields;
  std::map<std::string, size_t> at;
  for (size_t i = 0; i < header.size(); ++i) {
    if (std::find(columns().begin(), columns().end(), header[i]) == columns().end()) {
      throw std::invalid_argument(
          fmt::format("{}:1: unknown column '{}' (a characterization has: {})", path, header[i],
                      fmt::join(columns(), ", ")));
    }
    at[header[i]] = i;
  }
  for (const std::string& col : columns()) {
    if (!at.count(col)) {
      throw std::invalid_argument(fmt::format("{}:1: column '{}' is missing", path, col));
    }
  }
  Characterization c;
  bool first = true;
  for (size_t k = 1; k < records.size(); ++k) {
    const size_t lineno = records[k].line;
    if (records[k].text.empty()) continue;
    const std::vector<std::string>& f = records[k].fields;
    if (f.size() != header.size()) {
      throw std::invalid_argument(fmt::format("{}:{}: expected {} fields, found {}", path, lineno,
                                              header.size(), f.size()));
    }
    auto text = [&](const char* col) -> const std::string& { return f[at.at(col)]; };
    auto number = [&](const char* col) {
      const std::string& t = text(col);
      size_t used = 0;
      double v = 0;
      try {
        v = std::stod(t, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != t.size() || t.empty() || !std::isfinite(v)) {
        throw std::invalid_argument(fmt::format(
            "{}:{}: column '{}': expected a finite number, found '{}'", path, lineno, col, t));
      }
      return v;
    };
    // A whole number in [0, max]: checked before the conversion (a negative or huge double
    // converted to an integer type is undefined).
    auto whole = [&](const char* col, double max) {
      const double v = number(col);
      if (v < 0 || v > max || v != std::floor(v)) {
        throw std::invalid_argument(
            fmt::format("{}:{}: column '{}': expected a whole number in [0, {}], found '{}'", path,
                        lineno, col, max, text(col)));
      }
      return v;
    };
    PatternMeasurement r;
    r.pattern.name = text("pattern");
    r.pattern.rw = text("rw");
    r.pattern.bs = static_cast<uint32_t>(whole("bs", 4294967295.0));
    r.pattern.iodepth = static_cast<uint32_t>(whole("iodepth", 4294967295.0));
    r.pattern.rwmixread = static_cast<uint32_t>(whole("rwmixread", 100));
    r.repeat = static_cast<uint32_t>(whole("repeat", 4294967295.0));
    r.runtime_s = number("runtime_s");
    r.ios = static_cast<uint64_t>(whole("ios", 9007199254740992.0));
    r.iops = number("iops");
    r.bw_mib_s = number("bw_mib_s");
    r.lat_mean_us = number("lat_mean_us");
    r.lat_p50_us = number("lat_p50_us");
    r.lat_p99_us = number("lat_p99_us");
    r.lat_p99_9_us = number("lat_p99_9_us");
    for (const IoPatternSpec& p : characterization_plan()) {
      if (p.name == r.pattern.name &&
          (p.rw != r.pattern.rw || p.bs != r.pattern.bs || p.iodepth != r.pattern.iodepth ||
           p.rwmixread != r.pattern.rwmixread)) {
        throw std::invalid_argument(fmt::format(
            "{}:{}: pattern '{}': expected rw {} bs {} iodepth {} rwmixread {}, found {} {} {} {}",
            path, lineno, p.name, p.rw, p.bs, p.iodepth, p.rwmixread, r.pattern.rw, r.pattern.bs,
            r.pattern.iodepth, r.pattern.rwmixread));
      }
    }
    const std::string identity = text("device_path") + "|" + text("kernel_name") + "|" +
                                 text("model") + "|" + text("serial");
    if (first) {
      c.device_path = text("device_path");
      c.device_kind = text("device_kind");
      c.kernel_name = text("kernel_name");
      c.model = text("model");
      c.serial = text("serial");
      c.device_size_bytes = static_cast<uint64_t>(whole("device_size_bytes", 9007199254740992.0));
      c.region_bytes = static_cast<uint64_t>(whole("region_bytes", 9007199254740992.0));
      c.engine = text("engine");
      c.o_direct = text("o_direct") == "true";
      c.date = text("date");
      c.flashpq_version = text("flashpq_version");
      c.seconds = number("seconds");
      c.repeats = static_cast<uint32_t>(whole("repeats", 4294967295.0));
      first = false;
    } else if (identity != c.device_path + "|" + c.kernel_name + "|" + c.model + "|" + c.serial) {
      throw std::invalid_argument(
          fmt::format("{}:{}: a characterization is of one device: expected '{}', found '{}'", path,
                      lineno, c.device_path + " " + c.model + " " + c.serial,
                      text("device_path") + " " + text("model") + " " + text("serial")));
    }
    c.rows.push_back(r);
  }
  c.validate(path);
  return c;
}

}  // namespace flashpq
