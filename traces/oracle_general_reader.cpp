// traces/oracle_general_reader.cpp — libCacheSim's oracleGeneral binary trace, plain or zstd.
//
// Format source: libCacheSim (github.com/1a1a11a/libCacheSim)
// libCacheSim/traceReader/customizedReader/oracle/oracleGeneralBin.h (reader) and
// libCacheSim/bin/traceUtils/traceConv.cpp (writer). The file is a packed array of little-endian
// 24-byte records with no header:
//
//   offset 0   u32 clock_time          seconds
//   offset 4   u64 obj_id
//   offset 12  u32 obj_size            bytes
//   offset 16  i64 next_access_vtime   1-based index of the next request to obj_id, or -1
//
// Mapping: time_ns = clock_time * 1e9 (exact, in uint64), key = obj_id, size_bytes = obj_size,
// op = get. next_access_vtime is not used. Records with obj_size 0 are skipped, as libCacheSim's
// reader does. A file whose length is not a multiple of 24 ends in a truncated record: every
// complete record is returned first, then read() throws TraceError naming the file, the record
// index (0-based), its byte offset in the (decompressed) stream and how many of its 24 bytes were
// present.
#include <bit>
#include <cstring>
#include <string>
#include <vector>

#include "traces/trace_reader.h"
#include "traces/zstd_stream.h"

namespace flashpq {

namespace {

constexpr size_t kOracleRecordBytes = 24;
// Records decoded per refill: 384 KiB of input, small enough to stay in L2 on most machines.
constexpr size_t kChunkRecords = kFuzzingBuild ? 3 : 16 * 1024;
constexpr uint64_t kNsPerSecond = 1'000'000'000;

template <typename T>
T load_le(const unsigned char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  if constexpr (std::endian::native == std::endian::big) {
    if constexpr (sizeof(T) == 4) v = static_cast<T>(__builtin_bswap32(static_cast<uint32_t>(v)));
    if constexpr (sizeof(T) == 8) v = static_cast<T>(__builtin_bswap64(static_cast<uint64_t>(v)));
  }
  return v;
}

class OracleGeneralReader final : public TraceReader {
 public:
  explicit OracleGeneralReader(const std::string& path)
      : stream_(path), buf_(kChunkRecords * kOracleRecordBytes) {}

  size_t read(std::span<Request> out) override {
    size_t n = 0;
    while (n < out.size()) {
      if (end_ - pos_ < kOracleRecordBytes && !refill()) {
        // A partial record left at the end of the stream: hand out the complete records of
        // this call first, throw on the next call.
        if (end_ != pos_ && n == 0) throw_truncated(end_ - pos_);
        break;
      }
      // Tight decode loop over the complete records in the buffer.
      const unsigned char* p = buf_.data() + pos_;
      const size_t avail = (end_ - pos_) / kOracleRecordBytes;
      size_t used = 0;
      Request* dst = out.data() + n;
      const size_t room = out.size() - n;
      size_t written = 0;
      while (used < avail && written < room) {
        const uint32_t size = load_le<uint32_t>(p + 12);
        if (size != 0) {
          Request& r = dst[written++];
          r.time_ns = static_cast<uint64_t>(load_le<uint32_t>(p)) * kNsPerSecond;
          r.key = load_le<uint64_t>(p + 4);
          r.size_bytes = size;
          r.op = Op::kGet;
        }
        p += kOracleRecordBytes;
        ++used;
      }
      pos_ += used * kOracleRecordBytes;
      records_ += used;
      n += written;
    }
    return n;
  }

  const std::string& path() const override { return stream_.path(); }

 private:
  // Moves the partial record at the end of the buffer (if any) to the front and reads more.
  // Returns whether a complete record is now available.
  bool refill() {
    if (!done_) {
      const size_t tail = end_ - pos_;  // Always < kOracleRecordBytes here.
      if (tail != 0) std::memmove(buf_.data(), buf_.data() + pos_, tail);
      const size_t got = stream_.read(buf_.data() + tail, buf_.size() - tail);
      if (got < buf_.size() - tail) done_ = true;  // ByteStream is short only at its end.
      pos_ = 0;
      end_ = tail + got;
    }
    return end_ - pos_ >= kOracleRecordBytes;
  }

  [[noreturn]] void throw_truncated(size_t present) const {
    throw TraceError(stream_.path() + ": record " + std::to_string(records_) + " at " +
                     (stream_.compressed() ? "decompressed " : "") + "byte offset " +
                     std::to_string(records_ * kOracleRecordBytes) + " is truncated: only " +
                     std::to_string(present) + " of its " + std::to_string(kOracleRecordBytes) +
                     " bytes are present (file length is not a multiple of 24)");
  }

  ByteStream stream_;
  std::vector<unsigned char> buf_;
  size_t pos_ = 0;        // First unconsumed byte in buf_.
  size_t end_ = 0;        // One past the last valid byte in buf_.
  uint64_t records_ = 0;  // Complete records consumed (returned or skipped) so far.
  bool done_ = false;     // The stream has been read to its end.
};

const ComponentSpec& oracle_general_spec() {
  static const ComponentSpec spec{"oracleGeneral",
                                  "libCacheSim's binary trace (24-byte records), plain or zstd",
                                  {kTracePathKey},
                                  {},
                                  {},
                                  {}};
  return spec;
}

}  // namespace

extern const TraceFormat kOracleGeneralFormat{
    &oracle_general_spec,
    [](const TraceConfig& config) -> std::unique_ptr<TraceReader> {
      return std::make_unique<OracleGeneralReader>(config.params.get<std::string>(kTracePathKey));
    },
    [](const TraceConfig& config) { return file_content_hash(config.path()); },
    [](const TraceConfig&) {}};

}  // namespace flashpq
