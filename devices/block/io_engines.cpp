#include "devices/block/io_engines.h"

#include <cstring>
#include <system_error>

namespace flashpq {

namespace {

struct Flag {
  uint32_t bit;
  const char* name;
};
// In the order they are dropped when the kernel refuses them: newest first. DEFER_TASKRUN
// requires SINGLE_ISSUER, so it goes first.
constexpr Flag kFlags[] = {{IORING_SETUP_DEFER_TASKRUN, "DEFER_TASKRUN"},
                           {IORING_SETUP_SINGLE_ISSUER, "SINGLE_ISSUER"},
                           {IORING_SETUP_COOP_TASKRUN, "COOP_TASKRUN"}};

}  // namespace

UringEngine::UringEngine(int fd, uint32_t depth, const std::vector<iovec>& buffers,
                         bool register_buffers)
    : fd_(fd) {
  uint32_t flags = 0;
  for (const Flag& f : kFlags) flags |= f.bit;
  std::string dropped;
  for (size_t next_drop = 0;; ++next_drop) {
    io_uring_params params{};
    params.flags = flags;
    const int r = io_uring_queue_init_params(depth, &ring_, &params);
    if (r == 0) break;
    if (r != -EINVAL || next_drop == std::size(kFlags)) {
      throw std::system_error(-r, std::generic_category(), "io_uring_queue_init");
    }
    flags &= ~kFlags[next_drop].bit;
    if (!dropped.empty()) dropped += '|';
    dropped += kFlags[next_drop].name;
  }
  for (auto it = std::rbegin(kFlags); it != std::rend(kFlags); ++it) {
    if (!(flags & it->bit)) continue;
    if (!flags_text_.empty()) flags_text_ += '|';
    flags_text_ += it->name;
  }
  if (!dropped.empty()) notes_.push_back("io_uring setup flags refused by the kernel: " + dropped);
  if (register_buffers) {
    const int rb =
        io_uring_register_buffers(&ring_, buffers.data(), static_cast<unsigned>(buffers.size()));
    if (rb == 0) {
      fixed_buffers_ = true;
    } else {
      notes_.push_back(std::string("io_uring buffers not registered: ") + std::strerror(-rb));
    }
    const int rf = io_uring_register_files(&ring_, &fd_, 1);
    if (rf == 0) {
      fixed_file_ = true;
    } else {
      notes_.push_back(std::string("io_uring file not registered: ") + std::strerror(-rf));
    }
  }
}

UringEngine::~UringEngine() {
  // The ring's teardown is asynchronous in the kernel: a file still registered would keep the
  // open file — and with it the O_EXCL claim or the flock — alive after the process closed
  // it, and the next run would find the device busy. Unregistering waits for its references.
  if (fixed_file_) io_uring_unregister_files(&ring_);
  if (fixed_buffers_) io_uring_unregister_buffers(&ring_);
  io_uring_queue_exit(&ring_);
}

void UringEngine::submit_and_wait(uint32_t min_complete, int64_t timeout_ns) {
  for (;;) {
    int r;
    if (min_complete == 0) {
      r = io_uring_submit(&ring_);
    } else if (timeout_ns < 0) {
      r = io_uring_submit_and_wait(&ring_, min_complete);
    } else {
      __kernel_timespec ts{};
      ts.tv_sec = timeout_ns / 1'000'000'000;
      ts.tv_nsec = timeout_ns % 1'000'000'000;
      io_uring_cqe* cqe = nullptr;
      r = io_uring_submit_and_wait_timeout(&ring_, &cqe, min_complete, &ts, nullptr);
      if (r == -ETIME) return;
    }
    if (r >= 0) return;
    if (r == -EINTR || r == -EAGAIN) {
      if (io_uring_sq_ready(&ring_) == 0 && min_complete == 0) return;
      continue;
    }
    throw std::system_error(-r, std::generic_category(), "io_uring_submit");
  }
}

}  // namespace flashpq
