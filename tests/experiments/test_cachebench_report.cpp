// Tests of experiments/import/cachebench_report.h: a hand-made row rendered line by line in
// CacheBench's formats (docs/reference/navy-spec.md §8), the percentages computed by hand.
#include <catch2/catch.hpp>
#include <string>

#include "experiments/import/cachebench_report.h"

namespace flashpq::test_cachebench_report {
namespace {

using Catch::Matchers::Contains;

StoredRow row(std::map<std::string, std::string> fields) {
  StoredRow r;
  r.fields = std::move(fields);
  return r;
}

TEST_CASE("cachebench report: a hierarchy's row in CacheBench's lines", "[cachebench]") {
  const std::string gib = std::to_string(1ull << 30);
  const std::string out = render_cachebench_report(row({
      {"cell", "3"},
      {"requests", "2500000"},
      {"get_requests", "1000"},
      {"set_requests", "195"},
      {"delete_requests", "5"},
      {"hits", "600"},
      {"dram_hits", "400"},
      {"flash_hits", "200"},
      {"cached_objects", "12345"},
      {"host_bytes_written", std::to_string(2ull << 30)},
      {"miss_bytes_inserted", gib},
      {"nand_bytes_written", std::to_string(3ull << 30)},
      {"wa_ftl", "1.5"},
      {"flash_admission_accepts", "70"},
      {"evictions", "20000"},
      {"sim_seconds", "2"},
  }));
  INFO(out);
  CHECK_THAT(out, Contains("== Test Results ==\n== Allocator Stats ==\n"));
  // Counts grouped by three with commas, as folly's "{:,}" in CacheStats.h.
  CHECK_THAT(out, Contains("Items in NVM  : 12,345\n"));
  CHECK_THAT(out, Contains("Cache Gets    : 1,000\nHit Ratio     :  60.00%\n"));
  CHECK_THAT(out, Contains("RAM Hit Ratio :  40.00%\nNVM Hit Ratio :  33.33%\n"  // 200 / 600
                           "RAM eviction rejects expiry : 0\nRAM eviction rejects clean : n/a\n"));
  CHECK_THAT(out, Contains("NVM bytes written (physical)  :   2.00 GB\n"
                           "NVM bytes written (logical)   :   1.00 GB\n"
                           "NVM bytes written (nand)      :   3.00 GB\n"
                           "NVM app write amplification   :   2.00\n"
                           "NVM dev write amplification   :   1.50\n"));
  CHECK_THAT(out, Contains("NVM Gets      :             600, Coalesced :   0.00%\n"));
  CHECK_THAT(out, Contains("NVM Puts      :              70, Success   : 100.00%, Clean   :     "
                           "n/a, AbortsFromDel   :      n/a, AbortsFromGet   :      n/a\n"));
  CHECK_THAT(out, Contains("NVM Evicts    :          20,000, Clean     :     n/a"));
  CHECK_THAT(out, Contains("NVM Deletes   :               5 Skipped Deletes:     n/a\n"));
  CHECK_THAT(out, Contains("== Throughput Stats ==\nTotal Ops : 2.50 million\nTotal sets: 195\n"));
  CHECK_THAT(out, Contains("get       :       500/s, success   :  60.00%\n"));  // 1000 / 2 s
  CHECK_THAT(out, Contains("set       :        98/s, success   : 100.00%\n"));  // 97.5, rounded
}

TEST_CASE("cachebench report: a flat cache, a functional cell, a failed cell", "[cachebench]") {
  const std::string flat = render_cachebench_report(
      row({{"get_requests", "200"}, {"hits", "50"}, {"requests", "300"}, {"evictions", "7"}}));
  INFO(flat);
  CHECK_THAT(flat, Contains("Hit Ratio     :  25.00%\n"));
  CHECK_THAT(flat, Contains("RAM Hit Ratio :   0.00%\nNVM Hit Ratio :  25.00%\n"));
  CHECK_THAT(flat, Contains("NVM Gets      :             200,"));
  CHECK_THAT(flat, !Contains("NVM Puts"));  // counted only for a hierarchy's admissions
  CHECK_THAT(flat, Contains("NVM dev write amplification   :    n/a\n"));
  CHECK_THAT(flat, Contains("get       :       n/a/s"));  // no time of its own
  const std::string failed =
      render_cachebench_report(row({{"cell", "2"}, {"error", "device too small"}}));
  CHECK_THAT(failed, Contains("cell 2 failed: device too small\n"));
  CHECK_THAT(failed, !Contains("Hit Ratio"));
}

}  // namespace
}  // namespace flashpq::test_cachebench_report
