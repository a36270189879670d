#include "experiments/run/wall_runner.h"

#include <cerrno>

#include "fmt/format.h"

namespace flashpq {

void validate_requests(const BlockDevice& dev, std::span<const Request> requests,
                       uint64_t offset_unit_bytes) {
  for (size_t i = 0; i < requests.size(); ++i) {
    direct_io_of(dev, requests[i], offset_unit_bytes, i);
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
