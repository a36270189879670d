// Tests of engine/write_rate_admission.h: the base probability and each update against the
// formulas of navy's dynamic random admission worked by hand, the bounds, and the loop it
// closes: admitted bytes converge to the target rate.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "engine/write_rate_admission.h"
#include "sim/rng.h"

namespace flashpq::test_write_rate_admission {
namespace {

using Catch::Matchers::Contains;

constexpr double kMiB = 1024.0 * 1024.0;
constexpr uint64_t kSecond = 1'000'000'000;

WriteRateAdmissionConfig config(double target_mib_s) {
  WriteRateAdmissionConfig c;
  c.target_rate_bytes_s = target_mib_s * kMiB;
  c.update_interval_ns = kSecond;
  c.max_rate_bytes_s = 0;
  return c;
}

TEST_CASE("write-rate admission: the base probability penalises sizes above base_size",
          "[write_rate]") {
  const WriteRateAdmission w(config(1));
  // fls(4096) = 13: 4 KiB has base probability 1; 64 KiB (fls 17) (13/17)^0.3; 100 B (fls 7)
  // (13/7)^0.3 > 1, clamped to 1 in the probability.
  CHECK(w.base_probability(4096) == Approx(1.0));
  CHECK(w.base_probability(4097) == Approx(1.0));
  CHECK(w.base_probability(8192) == Approx(std::pow(13.0 / 14.0, 0.3)));
  CHECK(w.base_probability(65536) == Approx(std::pow(13.0 / 17.0, 0.3)));
  CHECK(w.base_probability(100) == Approx(std::pow(13.0 / 7.0, 0.3)));
  CHECK(w.probability(100) == 1.0);
  CHECK(w.probability(65536) == Approx(std::pow(13.0 / 17.0, 0.3)));
}

TEST_CASE("write-rate admission: updates, hand-computed", "[write_rate]") {
  WriteRateAdmission w(config(1));
  const double day = 86400;
  w.tick(0, 0);                   // starts the clock
  w.tick(kSecond / 2, 3 * kMiB);  // within the interval: nothing
  CHECK(w.updates() == 0);
  CHECK(w.factor() == 1.0);
  // 1 s: 4 MiB written. observed 4 MiB/s; target now (1 MiB × (1 + day) − 4 MiB) / day;
  // target / observed ≈ 0.25, clamped to 0.75.
  w.tick(kSecond, 4 * static_cast<uint64_t>(kMiB));
  CHECK(w.observed_rate_bytes_s() == Approx(4 * kMiB));
  CHECK(w.target_rate_now_bytes_s() == Approx(kMiB * (1 + day - 4) / day).epsilon(1e-12));
  CHECK(w.factor() == Approx(0.75));
  // 2 s: 0.5 MiB more: ratio ≈ 2, clamped to 1.25.
  w.tick(2 * kSecond, static_cast<uint64_t>(4.5 * kMiB));
  CHECK(w.observed_rate_bytes_s() == Approx(0.5 * kMiB));
  CHECK(w.factor() == Approx(0.9375));
  // 3.5 s: ~1.65 MiB more over 1.5 s ≈ 1.1 MiB/s, inside the window.
  const uint64_t before = static_cast<uint64_t>(4.5 * kMiB);
  const uint64_t written = static_cast<uint64_t>(6.15 * kMiB);
  w.tick(3 * kSecond + kSecond / 2, written);
  const double observed = static_cast<double>(written - before) / 1.5;
  const double target = (kMiB * (3.5 + day) - static_cast<double>(written)) / day;
  CHECK(w.observed_rate_bytes_s() == Approx(observed).epsilon(1e-12));
  CHECK(observed / kMiB == Approx(1.1).epsilon(1e-6));
  CHECK(w.factor() == Approx(0.9375 * target / observed).epsilon(1e-12));
  CHECK(w.updates() == 3);
  // Nothing written in an interval: the factor stays, no update counted.
  w.tick(5 * kSecond, written);
  CHECK(w.updates() == 3);
  CHECK(w.factor() == Approx(0.9375 * target / observed).epsilon(1e-12));
}

TEST_CASE("write-rate admission: the cap, and the factor's bounds", "[write_rate]") {
  WriteRateAdmissionConfig c = config(1);
  c.max_rate_bytes_s = 0.5 * kMiB;
  WriteRateAdmission capped(c);
  capped.tick(0, 0);
  capped.tick(kSecond, static_cast<uint64_t>(0.45 * kMiB));
  CHECK(capped.target_rate_now_bytes_s() == 0.5 * kMiB);
  CHECK(capped.factor() == Approx(0.5 / 0.45));
  // Far above the target at every update: the factor falls 25 % a time to 0.001 and stays.
  WriteRateAdmission low(config(1));
  uint64_t bytes = 0;
  low.tick(0, 0);
  for (uint64_t s = 1; s <= 40; ++s) low.tick(s * kSecond, bytes += 1000 * kMiB);
  CHECK(low.factor() == WriteRateAdmission::kFactorLowerBound);
  // Far below: up 25 % a time to 10.
  WriteRateAdmission high(config(1000));
  bytes = 0;
  high.tick(0, 0);
  for (uint64_t s = 1; s <= 20; ++s) high.tick(s * kSecond, bytes += 1);
  CHECK(high.factor() == WriteRateAdmission::kFactorUpperBound);
  CHECK(high.probability(1 << 30) == 1.0);
}

TEST_CASE("write-rate admission: admitted bytes converge to the target rate", "[write_rate]") {
  // 2,000 offers of 16 KiB per second (31.25 MiB/s) against a 5 MiB/s target.
  WriteRateAdmission w(config(5));
  RngStream rng(3, 0);
  uint64_t written = 0;
  uint64_t written_at_60_s = 0;
  for (uint64_t i = 0; i < 2000 * 180; ++i) {
    const uint64_t now = i * (kSecond / 2000);
    if (now == 60 * kSecond) written_at_60_s = written;
    w.tick(now, written);
    const double p = w.probability(16384);
    if (p >= 1 || rng.uniform() < p) written += 16384;
  }
  CHECK(static_cast<double>(written - written_at_60_s) / 120.0 == Approx(5 * kMiB).epsilon(0.02));
  // base(16 KiB) = (13/15)^0.3: factor × base ≈ 5 / 31.25.
  CHECK(w.factor() * w.base_probability(16384) == Approx(0.16).epsilon(0.1));
}

TEST_CASE("write-rate admission: validate() quotes the bad value", "[write_rate]") {
  WriteRateAdmissionConfig c = config(1);
  CHECK_NOTHROW(c.validate());
  c.change_window = 1.5;
  CHECK_THROWS_WITH(c.validate(), Contains("admission_change_window") && Contains("1.5"));
  c = config(1);
  c.size_decay = -0.5;
  CHECK_THROWS_WITH(c.validate(), Contains("admission_size_decay") && Contains("-0.5"));
  c = config(1);
  c.target_rate_bytes_s = 0;
  CHECK_THROWS_WITH(c.validate(), Contains("admission_write_rate_mib_s"));
}

}  // namespace
}  // namespace flashpq::test_write_rate_admission
