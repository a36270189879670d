#include "devices/block/block_config.h"

#include <stdexcept>

namespace flashpq {

const char* io_engine_name(IoEngineKind kind) {
  return kind == IoEngineKind::kIoUring ? "io_uring" : "psync";
}

const std::vector<std::string>& io_engine_names() {
  static const std::vector<std::string> names = {io_engine_name(IoEngineKind::kIoUring),
                                                 io_engine_name(IoEngineKind::kPsync)};
  return names;
}

IoEngineKind parse_io_engine(const std::string& name) {
  if (name == "io_uring") return IoEngineKind::kIoUring;
  if (name == "psync") return IoEngineKind::kPsync;
  throw_unknown_name("device.engine", name, io_engine_names());
}

namespace {

// The keys of the block device: unset keys take BlockConfig's defaults, shown resolved in the
// results row.
KeySpec field(const std::string& name, ValueType type) {
  return key("device." + name, type).strict_to_readers();
}

const KeySpec kPath =
    field("path", ValueType::kPath)
        .units("path")
        .desc("file or block device (a missing file is created with device.capacity)");
const KeySpec kEngine =
    field("engine", ValueType::kEnum).def("io_uring").choices(io_engine_names()).desc("I/O engine");
const KeySpec kQueueDepth =
    field("queue_depth", ValueType::kInt).def("32").range(1, 4096).desc("I/Os in flight at most");
const KeySpec kMaxIoSize =
    field("max_io_size", ValueType::kSize)
        .def("1MiB")
        .units("bytes")
        .desc("largest single I/O, longer requests go as pieces (power of two)");
const KeySpec kODirect = field("o_direct", ValueType::kBool)
                             .def("true")
                             .desc(
                                 "O_DIRECT (buffered if the filesystem refuses, said in "
                                 "block_notes)");
const KeySpec kRegisteredBuffers = field("registered_buffers", ValueType::kBool)
                                       .def("true")
                                       .desc("io_uring registered buffers and file");
const KeySpec kVerify =
    field("verify", ValueType::kBool)
        .def("false")
        .desc("headers with CRC32C on every written block, checked on every read");
const KeySpec kDiscardBeforeRun = field("discard_before_run", ValueType::kBool)
                                      .def("false")
                                      .desc("discard the whole capacity before the run");
const KeySpec kNvmeCounters = field("nvme_counters", ValueType::kBool)
                                  .def("true")
                                  .desc("read the NVMe drive's write counters for wa_device");

}  // namespace

const ComponentSpec& block_spec() {
  static const ComponentSpec spec{
      "block",
      "a real file or block device: O_DIRECT, io_uring or psync, behind a safety gate",
      {kPath, device_capacity_key(), kEngine, kQueueDepth, kMaxIoSize, kODirect, kRegisteredBuffers,
       kVerify, kDiscardBeforeRun, kNvmeCounters, device_endurance_dwpd_key(),
       device_warranty_years_key()},
      {},
      {},
      {}};
  return spec;
}

BlockConfig block_config_of(const DeviceConfig& config) {
  const Params& p = config.params;
  BlockConfig b;
  b.path = p.get<std::string>(kPath);
  if (p.has(device_capacity_key().name)) b.capacity_bytes = p.get<uint64_t>(device_capacity_key());
  b.engine = parse_io_engine(p.get<std::string>(kEngine));
  b.queue_depth = p.get<uint32_t>(kQueueDepth);
  const uint64_t m = p.get<uint64_t>(kMaxIoSize);
  b.max_io_bytes = m > UINT32_MAX ? 0 : static_cast<uint32_t>(m);  // 0 fails validate()
  b.o_direct = p.get<bool>(kODirect);
  b.registered_buffers = p.get<bool>(kRegisteredBuffers);
  b.verify = p.get<bool>(kVerify);
  b.discard_before_run = p.get<bool>(kDiscardBeforeRun);
  b.nvme_counters = p.get<bool>(kNvmeCounters);
  b.pattern_seed = config.seed;
  b.force_destroy = config.force_destroy;
  b.validate();
  return b;
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
