// traces/msr_reader.cpp — MSR Cambridge block traces (format "msr").
//
// Format source: the SNIA IOTTA repository's MSR Cambridge traces (Narayanan, Donnelly &
// Rowstron, "Write off-loading: practical power management for enterprise storage", FAST'08),
// one CSV per volume, no header, seven fields (plain or zstd):
//
//   Timestamp     Windows filetime: 100 ns ticks since 1601-01-01; the request's time is its
//                 offset from the first row's timestamp, in ns;
//   Hostname      ignored;
//   DiskNumber    the volume number, 0 .. 65535;
//   Type          Read -> get, Write -> set (as written: "Read", "Write"; other case accepted);
//   Offset        bytes, below 2^48;
//   Size          bytes; 0 is skipped (nothing to cache), negative is an error;
//   ResponseTime  ignored.
//
// The request is block I/O as the direct framework and the split_blocks transform read it: key
// = DiskNumber × 2^48 + Offset (distinct volumes never share a key), size = Size. A row that is
// not seven fields, or a field that does not parse, is an error naming "<file>:<line>", the field
// and the text found.
#include <string>
#include <vector>

#include "traces/csv_util.h"
#include "traces/trace_reader.h"

namespace flashpq {

namespace {

class MsrReader final : public TraceReader {
 public:
  explicit MsrReader(const TraceConfig& config)
      : lines_(config.params.get<std::string>(kTracePathKey)) {}

  size_t read(std::span<Request> out) override {
    size_t n = 0;
    std::string_view line;
    while (n < out.size() && lines_.next(line)) {
      if (line.empty()) continue;
      csv::split_fields(line, ',', fields_);
      if (fields_.size() != 7) {
        throw TraceError(path() + ":" + std::to_string(lines_.line_number()) +
                         ": expected 7 fields (Timestamp, Hostname, DiskNumber, Type, Offset, "
                         "Size, ResponseTime), found " +
                         std::to_string(fields_.size()) + ": " + csv::quote(line));
      }
      const auto ts = csv::parse_unsigned<uint64_t>(fields_[0]);
      if (!ts) field_error("Timestamp", "a Windows filetime (an unsigned integer)", fields_[0]);
      const auto disk = csv::parse_unsigned<uint16_t>(fields_[2]);
      if (!disk) field_error("DiskNumber", "an integer in [0, 65535]", fields_[2]);
      const std::string_view type = csv::trim(fields_[3]);
      Op op;
      if (csv::iequals(type, "read")) {
        op = Op::kGet;
      } else if (csv::iequals(type, "write")) {
        op = Op::kSet;
      } else {
        field_error("Type", "Read or Write", fields_[3]);
      }
      const auto offset = csv::parse_unsigned<uint64_t>(fields_[4]);
      if (!offset || *offset >= (uint64_t{1} << 48)) {
        field_error("Offset", "bytes in [0, 2^48)", fields_[4]);
      }
      const auto size = csv::parse_signed(fields_[5]);
      if (!size || *size < 0 || *size > 0xFFFFFFFFll) {
        field_error("Size", "bytes in [0, 2^32)", fields_[5]);
      }
      if (*size == 0) continue;
      if (!origin_) origin_ = *ts;
      if (*ts < *origin_) field_error("Timestamp", "a time not before the first row's", fields_[0]);
      out[n++] = Request{(*ts - *origin_) * 100, (uint64_t{*disk} << 48) | *offset,
                         static_cast<uint32_t>(*size), op};
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
  std::optional<uint64_t> origin_;
};

const ComponentSpec& msr_spec() {
  static const ComponentSpec spec{
      "msr",
      "MSR Cambridge block CSV: Timestamp, Hostname, DiskNumber, Type, Offset, Size, "
      "ResponseTime",
      {kTracePathKey},
      {},
      {},
      {}};
  return spec;
}

}  // namespace

extern const TraceFormat kMsrFormat{
    &msr_spec,
    [](const TraceConfig& config) -> std::unique_ptr<TraceReader> {
      return std::make_unique<MsrReader>(config);
    },
    [](const TraceConfig& config) { return file_content_hash(config.path()); },
    [](const TraceConfig&) {}};

}  // namespace flashpq
