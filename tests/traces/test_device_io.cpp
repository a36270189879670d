// Tests of the device_io generator (traces/device_io.h): hand-computed sequences, alignment and
// bounds, seeded reproducibility, uniformity, and the config's errors.
#include <catch2/catch.hpp>
#include <map>
#include <vector>

#include "sim/rng.h"
#include "traces/device_io.h"
#include "traces/generator.h"
#include "traces/trace_reader.h"

namespace flashpq::test_device_io {
namespace {

using Catch::Matchers::Contains;

// The generator's trace config for these parameters: keys as the loader sets them, the span as
// the device's capacity and the seed as the cell's.
struct Io {
  std::string pattern = "uniform_random";
  std::string op = "write";
  uint64_t io_size_bytes = 4096;
  uint64_t span_bytes = 0;
  uint64_t requests = 1'000'000;
  bool fill = true;
  uint64_t seed = 1;

  TraceConfig config() const {
    TraceConfig t;
    t.format = "generator";
    t.params.set("trace.generator", "device_io");
    t.params.set("trace.pattern", pattern);
    t.params.set("trace.op", op);
    t.params.set("trace.io_size", io_size_bytes);
    t.params.set("trace.requests", requests);
    t.params.set("trace.fill", fill);
    t.device.capacity_bytes = span_bytes;
    t.seed = seed;
    return t;
  }
  DeviceIoConfig decoded() const { return DeviceIoConfig::from(config()); }
};

std::vector<Request> generate(const Io& io) {
  auto reader = open_trace(io.config());
  std::vector<Request> out;
  std::vector<Request> batch(1000);  // several batches, to cross batch boundaries
  for (size_t n; (n = reader->read(batch)) != 0;)
    out.insert(out.end(), batch.begin(), batch.begin() + n);
  return out;
}

Io small(const std::string& pattern, bool write, uint64_t requests) {
  Io io;
  io.pattern = pattern;
  io.op = write ? "write" : "read";
  io.io_size_bytes = 4096;
  io.span_bytes = 5 * 4096 + 100;  // 5 whole slots; the tail is never addressed
  io.requests = requests;
  io.seed = 42;
  return io;
}

TEST_CASE("device_io: fill then sequential wraps, hand-computed", "[device_io]") {
  const auto reqs = generate(small("sequential", true, 7));
  REQUIRE(reqs.size() == 5 + 7);
  const uint64_t expected_slots[] = {0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1};
  for (size_t i = 0; i < reqs.size(); ++i) {
    INFO(i);
    CHECK(reqs[i].key == expected_slots[i] * 4096);
    CHECK(reqs[i].size_bytes == 4096);
    CHECK(reqs[i].op == Op::kSet);
    CHECK(reqs[i].time_ns == 0);
  }
}

TEST_CASE("device_io: reads follow a write fill -- no fill means no fill", "[device_io]") {
  auto reqs = generate(small("sequential", false, 3));
  REQUIRE(reqs.size() == 8);
  for (size_t i = 0; i < 5; ++i) CHECK(reqs[i].op == Op::kSet);
  for (size_t i = 5; i < 8; ++i) CHECK(reqs[i].op == Op::kGet);
  auto io = small("sequential", false, 3);
  io.fill = false;
  reqs = generate(io);
  REQUIRE(reqs.size() == 3);
  CHECK(reqs[0].key == 0);
  CHECK(reqs[0].op == Op::kGet);
}

TEST_CASE("device_io: uniform_random is aligned, in bounds, seeded and uniform", "[device_io]") {
  Io io;
  io.io_size_bytes = 16384;
  io.span_bytes = 64 * 16384;
  io.requests = 64'000;
  io.fill = false;
  io.seed = 3;
  const auto a = generate(io);
  REQUIRE(a.size() == 64'000);
  std::map<uint64_t, int> count;
  for (const auto& r : a) {
    REQUIRE(r.key % 16384 == 0);
    REQUIRE(r.key + r.size_bytes <= io.span_bytes);
    count[r.key]++;
  }
  REQUIRE(count.size() == 64);
  // Pearson's chi-square with 63 degrees of freedom: the 0.9999 quantile is about 112.
  double chi2 = 0;
  for (const auto& [slot, n] : count) chi2 += (n - 1000.0) * (n - 1000.0) / 1000.0;
  CHECK(chi2 < 112.0);
  // The sequence is the documented one: the stream kDeviceIoStream of the seed, multiply-high
  // onto the slots (written out again here).
  RngStream rng(3, RngStream::kDeviceIoStream);
  for (size_t i = 0; i < 100; ++i) {
    const auto slot =
        static_cast<uint64_t>((static_cast<unsigned __int128>(rng.next()) * 64) >> 64);
    REQUIRE(a[i].key == slot * 16384);
  }
  CHECK(generate(io).size() == a.size());
  CHECK(generate(io)[999].key == a[999].key);
  io.seed = 4;
  const auto b = generate(io);
  size_t same = 0;
  for (size_t i = 0; i < a.size(); ++i) same += a[i].key == b[i].key;
  CHECK(same < a.size() / 32);  // about 1/64 agree by chance
}

TEST_CASE("device_io: bad configs are rejected with the value", "[device_io]") {
  Io io;
  io.span_bytes = 0;
  CHECK_THROWS_WITH(io.decoded().validate(), Contains("span is not resolved"));
  io.span_bytes = 4096;
  io.io_size_bytes = 8192;
  CHECK_THROWS_WITH(io.decoded().validate(), Contains("8192") && Contains("4096"));
  io.io_size_bytes = 0;
  CHECK_THROWS_WITH(io.decoded(), Contains("trace.io_size"));
  io.io_size_bytes = 4096;
  io.requests = 0;
  CHECK_THROWS_WITH(io.decoded(), Contains("trace.requests"));
  io.requests = 100;
  CHECK_THROWS_WITH(parse_io_pattern("zigzag"), Contains("zigzag"));
  // A device with a larger logical block than the I/O size: refused before anything runs.
  TraceConfig t = io.config();
  t.device.logical_block_bytes = 8192;
  CHECK_THROWS_WITH(trace_format("generator").check(t),
                    Contains("trace.io_size") && Contains("8192"));
  t.params.set("trace.generator", "fractal");
  CHECK_THROWS_WITH(trace_format("generator").check(t), Contains("fractal"));
  // The fill is the reader's preconditioning: always warm-up.
  io = small("sequential", true, 7);
  CHECK(open_trace(io.config())->preconditioning_requests() == 5);
  io.fill = false;
  CHECK(open_trace(io.config())->preconditioning_requests() == 0);
}

}  // namespace
}  // namespace flashpq::test_device_io
