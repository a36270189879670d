// traces/trace_reader.cpp — the format registry, config validation and the key hash.
//
// To add a format: write traces/<name>_reader.cpp defining a factory with the signature below,
// declare it here and add one row to kFormats.
#include "traces/trace_reader.h"

#include <xxhash.h>

#include <array>
#include <cmath>
#include <string_view>

namespace flashpq {

// Factories, one per reader file. Each opens config.path (already validated) and throws
// TraceError if it cannot.
std::unique_ptr<TraceReader> make_oracle_general_reader(const TraceConfig& config);
std::unique_ptr<TraceReader> make_kvcache_csv_reader(const TraceConfig& config);
std::unique_ptr<TraceReader> make_csv_reader(const TraceConfig& config);
std::unique_ptr<TraceReader> make_generator_reader(const TraceConfig& config);

namespace {

struct FormatEntry {
  std::string_view name;
  std::unique_ptr<TraceReader> (*make)(const TraceConfig&);
};

// The registry, in registration order. Immutable.
constexpr std::array<FormatEntry, 4> kFormats{{
    {"oracleGeneral", &make_oracle_general_reader},
    {"kvcache_csv", &make_kvcache_csv_reader},
    {"csv", &make_csv_reader},
    {"generator", &make_generator_reader},  // no file: traces/device_io.h
}};

const FormatEntry* find_format(std::string_view name) {
  for (const FormatEntry& entry : kFormats) {
    if (entry.name == name) return &entry;
  }
  return nullptr;
}

std::string known_formats() {
  std::string out;
  for (const FormatEntry& entry : kFormats) {
    if (!out.empty()) out += ", ";
    out += '"';
    out += entry.name;
    out += '"';
  }
  return out;
}

void check_column(const char* name, int value) {
  if (value < 0) {
    throw std::invalid_argument(std::string("trace.") + name + " must be >= 0 (0 = absent), got " +
                                std::to_string(value));
  }
}

}  // namespace

void TraceConfig::validate() const {
  if (format == "generator") {
    if (generator != "device_io") {
      throw std::invalid_argument("trace.generator must be device_io, got '" + generator + "'");
    }
    device_io.validate();
  } else if (path.empty()) {
    throw std::invalid_argument("trace.path must not be empty");
  }
  if (find_format(format) == nullptr) {
    throw std::invalid_argument("unknown trace.format \"" + format +
                                "\"; known formats: " + known_formats());
  }
  check_column("time_col", time_col);
  check_column("key_col", key_col);
  check_column("size_col", size_col);
  check_column("op_col", op_col);
  if (format == "csv" && key_col < 1) {
    throw std::invalid_argument("trace.key_col must be >= 1 for format \"csv\", got " +
                                std::to_string(key_col));
  }
  if (delimiter == '\n' || delimiter == '\r' || delimiter == '\0') {
    throw std::invalid_argument("trace.delimiter must be a printable character, got code " +
                                std::to_string(static_cast<int>(delimiter)));
  }
  if (!(time_unit_ns > 0) || !std::isfinite(time_unit_ns)) {
    throw std::invalid_argument("trace.time_unit_ns must be a finite number > 0, got " +
                                std::to_string(time_unit_ns));
  }
}

std::unique_ptr<TraceReader> open_trace(const TraceConfig& config) {
  config.validate();
  return find_format(config.format)->make(config);
}

std::vector<std::string> trace_format_names() {
  std::vector<std::string> names;
  names.reserve(kFormats.size());
  for (const FormatEntry& entry : kFormats) names.emplace_back(entry.name);
  return names;
}

uint64_t hash_key(std::string_view key) {
  return XXH3_64bits(key.data(), key.size());
}

}  // namespace flashpq
