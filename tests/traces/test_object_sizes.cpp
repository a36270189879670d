// tests/traces/test_object_sizes.cpp — sizes of generated objects (traces/object_sizes.h): one
// size per key, and each distribution's quantiles against its closed form.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <vector>

#include "tests/test_util.h"
#include "traces/object_sizes.h"
#include "traces/trace_reader.h"

namespace flashpq::test_object_sizes {
namespace {

std::vector<double> sizes_of(const ObjectSizes& s, uint64_t keys) {
  std::vector<double> out;
  for (uint64_t k = 1; k <= keys; ++k) out.push_back(s.of(k * 0x9E3779B97F4A7C15ull));
  std::sort(out.begin(), out.end());
  return out;
}

double quantile(const std::vector<double>& sorted, double q) {
  return sorted[static_cast<size_t>(q * static_cast<double>(sorted.size() - 1))];
}

TEST_CASE("object sizes: one size per key, reproducible, each distribution's shape",
          "[object_sizes]") {
  ObjectSizes s;
  s.size = 4096;
  CHECK(s.of(1) == 4096);
  CHECK(s.of(~uint64_t{0}) == 4096);

  SECTION("uniform: quartiles of [1000, 2000]") {
    s.distribution = SizeDistribution::kUniform;
    s.size_min = 1000;
    s.size_max = 2000;
    const auto v = sizes_of(s, 200000);
    CHECK(v.front() >= 1000);
    CHECK(v.back() <= 2000);
    CHECK(quantile(v, 0.25) == Approx(1250).margin(10));
    CHECK(quantile(v, 0.5) == Approx(1500).margin(10));
    CHECK(quantile(v, 0.75) == Approx(1750).margin(10));
  }
  SECTION("lognormal: median e^mu, and the 84th percentile e^(mu + sigma)") {
    s.distribution = SizeDistribution::kLognormal;
    s.size = 8192;
    s.sigma = 0.5;
    s.size_min = 1;
    s.size_max = 1 << 30;
    const auto v = sizes_of(s, 200000);
    CHECK(quantile(v, 0.5) == Approx(8192).epsilon(0.02));
    CHECK(quantile(v, 0.8413) == Approx(8192 * std::exp(0.5)).epsilon(0.02));
  }
  SECTION("pareto: P(X > x) = (x_m / x)^shape") {
    s.distribution = SizeDistribution::kPareto;
    s.size_min = 1000;
    s.size_max = 1 << 30;
    s.shape = 1.5;
    const auto v = sizes_of(s, 200000);
    CHECK(v.front() >= 1000);
    for (const double x : {2000.0, 5000.0}) {
      const double above = static_cast<double>(v.end() - std::upper_bound(v.begin(), v.end(), x)) /
                           static_cast<double>(v.size());
      CHECK(above == Approx(std::pow(1000.0 / x, 1.5)).epsilon(0.03));
    }
  }
  // The same key, the same size; another seed, other sizes.
  s = ObjectSizes{};
  s.distribution = SizeDistribution::kLognormal;
  ObjectSizes t = s;
  CHECK(s.of(12345) == t.of(12345));
  t.seed = 2;
  int differ = 0;
  for (uint64_t k = 1; k <= 100; ++k) differ += s.of(k) != t.of(k) ? 1 : 0;
  CHECK(differ > 90);
}

TEST_CASE("object sizes: bad parameters are refused, quoting them", "[object_sizes]") {
  ObjectSizes s;
  s.distribution = SizeDistribution::kUniform;
  s.size_min = 10;
  s.size_max = 5;
  CHECK_THROWS_WITH(s.validate(), Catch::Contains("trace.size_min") && Catch::Contains("'10'"));
  s.size_max = 20;
  s.shape = 0;
  CHECK_THROWS_WITH(s.validate(), Catch::Contains("trace.size_shape"));
}

}  // namespace
}  // namespace flashpq::test_object_sizes

namespace flashpq::test_object_sizes {
namespace {

TEST_CASE("object sizes: empirical sizes are a trace's object sizes, in its proportions",
          "[object_sizes]") {
  testing::TempDir dir;
  TraceConfig c;
  c.format = "generator";
  c.params.set("trace.generator", "zipf");
  c.params.set("trace.objects", 100'000);
  c.params.set("trace.alpha", 0.0);
  c.params.set("trace.requests", 400'000);
  c.params.set("trace.size_distribution", "empirical");
  // Objects 1..4 of sizes 10, 20, 20, 40 (first-seen: key 1's later 99 is ignored), a delete.
  const std::string kv = dir.write("sizes.kv",
                                   "key,op,size\n1,GET,10\n2,GET,20\n3,SET,20\n"
                                   "4,GET,40\n1,GET,99\n9,DELETE,5\n");
  c.params.set("trace.size_trace", kv);
  c.params.set("trace.size_trace_format", "kvcache_csv");
  auto reader = open_trace(c);
  std::vector<Request> batch(4096);
  std::map<uint64_t, uint32_t> size_of;
  for (size_t n; (n = reader->read(batch)) != 0;) {
    for (size_t i = 0; i < n; ++i) {
      const auto [it, fresh] = size_of.emplace(batch[i].key, batch[i].size_bytes);
      REQUIRE(it->second == batch[i].size_bytes);
    }
  }
  std::map<uint32_t, double> share;
  for (const auto& [k, s] : size_of) share[s] += 1.0 / static_cast<double>(size_of.size());
  REQUIRE(share.size() == 3);  // 10, 20, 40: never 99 (not first-seen) nor 5 (a delete)
  CHECK(share[10] == Approx(0.25).margin(0.01));
  CHECK(share[20] == Approx(0.50).margin(0.01));
  CHECK(share[40] == Approx(0.25).margin(0.01));
  c.params.set("trace.size_trace", dir.write("empty.kv", "key,op,size\n"));
  CHECK_THROWS_WITH(open_trace(c), Catch::Contains("trace.size_trace"));
}

}  // namespace
}  // namespace flashpq::test_object_sizes
