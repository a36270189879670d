// traces/cachelib_block_reader.cpp — Meta's block/chunk-store traces as CacheBench replays them
// (format "cachelib_block").
//
// Format source: CacheLib (github.com/facebook/CacheLib) cachelib/cachebench/workload/
// BlockChunkReplayGenerator.{h,cpp}, CacheBench's reader of the sample traces
// cachelib/cachebench/test_configs/trace_replay/block_chunk/block_traces_{1,2}.csv. The first
// line is a header; columns are found by name:
//
//   op_time    required  seconds (integer or decimal);
//   block_id   required  opaque text; hashed once with hash_key() (XXH3-64);
//   io_size    required  bytes of the request (uint32);
//   op_name    required  getChunkData.* -> get; putChunk.* -> set; anything else an error;
//   op_count   optional  the request is repeated this many times (>= 1; default 1);
//   block_id_size, io_offset, user_name, user_namespace, host_name, rs_shard_id: ignored.
//
// One request per row, repeated op_count times, key = block_id and size = io_size: the
// semantics of libCacheSim's CSV reader (libCacheSim/traceReader/generalReader/csv.c) with the
// time, block_id, io_size and op_count columns as its time, obj-id, obj-size and cnt columns.
// CacheBench itself keys block_id with the
// shard and splits [io_offset, io_offset + io_size) into chunks; FlashPQ's split_blocks
// transform does the splitting where it is wanted. A row with io_size 0 is skipped. Errors name
// "<file>:<line>", the column and the text found.
#include <algorithm>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "traces/csv_util.h"
#include "traces/trace_reader.h"

namespace flashpq {

namespace {

constexpr size_t kAbsent = static_cast<size_t>(-1);

class CachelibBlockReader final : public TraceReader {
 public:
  explicit CachelibBlockReader(const TraceConfig& config)
      : lines_(config.params.get<std::string>(kTracePathKey)) {
    std::string_view header;
    if (!lines_.next(header)) {
      throw TraceError(path() + ": empty file; expected a header line naming the columns");
    }
    csv::split_fields(header, ',', fields_);
    for (size_t i = 0; i < fields_.size(); ++i) {
      const std::string_view name = csv::trim(fields_[i]);
      if (name == "op_time") time_col_ = i;
      if (name == "block_id") key_col_ = i;
      if (name == "io_size") size_col_ = i;
      if (name == "op_name") op_col_ = i;
      if (name == "op_count") count_col_ = i;
    }
    for (const auto& [col, name] :
         std::initializer_list<std::pair<size_t, const char*>>{{time_col_, "op_time"},
                                                               {key_col_, "block_id"},
                                                               {size_col_, "io_size"},
                                                               {op_col_, "op_name"}}) {
      if (col == kAbsent) {
        throw TraceError(path() + ":1: missing required column '" + name +
                         "' (cachelib_block needs op_time, block_id, io_size and op_name); "
                         "header found: " +
                         csv::quote(header));
      }
    }
    for (size_t col : {time_col_, key_col_, size_col_, op_col_, count_col_}) {
      if (col != kAbsent) min_fields_ = std::max(min_fields_, col + 1);
    }
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
  bool next_row() {
    std::string_view line;
    while (lines_.next(line)) {
      if (line.empty()) continue;
      csv::split_fields(line, ',', fields_);
      if (fields_.size() < min_fields_) {
        throw TraceError(path() + ":" + std::to_string(lines_.line_number()) + ": expected " +
                         std::to_string(min_fields_) + " fields or more, found " +
                         std::to_string(fields_.size()) + ": " + csv::quote(line));
      }
      const std::string_view op_text = csv::trim(fields_[op_col_]);
      Op op;
      if (op_text.starts_with("getChunkData")) {
        op = Op::kGet;
      } else if (op_text.starts_with("putChunk")) {
        op = Op::kSet;
      } else {
        error("op_name", "getChunkData.* or putChunk.*", fields_[op_col_]);
      }
      const auto t = csv::parse_time_ns(fields_[time_col_], 1e9);
      if (!t) error("op_time", "a non-negative time in seconds", fields_[time_col_]);
      const auto size = csv::parse_unsigned<uint32_t>(fields_[size_col_]);
      if (!size) error("io_size", "an unsigned integer", fields_[size_col_]);
      uint64_t count = 1;
      if (count_col_ != kAbsent) {
        const auto c = csv::parse_signed(fields_[count_col_]);
        if (!c || *c < 1) error("op_count", "an integer >= 1", fields_[count_col_]);
        count = static_cast<uint64_t>(*c);
      }
      if (*size == 0) continue;
      pending_ = Request{*t, hash_key(fields_[key_col_]), *size, op};
      repeats_left_ = count;
      return true;
    }
    return false;
  }

  [[noreturn]] void error(std::string_view column, std::string_view what,
                          std::string_view field) const {
    csv::throw_field_error(path(), lines_.line_number(), "column '" + std::string(column) + "'",
                           what, field);
  }

  csv::LineReader lines_;
  std::vector<std::string_view> fields_;
  size_t time_col_ = kAbsent, key_col_ = kAbsent, size_col_ = kAbsent, op_col_ = kAbsent,
         count_col_ = kAbsent;
  size_t min_fields_ = 0;
  Request pending_;
  uint64_t repeats_left_ = 0;
};

const ComponentSpec& cachelib_block_spec() {
  static const ComponentSpec spec{
      "cachelib_block",
      "Meta's block/chunk CSV as CacheBench's block replay reads it (op_time, block_id, "
      "io_size, op_name, op_count)",
      {kTracePathKey},
      {},
      {},
      {}};
  return spec;
}

}  // namespace

extern const TraceFormat kCachelibBlockFormat{
    &cachelib_block_spec,
    [](const TraceConfig& config) -> std::unique_ptr<TraceReader> {
      return std::make_unique<CachelibBlockReader>(config);
    },
    [](const TraceConfig& config) { return file_content_hash(config.path()); },
    [](const TraceConfig&) {}};

}  // namespace flashpq
