// tests/engine/test_fenwick.cpp — RIPQ's prefix sums (engine/ripq/fenwick.h) against a
// brute-force sum, through random adds and subtractions and rebuilds.
#include <catch2/catch.hpp>
#include <cstdint>
#include <numeric>
#include <vector>

#include "engine/ripq/fenwick.h"
#include "sim/rng.h"

namespace flashpq::test_fenwick {
namespace {

TEST_CASE("Fenwick tree: every prefix sum equals the brute-force sum", "[fenwick]") {
  RngStream rng(7, 0);
  for (const size_t n : {1u, 2u, 5u, 64u, 1000u}) {
    INFO("n = " << n);
    std::vector<uint64_t> values(n);
    for (uint64_t& v : values) v = rng.below(1 << 20);
    FenwickTree t;
    t.start(n);
    for (size_t i = 0; i < n; ++i) REQUIRE(t.push(values[i]) == i);
    t.build();
    auto check_all = [&] {
      uint64_t sum = 0;
      for (uint32_t pos = 0; pos <= n; ++pos) {
        REQUIRE(t.sum_below(pos) == sum);
        if (pos < n) sum += values[pos];
      }
    };
    check_all();
    for (int step = 0; step < 2000; ++step) {
      const auto pos = static_cast<uint32_t>(rng.below(n));
      const uint64_t delta = rng.below(1 << 16);
      if (rng.below(2) == 0 || values[pos] < delta) {
        values[pos] += delta;
        t.add(pos, delta);
      } else {
        values[pos] -= delta;
        t.subtract(pos, delta);
      }
      if (step % 97 == 0) check_all();
    }
    check_all();
    CHECK(t.memory_bytes() >= (n + 1) * sizeof(uint64_t));
  }
}

TEST_CASE("Fenwick tree: a subtraction below zero in between wraps and comes back", "[fenwick]") {
  FenwickTree t;
  t.start(3);
  t.push(5);
  t.push(0);
  t.push(7);
  t.build();
  t.subtract(1, 3);  // position 1 goes "negative" for a moment
  t.add(1, 10);
  CHECK(t.sum_below(1) == 5);
  CHECK(t.sum_below(2) == 12);
  CHECK(t.sum_below(3) == 19);
}

}  // namespace
}  // namespace flashpq::test_fenwick
