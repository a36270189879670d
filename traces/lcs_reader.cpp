// traces/lcs_reader.cpp — libCacheSim's lcs binary trace (format "lcs"), plain, zstd or gzip.
//
// Format source: libCacheSim traceReader/customizedReader/lcs.h. An 8192-byte header, then
// fixed-size little-endian records whose layout the header's version selects:
//   header  u64 start_magic 0x123456789abcdef0 at 0; u64 version (1..8) at 8; the 8000-byte
//           lcs_trace_stat at 16 (i64 stat version, i64 n_req at 24, i64 n_obj at 32, ...);
//           u64 end_magic 0x123456789abcdef0 at 8184;
//   v1      24 B: u32 clock_time, u64 obj_id, u32 obj_size, i64 next_access_vtime;
//   v2      28 B: u32 clock_time, u64 obj_id, u32 obj_size, u32 op (8 bits) | tenant (24),
//           i64 next_access_vtime;
//   v3      36 B: u32 clock_time, u64 obj_id, i64 obj_size, u32 op | tenant, u32 ttl,
//           i64 next_access_vtime;
//   v4..v8  v3 followed by 1, 2, 4, 8, 16 u32 features (40, 44, 52, 68, 100 B).
// Mapping: time_ns = clock_time × 1e9, key = obj_id, size = obj_size (a record of size 0 is
// skipped, as libCacheSim's readers do; above 2^32 − 1 or negative it is an error), op by
// libCacheSim's req_op_e (include/libCacheSim/enum.h): get 1, gets 2, read 12 -> get; set 3,
// add 4, cas 5, replace 6, append 7, prepend 8, incr 10, decr 11, write 13, update 14 -> set;
// delete 9 -> delete; anything else (nop 0 included) is an error. v1 has no op: every request is
// a get. Tenant, TTL, features and next_access_vtime are not used.
// A bad magic or version is an error at open; so is a plain file whose length is not the header
// plus whole records, or whose record count differs from the header's n_req (when the header
// has one: libCacheSim leaves 0 in fields a trace predates), naming the record and byte offset;
// a compressed file is checked the same way when its end is reached.
#include <sys/stat.h>

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "traces/trace_reader.h"
#include "traces/zstd_stream.h"

namespace flashpq {

namespace {

constexpr uint64_t kMagic = 0x123456789abcdef0ull;
constexpr size_t kHeaderBytes = 8192;
constexpr size_t kRecordBytes[9] = {0, 24, 28, 36, 40, 44, 52, 68, 100};

template <class T>
T load(const unsigned char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

class LcsReader final : public TraceReader {
 public:
  explicit LcsReader(const std::string& path) : stream_(path) {
    std::vector<unsigned char> h(kHeaderBytes);
    const size_t got = stream_.read(h.data(), h.size());
    if (got < kHeaderBytes) {
      throw TraceError(fmt::format("{}: {} bytes: shorter than the {}-byte lcs header", path, got,
                                   kHeaderBytes));
    }
    if (load<uint64_t>(h.data()) != kMagic || load<uint64_t>(h.data() + 8184) != kMagic) {
      throw TraceError(
          fmt::format("{}: byte {}: expected the lcs magic 0x123456789abcdef0, found 0x{:016x}",
                      path, load<uint64_t>(h.data()) != kMagic ? 0 : 8184,
                      load<uint64_t>(h.data() + (load<uint64_t>(h.data()) != kMagic ? 0 : 8184))));
    }
    version_ = load<uint64_t>(h.data() + 8);
    if (version_ < 1 || version_ > 8) {
      throw TraceError(
          fmt::format("{}: byte 8: expected an lcs version 1 to 8, found {}", path, version_));
    }
    record_ = kRecordBytes[version_];
    header_requests_ = load<int64_t>(h.data() + 24);
    buf_.resize(record_ * (kFuzzingBuild ? 3 : 16384));
    if (!stream_.compressed()) {
      struct stat st {};
      if (::stat(path.c_str(), &st) == 0) {
        const uint64_t body = static_cast<uint64_t>(st.st_size) - kHeaderBytes;
        if (body % record_ != 0) {
          const uint64_t whole = body / record_;
          throw TraceError(fmt::format(
              "{}: truncated: record {} at byte offset {} has {} of its {} bytes (lcs v{})", path,
              whole, kHeaderBytes + whole * record_, body % record_, record_, version_));
        }
        check_count(body / record_);
      }
    }
  }

  size_t read(std::span<Request> out) override {
    size_t n = 0;
    while (n < out.size()) {
      if (end_ - pos_ < record_) {
        if (!refill()) {
          if (n == 0 && !finished_) {
            finished_ = true;
            if (end_ != pos_) {
              throw TraceError(fmt::format(
                  "{}: truncated: record {} at decompressed byte offset {} has {} of its {} bytes",
                  path(), records_, kHeaderBytes + records_ * record_, end_ - pos_, record_));
            }
            check_count(records_);
          }
          break;
        }
      }
      const unsigned char* p = buf_.data() + pos_;
      pos_ += record_;
      const uint64_t index = records_++;
      Request r;
      r.time_ns = uint64_t{load<uint32_t>(p)} * 1'000'000'000ull;
      r.key = load<uint64_t>(p + 4);
      int64_t size = 0;
      uint32_t op = 1;
      if (version_ == 1) {
        size = load<uint32_t>(p + 12);
      } else if (version_ == 2) {
        size = load<uint32_t>(p + 12);
        op = load<uint32_t>(p + 16) & 0xFF;
      } else {
        size = load<int64_t>(p + 12);
        op = load<uint32_t>(p + 20) & 0xFF;
      }
      if (size < 0 || size > 0xFFFFFFFFll) {
        throw TraceError(
            fmt::format("{}: record {} at byte offset {}: obj_size {}, expected 0 to "
                        "2^32 - 1",
                        path(), index, kHeaderBytes + index * record_ + 12, size));
      }
      if (size == 0) continue;
      r.size_bytes = static_cast<uint32_t>(size);
      switch (op) {
        case 1:
        case 2:
        case 12:
          r.op = Op::kGet;
          break;
        case 3:
        case 4:
        case 5:
        case 6:
        case 7:
        case 8:
        case 10:
        case 11:
        case 13:
        case 14:
          r.op = Op::kSet;
          break;
        case 9:
          r.op = Op::kDelete;
          break;
        default:
          throw TraceError(fmt::format(
              "{}: record {} at byte offset {}: unknown operation {} (libCacheSim's req_op_e: 1 "
              "to 14)",
              path(), index, kHeaderBytes + index * record_ + (version_ == 2 ? 16 : 20), op));
      }
      out[n++] = r;
    }
    return n;
  }

  const std::string& path() const override { return stream_.path(); }

 private:
  bool refill() {
    if (done_) return false;
    const size_t tail = end_ - pos_;
    if (tail != 0) std::memmove(buf_.data(), buf_.data() + pos_, tail);
    const size_t got = stream_.read(buf_.data() + tail, buf_.size() - tail);
    if (got < buf_.size() - tail) done_ = true;
    pos_ = 0;
    end_ = tail + got;
    return end_ >= record_;
  }

  void check_count(uint64_t records) const {
    if (header_requests_ != 0 && static_cast<uint64_t>(header_requests_) != records) {
      throw TraceError(
          fmt::format("{}: byte 24: the header's n_req is {}, but the file holds {} records",
                      path(), header_requests_, records));
    }
  }

  ByteStream stream_;
  uint64_t version_ = 1;
  size_t record_ = 24;
  int64_t header_requests_ = 0;
  std::vector<unsigned char> buf_;
  size_t pos_ = 0, end_ = 0;
  uint64_t records_ = 0;
  bool done_ = false, finished_ = false;
};

const ComponentSpec& lcs_spec() {
  static const ComponentSpec spec{"lcs",
                                  "libCacheSim's lcs binary trace (8 KiB header, records v1 to "
                                  "v8), plain or zstd",
                                  {kTracePathKey},
                                  {},
                                  {},
                                  {}};
  return spec;
}

}  // namespace

extern const TraceFormat kLcsFormat{
    &lcs_spec,
    [](const TraceConfig& config) -> std::unique_ptr<TraceReader> {
      return std::make_unique<LcsReader>(config.path());
    },
    [](const TraceConfig& config) { return file_content_hash(config.path()); },
    // The header (and for a plain file its size) before anything runs.
    [](const TraceConfig& config) {
      try {
        LcsReader check(config.path());
      } catch (const TraceError& e) {
        throw std::invalid_argument(std::string("key 'trace.path': ") + e.what());
      }
    }};

}  // namespace flashpq
