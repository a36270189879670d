// traces/next_access.cpp — the pass that writes a next-access file (traces/next_access.h).
#include "traces/next_access.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <xxhash.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <system_error>

#include "engine/next_access.h"
#include "engine/object_table.h"
#include "traces/summary_cache.h"

namespace flashpq {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail_next_access(const std::string& path, const std::string& why) {
  throw std::runtime_error(path + ": cannot write the next-access file: " + why);
}

// The header's hash: the trace's identity, its content hash and its request count.
uint64_t next_access_tag(const TraceConfig& config, const TraceSummary& summary) {
  const std::string text = trace_identity(config) + "\x1f" + summary.content_hash + "\x1f" +
                           std::to_string(summary.requests);
  return XXH3_64bits(text.data(), text.size());
}

}  // namespace

void write_next_access_file(TraceReader& reader, uint64_t requests, uint64_t tag,
                            const std::string& path) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  const uint64_t bytes = next_access_file_bytes(requests);
  const int fd = ::open(tmp.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail_next_access(path, std::strerror(errno));
  if (::ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    const int e = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    fail_next_access(path, std::strerror(e));
  }
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  if (p == MAP_FAILED) {
    const int e = errno;
    ::unlink(tmp.c_str());
    fail_next_access(path, std::strerror(e));
  }
  auto* base = static_cast<unsigned char*>(p);
  auto cleanup = [&] {
    ::munmap(p, bytes);
    ::unlink(tmp.c_str());
  };
  try {
    std::memcpy(base, kNextAccessMagic, 8);
    std::memcpy(base + 8, &requests, 8);
    std::memcpy(base + 16, &tag, 8);
    unsigned char* next = base + kNextAccessHeaderBytes;  // zero: no next access
    unsigned char* sizes = next + 8 * requests;
    unsigned char* ops = sizes + 4 * requests;
    // Each key's last index, in the entry's prev (low) and next (high) words.
    ObjectTable last;
    std::array<Request, 4096> batch;
    uint64_t i = 0;
    for (size_t n; (n = reader.read(batch)) != 0;) {
      if (i + n > requests) {
        fail_next_access(path, "the trace yields more than the " + std::to_string(requests) +
                                   " requests of its summary");
      }
      // Every 4 M requests the pages behind are given back to the page cache (the mapping is
      // shared: what was written stays in the file): the sizes and operations behind i, and
      // next[] behind a window of 4 M requests (a key recurring later faults its page in again),
      // so the pass holds its key table and a window, whatever the trace's length.
      if (i >= (kNextAccessWindow << 1) && (i & (kNextAccessWindow - 1)) < n) {
        give_back_pages(next, 8 * (i - kNextAccessWindow));
        give_back_pages(sizes, 4 * i);
        give_back_pages(ops, i);
      }
      for (size_t k = 0; k < n; ++k, ++i) {
        const Request& r = batch[k];
        std::memcpy(sizes + 4 * i, &r.size_bytes, 4);
        ops[i] = static_cast<unsigned char>(r.op);
        Handle h = last.find(r.key);
        if (h == kNoHandle) {
          h = last.add(r.key, 0);
        } else {
          const uint64_t j = uint64_t{last[h].prev} | uint64_t{last[h].next} << 32;
          const uint64_t v = i + 1;
          std::memcpy(next + 8 * j, &v, 8);
        }
        last[h].prev = static_cast<uint32_t>(i);
        last[h].next = static_cast<uint32_t>(i >> 32);
      }
    }
    if (i != requests) {
      fail_next_access(path, "the trace yields " + std::to_string(i) + " requests, its summary " +
                                 std::to_string(requests));
    }
    if (::msync(p, bytes, MS_SYNC) != 0) fail_next_access(path, std::strerror(errno));
  } catch (...) {
    cleanup();
    throw;
  }
  ::munmap(p, bytes);
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    ::unlink(tmp.c_str());
    fail_next_access(path, ec.message());
  }
}

std::string next_access_file(const TraceConfig& config, const TraceSummary& summary) {
  static std::mutex mutex;  // one pass per trace within a process: the others wait
  const std::lock_guard<std::mutex> lock(mutex);
  std::string path = summary_cache_path(config, SummaryCacheOptions{});
  const std::string suffix = ".flashpq-summary";
  if (path.empty()) {
    const std::string id = trace_identity(config);
    path = (fs::temp_directory_path() /
            ("flashpq." + std::to_string(XXH3_64bits(id.data(), id.size())) + suffix))
               .string();
  }
  path = path.substr(0, path.size() - suffix.size()) + ".flashpq-next-access";
  const uint64_t tag = next_access_tag(config, summary);
  try {
    const NextAccessFile stored(path);
    if (stored.requests() == summary.requests && stored.content_hash() == tag) return path;
  } catch (const std::runtime_error&) {
    // absent or not a next-access file of this trace: computed below
  }
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  std::unique_ptr<TraceReader> reader = open_trace(config);
  write_next_access_file(*reader, summary.requests, tag, path);
  return path;
}

}  // namespace flashpq
