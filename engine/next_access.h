// engine/next_access.h — a trace's future, for the offline bounds: for every request, the index
// of the next request to the same key, with its size and operation, in a file written once per
// trace by a pass over it (traces/next_access.h) and read here by memory mapping.
//
// Belady's MIN (policies/belady.h) evicts the object whose next access is farthest; PFOO-L
// (policies/pfoo_l.h) ranks every reuse interval by size × length. Both need the next access of
// each request when it is replayed, as libCacheSim's oracleGeneral traces carry it in every
// record (next_access_vtime). FlashPQ computes it for any trace, once, and keeps it beside the
// trace's summary in the user cache directory (traces/summary_cache.h), never beside the trace.
//
// File layout (little-endian, N requests):
//   bytes 0-7     magic "FPQNEXT1"
//   bytes 8-15    u64 N
//   bytes 16-23   u64 the trace's content hash (TraceSummary::trace_hash), to tell files apart
//   bytes 24-63   zero
//   then          N × u64 next: next[i] = j + 1 where j > i is the 0-based index of the next
//                 request to request i's key, or 0 when there is none;
//   then          N × u32 size: request i's size in bytes;
//   then          N × u8 op: request i's Op (0 get, 1 set, 2 delete).
// Memory: the mapping's pages come from the page cache and are read in order, so a replay of
// any length holds a few of them at a time (the kernel's readahead).
#pragma once

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

namespace flashpq {

inline constexpr char kNextAccessMagic[8] = {'F', 'P', 'Q', 'N', 'E', 'X', 'T', '1'};
inline constexpr size_t kNextAccessHeaderBytes = 64;
/// "No next access" as NextAccessFile::next() returns it.
inline constexpr uint64_t kNeverAgain = std::numeric_limits<uint64_t>::max();

/// Requests behind which the pass and Belady give a next-access file's pages back
/// (give_back_pages), every time they cross a multiple of it.
inline constexpr uint64_t kNextAccessWindow = uint64_t{1} << 22;

/// Drops the whole pages of [begin, begin + bytes) of a shared file mapping from the process
/// (MADV_DONTNEED: the data stays in the page cache and the file; a later access faults the page
/// in again). The next-access pass and Belady's reading keep their resident pages a window so.
inline void give_back_pages(const unsigned char* begin, uint64_t bytes) {
  const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto start = reinterpret_cast<uintptr_t>(begin);
  const uintptr_t first = (start + page - 1) / page * page;
  const uintptr_t end = (start + bytes) / page * page;
  if (end > first) ::madvise(reinterpret_cast<void*>(first), end - first, MADV_DONTNEED);
}

/// The total size of a next-access file of `requests` requests.
inline uint64_t next_access_file_bytes(uint64_t requests) {
  return kNextAccessHeaderBytes + requests * (8 + 4 + 1);
}

/// A next-access file mapped read-only (see the file comment). Movable, not copyable.
class NextAccessFile {
 public:
  NextAccessFile() = default;
  /// Maps `path`. Throws std::runtime_error naming the file when it cannot be opened or mapped,
  /// has another magic, or its size disagrees with its request count.
  explicit NextAccessFile(const std::string& path) : path_(path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) fail("cannot open: " + std::string(std::strerror(errno)));
    struct stat st {};
    if (::fstat(fd, &st) != 0 || st.st_size < static_cast<off_t>(kNextAccessHeaderBytes)) {
      ::close(fd);
      fail("shorter than its 64-byte header");
    }
    bytes_ = static_cast<size_t>(st.st_size);
    void* p = ::mmap(nullptr, bytes_, PROT_READ, MAP_SHARED, fd, 0);
    ::close(fd);
    if (p == MAP_FAILED) fail("cannot map: " + std::string(std::strerror(errno)));
    base_ = static_cast<const unsigned char*>(p);
    ::madvise(p, bytes_, MADV_SEQUENTIAL);
    if (std::memcmp(base_, kNextAccessMagic, 8) != 0) {
      release();
      fail("not a next-access file (magic FPQNEXT1 expected)");
    }
    std::memcpy(&requests_, base_ + 8, 8);
    std::memcpy(&content_hash_, base_ + 16, 8);
    if (next_access_file_bytes(requests_) != bytes_) {
      const uint64_t n = requests_;
      release();
      fail("holds " + std::to_string(bytes_) + " bytes, but " +
           std::to_string(next_access_file_bytes(n)) + " for its " + std::to_string(n) +
           " requests");
    }
  }
  NextAccessFile(NextAccessFile&& o) noexcept { *this = std::move(o); }
  NextAccessFile& operator=(NextAccessFile&& o) noexcept {
    if (this != &o) {
      release();
      path_ = std::move(o.path_);
      base_ = o.base_;
      bytes_ = o.bytes_;
      requests_ = o.requests_;
      content_hash_ = o.content_hash_;
      o.base_ = nullptr;
      o.bytes_ = 0;
    }
    return *this;
  }
  NextAccessFile(const NextAccessFile&) = delete;
  NextAccessFile& operator=(const NextAccessFile&) = delete;
  ~NextAccessFile() { release(); }

  bool is_open() const { return base_ != nullptr; }
  const std::string& path() const { return path_; }
  /// N, the trace's requests.
  uint64_t requests() const { return requests_; }
  uint64_t content_hash() const { return content_hash_; }

  /// The 0-based index of the next request to request i's key, or kNeverAgain.
  /// REQUIRES: i < requests().
  uint64_t next(uint64_t i) const {
    uint64_t v;
    std::memcpy(&v, base_ + kNextAccessHeaderBytes + 8 * i, 8);
    return v == 0 ? kNeverAgain : v - 1;
  }
  /// Gives the pages of next() below request i back to the page cache (a reader that goes in
  /// order, Belady's, calls it now and then, so that its resident pages stay a window).
  void release_before(uint64_t i) { give_back_pages(base_ + kNextAccessHeaderBytes, 8 * i); }
  /// Request i's size in bytes. REQUIRES: i < requests().
  uint32_t size(uint64_t i) const {
    uint32_t v;
    std::memcpy(&v, base_ + kNextAccessHeaderBytes + 8 * requests_ + 4 * i, 4);
    return v;
  }
  /// Request i's operation (0 get, 1 set, 2 delete). REQUIRES: i < requests().
  uint8_t op(uint64_t i) const { return base_[kNextAccessHeaderBytes + 12 * requests_ + i]; }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw std::runtime_error(path_ + ": " + why);
  }
  void release() {
    if (base_ != nullptr) ::munmap(const_cast<unsigned char*>(base_), bytes_);
    base_ = nullptr;
  }

  std::string path_;
  const unsigned char* base_ = nullptr;
  size_t bytes_ = 0;
  uint64_t requests_ = 0;
  uint64_t content_hash_ = 0;
};

}  // namespace flashpq
