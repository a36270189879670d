#include "experiments/run/wall_runner.h"

#include <cerrno>

#include "fmt/format.h"

namespace flashpq {

BlockIo block_io_of(const BlockDevice& dev, const Request& r, uint64_t offset_unit_bytes,
                    uint64_t index) {
  BlockIo io{};
  io.kind = r.op == Op::kGet   ? BlockIo::kRead
            : r.op == Op::kSet ? BlockIo::kWrite
                               : BlockIo::kDiscard;
  io.len = r.size_bytes;
  if (__builtin_mul_overflow(r.key, offset_unit_bytes, &io.offset)) {
    throw std::invalid_argument(
        fmt::format("request {} ({} key {} size {}): offset key × {} overflows 64 bits", index,
                    op_name(r.op), r.key, r.size_bytes, offset_unit_bytes));
  }
  try {
    dev.check_extent(io.offset, io.len,
                     io.kind == BlockIo::kRead    ? "read"
                     : io.kind == BlockIo::kWrite ? "write"
                                                  : "trim");
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(fmt::format("request {} ({} key {} size {}): {}", index,
                                            op_name(r.op), r.key, r.size_bytes, e.what()));
  }
  return io;
}

void validate_requests(const BlockDevice& dev, std::span<const Request> requests,
                       uint64_t offset_unit_bytes) {
  for (size_t i = 0; i < requests.size(); ++i) {
    block_io_of(dev, requests[i], offset_unit_bytes, i);
  }
}

namespace detail {

void sleep_until_ns(uint64_t t_ns) {
  timespec ts;
  ts.tv_sec = static_cast<time_t>(t_ns / 1'000'000'000u);
  ts.tv_nsec = static_cast<long>(t_ns % 1'000'000'000u);
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
  }
}

}  // namespace detail

WallResult run_wall(BlockDevice& dev, const TimingConfig& timing, std::span<const Request> requests,
                    uint64_t warmup_requests, const WallOptions& options) {
  validate_requests(dev, requests, options.offset_unit_bytes);
  SpanSource source(requests);
  return run_wall(dev, timing, source, warmup_requests, options);
}

}  // namespace flashpq
