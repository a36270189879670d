#include "devices/block/block_config.h"

#include <stdexcept>

namespace flashpq {

const char* io_engine_name(IoEngineKind kind) {
  return kind == IoEngineKind::kIoUring ? "io_uring" : "psync";
}

IoEngineKind parse_io_engine(const std::string& name) {
  if (name == "io_uring") return IoEngineKind::kIoUring;
  if (name == "psync") return IoEngineKind::kPsync;
  throw std::invalid_argument("device.engine: expected one of io_uring, psync, found '" + name +
                              "'");
}

void BlockConfig::validate() const {
  if (path.empty()) {
    throw std::invalid_argument("device.path: expected a file or block device path, found ''");
  }
  if (queue_depth < 1 || queue_depth > 4096) {
    throw std::invalid_argument("device.queue_depth: expected an integer in [1, 4096], found " +
                                std::to_string(queue_depth));
  }
  if (max_io_bytes < 4096 || max_io_bytes > (64u << 20) ||
      (max_io_bytes & (max_io_bytes - 1)) != 0) {
    throw std::invalid_argument(
        "device.max_io_size: expected a power of two in [4096, 67108864] bytes, found " +
        std::to_string(max_io_bytes));
  }
  if (uint64_t{queue_depth} * max_io_bytes > (uint64_t{4} << 30)) {
    throw std::invalid_argument(
        "device.queue_depth × device.max_io_size: the I/O buffers would take " +
        std::to_string(uint64_t{queue_depth} * max_io_bytes) +
        " bytes of memory; expected at most 4 GiB");
  }
}

}  // namespace flashpq
