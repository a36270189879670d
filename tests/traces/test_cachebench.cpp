// tests/traces/test_cachebench.cpp — the cachebench generator (traces/cachebench.cpp) with the
// keys of CacheBench's test_configs/simple_test.json. Against CacheBench's own definitions: a
// sampler written here from CacheLib's cachebench/workload/ (WorkloadDistribution.h,
// FastDiscrete.h's NormalDistribution, WorkloadGenerator.cpp) on the C++ library distributions
// CacheBench calls (std::mt19937_64, std::normal_distribution, std::piecewise_constant_
// distribution, std::discrete_distribution), compared with FlashPQ's stream by two-sample tests
// at significance 1e-4 (Kolmogorov-Smirnov for the popularity and the sizes, chi-square for the
// operations and discrete sizes; the seeds are fixed, so the outcome is too): the normal
// popularity over the key indexes, piecewise-uniform key and value sizes, discrete value sizes
// and the op mix. Then each key and value size interval's share within 1 %, FlashPQ's uniform
// and zipf popularity, one size per key, seeds bit for bit, bad lists refused.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <numeric>
#include <random>
#include <unordered_map>
#include <vector>

#include "sim/rng.h"
#include "traces/generator.h"

namespace flashpq::test_cachebench {
namespace {

TraceConfig simple_test(uint64_t requests, uint64_t seed = 1) {
  TraceConfig c;
  c.format = "generator";
  c.params.set("trace.generator", "cachebench");
  c.params.set("trace.num_keys", 100'000);
  c.params.set("trace.key_size_range", "1,8,64");
  c.params.set("trace.key_size_range_probability", "0.3,0.7");
  c.params.set("trace.val_size_range", "1,32,10240,409200");
  c.params.set("trace.val_size_range_probability", "0.1,0.2,0.7");
  c.params.set("trace.get_ratio", 0.15);
  c.params.set("trace.set_ratio", 0.8);
  c.params.set("trace.del_ratio", 0.05);
  c.params.set("trace.requests", requests);
  c.seed = seed;
  return c;
}

std::vector<Request> read_all(const TraceConfig& c) {
  auto reader = open_trace(c);
  std::vector<Request> out, batch(4096);
  for (size_t n; (n = reader->read(batch)) != 0;)
    out.insert(out.end(), batch.begin(), batch.begin() + n);
  return out;
}

// ---- CacheBench's samplers, from CacheLib's cachebench/workload/ on the library distributions
// it uses (their outputs are the library's: libstdc++ here).
struct CacheBenchReference {
  std::mt19937_64 gen{12345};

  // WorkloadDistribution::getPopDist without popularity buckets: NormalDistribution(mu, sigma,
  // left, right), mu = (left + right) * 0.5, sigma = (right - left) * .5 / 2; its operator():
  // std::round of the normal until within [left, right].
  std::vector<size_t> popularity(size_t left, size_t right, size_t n) {
    std::normal_distribution<double> dist((left + right) * 0.5, (right - left) * .5 / 2);
    std::vector<size_t> out;
    for (size_t i = 0; i < n; ++i) {
      double v;
      do {
        v = std::round(dist(gen));
      } while (v < left || v > right);
      out.push_back(static_cast<size_t>(v));
    }
    return out;
  }
  // keySizeDist_, valSizePiecewiseDist_: std::piecewise_constant_distribution<double>, the
  // sample narrow_cast to size_t.
  std::vector<size_t> piecewise(const std::vector<double>& range, const std::vector<double>& p,
                                size_t n) {
    std::piecewise_constant_distribution<double> dist(range.begin(), range.end(), p.begin());
    std::vector<size_t> out;
    for (size_t i = 0; i < n; ++i) out.push_back(static_cast<size_t>(dist(gen)));
    return out;
  }
  // valSizeDiscreteDist_ (the value config_.valSizeRange[idx]) and opDist_:
  // std::discrete_distribution over the weights.
  std::vector<size_t> discrete(const std::vector<double>& p, size_t n) {
    std::discrete_distribution<size_t> dist(p.begin(), p.end());
    std::vector<size_t> out;
    for (size_t i = 0; i < n; ++i) out.push_back(dist(gen));
    return out;
  }
};

using Counts = std::map<uint64_t, double>;

template <typename Values>
Counts count(const Values& values) {
  Counts c;
  for (const auto v : values) c[static_cast<uint64_t>(v)] += 1;
  return c;
}

double total(const Counts& c) {
  double n = 0;
  for (const auto& [v, k] : c) n += k;
  return n;
}

// Two-sample Kolmogorov-Smirnov distance, and the distance it rejects at significance 1e-4
// (c(α) √((n + m)/(nm)), c(α) = √(−ln(α/2)/2); conservative for discrete values).
double ks_distance(const Counts& a, const Counts& b) {
  const double na = total(a), nb = total(b);
  Counts both = a;
  for (const auto& [v, k] : b) both[v] += 0;
  double fa = 0, fb = 0, d = 0;
  for (const auto& [v, unused] : both) {
    if (auto it = a.find(v); it != a.end()) fa += it->second / na;
    if (auto it = b.find(v); it != b.end()) fb += it->second / nb;
    d = std::max(d, std::abs(fa - fb));
  }
  return d;
}
double ks_critical(const Counts& a, const Counts& b) {
  const double n = total(a), m = total(b);
  return std::sqrt(-std::log(1e-4 / 2) / 2) * std::sqrt((n + m) / (n * m));
}

// Chi-square of two samples' category counts (homogeneity, 2 × k), against its 1 − 1e-4
// quantile (Wilson–Hilferty, z = 3.7190) on k − 1 degrees of freedom.
bool same_categories(const Counts& a, const Counts& b, double* chi_out = nullptr) {
  const double na = total(a), nb = total(b);
  Counts both = a;
  for (const auto& [v, k] : b) both[v] += 0;
  double chi = 0;
  for (const auto& [v, unused] : both) {
    const double x = a.count(v) ? a.at(v) : 0, y = b.count(v) ? b.at(v) : 0;
    const double ex = (x + y) * na / (na + nb), ey = (x + y) * nb / (na + nb);
    chi += (x - ex) * (x - ex) / ex + (y - ey) * (y - ey) / ey;
  }
  const double k = static_cast<double>(both.size()) - 1;
  const double a2 = 2.0 / (9.0 * k);
  if (chi_out) *chi_out = chi;
  return chi < k * std::pow(1 - a2 + 3.7190 * std::sqrt(a2), 3);
}

// Key index of each request (the generator's key is splitmix64_mix of the index).
std::vector<uint64_t> key_indexes(const std::vector<Request>& reqs, uint64_t keys) {
  std::unordered_map<uint64_t, uint64_t> index;  // looked up only
  for (uint64_t i = 0; i < keys; ++i) index.emplace(splitmix64_mix(i), i);
  std::vector<uint64_t> out;
  size_t unknown = 0;
  for (const Request& r : reqs) {
    const auto it = index.find(r.key);
    if (it == index.end()) {
      ++unknown;
    } else {
      out.push_back(it->second);
    }
  }
  REQUIRE(unknown == 0);
  return out;
}

TEST_CASE("cachebench vs CacheBench: the normal popularity over the key indexes (KS, 1e-4)",
          "[cachebench]") {
  CacheBenchReference cb;
  for (const uint64_t keys : {100'000ull, 1000ull, 2ull}) {
    INFO(keys << " keys");
    TraceConfig c = simple_test(400'000);
    c.params.set("trace.num_keys", keys);
    const Counts ours = count(key_indexes(read_all(c), keys));
    const Counts ref = count(cb.popularity(0, keys - 1, 400'000));
    INFO("KS " << ks_distance(ours, ref) << ", critical " << ks_critical(ours, ref));
    CHECK(ks_distance(ours, ref) < ks_critical(ours, ref));
    if (keys > 2) {
      // The test can fail: FlashPQ's uniform popularity (its default before) is not it.
      c.params.set("trace.popularity", "uniform");
      const Counts uniform = count(key_indexes(read_all(c), keys));
      CHECK(ks_distance(uniform, ref) > 10 * ks_critical(uniform, ref));
    }
  }
}

TEST_CASE("cachebench vs CacheBench: key and value sizes, the op mix (KS, chi-square, 1e-4)",
          "[cachebench]") {
  CacheBenchReference cb;
  // Key sizes: simple_test.json's [1, 8, 64] with 0.3, 0.7; every value 1 byte, so a request's
  // size is its key's plus 1. One sample per key (uniform keys, so nearly all are seen).
  TraceConfig k = simple_test(1'000'000);
  k.params.set("trace.popularity", "uniform");
  k.params.set("trace.val_size_range", "1,2");
  k.params.set("trace.val_size_range_probability", "1");
  std::map<uint64_t, uint64_t> key_size;
  for (const Request& r : read_all(k)) key_size.emplace(r.key, r.size_bytes - 1);
  Counts ours;
  for (const auto& [key, s] : key_size) ours[s] += 1;
  Counts ref = count(cb.piecewise({1, 8, 64}, {0.3, 0.7}, 100'000));
  INFO("key sizes: KS " << ks_distance(ours, ref) << ", critical " << ks_critical(ours, ref));
  CHECK(ks_distance(ours, ref) < ks_critical(ours, ref));
  // Value sizes: simple_test.json's [1, 32, 10240, 409200] with 0.1, 0.2, 0.7; 10-byte keys.
  TraceConfig v = simple_test(1'000'000);
  v.params.set("trace.popularity", "uniform");
  v.params.set("trace.key_size_range", "10,11");
  v.params.set("trace.key_size_range_probability", "1");
  std::map<uint64_t, uint64_t> value_size;
  for (const Request& r : read_all(v)) value_size.emplace(r.key, r.size_bytes - 10);
  ours.clear();
  for (const auto& [key, s] : value_size) ours[s] += 1;
  ref = count(cb.piecewise({1, 32, 10240, 409200}, {0.1, 0.2, 0.7}, 100'000));
  INFO("value sizes: KS " << ks_distance(ours, ref) << ", critical " << ks_critical(ours, ref));
  CHECK(ks_distance(ours, ref) < ks_critical(ours, ref));
  // Discrete value sizes: as many probabilities as sizes (usesDiscreteValueSizes).
  v.params.set("trace.val_size_range", "100,1000,64000");
  v.params.set("trace.val_size_range_probability", "0.5,0.3,0.2");
  value_size.clear();
  for (const Request& r : read_all(v)) value_size.emplace(r.key, r.size_bytes - 10);
  ours.clear();
  for (const auto& [key, s] : value_size) ours[s] += 1;
  ref.clear();
  const double sizes[] = {100, 1000, 64000};
  for (const size_t i : cb.discrete({0.5, 0.3, 0.2}, 100'000)) ref[sizes[i]] += 1;
  double chi = 0;
  CHECK(ours.size() == 3);
  const bool discrete_same = same_categories(ours, ref, &chi);
  INFO("discrete value sizes: chi-square " << chi);
  CHECK(discrete_same);
  // The op mix: simple_test.json's weights in opDist_'s order (set, get, del).
  ours.clear();
  for (const Request& r : read_all(simple_test(200'000))) {
    ours[r.op == Op::kSet ? 0 : r.op == Op::kGet ? 1 : 2] += 1;
  }
  ref = count(cb.discrete({0.8, 0.15, 0.05}, 200'000));
  const bool ops_same = same_categories(ours, ref, &chi);
  INFO("ops: chi-square " << chi);
  CHECK(ops_same);
}

TEST_CASE("cachebench: simple_test.json's op mix, sizes and uniform keys", "[cachebench]") {
  TraceConfig uniform = simple_test(1'000'000);
  uniform.params.set("trace.popularity", "uniform");
  const auto reqs = read_all(uniform);
  REQUIRE(reqs.size() == 1'000'000);
  double gets = 0, sets = 0, dels = 0;
  std::map<uint64_t, uint32_t> size_of;
  for (const Request& r : reqs) {
    (r.op == Op::kGet ? gets : r.op == Op::kSet ? sets : dels) += 1;
    const auto [it, fresh] = size_of.emplace(r.key, r.size_bytes);
    REQUIRE(it->second == r.size_bytes);  // one size per key
  }
  CHECK(std::abs(gets / 1e6 - 0.15) < 0.005);
  CHECK(std::abs(sets / 1e6 - 0.8) < 0.005);
  CHECK(std::abs(dels / 1e6 - 0.05) < 0.005);
  // Uniform popularity over 100,000 keys: almost all seen (1 − e^−10 of them).
  CHECK(size_of.size() > 99'900);
  CHECK(size_of.size() <= 100'000);
  // Size = key size in [1, 64) + value size in [1, 409200). Value intervals by the size's
  // range: below 32 + 64 only the first, [10240 + 1, ...) only the third.
  double small = 0, large = 0, large_sum = 0;
  for (const auto& [k, s] : size_of) {
    CHECK(s >= 2);
    CHECK(s < 64 + 409200);
    if (s < 32 + 63) small += 1;
    if (s >= 10240 + 1) {
      large += 1;
      large_sum += s;
    }
  }
  const double keys = static_cast<double>(size_of.size());
  // P(value < 32) = 0.1, plus P(value in [32, 95 − key)) ≤ 0.2 × 63/10208: about 0.1.
  CHECK(std::abs(small / keys - 0.1) < 0.01);
  CHECK(std::abs(large / keys - 0.7) < 0.01);
  // Uniform within [10240, 409200): mean 209720, plus the key's mean of about 26.
  CHECK(large_sum / large == Approx(209720 + 26).epsilon(0.01));
}

TEST_CASE("cachebench: key sizes follow their intervals", "[cachebench]") {
  TraceConfig c = simple_test(200'000);
  c.params.set("trace.popularity", "uniform");
  c.params.set("trace.val_size_range", "1,2");  // value size 1: the size is the key's plus 1
  c.params.set("trace.val_size_range_probability", "1");
  std::map<uint64_t, uint32_t> size_of;
  for (const Request& r : read_all(c)) size_of.emplace(r.key, r.size_bytes);
  std::vector<double> per_size(64, 0);
  for (const auto& [k, s] : size_of) per_size[s - 1] += 1;
  const double keys = static_cast<double>(size_of.size());
  double short_keys = 0;
  for (int s = 1; s < 8; ++s) short_keys += per_size[static_cast<size_t>(s)];
  CHECK(std::abs(short_keys / keys - 0.3) < 0.01);
  // Uniform within [8, 64): each of the 56 sizes 0.7/56 = 1.25 % of the keys (within 0.2).
  for (int s = 8; s < 64; ++s) {
    CHECK(std::abs(per_size[static_cast<size_t>(s)] / keys - 0.0125) < 0.002);
  }
}

TEST_CASE("cachebench: value sizes from the object size keys", "[cachebench]") {
  TraceConfig c = simple_test(100'000);
  c.params.set("trace.key_size_range", "10,11");  // every key 10 bytes
  c.params.set("trace.key_size_range_probability", "1");
  c.params.set("trace.size", 500);  // written: constant values of 500 bytes
  for (const Request& r : read_all(c)) REQUIRE(r.size_bytes == 510);
  c.params.set("trace.size_distribution", "uniform");
  c.params.set("trace.size_min", 100);
  c.params.set("trace.size_max", 200);
  for (const Request& r : read_all(c)) {
    REQUIRE(r.size_bytes >= 110);
    REQUIRE(r.size_bytes <= 210);
  }
}

TEST_CASE("cachebench: zipf popularity, seeds, and bad lists", "[cachebench]") {
  TraceConfig z = simple_test(500'000);
  z.params.set("trace.popularity", "zipf");
  z.params.set("trace.zipf_alpha", 1.0);
  std::map<uint64_t, double> count;
  for (const Request& r : read_all(z)) count[r.key] += 1;
  std::vector<double> c;
  for (const auto& [k, n] : count) c.push_back(n);
  std::sort(c.rbegin(), c.rend());
  // Zipf(1) over 100,000 keys: rank 1 draws 1/H(100000) = 8.3 % of the requests, rank 2 half.
  CHECK(c[0] / 500'000 == Approx(1 / 12.09).epsilon(0.03));
  CHECK(c[1] / c[0] == Approx(0.5).epsilon(0.05));
  const auto a = read_all(simple_test(10'000, 5)), b = read_all(simple_test(10'000, 5));
  CHECK(std::equal(a.begin(), a.end(), b.begin(), [](const Request& x, const Request& y) {
    return x.key == y.key && x.op == y.op && x.size_bytes == y.size_bytes;
  }));
  TraceConfig bad = simple_test(10);
  bad.params.set("trace.val_size_range_probability", "0.5,0.5");
  CHECK_THROWS_WITH(read_all(bad), Catch::Contains("val_size_range_probability") &&
                                       Catch::Contains("3 intervals, or one per size: 4"));
  bad = simple_test(10);
  bad.params.set("trace.key_size_range_probability", "0.3,0.3,0.4");  // keys: intervals only
  CHECK_THROWS_WITH(read_all(bad), Catch::Contains("key_size_range_probability") &&
                                       Catch::Contains("2 intervals)"));
  bad = simple_test(10);
  bad.params.set("trace.key_size_range", "8,4");
  bad.params.set("trace.key_size_range_probability", "1");
  CHECK_THROWS_WITH(read_all(bad), Catch::Contains("key_size_range") && Catch::Contains("'8,4'"));
}

}  // namespace
}  // namespace flashpq::test_cachebench
