// tests/experiments/test_quickstart.cpp — the quickstart matrix (experiments/quickstart.yaml, the
// README's `make demo`) is a configuration a reviewer would accept and its rows keep the
// invariants its figure relies on:
//   * every cell runs, with no note (no configuration warning);
//   * RIPQ and SIPQ caches hold at least 256 device blocks (B = C/256 rounded down to the page);
//   * the simflash device is sized for the cache: it exports at least the cache's device blocks
//     and less than one superblock's exported share more;
//   * RIPQ and SIPQ object-wise hit ratios within 0.005 (half a point) of the exact queue's for
//     FIFO and LRU (the fidelity the RIPQ paper's Figure 8a shows for them);
//   * implementation WA and FTL WA >= 1, combined WA their product (RIPQ paper Figure 8b), and
//     no WA for the exact queue, which keeps objects in DRAM.
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "experiments/experiment.h"
#include "experiments/run/cell_runner.h"
#include "tests/test_util.h"
#include "traces/trace_summary.h"

namespace flashpq::test_quickstart {
namespace {

// A row's fields; a column the row does not carry reads as "" (tests/test_util.h).
using RowMap = testing::RowFields;

double num(const RowMap& r, const std::string& k) {
  INFO("column " << k);
  REQUIRE(!r.at(k).empty());
  return std::stod(r.at(k));
}

TEST_CASE("the quickstart matrix: sized for flash, no warnings, fidelity and WA invariants",
          "[experiments][quickstart]") {
  const Experiment ex = load_experiment(FLASHPQ_SOURCE_DIR "/experiments/quickstart.yaml", {});
  REQUIRE(ex.cells.size() == 4 * 5 * 3);  // policies × cache sizes × frameworks
  const TraceSummary summary = summarize_trace(ex.cells.front().trace);
  std::vector<RowMap> rows;
  for (const CellConfig& c : ex.cells) {
    RowMap m;
    for (const Column& col : run_cell(c, summary)) m[col.name] = col.text;
    rows.push_back(std::move(m));
  }
  // The exact hit ratio of each (policy, cache size).
  std::map<std::pair<std::string, std::string>, double> exact;
  for (const RowMap& r : rows) {
    if (r.at("framework.name") == "exact") {
      exact[{r.at("policy.name"), r.at("cache.capacity")}] = num(r, "object_hit_ratio");
    }
  }
  REQUIRE(exact.size() == 20);
  constexpr double kSuperblockExported = 0.9 * 256 * 1024;  // tiny: 4 lanes × 16 pages × 4 KiB
  for (const RowMap& r : rows) {
    const std::string fw = r.at("framework.name"), policy = r.at("policy.name");
    INFO("cell " << r.at("cell") << ": " << policy << " " << fw << " at "
                 << r.at("cache.capacity"));
    CHECK(r.at("error").empty());
    CHECK(r.at("notes").empty());
    CHECK(r.at("device.name") == "simflash");
    const double capacity = num(r, "cache_capacity_bytes");
    const double exported = num(r, "device_exported_bytes");
    if (fw == "exact") {
      CHECK(r.at("wa_implementation").empty());
      CHECK(r.at("block_size_bytes").empty());
      CHECK(exported >= capacity);
      CHECK(exported < capacity + kSuperblockExported);
      continue;
    }
    const double block = num(r, "block_size_bytes");
    const double blocks = std::floor(capacity / block);
    CHECK(blocks >= 256);
    CHECK(std::fmod(block, 4096) == 0);
    CHECK(exported >= blocks * block);
    CHECK(exported < blocks * block + kSuperblockExported);
    const double hr = num(r, "object_hit_ratio");
    if (policy == "fifo" || policy == "lru") {
      CHECK(std::abs(hr - exact.at({policy, r.at("cache.capacity")})) <= 0.005);
    }
    const double impl = num(r, "wa_implementation"), ftl = num(r, "wa_ftl");
    CHECK(impl >= 1.0);
    CHECK(ftl >= 1.0);
    CHECK(num(r, "wa_combined") == Approx(impl * ftl).epsilon(1e-12));
  }
}

}  // namespace
}  // namespace flashpq::test_quickstart
