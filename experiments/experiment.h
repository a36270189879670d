// experiments/experiment.h — YAML experiment matrices: loading and expansion into cells.
//
// Source: docs/DESIGN.md "Configuration". An experiment file names every parameter by a dotted
// path (`policy.name`, `cache.capacity`); the lists under `matrix:` form a cartesian product, the
// first key varying slowest; the lists under `zip:` (all of one length) vary together as one
// more axis, varying fastest (e.g. an I/O size with the request count that suits it).
// `--set KEY=VALUE` replaces that key everywhere, the matrix and zip included (a YAML list as
// VALUE makes it a matrix axis, or replaces its zip list; a scalar pins it). `exclude:` is a list
// of mappings from dotted keys to a value or a list of values; a cell whose value of every key of
// an entry is one of that entry's values is dropped, and the cells left are numbered in order
// (a value that a matrix or zip key never takes is an error, to catch typos). Unknown keys, bad
// units and out-of-range values are errors naming the file, the line, the key and what is allowed,
// and they are all found before any cell runs. A `curve:` section ({method, rate, sample_keys})
// makes the matrix's sizes a curve (ExperimentCurve). The keys are the schema's
// (experiments/config/schema.h), assembled from the components' own declarations; a cell is
// built by make_cell() (experiments/config/cell_config.h).
#pragma once

#include <string>
#include <vector>

#include "experiments/config/cell_config.h"
#include "experiments/config/schema.h"

namespace flashpq {

/// An experiment's `curve:` section (docs/guide/curves.md): `flashpq run` then computes one
/// curve per group of cells alike but for cache.capacity, in one read of the trace each,
/// instead of running the cells. Empty method: no section, the cells run.
struct ExperimentCurve {
  /// exact_lru, shards or minisim (experiments/curves.h); "" without a curve: section.
  std::string method;
  /// shards (fixed rate) and minisim: the sampling rate, in (0, 1].
  double rate = 0.01;
  /// shards: a fixed-size sample of at most this many keys; 0: fixed rate.
  uint64_t sample_keys = 0;
};

/// A loaded experiment: its cells and where results go.
struct Experiment {
  std::string name;
  /// Absolute path of the results file (.csv, or .jsonl for JSON Lines): `output:` as written
  /// in the file, from the file's directory; as given with --set, or the default
  /// results/NAME.csv, from the working directory.
  std::string output;
  std::vector<CellConfig> cells;
  /// The `curve:` section (curve.method, curve.rate, curve.sample_keys, also with --set).
  ExperimentCurve curve;
};

/// One `--set KEY=VALUE` override.
struct Override {
  std::string key;
  std::string value;  // YAML text: a scalar, or a flow list "[a, b]" for a matrix axis
};

/// Loads, overrides, expands and checks an experiment file. One rule for paths: a relative path
/// written in the file (`output:`, and every path-valued key: trace.path, trace.size_trace,
/// device.path, device.profile and backing.profile naming a .yaml file, backing.path) is taken
/// from the file's directory; one given with --set KEY=VALUE, from the working directory
/// (resolve_path(), experiments/config/cell_config.h). Throws ConfigError (naming file, line,
/// key, what is allowed) on any problem; nothing is run.
Experiment load_experiment(const std::string& path, const std::vector<Override>& overrides);

/// As load_experiment(), for an experiment given as YAML text (the Python package's
/// flashpq.run() with a string or a dict). `name` stands for the file: messages name it
/// ("<string>:3: unknown key ..."), the experiment is called "experiment" unless the text has
/// `name:`, and relative paths in the text are taken from its directory (the working directory
/// for a bare name such as "<string>").
Experiment load_experiment_text(const std::string& text, const std::string& name,
                                const std::vector<Override>& overrides);

}  // namespace flashpq
