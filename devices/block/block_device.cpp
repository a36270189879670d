#include "devices/block/block_device.h"

#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "devices/block/crc32c.h"
#include "fmt/format.h"
#include "sim/rng.h"

namespace flashpq {

static_assert(std::endian::native == std::endian::little,
              "verify headers are written in the host's byte order, little-endian");

namespace {

// Closes a descriptor unless released.
class FdGuard {
 public:
  explicit FdGuard(int fd) : fd_(fd) {}
  ~FdGuard() {
    if (fd_ >= 0) ::close(fd_);
  }
  int release() { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

[[noreturn]] void throw_errno(int err, const std::string& what) {
  throw std::system_error(err, std::generic_category(), what);
}

}  // namespace

BlockDevice::Opened BlockDevice::open_and_gate(const BlockConfig& config) {
  config.validate();
  const std::string& path = config.path;
  Opened o;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) throw_errno(errno, path);
    if (config.capacity_bytes == 0) {
      throw std::invalid_argument("device.path: '" + path +
                                  "' does not exist; set device.capacity to create a file of "
                                  "that size");
    }
    // A new file: its folder too (results/ on a first run), as the results file does.
    if (const std::filesystem::path parent = std::filesystem::path(path).parent_path();
        !parent.empty()) {
      std::error_code ec;
      std::filesystem::create_directories(parent, ec);
    }
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) throw_errno(errno, "creating " + path);
    ::close(fd);
    if (::stat(path.c_str(), &st) != 0) throw_errno(errno, path);
  }
  const bool block = S_ISBLK(st.st_mode);
  if (!block && !S_ISREG(st.st_mode)) {
    throw std::invalid_argument("device.path: '" + path +
                                "' is neither a regular file nor a block device");
  }

  // 1. Open and claim. O_EXCL on a block device is the kernel's exclusive claim: refused
  //    (EBUSY) while it is mounted, used as swap, held, or claimed by another program.
  int flags = O_RDWR | O_CLOEXEC | (block ? O_EXCL : 0);
  o.o_direct = config.o_direct;
  int fd = ::open(path.c_str(), flags | (o.o_direct ? O_DIRECT : 0));
  if (fd < 0 && errno == EINVAL && o.o_direct && !block) {
    o.o_direct = false;
    o.notes.push_back("O_DIRECT refused by the filesystem (EINVAL): buffered I/O");
    fd = ::open(path.c_str(), flags);
  }
  if (fd < 0) {
    const int err = errno;
    if (err == EBUSY || err == EROFS || err == EACCES || err == EPERM) {
      std::string msg = path + ": refusing to write: ";
      msg += err == EBUSY ? "the kernel reports it busy (mounted, swap, held by another device, "
                            "or opened exclusively by another program)"
                          : std::string("cannot open it for writing: ") + std::strerror(err);
      try {
        const DeviceReport r = inspect_device(path);
        for (const auto& s : safety_refusals(r, 0, config.force_destroy)) msg += "\n  - " + s;
      } catch (const std::exception& e) {
        msg += std::string("\n  (inspection failed: ") + e.what() + ")";
      }
      throw SafetyError(msg);
    }
    throw_errno(err, "opening " + path);
  }
  FdGuard guard(fd);
  if (!block && ::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK) {
      throw SafetyError(path +
                        ": refusing to write: another process holds a lock on it (is "
                        "another FlashPQ run using it?)");
    }
    throw_errno(errno, "locking " + path);
  }

  // 2. The gate, with the claim held.
  o.report = inspect_device(path);
  const DeviceGeometry& g = o.report.geometry;
  o.capacity_bytes = config.capacity_bytes ? config.capacity_bytes : g.size_bytes;
  enforce_safety(o.report, block ? o.capacity_bytes : 0, config.force_destroy);

  // 3. Geometry.
  o.logical_block_bytes = g.logical_block_bytes ? g.logical_block_bytes : 512;
  if (o.capacity_bytes == 0) {
    throw std::invalid_argument("device.capacity: '" + path +
                                "' is empty; set device.capacity to the size to use");
  }
  if (o.capacity_bytes % o.logical_block_bytes != 0) {
    throw std::invalid_argument(fmt::format(
        "device.capacity: {} bytes is not a multiple of the logical block size {} B of {}",
        o.capacity_bytes, o.logical_block_bytes, path));
  }
  if (config.max_io_bytes < o.logical_block_bytes || g.dio_mem_align > 4096) {
    throw std::invalid_argument(fmt::format(
        "device.max_io_size: {} bytes is smaller than the logical block size {} B of {} (or "
        "the device needs buffers aligned to {} B > 4096)",
        config.max_io_bytes, o.logical_block_bytes, path, g.dio_mem_align));
  }
  if (!block && g.size_bytes < o.capacity_bytes) {
    // Allocated, not written: as fio's fallocate=native before its layout.
    if (::fallocate(fd, 0, 0, static_cast<off_t>(o.capacity_bytes)) != 0) {
      if (errno != EOPNOTSUPP) throw_errno(errno, "extending " + path);
      if (::ftruncate(fd, static_cast<off_t>(o.capacity_bytes)) != 0) {
        throw_errno(errno, "extending " + path);
      }
    }
  }
  o.fd = guard.release();
  return o;
}

BlockDevice::BlockDevice(const DeviceConfig& config) : BlockDevice(block_config_of(config)) {}

BlockDevice::BlockDevice(const BlockConfig& config) : BlockDevice(config, open_and_gate(config)) {}

BlockDevice::BlockDevice(const BlockConfig& config, Opened opened)
    : Device(opened.capacity_bytes, opened.logical_block_bytes),
      config_(config),
      report_(std::move(opened.report)),
      fd_(opened.fd),
      o_direct_(opened.o_direct),
      notes_(std::move(opened.notes)) {
  try {
    block_shift_ = static_cast<uint32_t>(std::countr_zero(logical_block_bytes()));
    const uint32_t depth = config_.queue_depth;
    arena_bytes_ = size_t{depth} * config_.max_io_bytes;
    void* p = ::mmap(nullptr, arena_bytes_, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (p == MAP_FAILED) throw_errno(errno, "allocating I/O buffers");
    arena_ = static_cast<char*>(p);
    // The pattern written when verify is off: pseudo-random, so a compressing or
    // deduplicating drive cannot shrink it (fio's default buffers are random too).
    RngStream pattern(config_.pattern_seed, RngStream::kDataStream);
    for (size_t i = 0; i + 8 <= arena_bytes_; i += 8) {
      const uint64_t w = pattern.next();
      std::memcpy(arena_ + i, &w, 8);
    }
    slots_.resize(depth);
    iovecs_.resize(depth);
    free_slots_.reserve(depth);
    for (uint32_t i = 0; i < depth; ++i) {
      slots_[i].buf = arena_ + size_t{i} * config_.max_io_bytes;
      iovecs_[i] = {slots_[i].buf, config_.max_io_bytes};
      free_slots_.push_back(depth - 1 - i);  // slot 0 first
    }
    if (config_.verify) generation_.assign(capacity_bytes() >> block_shift_, 0);
    setup_engine();
    if (config_.discard_before_run) discard_extent(0, capacity_bytes());
  } catch (...) {
    uring_.reset();
    if (arena_) ::munmap(arena_, arena_bytes_);
    ::close(fd_);
    throw;
  }
}

BlockDevice::~BlockDevice() {
  drain();
  uring_.reset();
  psync_.reset();
  if (arena_) ::munmap(arena_, arena_bytes_);
  if (fd_ >= 0) ::close(fd_);  // releases the O_EXCL claim and the flock
}

void BlockDevice::setup_engine() {
  engine_kind_ = config_.engine;
  if (engine_kind_ == IoEngineKind::kIoUring) {
    try {
      uring_ = std::make_unique<UringEngine>(fd_, config_.queue_depth, iovecs_,
                                             config_.registered_buffers);
      for (const auto& n : uring_->notes()) notes_.push_back(n);
      return;
    } catch (const std::system_error& e) {
      notes_.push_back(std::string("io_uring unavailable (") + e.what() + "): psync");
      engine_kind_ = IoEngineKind::kPsync;
    }
  }
  psync_ = std::make_unique<PsyncEngine>(fd_, config_.queue_depth);
}

std::string BlockDevice::notes_text() const {
  std::string out;
  for (const auto& n : notes_) out += (out.empty() ? "" : "; ") + n;
  return out;
}

void BlockDevice::start(uint32_t slot, bool write, uint64_t offset, uint32_t len) {
  Slot& s = slots_[slot];
  s.offset = offset;
  s.len = len;
  s.done = 0;
  s.write = write;
  if (write && config_.verify) fill_verified(s);
  if (uring_)
    uring_->prep(slot, write, s.buf, len, offset);
  else
    psync_->prep(slot, write, s.buf, len, offset);
}

bool BlockDevice::complete(uint32_t slot, int res) {
  Slot& s = slots_[slot];
  if (res <= 0) {
    if (!pending_error_) {
      const std::string what =
          fmt::format("{} of {} bytes at offset {} of {}", s.write ? "write" : "read",
                      s.len - s.done, s.offset + s.done, config_.path);
      pending_error_ =
          res < 0 ? std::make_exception_ptr(std::system_error(-res, std::generic_category(), what))
                  : std::make_exception_ptr(std::runtime_error(
                        what + ": transferred 0 bytes (end of the file or device)"));
    }
    free_slots_.push_back(slot);
    return false;
  }
  s.done += static_cast<uint32_t>(res);
  if (s.done < s.len) {  // short transfer: the rest, from where it stopped
    if (uring_)
      uring_->prep(slot, s.write, s.buf + s.done, s.len - s.done, s.offset + s.done);
    else
      psync_->prep(slot, s.write, s.buf + s.done, s.len - s.done, s.offset + s.done);
    return false;
  }
  if (!s.write && config_.verify) {
    try {
      check_verified(s);
    } catch (...) {
      if (!pending_error_) pending_error_ = std::current_exception();
    }
  }
  return true;
}

void BlockDevice::rethrow_pending() {
  std::exception_ptr e = std::exchange(pending_error_, nullptr);
  std::rethrow_exception(e);
}

void BlockDevice::fill_verified(Slot& s) {
  if (next_generation_ > UINT32_MAX) {
    throw std::runtime_error("verify: more than 2^32 - 1 writes in one run");
  }
  const uint64_t gen = next_generation_++;
  const uint32_t lbs = logical_block_bytes();
  for (uint32_t b = 0; b < s.len; b += lbs) {
    char* blk = s.buf + b;
    const uint64_t off = s.offset + b;
    // A payload of its own for every (offset, generation).
    RngStream payload(off ^ (gen << 40) ^ gen, RngStream::kDataStream);
    for (uint32_t i = sizeof(VerifyHeader); i + 8 <= lbs; i += 8) {
      const uint64_t w = payload.next();
      std::memcpy(blk + i, &w, 8);
    }
    const VerifyHeader h{kVerifyMagic, off, gen,
                         crc32c(blk + sizeof(VerifyHeader), lbs - sizeof(VerifyHeader)), 0};
    std::memcpy(blk, &h, sizeof h);
    generation_[off >> block_shift_] = static_cast<uint32_t>(gen);
  }
}

void BlockDevice::check_verified(const Slot& s) {
  const uint32_t lbs = logical_block_bytes();
  for (uint32_t b = 0; b < s.len; b += lbs) {
    const char* blk = s.buf + b;
    const uint64_t off = s.offset + b;
    const uint32_t expected = generation_[off >> block_shift_];
    if (expected == 0) {
      if (unwritten_reads_are_errors_) {
        throw VerifyError(fmt::format("verify: {}: read of the block of {} bytes at offset {}, "
                                      "which this run never wrote (or discarded since)",
                                      config_.path, lbs, off),
                          off);
      }
      ++verify_.blocks_unchecked;
      continue;
    }
    VerifyHeader h;
    std::memcpy(&h, blk, sizeof h);
    const uint32_t crc = crc32c(blk + sizeof(VerifyHeader), lbs - sizeof(VerifyHeader));
    std::string what;
    if (h.magic != kVerifyMagic) {
      what = fmt::format("magic {:#018x} instead of {:#018x}", h.magic, kVerifyMagic);
    } else if (h.offset != off) {
      what = fmt::format("header names offset {}", h.offset);
    } else if (h.generation != expected) {
      what = fmt::format("generation {} instead of {} (a stale or lost write)", h.generation,
                         expected);
    } else if (h.zero != 0) {
      what = fmt::format("reserved header bytes {:#010x} instead of 0", h.zero);
    } else if (h.payload_crc32c != crc) {
      what = fmt::format("payload CRC32C {:#010x}, header says {:#010x}", crc, h.payload_crc32c);
    }
    if (!what.empty()) {
      throw VerifyError(fmt::format("verify: {}: block of {} bytes at offset {} differs from what "
                                    "FlashPQ last wrote there: {}",
                                    config_.path, lbs, off, what),
                        off);
    }
    ++verify_.blocks_checked;
  }
}

void BlockDevice::transfer(bool write, uint64_t offset, uint64_t len) {
  const uint64_t end = offset + len;
  uint64_t next = offset;
  uint32_t mine = 0;
  try {
    while (next < end || mine > 0) {
      while (next < end) {
        const uint32_t slot = acquire_slot();
        if (slot == UINT32_MAX) break;
        const auto piece =
            static_cast<uint32_t>(std::min<uint64_t>(config_.max_io_bytes, end - next));
        start(slot, write, next, piece);
        next += piece;
        ++mine;
      }
      submit_and_wait(1, -1);
      reap([&](uint32_t) { --mine; });
    }
  } catch (...) {
    drain();
    throw;
  }
}

void BlockDevice::discard_extent(uint64_t offset, uint64_t len) {
  if (discard_supported_ && report_.identity.block_device &&
      report_.geometry.discard_max_bytes == 0) {
    discard_supported_ = false;
    notes_.push_back(
        "discard not supported by the device (queue/discard_max_bytes = 0): "
        "trims not issued");
  }
  if (!discard_supported_) {
    ++discards_skipped_;
    return;
  }
  int r;
  if (report_.identity.block_device) {
    uint64_t range[2] = {offset, len};
    r = ::ioctl(fd_, BLKDISCARD, range);
  } else {
    r = ::fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(offset),
                    static_cast<off_t>(len));
  }
  if (r != 0) {
    const int err = errno;
    if (err == EOPNOTSUPP || err == ENOTTY) {
      discard_supported_ = false;
      notes_.push_back(std::string("discard refused (") + std::strerror(err) +
                       "): trims not issued");
      ++discards_skipped_;
      return;
    }
    throw_errno(err,
                fmt::format("discarding {} bytes at offset {} of {}", len, offset, config_.path));
  }
  if (config_.verify) {  // the content is undefined now
    std::fill(generation_.begin() + static_cast<ptrdiff_t>(offset >> block_shift_),
              generation_.begin() + static_cast<ptrdiff_t>((offset + len) >> block_shift_), 0u);
  }
}

void BlockDevice::drain() noexcept {
  while (in_flight() > 0) {
    try {
      submit_and_wait(1, -1);
    } catch (...) {
      break;  // cannot wait: the ring's teardown cancels what is left
    }
    try {
      reap([](uint32_t) {});
    } catch (...) {
      // An I/O error or a verify mismatch of an abandoned I/O: keep draining.
    }
  }
  pending_error_ = nullptr;
}

void BlockDevice::begin_nvme_measurement() {
  if (!config_.nvme_counters || report_.nvme_namespace.empty()) return;
  nvme_before_ = snapshot_nvme(report_.nvme_namespace, shell_command_runner());
}

NvmeWriteDelta BlockDevice::end_nvme_measurement() {
  if (!nvme_before_) return {};
  const NvmeSnapshot after = snapshot_nvme(report_.nvme_namespace, shell_command_runner());
  nvme_delta_ = nvme_delta(*std::exchange(nvme_before_, std::nullopt), after);
  return nvme_delta_;
}

std::vector<Column> BlockDevice::do_columns(const ReportContext&) const {
  auto opt = [](const std::optional<uint64_t>& v) { return v ? format_number(*v) : ""; };
  const std::string values[] = {io_engine_name(engine()),
                                o_direct() ? "true" : "false",
                                notes_text(),
                                format_number(uint64_t{logical_block_bytes()}),
                                config_.verify ? format_number(verify_.blocks_checked) : "",
                                config_.verify ? format_number(verify_.blocks_unchecked) : "",
                                opt(nvme_delta_.host_bytes),
                                opt(nvme_delta_.media_bytes),
                                nvme_delta_.wa_device ? format_number(*nvme_delta_.wa_device) : ""};
  const std::vector<ColumnSpec>& specs = kBlockDeviceType.columns;
  static_assert(std::size(values) == 9);
  std::vector<Column> out;
  for (size_t i = 0; i < specs.size(); ++i) out.push_back(specs[i].with(values[i]));
  return out;
}

namespace {

// Reads, never writes, what the device will be: the capacity and the logical block every
// request must be aligned to, so that an impossible cell fails before anything runs. A file
// that does not exist yet is created at open, with device.capacity.
DeviceBounds resolve_block(const DeviceConfig& config, Params& shown) {
  const BlockConfig b = block_config_of(config);
  DeviceBounds g;
  if (std::filesystem::exists(b.path)) {
    DeviceReport probe;
    try {
      probe = inspect_device(b.path);
    } catch (const std::exception& e) {
      throw std::invalid_argument("key 'device.path': expected a file or block device, found '" +
                                  std::string(e.what()) + "'");
    }
    g.capacity_bytes = b.capacity_bytes ? b.capacity_bytes : probe.geometry.size_bytes;
    if (probe.geometry.logical_block_bytes) {
      g.logical_block_bytes = probe.geometry.logical_block_bytes;
    }
  } else if (b.capacity_bytes == 0) {
    throw std::invalid_argument(
        "key 'device.path': expected an existing file or block device (or set device.capacity "
        "to create a file), found '" +
        b.path + "'");
  } else {
    g.capacity_bytes = b.capacity_bytes;
  }
  if (g.capacity_bytes % g.logical_block_bytes != 0) {
    throw std::invalid_argument(fmt::format(
        "key 'device.capacity': expected a multiple of the logical block size {} B of {}, found "
        "'{}'",
        g.logical_block_bytes, b.path, config.params.text("device.capacity")));
  }
  shown.set("device.capacity", std::to_string(g.capacity_bytes));
  shown.set("device.engine", io_engine_name(b.engine));
  shown.set("device.queue_depth", std::to_string(b.queue_depth));
  shown.set("device.max_io_size", std::to_string(b.max_io_bytes));
  shown.set("device.o_direct", b.o_direct ? "true" : "false");
  shown.set("device.registered_buffers", b.registered_buffers ? "true" : "false");
  shown.set("device.verify", b.verify ? "true" : "false");
  shown.set("device.discard_before_run", b.discard_before_run ? "true" : "false");
  shown.set("device.nvme_counters", b.nvme_counters ? "true" : "false");
  return g;
}

}  // namespace

namespace {

// The block device's columns (DeviceType::columns), in the order do_columns() fills them.
const std::vector<ColumnSpec> kBlockColumns = {
    column("block_engine")
        .text()
        .desc("the I/O engine that ran: io_uring or psync (device.engine)"),
    column("block_o_direct")
        .text()
        .desc("whether the file or device was opened with O_DIRECT (true, false)"),
    column("block_notes")
        .text()
        .only_if_set(
            "the device had to fall back (io_uring refused or unavailable, a discard refused)")
        .desc("what the device could not do as configured, \"; \"-separated"),
    column("block_logical_block_bytes")
        .units("bytes")
        .desc("the logical block every offset and length is aligned to"),
    column("verify_blocks_checked")
        .units("blocks")
        .only("device.verify true")
        .desc("logical blocks read whose header and CRC32C were checked and matched "
              "(devices/block/block_device.h, verify mode)"),
    column("verify_blocks_unchecked")
        .units("blocks")
        .only("device.verify true")
        .desc("logical blocks read that this device never wrote, or discarded since: not "
              "checked"),
    column("nvme_host_bytes_written")
        .units("bytes")
        .only_if_set("device.nvme_counters true and the drive reports it (NVMe SMART log)")
        .desc("the drive's host bytes written over the run"),
    column("nvme_media_bytes_written")
        .units("bytes")
        .only_if_set("device.nvme_counters true and the drive reports it (a vendor log)")
        .desc("the drive's media (NAND) bytes written over the run"),
    column("wa_device")
        .units("ratio")
        .only_if_set("the drive reports both counters")
        .desc("the drive's own write amplification: nvme_media_bytes_written / "
              "nvme_host_bytes_written")};

// The columns a row of a cell on `config` carries: the verify columns with device.verify. The
// notes and the drive's counters depend on what the run met: carried only where they have a
// value (if_set).
std::vector<std::string> block_row_columns(const DeviceConfig& config) {
  const BlockConfig b = block_config_of(config);
  std::vector<std::string> out;
  for (const ColumnSpec& c : kBlockColumns) {
    if (c.if_set) continue;
    if (c.name.starts_with("verify_") && !b.verify) continue;
    out.push_back(c.name);
  }
  return out;
}

}  // namespace

const DeviceType kBlockDeviceType{&block_spec,
                                  &resolve_block,
                                  [](const DeviceConfig& config) -> std::unique_ptr<Device> {
                                    return std::make_unique<BlockDevice>(config);
                                  },
                                  kBlockColumns,
                                  DeviceClock::kWall,
                                  nullptr,
                                  &block_row_columns};

}  // namespace flashpq
