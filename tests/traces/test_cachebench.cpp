// tests/traces/test_cachebench.cpp — the cachebench generator (traces/cachebench.cpp) with the
// keys of CacheBench's test_configs/simple_test.json: the op mix within 0.5 %, each key and value
// size interval's share of the keys within 1 % and uniform within its interval, uniform or zipf
// popularity, one size per key, seeds bit for bit, bad lists refused.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <vector>

#include "traces/generator.h"

namespace flashpq {
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

TEST_CASE("cachebench: simple_test.json's op mix, sizes and uniform keys", "[cachebench]") {
  const auto reqs = read_all(simple_test(1'000'000));
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
                                       Catch::Contains("3 intervals"));
  bad = simple_test(10);
  bad.params.set("trace.key_size_range", "8,4");
  bad.params.set("trace.key_size_range_probability", "1");
  CHECK_THROWS_WITH(read_all(bad), Catch::Contains("key_size_range") && Catch::Contains("'8,4'"));
}

}  // namespace
}  // namespace flashpq
