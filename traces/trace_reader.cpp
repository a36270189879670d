// traces/trace_reader.cpp — the format registry, the trace section and the content hashes.
//
// To add a format: write traces/<name>_reader.cpp with its reader, its keys and a TraceFormat,
// and add one line to the registry below (README "Adding a component").
#include "traces/trace_reader.h"

#include <xxhash.h>

#include <cstdio>
#include <memory>

#include "fmt/format.h"
#include "traces/transforms.h"

namespace flashpq {

// The registry, in registration order: one X(...) line per format, each defined in its own
// reader file ("generator" has no file: traces/generator.h). The list both declares the formats
// and fills the table.
#define FLASHPQ_TRACE_FORMATS(X) \
  X(kOracleGeneralFormat)        \
  X(kKvcacheCsvFormat)           \
  X(kCsvFormat)                  \
  X(kTwitterFormat)              \
  X(kMsrFormat)                  \
  X(kFioIologFormat)             \
  X(kCachelibBlockFormat)        \
  X(kFpqFormat)                  \
  X(kLcsFormat)                  \
  X(kGeneratorFormat)

#define FLASHPQ_DECLARE(format) extern const TraceFormat format;
FLASHPQ_TRACE_FORMATS(FLASHPQ_DECLARE)
#undef FLASHPQ_DECLARE

const KeySpec kTracePathKey = key("trace.path", ValueType::kPath)
                                  .units("path")
                                  .existing_file()
                                  .strict_to_readers()
                                  .desc("trace file (plain or zstd-compressed)");

const std::vector<const TraceFormat*>& trace_formats() {
#define FLASHPQ_ADDRESS(format) &format,
  static const std::vector<const TraceFormat*> formats = {FLASHPQ_TRACE_FORMATS(FLASHPQ_ADDRESS)};
#undef FLASHPQ_ADDRESS
  return formats;
}

const std::vector<std::string>& trace_format_names() {
  static const std::vector<std::string> names = entry_names(trace_formats());
  return names;
}

const TraceFormat& trace_format(const std::string& name) {
  return entry_named(trace_formats(), name, "trace.format");
}

const SectionSpec& trace_section() {
  static const SectionSpec section = registry_section(
      "trace", {kTracePathKey, transforms_key()},
      key("trace.format", ValueType::kEnum).def("oracleGeneral").desc("trace format"),
      entry_specs(trace_formats()));
  return section;
}

TraceConfig trace_file(const std::string& path, const std::string& format) {
  TraceConfig c;
  c.format = format;
  c.params.set(kTracePathKey.name, path);
  return c;
}

std::unique_ptr<TraceReader> open_trace(const TraceConfig& config) {
  const TraceFormat& format = trace_format(config.format);
  format.check(config);
  std::unique_ptr<TraceReader> reader = format.open(config);
  const std::vector<TransformSpec> transforms = trace_transforms(config);
  if (transforms.empty()) return reader;
  return apply_transforms(std::move(reader), transforms,
                          [config, open = format.open] { return open(config); });
}

std::vector<TransformSpec> trace_transforms(const TraceConfig& config) {
  if (!config.params.has(transforms_key().name)) return {};
  return parse_transforms(config.params.text(transforms_key().name));
}

uint64_t hash_key(std::string_view key) {
  return XXH3_64bits(key.data(), key.size());
}

std::string file_content_hash(const std::string& path) {
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) throw TraceError(path + ": cannot open for hashing");
  std::unique_ptr<XXH3_state_t, XXH_errorcode (*)(XXH3_state_t*)> st(XXH3_createState(),
                                                                     &XXH3_freeState);
  XXH3_64bits_reset(st.get());
  std::vector<char> buf(1 << 20);
  for (size_t n; (n = std::fread(buf.data(), 1, buf.size(), f.get())) > 0;) {
    XXH3_64bits_update(st.get(), buf.data(), n);
  }
  if (std::ferror(f.get())) throw TraceError(path + ": read error while hashing");
  return fmt::format("{:016x}", XXH3_64bits_digest(st.get()));
}

std::string text_content_hash(std::string_view text) {
  return fmt::format("{:016x}", XXH3_64bits(text.data(), text.size()));
}

}  // namespace flashpq
