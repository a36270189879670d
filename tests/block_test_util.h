// tests/block_test_util.h — helpers of the block-device tests: a scratch directory on a real
// filesystem, shell commands, and RAII for loop devices, mounts and swap (always undone, even
// when a test fails). Test code only; the loop-device helpers need root.
#pragma once

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <array>
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "devices/block/block_config.h"

namespace flashpq::testing {

/// The build directory's scratch folder (a real filesystem: O_DIRECT alignment is enforced,
/// unlike on tmpfs).
inline std::filesystem::path scratch_dir() {
  const std::filesystem::path p = FLASHPQ_SCRATCH_DIR;
  std::filesystem::create_directories(p);
  return p;
}

/// True when `path` is on tmpfs (which accepts unaligned O_DIRECT: alignment is not tested
/// there).
inline bool on_tmpfs(const std::filesystem::path& path) {
  struct statfs s {};
  return ::statfs(path.c_str(), &s) == 0 && s.f_type == TMPFS_MAGIC;
}

/// Runs a shell command; returns its exit status (-1 if it could not run).
inline int shell(const std::string& command) {
  const int r = std::system((command + " >/dev/null 2>&1").c_str());
  return r == -1 ? -1 : WEXITSTATUS(r);
}

/// Runs a shell command and returns its standard output ("" on failure).
inline std::string shell_output(const std::string& command) {
  std::string out;
  FILE* p = ::popen((command + " 2>/dev/null").c_str(), "r");
  if (!p) return out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  ::pclose(p);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

/// Why the loop-device tests cannot run here ("" when they can): they need root and a working
/// losetup (containers often have neither).
inline std::string loop_skip_reason() {
  if (::geteuid() != 0) return "not root";
  if (shell("command -v losetup") != 0) return "losetup is not installed";
  if (shell("losetup -f") != 0) return "losetup cannot find a free loop device (no /dev/loop*?)";
  return "";
}

/// Skips the rest of a test case, saying why, when loop devices are unavailable.
#define FLASHPQ_REQUIRE_LOOP_DEVICES()                                          \
  do {                                                                          \
    const std::string why = ::flashpq::testing::loop_skip_reason();             \
    if (!why.empty()) {                                                         \
      WARN("skipped: loop-device tests need root and losetup (" << why << ")"); \
      return;                                                                   \
    }                                                                           \
  } while (0)

/// A sparse file of `bytes`.
inline std::string make_sparse_file(const std::filesystem::path& path, uint64_t bytes) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  REQUIRE(fd >= 0);
  REQUIRE(::ftruncate(fd, static_cast<off_t>(bytes)) == 0);
  ::close(fd);
  return path.string();
}

/// A loop device over a file (losetup -f --show), detached on destruction.
class LoopDevice {
 public:
  /// `sector_size` 0 = the default (512); `partscan` creates /dev/loopNpK for partitions;
  /// `read_only` attaches it read-only.
  explicit LoopDevice(const std::string& file, uint32_t sector_size = 0, bool partscan = false,
                      bool read_only = false) {
    std::string cmd = "losetup -f --show";
    if (sector_size) cmd += " --sector-size " + std::to_string(sector_size);
    if (partscan) cmd += " -P";
    if (read_only) cmd += " -r";
    path_ = shell_output(cmd + " '" + file + "'");
    REQUIRE(path_.rfind("/dev/loop", 0) == 0);
  }
  ~LoopDevice() {
    if (!path_.empty()) shell("losetup -d " + path_);
  }
  LoopDevice(const LoopDevice&) = delete;
  LoopDevice& operator=(const LoopDevice&) = delete;
  const std::string& path() const { return path_; }
  /// The kernel name, "loopN".
  std::string name() const { return path_.substr(5); }

 private:
  std::string path_;
};

/// A mounted filesystem, unmounted on destruction.
class Mount {
 public:
  Mount(const std::string& device, const std::filesystem::path& dir) : dir_(dir.string()) {
    std::filesystem::create_directories(dir);
    REQUIRE(shell("mount " + device + " '" + dir_ + "'") == 0);
  }
  ~Mount() { shell("umount '" + dir_ + "'"); }
  Mount(const Mount&) = delete;
  Mount& operator=(const Mount&) = delete;

 private:
  std::string dir_;
};

/// A tmpfs of `size` ("8k", "4m": mount(8)'s size=) mounted on `dir` (created) to fill up on
/// purpose, unmounted on destruction. mounted() is false when mounting failed (not root).
class TmpfsMount {
 public:
  TmpfsMount(const std::filesystem::path& dir, const std::string& size) : dir_(dir.string()) {
    std::filesystem::create_directories(dir);
    mounted_ = ::geteuid() == 0 &&
               shell("mount -t tmpfs -o size=" + size + " flashpq-test '" + dir_ + "'") == 0;
  }
  ~TmpfsMount() {
    if (mounted_) shell("umount '" + dir_ + "'");
  }
  TmpfsMount(const TmpfsMount&) = delete;
  TmpfsMount& operator=(const TmpfsMount&) = delete;
  bool mounted() const { return mounted_; }

 private:
  std::string dir_;
  bool mounted_ = false;
};

/// Swap on a device, turned off on destruction.
class SwapOn {
 public:
  explicit SwapOn(const std::string& device) : device_(device) {
    REQUIRE(shell("mkswap " + device) == 0);
    REQUIRE(shell("swapon " + device) == 0);
  }
  ~SwapOn() { shell("swapoff " + device_); }
  SwapOn(const SwapOn&) = delete;
  SwapOn& operator=(const SwapOn&) = delete;

 private:
  std::string device_;
};

/// Flips every bit of the byte at `offset` of `path` (an ordinary buffered write, then fsync).
inline void flip_byte(const std::string& path, uint64_t offset) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  REQUIRE(fd >= 0);
  unsigned char b = 0;
  REQUIRE(::pread(fd, &b, 1, static_cast<off_t>(offset)) == 1);
  b ^= 0xFF;
  REQUIRE(::pwrite(fd, &b, 1, static_cast<off_t>(offset)) == 1);
  REQUIRE(::fsync(fd) == 0);
  ::close(fd);
}

/// `len` bytes of `path` at `offset` (buffered).
inline std::vector<unsigned char> read_bytes(const std::string& path, uint64_t offset, size_t len) {
  std::vector<unsigned char> out(len);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  REQUIRE(::pread(fd, out.data(), len, static_cast<off_t>(offset)) == static_cast<ssize_t>(len));
  ::close(fd);
  return out;
}

/// Allocated 512-byte blocks of a file (st_blocks).
inline uint64_t allocated_blocks(const std::string& path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return static_cast<uint64_t>(st.st_blocks);
}

/// A BlockConfig on `path` with the given capacity and verify mode, queue depth 8 and 64 KiB
/// pieces (small, so tests exercise splitting).
inline BlockConfig block_config(const std::string& path, uint64_t capacity, bool verify = true,
                                IoEngineKind engine = IoEngineKind::kIoUring) {
  BlockConfig c;
  c.path = path;
  c.capacity_bytes = capacity;
  c.verify = verify;
  c.engine = engine;
  c.queue_depth = 8;
  c.max_io_bytes = 64 << 10;
  c.nvme_counters = false;
  return c;
}

}  // namespace flashpq::testing
