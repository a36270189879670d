// traces/device_io.cpp — the device_io generator (see device_io.h) as a TraceReader.
#include "traces/device_io.h"

#include "fmt/format.h"
#include "sim/rng.h"
#include "traces/generator.h"
#include "traces/trace_reader.h"

namespace flashpq {

const char* io_pattern_name(IoPattern pattern) {
  return pattern == IoPattern::kSequential ? "sequential" : "uniform_random";
}

const std::vector<std::string>& io_pattern_names() {
  static const std::vector<std::string> names = {io_pattern_name(IoPattern::kSequential),
                                                 io_pattern_name(IoPattern::kUniformRandom)};
  return names;
}

IoPattern parse_io_pattern(const std::string& name) {
  if (name == "sequential") return IoPattern::kSequential;
  if (name == "uniform_random") return IoPattern::kUniformRandom;
  throw_unknown_name("trace.pattern", name, io_pattern_names());
}

std::string DeviceIoConfig::identity() const {
  const std::string id =
      fmt::format("device_io|{}|{}|{}|{}|{}|{}|{}", io_pattern_name(pattern),
                  write ? "write" : "read", io_size_bytes, requests, fill, span_bytes, seed);
  // Random offsets name their stream, so the trace hash of a uniform_random workload tells it
  // from the one FlashPQ 0.2.0 drew with std::mt19937_64 (a sequential workload is the same).
  return pattern == IoPattern::kUniformRandom
             ? id + fmt::format("|rng stream {}", RngStream::kDeviceIoStream)
             : id;
}

void DeviceIoConfig::validate() const {
  if (io_size_bytes == 0 || io_size_bytes > UINT32_MAX) {
    throw std::invalid_argument("trace.io_size must be in [1 B, 4 GiB), got " +
                                std::to_string(io_size_bytes) + " bytes");
  }
  if (requests < 1 || requests > (uint64_t{1} << 50)) {
    throw std::invalid_argument("trace.requests must be in [1, 2^50], got " +
                                std::to_string(requests));
  }
  if (span_bytes == 0) {
    throw std::invalid_argument(
        "trace.generator device_io: the span is not resolved (the device has no capacity; use "
        "a device with one, such as simflash)");
  }
  if (span_bytes < io_size_bytes) {
    throw std::invalid_argument(
        fmt::format("trace.io_size {} bytes is larger than the device's exported space of {} bytes",
                    io_size_bytes, span_bytes));
  }
}

namespace {

KeySpec field(const std::string& name, ValueType type) {
  return key("trace." + name, type).strict_to_readers();
}

const KeySpec kPattern = field("pattern", ValueType::kEnum)
                             .def("uniform_random")
                             .choices(io_pattern_names())
                             .desc("offsets of the I/Os after the fill");
const KeySpec kOp = field("op", ValueType::kEnum)
                        .def("write")
                        .choices({"write", "read"})
                        .desc("the I/Os after the fill");
const KeySpec kIoSize = field("io_size", ValueType::kSize)
                            .def("4KiB")
                            .units("bytes")
                            .desc("bytes per I/O, and alignment");
const KeySpec& kRequests = generator_requests_key();
const KeySpec kFill =
    field("fill", ValueType::kBool)
        .def("true")
        .desc("write the whole exported space sequentially first (always warm-up)");

const ComponentSpec& device_io_spec() {
  static const ComponentSpec spec{
      "device_io",
      "block I/O for framework direct: a sequential fill, then sequential or uniform random "
      "reads or writes",
      {kPattern, kOp, kIoSize, kRequests, kFill},
      {Requirement{{},
                   "framework.name",
                   {"direct"},
                   "generator device_io yields block I/O: it needs framework direct"}},
      {},
      {}};
  return spec;
}

}  // namespace

DeviceIoConfig DeviceIoConfig::from(const TraceConfig& config) {
  const Params& p = config.params;
  DeviceIoConfig c;
  c.pattern = parse_io_pattern(p.get<std::string>(kPattern));
  c.write = p.get<std::string>(kOp) == "write";
  c.io_size_bytes = p.get<uint64_t>(kIoSize);
  c.requests = p.get<uint64_t>(kRequests);
  c.fill = p.get<bool>(kFill);
  c.span_bytes = config.device.capacity_bytes;
  c.seed = config.seed;
  return c;
}

namespace {

class DeviceIoReader final : public TraceReader {
 public:
  explicit DeviceIoReader(const DeviceIoConfig& c)
      : c_(c), slots_(c.slots()), name_(c.identity()), rng_(c.seed, RngStream::kDeviceIoStream) {}

  size_t read(std::span<Request> out) override {
    const uint64_t total = c_.total_requests();
    const uint64_t fill = c_.fill_requests();
    const auto size = static_cast<uint32_t>(c_.io_size_bytes);
    const Op op = c_.write ? Op::kSet : Op::kGet;
    size_t n = 0;
    for (; n < out.size() && next_ < total; ++n, ++next_) {
      uint64_t slot;
      if (next_ < fill) {
        out[n] = Request{0, next_ * c_.io_size_bytes, size, Op::kSet};
        continue;
      }
      if (c_.pattern == IoPattern::kSequential) {
        slot = seq_;
        if (++seq_ == slots_) seq_ = 0;
      } else {
        slot = rng_.below(slots_);
      }
      out[n] = Request{0, slot * c_.io_size_bytes, size, op};
    }
    return n;
  }

  const std::string& path() const override { return name_; }
  uint64_t preconditioning_requests() const override { return c_.fill_requests(); }

 private:
  DeviceIoConfig c_;
  uint64_t slots_;
  std::string name_;
  RngStream rng_;
  uint64_t next_ = 0;  // requests yielded so far
  uint64_t seq_ = 0;   // next slot of the sequential pattern
};

}  // namespace

extern const TraceGenerator kDeviceIoGenerator{
    &device_io_spec,
    [](const TraceConfig& config) -> std::unique_ptr<TraceReader> {
      const DeviceIoConfig c = DeviceIoConfig::from(config);
      c.validate();
      return std::make_unique<DeviceIoReader>(c);
    },
    [](const TraceConfig& config) { return DeviceIoConfig::from(config).identity(); },
    [](const TraceConfig& config) {
      const DeviceIoConfig c = DeviceIoConfig::from(config);
      c.validate();
      const uint32_t block = config.device.logical_block_bytes;
      if (c.io_size_bytes % block != 0) {
        throw std::invalid_argument(fmt::format(
            "key 'trace.io_size': expected a multiple of the device's logical block size {} B "
            "(misaligned I/O is refused, never read-modify-written), found '{}'",
            block, c.io_size_bytes));
      }
    }};

}  // namespace flashpq
