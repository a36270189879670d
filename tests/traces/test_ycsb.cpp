// tests/traces/test_ycsb.cpp — the ycsb generator (traces/ycsb.h) against the real YCSB: the
// tables of tests/data/ycsb/ were written by YCSB 0.17.0's own CoreWorkload and generators
// (scripts/ycsb-reference.sh; docs/guide/traces.md, "YCSB: the reference"). Where YCSB is
// deterministic given its variates (the scrambled zipfian, the skewed latest and the zipfian
// scan lengths for a given uniform variate; fnvhash64 and key names; the insert order) the
// comparison is exact; where it draws from ThreadLocalRandom (the key popularity of workloads
// a-f, of each request distribution and of a zipfian constant of 0.8; the operation mixes; the
// latest reads' distance below the newest key as a share of the key count; the scan lengths) it
// is a two-sample test at significance 1e-4 (Kolmogorov-Smirnov and chi-square; chi-square
// alone for the mixes) of FlashPQ's operations (YcsbWorkload, seeded, so the outcome is fixed)
// against YCSB's counts. Then ζ against direct sums; the requests each operation becomes (scans,
// inserts, read-modify-writes, the load phase), sizes, overrides, bad values; and a seed
// reproducing the stream bit for bit.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <map>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "traces/generator.h"
#include "traces/ycsb.h"

namespace flashpq::test_ycsb {
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

// ---- The real YCSB's tables (tests/data/ycsb/, scripts/ycsb-reference.sh).

struct Table {
  std::vector<std::string> comments;  // the header lines, '#' stripped
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;  // the last column keeps any commas it holds
};

Table table(const std::string& name) {
  const std::string path = FLASHPQ_SOURCE_DIR "/tests/data/ycsb/" + name;
  std::ifstream in(path);
  INFO(path);
  REQUIRE(in.good());
  Table t;
  std::string line;
  auto split = [](const std::string& text, size_t fields) {
    std::vector<std::string> out;
    size_t start = 0;
    while (out.size() + 1 < fields) {
      const size_t comma = text.find(',', start);
      if (comma == std::string::npos) break;
      out.push_back(text.substr(start, comma - start));
      start = comma + 1;
    }
    out.push_back(text.substr(start));
    return out;
  };
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    if (line[0] == '#') {
      t.comments.push_back(line.substr(1));
    } else if (t.columns.empty()) {
      t.columns = split(line, 1000);
    } else {
      t.rows.push_back(split(line, t.columns.size()));
    }
  }
  for (const auto& row : t.rows) REQUIRE(row.size() == t.columns.size());
  // Every table names YCSB's version, the command and the parameters that made it.
  REQUIRE(t.comments.size() >= 3);
  CHECK_THAT(t.comments[0], Catch::Contains("YCSB 0.17.0"));
  CHECK_THAT(t.comments[1], Catch::Contains("command:"));
  CHECK_THAT(t.comments[2], Catch::Contains("parameters:"));
  return t;
}

using Counts = std::map<uint64_t, double>;  // value → how many times

Counts counts(const std::string& name) {
  Counts c;
  for (const auto& row : table(name).rows) c[std::stoull(row[0])] += std::stod(row[1]);
  return c;
}

double total(const Counts& c) {
  double n = 0;
  for (const auto& [v, k] : c) n += k;
  return n;
}

// The two-sample Kolmogorov-Smirnov distance between two samples given as counts per value.
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

// The distance the two-sample KS test rejects at significance 1e-4 (the asymptotic
// c(α) √((n + m)/(nm)), c(α) = √(−ln(α/2)/2) = 2.2253; conservative for discrete values).
double ks_critical(double n, double m) {
  return std::sqrt(-std::log(1e-4 / 2) / 2) * std::sqrt((n + m) / (n * m));
}

// The 1 − 1e-4 quantile of chi-square with k degrees of freedom (Wilson–Hilferty, z = 3.7190).
double chi_square_critical(double k) {
  const double z = 3.7190;
  const double a = 2.0 / (9.0 * k);
  return k * std::pow(1 - a + z * std::sqrt(a), 3);
}

// The chi-square statistic of the 2 × k table of two samples' category counts (homogeneity),
// and its degrees of freedom (categories neither sample has are left out).
std::pair<double, double> chi_square_two_samples(const std::vector<double>& a,
                                                 const std::vector<double>& b) {
  const double na = std::accumulate(a.begin(), a.end(), 0.0);
  const double nb = std::accumulate(b.begin(), b.end(), 0.0);
  double chi = 0, categories = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double col = a[i] + b[i];
    if (col == 0) continue;
    ++categories;
    const double ea = col * na / (na + nb), eb = col * nb / (na + nb);
    chi += (a[i] - ea) * (a[i] - ea) / ea + (b[i] - eb) * (b[i] - eb) / eb;
  }
  return {chi, categories - 1};
}

// The same for two samples of values: one category per value, consecutive values pooled until
// each category expects at least 5 of the smaller sample (the chi-square approximation's rule).
std::pair<double, double> chi_square_two_samples(const Counts& a, const Counts& b) {
  const double na = total(a), nb = total(b), smaller = std::min(na, nb) / (na + nb);
  Counts both = a;
  for (const auto& [v, k] : b) both[v] += 0;
  std::vector<double> ca{0}, cb{0};
  for (const auto& [v, unused] : both) {
    if ((ca.back() + cb.back()) * smaller >= 5) {
      ca.push_back(0);
      cb.push_back(0);
    }
    if (auto it = a.find(v); it != a.end()) ca.back() += it->second;
    if (auto it = b.find(v); it != b.end()) cb.back() += it->second;
  }
  if (ca.size() > 1 && (ca.back() + cb.back()) * smaller < 5) {  // a short last one joins
    ca[ca.size() - 2] += ca.back();
    cb[cb.size() - 2] += cb.back();
    ca.pop_back();
    cb.pop_back();
  }
  return chi_square_two_samples(ca, cb);
}

// FlashPQ's config for one of the reference runs (ops.csv): the workload letter and request
// distribution of the run's name ("c-hotspot", "c-theta0.8", "e-zipfian" the scan lengths), its
// records and operations.
YcsbConfig reference_config(const std::string& run, uint64_t records, uint64_t operations) {
  TraceConfig t = ycsb_trace(run.substr(0, 1), records, operations, 1);
  const std::string variant = run.size() > 2 ? run.substr(2) : "";
  if (variant == "uniform" || variant == "hotspot" || variant == "latest") {
    t.params.set("trace.request_distribution", variant);
  } else if (variant == "theta0.8") {
    t.params.set("trace.zipfian_constant", 0.8);
  } else if (variant == "zipfian") {
    t.params.set("trace.scan_length_distribution", "zipfian");
  } else {
    REQUIRE(variant.empty());
  }
  YcsbConfig c = YcsbConfig::from(t);
  c.validate();
  return c;
}

// What FlashPQ's operations give for the reference's tables.
struct Observed {
  std::vector<double> ops = std::vector<double>(5, 0);  // read, update, insert, scan, rmw
  // relative_distance: ⌊10^4 (newest − key) / newest⌋ per chosen key (its distribution does not
  // depend on when a run's inserts came, as the distance's does: a latest read's distance scales
  // with the key count at the read).
  Counts keys, relative_distance, scan_length;
  std::vector<uint64_t> inserts;
};

Observed observe(const YcsbConfig& c, uint64_t operations) {
  YcsbWorkload w(c);
  Observed o;
  size_t wrong = 0;  // inserts not of the next key, keys past the newest
  for (uint64_t i = 0; i < operations; ++i) {
    const YcsbOp op = w.next();
    o.ops[static_cast<size_t>(op.type)] += 1;
    if (op.type == YcsbOperation::kInsert) {
      wrong += op.key != w.newest_key();
      o.inserts.push_back(op.key);
      continue;
    }
    wrong += op.key > w.newest_key();
    o.keys[op.key] += 1;
    o.relative_distance[(w.newest_key() - op.key) * 10'000 / w.newest_key()] += 1;
    if (op.type == YcsbOperation::kScan) o.scan_length[op.scan_length] += 1;
  }
  REQUIRE(wrong == 0);
  return o;
}

struct Reference {
  std::string run;
  uint64_t records, operations;
  std::vector<double> ops;
};

std::vector<Reference> references() {
  std::vector<Reference> out;
  for (const auto& row : table("ops.csv").rows) {
    Reference r{row[0], 0, 0, {}};
    for (size_t i = 1; i <= 5; ++i) r.ops.push_back(std::stod(row[i]));
    // The parameters column: "... operationcount=N ... recordcount=R ...".
    auto value = [&](const std::string& key) {
      const size_t at = row[6].find(" " + key + "=");
      REQUIRE(at != std::string::npos);
      return std::stoull(row[6].substr(at + key.size() + 2));
    };
    r.records = value("recordcount");
    r.operations = value("operationcount");
    out.push_back(r);
  }
  REQUIRE(out.size() == 11);
  return out;
}

// Operations FlashPQ draws per comparison: YCSB's count where inserts make the run's history
// matter (d, e), else 1 M (the popularity is stationary).
uint64_t flashpq_operations(const Reference& r) {
  return r.ops[2] > 0 ? r.operations : 1'000'000;
}

TEST_CASE("ycsb vs YCSB 0.17.0: ScrambledZipfianGenerator's value for each variate", "[ycsb]") {
  // ScrambledZipfianGenerator(0, 1000), as CoreWorkload builds it for 1,000 records: the value
  // YCSB gave for each of 2,000 variates, exactly.
  const Table t = table("draws-scrambled-zipfian.csv");
  REQUIRE(t.rows.size() == 2'000);
  YcsbScrambledZipfian z(0, 1000, 0.99);
  size_t differ = 0;
  for (const auto& row : t.rows) {
    const double u = std::stod(row[0]);
    const uint64_t value = std::stoull(row[1]);
    if (z.next(u) != value && differ++ < 5) {
      UNSCOPED_INFO("u " << row[0] << ": YCSB " << value << ", FlashPQ " << z.next(u));
    }
  }
  CHECK(differ == 0);
}

TEST_CASE("ycsb vs YCSB 0.17.0: ZipfianGenerator(1, 100) and SkewedLatestGenerator per variate",
          "[ycsb]") {
  // The zipfian scan lengths of workload e's scanlengthdistribution=zipfian: θ 0.99 over 100.
  size_t differ = 0;
  YcsbZipfian lengths(100, 0.99, zipf_zeta(100, 0.99));
  for (const auto& row : table("draws-zipfian-1-100.csv").rows) {
    const double u = std::stod(row[0]);
    if (1 + lengths.next(u, 100) != std::stoull(row[1]) && differ++ < 5) {
      UNSCOPED_INFO("zipfian(1, 100), u " << row[0] << ": YCSB " << row[1]);
    }
  }
  CHECK(differ == 0);
  // SkewedLatestGenerator over a counter from 1,000 that grows every 20th draw: the newest key
  // minus a zipfian over the newest key's count, ζ grown as it grows, η from 999 items.
  differ = 0;
  YcsbZipfian latest(999, 0.99, zipf_zeta(999, 0.99));
  for (const auto& row : table("draws-latest.csv").rows) {
    const double u = std::stod(row[0]);
    const uint64_t newest = std::stoull(row[1]);
    if (newest - latest.next(u, newest) != std::stoull(row[2]) && differ++ < 5) {
      UNSCOPED_INFO("latest, u " << row[0] << " newest " << newest << ": YCSB " << row[2]);
    }
  }
  CHECK(differ == 0);
}

TEST_CASE("ycsb vs YCSB 0.17.0: fnvhash64, key names and the insert order", "[ycsb]") {
  for (const auto& row : table("fnvhash64.csv").rows) {
    INFO("value " << row[0]);
    const uint64_t v = std::stoull(row[0]);
    CHECK(ycsb_fnvhash64(v) == std::stoull(row[1]));
    // CoreWorkload.buildKeyName, insertorder=hashed, zeropadding 1: "user" + fnvhash64.
    CHECK("user" + std::to_string(ycsb_fnvhash64(v)) == row[2]);
  }
  // Workload d's inserts: the key names YCSB inserted, in order, are those of key numbers
  // 1000, 1001, ..., FlashPQ's inserts.
  const Table t = table("inserts-d.csv");
  REQUIRE(t.rows.size() == 200);
  const Observed o = observe(reference_config("d", 1000, 200'000), 10'000);
  REQUIRE(o.inserts.size() >= 200);
  for (size_t i = 0; i < 200; ++i) {
    INFO("insert " << i);
    CHECK(o.inserts[i] == std::stoull(t.rows[i][2]));
    CHECK("user" + std::to_string(ycsb_fnvhash64(o.inserts[i])) == t.rows[i][1]);
  }
}

TEST_CASE("ycsb vs YCSB 0.17.0: operation mixes (chi-square, significance 1e-4)", "[ycsb][slow]") {
  for (const Reference& r : references()) {
    const Observed o =
        observe(reference_config(r.run, r.records, r.operations), flashpq_operations(r));
    const auto [chi, df] = chi_square_two_samples(r.ops, o.ops);
    INFO("run " << r.run << ": chi-square " << chi << " on " << df << " df");
    if (df == 0) {
      CHECK(chi == 0);  // one operation in both
    } else {
      CHECK(chi < chi_square_critical(df));
    }
  }
}

TEST_CASE("ycsb vs YCSB 0.17.0: key popularity of every run (KS and chi-square, 1e-4)",
          "[ycsb][slow]") {
  // Workloads a, b, c, f (scrambled zipfian), e's scan starts, uniform, hotspot, latest without
  // inserts, and a zipfian constant of 0.8; keys ordered by key number. In e, inserts let the
  // starts reach new keys as they come, so how often an inserted key is chosen depends on when
  // this run's inserts came (one random path per run, not independent draws): e is compared on
  // the starts among the loaded records, whose distribution does not change as keys are inserted
  // (a start past the newest key is drawn again).
  for (const Reference& r : references()) {
    if (r.run == "d" || r.run == "e-zipfian") continue;  // d: the distances below; e-zipfian: e's
    Counts ycsb = counts("keys-" + r.run + ".csv");
    Counts ours =
        observe(reference_config(r.run, r.records, r.operations), flashpq_operations(r)).keys;
    if (r.run == "e") {
      ycsb.erase(ycsb.lower_bound(r.records), ycsb.end());
      ours.erase(ours.lower_bound(r.records), ours.end());
    }
    const double d = ks_distance(ycsb, ours);
    const double critical = ks_critical(total(ycsb), total(ours));
    const auto [chi, df] = chi_square_two_samples(ycsb, ours);
    INFO("run " << r.run << ": KS " << d << ", critical " << critical << "; chi-square " << chi
                << " on " << df << " df, critical " << chi_square_critical(df) << " (n "
                << total(ycsb) << ", m " << total(ours) << ")");
    CHECK(d < critical);
    CHECK(chi < chi_square_critical(df));
  }
}

TEST_CASE(
    "ycsb vs YCSB 0.17.0: latest reads below the newest key, scan lengths (KS, chi-square, 1e-4)",
    "[ycsb]") {
  for (const Reference& r : references()) {
    std::string file;
    if (r.run == "d") file = "latest-relative-distance-d.csv";
    if (r.run == "e" || r.run == "e-zipfian") file = "scan-length-" + r.run + ".csv";
    if (file.empty()) continue;
    const Counts ycsb = counts(file);
    const Observed o =
        observe(reference_config(r.run, r.records, r.operations), flashpq_operations(r));
    const Counts& ours = r.run == "d" ? o.relative_distance : o.scan_length;
    const double d = ks_distance(ycsb, ours);
    const double critical = ks_critical(total(ycsb), total(ours));
    const auto [chi, df] = chi_square_two_samples(ycsb, ours);
    INFO(file << ": KS " << d << ", critical " << critical << "; chi-square " << chi << " on " << df
              << " df, critical " << chi_square_critical(df) << " (n " << total(ycsb) << ", m "
              << total(ours) << ")");
    CHECK(d < critical);
    CHECK(chi < chi_square_critical(df));
  }
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
  // ScrambledZipfianGenerator.ZETAN = 26.46902820178302 is ζ(ITEM_COUNT = 10^10, 0.99)
  // (YCSB 0.17.0's jar; ZipfianGenerator draws over ITEM_COUNT + 1 items, a term of 1e-10 more).
  CHECK(std::abs(zipf_zeta(10'000'000'000ull, 0.99) - 26.46902820178302) < 1e-9);
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
  // The insert proportion as written, not its share of the proportions' sum (1.5 here).
  c.read_proportion = 1;
  c.insert_proportion = 0.5;
  CHECK(c.zipfian_item_count() == 1000 + 10'000 + 1);
}

}  // namespace
}  // namespace flashpq::test_ycsb
