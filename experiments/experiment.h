// experiments/experiment.h — YAML experiment matrices: schema, loading, expansion into cells.
//
// Source: DESIGN.md "Configuration". An experiment file names every parameter by a dotted path
// (`policy.name`, `cache.capacity`); the lists under `matrix:` form a cartesian product, the
// first key varying slowest; the lists under `zip:` (all of one length) vary together as one
// more axis, varying fastest (e.g. an I/O size with the request count that suits it).
// `--set KEY=VALUE` replaces that key everywhere, the matrix and zip included (a YAML list as
// VALUE makes it a matrix axis, or replaces its zip list; a scalar pins it). `exclude:` is a list
// of mappings from dotted keys to a value or a list of values; a cell whose value of every key of
// an entry is one of that entry's values is dropped, and the cells left are numbered in order
// (a value that a matrix or zip key never takes is an error, to catch typos). Unknown keys, bad
// units and out-of-range values are errors naming the file, the line, the key and what is allowed,
// and they are all found before any cell runs.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "devices/device.h"
#include "engine/admission.h"
#include "engine/cache.h"
#include "engine/framework.h"
#include "policies/policy.h"
#include "sim/timing.h"
#include "traces/trace_reader.h"

namespace flashpq {

/// A configuration error. what() reads "FILE:LINE: key 'K': expected …, found …".
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The kinds of value the schema knows.
enum class ValueType {
  kString,
  kPath,
  kEnum,
  kInt,
  kFloat,
  kBool,
  kFraction,
  kUnitInterval,
  kCapacity,
  kSize,
  kChar
};

/// One configurable key.
struct KeySpec {
  std::string key;  // dotted path
  ValueType type;
  std::string default_value;  // as YAML text; empty = required
  std::string unit;           // for help: "bytes", "fraction", "" …
  std::string help;
  std::vector<std::string> allowed;  // kEnum: the allowed values
  double min = 0, max = 0;           // kInt, kFloat: inclusive range
  /// May be left unset (default_value empty): the component resolves it (a device profile's
  /// value, or not applicable); the results row then shows the resolved value or nothing.
  bool optional = false;
};

/// Every key an experiment may set, in the order results columns use.
const std::vector<KeySpec>& experiment_schema();

/// The help text listing every key with its type, default and unit (for `flashpq run --help`).
std::string schema_help();

/// A value as written, with where it was written ("file.yaml:12" or "--set").
struct SourcedValue {
  std::string text;
  std::string where;
};

/// A cache capacity as written: a byte count, or a fraction of the working set.
struct CapacitySpec {
  bool is_fraction = false;
  double fraction = 0;  // in (0, 1] when is_fraction
  uint64_t bytes = 0;   // when !is_fraction

  /// Resolves against a working set (bytes, or objects in unit-size mode):
  /// floor(fraction × working set) as libCacheSim does, at least 1. REQUIRES: validated.
  uint64_t resolve(uint64_t working_set) const;
};

/// One cell: every parameter typed and validated, plus the text of each for the results row.
struct CellConfig {
  std::string experiment;
  size_t index = 0;  // 0-based position among the cells run (the expansion less exclude:)
  TraceConfig trace;
  uint64_t seed = 1;
  double warmup = 0;  // fraction of requests in [0, 1)
  CapacitySpec capacity;
  CacheConfig cache;  // capacity_bytes is filled in once the trace is summarised
  PolicyConfig policy;
  AdmissionConfig admission;
  FrameworkConfig framework;
  DeviceConfig device;
  TimingConfig timing;
  /// (dotted key, value text) for every schema key, in schema order.
  std::vector<std::pair<std::string, std::string>> parameters;
};

/// A loaded experiment: its cells and where results go.
struct Experiment {
  std::string name;
  std::string output;  // path of the results file (.csv, or .jsonl for JSON Lines)
  std::vector<CellConfig> cells;
};

/// One `--set KEY=VALUE` override.
struct Override {
  std::string key;
  std::string value;  // YAML text: a scalar, or a flow list "[a, b]" for a matrix axis
};

/// Loads, overrides, expands and validates an experiment file. A relative `trace.path` is taken
/// from the current directory when it exists there, else from the YAML file's directory; a
/// relative `output` is taken from the current directory. Throws ConfigError (naming file, line,
/// key, what is allowed) on any problem; nothing is run.
Experiment load_experiment(const std::string& path, const std::vector<Override>& overrides);

/// Parses "256MiB", "4KiB", "1GB", "4096" (bytes). Binary units KiB..TiB = 2^10..2^40, decimal
/// kB/KB..TB = 10^3..10^12, B = 1. Throws std::invalid_argument describing what is allowed.
uint64_t parse_size(const std::string& text);

}  // namespace flashpq
