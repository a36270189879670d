// tests/policies/test_libcachesim.cpp — every policy that libCacheSim also has, against the miss
// ratios libCacheSim's cachesim printed on the shared traces (tests/data/libcachesim/
// reference.csv: commit, commands and patch in its header), and the table of
// docs/guide/policies.md "Against libCacheSim" checked figure by figure: FlashPQ's figures
// recomputed here, libCacheSim's read from the reference file. Where the definitions agree the
// two are equal within 1e-4; the rows where they differ are listed in kKnownDifferences with the
// bound the guide states. With FLASHPQ_UPDATE_DOCS=1 the test rewrites the guide's table instead
// of comparing it.
//
// And the offline bounds on the same traces: on unit sizes Belady's MIN is the optimum, so no
// policy's object miss ratio is below it; PFOO-L's miss ratio is at most Belady's, sized too.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "devices/null_device.h"
#include "engine/cache.h"
#include "engine/exact/exact_framework.h"
#include "policies/registry.h"
#include "tests/policies/owning_test_util.h"
#include "tests/test_util.h"
#include "traces/next_access.h"

#ifdef FLASHPQ_SHARED_TRACES

namespace flashpq::test_libcachesim {
namespace {

struct ReferenceRow {
  std::string trace;
  bool unit = false;
  std::string policy;
  double fraction = 0;
  uint64_t cache_size = 0;
  double object_miss = 0, byte_miss = 0;
};

std::vector<ReferenceRow> read_reference() {
  std::ifstream in(FLASHPQ_SOURCE_DIR "/tests/data/libcachesim/reference.csv");
  REQUIRE(in.good());
  std::vector<ReferenceRow> rows;
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (header) {
      REQUIRE(line ==
              "trace,unit_size,policy,fraction,cache_size,object_miss_ratio,"
              "byte_miss_ratio");
      header = false;
      continue;
    }
    std::stringstream s(line);
    std::string f[7];
    for (auto& x : f) std::getline(s, x, ',');
    rows.push_back({f[0], f[1] == "1", f[2], std::stod(f[3]), std::stoull(f[4]), std::stod(f[5]),
                    std::stod(f[6])});
  }
  return rows;
}

std::string trace_path(const std::string& name) {
  if (name == "cloudPhysicsIO") {
    return FLASHPQ_SHARED_TRACES "/libcachesim/cloudPhysicsIO.oracleGeneral.bin";
  }
  if (name == "w106") return FLASHPQ_SHARED_TRACES "/converted/w106.oracleGeneral.zst";
  REQUIRE(name == "adaptsize");
  return FLASHPQ_SHARED_TRACES "/converted/adaptsize-request.oracleGeneral.zst";
}

// The next-access file of a loaded trace, written once per trace and test run.
const std::string& future_of(const std::string& name, const std::vector<Request>& trace) {
  static testing::TempDir dir;
  static std::map<std::string, std::string> files;
  std::string stem = name;
  std::replace(stem.begin(), stem.end(), '/', '_');
  auto [it, fresh] = files.try_emplace(name, dir.file(stem + ".flashpq-next-access"));
  if (fresh) testing::write_future(trace, it->second);
  return it->second;
}

// The policy registered as `name` on the exact framework (framework.name exact, device null,
// no admission), as a cell builds it, replayed over `trace`.
testing::MissRatios run_policy(PolicyConfig pc, const std::string& trace_name,
                               const std::vector<Request>& trace, uint64_t capacity, bool unit) {
  const std::string name = pc.name;
  if (policy_reads_next_access(name)) pc.next_access_file = future_of(trace_name, trace);
  CacheConfig cc;
  cc.capacity_bytes = capacity;
  cc.unit_size = unit;
  const FrameworkConfig fc;
  NullDevice device;
  testing::MissRatios out;
  if (is_owning_policy(name)) {
    with_owning_policy(pc, [&](auto p) {
      using P = decltype(p);
      Cache<P, ExactFramework::Queue<P>> c(cc, fc, std::move(p), device);
      out = testing::replay_miss_ratios(c, trace);
    });
  } else if (is_cache_policy(name)) {
    with_cache_policy(pc, cc, AdmissionConfig{}, 1,
                      [&](auto& c) { out = testing::replay_miss_ratios(c, trace); });
  } else {
    with_policy(pc, [&](auto p) {
      using P = decltype(p);
      Cache<P, ExactFramework::Queue<P>> c(cc, fc, std::move(p), device);
      out = testing::replay_miss_ratios(c, trace);
    });
  }
  return out;
}

testing::MissRatios run_policy(const std::string& name, const std::string& trace_name,
                               const std::vector<Request>& trace, uint64_t capacity, bool unit) {
  PolicyConfig pc;
  pc.name = name;
  return run_policy(pc, trace_name, trace, capacity, unit);
}

// The FlashPQ policy a libCacheSim policy is compared with: the same name, but for LFU-DA,
// whose libCacheSim version (LFUDA.c) is another algorithm than Arlitt et al.'s: libCacheSim's
// lfuda against `lfuda` with `policy.lfuda_aging: libcachesim`, and libCacheSim's gdsf with unit
// sizes (the paper's LFU-DA) against `lfuda` as the paper defines it (the default).
struct Counterpart {
  std::string label;
  PolicyConfig config;
};
Counterpart counterpart(const std::string& reference_policy) {
  Counterpart c;
  c.config.name = reference_policy;
  c.label = "`" + reference_policy + "`";
  if (reference_policy == "lfuda") {
    c.config.params.set("policy.lfuda_aging", "libcachesim");
    c.label = "`lfuda`, `lfuda_aging: libcachesim`";
  } else if (reference_policy == "gdsf") {
    c.config.name = "lfuda";
    c.label = "`lfuda` (against libCacheSim's `gdsf`)";
  }
  return c;
}

// Rows where FlashPQ's definition differs from libCacheSim's (docs/guide/policies.md "Against
// libCacheSim" says why): (trace, unit, policy, fraction) and the largest difference allowed,
// object and byte, which the guide states: LIRS on adaptsize with sizes, where a returning
// non-resident block takes the request's size here and keeps its old size in libCacheSim
// (policies/lirs.h; measured: 1.6e-4 / 1.5e-4, 5.9e-5 / 5.7e-4, 2.7e-4 / 2.4e-4, 4.6e-4 / 5.0e-4).
struct KnownDifference {
  std::string trace;
  bool unit;
  std::string policy;
  double fraction;
  double object_bound, byte_bound;
};
const std::vector<KnownDifference> kKnownDifferences = {
    {"adaptsize", false, "lirs", 0.01, 1e-3, 1e-3},
    {"adaptsize", false, "lirs", 0.05, 1e-3, 1e-3},
    {"adaptsize", false, "lirs", 0.1, 1e-3, 1e-3},
    {"adaptsize", false, "lirs", 0.2, 1e-3, 1e-3}};

const KnownDifference* known_difference(const ReferenceRow& r) {
  for (const KnownDifference& k : kKnownDifferences) {
    if (k.trace == r.trace && k.unit == r.unit && k.policy == r.policy &&
        std::abs(k.fraction - r.fraction) < 1e-9) {
      return &k;
    }
  }
  return nullptr;
}

std::string fixed6(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.6f", x);
  return b;
}

// The guide's table: a row per trace, size mode and policy, a column per fraction, FlashPQ's
// object (and, sized, byte) miss ratio; a cell that differs from libCacheSim by more than 1e-4
// is marked with a footnote giving libCacheSim's figure.
struct Figure {
  ReferenceRow ref;
  testing::MissRatios ours;
};

std::string render_table(const std::vector<Figure>& figures) {
  std::ostringstream t, notes;
  t << "| trace | sizes | policy | 0.01 | 0.05 | 0.1 | 0.2 |\n"
       "| --- | --- | --- | --- | --- | --- | --- |\n";
  std::string row_key;
  int note = 0;
  for (const Figure& f : figures) {
    const std::string key = f.ref.trace + (f.ref.unit ? "1" : "0") + f.ref.policy;
    if (key != row_key) {
      if (!row_key.empty()) t << "\n";
      t << "| " << f.ref.trace << " | " << (f.ref.unit ? "unit" : "sized") << " | "
        << counterpart(f.ref.policy).label << " |";
      row_key = key;
    }
    t << " " << fixed6(f.ours.object);
    if (!f.ref.unit) t << " / " << fixed6(f.ours.byte);
    const bool differs = std::abs(f.ours.object - f.ref.object_miss) > 1e-4 ||
                         (!f.ref.unit && std::abs(f.ours.byte - f.ref.byte_miss) > 1e-4);
    if (differs) {
      ++note;
      t << " [" << note << "]";
      notes << "[" << note << "] libCacheSim " << fixed6(f.ref.object_miss);
      if (!f.ref.unit) notes << " / " << fixed6(f.ref.byte_miss);
      notes << " (" << f.ref.trace << ", " << f.ref.policy << ", " << f.ref.fraction << ").\n";
    }
    t << " |";
  }
  t << "\n";
  if (note != 0) t << "\n" << notes.str();
  return t.str();
}

const char* const kBegin =
    "<!-- libcachesim-table: begin (tests/policies/test_libcachesim.cpp) -->\n";
const char* const kEnd = "<!-- libcachesim-table: end -->";

TEST_CASE("every policy against libCacheSim on the shared traces, and the guide's table",
          "[policies][libcachesim][slow]") {
  const std::vector<ReferenceRow> rows = read_reference();
  REQUIRE(rows.size() >= 200);
  std::vector<Figure> figures;
  for (const ReferenceRow& r : rows) {
    const auto& trace = testing::load_trace(trace_path(r.trace));
    const uint64_t capacity = static_cast<uint64_t>(
        r.fraction * static_cast<double>(testing::libcachesim_working_set(trace, r.unit)));
    INFO(r.trace << (r.unit ? " unit" : " sized") << " " << r.policy << " " << r.fraction);
    REQUIRE(capacity == r.cache_size);  // cachesim's own cache size
    const testing::MissRatios ours =
        run_policy(counterpart(r.policy).config, r.trace, trace, capacity, r.unit);
    figures.push_back({r, ours});
    const KnownDifference* k = known_difference(r);
    const double object_bound = k ? k->object_bound : 1e-4;
    const double byte_bound = k ? k->byte_bound : 1e-4;
    CHECK(std::abs(ours.object - r.object_miss) <= object_bound);
    if (!r.unit) CHECK(std::abs(ours.byte - r.byte_miss) <= byte_bound);
  }
  // The guide's table is exactly these figures.
  const std::string path = FLASHPQ_SOURCE_DIR "/docs/guide/policies.md";
  std::string doc = testing::slurp(path);
  const size_t b = doc.find(kBegin), e = doc.find(kEnd);
  REQUIRE(b != std::string::npos);
  REQUIRE(e != std::string::npos);
  const std::string table = render_table(figures);
  if (std::getenv("FLASHPQ_UPDATE_DOCS") != nullptr) {
    doc = doc.substr(0, b + std::strlen(kBegin)) + table + doc.substr(e);
    std::ofstream(path) << doc;
  }
  CHECK(doc.substr(b + std::strlen(kBegin), e - b - std::strlen(kBegin)) == table);
}

TEST_CASE("the offline bounds hold on every shared trace and size", "[policies][belady][slow]") {
  const std::vector<std::string> policies = [] {
    std::vector<std::string> v;
    for (const std::string& p : policy_names()) {
      if (p != "belady" && p != "pfoo_l") v.push_back(p);
    }
    return v;
  }();
  for (const auto& [name, unit] :
       std::vector<std::pair<std::string, bool>>{{"cloudPhysicsIO", true},
                                                 {"cloudPhysicsIO", false},
                                                 {"w106", true},
                                                 {"adaptsize", true},
                                                 {"adaptsize", false}}) {
    const auto& trace = testing::load_trace(trace_path(name));
    const uint64_t wss = testing::libcachesim_working_set(trace, unit);
    for (const double fraction : {0.01, 0.05, 0.1, 0.2}) {
      const auto capacity = static_cast<uint64_t>(fraction * static_cast<double>(wss));
      const testing::MissRatios belady = run_policy("belady", name, trace, capacity, unit);
      const testing::MissRatios pfoo = run_policy("pfoo_l", name, trace, capacity, unit);
      INFO(name << (unit ? " unit " : " sized ") << fraction);
      CHECK(pfoo.object <= belady.object);
      if (!unit) continue;  // with sizes MIN is no optimum: PFOO-L bounds it from below
      for (const std::string& p : policies) {
        INFO(p);
        CHECK(run_policy(p, name, trace, capacity, unit).object >= belady.object);
      }
    }
  }
}

// The CacheLib samples of the shared traces (key-value and block, a few hundred requests each):
// PFOO-L's miss ratio at most every policy's and MIN's; with unit sizes on gets alone, MIN's at
// most every policy's (a set inserts whatever the policy, so with sets MIN is no optimum).
TEST_CASE("the offline bounds hold on the CacheLib samples of the shared traces",
          "[policies][belady]") {
  const std::vector<std::string> policies = [] {
    std::vector<std::string> v;
    for (const std::string& p : policy_names()) {
      if (p != "belady" && p != "pfoo_l") v.push_back(p);
    }
    return v;
  }();
  for (const auto& [file, format] : std::vector<std::pair<std::string, std::string>>{
           {"cachelib/kvcache/kv_traces_1.csv", "kvcache_csv"},
           {"cachelib/kvcache/kv_traces_2.csv", "kvcache_csv"},
           {"cachelib/block_chunk/block_traces_1.csv", "cachelib_block"},
           {"cachelib/block_chunk/block_traces_2.csv", "cachelib_block"}}) {
    std::vector<Request> trace;
    {
      auto reader = open_trace(trace_file(FLASHPQ_SHARED_TRACES "/" + file, format));
      std::vector<Request> batch(4096);
      for (size_t n; (n = reader->read(batch)) != 0;) {
        trace.insert(trace.end(), batch.begin(), batch.begin() + static_cast<std::ptrdiff_t>(n));
      }
    }
    REQUIRE(trace.size() > 300);
    const bool gets_only =
        std::all_of(trace.begin(), trace.end(), [](const Request& r) { return r.op == Op::kGet; });
    for (const bool unit : {true, false}) {
      const uint64_t wss = testing::libcachesim_working_set(trace, unit);
      for (const double fraction : {0.1, 0.2, 0.5}) {
        const auto capacity =
            std::max<uint64_t>(1, static_cast<uint64_t>(fraction * static_cast<double>(wss)));
        const testing::MissRatios belady = run_policy("belady", file, trace, capacity, unit);
        const testing::MissRatios pfoo = run_policy("pfoo_l", file, trace, capacity, unit);
        INFO(file << (unit ? " unit " : " sized ") << fraction);
        CHECK(pfoo.object <= belady.object);
        for (const std::string& p : policies) {
          INFO(p);
          const double miss = run_policy(p, file, trace, capacity, unit).object;
          CHECK(pfoo.object <= miss);
          if (unit && gets_only) CHECK(belady.object <= miss);
        }
      }
    }
  }
}

}  // namespace
}  // namespace flashpq::test_libcachesim

#endif  // FLASHPQ_SHARED_TRACES
