// traces/trace_reader.cpp — the format registry, the trace section and the content hashes.
//
// To add a format: write traces/<name>_reader.cpp with its reader, its keys and a TraceFormat,
// and add one line to the registry below (docs/guide/extending.md "The other kinds").
#include "traces/trace_reader.h"

#include <xxhash.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include "fmt/format.h"
#include "traces/csv_util.h"
#include "traces/fpq.h"
#include "traces/generator.h"
#include "traces/transforms.h"
#include "traces/zstd_stream.h"

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
      key("trace.format", ValueType::kEnum)
          .def("oracleGeneral")
          .desc("trace format; not written: the file's content decides when it has a magic "
                "number (fpq, lcs, fio_iolog), else its extension (.fpq, .lcs), else "
                "oracleGeneral"),
      entry_specs(trace_formats()));
  return section;
}

TraceConfig trace_source(const std::string& source, const std::string& format,
                         std::string_view option) {
  if (!source.starts_with("generator:")) return trace_file(source, format, option);
  TraceConfig t;
  t.format = "generator";
  t.params.set(generator_key().name, source.substr(10));
  return t;
}

TraceConfig trace_file(const std::string& path, const std::string& format,
                       std::string_view option) {
  TraceConfig c;
  c.format = path.empty() ? (format.empty() ? "oracleGeneral" : format)
                          : trace_format_for(path, format, option);
  c.params.set(kTracePathKey.name, path);
  return c;
}

namespace {

// libCacheSim's lcs magic (traceReader/customizedReader/lcs.h; traces/lcs_reader.cpp reads it).
constexpr unsigned char kLcsMagic[8] = {0xf0, 0xde, 0xbc, 0x9a, 0x78, 0x56, 0x34, 0x12};
// A UTF-8 byte order mark (Unicode 15, §23.8), which some editors put at the start of a file.
constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";
// The text formats, for the message that asks to name one.
constexpr const char* kTextFormats = "csv, kvcache_csv, twitter, msr or cachelib_block";

// Whether `s` is UTF-8 text: no control character but tab, LF and CR, and well-formed
// multi-byte sequences (one cut by the end of `s` counts when `s` is only the file's start).
bool utf8_text(std::string_view s, bool whole_file) {
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) return false;
      ++i;
      continue;
    }
    const size_t n = c >= 0xc2 && c <= 0xdf   ? 2
                     : c >= 0xe0 && c <= 0xef ? 3
                     : c >= 0xf0 && c <= 0xf4 ? 4
                                              : 0;
    if (n == 0) return false;
    if (i + n > s.size()) return !whole_file;
    for (size_t k = 1; k < n; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return false;
    }
    i += n;
  }
  return true;
}

// The name without compression suffixes: "t.lcs.zst" -> "t.lcs".
std::string without_compression_suffix(std::string name) {
  for (const char* suffix : {".zst", ".zstd", ".gz"}) {
    if (name.ends_with(suffix)) return name.substr(0, name.size() - std::strlen(suffix));
  }
  return name;
}

}  // namespace

TraceContent trace_content(const std::string& path) {
  TraceContent c;
  std::string head;
  try {
    ByteStream in(path);
    head.resize(4096);
    head.resize(in.read(head.data(), head.size()));
    c.compression = in.compression();
  } catch (const std::exception& e) {
    c.what = std::string("unreadable (") + e.what() + ")";
    return c;
  }
  // "a zstd-compressed .fpq trace", "gzip-compressed text".
  const std::string packed = c.compression.empty() ? "" : c.compression + "-compressed ";
  const std::string_view h(head);
  if (h.starts_with(FpqHeader::kMagic)) {
    c.format = "fpq";
    c.what = "a " + packed + ".fpq trace (magic 'FPQTRACE' at byte 0)";
    return c;
  }
  if (h.size() >= sizeof kLcsMagic && std::memcmp(h.data(), kLcsMagic, sizeof kLcsMagic) == 0) {
    c.format = "lcs";
    c.what = "a " + packed + "libCacheSim lcs trace (magic 0x123456789abcdef0 at byte 0)";
    return c;
  }
  if (h.empty()) {
    c.what = c.compression.empty() ? "empty" : "empty (" + c.compression + "-compressed)";
    return c;
  }
  const bool whole_file = head.size() < 4096;
  std::string_view body = h.starts_with(kUtf8Bom) ? h.substr(kUtf8Bom.size()) : h;
  c.text = utf8_text(body, whole_file);
  if (!c.text) {
    c.what = packed + "binary data without a magic number";
    return c;
  }
  std::string_view first = body.substr(0, body.find('\n'));
  if (first.ends_with('\r')) first.remove_suffix(1);
  first = csv::trim(first);
  if (first.starts_with("fio version ") && first.ends_with(" iolog")) {
    c.format = "fio_iolog";
    c.what = "a " + packed + "fio iolog (first line " + csv::quote(first) + ")";
    return c;
  }
  c.what = packed + "text (first line " + csv::quote(first) + ")";
  return c;
}

std::string trace_format_for(const std::string& path, const std::string& named,
                             std::string_view option) {
  if (named == "generator" || path.empty()) return named.empty() ? "oracleGeneral" : named;
  std::error_code ec;
  const bool readable = std::filesystem::is_regular_file(path, ec);
  const TraceContent content = readable ? trace_content(path) : TraceContent{};
  if (!content.format.empty()) {
    if (!named.empty() && named != content.format) {
      throw std::invalid_argument(fmt::format(
          "{}: the content is {}, not {} as {} says: use {} {}, or leave {} out (the content "
          "decides)",
          path, content.what, named, option, option, content.format, option));
    }
    if (content.format == "fpq" && !content.compression.empty()) {
      throw std::invalid_argument(
          fmt::format("{}: the content is {}: a .fpq trace is read in place (mmap), so it must "
                      "not be compressed: decompress it first ({} -d)",
                      path, content.what, content.compression == "gzip" ? "gzip" : "zstd"));
    }
    return content.format;
  }
  if (!named.empty()) return named;
  const std::string name =
      without_compression_suffix(std::filesystem::path(path).filename().string());
  if (name.ends_with(".fpq")) return "fpq";
  if (name.ends_with(".lcs")) return "lcs";
  if (content.text) {
    throw std::invalid_argument(
        fmt::format("{}: the content is {}, not a binary trace: name its format with {} ({})", path,
                    content.what, option, kTextFormats));
  }
  return "oracleGeneral";
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
