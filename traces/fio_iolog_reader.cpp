// traces/fio_iolog_reader.cpp — fio iolog traces (format "fio_iolog"), versions 2 and 3, as a
// block trace for the direct framework; `flashpq run --iolog` writes version 3
// (devices/io_log.h), so a cache's device traffic reads back as a workload.
//
// Format source: fio HOWTO, "Trace file format v2" and "v3" (fio ≥ 3.31 for v3), and fio's
// parser (iolog.c read_iolog):
//   * line 1: "fio version 2 iolog" or "fio version 3 iolog" (version 1 is refused, as fio
//     does);
//   * v2 lines: "FILENAME ACTION" (add, open, close: skipped) or "FILENAME ACTION OFFSET
//     LENGTH"; v3 lines put a TIMESTAMP in µs since the start before them;
//   * actions: read → get, write → set, trim → delete (a discard in the direct framework);
//     sync and datasync carry no data and are skipped; wait (v2: OFFSET µs after the previous
//     wait) advances the time; v3 forbids wait and fio ignores it, so does this reader.
// A request's time is its v3 timestamp, or the sum of the v2 waits before it, in ns. Its key
// is the byte offset, plus file index × 2^48 when the log names several files (in the order
// they are first named: distinct files never share a key); its size is LENGTH. An entry of
// length 0 is skipped (nothing to cache). Any other line is an error naming "<file>:<line>".
// Plain or zstd/gzip-compressed (csv::LineReader).
#include <map>
#include <string>
#include <vector>

#include "traces/csv_util.h"
#include "traces/trace_reader.h"

namespace flashpq {

namespace {

class FioIologReader final : public TraceReader {
 public:
  explicit FioIologReader(const TraceConfig& config)
      : lines_(config.params.get<std::string>(kTracePathKey)) {
    std::string_view line;
    if (!lines_.next(line)) throw TraceError(path() + ": empty, expected 'fio version 3 iolog'");
    line = csv::trim(line);
    if (line == "fio version 2 iolog") {
      version_ = 2;
    } else if (line == "fio version 3 iolog") {
      version_ = 3;
    } else {
      throw TraceError(path() +
                       ":1: expected 'fio version 2 iolog' or 'fio version 3 iolog' (fio "
                       "no longer reads version 1), found " +
                       csv::quote(line));
    }
  }

  size_t read(std::span<Request> out) override {
    size_t n = 0;
    std::string_view line;
    while (n < out.size() && lines_.next(line)) {
      split(csv::trim(line));
      if (words_.empty()) continue;
      size_t w = 0;
      uint64_t time_us = wait_us_;
      const size_t data_fields = version_ == 3 ? 5 : 4, file_fields = version_ == 3 ? 3 : 2;
      if (words_.size() != data_fields && words_.size() != file_fields) {
        error("expected " + std::to_string(file_fields) + " or " + std::to_string(data_fields) +
                  " fields (" + (version_ == 3 ? "TIMESTAMP " : "") +
                  "FILENAME ACTION [OFFSET LENGTH])",
              line);
      }
      if (version_ == 3) {
        const auto t = csv::parse_unsigned<uint64_t>(words_[w++]);
        if (!t) error("a TIMESTAMP in µs (an unsigned integer)", words_[0]);
        time_us = *t;
      }
      const std::string_view file = words_[w++];
      const std::string_view action = words_[w++];
      if (words_.size() == file_fields) {
        if (action != "add" && action != "open" && action != "close") {
          error("a file action (add, open, close)", action);
        }
        if (action == "add") file_index(file);
        continue;
      }
      const auto offset = csv::parse_unsigned<uint64_t>(words_[w]);
      if (!offset || *offset >= (uint64_t{1} << 48))
        error("an OFFSET in bytes below 2^48", words_[w]);
      const auto len = csv::parse_unsigned<uint32_t>(words_[w + 1]);
      if (!len) error("a LENGTH in bytes below 2^32", words_[w + 1]);
      Op op;
      if (action == "read") {
        op = Op::kGet;
      } else if (action == "write") {
        op = Op::kSet;
      } else if (action == "trim") {
        op = Op::kDelete;
      } else if (action == "sync" || action == "datasync") {
        continue;
      } else if (action == "wait") {
        if (version_ == 2) wait_us_ += *offset;
        continue;
      } else {
        error("an action (read, write, trim, sync, datasync, wait)", action);
      }
      if (*len == 0) continue;
      const uint64_t f = file_index(file);
      out[n++] = Request{time_us * 1000, (f << 48) | *offset, *len, op};
    }
    return n;
  }

  const std::string& path() const override { return lines_.path(); }

 private:
  void split(std::string_view line) {
    words_.clear();
    size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
      const size_t b = i;
      while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
      if (i > b) words_.push_back(line.substr(b, i - b));
    }
  }
  uint64_t file_index(std::string_view name) {
    const auto it = files_.find(std::string(name));
    if (it != files_.end()) return it->second;
    const uint64_t i = files_.size();
    if (i >= (uint64_t{1} << 16)) error("at most 65536 files", name);
    files_.emplace(std::string(name), i);
    return i;
  }
  [[noreturn]] void error(const std::string& what, std::string_view text) const {
    csv::throw_field_error(path(), lines_.line_number(), "fio iolog entry", what, text);
  }

  csv::LineReader lines_;
  int version_ = 3;
  std::vector<std::string_view> words_;
  std::map<std::string, uint64_t> files_;
  uint64_t wait_us_ = 0;
};

const ComponentSpec& fio_iolog_spec() {
  static const ComponentSpec spec{
      "fio_iolog",
      "fio iolog, version 2 or 3 (fio --write_iolog, flashpq run --iolog): block I/O for "
      "framework direct",
      {kTracePathKey},
      {},
      {},
      {}};
  return spec;
}

}  // namespace

extern const TraceFormat kFioIologFormat{
    &fio_iolog_spec,
    [](const TraceConfig& config) -> std::unique_ptr<TraceReader> {
      return std::make_unique<FioIologReader>(config);
    },
    [](const TraceConfig& config) { return file_content_hash(config.path()); },
    [](const TraceConfig&) {}};

}  // namespace flashpq
