// experiments/import/cachebench_report.cpp — see cachebench_report.h.
#include "experiments/import/cachebench_report.h"

#include <fmt/format.h>

#include <cstdlib>
#include <string>

namespace flashpq {

namespace {

double num(const StoredRow& row, const char* name) {
  const std::string& text = row.field(name);
  if (text.empty()) return 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  return end == text.c_str() ? 0 : v;
}

bool has(const StoredRow& row, const char* name) {
  return !row.field(name).empty();
}

// navy-spec.md §8.4.
double pct(double a, double b) {
  return b == 0 ? 0 : 100 * a / b;
}

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// folly::sformat's "{:,}": digits grouped by three with commas (CacheStats.h formats every count
// so).
std::string grouped(uint64_t v) {
  const std::string digits = std::to_string(v);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace

std::string render_cachebench_report(const StoredRow& row) {
  std::string out = "== Test Results ==\n== Allocator Stats ==\n";
  if (has(row, "error")) {
    out += fmt::format("cell {} failed: {}\n", row.field("cell"), row.field("error"));
    return out;
  }
  const double gets = num(row, "get_requests");
  const double hits = num(row, "hits");
  const bool tiered = has(row, "dram_hits");
  const double dram_hits = tiered ? num(row, "dram_hits") : 0;
  const double nvm_gets = gets - dram_hits;
  const double nvm_hits = tiered ? num(row, "flash_hits") : hits;
  const auto count = [&](const char* name) { return static_cast<uint64_t>(num(row, name)); };

  out += "Items in RAM  : n/a\n";
  out += fmt::format("Items in NVM  : {}\n", grouped(count("cached_objects")));
  out += "Alloc Attempts: n/a\nEvict Attempts: n/a\nRAM Evictions : n/a\n";
  if (gets > 0) {
    out += fmt::format("Cache Gets    : {}\n", grouped(static_cast<uint64_t>(gets)));
    out += fmt::format("Hit Ratio     : {:6.2f}%\n", pct(hits, gets));
  }
  const double physical = num(row, "host_bytes_written");
  const double logical = num(row, "miss_bytes_inserted");
  const double nand = num(row, "nand_bytes_written");
  out += fmt::format("RAM Hit Ratio : {:6.2f}%\n", pct(dram_hits, gets));
  out += fmt::format("NVM Hit Ratio : {:6.2f}%\n", pct(nvm_hits, nvm_gets));
  // FlashPQ's objects have no TTL: no DRAM victim is rejected for expiry.
  out += "RAM eviction rejects expiry : 0\nRAM eviction rejects clean : n/a\n";
  out += fmt::format("NVM bytes written (physical)  : {:6.2f} GB\n", physical / kGiB);
  out += fmt::format("NVM bytes written (logical)   : {:6.2f} GB\n", logical / kGiB);
  if (has(row, "nand_bytes_written")) {
    out += fmt::format("NVM bytes written (nand)      : {:6.2f} GB\n", nand / kGiB);
  } else {
    out += "NVM bytes written (nand)      :    n/a\n";
  }
  out += fmt::format("NVM app write amplification   : {:6.2f}\n",
                     logical == 0 ? 0.0 : physical / logical);
  if (has(row, "wa_ftl")) {
    out += fmt::format("NVM dev write amplification   : {:6.2f}\n", num(row, "wa_ftl"));
  } else {
    out += "NVM dev write amplification   :    n/a\n";
  }
  // §8.3's formats; "n/a" in the fields FlashPQ does not model.
  out += fmt::format("{:14}: {:>15}, {:10}: {:6.2f}%\n", "NVM Gets",
                     grouped(static_cast<uint64_t>(nvm_gets)), "Coalesced", 0.0);
  if (tiered) {
    out += fmt::format("{:14}: {:>15}, {:10}: {:6.2f}%, {:8}: {:>7}, {:16}: {:>8}, {:16}: {:>8}\n",
                       "NVM Puts", grouped(count("flash_admission_accepts")), "Success", 100.0,
                       "Clean", "n/a", "AbortsFromDel", "n/a", "AbortsFromGet", "n/a");
  }
  out +=
      fmt::format("{:14}: {:>15}, {:10}: {:>7}, {:8}: {:>7}, {:16}: {:>8}\n", "NVM Evicts",
                  grouped(count("evictions")), "Clean", "n/a", "Unclean", "n/a", "Double", "n/a");
  out += fmt::format("{:14}: {:>15} {:14}: {:>7}\n", "NVM Deletes",
                     grouped(count("delete_requests")), "Skipped Deletes", "n/a");

  out += "\n== Throughput Stats ==\n";
  out += fmt::format("{:10}: {:.2f} million\n", "Total Ops", num(row, "requests") / 1e6);
  out += fmt::format("{:10}: {}\n", "Total sets", count("set_requests"));
  const double seconds = num(row, "sim_seconds");
  const auto rate = [&](const char* name) -> std::string {
    if (seconds <= 0) return "n/a";
    return fmt::format("{:.0f}", num(row, name) / seconds);
  };
  out += fmt::format("{:10}: {:>9}/s, {:10}: {:6.2f}%\n", "get", rate("get_requests"), "success",
                     pct(hits, gets));
  out += fmt::format("{:10}: {:>9}/s, {:10}: {:6.2f}%\n", "set", rate("set_requests"), "success",
                     100.0);
  out +=
      fmt::format("{:10}: {:>9}/s, {:10}: {:>7}\n", "del", rate("delete_requests"), "found", "n/a");
  return out;
}

}  // namespace flashpq
