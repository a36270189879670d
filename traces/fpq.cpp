// traces/fpq.cpp — the .fpq format and the trace writers (traces/fpq.h).
#include "traces/fpq.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>
#include <zstd.h>

#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "engine/key_set.h"
#include "fmt/format.h"

namespace flashpq {

static_assert(std::endian::native == std::endian::little,
              "the .fpq reader copies records as they lie: a little-endian host is assumed");
static_assert(sizeof(Request) == FpqHeader::kRecordBytes);

namespace {

template <class T>
T load(const unsigned char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class T>
void store(unsigned char* p, T v) {
  std::memcpy(p, &v, sizeof v);
}

std::string errno_text() {
  return std::strerror(errno);
}

// The header's fields from its 4096 bytes; checks magic, version, record size and description.
FpqHeader decode_header(const unsigned char* h, const std::string& path) {
  if (std::memcmp(h, FpqHeader::kMagic.data(), FpqHeader::kMagic.size()) != 0) {
    throw TraceError(path + ": byte 0: expected the magic 'FPQTRACE' of a .fpq file, found '" +
                     std::string(reinterpret_cast<const char*>(h), 8) + "'");
  }
  if (load<uint32_t>(h + 8) != FpqHeader::kVersion) {
    throw TraceError(fmt::format("{}: byte 8: expected version {}, found {}", path,
                                 FpqHeader::kVersion, load<uint32_t>(h + 8)));
  }
  if (load<uint32_t>(h + 48) != FpqHeader::kRecordBytes) {
    throw TraceError(fmt::format("{}: byte 48: expected records of {} bytes, found {}", path,
                                 FpqHeader::kRecordBytes, load<uint32_t>(h + 48)));
  }
  FpqHeader f;
  f.flags = load<uint32_t>(h + 12);
  f.records = load<uint64_t>(h + 16);
  f.working_set_bytes = load<uint64_t>(h + 24);
  f.objects = load<uint64_t>(h + 32);
  f.records_hash = load<uint64_t>(h + 40);
  const uint32_t d = load<uint32_t>(h + 52);
  if (d > FpqHeader::kMaxDescriptionBytes) {
    throw TraceError(
        fmt::format("{}: byte 52: expected a description of at most {} bytes, found {}", path,
                    FpqHeader::kMaxDescriptionBytes, d));
  }
  f.description.assign(reinterpret_cast<const char*>(h + 64), d);
  if (f.objects > f.records) {
    throw TraceError(fmt::format("{}: byte 32: the header counts {} objects in {} records", path,
                                 f.objects, f.records));
  }
  return f;
}

void encode_header(const FpqHeader& f, unsigned char* h) {
  std::memset(h, 0, FpqHeader::kHeaderBytes);
  std::memcpy(h, FpqHeader::kMagic.data(), FpqHeader::kMagic.size());
  store<uint32_t>(h + 8, FpqHeader::kVersion);
  store<uint32_t>(h + 12, f.flags);
  store<uint64_t>(h + 16, f.records);
  store<uint64_t>(h + 24, f.working_set_bytes);
  store<uint64_t>(h + 32, f.objects);
  store<uint64_t>(h + 40, f.records_hash);
  store<uint32_t>(h + 48, FpqHeader::kRecordBytes);
  const size_t d = std::min<size_t>(f.description.size(), FpqHeader::kMaxDescriptionBytes);
  store<uint32_t>(h + 52, static_cast<uint32_t>(d));
  std::memcpy(h + 64, f.description.data(), d);
}

// The file's size against the header's count: a truncated last record or a count that lies.
void check_size(const FpqHeader& f, uint64_t file_bytes, const std::string& path) {
  const uint64_t want = FpqHeader::kHeaderBytes + f.records * FpqHeader::kRecordBytes;
  if (file_bytes == want) return;
  if (file_bytes < want) {
    const uint64_t have = file_bytes < FpqHeader::kHeaderBytes
                              ? 0
                              : (file_bytes - FpqHeader::kHeaderBytes) / FpqHeader::kRecordBytes;
    throw TraceError(fmt::format(
        "{}: truncated: the header counts {} records ({} bytes), the file has {} bytes: record {} "
        "at byte offset {} is incomplete or missing",
        path, f.records, want, file_bytes, have,
        FpqHeader::kHeaderBytes + have * FpqHeader::kRecordBytes));
  }
  throw TraceError(fmt::format(
      "{}: the header counts {} records ({} bytes) but the file has {} bytes: the count is wrong "
      "or bytes follow the last record",
      path, f.records, want, file_bytes));
}

class FpqReader final : public TraceReader {
 public:
  FpqReader(const std::string& path, bool preload) : path_(path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw TraceError("cannot open trace '" + path + "': " + errno_text());
    try {
      map_file(path, preload);
    } catch (...) {
      release();  // a refused file leaks neither its descriptor nor its mapping
      throw;
    }
  }
  ~FpqReader() override { release(); }
  FpqReader(const FpqReader&) = delete;
  FpqReader& operator=(const FpqReader&) = delete;

 private:
  void map_file(const std::string& path, bool preload) {
    struct stat st {};
    if (::fstat(fd_, &st) != 0) throw TraceError(path + ": cannot stat: " + errno_text());
    bytes_ = static_cast<uint64_t>(st.st_size);
    if (bytes_ < FpqHeader::kHeaderBytes) {
      throw TraceError(fmt::format("{}: {} bytes: shorter than the {}-byte .fpq header", path,
                                   bytes_, FpqHeader::kHeaderBytes));
    }
    void* m =
        ::mmap(nullptr, bytes_, PROT_READ, MAP_PRIVATE | (preload ? MAP_POPULATE : 0), fd_, 0);
    if (m == MAP_FAILED) throw TraceError(path + ": cannot mmap: " + errno_text());
    map_ = static_cast<const unsigned char*>(m);
    ::madvise(m, bytes_, MADV_SEQUENTIAL);
    header_ = decode_header(map_, path);
    check_size(header_, bytes_, path);
  }
  void release() noexcept {
    if (map_ != nullptr) ::munmap(const_cast<unsigned char*>(map_), bytes_);
    if (fd_ >= 0) ::close(fd_);
    map_ = nullptr;
    fd_ = -1;
  }

 public:
  size_t read(std::span<Request> out) override {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(out.size(), header_.records - next_));
    if (n == 0) return 0;
    const unsigned char* src = map_ + FpqHeader::kHeaderBytes + next_ * FpqHeader::kRecordBytes;
    std::memcpy(out.data(), src, n * FpqHeader::kRecordBytes);
    bool bad = false;
    for (size_t i = 0; i < n; ++i) {
      bad |= static_cast<uint8_t>(out[i].op) > 2 || out[i].size_bytes == 0;
    }
    if (bad) {
      for (size_t i = 0; i < n; ++i) {
        const uint64_t index = next_ + i;
        const uint64_t offset = FpqHeader::kHeaderBytes + index * FpqHeader::kRecordBytes;
        if (static_cast<uint8_t>(out[i].op) > 2) {
          throw TraceError(fmt::format(
              "{}: record {} at byte offset {}: op {}, expected 0 (get), 1 (set) or 2 (delete)",
              path_, index, offset + 20, static_cast<unsigned>(static_cast<uint8_t>(out[i].op))));
        }
        if (out[i].size_bytes == 0) {
          throw TraceError(fmt::format("{}: record {} at byte offset {}: size 0, expected >= 1",
                                       path_, index, offset + 16));
        }
      }
    }
    next_ += n;
    release_read_pages();
    return n;
  }
  const std::string& path() const override { return path_; }
  const FpqHeader& header() const { return header_; }

 private:
  // Gives back the pages read so far, every 64 MiB: records are read once, in order, so the
  // process's resident memory stays at the reader's window, not the file's size (a
  // billion-request trace is 24 GB). The pages stay in the page cache, and a read of them
  // again would fault them back from the file: only the memory counted changes.
  void release_read_pages() {
    constexpr uint64_t kChunk = uint64_t{64} << 20;
    const uint64_t read_end = FpqHeader::kHeaderBytes + next_ * FpqHeader::kRecordBytes;
    if (read_end - released_ < kChunk) return;
    const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
    const uint64_t end = read_end / page * page;
    ::madvise(const_cast<unsigned char*>(map_) + released_, end - released_, MADV_DONTNEED);
    released_ = end;
  }

 public:
 private:
  std::string path_;
  int fd_ = -1;
  uint64_t bytes_ = 0;
  const unsigned char* map_ = nullptr;
  FpqHeader header_;
  uint64_t next_ = 0;
  uint64_t released_ = 0;  // bytes of the mapping given back (release_read_pages)
};

// A file written whole or not at all: `path`.tmp, renamed over `path` by commit().
class AtomicFile {
 public:
  explicit AtomicFile(const std::string& path) : path_(path), tmp_(path + ".tmp") {
    f_ = std::fopen(tmp_.c_str(), "wb");
    if (f_ == nullptr) throw TraceError("cannot write '" + tmp_ + "': " + errno_text());
  }
  ~AtomicFile() {
    if (f_ != nullptr) {
      std::fclose(f_);
      std::remove(tmp_.c_str());
    }
  }
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  void write(const void* p, size_t n) {
    if (n > 0 && std::fwrite(p, 1, n, f_) != n) {
      throw TraceError("cannot write '" + tmp_ + "': " + errno_text());
    }
  }
  void seek(long offset) {
    if (std::fseek(f_, offset, SEEK_SET) != 0) {
      throw TraceError("cannot seek in '" + tmp_ + "': " + errno_text());
    }
  }
  void commit() {
    const bool ok = std::fflush(f_) == 0 && ::fsync(::fileno(f_)) == 0;
    std::fclose(f_);
    f_ = nullptr;
    if (!ok || std::rename(tmp_.c_str(), path_.c_str()) != 0) {
      const std::string why = errno_text();
      std::remove(tmp_.c_str());
      throw TraceError("cannot write '" + path_ + "': " + why);
    }
  }

 private:
  std::string path_, tmp_;
  std::FILE* f_ = nullptr;
};

}  // namespace

FpqHeader read_fpq_header(const std::string& path) {
  return FpqReader(path, false).header();
}

FpqHeader write_fpq(TraceReader& in, const std::string& path, const std::string& description) {
  AtomicFile out(path);
  std::vector<unsigned char> header(FpqHeader::kHeaderBytes, 0);
  out.write(header.data(), header.size());  // rewritten once the counts are known
  FpqHeader f;
  f.description = description.substr(0, FpqHeader::kMaxDescriptionBytes);
  std::unique_ptr<XXH3_state_t, XXH_errorcode (*)(XXH3_state_t*)> st(XXH3_createState(),
                                                                     &XXH3_freeState);
  XXH3_64bits_reset(st.get());
  KeySet seen;
  std::vector<Request> batch(16 * 1024);
  for (size_t n; (n = in.read(batch)) != 0;) {
    for (size_t i = 0; i < n; ++i) {
      Request& r = batch[i];
      std::memset(reinterpret_cast<unsigned char*>(&r) + 21, 0, 3);  // equal requests, equal bytes
      if (r.time_ns != 0) f.flags |= 1u;
      if (r.op != Op::kGet) f.flags |= 2u;
      if (r.op != Op::kDelete && seen.insert(r.key)) f.working_set_bytes += r.size_bytes;
    }
    out.write(batch.data(), n * sizeof(Request));
    XXH3_64bits_update(st.get(), batch.data(), n * sizeof(Request));
    f.records += n;
  }
  f.objects = seen.size();
  f.records_hash = XXH3_64bits_digest(st.get());
  encode_header(f, header.data());
  out.seek(0);
  out.write(header.data(), header.size());
  out.commit();
  return f;
}

uint64_t write_oracle_general(TraceReader& in, const std::string& path) {
  // Every request once to a temporary .fpq, checked for what oracleGeneral can hold.
  const std::string tmp_fpq = path + ".requests.fpq";
  struct Remove {
    std::string p;
    ~Remove() { std::remove(p.c_str()); }
  } remove_tmp{tmp_fpq};
  const FpqHeader h = write_fpq(in, tmp_fpq, "oracleGeneral conversion");
  // The requests, mapped (the .fpq just written), and next_access_vtime of each by a backward
  // pass.
  const int fd = ::open(tmp_fpq.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw TraceError("cannot open '" + tmp_fpq + "': " + errno_text());
  const uint64_t bytes = FpqHeader::kHeaderBytes + h.records * FpqHeader::kRecordBytes;
  void* m = ::mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (m == MAP_FAILED) throw TraceError("cannot mmap '" + tmp_fpq + "': " + errno_text());
  struct Unmap {
    void* p;
    uint64_t n;
    ~Unmap() { ::munmap(p, n); }
  } unmap{m, bytes};
  const auto* all = reinterpret_cast<const Request*>(static_cast<const unsigned char*>(m) +
                                                     FpqHeader::kHeaderBytes);
  std::vector<int64_t> next(h.records, -1);
  {
    std::unordered_map<uint64_t, int64_t> later;  // key -> 1-based index of its next request
    later.reserve(h.objects);
    for (uint64_t i = h.records; i-- > 0;) {
      const Request& r = all[i];
      if (r.op != Op::kGet) {
        throw TraceError(fmt::format(
            "{}: request {} is a {}: oracleGeneral holds gets only (convert to .fpq to keep ops)",
            path, i, op_name(r.op)));
      }
      if (r.time_ns % 1'000'000'000 != 0 || r.time_ns / 1'000'000'000 > 0xFFFFFFFFull) {
        throw TraceError(fmt::format(
            "{}: request {} at {} ns: oracleGeneral holds whole seconds below 2^32 (convert to "
            ".fpq to keep the time)",
            path, i, r.time_ns));
      }
      auto [it, fresh] = later.try_emplace(r.key, static_cast<int64_t>(i + 1));
      if (!fresh) {
        next[i] = it->second;
        it->second = static_cast<int64_t>(i + 1);
      }
    }
  }
  {
    AtomicFile out(path);
    const bool zst = path.size() >= 4 && path.compare(path.size() - 4, 4, ".zst") == 0;
    std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx*)> cctx(zst ? ZSTD_createCCtx() : nullptr,
                                                            &ZSTD_freeCCtx);
    if (zst) ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, 3);
    std::vector<unsigned char> raw, packed(ZSTD_CStreamOutSize());
    auto flush = [&](bool last) {
      ZSTD_inBuffer src{raw.data(), raw.size(), 0};
      for (;;) {
        ZSTD_outBuffer dst{packed.data(), packed.size(), 0};
        const size_t left =
            ZSTD_compressStream2(cctx.get(), &dst, &src, last ? ZSTD_e_end : ZSTD_e_continue);
        if (ZSTD_isError(left)) {
          throw TraceError(path + ": zstd: " + ZSTD_getErrorName(left));
        }
        out.write(packed.data(), dst.pos);
        if (last ? left == 0 : src.pos == src.size) break;
      }
      raw.clear();
    };
    for (uint64_t i = 0; i < h.records; ++i) {
      unsigned char rec[24];
      store<uint32_t>(rec, static_cast<uint32_t>(all[i].time_ns / 1'000'000'000));
      store<uint64_t>(rec + 4, all[i].key);
      store<uint32_t>(rec + 12, all[i].size_bytes);
      store<int64_t>(rec + 16, next[i]);
      raw.insert(raw.end(), rec, rec + 24);
      if (raw.size() >= (1u << 20)) {
        if (zst) {
          flush(false);
        } else {
          out.write(raw.data(), raw.size());
          raw.clear();
        }
      }
    }
    if (zst) {
      flush(true);
    } else {
      out.write(raw.data(), raw.size());
    }
    out.commit();
  }
  return h.records;
}

namespace {

const KeySpec kPreload = key("trace.preload", ValueType::kBool)
                             .strict_to_readers()
                             .def("false")
                             .desc("fpq: fault the whole file into memory before the replay");

const ComponentSpec& fpq_spec() {
  static const ComponentSpec spec{"fpq",
                                  "FlashPQ's native trace: a header and 24-byte records, "
                                  "read with mmap (traces/fpq.h)",
                                  {kTracePathKey, kPreload},
                                  {},
                                  {},
                                  {}};
  return spec;
}

}  // namespace

extern const TraceFormat kFpqFormat{
    &fpq_spec,
    [](const TraceConfig& config) -> std::unique_ptr<TraceReader> {
      return std::make_unique<FpqReader>(config.path(), config.params.get<bool>(kPreload));
    },
    [](const TraceConfig& config) { return file_content_hash(config.path()); },
    // The header against the file's size, before anything runs (a truncated file, a count
    // that lies).
    [](const TraceConfig& config) {
      try {
        (void)read_fpq_header(config.path());
      } catch (const TraceError& e) {
        throw std::invalid_argument(std::string("key 'trace.path': ") + e.what());
      }
    }};

}  // namespace flashpq
