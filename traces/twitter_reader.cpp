// traces/twitter_reader.cpp — Twitter's cache traces (format "twitter").
//
// Format source: github.com/twitter/cache-trace README ("Format"; Yang et al., "A large scale
// analysis of hundreds of in-memory cache clusters at Twitter", OSDI'20). One request per line,
// no header, seven comma-separated fields (plain or zstd, as the traces are distributed):
//
//   timestamp      seconds since the start of the trace (integer);
//   anonymized key text; hashed once with hash_key() (XXH3-64). A key may hold commas: the key
//                  is everything between the first field and the last five;
//   key size       bytes;
//   value size     bytes (0 for a get that missed in production);
//   client id      ignored;
//   operation      get, gets -> get; set, add, replace, cas, append, prepend, incr, decr -> set
//                  (each writes the object; incr and decr rewrite a counter in place); delete ->
//                  delete; anything else is an error;
//   TTL            seconds; ignored.
//
// The request's size is key size + value size, the bytes the object takes in the cache (as the
// OSDI'20 analysis and libCacheSim's twr reader count it). A row whose sizes are both 0 is
// skipped; a delete of size 0 is kept with size 1 (a delete's size is not used). Errors name
// "<file>:<line>", the field and the text found; a row with fewer than seven fields is an error.
#include <string>
#include <vector>

#include "traces/csv_util.h"
#include "traces/trace_reader.h"

namespace flashpq {

namespace {

class TwitterReader final : public TraceReader {
 public:
  explicit TwitterReader(const TraceConfig& config)
      : lines_(config.params.get<std::string>(kTracePathKey)) {}

  size_t read(std::span<Request> out) override {
    size_t n = 0;
    std::string_view line;
    while (n < out.size() && lines_.next(line)) {
      if (line.empty()) continue;
      csv::split_fields(line, ',', fields_);
      if (fields_.size() < 7) {
        throw TraceError(path() + ":" + std::to_string(lines_.line_number()) +
                         ": expected 7 fields (timestamp, key, key size, value size, client id, "
                         "operation, TTL), found " +
                         std::to_string(fields_.size()) + ": " + csv::quote(line));
      }
      const size_t last = fields_.size() - 1;  // TTL; the key spans fields 1 .. last - 5
      const auto t = csv::parse_unsigned<uint64_t>(fields_[0]);
      if (!t) field_error("timestamp", "seconds (an unsigned integer)", fields_[0]);
      const auto key_size = csv::parse_unsigned<uint32_t>(fields_[last - 4]);
      if (!key_size) field_error("key size", "an unsigned integer", fields_[last - 4]);
      const auto value_size = csv::parse_unsigned<uint32_t>(fields_[last - 3]);
      if (!value_size) field_error("value size", "an unsigned integer", fields_[last - 3]);
      const std::string_view op_text = csv::trim(fields_[last - 1]);
      Op op;
      if (op_text == "get" || op_text == "gets") {
        op = Op::kGet;
      } else if (op_text == "set" || op_text == "add" || op_text == "replace" || op_text == "cas" ||
                 op_text == "append" || op_text == "prepend" || op_text == "incr" ||
                 op_text == "decr") {
        op = Op::kSet;
      } else if (op_text == "delete") {
        op = Op::kDelete;
      } else {
        field_error("operation",
                    "get, gets, set, add, replace, cas, append, prepend, incr, decr or delete",
                    fields_[last - 1]);
      }
      const uint64_t size = uint64_t{*key_size} + *value_size;
      if (size > 0xFFFFFFFFull) field_error("value size", "a size below 4 GiB", fields_[last - 3]);
      uint32_t size_bytes = static_cast<uint32_t>(size);
      if (size_bytes == 0) {
        if (op != Op::kDelete) continue;
        size_bytes = 1;
      }
      // The key: the text from the second field to the sixth from the end, commas included.
      const char* key_begin = fields_[1].data();
      const char* key_end = fields_[last - 5].data() + fields_[last - 5].size();
      const std::string_view key(key_begin, static_cast<size_t>(key_end - key_begin));
      out[n++] = Request{*t * 1'000'000'000ull, hash_key(key), size_bytes, op};
    }
    return n;
  }

  const std::string& path() const override { return lines_.path(); }

 private:
  [[noreturn]] void field_error(std::string_view field, std::string_view what,
                                std::string_view text) const {
    csv::throw_field_error(path(), lines_.line_number(), "field '" + std::string(field) + "'", what,
                           text);
  }

  csv::LineReader lines_;
  std::vector<std::string_view> fields_;
};

const ComponentSpec& twitter_spec() {
  static const ComponentSpec spec{
      "twitter",
      "Twitter's cache traces: timestamp, key, key size, value size, client, op, TTL",
      {kTracePathKey},
      {},
      {},
      {}};
  return spec;
}

}  // namespace

extern const TraceFormat kTwitterFormat{
    &twitter_spec,
    [](const TraceConfig& config) -> std::unique_ptr<TraceReader> {
      return std::make_unique<TwitterReader>(config);
    },
    [](const TraceConfig& config) { return file_content_hash(config.path()); },
    [](const TraceConfig&) {}};

}  // namespace flashpq
