#include "experiments/experiment.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "devices/block/safety.h"
#include "fmt/format.h"

namespace flashpq {

namespace fs = std::filesystem;

namespace {

std::vector<std::string> names_of(const std::vector<std::string>& v) {
  return v;
}

std::vector<KeySpec> build_schema() {
  using VT = ValueType;
  return {
      {"trace.path",
       VT::kPath,
       "",
       "path",
       "trace file (plain or zstd-compressed); required unless format is generator",
       {},
       0,
       0,
       true},
      {"trace.format", VT::kEnum, "oracleGeneral", "", "trace format",
       names_of(trace_format_names())},
      {"trace.time_col",
       VT::kInt,
       "0",
       "column",
       "csv: 1-based time column, 0 = none",
       {},
       0,
       4096},
      {"trace.key_col",
       VT::kInt,
       "0",
       "column",
       "csv: 1-based key column (required for csv)",
       {},
       0,
       4096},
      {"trace.size_col",
       VT::kInt,
       "0",
       "column",
       "csv: 1-based size column, 0 = every size 1",
       {},
       0,
       4096},
      {"trace.op_col",
       VT::kInt,
       "0",
       "column",
       "csv: 1-based op column, 0 = every op a get",
       {},
       0,
       4096},
      {"trace.header", VT::kBool, "false", "", "csv: first line is a header", {}},
      {"trace.delimiter", VT::kChar, ",", "", "csv: field delimiter (one character)", {}},
      {"trace.key_is_numeric",
       VT::kBool,
       "true",
       "",
       "csv: keys are decimal integers (false: hash the key text)",
       {}},
      {"trace.time_unit",
       VT::kEnum,
       "s",
       "",
       "csv and kvcache_csv: unit of the time column",
       {"s", "ms", "us", "ns"}},
      {"trace.generator",
       VT::kEnum,
       "device_io",
       "",
       "generator: the request generator",
       {"device_io"}},
      {"trace.pattern",
       VT::kEnum,
       "uniform_random",
       "",
       "device_io: offsets of the I/Os after the fill",
       {"sequential", "uniform_random"}},
      {"trace.op", VT::kEnum, "write", "", "device_io: the I/Os after the fill", {"write", "read"}},
      {"trace.io_size", VT::kSize, "4KiB", "bytes", "device_io: bytes per I/O, and alignment", {}},
      {"trace.requests",
       VT::kInt,
       "1000000",
       "requests",
       "device_io: I/Os after the fill",
       {},
       1,
       1125899906842624.0},
      {"trace.fill",
       VT::kBool,
       "true",
       "",
       "device_io: write the whole exported space sequentially first (always warm-up)",
       {}},
      {"seed",
       VT::kInt,
       "1",
       "",
       "seed of every random stream of the cell",
       {},
       0,
       9007199254740992.0},
      {"warmup",
       VT::kFraction,
       "0",
       "fraction",
       "fraction of requests excluded from the metrics, in [0, 1)",
       {}},
      {"cache.capacity",
       VT::kCapacity,
       "0.1",
       "bytes or fraction",
       "bytes with a unit (256MiB, 4KiB; a plain integer is bytes) or, written with a decimal "
       "point, a fraction in (0, 1] of the working set (sum of first-seen sizes)",
       {}},
      {"cache.unit_size",
       VT::kBool,
       "false",
       "",
       "count every object as size 1 (capacity in objects)",
       {}},
      {"cache.on_size_change",
       VT::kEnum,
       "keep",
       "",
       "a get whose size differs from the cached copy: keep = hit, copy keeps its size "
       "(libCacheSim); update = miss, reinsert with the new size",
       {"keep", "update"}},
      {"policy.name", VT::kEnum, "lru", "", "caching policy", names_of(policy_names())},
      {"policy.segments", VT::kInt, "3", "", "L: SLRU segments, GDSF frequency cap", {}, 1, 64},
      {"admission.name", VT::kEnum, "none", "", "admission policy", {"none", "tinylfu"}},
      {"admission.sample_factor",
       VT::kInt,
       "10",
       "",
       "tinylfu: additions between halvings, per expected object (Caffeine: 10)",
       {},
       1,
       1000},
      {"admission.counters_multiplier",
       VT::kFloat,
       "1",
       "",
       "tinylfu: sketch words per expected object, in (0, 64] (Caffeine: 1.0)",
       {},
       1e-9,
       64},
      {"admission.doorkeeper",
       VT::kBool,
       "false",
       "",
       "tinylfu: Bloom-filter doorkeeper in front of the sketch (Caffeine: off)",
       {}},
      {"admission.doorkeeper_insertions_multiplier",
       VT::kFloat,
       "3",
       "",
       "tinylfu doorkeeper: insertions per expected object, in (0, 64]",
       {},
       1e-9,
       64},
      {"admission.doorkeeper_fpp",
       VT::kFloat,
       "0.01",
       "",
       "tinylfu doorkeeper: false-positive probability, in (0, 0.5]",
       {},
       1e-9,
       0.5},
      {"framework.name", VT::kEnum, "exact", "", "priority-queue framework",
       names_of(framework_names())},
      {"framework.placement",
       VT::kEnum,
       "none",
       "",
       "exact: none = in memory; naive = each object written alone at the lowest free aligned "
       "offset, trimmed on eviction (RIPQ paper 4.2)",
       {"none", "naive"}},
      {"framework.placement_alignment",
       VT::kSize,
       "4KiB",
       "bytes",
       "exact, naive placement: alignment of each object's extent (a power of two)",
       {}},
      {"framework.block_size",
       VT::kSize,
       "1MiB",
       "bytes",
       "ripq, sipq: device block size B (objects in unit-size mode)",
       {}},
      {"framework.insertion_points",
       VT::kInt,
       "8",
       "",
       "ripq: insertion points K (alpha = 1/K)",
       {},
       1,
       64},
      {"framework.reserved_blocks",
       VT::kInt,
       "10",
       "blocks",
       "ripq: free device blocks kept for sealing",
       {},
       1,
       1000},
      {"framework.materialize_threshold",
       VT::kFraction,
       "0",
       "fraction",
       "ripq: objects below this relative priority are evicted, not materialized, in [0, 1)",
       {}},
      {"framework.histogram_bins",
       VT::kInt,
       "100",
       "",
       "ripq: bins of the absolute-priority histogram (kappa)",
       {},
       2,
       100000},
      {"framework.occupancy",
       VT::kUnitInterval,
       "0.5",
       "fraction",
       "sipq: logical occupancy theta, share of capacity in the virtual cache, in [0, 1]",
       {}},
      {"framework.read_hits",
       VT::kBool,
       "true",
       "",
       "a cache hit reads the object from the device where it is on flash (ripq, sipq, exact "
       "naive; RAM buffers and placement none read nothing)",
       {}},
      {"framework.offset_unit",
       VT::kSize,
       "1",
       "bytes",
       "direct: bytes per unit of the trace's key (byte offset = key x unit; 512 for sector "
       "numbers)",
       {}},
      {"device.name", VT::kEnum, "null", "", "device", names_of(device_names())},
      // simflash: a profile, then any of its fields overridden key by key (unset = the
      // profile's value, shown resolved in the results row). Fields in
      // devices/simflash/simflash_config.h.
      {"device.profile", VT::kEnum, "tiny", "", "simflash: base geometry and timings",
       names_of(simflash_profile_names())},
      {"device.channels", VT::kInt, "", "", "simflash: flash channels", {}, 1, 1024, true},
      {"device.dies_per_channel",
       VT::kInt,
       "",
       "",
       "simflash: dies on each channel",
       {},
       1,
       1024,
       true},
      {"device.planes_per_die", VT::kInt, "", "", "simflash: planes in each die", {}, 1, 64, true},
      {"device.blocks_per_plane",
       VT::kInt,
       "",
       "blocks",
       "simflash: erase blocks per plane = superblocks",
       {},
       2,
       16777216,
       true},
      {"device.pages_per_block",
       VT::kInt,
       "",
       "pages",
       "simflash: pages per erase block",
       {},
       1,
       65535,
       true},
      {"device.page_size",
       VT::kSize,
       "",
       "bytes",
       "simflash: page size = mapping unit = logical block (power of two, 512B..1MiB)",
       {},
       0,
       0,
       true},
      {"device.utilization",
       VT::kFloat,
       "",
       "fraction",
       "simflash: rho = exported / physical pages, in (0, 1)",
       {},
       1e-9,
       0.999999999,
       true},
      {"device.over_provisioning",
       VT::kFloat,
       "",
       "fraction",
       "simflash: (physical - exported) / exported, instead of utilization",
       {},
       1e-9,
       1000,
       true},
      {"device.gc_policy",
       VT::kEnum,
       "",
       "",
       "simflash: GC victim selection",
       {"greedy", "fifo", "cost_benefit", "d_choices"},
       0,
       0,
       true},
      {"device.gc_d",
       VT::kInt,
       "",
       "",
       "simflash, d_choices: candidates per victim",
       {},
       1,
       1024,
       true},
      {"device.gc_stream",
       VT::kEnum,
       "",
       "",
       "simflash: frontier of GC copies",
       {"separate", "shared"},
       0,
       0,
       true},
      {"device.gc_low_watermark",
       VT::kInt,
       "",
       "superblocks",
       "simflash: GC starts below this many free superblocks",
       {},
       1,
       16777216,
       true},
      {"device.gc_high_watermark",
       VT::kInt,
       "",
       "superblocks",
       "simflash: GC runs until this many are free",
       {},
       1,
       16777216,
       true},
      {"device.tR_us", VT::kFloat, "", "us", "simflash: page read latency", {}, 0, 1e9, true},
      {"device.tPROG_us", VT::kFloat, "", "us", "simflash: page program latency", {}, 0, 1e9, true},
      {"device.tBERS_us", VT::kFloat, "", "us", "simflash: block erase latency", {}, 0, 1e9, true},
      {"device.channel_bandwidth_mib_s",
       VT::kFloat,
       "",
       "MiB/s",
       "simflash: transfer rate of one channel (0 = instant)",
       {},
       0,
       1e9,
       true},
      // block: a real file or block device; unset keys take BlockConfig's defaults, shown
      // resolved in the results row. Fields in devices/block/block_config.h.
      {"device.path",
       VT::kPath,
       "",
       "path",
       "block: file or block device (required; a missing file is created with device.capacity)",
       {},
       0,
       0,
       true},
      {"device.capacity",
       VT::kSize,
       "",
       "bytes",
       "block: bytes used from offset 0 (default: the whole device or file)",
       {},
       0,
       0,
       true},
      {"device.engine",
       VT::kEnum,
       "",
       "",
       "block: I/O engine (default io_uring)",
       {"io_uring", "psync"},
       0,
       0,
       true},
      {"device.queue_depth",
       VT::kInt,
       "",
       "",
       "block: I/Os in flight at most (default 32)",
       {},
       1,
       4096,
       true},
      {"device.max_io_size",
       VT::kSize,
       "",
       "bytes",
       "block: largest single I/O, longer requests go as pieces (default 1MiB; power of two)",
       {},
       0,
       0,
       true},
      {"device.o_direct",
       VT::kBool,
       "",
       "",
       "block: O_DIRECT (default true; buffered if the filesystem refuses, said in block_notes)",
       {},
       0,
       0,
       true},
      {"device.registered_buffers",
       VT::kBool,
       "",
       "",
       "block: io_uring registered buffers and file (default true)",
       {},
       0,
       0,
       true},
      {"device.verify",
       VT::kBool,
       "",
       "",
       "block: headers with CRC32C on every written block, checked on every read (default "
       "false)",
       {},
       0,
       0,
       true},
      {"device.discard_before_run",
       VT::kBool,
       "",
       "",
       "block: discard the whole capacity before the run (default false)",
       {},
       0,
       0,
       true},
      {"device.nvme_counters",
       VT::kBool,
       "",
       "",
       "block: read the NVMe drive's write counters for wa_device (default true)",
       {},
       0,
       0,
       true},
      // Timed runs (sim/timing.h): the arrival keys apply when mode is not none.
      {"timing.mode",
       VT::kEnum,
       "none",
       "",
       "none = functional (counts only); simulated = discrete-event time on simflash; wall = "
       "the wall clock on device block (which is timed anyway: with none, framework direct "
       "keeps device.queue_depth requests in flight)",
       {"none", "simulated", "wall"}},
      {"timing.arrival",
       VT::kEnum,
       "closed_loop",
       "",
       "closed_loop = `clients` requests in flight; trace = the trace's timestamps x time_scale; "
       "constant or poisson = open loop at `rate`",
       {"closed_loop", "trace", "constant", "poisson"}},
      {"timing.clients",
       VT::kInt,
       "1",
       "requests",
       "closed_loop: clients (queue depth)",
       {},
       1,
       65536},
      {"timing.think_time_us",
       VT::kFloat,
       "0",
       "us",
       "closed_loop: delay between a completion and the client's next request",
       {},
       0,
       1e12},
      {"timing.rate",
       VT::kFloat,
       "1000",
       "requests/s",
       "constant, poisson: arrival rate",
       {},
       1e-6,
       1e12},
      {"timing.time_scale",
       VT::kFloat,
       "1",
       "",
       "trace: multiplies inter-arrival times",
       {},
       1e-9,
       1e9},
  };
}

std::string join(const std::vector<std::string>& v, const char* sep = ", ") {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + v[i];
  return out;
}

const KeySpec* find_spec(const std::string& key) {
  for (const auto& s : experiment_schema()) {
    if (s.key == key) return &s;
  }
  return nullptr;
}

[[noreturn]] void fail(const std::string& where, const std::string& key,
                       const std::string& expected, const std::string& found) {
  throw ConfigError(
      fmt::format("{}: key '{}': expected {}, found '{}'", where, key, expected, found));
}

std::string allowed_keys_under(const std::string& section) {
  std::vector<std::string> keys;
  for (const auto& s : experiment_schema()) {
    if (section.empty() ? s.key.find('.') == std::string::npos
                        : s.key.rfind(section + ".", 0) == 0) {
      keys.push_back(section.empty() ? s.key : s.key.substr(section.size() + 1));
    }
  }
  if (section.empty()) {
    for (const char* k : {"name", "output", "matrix", "zip", "exclude", "trace", "cache", "policy",
                          "admission", "framework", "device", "timing"}) {
      keys.emplace_back(k);
    }
  }
  return join(keys);
}

// YAML reads `null` and `~` as a null node; `device: {name: null}` means the device "null".
bool is_scalar(const YAML::Node& n) {
  return n.IsScalar() || n.IsNull();
}
std::string scalar_text(const YAML::Node& n) {
  return n.IsNull() ? "null" : n.Scalar();
}

std::string where_of(const std::string& file, const YAML::Node& node) {
  return fmt::format("{}:{}", file, node.Mark().line + 1);
}

bool parse_bool(const std::string& t, bool* out) {
  if (t == "true" || t == "True" || t == "yes") return *out = true, true;
  if (t == "false" || t == "False" || t == "no") return *out = false, true;
  return false;
}

bool parse_double(const std::string& t, double* out) {
  const char* b = t.data();
  const char* e = b + t.size();
  auto [p, ec] = std::from_chars(b, e, *out);
  return ec == std::errc() && p == e && std::isfinite(*out);
}

bool parse_int(const std::string& t, int64_t* out) {
  const char* b = t.data();
  const char* e = b + t.size();
  auto [p, ec] = std::from_chars(b, e, *out);
  return ec == std::errc() && p == e;
}

// Checks `text` against the spec's type; throws ConfigError naming where and what is allowed.
void check_value(const KeySpec& s, const SourcedValue& v) {
  const std::string& t = v.text;
  switch (s.type) {
    case ValueType::kString:
      return;
    case ValueType::kPath:
      if (t.empty()) fail(v.where, s.key, "a file path", t);
      return;
    case ValueType::kEnum:
      if (std::find(s.allowed.begin(), s.allowed.end(), t) == s.allowed.end()) {
        fail(v.where, s.key, "one of " + join(s.allowed), t);
      }
      return;
    case ValueType::kInt: {
      int64_t x;
      if (!parse_int(t, &x) || x < s.min || x > s.max) {
        fail(v.where, s.key, fmt::format("an integer in [{}, {}]", s.min, s.max), t);
      }
      return;
    }
    case ValueType::kFloat: {
      double x;
      if (!parse_double(t, &x) || x < s.min || x > s.max) {
        fail(v.where, s.key, fmt::format("a number in [{}, {}]", s.min, s.max), t);
      }
      return;
    }
    case ValueType::kBool: {
      bool b;
      if (!parse_bool(t, &b)) fail(v.where, s.key, "true or false", t);
      return;
    }
    case ValueType::kFraction: {
      double x;
      if (!parse_double(t, &x) || x < 0 || x >= 1) fail(v.where, s.key, "a number in [0, 1)", t);
      return;
    }
    case ValueType::kUnitInterval: {
      double x;
      if (!parse_double(t, &x) || x < 0 || x > 1) fail(v.where, s.key, "a number in [0, 1]", t);
      return;
    }
    case ValueType::kSize:
      try {
        if (parse_size(t) == 0) fail(v.where, s.key, "a size of at least 1 byte", t);
      } catch (const std::invalid_argument&) {
        fail(v.where, s.key, "a size with a unit (1MiB, 4KiB; a plain integer is bytes)", t);
      }
      return;
    case ValueType::kChar:
      if (t.size() != 1) fail(v.where, s.key, "exactly one character", t);
      return;
    case ValueType::kCapacity: {
      const std::string expected =
          "a size with a unit (256MiB, 4KiB, 4096 = bytes) or a fraction in (0, 1] written "
          "with a decimal point (0.1)";
      if (t.find('.') != std::string::npos) {
        double x;
        if (!parse_double(t, &x) || !(x > 0 && x <= 1)) fail(v.where, s.key, expected, t);
      } else {
        try {
          const uint64_t bytes = parse_size(t);
          if (bytes == 0 || bytes > (uint64_t{1} << 62)) {
            fail(v.where, s.key, expected + ", at least 1 byte and at most 4 EiB (2^62 bytes)", t);
          }
        } catch (const std::invalid_argument&) {
          fail(v.where, s.key, expected, t);
        }
      }
      return;
    }
  }
}

struct ParsedFile {
  std::string name;
  std::string output;
  std::map<std::string, SourcedValue> base;
  std::vector<std::pair<std::string, std::vector<SourcedValue>>> matrix;  // in file order
  // zip: lists of one length that vary together, as one axis after the matrix's.
  std::vector<std::pair<std::string, std::vector<SourcedValue>>> zip;
  std::string zip_where;
  // exclude: each entry drops the cells whose value of every key it names is one of its values.
  struct Exclusion {
    std::string where;
    std::map<std::string, std::vector<SourcedValue>> values;  // key -> the values it matches
  };
  std::vector<Exclusion> exclude;
};

// exclude: a list of mappings from dotted keys to a value or a list of values.
std::vector<ParsedFile::Exclusion> parse_exclude(const std::string& where, const YAML::Node& val,
                                                 const std::string& file) {
  const char* expected = "a list of mappings from dotted keys to a value or a list of values";
  if (!val.IsSequence() || val.size() == 0) fail(where, "exclude", expected, YAML::Dump(val));
  std::vector<ParsedFile::Exclusion> out;
  for (const auto& entry : val) {
    const std::string ewhere = where_of(file, entry);
    if (!entry.IsMap() || entry.size() == 0) fail(ewhere, "exclude", expected, YAML::Dump(entry));
    ParsedFile::Exclusion e{ewhere, {}};
    for (const auto& kv : entry) {
      const std::string key = kv.first.Scalar();
      const std::string kwhere = where_of(file, kv.first);
      if (!find_spec(key)) {
        std::vector<std::string> k;
        for (const auto& s : experiment_schema()) k.push_back(s.key);
        throw ConfigError(
            fmt::format("{}: unknown exclude key '{}' (allowed: {})", kwhere, key, join(k)));
      }
      if (e.values.count(key)) throw ConfigError(kwhere + ": key '" + key + "' given twice");
      auto& vals = e.values[key];
      if (is_scalar(kv.second)) {
        vals.push_back({scalar_text(kv.second), kwhere});
      } else if (kv.second.IsSequence() && kv.second.size() > 0) {
        for (const auto& item : kv.second) {
          if (!is_scalar(item)) fail(where_of(file, item), key, "a scalar value", YAML::Dump(item));
          vals.push_back({scalar_text(item), where_of(file, item)});
        }
      } else {
        fail(kwhere, key, "a value or a non-empty list of values", YAML::Dump(kv.second));
      }
    }
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<SourcedValue> list_values(const std::string& where_key, const std::string& key,
                                      const YAML::Node& seq, const std::string& file) {
  std::vector<SourcedValue> out;
  if (!seq.IsSequence() || seq.size() == 0) {
    fail(where_key, key, "a non-empty list of values under matrix:", YAML::Dump(seq));
  }
  for (const auto& item : seq) {
    if (!is_scalar(item)) fail(where_of(file, item), key, "a scalar value", YAML::Dump(item));
    out.push_back({scalar_text(item), where_of(file, item)});
  }
  return out;
}

ParsedFile parse_file(const std::string& file) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(file);
  } catch (const YAML::BadFile&) {
    throw ConfigError(file + ": cannot open the experiment file");
  } catch (const YAML::Exception& e) {
    throw ConfigError(fmt::format("{}:{}: YAML syntax error: {}", file, e.mark.line + 1, e.msg));
  }
  if (!root.IsMap()) throw ConfigError(file + ": expected a YAML mapping at the top level");
  ParsedFile pf;
  pf.name = fs::path(file).stem().string();
  std::set<std::string> top_keys;
  for (const auto& kv : root) {
    const std::string key = kv.first.Scalar();
    const YAML::Node& val = kv.second;
    const std::string where = where_of(file, kv.first);
    if (!top_keys.insert(key).second) throw ConfigError(where + ": key '" + key + "' given twice");
    if (key == "name" || key == "output") {
      if (!val.IsScalar()) fail(where, key, "a string", YAML::Dump(val));
      (key == "name" ? pf.name : pf.output) = val.Scalar();
    } else if (key == "matrix" || key == "zip") {
      if (!val.IsMap()) fail(where, key, "a mapping of dotted keys to lists", YAML::Dump(val));
      auto& axes = key == "matrix" ? pf.matrix : pf.zip;
      if (key == "zip") pf.zip_where = where;
      for (const auto& axis : val) {
        const std::string akey = axis.first.Scalar();
        const std::string awhere = where_of(file, axis.first);
        if (!find_spec(akey)) {
          throw ConfigError(
              fmt::format("{}: unknown matrix key '{}' (allowed: {})", awhere, akey, [] {
                std::vector<std::string> k;
                for (const auto& s : experiment_schema()) k.push_back(s.key);
                return join(k);
              }()));
        }
        for (const auto* group : {&pf.matrix, &pf.zip}) {
          for (const auto& [k, _] : *group) {
            if (k == akey) {
              throw ConfigError(awhere + ": key '" + akey + "' given twice under matrix/zip");
            }
          }
        }
        axes.emplace_back(akey, list_values(awhere, akey, axis.second, file));
      }
    } else if (key == "exclude") {
      pf.exclude = parse_exclude(where, val, file);
    } else if (!val.IsMap() && !find_spec(key) && !allowed_keys_under(key).empty()) {
      fail(where, key, "a mapping of " + key + " keys (" + allowed_keys_under(key) + ")",
           is_scalar(val) ? scalar_text(val) : YAML::Dump(val));
    } else if (val.IsMap()) {
      const std::string allowed = allowed_keys_under(key);
      if (allowed.empty()) {
        throw ConfigError(
            fmt::format("{}: unknown key '{}' (allowed: {})", where, key, allowed_keys_under("")));
      }
      for (const auto& sub : val) {
        const std::string full = key + "." + sub.first.Scalar();
        const std::string swhere = where_of(file, sub.first);
        if (!find_spec(full)) {
          throw ConfigError(fmt::format("{}: unknown key '{}' (allowed under {}: {})", swhere, full,
                                        key, allowed));
        }
        if (!is_scalar(sub.second)) {
          fail(swhere, full, "a scalar (lists belong under matrix:)", YAML::Dump(sub.second));
        }
        if (pf.base.count(full)) throw ConfigError(swhere + ": key '" + full + "' given twice");
        pf.base[full] = {scalar_text(sub.second), swhere};
      }
    } else if (find_spec(key) && is_scalar(val)) {
      if (pf.base.count(key)) throw ConfigError(where + ": key '" + key + "' given twice");
      pf.base[key] = {scalar_text(val), where};
    } else if (find_spec(key)) {
      fail(where, key, "a scalar (lists belong under matrix:)", YAML::Dump(val));
    } else {
      throw ConfigError(
          fmt::format("{}: unknown key '{}' (allowed: {})", where, key, allowed_keys_under("")));
    }
  }
  return pf;
}

void apply_override(ParsedFile& pf, const Override& o) {
  const std::string where = "--set " + o.key;
  if (o.key == "name") return void(pf.name = o.value);
  if (o.key == "output") return void(pf.output = o.value);
  if (!find_spec(o.key)) {
    std::vector<std::string> k;
    for (const auto& s : experiment_schema()) k.push_back(s.key);
    throw ConfigError(
        fmt::format("{}: unknown key '{}' (allowed: name, output, {})", where, o.key, join(k)));
  }
  auto axis = std::find_if(pf.matrix.begin(), pf.matrix.end(),
                           [&](const auto& a) { return a.first == o.key; });
  auto zipped =
      std::find_if(pf.zip.begin(), pf.zip.end(), [&](const auto& a) { return a.first == o.key; });
  pf.base.erase(o.key);
  YAML::Node n;
  try {
    n = YAML::Load(o.value);
  } catch (const YAML::Exception& e) {
    throw ConfigError(fmt::format("{}: cannot parse '{}': {}", where, o.value, e.msg));
  }
  if (n.IsSequence()) {
    std::vector<SourcedValue> vals;
    for (const auto& item : n) {
      if (!is_scalar(item)) fail(where, o.key, "a list of scalars", o.value);
      vals.push_back({scalar_text(item), where});
    }
    if (vals.empty()) fail(where, o.key, "a non-empty list", o.value);
    if (zipped != pf.zip.end())
      zipped->second = std::move(vals);  // lengths checked later
    else if (axis != pf.matrix.end())
      axis->second = std::move(vals);  // keeps its place
    else
      pf.matrix.emplace_back(o.key, std::move(vals));
  } else {
    if (zipped != pf.zip.end()) pf.zip.erase(zipped);  // pinned: the rest still zip
    if (axis != pf.matrix.end()) pf.matrix.erase(axis);
    pf.base[o.key] = {is_scalar(n) ? scalar_text(n) : o.value, where};
  }
}

// Resolves a relative path: as given when it exists from the current directory, else against
// the experiment file's directory.
std::string resolve_path(const std::string& p, const std::string& yaml_file) {
  if (p.empty() || fs::path(p).is_absolute() || fs::exists(p)) return p;
  const fs::path alt = fs::path(yaml_file).parent_path() / p;
  return fs::exists(alt) ? alt.string() : p;
}

CellConfig make_cell(const std::string& file, const std::string& experiment, size_t index,
                     const std::map<std::string, SourcedValue>& values) {
  CellConfig c;
  c.experiment = experiment;
  c.index = index;
  auto get = [&](const std::string& k) -> const SourcedValue& { return values.at(k); };
  auto text = [&](const std::string& k) -> const std::string& { return get(k).text; };
  auto as_int = [&](const std::string& k) {
    int64_t x = 0;
    parse_int(text(k), &x);
    return x;
  };
  auto as_bool = [&](const std::string& k) {
    bool b = false;
    parse_bool(text(k), &b);
    return b;
  };
  for (const auto& s : experiment_schema()) {
    const auto it = values.find(s.key);
    const bool unset = it == values.end() || it->second.text.empty();
    if (unset && s.optional) {
      c.parameters.emplace_back(s.key, "");  // resolved below, or not applicable
      continue;
    }
    if (unset && s.type != ValueType::kString) {
      throw ConfigError(fmt::format("{}: key '{}' is required ({})", file, s.key, s.help));
    }
    check_value(s, it->second);
    c.parameters.emplace_back(s.key, it->second.text);
  }
  // A key written in the file or with --set, not taken from the defaults.
  auto is_set = [&](const std::string& k) {
    const auto it = values.find(k);
    return it != values.end() && !it->second.text.empty() &&
           !it->second.where.ends_with("(default)");
  };
  auto set_parameter = [&](const std::string& k, std::string v) {
    for (auto& [pk, pv] : c.parameters) {
      if (pk == k) pv = std::move(v);
    }
  };
  // Keys that only one choice reads are errors elsewhere, never silently ignored.
  auto only_for = [&](const std::vector<std::string>& keys, bool applies, const char* what) {
    for (const auto& k : keys) {
      if (is_set(k) && !applies)
        fail(get(k).where, k, std::string("no value: it applies to ") + what + " only", text(k));
    }
  };

  c.trace.format = text("trace.format");
  const bool generator = c.trace.format == "generator";
  only_for({"trace.generator", "trace.pattern", "trace.op", "trace.io_size", "trace.requests",
            "trace.fill"},
           generator, "trace.format generator");
  // Keys that do not apply show empty in the row (so a row never claims a value that was not
  // used).
  if (!generator) {
    for (const char* k : {"trace.generator", "trace.pattern", "trace.op", "trace.io_size",
                          "trace.requests", "trace.fill"}) {
      set_parameter(k, "");
    }
  }
  if (generator) {
    only_for({"trace.path"}, false, "trace files (not trace.format generator)");
    c.trace.generator = text("trace.generator");
    c.trace.device_io.pattern = parse_io_pattern(text("trace.pattern"));
    c.trace.device_io.write = text("trace.op") == "write";
    c.trace.device_io.io_size_bytes = parse_size(text("trace.io_size"));
    c.trace.device_io.requests = static_cast<uint64_t>(as_int("trace.requests"));
    c.trace.device_io.fill = as_bool("trace.fill");
  } else {
    if (text("trace.path").empty()) {
      throw ConfigError(
          fmt::format("{}: key 'trace.path' is required (a trace file) unless "
                      "trace.format is generator",
                      file));
    }
    c.trace.path = resolve_path(text("trace.path"), file);
    if (!fs::is_regular_file(c.trace.path)) {
      fail(get("trace.path").where, "trace.path", "an existing trace file", text("trace.path"));
    }
  }
  c.trace.time_col = static_cast<int>(as_int("trace.time_col"));
  c.trace.key_col = static_cast<int>(as_int("trace.key_col"));
  c.trace.size_col = static_cast<int>(as_int("trace.size_col"));
  c.trace.op_col = static_cast<int>(as_int("trace.op_col"));
  c.trace.has_header = as_bool("trace.header");
  c.trace.delimiter = text("trace.delimiter")[0];
  c.trace.key_is_numeric = as_bool("trace.key_is_numeric");
  const std::string& tu = text("trace.time_unit");
  c.trace.time_unit_ns = tu == "s" ? 1e9 : tu == "ms" ? 1e6 : tu == "us" ? 1e3 : 1.0;
  c.seed = static_cast<uint64_t>(as_int("seed"));
  parse_double(text("warmup"), &c.warmup);

  const std::string& cap = text("cache.capacity");
  if (cap.find('.') != std::string::npos) {
    c.capacity.is_fraction = true;
    parse_double(cap, &c.capacity.fraction);
  } else {
    c.capacity.bytes = parse_size(cap);
  }
  c.cache.unit_size = as_bool("cache.unit_size");
  c.cache.on_size_change =
      text("cache.on_size_change") == "update" ? SizeChange::kUpdate : SizeChange::kKeep;
  c.policy.name = text("policy.name");
  c.policy.segments = static_cast<uint32_t>(as_int("policy.segments"));
  c.admission.name = text("admission.name");
  c.admission.sample_factor = static_cast<uint32_t>(as_int("admission.sample_factor"));
  parse_double(text("admission.counters_multiplier"), &c.admission.counters_multiplier);
  c.admission.doorkeeper = as_bool("admission.doorkeeper");
  parse_double(text("admission.doorkeeper_insertions_multiplier"),
               &c.admission.doorkeeper_insertions_multiplier);
  parse_double(text("admission.doorkeeper_fpp"), &c.admission.doorkeeper_fpp);
  c.framework.name = text("framework.name");
  c.framework.placement = text("framework.placement");
  const uint64_t alignment = parse_size(text("framework.placement_alignment"));
  c.framework.placement_alignment_bytes =
      alignment > UINT32_MAX ? 0 : static_cast<uint32_t>(alignment);  // 0 fails validate()
  c.framework.block_size_bytes = parse_size(text("framework.block_size"));
  c.framework.insertion_points = static_cast<uint32_t>(as_int("framework.insertion_points"));
  c.framework.reserved_blocks = static_cast<uint32_t>(as_int("framework.reserved_blocks"));
  parse_double(text("framework.materialize_threshold"), &c.framework.materialize_threshold);
  c.framework.histogram_bins = static_cast<uint32_t>(as_int("framework.histogram_bins"));
  parse_double(text("framework.occupancy"), &c.framework.occupancy);
  c.framework.read_hits = as_bool("framework.read_hits");
  c.framework.offset_unit_bytes = parse_size(text("framework.offset_unit"));
  only_for({"framework.offset_unit"}, c.framework.name == "direct", "framework direct");
  if (c.framework.name != "direct") set_parameter("framework.offset_unit", "");
  c.device.name = text("device.name");

  // simflash: the profile, then every key set in the file overrides its field; the row shows
  // the resolved value of every field.
  const std::vector<std::string> simflash_keys = {"device.profile",
                                                  "device.channels",
                                                  "device.dies_per_channel",
                                                  "device.planes_per_die",
                                                  "device.blocks_per_plane",
                                                  "device.pages_per_block",
                                                  "device.page_size",
                                                  "device.utilization",
                                                  "device.over_provisioning",
                                                  "device.gc_policy",
                                                  "device.gc_d",
                                                  "device.gc_stream",
                                                  "device.gc_low_watermark",
                                                  "device.gc_high_watermark",
                                                  "device.tR_us",
                                                  "device.tPROG_us",
                                                  "device.tBERS_us",
                                                  "device.channel_bandwidth_mib_s"};
  const bool simflash = c.device.name == "simflash";
  only_for(simflash_keys, simflash, "device simflash");
  if (!simflash) {
    set_parameter("device.profile", "");
  } else {
    SimFlashConfig& f = c.device.simflash;
    f = simflash_profile(text("device.profile"));
    auto u32 = [&](const char* k, uint32_t* field) {
      if (is_set(k)) *field = static_cast<uint32_t>(as_int(k));
      set_parameter(k, std::to_string(*field));
    };
    auto real = [&](const char* k, double* field) {
      if (is_set(k)) parse_double(text(k), field);
      set_parameter(k, fmt::format("{}", *field));
    };
    u32("device.channels", &f.channels);
    u32("device.dies_per_channel", &f.dies_per_channel);
    u32("device.planes_per_die", &f.planes_per_die);
    u32("device.blocks_per_plane", &f.blocks_per_plane);
    u32("device.pages_per_block", &f.pages_per_block);
    if (is_set("device.page_size")) {
      const uint64_t ps = parse_size(text("device.page_size"));
      f.page_size_bytes = ps > UINT32_MAX ? 0 : static_cast<uint32_t>(ps);  // 0 fails validate
    }
    set_parameter("device.page_size", std::to_string(f.page_size_bytes));
    if (is_set("device.utilization") && is_set("device.over_provisioning")) {
      fail(get("device.over_provisioning").where, "device.over_provisioning",
           "either device.utilization or device.over_provisioning, not both",
           text("device.over_provisioning"));
    }
    if (is_set("device.utilization")) f.over_provisioning.reset();  // the user's choice wins
    if (is_set("device.over_provisioning")) {
      double op = 0;
      parse_double(text("device.over_provisioning"), &op);
      f.over_provisioning = op;
    }
    real("device.utilization", &f.utilization);
    set_parameter("device.utilization", fmt::format("{}", f.effective_utilization()));
    set_parameter("device.over_provisioning",
                  f.over_provisioning ? fmt::format("{}", *f.over_provisioning) : "");
    if (is_set("device.gc_policy")) f.gc_policy = parse_gc_policy(text("device.gc_policy"));
    set_parameter("device.gc_policy", gc_policy_name(f.gc_policy));
    u32("device.gc_d", &f.gc_d);
    if (is_set("device.gc_stream")) f.gc_stream = parse_gc_stream(text("device.gc_stream"));
    set_parameter("device.gc_stream", gc_stream_name(f.gc_stream));
    u32("device.gc_low_watermark", &f.gc_low_watermark);
    u32("device.gc_high_watermark", &f.gc_high_watermark);
    real("device.tR_us", &f.tR_us);
    real("device.tPROG_us", &f.tPROG_us);
    real("device.tBERS_us", &f.tBERS_us);
    real("device.channel_bandwidth_mib_s", &f.channel_bandwidth_mib_s);
    f.seed = c.seed;  // the FTL's d_choices stream follows the cell seed
  }
  // block: every key set overrides BlockConfig's default; the row shows the resolved values.
  const std::vector<std::string> block_keys = {"device.path",
                                               "device.capacity",
                                               "device.engine",
                                               "device.queue_depth",
                                               "device.max_io_size",
                                               "device.o_direct",
                                               "device.registered_buffers",
                                               "device.verify",
                                               "device.discard_before_run",
                                               "device.nvme_counters"};
  const bool block = c.device.name == "block";
  only_for(block_keys, block, "device block");
  if (block) {
    BlockConfig& b = c.device.block;
    if (!is_set("device.path")) {
      throw ConfigError(fmt::format(
          "{}: key 'device.path' is required for device block (a file or block device)", file));
    }
    b.path = text("device.path");
    if (is_set("device.capacity")) b.capacity_bytes = parse_size(text("device.capacity"));
    if (is_set("device.engine")) b.engine = parse_io_engine(text("device.engine"));
    if (is_set("device.queue_depth")) {
      b.queue_depth = static_cast<uint32_t>(as_int("device.queue_depth"));
    }
    if (is_set("device.max_io_size")) {
      const uint64_t m = parse_size(text("device.max_io_size"));
      b.max_io_bytes = m > UINT32_MAX ? 0 : static_cast<uint32_t>(m);  // 0 fails validate()
    }
    auto flag = [&](const char* k, bool* out) {
      if (is_set(k)) *out = as_bool(k);
      set_parameter(k, *out ? "true" : "false");
    };
    flag("device.o_direct", &b.o_direct);
    flag("device.registered_buffers", &b.registered_buffers);
    flag("device.verify", &b.verify);
    flag("device.discard_before_run", &b.discard_before_run);
    flag("device.nvme_counters", &b.nvme_counters);
    set_parameter("device.engine", io_engine_name(b.engine));
    set_parameter("device.queue_depth", std::to_string(b.queue_depth));
    set_parameter("device.max_io_size", std::to_string(b.max_io_bytes));
    b.pattern_seed = c.seed;
    // The capacity, and the logical block every request must be aligned to, read now (writing
    // nothing) so that an impossible cell fails before anything runs. A file that does not
    // exist yet is created at open, with device.capacity.
    if (fs::exists(b.path)) {
      DeviceReport probe;
      try {
        probe = inspect_device(b.path);
      } catch (const std::exception& e) {
        fail(get("device.path").where, "device.path", "a file or block device", e.what());
      }
      c.device.capacity_bytes = b.capacity_bytes ? b.capacity_bytes : probe.geometry.size_bytes;
      if (probe.geometry.logical_block_bytes) {
        c.device.logical_block_bytes = probe.geometry.logical_block_bytes;
      }
    } else if (b.capacity_bytes == 0) {
      fail(get("device.path").where, "device.path",
           "an existing file or block device (or set device.capacity to create a file)", b.path);
    } else {
      c.device.capacity_bytes = b.capacity_bytes;
    }
    set_parameter("device.capacity", std::to_string(c.device.capacity_bytes));
    if (c.device.capacity_bytes % c.device.logical_block_bytes != 0) {
      fail(get("device.capacity").where, "device.capacity",
           fmt::format("a multiple of the logical block size {} B of {}",
                       c.device.logical_block_bytes, b.path),
           text("device.capacity"));
    }
  }
  // Timing: the arrival keys that apply to the chosen process; the rest show empty.
  c.timing.mode = parse_timing_mode(text("timing.mode"));
  const bool timed = c.timing.mode != TimingMode::kNone;
  only_for({"timing.arrival"}, timed, "timed runs (timing.mode simulated or wall)");
  if (timed) {
    c.timing.arrival = parse_arrival_process(text("timing.arrival"));
    const bool closed = c.timing.arrival == ArrivalProcess::kClosedLoop;
    const bool open = c.timing.arrival == ArrivalProcess::kConstant ||
                      c.timing.arrival == ArrivalProcess::kPoisson;
    const bool by_trace = c.timing.arrival == ArrivalProcess::kTrace;
    only_for({"timing.clients", "timing.think_time_us"}, closed, "timing.arrival closed_loop");
    only_for({"timing.rate"}, open, "timing.arrival constant or poisson");
    only_for({"timing.time_scale"}, by_trace, "timing.arrival trace");
    c.timing.clients = static_cast<uint32_t>(as_int("timing.clients"));
    double think_us = 0;
    parse_double(text("timing.think_time_us"), &think_us);
    c.timing.think_time_ns = static_cast<uint64_t>(std::llround(think_us * 1e3));
    parse_double(text("timing.rate"), &c.timing.rate_rps);
    parse_double(text("timing.time_scale"), &c.timing.time_scale);
    if (!closed) {
      set_parameter("timing.clients", "");
      set_parameter("timing.think_time_us", "");
    }
    if (!open) set_parameter("timing.rate", "");
    if (!by_trace) set_parameter("timing.time_scale", "");
    if (c.timing.mode == TimingMode::kSimulated && !simflash) {
      fail(get("timing.mode").where, "timing.mode",
           "device simflash for simulated time (found device '" + c.device.name + "')",
           "simulated");
    }
    if (c.timing.mode == TimingMode::kWall && !block) {
      fail(get("timing.mode").where, "timing.mode",
           "device block for wall-clock time (found device '" + c.device.name + "')", "wall");
    }
    if (c.timing.mode == TimingMode::kWall && c.framework.name != "direct" &&
        (!closed || c.timing.clients != 1)) {
      // A cache serves one request at a time (sim/block_cell.h WallTimedCache).
      fail(get(closed ? "timing.clients" : "timing.arrival").where,
           closed ? "timing.clients" : "timing.arrival",
           "closed_loop with 1 client for a cache framework on the wall clock",
           closed ? text("timing.clients") : text("timing.arrival"));
    }
  } else {
    only_for({"timing.clients", "timing.think_time_us", "timing.rate", "timing.time_scale"}, false,
             "timed runs (timing.mode simulated or wall)");
    for (const char* k : {"timing.arrival", "timing.clients", "timing.think_time_us", "timing.rate",
                          "timing.time_scale"}) {
      set_parameter(k, "");
    }
  }

  // Component validation: cross-key checks each Config owns.
  try {
    c.device.validate();
    if (generator) {
      // The generator addresses the device's whole exported space.
      c.trace.device_io.span_bytes =
          simflash ? c.device.simflash.exported_bytes() : c.device.capacity_bytes;
      if (block && c.trace.device_io.io_size_bytes % c.device.logical_block_bytes != 0) {
        throw std::invalid_argument(fmt::format(
            "trace.io_size: {} bytes is not a multiple of the logical block size {} B of {}: "
            "misaligned I/O is refused, never read-modify-written",
            c.trace.device_io.io_size_bytes, c.device.logical_block_bytes, c.device.block.path));
      }
      c.trace.device_io.seed = c.seed;
      if (c.framework.name != "direct") {
        throw std::invalid_argument(
            "trace.format: generator device_io yields block I/O: it needs framework direct, "
            "found '" +
            c.framework.name + "'");
      }
    }
    c.trace.validate();
    c.timing.validate();
    c.policy.validate();
    c.admission.validate();
    c.framework.validate();
    if (c.policy.name == "wtinylfu" && c.framework.name != "exact") {
      throw std::invalid_argument(
          "framework.name: policy wtinylfu is a whole cache and runs on "
          "framework exact only, found '" +
          c.framework.name + "'");
    }
  } catch (const std::invalid_argument& e) {
    // Components name the key first ("trace.key_col must be ..."): point at where it was
    // written (the default's "file (default)" when it was not).
    const std::string msg = e.what();
    const std::string key = msg.substr(0, msg.find_first_not_of("abcdefghijklmnopqrstuvwxyz_."));
    const auto it = values.find(key);
    const std::string where = it != values.end() ? it->second.where : file;
    throw ConfigError(fmt::format("{}: cell {}: {}", where, index, msg));
  }
  return c;
}

}  // namespace

const std::vector<KeySpec>& experiment_schema() {
  static const std::vector<KeySpec> schema = build_schema();
  return schema;
}

std::string schema_help() {
  std::string out =
      "Experiment keys (YAML, dotted paths; any of them may be a list under matrix: or zip:, "
      "be matched by exclude: entries, or be set with --set KEY=VALUE):\n";
  out += fmt::format("  {:<22} {:<15} {}\n", "name", "(file stem)", "experiment name");
  out += fmt::format("  {:<22} {:<15} {}\n", "output", "results/NAME.csv",
                     "results file (.csv or .jsonl)");
  for (const auto& s : experiment_schema()) {
    std::string dflt = s.default_value.empty() ? "(required)" : s.default_value;
    std::string help = s.help;
    if (!s.unit.empty()) help += " [" + s.unit + "]";
    if (s.type == ValueType::kEnum) help += " {" + join(s.allowed, "|") + "}";
    if (s.type == ValueType::kInt) help += fmt::format(" (range {}..{})", s.min, s.max);
    out += fmt::format("  {:<22} {:<15} {}\n", s.key, dflt, help);
  }
  return out;
}

uint64_t CapacitySpec::resolve(uint64_t working_set) const {
  if (!is_fraction) return bytes;
  const auto v = static_cast<uint64_t>(std::floor(fraction * static_cast<double>(working_set)));
  return std::max<uint64_t>(v, 1);
}

uint64_t parse_size(const std::string& text) {
  const std::string expected =
      "a size: an integer number of bytes, optionally followed by B, KiB, MiB, GiB, TiB "
      "(powers of 2) or kB, MB, GB, TB (powers of 10)";
  uint64_t n = 0;
  const char* b = text.data();
  const char* e = b + text.size();
  auto [p, ec] = std::from_chars(b, e, n);
  if (ec != std::errc() || p == b) {
    throw std::invalid_argument("expected " + expected + ", found '" + text + "'");
  }
  std::string unit(p, e);
  while (!unit.empty() && unit.front() == ' ') unit.erase(unit.begin());
  static const std::pair<const char*, uint64_t> kUnits[] = {{"", 1},
                                                            {"B", 1},
                                                            {"KiB", 1ull << 10},
                                                            {"MiB", 1ull << 20},
                                                            {"GiB", 1ull << 30},
                                                            {"TiB", 1ull << 40},
                                                            {"kB", 1000},
                                                            {"KB", 1000},
                                                            {"MB", 1000000},
                                                            {"GB", 1000000000},
                                                            {"TB", 1000000000000ull}};
  for (const auto& [name, mult] : kUnits) {
    if (unit == name) {
      if (n > UINT64_MAX / mult) {
        throw std::invalid_argument("size '" + text + "' overflows 64 bits");
      }
      return n * mult;
    }
  }
  throw std::invalid_argument("expected " + expected + ", found '" + text + "'");
}

Experiment load_experiment(const std::string& path, const std::vector<Override>& overrides) {
  ParsedFile pf = parse_file(path);
  for (const auto& o : overrides) apply_override(pf, o);

  // Defaults, then the file's values (already in pf.base).
  std::map<std::string, SourcedValue> base;
  for (const auto& s : experiment_schema()) base[s.key] = {s.default_value, path + " (default)"};
  for (const auto& [k, v] : pf.base) base[k] = v;

  Experiment ex;
  ex.name = pf.name;
  ex.output = pf.output.empty() ? "results/" + pf.name + ".csv" : pf.output;
  // zip: one axis whose lists advance together.
  const size_t zip_len = pf.zip.empty() ? 1 : pf.zip.front().second.size();
  for (const auto& [k, vals] : pf.zip) {
    if (vals.size() != zip_len) {
      throw ConfigError(
          fmt::format("{}: zip lists must have one length: '{}' has {} values, '{}' has {}",
                      pf.zip_where.empty() ? path : pf.zip_where, pf.zip.front().first, zip_len, k,
                      vals.size()));
    }
  }
  // exclude: a key that varies must be given values it takes (a typo would exclude nothing).
  for (const auto& e : pf.exclude) {
    for (const auto& [k, vals] : e.values) {
      const std::vector<SourcedValue>* axis = nullptr;
      for (const auto* group : {&pf.matrix, &pf.zip}) {
        for (const auto& [ak, avals] : *group) {
          if (ak == k) axis = &avals;
        }
      }
      if (!axis) continue;  // a fixed value: the entry matches it or not
      for (const auto& v : vals) {
        const bool taken = std::any_of(axis->begin(), axis->end(),
                                       [&](const SourcedValue& a) { return a.text == v.text; });
        if (!taken) {
          std::vector<std::string> texts;
          for (const auto& a : *axis) texts.push_back(a.text);
          throw ConfigError(fmt::format("{}: exclude: '{}' is not a value of {} (its values: {})",
                                        v.where, v.text, k, join(texts)));
        }
      }
    }
  }
  auto excluded = [&](const std::map<std::string, SourcedValue>& values) {
    return std::any_of(pf.exclude.begin(), pf.exclude.end(), [&](const auto& e) {
      return std::all_of(e.values.begin(), e.values.end(), [&](const auto& kv) {
        const std::string& text = values.at(kv.first).text;
        return std::any_of(kv.second.begin(), kv.second.end(),
                           [&](const SourcedValue& v) { return v.text == text; });
      });
    });
  };
  // Cartesian product, the first axis varying slowest, the zip axis fastest; excluded cells
  // are dropped and the others numbered in order.
  size_t total = zip_len;
  for (const auto& [k, vals] : pf.matrix) total *= vals.size();
  if (total > 10'000'000) throw ConfigError(path + ": the matrix has more than 10 million cells");
  for (size_t i = 0; i < total; ++i) {
    auto values = base;
    size_t rest = i;
    for (const auto& [k, vals] : pf.zip) values[k] = vals[rest % zip_len];
    rest /= zip_len;
    for (size_t a = pf.matrix.size(); a-- > 0;) {
      const auto& [k, vals] = pf.matrix[a];
      values[k] = vals[rest % vals.size()];
      rest /= vals.size();
    }
    if (!pf.exclude.empty() && excluded(values)) continue;
    ex.cells.push_back(make_cell(path, ex.name, ex.cells.size(), values));
  }
  if (ex.cells.empty()) throw ConfigError(path + ": exclude: drops every cell of the matrix");
  return ex;
}

}  // namespace flashpq
