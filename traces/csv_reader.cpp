// traces/csv_reader.cpp — generic delimited-text traces (format "csv").
//
// Semantics follow libCacheSim's CSV reader (github.com/1a1a11a/libCacheSim,
// libCacheSim/traceReader/generalReader/csv.c, whose options `time-col`, `obj-id-col`,
// `obj-size-col`, `op-col`, `header`, `delimiter` and `obj-id-is-num` correspond to the keys
// trace.time_col, key_col, size_col, op_col, header, delimiter and key_is_numeric). Columns are
// 1-based; 0 means absent:
//
//   key_col    required  decimal uint64 if key_is_numeric, else the field text hashed with
//                        hash_key() (XXH3-64).
//   time_col   optional  time in units of trace.time_unit (default s); integer or decimal.
//                        Absent: every time is 0.
//   size_col   optional  bytes (uint32). Absent: every size is 1.
//   op_col     optional  case-insensitive: get, get_lease, read, r -> get; set, set_lease,
//                        write, w, put -> set; delete, del -> delete. Absent: every op is get.
//
// Rows whose size is 0 are skipped for get and set (nothing can be inserted; libCacheSim skips
// size-0 requests too); a delete with size 0 gets size 1. Empty lines are skipped. Fields are
// not quoted (see csv_util.h). Any malformed row is a TraceError naming "<file>:<line>"
// (1-based, counting the header), the column and the text found.
#include <algorithm>
#include <string>
#include <vector>

#include "traces/csv_util.h"
#include "traces/trace_reader.h"

namespace flashpq {

namespace {

KeySpec column(const std::string& name, const std::string& description) {
  return key("trace." + name, ValueType::kInt)
      .def("0")
      .units("column")
      .range(0, 4096)
      .desc(description);
}

// The generic CSV keys: shown in every row (checked, ignored by the other formats).
const KeySpec kTimeCol = column("time_col", "1-based time column, 0 = none");
const KeySpec kKeyCol = column("key_col", "1-based key column (required for csv)");
const KeySpec kSizeCol = column("size_col", "1-based size column, 0 = every size 1");
const KeySpec kOpCol = column("op_col", "1-based op column, 0 = every op a get");
const KeySpec kHeader =
    key("trace.header", ValueType::kBool).def("false").desc("first line is a header");
const KeySpec kDelimiter =
    key("trace.delimiter", ValueType::kChar).def(",").desc("field delimiter (one character)");
const KeySpec kKeyIsNumeric = key("trace.key_is_numeric", ValueType::kBool)
                                  .def("true")
                                  .desc("keys are decimal integers (false: hash the key text)");

void check_csv(const TraceConfig& config) {
  for (const KeySpec* k : {&kTimeCol, &kSizeCol, &kOpCol}) config.params.get<int>(*k);
  config.params.get<bool>(kHeader);
  config.params.get<bool>(kKeyIsNumeric);
  csv::time_unit_ns(config.params);
  const int64_t key_col = config.params.get<int>(kKeyCol);
  if (key_col < 1) {
    throw std::invalid_argument(
        "key 'trace.key_col': expected a column >= 1 for format csv, found '" +
        std::to_string(key_col) + "'");
  }
  const char delimiter = config.params.get<char>(kDelimiter);
  if (delimiter == '\n' || delimiter == '\r' || delimiter == '\0') {
    throw std::invalid_argument(
        "key 'trace.delimiter': expected a printable character, found code " +
        std::to_string(static_cast<int>(delimiter)));
  }
}

class CsvReader final : public TraceReader {
 public:
  explicit CsvReader(const TraceConfig& config)
      : lines_(config.params.get<std::string>(kTracePathKey)),
        delimiter_(config.params.get<char>(kDelimiter)),
        key_is_numeric_(config.params.get<bool>(kKeyIsNumeric)),
        time_unit_ns_(csv::time_unit_ns(config.params)),
        time_col_(config.params.get<int>(kTimeCol)),
        key_col_(config.params.get<int>(kKeyCol)),
        size_col_(config.params.get<int>(kSizeCol)),
        op_col_(config.params.get<int>(kOpCol)) {
    min_fields_ = static_cast<size_t>(std::max({time_col_, key_col_, size_col_, op_col_}));
    std::string_view header;
    if (config.params.get<bool>(kHeader) && lines_.next(header)) {
      csv::split_fields(header, delimiter_, fields_);
      header_names_.assign(fields_.begin(), fields_.end());
    }
  }

  size_t read(std::span<Request> out) override {
    size_t n = 0;
    std::string_view line;
    while (n < out.size() && lines_.next(line)) {
      if (line.empty()) continue;
      csv::split_fields(line, delimiter_, fields_);
      if (fields_.size() < min_fields_) throw_short_row();

      Op op = Op::kGet;
      if (op_col_ > 0) op = parse_op(field(op_col_));

      uint32_t size = 1;
      if (size_col_ > 0) {
        const std::optional<uint32_t> s = csv::parse_unsigned<uint32_t>(field(size_col_));
        if (!s) field_error(size_col_, "an unsigned integer");
        size = *s;
      }

      uint64_t key = 0;
      if (key_is_numeric_) {
        const std::optional<uint64_t> k = csv::parse_unsigned<uint64_t>(field(key_col_));
        if (!k) field_error(key_col_, "an unsigned integer key");
        key = *k;
      } else {
        key = hash_key(field(key_col_));
      }

      uint64_t time_ns = 0;
      if (time_col_ > 0) {
        const std::optional<uint64_t> t = csv::parse_time_ns(field(time_col_), time_unit_ns_);
        if (!t) field_error(time_col_, "a non-negative time");
        time_ns = *t;
      }

      if (size == 0) {
        if (op != Op::kDelete) continue;  // Nothing could be inserted: skipped (see top).
        size = 1;
      }
      out[n++] = Request{time_ns, key, size, op};
    }
    return n;
  }

  const std::string& path() const override { return lines_.path(); }

 private:
  std::string_view field(int col) const { return fields_[static_cast<size_t>(col - 1)]; }

  Op parse_op(std::string_view text) const {
    const std::string_view t = csv::trim(text);
    for (std::string_view g : {"get", "get_lease", "read", "r"}) {
      if (csv::iequals(t, g)) return Op::kGet;
    }
    for (std::string_view s : {"set", "set_lease", "write", "w", "put"}) {
      if (csv::iequals(t, s)) return Op::kSet;
    }
    if (csv::iequals(t, "delete") || csv::iequals(t, "del")) return Op::kDelete;
    throw TraceError(location() + ": " + column_name(op_col_) + ": unknown op " + csv::quote(text) +
                     "; expected get, get_lease, read, r, set, set_lease, write, w, put, delete "
                     "or del (any case)");
  }

  // "column 4 ('size')" with a header, "column 4" without.
  std::string column_name(int col) const {
    std::string name = "column " + std::to_string(col);
    const auto i = static_cast<size_t>(col - 1);
    if (i < header_names_.size()) name += " (" + csv::quote(header_names_[i]) + ")";
    return name;
  }

  std::string location() const { return path() + ":" + std::to_string(lines_.line_number()); }

  [[noreturn]] void field_error(int col, std::string_view what) const {
    csv::throw_field_error(path(), lines_.line_number(), column_name(col), what, field(col));
  }

  [[noreturn]] void throw_short_row() const {
    int missing = 0;
    for (int col : {key_col_, size_col_, time_col_, op_col_}) {
      if (col > 0 && static_cast<size_t>(col) > fields_.size()) {
        missing = col;
        break;
      }
    }
    std::string delim = "'";
    delim += delimiter_;
    delim += '\'';
    throw TraceError(location() + ": missing " + column_name(missing) + ": the row has only " +
                     std::to_string(fields_.size()) + " field(s) separated by " + delim);
  }

  csv::LineReader lines_;
  char delimiter_;
  bool key_is_numeric_;
  double time_unit_ns_;
  int time_col_;
  int key_col_;
  int size_col_;
  int op_col_;
  size_t min_fields_ = 0;
  std::vector<std::string> header_names_;
  std::vector<std::string_view> fields_;
};

const ComponentSpec& csv_spec() {
  static const ComponentSpec spec{
      "csv",
      "generic delimited text, columns mapped by number (libCacheSim's csv reader)",
      {kTracePathKey, kTimeCol, kKeyCol, kSizeCol, kOpCol, kHeader, kDelimiter, kKeyIsNumeric,
       kTimeUnitKey},
      {},
      {},
      {}};
  return spec;
}

}  // namespace

extern const TraceFormat kCsvFormat{
    &csv_spec,
    [](const TraceConfig& config) -> std::unique_ptr<TraceReader> {
      return std::make_unique<CsvReader>(config);
    },
    [](const TraceConfig& config) { return file_content_hash(config.path()); }, &check_csv};

}  // namespace flashpq
