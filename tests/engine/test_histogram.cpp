// Tests of engine/ripq/histogram.h, the dynamic histogram of RIPQ §4.3 that turns absolute
// priorities into approximate byte-weighted quantiles: splits and merges computed by hand, the
// bins' bytes conserved and ordered after every operation, and quantiles against a brute-force
// reference (the exact share of bytes below a value, from a sorted multiset).
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "engine/ripq/histogram.h"

namespace flashpq::test_histogram {
namespace {

struct BinView {
  double lo, hi;
  uint64_t bytes;
  bool operator==(const BinView&) const = default;
};
std::ostream& operator<<(std::ostream& os, const BinView& b) {
  return os << "[" << b.lo << ", " << b.hi << "] " << b.bytes;
}

std::vector<BinView> bins_of(const DynamicHistogram& h) {
  std::vector<BinView> v;
  for (size_t k = 0; k < h.bins(); ++k) v.push_back({h.bin_lo(k), h.bin_hi(k), h.bin_bytes(k)});
  return v;
}

// "" or what is wrong: the bins sum to total(), each range is ordered and ends at or before the
// next one begins.
std::string check(const DynamicHistogram& h) {
  uint64_t sum = 0;
  for (size_t k = 0; k < h.bins(); ++k) {
    sum += h.bin_bytes(k);
    if (h.bin_lo(k) > h.bin_hi(k)) return "bin " + std::to_string(k) + ": lo > hi";
    if (k + 1 < h.bins() && h.bin_hi(k) > h.bin_lo(k + 1)) {
      return "bin " + std::to_string(k) + " overlaps the next";
    }
  }
  if (sum != h.total()) return "bins sum to " + std::to_string(sum) + ", not the total";
  return "";
}

TEST_CASE("histogram: splits and merges by hand (κ = 4)", "[histogram]") {
  DynamicHistogram h(4);
  CHECK(h.quantile(1.0) == 1.0);  // empty
  h.add(0, 10);
  CHECK(bins_of(h) == std::vector<BinView>{{0, 0, 10}});
  // 20 of 20 bytes in one bin > 2/κ: split at the middle, half each.
  h.add(8, 10);
  CHECK(bins_of(h) == std::vector<BinView>{{0, 4, 10}, {4, 8, 10}});
  // [0, 4) holds 11 of 21 > 2/4: split at 2; 11 bytes are ⌊11/2⌋ = 5 below, 6 above.
  h.add(2, 1);
  CHECK(bins_of(h) == std::vector<BinView>{{0, 2, 5}, {2, 4, 6}, {4, 8, 10}});
  // Below 3: bin [0, 2) and half of [2, 4) (linear inside the bin).
  CHECK(h.quantile(3) == Approx((5.0 + 6.0 * (3 - 2) / (4 - 2)) / 21.0));
  CHECK(h.quantile(4) == Approx(11.0 / 21.0));
  CHECK(h.quantile(-1) == 0.0);
  CHECK(h.quantile(9) == 1.0);

  // Removing 8's 10 bytes empties [4, 8]; 6 + 0 bytes together are not below 11/4: no merge.
  h.remove(8, 10);
  CHECK(bins_of(h) == std::vector<BinView>{{0, 2, 5}, {2, 4, 6}, {4, 8, 0}});
  // 100 extends the last bin to [4, 100] with 40 of 51 bytes: split at 52.
  h.add(100, 40);
  CHECK(bins_of(h) == std::vector<BinView>{{0, 2, 5}, {2, 4, 6}, {4, 52, 20}, {52, 100, 20}});
  // Removing 0's 5 bytes: [0, 2) and [2, 4) hold 6 < 46/4 together: merged.
  h.remove(0, 5);
  CHECK(bins_of(h) == std::vector<BinView>{{0, 4, 6}, {4, 52, 20}, {52, 100, 20}});
  CHECK(h.quantile(2) == Approx(6.0 * 2 / 4 / 46.0));
  // 25 bytes at 100: its bin has 20, the nearest neighbour gives the other 5.
  h.remove(100, 25);
  CHECK(bins_of(h) == std::vector<BinView>{{0, 4, 6}, {4, 52, 15}, {52, 100, 0}});
  CHECK(h.total() == 21);
  CHECK(check(h) == "");
}

TEST_CASE("histogram: a point mass cannot split -- values outside stretch the end bins",
          "[histogram]") {
  DynamicHistogram h(4);
  for (int i = 0; i < 100; ++i) h.add(5, 3);
  CHECK(bins_of(h) == std::vector<BinView>{{5, 5, 300}});
  CHECK(h.quantile(5) == 1.0);  // the last bin is closed: [5, 5]
  CHECK(h.quantile(4.9) == 0.0);
  h.add(1, 100);  // below every bin: the first bin stretches down to 1, then splits at 3
  CHECK(bins_of(h) == std::vector<BinView>{{1, 3, 200}, {3, 5, 200}});
  CHECK(check(h) == "");
}

// Replays random adds and removes against a multiset of (value, bytes) and checks, every
// `every` operations, the bins and the quantile of `queries` live values against the exact
// share of bytes strictly below them. Between min_live and max_live objects, half the
// operations remove one (max_live = 0: adds only). Returns the largest quantile error seen.
template <class Draw>
double replay(uint32_t kappa, int ops, size_t min_live, size_t max_live, uint64_t seed, Draw draw,
              int every = 500, int queries = 40) {
  std::mt19937_64 rng(seed);
  DynamicHistogram h(kappa);
  std::multimap<double, uint64_t> exact;
  std::vector<std::pair<double, uint64_t>> live;
  double worst = 0;
  for (int op = 0; op < ops; ++op) {
    const bool remove =
        max_live > 0 && (live.size() > max_live || (live.size() > min_live && rng() % 2 == 0));
    if (remove) {
      const size_t k = rng() % live.size();
      const auto [v, bytes] = live[k];
      live[k] = live.back();
      live.pop_back();
      h.remove(v, bytes);
      auto it = exact.find(v);
      while (it->second != bytes) ++it;
      exact.erase(it);
    } else {
      const double v = draw(rng, op);
      const uint64_t bytes = 1 + rng() % 4096;
      h.add(v, bytes);
      exact.emplace(v, bytes);
      live.emplace_back(v, bytes);
    }
    REQUIRE(check(h) == "");
    if (op % every != every - 1 || live.size() < min_live) continue;
    uint64_t total = 0;
    for (const auto& [v, bytes] : exact) total += bytes;
    REQUIRE(h.total() == total);
    for (int q = 0; q < queries; ++q) {
      const double v = live[rng() % live.size()].first;
      uint64_t below = 0;
      for (auto it = exact.begin(); it != exact.end() && it->first < v; ++it) below += it->second;
      const double error =
          std::abs(h.quantile(v) - static_cast<double>(below) / static_cast<double>(total));
      worst = std::max(worst, error);
    }
  }
  return worst;
}

TEST_CASE("histogram: quantiles of continuous values within 2/κ of the exact ones", "[histogram]") {
  // Inserts only: a bin holds at most 2/κ of the bytes once split, so the linear guess inside
  // v's bin is off by at most that share (values uniform inside the bin).
  const auto uniform = [](std::mt19937_64& rng, int) {
    return std::uniform_real_distribution<double>(0, 1000)(rng);
  };
  CHECK(replay(100, 60'000, 0, 0, 1, uniform) <= 2.0 / 100);
  CHECK(replay(20, 20'000, 0, 0, 2, uniform) <= 2.0 / 20);
}

TEST_CASE("histogram: with removals the bins stay conserved and quantiles close (GDSF-like)",
          "[histogram]") {
  // Removals take bytes from v's bin, then its neighbours, where the uniform split may have
  // put them, so the bound is empirical: 3/κ with at least 5,000 objects live (measured: below
  // 2/κ on these seeds). Values drift upwards as GDSF's clock does, or repeat (point masses).
  const auto drifting = [](std::mt19937_64& rng, int op) {
    return std::uniform_real_distribution<double>(0, 1000)(rng) + 0.01 * op;
  };
  const auto repeating = [](std::mt19937_64& rng, int) {
    return std::floor(std::exp(std::uniform_real_distribution<double>(0, 10)(rng)));
  };
  CHECK(replay(100, 60'000, 5'000, 20'000, 3, drifting) <= 3.0 / 100);
  CHECK(replay(100, 60'000, 5'000, 20'000, 4, repeating) <= 3.0 / 100);
  // Small populations: no accuracy claim, but the bins stay conserved and ordered (replay
  // checks them after every operation).
  replay(8, 20'000, 0, 50, 5, drifting, 1'000, 0);
  replay(8, 20'000, 0, 50, 6, repeating, 1'000, 0);
}

}  // namespace
}  // namespace flashpq::test_histogram
