// traces/csv_util.h — line splitting and field parsing shared by the text trace readers (csv,
// kvcache_csv, twitter, msr, cachelib_block, fio_iolog). Internal to traces/; not part of the
// public API.
//
// CSV dialect: one record per line, lines end in "\n" or "\r\n", a UTF-8 byte order mark (EF BB
// BF) at the start of the file is skipped (some editors and spreadsheets write one; it is not
// part of the first field), fields are separated by a
// single delimiter character and are taken literally (no quoting or escaping: neither
// libCacheSim's CSV traces nor CacheBench's replay traces quote fields). Numeric fields and op
// names may be surrounded by spaces or tabs, which are ignored; key text is used as is.
#pragma once

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "traces/trace_reader.h"
#include "traces/zstd_stream.h"

namespace flashpq {

/// trace.time_unit, read by the CSV formats (csv, kvcache_csv): the unit of the time column.
inline const KeySpec kTimeUnitKey = key("trace.time_unit", ValueType::kEnum)
                                        .def("s")
                                        .choices({"s", "ms", "us", "ns"})
                                        .desc("unit of the time column");

}  // namespace flashpq

namespace flashpq::csv {

/// Nanoseconds per unit of the time column (trace.time_unit: s, ms, us, ns).
inline double time_unit_ns(const Params& params) {
  const std::string unit = params.get<std::string>(kTimeUnitKey);
  return unit == "s" ? 1e9 : unit == "ms" ? 1e6 : unit == "us" ? 1e3 : 1.0;
}

/// Streams the lines of a (possibly zstd- or gzip-compressed) text file through a fixed buffer
/// that only grows to hold the longest line. Never reads the whole file into memory. A UTF-8
/// byte order mark (EF BB BF, Unicode 15 §23.8) at the start of the text is skipped.
class LineReader {
 public:
  /// Opens `path`. Throws TraceError if it cannot be opened.
  explicit LineReader(const std::string& path) : stream_(path), buf_(kInitialBuffer) {}

  /// Sets `line` to the next line without its "\n" or "\r\n" terminator and returns true, or
  /// returns false at the end of the file. The view is valid until the next call. A last line
  /// without a terminator is returned too. Throws TraceError on I/O or decompression errors.
  bool next(std::string_view& line) {
    if (!started_) {
      started_ = true;
      while (end_ - pos_ < kBom.size() && !eof_) fill();
      if (std::string_view(buf_.data() + pos_, end_ - pos_).starts_with(kBom)) pos_ += kBom.size();
    }
    for (;;) {
      const char* begin = buf_.data() + pos_;
      const void* nl = std::memchr(begin, '\n', end_ - pos_);
      if (nl != nullptr) {
        const size_t len = static_cast<const char*>(nl) - begin;
        line = strip_cr(std::string_view(begin, len));
        pos_ += len + 1;
        ++line_number_;
        return true;
      }
      if (eof_) {
        if (pos_ == end_) return false;
        line = strip_cr(std::string_view(begin, end_ - pos_));
        pos_ = end_;
        ++line_number_;
        return true;
      }
      fill();
    }
  }

  /// The 1-based number of the line last returned by next() (0 before the first call).
  uint64_t line_number() const { return line_number_; }

  /// The path given to the constructor.
  const std::string& path() const { return stream_.path(); }

 private:
  static constexpr size_t kInitialBuffer = kFuzzingBuild ? 64 : 1 << 20;
  static constexpr std::string_view kBom = "\xEF\xBB\xBF";

  static std::string_view strip_cr(std::string_view s) {
    if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
    return s;
  }

  // Moves the unfinished line to the front (growing the buffer if it fills it) and appends
  // file bytes after it.
  void fill() {
    const size_t tail = end_ - pos_;
    if (pos_ != 0) std::memmove(buf_.data(), buf_.data() + pos_, tail);
    if (tail == buf_.size()) buf_.resize(buf_.size() * 2);
    pos_ = 0;
    end_ = tail;
    const size_t want = buf_.size() - end_;
    const size_t got = stream_.read(buf_.data() + end_, want);
    end_ += got;
    if (got < want) eof_ = true;  // ByteStream is short only at its end.
  }

  ByteStream stream_;
  std::vector<char> buf_;
  size_t pos_ = 0;
  size_t end_ = 0;
  bool eof_ = false;
  bool started_ = false;  // the byte order mark is looked for before the first line
  uint64_t line_number_ = 0;
};

/// Splits `line` at every `delim` into `fields` (cleared first; its capacity is reused, so a
/// reader calling this per line does not allocate in steady state). An empty line yields one
/// empty field.
inline void split_fields(std::string_view line, char delim, std::vector<std::string_view>& fields) {
  fields.clear();
  size_t start = 0;
  for (;;) {
    const size_t at = line.find(delim, start);
    if (at == std::string_view::npos) {
      fields.push_back(line.substr(start));
      return;
    }
    fields.push_back(line.substr(start, at - start));
    start = at + 1;
  }
}

/// Returns `s` without leading and trailing spaces and tabs.
inline std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

/// True if `a` equals `b` ignoring ASCII case. `b` must be lower case.
inline bool iequals(std::string_view a, std::string_view lower_b) {
  if (a.size() != lower_b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char c = a[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != lower_b[i]) return false;
  }
  return true;
}

/// Parses a whole field (surrounding blanks ignored) as an unsigned decimal integer of type T.
/// Returns nullopt if the field is empty, has any other character, or does not fit in T.
template <typename T>
std::optional<T> parse_unsigned(std::string_view field) {
  field = trim(field);
  T value{};
  const char* first = field.data();
  const char* last = first + field.size();
  const auto [ptr, ec] = std::from_chars(first, last, value);
  if (field.empty() || ec != std::errc() || ptr != last) return std::nullopt;
  return value;
}

/// Parses a whole field (surrounding blanks ignored) as a signed decimal integer.
inline std::optional<int64_t> parse_signed(std::string_view field) {
  field = trim(field);
  int64_t value = 0;
  const char* first = field.data();
  const char* last = first + field.size();
  const auto [ptr, ec] = std::from_chars(first, last, value);
  if (field.empty() || ec != std::errc() || ptr != last) return std::nullopt;
  return value;
}

/// Parses a time field and converts it to nanoseconds: time * unit_ns. Integer times are
/// converted exactly when unit_ns is a whole number (the default 1e9 is); times written with a
/// '.', 'e' or 'E' are parsed as double and rounded to the nearest nanosecond. Returns nullopt
/// for an empty, malformed, negative or non-finite time, or one whose nanoseconds overflow
/// uint64.
inline std::optional<uint64_t> parse_time_ns(std::string_view field, double unit_ns) {
  field = trim(field);
  constexpr double kTwo64 = 18446744073709551616.0;  // 2^64
  if (field.find_first_of(".eE") == std::string_view::npos) {
    const std::optional<uint64_t> t = parse_unsigned<uint64_t>(field);
    if (!t) return std::nullopt;
    if (unit_ns == std::floor(unit_ns) && unit_ns < kTwo64) {
      uint64_t ns = 0;
      if (__builtin_mul_overflow(*t, static_cast<uint64_t>(unit_ns), &ns)) return std::nullopt;
      return ns;
    }
    const double ns = std::round(static_cast<double>(*t) * unit_ns);
    if (!(ns < kTwo64)) return std::nullopt;
    return static_cast<uint64_t>(ns);
  }
  double t = 0;
  const char* first = field.data();
  const char* last = first + field.size();
  const auto [ptr, ec] = std::from_chars(first, last, t);
  if (ec != std::errc() || ptr != last || !std::isfinite(t) || t < 0) return std::nullopt;
  const double ns = std::round(t * unit_ns);
  if (!(ns < kTwo64)) return std::nullopt;
  return static_cast<uint64_t>(ns);
}

/// Quotes a field for an error message, cutting it to at most 64 characters.
inline std::string quote(std::string_view s) {
  constexpr size_t kMax = 64;
  std::string out = "'";
  out.append(s.substr(0, kMax));
  if (s.size() > kMax) out += "...";
  out += '\'';
  return out;
}

/// Throws TraceError "<path>:<line>: <column>: expected <what>, found '<field>'".
/// `column` is a description such as "column 'size'" or "column 4 ('size')".
[[noreturn]] inline void throw_field_error(const std::string& path, uint64_t line,
                                           std::string_view column, std::string_view what,
                                           std::string_view field) {
  throw TraceError(path + ":" + std::to_string(line) + ": " + std::string(column) + ": expected " +
                   std::string(what) + ", found " + quote(field));
}

}  // namespace flashpq::csv
