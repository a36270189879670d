// traces/trace_reader.h — the trace-source extension point.
//
// A TraceReader streams Requests from a file in fixed-size batches; it never holds the whole
// trace in memory. One implementation per file in this folder, each registered by its format
// name in trace_reader.cpp; the YAML key `trace.format` selects it by that name.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/request.h"
#include "traces/device_io.h"

namespace flashpq {

/// Thrown for any malformed or unreadable trace. what() names the file and the record
/// (binary formats: 0-based record index and byte offset) or the line (text formats: 1-based
/// line number), what was expected and what was found.
class TraceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// How to read one trace. Every field has a default; validate() checks the combination.
struct TraceConfig {
  /// Path of the trace file. REQUIRES: non-empty unless the format is "generator". Relative
  /// paths are taken as given (the experiment loader resolves them against the YAML file's
  /// directory).
  std::string path;
  /// Registered format name: "oracleGeneral" (libCacheSim binary, plain or .zst),
  /// "kvcache_csv" (CacheBench kvcache CSV), "csv" (generic CSV, columns mapped below),
  /// "generator" (no file: requests made by `generator`).
  std::string format = "oracleGeneral";
  /// Format "generator" only: the generator's name; "device_io" (traces/device_io.h) is the
  /// only one. Default "device_io".
  std::string generator = "device_io";
  /// Format "generator", generator "device_io": its parameters.
  DeviceIoConfig device_io;
  /// Generic CSV only: 1-based column numbers; 0 means the column is absent.
  /// key_col is required (>= 1). Without size_col every request has size 1; without op_col
  /// every request is a get; without time_col every time is 0.
  int time_col = 0;
  int key_col = 0;
  int size_col = 0;
  int op_col = 0;
  /// Generic CSV only: whether the first line is a header to skip. Default false.
  bool has_header = false;
  /// Generic CSV only: the field delimiter, one character. Default ','.
  char delimiter = ',';
  /// Generic CSV only: true parses keys as unsigned decimal integers; false hashes the key
  /// text with XXH3-64 (the same hash the kvcache reader uses). Default true.
  bool key_is_numeric = true;
  /// Generic CSV and kvcache CSV: nanoseconds per unit of the time column. Default 1e9
  /// (times in seconds, as libCacheSim's and CacheBench's CSV traces are).
  double time_unit_ns = 1e9;

  /// Throws std::invalid_argument quoting the bad value if the config is inconsistent
  /// (unknown format, empty path, key_col < 1 for csv, negative columns, time_unit_ns <= 0).
  void validate() const;
};

/// A stream of Requests. Not thread-safe; one reader per thread.
class TraceReader {
 public:
  virtual ~TraceReader() = default;

  /// Fills `out` with up to out.size() requests in trace order and returns how many it wrote.
  /// Returns 0 only at the end of the trace; afterwards keeps returning 0.
  /// Throws TraceError on malformed input (the message names file and record or line).
  virtual size_t read(std::span<Request> out) = 0;

  /// The path this reader was opened on, for messages.
  virtual const std::string& path() const = 0;
};

/// Opens the trace described by `config` (validated here). Throws std::invalid_argument for an
/// unknown format and TraceError if the file cannot be opened.
std::unique_ptr<TraceReader> open_trace(const TraceConfig& config);

/// The registered trace format names, in registration order.
std::vector<std::string> trace_format_names();

/// Hashes a string key to 64 bits (XXH3-64, seed 0): stable across runs, machines and builds.
uint64_t hash_key(std::string_view key);

}  // namespace flashpq
