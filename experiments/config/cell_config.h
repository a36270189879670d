// experiments/config/cell_config.h — one cell of an experiment: every section decoded and
// checked, and the text of every key for its results row.
//
// make_cell() is where the schema's rules are applied, all before any cell runs
// (docs/DESIGN.md "Parameters"): each key's value is checked against its declaration; a key a
// selected component reads takes its value or default (a required key must be written); a key
// no selected component reads is an error when set if it is strict, and otherwise shown but
// ignored; the selected device resolves its keys (simflash from its profile, a block device by
// probing it, read-only) and the trace learns the device's geometry; every component's own
// check runs; and every requirement across components is checked. An error names the file and
// line where the offending value was written, the key, what is allowed and what was found.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "devices/backing.h"
#include "devices/device.h"
#include "engine/admission.h"
#include "engine/cache.h"
#include "engine/queue.h"
#include "engine/tiers.h"
#include "experiments/config/stats_config.h"
#include "policies/policy.h"
#include "sim/timing.h"
#include "traces/trace_reader.h"

namespace flashpq {

/// A configuration error. what() reads "FILE:LINE: key 'K': expected …, found …".
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A value as written, with where it was written ("file.yaml:12", "--set", or "file.yaml
/// (default)" for a key's default).
struct SourcedValue {
  std::string text;
  std::string where;
  /// Whether the value is the key's default, not written in the file or with --set.
  bool is_default() const { return where.ends_with(" (default)"); }
};

/// One cell: every section decoded and checked, plus the text of each key for the results row.
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
  /// What the device resolved to (its exported capacity and logical block).
  DeviceBounds device_bounds;
  TimingConfig timing;
  /// The hierarchy over the cache (engine/tiers.h); mode none without a `tiers:` section. The
  /// DRAM capacity is resolved in the plan (CellPlan::tiers).
  TiersConfig tiers;
  /// The hierarchy's backing store (devices/backing.h); counted without a `backing:` section.
  BackingConfig backing;
  /// The `stats:` section: a timed cell's series over time (experiments/config/stats_config.h).
  StatsConfig stats;
  /// (dotted key, value text) for every schema key, in schema order: what was written or the
  /// default, the value a component resolved (simflash's profile fields), or empty for a key
  /// no selected component reads (strict keys).
  std::vector<std::pair<std::string, std::string>> parameters;
  /// The keys of `parameters` that were written but that no selected component reads (a matrix
  /// crossing one component's name with another's keys): two cells that differ only in them
  /// compute the same thing (flashpq plan reports them as duplicates).
  std::vector<std::string> ignored_keys;
  /// Set from the command line (flashpq run --iolog), never from a YAML file: where the cell's
  /// device I/O is written as a fio iolog (devices/io_log.h). Empty (default): not recorded.
  /// Not a parameter: the row is the same with or without it.
  std::string iolog_path;
  /// Set by `flashpq run` (beside the results: OUTPUT_STEM.stats/cell-INDEX.csv), never from a
  /// YAML file: where a cell with stats.interval_s > 0 writes its series (stats_path), and the
  /// row's stats_file, that path relative to the results file's directory. A cell with a series
  /// and no stats_path fails. Not parameters.
  std::string stats_path;
  std::string stats_file;
};

/// Builds cell `index` of experiment `experiment` (file `file`) from `values`, every schema key
/// with its text (empty = unset) and where it was written. Throws ConfigError.
CellConfig make_cell(const std::string& file, const std::string& experiment, size_t index,
                     const std::map<std::string, SourcedValue>& values);

/// A path-valued key's value as the loader resolves it, absolute: a relative path written in the
/// experiment file `yaml_file` (`where` "FILE:LINE", or "FILE (default)") from the file's
/// directory; one given with --set (`where` "--set KEY") from the working directory. An empty
/// path stays empty.
std::string resolve_path(const std::string& path, const std::string& where,
                         const std::string& yaml_file);

}  // namespace flashpq
