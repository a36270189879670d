// devices/block/io_engines.h — the two ways the block device issues I/O: io_uring (liburing)
// and psync (pread/pwrite). Both have the same inline interface, so the block device's I/O
// loop calls them without a virtual call:
//   prep(slot, write, buf, len, offset)   queue one I/O; `slot` comes back on completion
//   submit_and_wait(min, timeout_ns)      submit what is queued; wait for ≥ min completions
//   reap(f)                               f(slot, res) per completion: res = bytes or −errno
// Neither is thread-safe; one thread owns an engine.
#pragma once

#include <liburing.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace flashpq {

/// io_uring through liburing (Axboe, "Efficient IO with io_uring", kernel.dk, 2019): one
/// submission queue entry per I/O, submitted in batches by one io_uring_enter that also waits.
class UringEngine {
 public:
  /// Sets up a ring of `depth` entries on `fd`. Setup flags are tried in this order and the
  /// last is dropped each time the kernel refuses the set (EINVAL): COOP_TASKRUN (5.19),
  /// SINGLE_ISSUER (6.0), DEFER_TASKRUN (6.1); dropped ones are listed in notes(). When
  /// `register_buffers`, registers `buffers` (buffer i is used by slot i, READ_FIXED /
  /// WRITE_FIXED) and the file; a refusal (RLIMIT_MEMLOCK, old kernel) is noted and plain
  /// READ/WRITE are used. Throws std::system_error when no ring can be set up at all (ENOSYS,
  /// EPERM: io_uring disabled) — the caller falls back to psync.
  /// REQUIRES: `buffers` outlives the engine; every I/O on slot i lies within buffers[i]; the
  /// thread that constructs the engine is the one that submits (SINGLE_ISSUER).
  UringEngine(int fd, uint32_t depth, const std::vector<iovec>& buffers, bool register_buffers);
  ~UringEngine();
  UringEngine(const UringEngine&) = delete;
  UringEngine& operator=(const UringEngine&) = delete;

  /// Queues one I/O. REQUIRES: fewer than depth I/Os queued or in flight.
  void prep(uint32_t slot, bool write, char* buf, uint32_t len, uint64_t offset) {
    io_uring_sqe* sqe = io_uring_get_sqe(&ring_);  // never null under the REQUIRES
    const int file = fixed_file_ ? 0 : fd_;
    if (fixed_buffers_) {
      if (write)
        io_uring_prep_write_fixed(sqe, file, buf, len, offset, static_cast<int>(slot));
      else
        io_uring_prep_read_fixed(sqe, file, buf, len, offset, static_cast<int>(slot));
    } else {
      if (write)
        io_uring_prep_write(sqe, file, buf, len, offset);
      else
        io_uring_prep_read(sqe, file, buf, len, offset);
    }
    if (fixed_file_) sqe->flags |= IOSQE_FIXED_FILE;
    sqe->user_data = slot;
  }

  /// Submits the queued I/Os and waits until at least `min_complete` completions are
  /// available or `timeout_ns` passed (< 0: no timeout). Throws std::system_error on a
  /// submission error.
  void submit_and_wait(uint32_t min_complete, int64_t timeout_ns);

  /// Calls f(slot, res) for every available completion, res = bytes transferred or −errno.
  /// Returns their number.
  template <class F>
  uint32_t reap(F&& f) {
    unsigned head;
    io_uring_cqe* cqe;
    uint32_t n = 0;
    uint32_t seen = 0;
    io_uring_for_each_cqe(&ring_, head, cqe) {
      ++seen;
      // liburing's own timeout entry, used by submit_and_wait_timeout on kernels without
      // IORING_FEAT_EXT_ARG (< 5.11).
      if (cqe->user_data == LIBURING_UDATA_TIMEOUT) continue;
      f(static_cast<uint32_t>(cqe->user_data), cqe->res);
      ++n;
    }
    io_uring_cq_advance(&ring_, seen);
    return n;
  }

  /// Setup flags kept, e.g. "COOP_TASKRUN|SINGLE_ISSUER|DEFER_TASKRUN" ("" = none).
  const std::string& flags() const { return flags_text_; }
  bool fixed_buffers() const { return fixed_buffers_; }
  /// What was dropped and why ("io_uring setup flags dropped: DEFER_TASKRUN", …).
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  io_uring ring_{};
  int fd_;
  bool fixed_buffers_ = false;
  bool fixed_file_ = false;
  std::string flags_text_;
  std::vector<std::string> notes_;
};

/// pread(2) / pwrite(2): each I/O runs to completion inside prep(); reap() hands the results
/// back in order. fio's psync engine (iodepth 1).
class PsyncEngine {
 public:
  PsyncEngine(int fd, uint32_t depth) : fd_(fd) {
    done_.reserve(depth);
    reaping_.reserve(depth);
  }

  void prep(uint32_t slot, bool write, char* buf, uint32_t len, uint64_t offset) {
    ssize_t r;
    do {
      r = write ? ::pwrite(fd_, buf, len, static_cast<off_t>(offset))
                : ::pread(fd_, buf, len, static_cast<off_t>(offset));
    } while (r < 0 && errno == EINTR);
    done_.emplace_back(slot, r < 0 ? -errno : static_cast<int>(r));
  }
  void submit_and_wait(uint32_t, int64_t) {}
  template <class F>
  uint32_t reap(F&& f) {
    reaping_.swap(done_);  // f may prep (resubmit a short transfer) into done_
    for (const auto& [slot, res] : reaping_) f(slot, res);
    const auto n = static_cast<uint32_t>(reaping_.size());
    reaping_.clear();
    return n;
  }

 private:
  int fd_;
  std::vector<std::pair<uint32_t, int>> done_, reaping_;
};

}  // namespace flashpq
