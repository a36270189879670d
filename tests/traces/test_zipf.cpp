// tests/traces/test_zipf.cpp — the zipf generator (traces/zipf.h): the sampler against the exact
// Zipf probabilities (a chi-square test on a small N), the exponent fitted from the rank-frequency
// line (within 0.02), uniform at alpha 0, scrambling as a bijection that keeps the popularity,
// and a seed reproducing the stream bit for bit.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <vector>

#include "sim/rng.h"
#include "traces/generator.h"
#include "traces/zipf.h"

namespace flashpq::test_zipf {
namespace {

TraceConfig zipf_trace(uint64_t objects, double alpha, uint64_t requests, bool scramble,
                       uint64_t seed = 1) {
  TraceConfig c;
  c.format = "generator";
  c.params.set("trace.generator", "zipf");
  c.params.set("trace.objects", objects);
  c.params.set("trace.alpha", alpha);
  c.params.set("trace.requests", requests);
  c.params.set("trace.scramble", scramble);
  c.seed = seed;
  return c;
}

std::vector<Request> read_all(const TraceConfig& c) {
  auto reader = open_trace(c);
  std::vector<Request> out;
  std::vector<Request> batch(4096);
  for (size_t n; (n = reader->read(batch)) != 0;)
    out.insert(out.end(), batch.begin(), batch.begin() + n);
  return out;
}

// Chi-square statistic of `counts` (ranks 1..n) against P(k) = k^-alpha / H.
double chi_square(const std::vector<uint64_t>& counts, double alpha, uint64_t total) {
  double h = 0;
  for (size_t k = 1; k < counts.size(); ++k) h += std::pow(static_cast<double>(k), -alpha);
  double chi = 0;
  for (size_t k = 1; k < counts.size(); ++k) {
    const double e = static_cast<double>(total) * std::pow(static_cast<double>(k), -alpha) / h;
    chi += (static_cast<double>(counts[k]) - e) * (static_cast<double>(counts[k]) - e) / e;
  }
  return chi;
}

TEST_CASE("zipf: the sampler draws the exact Zipf probabilities", "[zipf]") {
  // 20 ranks, 1 M draws: chi-square with 19 degrees of freedom; 43.8 is its 0.999 quantile.
  for (const double alpha : {0.5, 0.99, 1.0, 1.3, 2.5}) {
    INFO("alpha " << alpha);
    const ZipfSampler sample(20, alpha);
    RngStream rng(7, RngStream::kZipfStream);
    std::vector<uint64_t> counts(21, 0);
    const uint64_t total = 1'000'000;
    uint64_t outside = 0;
    for (uint64_t i = 0; i < total; ++i) {
      const uint64_t k = sample([&] { return rng.uniform(); });
      if (k < 1 || k > 20) {
        ++outside;
        continue;
      }
      ++counts[k];
    }
    CHECK(outside == 0);
    CHECK(chi_square(counts, alpha, total) < 43.8);
  }
  // A wrong exponent is rejected by the same test: it could fail.
  const ZipfSampler sample(20, 0.8);
  RngStream rng(7, RngStream::kZipfStream);
  std::vector<uint64_t> counts(21, 0);
  for (int i = 0; i < 1'000'000; ++i) ++counts[sample([&] { return rng.uniform(); })];
  CHECK(chi_square(counts, 0.9, 1'000'000) > 43.8);
}

// The exponent fitted by least squares on log(count) against log(rank), ranks 1..100.
double fitted_alpha(const std::map<uint64_t, uint64_t>& by_rank) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  int n = 0;
  for (uint64_t k = 1; k <= 100; ++k) {
    const auto it = by_rank.find(k);
    REQUIRE(it != by_rank.end());
    const double x = std::log(static_cast<double>(k)),
                 y = std::log(static_cast<double>(it->second));
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
    ++n;
  }
  return -(n * sxy - sx * sy) / (n * sxx - sx * sx);
}

TEST_CASE("zipf: the fitted exponent is within 0.02 of alpha", "[zipf]") {
  for (const double alpha : {0.7, 0.99, 1.2}) {
    INFO("alpha " << alpha);
    std::map<uint64_t, uint64_t> by_rank;
    for (const Request& r : read_all(zipf_trace(100000, alpha, 2'000'000, false))) ++by_rank[r.key];
    CHECK(std::abs(fitted_alpha(by_rank) - alpha) < 0.02);
  }
}

TEST_CASE("zipf: the fitted exponent on 10 M requests", "[zipf][slow]") {
  std::map<uint64_t, uint64_t> by_rank;
  for (const Request& r : read_all(zipf_trace(1'000'000, 0.99, 10'000'000, false)))
    ++by_rank[r.key];
  CHECK(std::abs(fitted_alpha(by_rank) - 0.99) < 0.02);
}

TEST_CASE("zipf: alpha 0 is uniform, scrambling keeps the popularity", "[zipf]") {
  std::vector<uint64_t> counts(101, 0);
  uint64_t outside = 0;
  for (const Request& r : read_all(zipf_trace(100, 0, 1'000'000, false))) {
    if (r.key < 1 || r.key > 100) {
      ++outside;
      continue;
    }
    ++counts[r.key];
  }
  CHECK(outside == 0);
  CHECK(chi_square(counts, 0, 1'000'000) < 148.2);  // 99 degrees of freedom, 0.999 quantile

  // Scrambled keys: N distinct keys, none the rank, and the same sorted counts as unscrambled.
  std::map<uint64_t, uint64_t> plain, scrambled;
  for (const Request& r : read_all(zipf_trace(1000, 0.99, 200'000, false))) ++plain[r.key];
  for (const Request& r : read_all(zipf_trace(1000, 0.99, 200'000, true))) ++scrambled[r.key];
  std::vector<uint64_t> a, b;
  for (const auto& [k, n] : plain) a.push_back(n);
  size_t ranks_as_keys = 0;
  for (const auto& [k, n] : scrambled) {
    ranks_as_keys += k <= 1000 ? 1 : 0;
    b.push_back(n);
  }
  CHECK(ranks_as_keys <= 1);  // a bijection may leave a rank in 1..1000 by chance, hardly two
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  CHECK(a == b);  // the same ranks drawn, renamed by a bijection
}

TEST_CASE("zipf: a seed reproduces the stream bit for bit, another seed does not", "[zipf]") {
  const auto a = read_all(zipf_trace(5000, 0.99, 50'000, true, 3));
  const auto b = read_all(zipf_trace(5000, 0.99, 50'000, true, 3));
  const auto c = read_all(zipf_trace(5000, 0.99, 50'000, true, 4));
  REQUIRE(a.size() == 50'000);
  bool same = true, differ = false;
  for (size_t i = 0; i < a.size(); ++i) {
    same = same && a[i].key == b[i].key && a[i].size_bytes == b[i].size_bytes && a[i].op == b[i].op;
    differ = differ || a[i].key != c[i].key;
  }
  CHECK(same);
  CHECK(differ);
  // The content hash follows the parameters and the seed.
  const TraceGenerator& g = trace_generator(zipf_trace(1, 1, 1, true));
  CHECK(g.identity(zipf_trace(5000, 0.99, 50'000, true, 3)) ==
        g.identity(zipf_trace(5000, 0.99, 50'000, true, 3)));
  CHECK(g.identity(zipf_trace(5000, 0.99, 50'000, true, 3)) !=
        g.identity(zipf_trace(5000, 0.98, 50'000, true, 3)));
}

}  // namespace
}  // namespace flashpq::test_zipf

namespace flashpq::test_zipf {
namespace {

TEST_CASE("generators: times at a constant rate or a Poisson process", "[zipf]") {
  TraceConfig c = zipf_trace(1000, 0.9, 200'000, true);
  for (const Request& r : read_all(c)) REQUIRE(r.time_ns == 0);  // rate 0: no times
  c.params.set("trace.rate", 4000.0);                            // a request every 250 us
  const auto fixed = read_all(c);
  for (size_t i = 0; i < fixed.size(); ++i) REQUIRE(fixed[i].time_ns == 250'000 * i);
  c.params.set("trace.arrival", "poisson");
  const auto poisson = read_all(c);
  // Exponential gaps of mean 250 us: mean and standard deviation both 250 us (within 1 %).
  double sum = 0, sum2 = 0;
  for (size_t i = 1; i < poisson.size(); ++i) {
    const double gap = static_cast<double>(poisson[i].time_ns - poisson[i - 1].time_ns);
    sum += gap;
    sum2 += gap * gap;
  }
  const double n = static_cast<double>(poisson.size() - 1);
  const double mean = sum / n, sd = std::sqrt(sum2 / n - mean * mean);
  CHECK(mean == Approx(250'000).epsilon(0.01));
  CHECK(sd == Approx(250'000).epsilon(0.01));
  // The keys are the same stream; the times name the trace: another content hash.
  for (size_t i = 0; i < fixed.size(); ++i) REQUIRE(fixed[i].key == poisson[i].key);
  const TraceConfig plain = zipf_trace(1000, 0.9, 200'000, true);
  CHECK(trace_format("generator").content_hash(plain) != trace_format("generator").content_hash(c));
}

}  // namespace
}  // namespace flashpq::test_zipf
