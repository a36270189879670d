// traces/kvcache_csv_reader.cpp — CacheBench's key-value replay trace (format "kvcache_csv").
//
// Format source: CacheLib (github.com/facebook/CacheLib) cachelib/cachebench/workload/
// KVReplayGenerator.h, CacheBench's reader of the sample traces
// cachelib/cachebench/test_configs/trace_replay/kvcache/kv_traces_{1,2}.csv. The first line is a
// header; columns are found by name, so their order does not matter:
//
//   key        required  opaque string; hashed once with hash_key() (XXH3-64).
//   op         required  GET, GET_LEASE -> get; SET, SET_LEASE -> set; DELETE -> delete
//                        (exact, upper case, as CacheBench writes them); anything else is an error.
//   size       required  value size in bytes (uint32). Key bytes are not added.
//   op_count   optional  the request is repeated this many times (>= 1; default 1).
//   op_time    optional  time in units of trace.time_unit (default: seconds).
//   key_size, ttl and any other column: ignored.
//
// Rows with size 0 are skipped for get and set (they describe a value that can never be
// inserted; the reference runs in the README drop them too, which is what libCacheSim does with
// a size-0 request). A DELETE row with size 0 is kept with size 1 (Request never carries size 0;
// a delete's size is not used). Empty lines are skipped. Every other malformed row is a
// TraceError naming "<file>:<line>" (1-based; the header is line 1), the column, and the text
// found.
#include <algorithm>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "traces/csv_util.h"
#include "traces/trace_reader.h"

namespace flashpq {

namespace {

constexpr size_t kAbsentColumn = static_cast<size_t>(-1);
using NamedColumn = std::pair<size_t, const char*>;  // 0-based field index, header name.

class KvcacheCsvReader final : public TraceReader {
 public:
  explicit KvcacheCsvReader(const TraceConfig& config)
      : lines_(config.params.get<std::string>(kTracePathKey)),
        time_unit_ns_(csv::time_unit_ns(config.params)) {
    std::string_view header;
    if (!lines_.next(header)) {
      throw TraceError(path() + ": empty file; expected a header line naming the columns");
    }
    csv::split_fields(header, ',', fields_);
    for (size_t i = 0; i < fields_.size(); ++i) {
      const std::string_view name = csv::trim(fields_[i]);
      if (name == "key") key_col_ = i;
      if (name == "op") op_col_ = i;
      if (name == "size") size_col_ = i;
      if (name == "op_count") count_col_ = i;
      if (name == "op_time") time_col_ = i;
    }
    for (const auto& [col, name] : std::initializer_list<NamedColumn>{
             {key_col_, "key"}, {op_col_, "op"}, {size_col_, "size"}}) {
      if (col == kAbsentColumn) {
        throw TraceError(
            path() + ":1: missing required column '" + name +
            "' (kvcache_csv needs key, op and size); header found: " + csv::quote(header));
      }
    }
    for (size_t col : {key_col_, op_col_, size_col_, count_col_, time_col_}) {
      if (col != kAbsentColumn) min_fields_ = std::max(min_fields_, col + 1);
    }
    header_ = std::string(header);
  }

  size_t read(std::span<Request> out) override {
    size_t n = 0;
    while (n < out.size()) {
      if (repeats_left_ == 0 && !next_row()) break;
      const size_t k = static_cast<size_t>(std::min<uint64_t>(repeats_left_, out.size() - n));
      std::fill_n(out.data() + n, k, pending_);
      n += k;
      repeats_left_ -= k;
    }
    return n;
  }

  const std::string& path() const override { return lines_.path(); }

 private:
  // Parses lines until one yields a request; sets pending_ and repeats_left_. Returns false at
  // the end of the file.
  bool next_row() {
    std::string_view line;
    while (lines_.next(line)) {
      if (line.empty()) continue;
      csv::split_fields(line, ',', fields_);
      if (fields_.size() < min_fields_) throw_short_row();

      const std::string_view op_text = csv::trim(fields_[op_col_]);
      Op op;
      if (op_text == "GET" || op_text == "GET_LEASE") {
        op = Op::kGet;
      } else if (op_text == "SET" || op_text == "SET_LEASE") {
        op = Op::kSet;
      } else if (op_text == "DELETE") {
        op = Op::kDelete;
      } else {
        throw TraceError(path() + ":" + std::to_string(lines_.line_number()) +
                         ": column 'op': unknown op " + csv::quote(fields_[op_col_]) +
                         "; expected GET, GET_LEASE, SET, SET_LEASE or DELETE");
      }

      const std::optional<uint32_t> size = csv::parse_unsigned<uint32_t>(fields_[size_col_]);
      if (!size) field_error("size", "an unsigned integer", fields_[size_col_]);

      uint64_t count = 1;
      if (count_col_ != kAbsentColumn) {
        const std::optional<int64_t> c = csv::parse_signed(fields_[count_col_]);
        if (!c || *c < 1) field_error("op_count", "an integer >= 1", fields_[count_col_]);
        count = static_cast<uint64_t>(*c);
      }

      uint64_t time_ns = 0;
      if (time_col_ != kAbsentColumn) {
        const std::optional<uint64_t> t = csv::parse_time_ns(fields_[time_col_], time_unit_ns_);
        if (!t) field_error("op_time", "a non-negative time", fields_[time_col_]);
        time_ns = *t;
      }

      uint32_t size_bytes = *size;
      if (size_bytes == 0) {
        if (op != Op::kDelete) continue;  // Nothing could be inserted: skipped (see top).
        size_bytes = 1;
      }
      pending_ = Request{time_ns, hash_key(fields_[key_col_]), size_bytes, op};
      repeats_left_ = count;
      return true;
    }
    return false;
  }

  [[noreturn]] void field_error(std::string_view column, std::string_view what,
                                std::string_view field) const {
    csv::throw_field_error(path(), lines_.line_number(), "column '" + std::string(column) + "'",
                           what, field);
  }

  [[noreturn]] void throw_short_row() const {
    std::string missing;
    for (const auto& [col, name] : std::initializer_list<NamedColumn>{{key_col_, "key"},
                                                                      {op_col_, "op"},
                                                                      {size_col_, "size"},
                                                                      {count_col_, "op_count"},
                                                                      {time_col_, "op_time"}}) {
      if (col != kAbsentColumn && col >= fields_.size()) {
        missing = std::string(name) + "' (field " + std::to_string(col + 1) + ")";
        break;
      }
    }
    throw TraceError(path() + ":" + std::to_string(lines_.line_number()) + ": missing column '" +
                     missing + ": the row has only " + std::to_string(fields_.size()) +
                     " fields; header: " + csv::quote(header_));
  }

  csv::LineReader lines_;
  double time_unit_ns_;
  std::string header_;
  std::vector<std::string_view> fields_;
  size_t key_col_ = kAbsentColumn;
  size_t op_col_ = kAbsentColumn;
  size_t size_col_ = kAbsentColumn;
  size_t count_col_ = kAbsentColumn;
  size_t time_col_ = kAbsentColumn;
  size_t min_fields_ = 0;
  Request pending_;
  uint64_t repeats_left_ = 0;
};

const ComponentSpec& kvcache_csv_spec() {
  static const ComponentSpec spec{"kvcache_csv",
                                  "CacheBench's kvcache CSV (key, op, size, op_count, op_time)",
                                  {kTracePathKey, kTimeUnitKey},
                                  {},
                                  {},
                                  {}};
  return spec;
}

}  // namespace

extern const TraceFormat kKvcacheCsvFormat{
    &kvcache_csv_spec,
    [](const TraceConfig& config) -> std::unique_ptr<TraceReader> {
      return std::make_unique<KvcacheCsvReader>(config);
    },
    [](const TraceConfig& config) { return file_content_hash(config.path()); },
    [](const TraceConfig& config) { csv::time_unit_ns(config.params); }};

}  // namespace flashpq
