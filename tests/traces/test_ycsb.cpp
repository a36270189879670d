// tests/traces/test_ycsb.cpp — the ycsb generator (traces/ycsb.h): ζ against direct sums and
// YCSB's own constant; fnvhash64 against values computed by a second implementation; each
// workload's operation mix within 0.5 % of YCSB's proportions, read back from the request
// stream; the scrambled zipfian, skewed latest, hotspot and uniform key popularity against
// references computed here from the distributions' definitions (chi-square tests, each shown
// able to fail); scans, inserts, read-modify-writes, the load phase, sizes, overrides, bad
// values; and a seed reproducing the stream bit for bit.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <numeric>
#include <vector>

#include "traces/generator.h"
#include "traces/ycsb.h"

namespace flashpq {
namespace {

TraceConfig ycsb_trace(const std::string& workload, uint64_t records, uint64_t operations,
                       uint64_t seed = 1) {
  TraceConfig c;
  c.format = "generator";
  c.params.set("trace.generator", "ycsb");
  c.params.set("trace.workload", workload);
  c.params.set("trace.record_count", records);
  c.params.set("trace.operation_count", operations);
  c.seed = seed;
  return c;
}

std::vector<Request> read_all(const TraceConfig& c) {
  auto reader = open_trace(c);
  std::vector<Request> out;
  std::vector<Request> batch(1000);  // a batch boundary falls inside scans and rmw pairs
  for (size_t n; (n = reader->read(batch)) != 0;)
    out.insert(out.end(), batch.begin(), batch.begin() + n);
  return out;
}

// The 0.999 quantile of chi-square with k degrees of freedom (Wilson–Hilferty).
double chi_square_999(double k) {
  const double z = 3.0902;
  const double a = 2.0 / (9.0 * k);
  return k * std::pow(1 - a + z * std::sqrt(a), 3);
}

double chi_square(const std::vector<double>& observed, const std::vector<double>& expected) {
  double chi = 0;
  for (size_t i = 0; i < observed.size(); ++i) {
    chi += (observed[i] - expected[i]) * (observed[i] - expected[i]) / expected[i];
  }
  return chi;
}

// The operations of a stream, read back from its requests (traces/ycsb.h): a set of a key one
// past the largest seen is an insert; a set right after a get of the same key closes a
// read-modify-write (in workloads without updates); a run of gets of consecutive keys is one
// scan (in workloads with scans).
struct Mix {
  double read = 0, update = 0, insert = 0, scan = 0, rmw = 0;
  double total() const { return read + update + insert + scan + rmw; }
};

Mix operations(const std::vector<Request>& reqs, uint64_t records, bool scans, bool rmws) {
  Mix m;
  uint64_t last = records - 1;
  for (size_t i = 0; i < reqs.size(); ++i) {
    const Request& r = reqs[i];
    if (r.op == Op::kSet) {
      if (r.key == last + 1) {
        ++m.insert;
        ++last;
      } else if (rmws && i > 0 && reqs[i - 1].op == Op::kGet && reqs[i - 1].key == r.key) {
        --m.read;
        ++m.rmw;
      } else {
        ++m.update;
      }
    } else if (scans) {
      const bool continues = i > 0 && reqs[i - 1].op == Op::kGet && reqs[i - 1].key + 1 == r.key;
      if (!continues) ++m.scan;
    } else {
      ++m.read;
    }
  }
  return m;
}

TEST_CASE("ycsb: zeta by Euler-Maclaurin equals the direct sum and YCSB's ZETAN", "[ycsb]") {
  for (const double theta : {0.5, 0.99, 1.0, 1.5}) {
    for (const uint64_t n : {4096ull, 4097ull, 100'000ull, 2'000'000ull}) {
      double direct = 0;
      for (uint64_t i = 1; i <= n; ++i) direct += std::pow(static_cast<double>(i), -theta);
      INFO("theta " << theta << " n " << n);
      CHECK(std::abs(zipf_zeta(n, theta) - direct) / direct < 1e-12);
    }
  }
  // ScrambledZipfianGenerator.ZETAN, YCSB's sum over 10^10 items at 0.99.
  CHECK(std::abs(zipf_zeta(10'000'000'000ull, 0.99) - 26.46902820178302) < 1e-9);
  // Not ζ over its ITEM_COUNT = 10^16 items, which is far larger.
  CHECK(zipf_zeta(10'000'000'000'000'000ull, 0.99) > 45);
}

TEST_CASE("ycsb: fnvhash64 equals YCSB's Utils.fnvhash64", "[ycsb]") {
  // Computed with a Python transcription of Utils.fnvhash64 (FNV-1a over 8 bytes, Math.abs).
  CHECK(ycsb_fnvhash64(0) == 6284781860667377211ull);
  CHECK(ycsb_fnvhash64(1) == 8517097267634966620ull);
  CHECK(ycsb_fnvhash64(2) == 1820151046732198393ull);
  CHECK(ycsb_fnvhash64(12345) == 1792800413050876852ull);
  CHECK(ycsb_fnvhash64(1099511627783ull) == 6089181255519459853ull);
}

TEST_CASE("ycsb: each workload's operation mix is YCSB's within 0.5 %", "[ycsb]") {
  struct Expected {
    const char* workload;
    Mix mix;
    bool scans, rmws;
  };
  const Expected cases[] = {
      {"a", {0.5, 0.5, 0, 0, 0}, false, false},  {"b", {0.95, 0.05, 0, 0, 0}, false, false},
      {"c", {1, 0, 0, 0, 0}, false, false},      {"d", {0.95, 0, 0.05, 0, 0}, false, false},
      {"e", {0, 0, 0.05, 0.95, 0}, true, false}, {"f", {0.5, 0, 0, 0, 0.5}, false, true},
  };
  for (const Expected& e : cases) {
    INFO("workload " << e.workload);
    const uint64_t records = 100'000, ops = 200'000;
    const Mix m =
        operations(read_all(ycsb_trace(e.workload, records, ops)), records, e.scans, e.rmws);
    CHECK(m.total() == Approx(static_cast<double>(ops)).margin(e.scans ? 5 : 0));
    const double t = m.total();
    CHECK(std::abs(m.read / t - e.mix.read) < 0.005);
    CHECK(std::abs(m.update / t - e.mix.update) < 0.005);
    CHECK(std::abs(m.insert / t - e.mix.insert) < 0.005);
    CHECK(std::abs(m.scan / t - e.mix.scan) < 0.005);
    CHECK(std::abs(m.rmw / t - e.mix.rmw) < 0.005);
  }
}

TEST_CASE("ycsb: written proportions and distribution override the workload's", "[ycsb]") {
  TraceConfig c = ycsb_trace("a", 1000, 100'000);
  c.params.set("trace.read_proportion", 0.8);
  c.params.set("trace.update_proportion", 0.2);
  c.params.set("trace.request_distribution", "uniform");
  const auto reqs = read_all(c);
  const Mix m = operations(reqs, 1000, false, false);
  CHECK(std::abs(m.read / m.total() - 0.8) < 0.005);
  // Uniform over 1000 keys: 10 bins of 100 keys, chi-square with 9 degrees of freedom.
  std::vector<double> bins(10, 0);
  for (const Request& r : reqs) bins[r.key / 100] += 1;
  CHECK(chi_square(bins, std::vector<double>(10, reqs.size() / 10.0)) < chi_square_999(9));
}

// P(v) of YCSB's ZipfianGenerator.nextLong for `itemcount` items, by the definition: u < 1/ζ
// gives 0, u < (1 + 2^−θ)/ζ gives 1, else ⌊itemcount · (ηu − η + 1)^(1/(1−θ))⌋, whose value is
// ≥ v exactly when u ≥ c(v) = ((v/itemcount)^(1−θ) − 1 + η)/η.
struct GrayReference {
  double itemcount, theta, zetan, eta;
  GrayReference(double items_for_eta, double count, double th, double z)
      : itemcount(count), theta(th), zetan(z) {
    eta = (1 - std::pow(2.0 / items_for_eta, 1 - theta)) / (1 - (1 + std::pow(0.5, theta)) / zetan);
  }
  double u1() const { return (1 + std::pow(0.5, theta)) / zetan; }
  // P(value ≥ v) for v ≥ 2.
  double at_least(double v) const {
    const double c = (std::pow(v / itemcount, 1 - theta) - 1 + eta) / eta;
    return 1 - std::clamp(std::max(c, u1()), 0.0, 1.0);
  }
  double p0() const { return 1 / zetan; }
  double p1() const { return std::pow(0.5, theta) / zetan; }
};

TEST_CASE("ycsb: zipfian keys follow YCSB's scrambled zipfian", "[ycsb]") {
  // Workload C over 1000 records: values v of a zipfian over 10^16 + 1 items with YCSB's ζ,
  // key fnvhash64(v) mod 1001, key 1000 (not inserted) drawn again.
  const uint64_t records = 1000, ops = 2'000'000, itemcount = records + 1;
  const auto reqs = read_all(ycsb_trace("c", records, ops));
  std::vector<double> counts(records, 0);
  for (const Request& r : reqs) {
    REQUIRE(r.key < records);
    counts[r.key] += 1;
  }
  const GrayReference g(1e16 + 1, 1e16, 0.99, 26.46902820178302);
  std::vector<double> p(itemcount, 0);
  p[ycsb_fnvhash64(0) % itemcount] += g.p0();
  p[ycsb_fnvhash64(1) % itemcount] += g.p1();
  double covered = g.p0() + g.p1();
  const uint64_t values = 2'000'000;
  for (uint64_t v = 2; v < values; ++v) {
    const double pv = g.at_least(static_cast<double>(v)) - g.at_least(static_cast<double>(v + 1));
    p[ycsb_fnvhash64(v) % itemcount] += pv;
    covered += pv;
  }
  for (double& x : p) x += (1 - covered) / static_cast<double>(itemcount);  // the hashed tail
  const double kept = 1 - p[records];
  std::vector<double> expected(records);
  for (uint64_t k = 0; k < records; ++k) expected[k] = static_cast<double>(ops) * p[k] / kept;
  CHECK(chi_square(counts, expected) < chi_square_999(records - 1));
  // The hottest key is fnvhash64(0) mod 1001, not key 0: hot keys are scattered.
  const auto hottest = std::max_element(counts.begin(), counts.end()) - counts.begin();
  CHECK(static_cast<uint64_t>(hottest) == ycsb_fnvhash64(0) % itemcount);
  CHECK(hottest != 0);
  // The test can fail: the same counts against an unscrambled Zipf(0.99) over 1000 keys.
  std::vector<double> zipf(records);
  double h = 0;
  for (uint64_t k = 1; k <= records; ++k) h += std::pow(static_cast<double>(k), -0.99);
  for (uint64_t k = 0; k < records; ++k)
    zipf[k] = static_cast<double>(ops) * std::pow(static_cast<double>(k + 1), -0.99) / h;
  CHECK(chi_square(counts, zipf) > 10 * chi_square_999(records - 1));
}

TEST_CASE("ycsb: latest keys follow YCSB's skewed latest as inserts grow the key space", "[ycsb]") {
  // Workload D: per read, the distance d = (last inserted key) − key against the reference for
  // the state at that read (ζ grown by every insert, η from the initial record_count − 1).
  const uint64_t records = 10'000, ops = 1'000'000;
  const auto reqs = read_all(ycsb_trace("d", records, ops));
  const double theta = 0.99, items = records - 1;
  double zetan = 0;
  for (uint64_t i = 1; i <= records - 1; ++i) zetan += std::pow(static_cast<double>(i), -theta);
  const std::vector<double> edges{0, 1, 2, 3, 10, 100, 1000, 10000};  // bins [e_i, e_{i+1})
  std::vector<double> observed(edges.size(), 0), expected(edges.size(), 0);
  uint64_t last = records - 1;
  for (const Request& r : reqs) {
    if (r.op == Op::kSet) {
      REQUIRE(r.key == last + 1);  // inserts are the next key numbers, in order
      ++last;
      zetan += std::pow(static_cast<double>(last), -theta);
      continue;
    }
    REQUIRE(r.key <= last);
    const double d = static_cast<double>(last - r.key);
    observed[std::upper_bound(edges.begin(), edges.end(), d) - edges.begin() - 1] += 1;
    const GrayReference g(items, static_cast<double>(last), theta, zetan);
    expected[0] += g.p0();
    expected[1] += g.p1();
    for (size_t b = 2; b < edges.size(); ++b) {
      const double hi = b + 1 < edges.size() ? g.at_least(edges[b + 1]) : 0;
      expected[b] += g.at_least(edges[b]) - hi;
    }
  }
  CHECK(chi_square(observed, expected) < chi_square_999(edges.size() - 1));
  // The test can fail: the same reads against the reference frozen at the first state.
  const GrayReference frozen(items, items, theta, zipf_zeta(records - 1, theta));
  const double reads = std::accumulate(observed.begin(), observed.end(), 0.0);
  CHECK(std::abs(observed[0] / reads - frozen.p0()) > 5 * std::sqrt(frozen.p0() / reads));
}

TEST_CASE("ycsb: hotspot sends hotspot_opn_fraction of the operations to the hot set", "[ycsb]") {
  TraceConfig c = ycsb_trace("c", 10'000, 1'000'000);
  c.params.set("trace.request_distribution", "hotspot");
  const auto reqs = read_all(c);
  std::vector<double> hot(10, 0), cold(10, 0);
  for (const Request& r : reqs) {
    if (r.key < 2000) {
      hot[r.key / 200] += 1;
    } else {
      cold[(r.key - 2000) / 800] += 1;
    }
  }
  const double n_hot = std::accumulate(hot.begin(), hot.end(), 0.0);
  CHECK(std::abs(n_hot / static_cast<double>(reqs.size()) - 0.8) < 0.005);
  CHECK(chi_square(hot, std::vector<double>(10, n_hot / 10)) < chi_square_999(9));
  const double n_cold = static_cast<double>(reqs.size()) - n_hot;
  CHECK(chi_square(cold, std::vector<double>(10, n_cold / 10)) < chi_square_999(9));
}

TEST_CASE("ycsb: a scan reads consecutive keys, its length uniform in [1, 100]", "[ycsb]") {
  const uint64_t records = 100'000;
  const auto reqs = read_all(ycsb_trace("e", records, 100'000));
  std::vector<double> lengths(101, 0);
  uint64_t last = records - 1;
  size_t i = 0;
  while (i < reqs.size()) {
    if (reqs[i].op == Op::kSet) {
      REQUIRE(reqs[i].key == ++last);
      ++i;
      continue;
    }
    const uint64_t start = reqs[i].key;
    size_t j = i + 1;
    while (j < reqs.size() && reqs[j].op == Op::kGet && reqs[j].key == reqs[j - 1].key + 1) ++j;
    REQUIRE(reqs[j - 1].key <= last);
    // Scans that may have been cut short at the last key say nothing of the length.
    if (start + 100 <= last) lengths[j - i] += 1;
    i = j;
  }
  CHECK(lengths[0] == 0);
  const double scans = std::accumulate(lengths.begin(), lengths.end(), 0.0);
  std::vector<double> observed(lengths.begin() + 1, lengths.end());
  CHECK(chi_square(observed, std::vector<double>(100, scans / 100)) < chi_square_999(99));
}

TEST_CASE("ycsb: read-modify-write is a get then a set of the same key", "[ycsb]") {
  const auto reqs = read_all(ycsb_trace("f", 1000, 10'000));
  size_t sets = 0;
  for (size_t i = 0; i < reqs.size(); ++i) {
    if (reqs[i].op != Op::kSet) continue;
    ++sets;
    REQUIRE(i > 0);
    CHECK(reqs[i - 1].op == Op::kGet);
    CHECK(reqs[i - 1].key == reqs[i].key);
  }
  CHECK(sets > 4000);
  CHECK(reqs.size() == 10'000 + sets);
}

TEST_CASE("ycsb: the load phase sets every record first, in order", "[ycsb]") {
  TraceConfig c = ycsb_trace("b", 500, 100);
  c.params.set("trace.load", true);
  const auto reqs = read_all(c);
  REQUIRE(reqs.size() == 600);
  // Not measured: the preconditioning requests a cell's warm-up starts after.
  CHECK(open_trace(c)->preconditioning_requests() == 500);
  c.params.set("trace.load", false);
  CHECK(open_trace(c)->preconditioning_requests() == 0);
  c.params.set("trace.load", true);
  for (uint64_t k = 0; k < 500; ++k) {
    CHECK(reqs[k].key == k);
    CHECK(reqs[k].op == Op::kSet);
  }
}

TEST_CASE("ycsb: sizes are field_count x field_length unless trace.size is written", "[ycsb]") {
  for (const Request& r : read_all(ycsb_trace("a", 100, 100))) CHECK(r.size_bytes == 1000);
  TraceConfig c = ycsb_trace("a", 100, 100);
  c.params.set("trace.field_count", 4);
  c.params.set("trace.field_length", 50);
  for (const Request& r : read_all(c)) CHECK(r.size_bytes == 200);
  c.params.set("trace.size", 4096);  // written, it wins
  for (const Request& r : read_all(c)) CHECK(r.size_bytes == 4096);
  TraceConfig u = ycsb_trace("a", 100, 1000);
  u.params.set("trace.size_distribution", "uniform");
  u.params.set("trace.size_min", 10);
  u.params.set("trace.size_max", 20);
  std::map<uint64_t, uint32_t> size_of;
  for (const Request& r : read_all(u)) {
    CHECK(r.size_bytes >= 10);
    CHECK(r.size_bytes <= 20);
    const auto [it, fresh] = size_of.emplace(r.key, r.size_bytes);
    CHECK(it->second == r.size_bytes);  // one size per key
  }
}

TEST_CASE("ycsb: a seed reproduces the stream bit for bit", "[ycsb]") {
  for (const char* w : {"a", "d", "e", "f"}) {
    INFO("workload " << w);
    const auto a = read_all(ycsb_trace(w, 10'000, 20'000, 7));
    const auto b = read_all(ycsb_trace(w, 10'000, 20'000, 7));
    const auto other = read_all(ycsb_trace(w, 10'000, 20'000, 8));
    REQUIRE(a.size() == b.size());
    CHECK(std::equal(a.begin(), a.end(), b.begin(), [](const Request& x, const Request& y) {
      return x.key == y.key && x.op == y.op && x.size_bytes == y.size_bytes &&
             x.time_ns == y.time_ns;
    }));
    CHECK_FALSE(std::equal(a.begin(), a.begin() + std::min(a.size(), other.size()), other.begin(),
                           [](const Request& x, const Request& y) { return x.key == y.key; }));
  }
}

TEST_CASE("ycsb: bad values are errors quoting them", "[ycsb]") {
  TraceConfig latest = ycsb_trace("d", 2, 10);
  CHECK_THROWS_WITH(read_all(latest), Catch::Contains("record_count") && Catch::Contains("'2'"));
  TraceConfig none = ycsb_trace("c", 100, 10);
  none.params.set("trace.read_proportion", 0.0);
  CHECK_THROWS_WITH(read_all(none), Catch::Contains("positive operation proportion"));
  TraceConfig scan = ycsb_trace("e", 100, 10);
  scan.params.set("trace.min_scan_length", 200);
  CHECK_THROWS_WITH(read_all(scan), Catch::Contains("min_scan_length") && Catch::Contains("200"));
  TraceConfig theta = ycsb_trace("a", 100, 10);
  theta.params.set("trace.zipfian_constant", 1.5);
  CHECK_THROWS(read_all(theta));
  TraceConfig workload = ycsb_trace("g", 100, 10);
  CHECK_THROWS_WITH(read_all(workload), Catch::Contains("trace.workload"));
}

TEST_CASE("ycsb: the scrambled zipfian's key space counts the expected inserts", "[ycsb]") {
  // CoreWorkload.init: recordcount + (int)(operationcount × insertproportion × 2) + 1 keys.
  YcsbConfig c;
  c.record_count = 1000;
  c.operation_count = 10'000;
  c.read_proportion = 0.95;
  c.update_proportion = 0;
  c.insert_proportion = 0.05;
  CHECK(c.zipfian_item_count() == 2001);
  c.insert_proportion = 0;
  CHECK(c.zipfian_item_count() == 1001);
}

}  // namespace
}  // namespace flashpq
