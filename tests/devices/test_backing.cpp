// Tests of devices/backing.h: the fixed_latency device's completion times, hand-computed, and
// the section's decoding.
#include <catch2/catch.hpp>

#include "devices/backing.h"

namespace flashpq::test_backing {
namespace {

TEST_CASE("backing: fixed_latency completion times by hand", "[backing]") {
  BackingConfig c;
  c.kind = BackingKind::kFixedLatency;
  c.read_latency_us = 100;
  c.write_latency_us = 20;
  c.read_bandwidth_mib_s = 1;   // 1 MiB/s: a 4 KiB read takes 4096 × 1e9 / 2^20 ns = 3,906,250 ns
  c.write_bandwidth_mib_s = 2;  // a 4 KiB write: 1,953,125 ns
  FixedLatencyServer s(c);
  // Nothing to do: completes at once, takes no time.
  CHECK(s.submit(5, 0, 0) == 5);
  // A read at 0: transfer 3,906,250, then 100 µs.
  CHECK(s.submit(0, 4096, 0) == 3'906'250 + 100'000);
  // A write at 1 ms queues behind the read's transfer (free at 3,906,250): + 1,953,125 + 20 µs.
  CHECK(s.submit(1'000'000, 0, 4096) == 3'906'250 + 1'953'125 + 20'000);
  // A read and a write at 10 s, the server idle: both transfers, then the larger latency.
  CHECK(s.submit(10'000'000'000, 4096, 4096) == 10'000'000'000 + 3'906'250 + 1'953'125 + 100'000);
  CHECK(s.busy_ns() == 2 * (3'906'250 + 1'953'125));
}

TEST_CASE("backing: the throughput of a saturated server is its bandwidth", "[backing]") {
  BackingConfig c;
  c.kind = BackingKind::kFixedLatency;
  c.read_bandwidth_mib_s = 40;
  FixedLatencyServer s(c);
  // 10,000 reads of 4 KiB all at time 0: the last completes after 10,000 × 4 KiB / 40 MiB/s
  // (each transfer rounded to the ns: 97,656.25 → 97,656).
  uint64_t last = 0;
  for (int i = 0; i < 10000; ++i) last = s.submit(0, 4096, 0);
  const double seconds = static_cast<double>(last - 100'000) * 1e-9;
  CHECK(10000 * 4096 / 1048576.0 / seconds == Approx(40).epsilon(1e-5));
}

TEST_CASE("backing: the section decodes counted and fixed_latency", "[backing]") {
  Params p;
  p.set(kBackingDeviceKey.name, "counted");
  CHECK_FALSE(BackingConfig::from(p).timed());
}

}  // namespace
}  // namespace flashpq::test_backing
