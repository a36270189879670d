// tests/sim/test_des.cpp — the discrete-event kernel (sim/des.h), the open-loop arrival processes
// (sim/arrivals.h) and the timing columns (sim/timing.h): the event order against a stable sort,
// hand-computed arrival times, Poisson moments against their sampling distributions.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>
#include <vector>

#include "sim/arrivals.h"
#include "sim/des.h"
#include "sim/rng.h"
#include "sim/timing.h"

namespace flashpq::test_des {
namespace {

// ---------------------------------------------------------------------------------------------
// Event queue.

TEST_CASE("events pop in (time, scheduling order), ties by sequence", "[des]") {
  EventQueue q;
  q.schedule(30, EventKind::kDieDone, 1);
  q.schedule(10, EventKind::kChannelDone, 2);
  q.schedule(30, EventKind::kArrival, 3);
  q.schedule(10, EventKind::kClientReady, 4);
  q.schedule(20, EventKind::kDieDone, 5);
  const uint32_t expected[] = {2, 4, 5, 1, 3};  // 10 (2 before 4), 20, 30 (1 before 3)
  for (uint32_t id : expected) {
    REQUIRE_FALSE(q.empty());
    const Event e = q.pop();
    CHECK(e.id == id);
    CHECK(q.now() == e.time_ns);
  }
  CHECK(q.empty());
  CHECK(q.popped() == 5);
}

TEST_CASE("event order matches a stable sort by time, with interleaved scheduling", "[des]") {
  // Reference: every event tagged with its scheduling rank; the pop order must be the
  // scheduling order stably sorted by time. Times drawn from a small range so ties abound.
  RngStream rng(7, 0);
  EventQueue q;
  struct Ref {
    uint64_t time;
    uint32_t id;
  };
  std::vector<Ref> scheduled, popped;
  uint32_t next_id = 0;
  for (int round = 0; round < 2000; ++round) {
    const int adds = static_cast<int>(rng.below(8));
    for (int i = 0; i < adds; ++i) {
      const uint64_t t = q.now() + rng.below(16);
      q.schedule(t, EventKind::kDieDone, next_id);
      scheduled.push_back({t, next_id++});
    }
    const int pops = static_cast<int>(rng.below(6));
    for (int i = 0; i < pops && !q.empty(); ++i) {
      const Event e = q.pop();
      popped.push_back({e.time_ns, e.id});
    }
  }
  while (!q.empty()) {
    const Event e = q.pop();
    popped.push_back({e.time_ns, e.id});
  }
  REQUIRE(popped.size() == scheduled.size());
  // Times never decrease; among equal times, ids (= scheduling ranks) increase.
  for (size_t i = 1; i < popped.size(); ++i) {
    REQUIRE(popped[i - 1].time <= popped[i].time);
    if (popped[i - 1].time == popped[i].time) REQUIRE(popped[i - 1].id < popped[i].id);
  }
  // Each event pops at the time it was scheduled for.
  for (const Ref& p : popped) REQUIRE(scheduled[p.id].time == p.time);
}

TEST_CASE("an event in the past is rejected", "[des]") {
  EventQueue q;
  q.schedule(100, EventKind::kArrival, 0);
  q.pop();
  CHECK_THROWS_AS(q.schedule(99, EventKind::kArrival, 0), std::logic_error);
  CHECK_NOTHROW(q.schedule(100, EventKind::kArrival, 0));  // now itself is allowed
}

// ---------------------------------------------------------------------------------------------
// RNG streams.

TEST_CASE("RNG streams: reproducible per (seed, stream), distinct otherwise", "[des]") {
  RngStream a(42, 1), b(42, 1), c(42, 2), d(43, 1);
  std::vector<uint64_t> va, vb, vc, vd;
  for (int i = 0; i < 64; ++i) {
    va.push_back(a.next());
    vb.push_back(b.next());
    vc.push_back(c.next());
    vd.push_back(d.next());
  }
  CHECK(va == vb);
  CHECK(va != vc);
  CHECK(va != vd);
  CHECK(vc != vd);
}

TEST_CASE(
    "RNG uniform(): mean and variance of U(0, 1) on the half-open unit interval within 5 standard "
    "errors",
    "[des]") {
  RngStream r(1, 0);
  const int n = 200000;
  double sum = 0, sum2 = 0;
  for (int i = 0; i < n; ++i) {
    const double u = r.uniform();
    REQUIRE(u >= 0.0);
    REQUIRE(u < 1.0);
    sum += u;
    sum2 += u * u;
  }
  const double mean = sum / n;
  const double var = sum2 / n - mean * mean;
  // U[0,1): mean 1/2, variance 1/12; sd of the sample mean sqrt(1/12/n), of the sample variance
  // sqrt((μ4 − σ⁴)/n) with μ4 = 1/80.
  CHECK(std::abs(mean - 0.5) < 5 * std::sqrt(1.0 / 12 / n));
  CHECK(std::abs(var - 1.0 / 12) < 5 * std::sqrt((1.0 / 80 - 1.0 / 144) / n));
}

// ---------------------------------------------------------------------------------------------
// Arrival processes.

TimingConfig open_loop(ArrivalProcess process, double rate = 1000.0, double scale = 1.0) {
  TimingConfig t;
  t.mode = TimingMode::kSimulated;
  t.arrival = process;
  t.rate_rps = rate;
  t.time_scale = scale;
  return t;
}

TEST_CASE("constant arrivals are exactly i / rate", "[des][arrivals]") {
  OpenLoopArrivals a(open_loop(ArrivalProcess::kConstant, 1000.0), 1);
  for (uint64_t i = 0; i < 1000; ++i) REQUIRE(a.next(12345) == i * 1000000);
  // 3 per second: 1e9/3 ns rounded to the nearest, from the exact product (no drift).
  OpenLoopArrivals b(open_loop(ArrivalProcess::kConstant, 3.0), 1);
  const uint64_t expected[] = {0,          333333333,  666666667, 1000000000,
                               1333333333, 1666666667, 2000000000};
  for (uint64_t e : expected) CHECK(b.next(0) == e);
  CHECK(b.count() == 7);
}

TEST_CASE("token-bucket arrivals: a burst at time 0, then one per token", "[des][arrivals]") {
  TimingConfig t = open_loop(ArrivalProcess::kTokenBucket, 1000.0);
  t.burst = 3;
  OpenLoopArrivals a(t, 1);
  // Three tokens at 0; tokens 4, 5, 6 … arrive 1, 2, 3 … ms in.
  const uint64_t expected[] = {0, 0, 0, 1000000, 2000000, 3000000, 4000000};
  for (uint64_t e : expected) CHECK(a.next(777) == e);
  // burst 1 is the constant process, at 3 per second too (no drift).
  t.burst = 1;
  t.rate_rps = 3.0;
  OpenLoopArrivals b(t, 1);
  OpenLoopArrivals c(open_loop(ArrivalProcess::kConstant, 3.0), 1);
  for (int i = 0; i < 1000; ++i) REQUIRE(b.next(0) == c.next(0));
  t.burst = 0;
  CHECK_THROWS_WITH(OpenLoopArrivals(t, 1),
                    Catch::Contains("timing.burst") && Catch::Contains("got 0"));
}

TEST_CASE("trace arrivals: timestamps relative to the first, times time_scale", "[des][arrivals]") {
  const uint64_t ts[] = {5000, 5000, 6000, 10000, 9000, 12001};
  SECTION("scale 0.5") {
    OpenLoopArrivals a(open_loop(ArrivalProcess::kTrace, 1.0, 0.5), 1);
    // (t − 5000) × 0.5; 9000 is earlier than its predecessor, so it arrives with it (2500);
    // 7001 × 0.5 = 3500.5 rounds to 3501 (to nearest, ties away from zero).
    const uint64_t expected[] = {0, 0, 500, 2500, 2500, 3501};
    for (size_t i = 0; i < std::size(ts); ++i) CHECK(a.next(ts[i]) == expected[i]);
  }
  SECTION("scale 3") {
    OpenLoopArrivals a(open_loop(ArrivalProcess::kTrace, 1.0, 3.0), 1);
    const uint64_t expected[] = {0, 0, 3000, 15000, 15000, 21003};
    for (size_t i = 0; i < std::size(ts); ++i) CHECK(a.next(ts[i]) == expected[i]);
  }
  SECTION("a first timestamp above later ones clamps them to 0") {
    OpenLoopArrivals a(open_loop(ArrivalProcess::kTrace), 1);
    CHECK(a.next(1000) == 0);
    CHECK(a.next(10) == 0);
    CHECK(a.next(1500) == 500);
  }
}

TEST_CASE("poisson arrivals: exponential gaps of mean 1/rate, seeded", "[des][arrivals]") {
  const double rate = 2.5e5;  // mean gap 4000 ns
  const double mean_ns = 1e9 / rate;
  const int n = 200000;
  OpenLoopArrivals a(open_loop(ArrivalProcess::kPoisson, rate), 99);
  REQUIRE(a.next(0) == 0);
  uint64_t prev = 0;
  double sum = 0, sum2 = 0, sum3 = 0;
  int below_mean = 0;
  for (int i = 0; i < n; ++i) {
    const uint64_t t = a.next(0);
    REQUIRE(t >= prev);
    const double g = static_cast<double>(t - prev);
    prev = t;
    sum += g;
    sum2 += g * g;
    sum3 += g * g * g;
    below_mean += g < mean_ns;
  }
  const double mean = sum / n;
  const double var = sum2 / n - mean * mean;
  // Exponential(mean m): variance m², fourth central moment 9 m⁴, so the sample mean has sd
  // m/√n and the sample variance sd √(8/n)·m². Integer rounding of the times adds a variance of
  // 1/6 ns² per gap (difference of two independent roundings), negligible here.
  CHECK(std::abs(mean - mean_ns) < 5 * mean_ns / std::sqrt(n));
  CHECK(std::abs(var - mean_ns * mean_ns) < 5 * std::sqrt(8.0 / n) * mean_ns * mean_ns);
  // Third moment 6 m³ (a normal or uniform gap would give far less): within 10 %.
  CHECK(std::abs(sum3 / n / (6 * mean_ns * mean_ns * mean_ns) - 1.0) < 0.1);
  // P(gap < mean) = 1 − 1/e; binomial sd √(p(1 − p)/n).
  const double p = 1.0 - std::exp(-1.0);
  CHECK(std::abs(static_cast<double>(below_mean) / n - p) < 5 * std::sqrt(p * (1 - p) / n));

  // The same seed gives the same times; another seed others.
  OpenLoopArrivals b(open_loop(ArrivalProcess::kPoisson, rate), 99);
  OpenLoopArrivals c(open_loop(ArrivalProcess::kPoisson, rate), 100);
  std::vector<uint64_t> tb, tc;
  OpenLoopArrivals a2(open_loop(ArrivalProcess::kPoisson, rate), 99);
  std::vector<uint64_t> ta;
  for (int i = 0; i < 100; ++i) {
    ta.push_back(a2.next(0));
    tb.push_back(b.next(0));
    tc.push_back(c.next(0));
  }
  CHECK(ta == tb);
  CHECK(ta != tc);
}

TEST_CASE("open-loop arrivals reject closed_loop and invalid configs", "[des][arrivals]") {
  CHECK_THROWS_AS(OpenLoopArrivals(open_loop(ArrivalProcess::kClosedLoop), 1),
                  std::invalid_argument);
  CHECK_THROWS_WITH(OpenLoopArrivals(open_loop(ArrivalProcess::kConstant, 0.0), 1),
                    Catch::Contains("timing.rate") && Catch::Contains("0.0"));
  CHECK_THROWS_WITH(OpenLoopArrivals(open_loop(ArrivalProcess::kTrace, 1.0, -2.0), 1),
                    Catch::Contains("timing.time_scale") && Catch::Contains("-2"));
}

// ---------------------------------------------------------------------------------------------
// Timing columns.

TEST_CASE("timing columns: names, order, values in µs and NaN for no value", "[des][timing]") {
  const std::vector<std::string>& names = timing_column_names();
  std::vector<std::string> expected_names;
  for (const char* h : {"latency", "read_latency", "write_latency", "delete_latency"}) {
    for (const char* q : {"_p50_us", "_p90_us", "_p95_us", "_p99_us", "_p999_us", "_p9999_us",
                          "_mean_us", "_max_us"}) {
      expected_names.push_back(std::string(h) + q);
    }
  }
  for (const char* n : {"throughput_rps", "throughput_mib_s", "sim_seconds"}) {
    expected_names.push_back(n);
  }
  CHECK(names == expected_names);

  SECTION("nothing measured: every column is NaN") {
    const TimingMetrics m;
    const auto cols = timing_columns(m);
    REQUIRE(cols.size() == names.size());
    for (size_t i = 0; i < cols.size(); ++i) {
      CHECK(cols[i].first == names[i]);
      CHECK(std::isnan(cols[i].second));
    }
  }
  SECTION("hand-computed values") {
    // Writes of 1..100 µs (exact below 128 ns is irrelevant here: the values are ≥ 1000 ns, so
    // the percentiles are bucket midpoints, within 1/128 of the exact nearest-rank value).
    TimingMetrics m;
    for (uint64_t i = 1; i <= 100; ++i) m.record(OpClass::kWrite, i * 1000, 4096);
    REQUIRE(m.requests == 100);
    REQUIRE(m.bytes == 100 * 4096);
    REQUIRE(m.write.count() == 100);
    REQUIRE(m.read.count() == 0);
    m.interval_ns = 2'000'000'000;  // 2 s
    const auto cols = timing_columns(m);
    auto col = [&](const std::string& name) {
      for (const auto& [n, v] : cols)
        if (n == name) return v;
      FAIL("no column " << name);
      return 0.0;
    };
    CHECK(col("latency_p50_us") == Approx(50.0).epsilon(1.0 / 128));
    CHECK(col("latency_p90_us") == Approx(90.0).epsilon(1.0 / 128));
    CHECK(col("latency_p95_us") == Approx(95.0).epsilon(1.0 / 128));
    CHECK(col("latency_p99_us") == Approx(99.0).epsilon(1.0 / 128));
    CHECK(col("latency_p999_us") == 100.0);  // rank ceil(99.9) = 100: the exact maximum
    CHECK(col("latency_p9999_us") == 100.0);
    CHECK(col("latency_mean_us") == Approx(50.5));
    CHECK(col("latency_max_us") == 100.0);
    CHECK(col("write_latency_p99_us") == col("latency_p99_us"));
    CHECK(std::isnan(col("read_latency_p50_us")));
    CHECK(std::isnan(col("read_latency_mean_us")));
    CHECK(std::isnan(col("delete_latency_p95_us")));
    CHECK(col("throughput_rps") == Approx(50.0));
    CHECK(col("throughput_mib_s") == Approx(100.0 * 4096 / 1048576 / 2));
    CHECK(col("sim_seconds") == Approx(2.0));
  }
  SECTION("deletes and gets: their own columns") {
    TimingMetrics m;
    for (uint64_t i = 1; i <= 20; ++i) m.record(OpClass::kOther, i * 1000, 0);
    m.record(OpClass::kRead, 500000, 4096);
    m.interval_ns = 1'000'000'000;
    std::map<std::string, double> col;
    for (const auto& [n, v] : timing_columns(m)) col[n] = v;
    // Nearest rank: p95 of 1..20 µs is rank 19; p50 rank 10.
    CHECK(col["delete_latency_p95_us"] == Approx(19.0).epsilon(1.0 / 128));
    CHECK(col["delete_latency_p50_us"] == Approx(10.0).epsilon(1.0 / 128));
    CHECK(col["delete_latency_max_us"] == 20.0);
    CHECK(col["read_latency_max_us"] == 500.0);
    CHECK(col["latency_max_us"] == 500.0);
    CHECK(std::isnan(col["write_latency_p50_us"]));
    CHECK(col["throughput_rps"] == Approx(21.0));
  }
}

TEST_CASE("timing metrics: a request counts in all and in its class's histogram", "[des][timing]") {
  TimingMetrics m;
  m.record(OpClass::kOther, 5, 10);
  m.record(OpClass::kRead, 7, 20);
  CHECK(m.all.count() == 2);
  CHECK(m.read.count() == 1);
  CHECK(m.read.min_ns() == 7);
  CHECK(m.write.count() == 0);
  CHECK(m.requests == 2);
  CHECK(m.bytes == 30);
}

TEST_CASE("latency_histogram text: non-empty buckets as value_ns:count, ascending",
          "[des][timing]") {
  LatencyHistogram h;
  CHECK(latency_histogram_text(h).empty());
  // 100 ns is exact (below 128); 5000 and 5001 share the bucket [4992, 5055] (width 2^12/64
  // = 64) whose midpoint 5023 is clamped to the exact maximum 5001; in
  // [256, 512) in buckets of 4: 300 in [300, 303], midpoint 300 + 3/2 → 301 (integer).
  for (uint64_t v : {5000u, 100u, 5001u, 300u, 100u}) h.record(v);
  CHECK(latency_histogram_text(h) == "100:2 301:1 5001:2");
  // One bucket whose midpoint lies below the minimum: clamped up to it.
  LatencyHistogram one;
  one.record(5050);
  CHECK(latency_histogram_text(one) == "5050:1");
}

}  // namespace
}  // namespace flashpq::test_des
