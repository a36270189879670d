#include "experiments/bench_device.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ostream>
#include <stdexcept>

#include "devices/block/block_device.h"
#include "experiments/run/wall_runner.h"
#include "fmt/format.h"
#include "sim/fio_json.h"
#include "sim/rng.h"

namespace flashpq {

namespace {

// Offsets in units of io_size: sequential (wrapping at the end, as fio's time_based loops) or
// uniform at random with replacement (fio --norandommap).
class PatternSource {
 public:
  PatternSource(bool write, bool random, uint64_t blocks, uint32_t io_size, uint64_t seed)
      : write_(write),
        random_(random),
        blocks_(blocks),
        io_size_(io_size),
        rng_(seed, RngStream::kBenchDeviceStream) {}
  bool next(Request& r) {
    r.key = random_ ? rng_.below(blocks_) : seq_;
    if (!random_ && ++seq_ == blocks_) seq_ = 0;
    r.size_bytes = io_size_;
    r.op = write_ ? Op::kSet : Op::kGet;
    return true;
  }

 private:
  bool write_, random_;
  uint64_t blocks_;
  uint32_t io_size_;
  uint64_t seq_ = 0;
  RngStream rng_;
};

std::string json_escape(const std::string& s) {
  std::string out;
  for (const char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) out += c;
  }
  return out;
}

}  // namespace

void BenchDeviceConfig::validate() const {
  block.validate();
  if (pattern != "seq_write" && pattern != "seq_read" && pattern != "rand_read" &&
      pattern != "rand_write") {
    throw std::invalid_argument(
        "--pattern: expected seq_write, seq_read, rand_read or "
        "rand_write, found '" +
        pattern + "'");
  }
  if (io_size == 0) throw std::invalid_argument("--io-size: expected at least 1 byte, found 0");
  if (!(seconds > 0 && seconds <= 86400)) {
    throw std::invalid_argument("--seconds: expected a number in (0, 86400], found " +
                                std::to_string(seconds));
  }
}

int run_bench_device(const BenchDeviceConfig& config, std::ostream& out) {
  config.validate();
  BlockConfig bc = config.block;
  while (bc.max_io_bytes < config.io_size && bc.max_io_bytes < (64u << 20)) bc.max_io_bytes <<= 1;
  BlockDevice dev(bc);
  const uint64_t blocks = dev.capacity_bytes() / config.io_size;
  if (blocks == 0) {
    throw std::invalid_argument(
        fmt::format("--io-size: {} bytes is larger than the device ({} bytes)", config.io_size,
                    dev.capacity_bytes()));
  }
  const bool write = config.pattern == "seq_write" || config.pattern == "rand_write";
  const bool random = config.pattern == "rand_read" || config.pattern == "rand_write";
  PatternSource source(write, random, blocks, config.io_size, config.seed);
  TimingConfig timing;
  timing.mode = TimingMode::kWall;
  timing.arrival = ArrivalProcess::kClosedLoop;
  timing.clients = bc.queue_depth;
  WallOptions options;
  options.offset_unit_bytes = config.io_size;
  options.max_seconds = config.seconds;
  const WallResult r = run_wall(dev, timing, source, 0, options);
  const TimingMetrics& m = r.timing;
  if (config.json) {
    out << fmt::format(
        "{{\"pattern\":\"{}\",\"bs\":{},\"iodepth\":{},\"ioengine\":\"{}\",\"direct\":{},"
        "\"runtime_s\":{},\"total_ios\":{},\"io_bytes\":{},\"iops\":{},\"bw_bytes\":{},"
        "\"clat_ns\":{},\"lat_ns\":{},\"notes\":\"{}\"}}\n",
        config.pattern, config.io_size, bc.queue_depth, io_engine_name(dev.engine()),
        dev.o_direct() ? 1 : 0, m.seconds(), m.requests, m.bytes, m.throughput_rps(),
        m.throughput_mib_s() * 1024 * 1024, fio_latency_json(r.clat), fio_latency_json(m.all),
        json_escape(dev.notes_text()));
  } else {
    out << fmt::format(
        "{} {} B qd {} {} {}: {:.0f} IOPS, {:.1f} MiB/s over {:.2f} s ({} I/Os); latency "
        "p50 {:.1f} us, p99 {:.1f} us, p99.9 {:.1f} us{}\n",
        config.pattern, config.io_size, bc.queue_depth, io_engine_name(dev.engine()),
        dev.o_direct() ? "O_DIRECT" : "buffered", m.throughput_rps(), m.throughput_mib_s(),
        m.seconds(), m.requests, m.all.percentile_ns(0.5) / 1e3, m.all.percentile_ns(0.99) / 1e3,
        m.all.percentile_ns(0.999) / 1e3, dev.notes().empty() ? "" : " [" + dev.notes_text() + "]");
  }
  return 0;
}

VerifyDeviceResult run_verify_device(const VerifyDeviceConfig& config, std::ostream& out) {
  BlockConfig bc = config.block;
  bc.verify = true;
  BlockDevice dev(bc);
  const uint64_t size = dev.capacity_bytes();
  const uint64_t lbs = dev.logical_block_bytes();
  const uint64_t chunk = std::max<uint64_t>(lbs, config.chunk_bytes / lbs * lbs);
  if (config.flip_at && *config.flip_at >= size) {
    throw std::invalid_argument(
        fmt::format("--flip-at: offset {} is past the region ({} bytes)", *config.flip_at, size));
  }
  using Clock = std::chrono::steady_clock;
  auto seconds = [](Clock::time_point a) {
    return std::chrono::duration<double>(Clock::now() - a).count();
  };
  VerifyDeviceResult r;
  auto t0 = Clock::now();
  for (uint64_t off = 0; off < size; off += chunk) {
    const uint64_t len = std::min(chunk, size - off);
    dev.write(off, len);
    r.bytes_written += len;
  }
  r.write_seconds = seconds(t0);
  if (config.flip_at) {
    // A second descriptor, buffered: what a stray write of another program would do.
    const int fd = ::open(bc.path.c_str(), O_RDWR | O_CLOEXEC);
    unsigned char byte = 0;
    const auto at = static_cast<off_t>(*config.flip_at);
    if (fd < 0 || ::pread(fd, &byte, 1, at) != 1) {
      throw std::runtime_error(bc.path + ": cannot read the byte to flip: " + std::strerror(errno));
    }
    byte ^= 0xff;
    if (::pwrite(fd, &byte, 1, at) != 1 || ::fsync(fd) != 0) {
      throw std::runtime_error(bc.path + ": cannot flip the byte: " + std::strerror(errno));
    }
    ::close(fd);
  }
  t0 = Clock::now();
  try {
    for (uint64_t off = 0; off < size; off += chunk) {
      const uint64_t len = std::min(chunk, size - off);
      dev.read(off, len);
      r.bytes_read += len;
    }
  } catch (const VerifyError& e) {
    r.corrupt_offset = e.offset();
    r.corruption = e.what();
  }
  r.read_seconds = seconds(t0);
  r.blocks_checked = dev.verify_counters().blocks_checked;
  const double gib = 1024.0 * 1024 * 1024;
  out << fmt::format(
      "verify {}: {} engine, O_DIRECT {}, queue depth {}, {} B pieces, logical block {} B\n"
      "write pass: {} bytes ({:.2f} GiB) in {:.2f} s ({:.0f} MiB/s)\n"
      "read pass:  {} bytes ({:.2f} GiB) in {:.2f} s ({:.0f} MiB/s), {} blocks checked\n",
      bc.path, io_engine_name(dev.engine()), dev.o_direct() ? "on" : "off", bc.queue_depth,
      bc.max_io_bytes, lbs, r.bytes_written, r.bytes_written / gib, r.write_seconds,
      r.bytes_written / (1024.0 * 1024) / std::max(r.write_seconds, 1e-9), r.bytes_read,
      r.bytes_read / gib, r.read_seconds,
      r.bytes_read / (1024.0 * 1024) / std::max(r.read_seconds, 1e-9), r.blocks_checked);
  if (r.corrupt_offset) {
    out << fmt::format("corruption at offset {}: {}\n", *r.corrupt_offset, r.corruption);
  } else {
    out << "0 corruptions\n";
  }
  return r;
}

}  // namespace flashpq
