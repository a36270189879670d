// traces/trace_reader.h — the trace-source extension point.
//
// A TraceReader streams Requests from a file or a generator in fixed-size batches; it never holds
// the whole trace in memory. A format is one file of this folder (its reader, its keys, its
// TraceFormat) plus one line in the registry of trace_reader.cpp; the YAML key `trace.format`
// selects it by name. Generators are one more format, "generator", with a registry of their own
// (traces/generator.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "devices/device.h"
#include "engine/request.h"
#include "sim/params.h"

namespace flashpq {

/// Thrown for any malformed or unreadable trace. what() names the file and the record
/// (binary formats: 0-based record index and byte offset) or the line (text formats: 1-based
/// line number), what was expected and what was found.
class TraceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// How to read one trace: the registered format (and, for "generator", the generator), the
/// values of the trace section's keys, and what the cell adds to them. Each format and generator
/// declares the keys it reads and decodes them itself.
struct TraceConfig {
  /// Registered format name: "oracleGeneral" (libCacheSim binary, plain or .zst),
  /// "kvcache_csv" (CacheBench kvcache CSV), "csv" (generic CSV), "generator" (no file:
  /// requests made by the generator trace.generator names). Default "oracleGeneral".
  std::string format = "oracleGeneral";
  /// The trace.* values, by dotted key (trace.path, the CSV columns, the generator's keys).
  Params params;
  /// The cell's seed: generators draw from it. Default 1.
  uint64_t seed = 1;
  /// The geometry of the cell's device: generators of device I/O address its exported space
  /// and align to its logical block. Default unbounded, byte-addressed.
  DeviceBounds device;

  /// The trace file (trace.path), or "" for a generator.
  const std::string& path() const { return params.text("trace.path"); }
};

/// A trace file at `path` in `format` (no other key set): the usual way to read a file in code.
TraceConfig trace_file(const std::string& path, const std::string& format = "oracleGeneral");

/// trace.path, read by every format that reads a file: the trace file (plain or
/// zstd-compressed). Required for those formats; set with a generator it is an error.
extern const KeySpec kTracePathKey;

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

  /// How many requests at the start of the trace prepare the device rather than measure it
  /// (the device_io generator's sequential fill): they always belong to the warm-up. Default 0.
  virtual uint64_t preconditioning_requests() const { return 0; }
};

/// A trace format as registered (traces/trace_reader.cpp, one line per format).
struct TraceFormat {
  /// Name, summary, keys (and, for "generator", the generators).
  const ComponentSpec& (*spec)();
  /// Opens the trace. Throws TraceError if the file cannot be opened.
  std::unique_ptr<TraceReader> (*open)(const TraceConfig& config);
  /// What identifies the requests: XXH3-64 of a file's bytes, or of a generator's parameters,
  /// as 16 lowercase hex digits. Throws TraceError if unreadable.
  std::string (*content_hash)(const TraceConfig& config);
  /// Checks the config before anything runs, beyond its keys' own checks (the key values are
  /// checked by the experiment loader). Throws std::invalid_argument quoting a bad value.
  void (*check)(const TraceConfig& config);
};

/// The registered formats, in registration order.
const std::vector<const TraceFormat*>& trace_formats();
/// The format registered under `name`. Throws std::invalid_argument naming the allowed names.
const TraceFormat& trace_format(const std::string& name);
/// The `trace:` section: trace.path, trace.transforms (traces/transforms.h), trace.format, then
/// every format's keys (sim/params.h).
const SectionSpec& trace_section();

/// Opens the trace described by `config` (checked here), its trace.transforms applied in order
/// (traces/transforms.h). Throws std::invalid_argument for an unknown format, transform or a bad
/// value, and TraceError if the file cannot be opened.
std::unique_ptr<TraceReader> open_trace(const TraceConfig& config);

/// The registered trace format names, in registration order.
const std::vector<std::string>& trace_format_names();

/// Hashes a string key to 64 bits (XXH3-64, seed 0): stable across runs, machines and builds.
uint64_t hash_key(std::string_view key);

/// XXH3-64 of a file's bytes, as 16 lowercase hex digits (TraceFormat::content_hash of the
/// formats that read a file). Throws TraceError if unreadable.
std::string file_content_hash(const std::string& path);
/// XXH3-64 of a text, as 16 lowercase hex digits (a generator's parameters).
std::string text_content_hash(std::string_view text);

}  // namespace flashpq
