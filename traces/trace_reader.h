// traces/trace_reader.h — the trace-source extension point.
//
// A TraceReader streams Requests from a file or a generator in fixed-size batches; it never holds
// the whole trace in memory. A format is one file of this folder (its reader, its keys, its
// TraceFormat) plus one line in the registry of trace_reader.cpp; the YAML key `trace.format`
// selects it by name. Generators are one more format, "generator", with a registry of their own
// (traces/generator.h).
//
// A file's format is decided by its content wherever the content can: compression (zstd, gzip)
// always is (traces/zstd_stream.h), and a format with a magic number at its start — fpq, lcs,
// fio_iolog — is recognised by it whatever the file's name or the format named
// (trace_format_for()). The format named (trace.format, --format) decides the others, then the
// file's extension, then "oracleGeneral", libCacheSim's headerless binary.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
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
  /// requests made by the generator trace.generator names), ... (trace_format_names()).
  /// Default "oracleGeneral". trace_file() and the experiment loader set it with
  /// trace_format_for(), the content first.
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

/// A trace file at `path` (no other key set): the usual way to read a file in code. Its format
/// is trace_format_for(path, format, option): the content's when it has a magic number, else
/// `format` when given, else by the extension, else "oracleGeneral". With an empty path (a
/// config whose path is set later) the format is `format`, or "oracleGeneral".
/// Throws std::invalid_argument as trace_format_for().
TraceConfig trace_file(const std::string& path, const std::string& format = "",
                       std::string_view option = "trace.format");

/// The trace a command names (`flashpq trace`, the Python package's trace_info and read_trace):
/// "generator:NAME" (generator NAME, traces/generator.h, its keys unset), else the file
/// trace_file(source, format, option) reads. Throws std::invalid_argument as trace_file().
TraceConfig trace_source(const std::string& source, const std::string& format = "",
                         std::string_view option = "--format");

/// What the first bytes of a trace file say (trace_content()).
struct TraceContent {
  /// "zstd" or "gzip" when the file is compressed (by their magic numbers: zstd 28 B5 2F FD,
  /// RFC 8878 §3.1.1, and its skippable frames; gzip 1F 8B, RFC 1952 §2.3.1), else "".
  std::string compression;
  /// The format whose magic number starts the (decompressed) content, else "": "fpq" (the
  /// bytes "FPQTRACE", traces/fpq.h), "lcs" (u64 0x123456789abcdef0, little-endian: libCacheSim
  /// traceReader/customizedReader/lcs.h), "fio_iolog" (the line "fio version 2 iolog" or "fio
  /// version 3 iolog": fio HOWTO, "Trace file format").
  std::string format;
  /// The content for messages: "a .fpq trace (magic 'FPQTRACE' at byte 0)", "text (first
  /// line 'key,op,size')", "binary data without a magic number", "empty", ...
  std::string what;
  /// True when the first bytes (up to 4 KiB) are UTF-8 text: no NUL or other control
  /// character but tab, CR and LF (a UTF-8 byte order mark, EF BB BF, is allowed first).
  bool text = false;
};

/// Reads up to the first 8 KiB of the (decompressed) file at `path` and says what they are.
/// Never throws: a file that cannot be read, or whose compressed data are corrupt, is
/// reported as such in `what` (the reader's own error says more when it is opened).
TraceContent trace_content(const std::string& path);

/// The format in which to read the trace file at `path`, given the format named by the user
/// (`named`, "" for none) under the name `option` ("trace.format", "--format"):
///   1. the format of the content's magic number (trace_content()) — if `named` is another,
///      std::invalid_argument "PATH: the content is WHAT, not NAMED as OPTION says: use OPTION
///      FORMAT, or leave OPTION out (the content decides)"; a compressed .fpq file is refused
///      too (it is read with mmap: decompress it first);
///   2. else `named`;
///   3. else the extension, compression suffixes (.zst, .zstd, .gz) aside: .fpq -> fpq,
///      .lcs -> lcs;
///   4. else, for text content, std::invalid_argument naming the text formats to choose from
///      (a CSV trace read as binary records would be nonsense);
///   5. else "oracleGeneral".
/// A file that does not exist or cannot be read gets steps 2, 3 and 5 (its reader reports it).
/// `named` "generator" is returned as it is.
std::string trace_format_for(const std::string& path, const std::string& named,
                             std::string_view option = "trace.format");

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
