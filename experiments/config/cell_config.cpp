// experiments/config/cell_config.cpp — one cell from its key values (experiments/config/
// cell_config.h). Nothing here knows a component's keys: they come from the schema
// (experiments/config/schema.h), and each section is decoded by the layer that owns it.
#include "experiments/config/cell_config.h"

#include <algorithm>
#include <filesystem>
#include <optional>

#include "engine/framework.h"
#include "experiments/config/schema.h"
#include "fmt/format.h"
#include "policies/registry.h"
#include "traces/trace_reader.h"
#include "traces/transforms.h"

namespace flashpq {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const std::string& where, const std::string& key,
                       const std::string& expected, const std::string& found) {
  throw ConfigError(
      fmt::format("{}: key '{}': expected {}, found '{}'", where, key, expected, found));
}

// A value written in the file or with --set, not taken from the defaults.
bool is_set(const SourcedValue& v) {
  return !v.text.empty() && !v.is_default();
}

// Checks v against the key's declaration; a ConfigError names where it was written.
void check(const KeySpec& spec, const SourcedValue& v) {
  try {
    check_value(spec, v.text);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(v.where + ": " + e.what());
  }
}

// Whether a condition holds for the cell: numbers compare by value, other texts exactly.
bool holds(const Condition& c, const std::map<std::string, SourcedValue>& values) {
  const std::string& text = values.at(c.key).text;
  const SchemaKey* k = find_key(c.key);
  const bool numeric = k && (k->spec.type == ValueType::kInt || k->spec.type == ValueType::kFloat);
  bool in = false;
  for (const std::string& v : c.values) {
    double a = 0, b = 0;
    if (numeric && parse_double(text, &a) && parse_double(v, &b)) {
      in = in || a == b;
    } else {
      in = in || text == v;
    }
  }
  return in != c.negate;
}

// Whether a component that reads key k is selected.
bool read_by_selection(const SchemaKey& k, const std::map<std::string, SourcedValue>& values) {
  if (k.readers.empty()) return true;
  return std::any_of(k.readers.begin(), k.readers.end(), [&](const auto& chain) {
    return std::all_of(chain.begin(), chain.end(),
                       [&](const auto& pair) { return values.at(pair.first).text == pair.second; });
  });
}

// The values of one section's keys (dotted keys with the section's prefix).
Params section_params(const Params& all, const std::string& section) {
  Params p;
  const std::string prefix = section + ".";
  for (const auto& [k, v] : all.values()) {
    if (k.starts_with(prefix)) p.set(k, v);
  }
  return p;
}

// trace.format by the trace file's content (traces/trace_reader.h, trace_format_for()): a value
// not written is replaced by the format the content (else the extension) says; a written value
// the content contradicts is an error where it was written. nullopt: `values` stand as they are.
std::optional<std::map<std::string, SourcedValue>> with_trace_format(
    const std::string& file, const std::map<std::string, SourcedValue>& values) {
  const auto f = values.find("trace.format"), p = values.find(kTracePathKey.name);
  if (f == values.end() || p == values.end() || p->second.text.empty()) return std::nullopt;
  const SourcedValue& named = f->second;
  std::string format;
  try {
    format = trace_format_for(resolve_path(p->second.text, p->second.where, file),
                              named.is_default() ? "" : named.text, "trace.format");
  } catch (const std::invalid_argument& e) {
    throw ConfigError(fmt::format("{}: key '{}': {}",
                                  named.is_default() ? p->second.where : named.where,
                                  named.is_default() ? p->first : f->first, e.what()));
  }
  if (format == named.text) return std::nullopt;
  std::map<std::string, SourcedValue> out = values;
  out.at("trace.format").text = format;
  return out;
}

}  // namespace

std::string resolve_path(const std::string& p, const std::string& where,
                         const std::string& yaml_file) {
  if (p.empty()) return p;
  const fs::path base = where.starts_with("--set") ? fs::path() : fs::path(yaml_file).parent_path();
  return fs::absolute(base / p).lexically_normal().string();
}

CellConfig make_cell(const std::string& file, const std::string& experiment, size_t index,
                     const std::map<std::string, SourcedValue>& given) {
  const auto detected = with_trace_format(file, given);
  const std::map<std::string, SourcedValue>& values = detected ? *detected : given;
  CellConfig c;
  c.experiment = experiment;
  c.index = index;
  const std::vector<SchemaKey>& schema = experiment_schema();

  // The selectors first: which components a cell selects decides which keys apply.
  for (const SchemaKey& k : schema) {
    if (k.selector && read_by_selection(k, values)) check(k.spec, values.at(k.spec.name));
  }
  // Every key: checked; read by a selected component, or not.
  Params all;
  std::map<std::string, std::string> shown;  // the results row's text of each key
  for (const SchemaKey& k : schema) {
    const std::string& name = k.spec.name;
    const SourcedValue& v = values.at(name);
    if (read_by_selection(k, values)) {
      if (v.text.empty()) {
        if (k.spec.required()) {
          throw ConfigError(fmt::format("{}: key '{}' is required{} ({})", file, name,
                                        k.readers.empty() ? "" : " for " + k.readers_text(),
                                        k.spec.description));
        }
        shown[name] = "";  // the component fills it in
        continue;
      }
      check(k.spec, v);
      std::string text = v.text;
      // Paths: from the experiment file's directory when written there, from the working
      // directory when given with --set (experiments/experiment.h).
      const bool names_file = k.spec.type == ValueType::kEnum
                                  ? k.spec.input_file && is_yaml_file_name(v.text)
                                  : k.spec.type == ValueType::kPath;
      if (names_file) text = resolve_path(v.text, v.where, file);
      if (names_file && k.spec.input_file && !fs::is_regular_file(text)) {
        fail(v.where, name, "an existing file (" + text + ")", v.text);
      }
      all.set(name, text);
      shown[name] = v.text;
    } else if (k.spec.strict) {
      if (is_set(v)) {
        fail(v.where, name, "no value: it applies to " + k.readers_text() + " only", v.text);
      }
      shown[name] = "";
    } else {
      // Read by another component of the section: checked and shown, so a matrix may cross a
      // component's name with another component's key, but not read.
      if (!v.text.empty()) {
        check(k.spec, v);
        all.set(name, v.text);
        c.ignored_keys.push_back(name);
      }
      shown[name] = v.text;
    }
  }

  // Each section, decoded by its owner. A component names the key of a bad value first
  // ("key 'device.channels': expected …" or "device.channels: …"); the error points at where
  // that key was written (the file, for a default).
  auto where_of_message = [&](const std::string& msg) {
    std::string key;
    if (msg.starts_with("key '")) {
      key = msg.substr(5, msg.find('\'', 5) - 5);
    } else {
      key = msg.substr(
          0, msg.find_first_not_of("abcdefghijklmnopqrstuvwxyz_.ABCDEFGHIJKLMNOPQRSTUVWXYZ"));
    }
    const auto it = values.find(key);
    return std::make_pair(msg.starts_with("key '"),
                          it != values.end() && !it->second.is_default() ? it->second.where : file);
  };
  try {
    c.seed = all.get<uint64_t>(find_key("seed")->spec);
    c.warmup = all.get<double>(find_key("warmup")->spec);
    c.capacity = CapacitySpec::parse(values.at(kCapacityKey.name).text);
    // Each section's values, and its selected component, named by the section's selector.
    auto params_of = [&](const SectionSpec& section) { return section_params(all, section.name); };
    auto selected = [&](const SectionSpec& section) { return values.at(section.selector).text; };
    c.cache = CacheConfig::from(params_of(cache_section()));
    c.cache.seed = c.seed;
    c.policy = PolicyConfig{selected(policy_section()), params_of(policy_section())};
    c.admission = AdmissionConfig{selected(admission_section()), params_of(admission_section())};
    c.framework = FrameworkConfig{selected(framework_section()), params_of(framework_section())};
    c.device.name = selected(device_section());
    c.device.params = params_of(device_section());
    c.device.seed = c.seed;
    // The device resolves its keys (reading, never writing, a real device); the trace learns
    // its bounds and the seed.
    Params resolved;
    c.device_bounds = device_type(c.device.name).resolve(c.device, resolved);
    for (const auto& [k, v] : resolved.values()) shown[k] = v;
    c.trace.format = selected(trace_section());
    c.trace.params = params_of(trace_section());
    c.trace.seed = c.seed;
    c.trace.device = c.device_bounds;
    trace_format(c.trace.format).check(c.trace);
    (void)trace_transforms(c.trace);
    c.timing = timing_config(params_of(timing_section()));
    c.tiers = TiersConfig::from(params_of(tiers_section()), c.seed);
    c.backing = BackingConfig::from(params_of(backing_section()));
    c.stats = StatsConfig::from(params_of(stats_section()));
    if (c.tiers.enabled() && c.tiers.dram_latency_ns != 0 && c.device.name == "block") {
      throw std::invalid_argument(fmt::format(
          "key 'tiers.dram_latency_us': on the wall clock (device block) DRAM's time is the "
          "host's own; expected 0, found {}",
          values.at("tiers.dram_latency_us").text));
    }
    if (c.stats.enabled() && c.timing.mode != TimingMode::kSimulated &&
        (c.device.name != "block" || c.framework.name == "direct")) {
      throw std::invalid_argument(fmt::format(
          "key 'stats.interval_s': a series over time needs a clock: timing.mode simulated, or a "
          "cache on a real device (device block, a framework but direct), found "
          "stats.interval_s {} with timing.mode {}, device {}, framework {}",
          values.at(kStatsIntervalKey.name).text, timing_mode_name(c.timing.mode), c.device.name,
          c.framework.name));
    }
    // The DRAM tier (experiments/run/dram_tier.h): a priority rule or a policy that owns its
    // structure, not a complete cache nor a bound reading next-access times.
    if (c.tiers.enabled() && !policy_can_be_dram_tier(c.tiers.dram_policy)) {
      std::vector<std::string> allowed;
      for (const std::string& p : policy_names()) {
        if (policy_can_be_dram_tier(p)) allowed.push_back(p);
      }
      throw std::invalid_argument(fmt::format(
          "key 'tiers.dram_policy': expected {}, found '{}'{}", join_names(allowed, ", "),
          c.tiers.dram_policy,
          policy_reads_next_access(c.tiers.dram_policy)
              ? " (an offline bound reads the trace's next-access times; the requests a DRAM "
                "tier sees are not the trace's)"
              : ""));
    }
    check_policy(c.policy);
    check_admission(c.admission);
    check_framework(c.framework);
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    const auto [keyed, where] = where_of_message(msg);
    throw ConfigError(keyed ? fmt::format("{}: {}", where, msg)
                            : fmt::format("{}: cell {}: {}", where, index, msg));
  }

  // The requirements across components, all in one place.
  for (const Requirement& r : schema_requirements()) {
    if (!std::all_of(r.when.begin(), r.when.end(),
                     [&](const Condition& w) { return holds(w, values); })) {
      continue;
    }
    if (holds(Condition{r.key, r.allowed, false}, values)) continue;
    const SourcedValue& v = values.at(r.key);
    fail(v.is_default() ? file : v.where, r.key, join_names(r.allowed, " or ") + " (" + r.why + ")",
         v.text);
  }

  for (const SchemaKey& k : schema) c.parameters.emplace_back(k.spec.name, shown[k.spec.name]);
  return c;
}

}  // namespace flashpq
