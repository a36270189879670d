// tests/devices/test_simflash.cpp — simflash: configuration and profiles, the FTL on hand-computed
// sequences, TRIM, counters and erase counts, the device seam, and (tag [slow]) validation of
// write amplification against the analytic models of uniform random writes:
//   fifo      Desnoyers, "Analytic modeling of SSD write performance", SYSTOR'12, Eq. 4:
//             WA = α / (α + W0(−α e^{−α})), α = 1/ρ, W0 the principal branch of Lambert W.
//   greedy    the mean-field fixed point of Van Houdt, "A mean field model for a class of
//             garbage collection algorithms in flash-based solid state drives", SIGMETRICS'13,
//             as d → ∞ (derived below), checked against Desnoyers' Eq. 12,
//             A_greedy ≈ A_fifo(kα)/k with k = 1 + 1/(2b).
//   random    d_choices with d = 1: WA = 1/(1 − ρ) (the victim holds the mean valid fraction).
// ρ = user pages ÷ physical pages in circulation, i.e. programmed since their last erase: the
// erased pages — the free superblocks GC keeps in reserve between its watermarks, and the
// unwritten tails of the open frontiers — are measured (mean over the measurement) and taken
// out of the physical pages. That is the T of Desnoyers' derivation: the pages written between
// a page's write and its block's erase.
#include <algorithm>
#include <boost/math/special_functions/lambert_w.hpp>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "devices/device.h"
#include "devices/simflash/ftl.h"
#include "devices/simflash/simflash_config.h"
#include "devices/simflash/simflash_device.h"
#include "tests/devices/flash_models.h"

namespace flashpq::test_simflash {
namespace {

using Catch::Contains;
using flash_models::Mix;
using flash_models::wa_greedy_meanfield;

// ---------------------------------------------------------------------------------------------
// Analytic models.

/// Principal branch W0 of Lambert W (w e^w = x), x ≥ −1/e: Boost.Math's lambert_w0
/// (Corless, Gonnet, Hare, Jeffrey, Knuth, "On the Lambert W function", 1996).
double lambert_w0(double x) {
  return boost::math::lambert_w0(x);
}

/// Desnoyers SYSTOR'12 Eq. 4: FIFO (LRW) victims, uniform random single-page writes.
double wa_fifo(double rho) {
  const double a = 1.0 / rho;
  return a / (a + lambert_w0(-a * std::exp(-a)));
}

/// Desnoyers SYSTOR'12 Eq. 12: greedy with b pages per block.
double wa_greedy_desnoyers(double rho, uint32_t b) {
  const double k = 1.0 + 1.0 / (2.0 * b);
  return wa_fifo(rho / k) / k;
}

/// d_choices with d = 1 (random victim).
double wa_random(double rho) {
  return 1.0 / (1.0 - rho);
}

double rel_err(double measured, double model) {
  return measured / model - 1.0;
}

// ---------------------------------------------------------------------------------------------
// Workload helpers.

SimFlashConfig geometry(uint32_t ch, uint32_t dies, uint32_t planes, uint32_t blocks,
                        uint32_t pages) {
  SimFlashConfig c;
  c.channels = ch;
  c.dies_per_channel = dies;
  c.planes_per_die = planes;
  c.blocks_per_plane = blocks;
  c.pages_per_block = pages;
  c.page_size_bytes = 4096;
  return c;
}

struct WaResult {
  double wa = 0;           // measured NAND ÷ host pages
  double rho = 0;          // user pages ÷ physical pages in circulation
  double mean_free = 0;    // free superblocks, mean over the measurement
  double mean_erased = 0;  // erased, unwritten pages in superblocks, mean over the measurement
  FtlCounters delta;
};

/// Uniform random writes (Ftl::write_extent, as the device issues them) of `chunk` pages
/// aligned to `chunk` over the first `user` logical pages: sequential fill, `warm` × user random
/// host pages of warm-up, then `measure` × user measured. REQUIRES: user a multiple of chunk, ≤
/// exported pages.
WaResult run_random(Ftl& ftl, uint64_t user, uint32_t chunk, double warm, double measure,
                    uint64_t seed) {
  Mix rng{seed};
  for (uint64_t p = 0; p < user; ++p) ftl.write(p);
  const uint64_t chunks = user / chunk;
  const uint64_t warm_writes = uint64_t(warm * double(chunks));
  for (uint64_t i = 0; i < warm_writes; ++i) {
    const uint64_t base = rng.below(chunks) * chunk;
    ftl.write_extent(base, chunk);
  }
  const FtlCounters before = ftl.counters();
  const uint64_t writes = uint64_t(measure * double(chunks));
  double free_sum = 0, erased_sum = 0;
  for (uint64_t i = 0; i < writes; ++i) {
    const uint64_t base = rng.below(chunks) * chunk;
    ftl.write_extent(base, chunk);
    free_sum += ftl.free_superblocks();
    erased_sum += double(ftl.erased_pages());
  }
  WaResult r;
  r.delta = ftl.counters() - before;
  r.wa = r.delta.wa_ftl();
  r.mean_free = free_sum / double(writes);
  r.mean_erased = erased_sum / double(writes) / ftl.pages_per_superblock();
  r.rho = double(user) / (double(ftl.physical_pages()) - erased_sum / double(writes));
  return r;
}

// ---------------------------------------------------------------------------------------------
// Lambert W and the models themselves.

TEST_CASE("lambert_w0 matches known values and inverts w e^w", "[simflash]") {
  const double e = std::exp(1.0);
  CHECK(lambert_w0(-1.0 / e) == Approx(-1.0).margin(1e-7));
  CHECK(lambert_w0(0.0) == 0.0);
  CHECK(lambert_w0(e) == Approx(1.0).epsilon(1e-14));
  CHECK(lambert_w0(1.0) == Approx(0.56714329040978387).epsilon(1e-14));  // the omega constant
  CHECK(lambert_w0(2.0 * e * e) == Approx(2.0).epsilon(1e-14));
  CHECK(lambert_w0(-std::log(2.0) / 2.0) == Approx(-std::log(2.0)).epsilon(1e-13));
  CHECK(lambert_w0(1e6) == Approx(11.383358086140053).epsilon(1e-13));
  for (double x : {-0.36, -0.3, -0.2, -0.05, -1e-9, 1e-9, 0.3, 5.0, 100.0}) {
    const double w = lambert_w0(x);
    CHECK(w >= -1.0);
    CHECK(w * std::exp(w) == Approx(x).epsilon(1e-12).margin(1e-18));
  }
  CHECK_THROWS_AS(lambert_w0(-0.5), std::domain_error);
}

TEST_CASE("write-amplification models: limits and the greedy cross-check", "[simflash]") {
  // Desnoyers Eq. 4 at ρ → 0 and known points; greedy ≤ fifo ≤ random.
  CHECK(wa_fifo(0.01) == Approx(1.0).margin(1e-6));
  CHECK(wa_fifo(0.8) == Approx(2.6927308).epsilon(1e-6));
  for (double rho : {0.5, 0.6, 0.7, 0.8, 0.9, 0.95}) {
    // Solution of A (1 − e^{−α/A}) = 1 (a block's pages survive T/A host writes).
    const double a = wa_fifo(rho);
    CHECK(a * (1.0 - std::exp(-1.0 / (rho * a))) == Approx(1.0).epsilon(1e-12));
    for (uint32_t b : {64u, 256u}) {
      const double mf = wa_greedy_meanfield(rho, b);
      const double d12 = wa_greedy_desnoyers(rho, b);
      INFO("rho " << rho << " b " << b << " mean-field " << mf << " Eq.12 " << d12);
      CHECK(std::abs(rel_err(d12, mf)) < 0.005);  // the claim: within 0.5 %
      CHECK(mf < a);
      CHECK(a < wa_random(rho));
    }
  }
  // Greedy WA grows with b towards fifo; b = 1 never copies.
  CHECK(wa_greedy_meanfield(0.9, 1) == 1.0);
  double prev = 1.0;
  for (uint32_t b : {2u, 4u, 16u, 64u, 256u, 1024u}) {
    const double w = wa_greedy_meanfield(0.9, b);
    CHECK(w > prev);
    prev = w;
  }
  CHECK(prev < wa_fifo(0.9));
  CHECK(rel_err(wa_greedy_meanfield(0.9, 1 << 16), wa_fifo(0.9)) > -0.001);
}

// ---------------------------------------------------------------------------------------------
// Configuration and profiles.

TEST_CASE("SimFlashConfig defaults are the tiny profile and valid", "[simflash]") {
  SimFlashConfig c;
  REQUIRE_NOTHROW(c.validate());
  const SimFlashConfig t = simflash_profile("tiny");
  CHECK(t.channels == c.channels);
  CHECK(t.blocks_per_plane == c.blocks_per_plane);
  CHECK(c.erase_blocks_per_superblock() == 4);
  CHECK(c.pages_per_superblock() == 64);
  CHECK(c.superblock_bytes() == 256 * 1024);
  CHECK(c.physical_bytes() == 16u << 20);
  CHECK(c.exported_pages() == 3072);
  c.over_provisioning = 1.0;  // replaces utilization: ρ = 1/2
  CHECK(c.effective_utilization() == 0.5);
  CHECK(c.exported_pages() == 2048);
}

TEST_CASE("every profile validates and has its documented geometry", "[simflash]") {
  const auto names = simflash_profile_names();
  CHECK(names == std::vector<std::string>{"tiny", "mqsim", "femu", "model_a"});
  for (const auto& n : names) {
    INFO(n);
    CHECK_NOTHROW(simflash_profile(n).validate());
  }
  const SimFlashConfig m = simflash_profile("mqsim");
  CHECK(m.physical_bytes() == 512ull << 30);
  CHECK(m.superblock_bytes() == 256u << 20);
  CHECK(m.effective_utilization() == 0.93);
  CHECK(m.gc_policy == GcPolicy::kDChoices);
  CHECK(m.gc_d == 11);
  CHECK(m.tPROG_us == 750.0);
  const SimFlashConfig f = simflash_profile("femu");
  CHECK(f.physical_bytes() == 16ull << 30);
  CHECK(f.exported_bytes() == 12ull << 30);
  CHECK(f.superblock_bytes() == 64u << 20);
  CHECK(f.gc_stream == GcStream::kShared);
  CHECK(f.tR_us == 40.0);
  const SimFlashConfig a = simflash_profile("model_a");
  CHECK(a.superblock_bytes() == 256u << 20);
  CHECK(a.effective_utilization() == 0.9);
  CHECK(double(a.exported_bytes()) / double(670ull << 30) == Approx(1.0).margin(0.001));
  CHECK(a.peak_write_mib_s() == Approx(590.0).margin(1.0));
  CHECK_THROWS_WITH(simflash_profile("ssd9000"),
                    Contains("ssd9000") && Contains("tiny, mqsim, femu, model_a"));
}

TEST_CASE("SimFlashConfig::validate rejects bad values, quoting them", "[simflash]") {
  auto bad = [](auto mutate, const char* key, const char* value) {
    SimFlashConfig c;
    mutate(c);
    INFO(key);
    CHECK_THROWS_AS(c.validate(), std::invalid_argument);
    CHECK_THROWS_WITH(c.validate(), Contains(key) && Contains(value));
  };
  bad([](SimFlashConfig& c) { c.channels = 0; }, "channels", "0");
  bad([](SimFlashConfig& c) { c.pages_per_block = 70000; }, "pages_per_block", "70000");
  bad([](SimFlashConfig& c) { c.page_size_bytes = 3000; }, "page_size", "3000");
  bad([](SimFlashConfig& c) { c.blocks_per_plane = 1; }, "blocks_per_plane", "1");
  bad([](SimFlashConfig& c) { c.utilization = 1.0; }, "utilization", "1");
  bad([](SimFlashConfig& c) { c.utilization = 0.0; }, "utilization", "0");
  bad([](SimFlashConfig& c) { c.utilization = std::nan(""); }, "utilization", "nan");
  bad([](SimFlashConfig& c) { c.over_provisioning = -0.5; }, "over_provisioning", "-0.5");
  bad([](SimFlashConfig& c) { c.gc_d = 0; }, "gc_d", "0");
  bad([](SimFlashConfig& c) { c.tPROG_us = 0; }, "tPROG_us", "0");
  bad([](SimFlashConfig& c) { c.channel_bandwidth_mib_s = -1; }, "channel_bandwidth_mib_s", "-1");
  // More than 2^32 − 2 physical pages: the page map is 32-bit.
  bad(
      [](SimFlashConfig& c) {
        c.blocks_per_plane = 1 << 24;
        c.pages_per_block = 1024;
      },
      "blocks_per_plane", "68719476736");
  // Exported capacity below one superblock (64 pages of 4096).
  bad([](SimFlashConfig& c) { c.utilization = 0.01; }, "utilization", "40 pages");
  // A separate GC frontier needs a free superblock left when GC starts.
  bad([](SimFlashConfig& c) { c.gc_low_watermark = 1; }, "gc_low_watermark", "1");
  bad([](SimFlashConfig& c) { c.gc_high_watermark = 1; }, "gc_high_watermark", "1");
  // Spare space GC cannot reach the watermark with: 64 superblocks, 48 full of data.
  bad(
      [](SimFlashConfig& c) {
        c.gc_low_watermark = 14;
        c.gc_high_watermark = 15;
      },
      "gc_high_watermark", "15");
  {
    SimFlashConfig c;  // 14 is still reachable: (64 − 14 + 1 − 2) × 64 = 3136 > 3072
    c.gc_low_watermark = 14;
    c.gc_high_watermark = 14;
    CHECK_NOTHROW(c.validate());
    c.gc_stream = GcStream::kShared;  // one frontier fewer: one more free superblock
    c.gc_low_watermark = 1;
    c.gc_high_watermark = 15;
    CHECK_NOTHROW(c.validate());
  }
  CHECK_THROWS_WITH(parse_gc_policy("lru"), Contains("lru") && Contains("cost_benefit"));
  CHECK_THROWS_WITH(parse_gc_stream("mixed"), Contains("mixed") && Contains("shared"));
  for (GcPolicy p :
       {GcPolicy::kGreedy, GcPolicy::kFifo, GcPolicy::kCostBenefit, GcPolicy::kDChoices}) {
    CHECK(parse_gc_policy(gc_policy_name(p)) == p);
  }
  CHECK(parse_gc_stream("shared") == GcStream::kShared);
}

// ---------------------------------------------------------------------------------------------
// The FTL on small geometries.

// 1 channel × 1 die × 1 plane × 4 blocks × 4 pages: superblock = block, 16 physical pages,
// 8 logical (ρ = 0.5), one shared frontier, greedy, GC when no free superblock is left.
SimFlashConfig four_by_four() {
  SimFlashConfig c = geometry(1, 1, 1, 4, 4);
  c.utilization = 0.5;
  c.gc_stream = GcStream::kShared;
  c.gc_low_watermark = 1;
  c.gc_high_watermark = 1;
  return c;
}

TEST_CASE("a hand-computed GC sequence on 4 blocks of 4 pages", "[simflash]") {
  Ftl ftl(four_by_four());
  REQUIRE(ftl.logical_pages() == 8);
  REQUIRE(ftl.physical_pages() == 16);
  for (uint32_t p = 0; p < 8; ++p) ftl.write(p);  // blocks 0 and 1 sealed, full
  CHECK(ftl.free_superblocks() == 2);
  for (uint32_t p : {0u, 1u, 2u, 4u}) ftl.write(p);  // block 2: lpn 0 1 2 4; block 0 holds 3
  CHECK(ftl.valid_pages(0) == 1);
  CHECK(ftl.valid_pages(1) == 3);
  CHECK(ftl.valid_pages(2) == 4);
  CHECK(ftl.free_superblocks() == 1);
  CHECK(ftl.counters().gc_runs == 0);

  // lpn 5 invalidates page 5 (block 1: 2 valid); block 3 becomes the frontier, no free block
  // is left, so GC collects block 0 (1 valid page, the fewest): lpn 3 moves to page 12,
  // block 0 is erased, then lpn 5 lands on page 13.
  std::vector<FlashOp> log;
  ftl.set_op_log(&log);
  ftl.write(5);
  ftl.set_op_log(nullptr);
  REQUIRE(log.size() == 4);
  CHECK((log[0].kind == FlashOpKind::kRead && log[0].cause == FlashOpCause::kGc &&
         log[0].target == 3));
  CHECK((log[1].kind == FlashOpKind::kProgram && log[1].cause == FlashOpCause::kGc &&
         log[1].target == 12));
  CHECK((log[2].kind == FlashOpKind::kErase && log[2].target == 0));
  CHECK((log[3].kind == FlashOpKind::kProgram && log[3].cause == FlashOpCause::kHost &&
         log[3].target == 13));
  CHECK(ftl.physical_page(3) == 12);
  CHECK(ftl.physical_page(5) == 13);
  CHECK(ftl.counters().gc_runs == 1);
  CHECK(ftl.counters().gc_pages_copied == 1);
  CHECK(ftl.erase_count(0) == 1);
  CHECK(ftl.free_superblocks() == 1);

  // lpn 6 and 7 fill block 3 and empty block 1. lpn 0 invalidates page 8; the frontier takes
  // block 0 (the only free one) and GC collects block 1 without a copy.
  ftl.write(6);
  ftl.write(7);
  CHECK(ftl.valid_pages(1) == 0);
  ftl.write(0);
  CHECK(ftl.physical_page(0) == 0);
  CHECK(ftl.counters().gc_runs == 2);
  CHECK(ftl.counters().gc_victims == 2);
  CHECK(ftl.counters().gc_victims_empty == 1);
  CHECK(ftl.counters().gc_pages_copied == 1);
  CHECK(ftl.erase_count(1) == 1);

  const std::vector<uint32_t> expect = {0, 9, 10, 12, 11, 13, 14, 15};
  for (uint32_t p = 0; p < 8; ++p) CHECK(ftl.physical_page(p) == expect[p]);
  const FtlCounters& c = ftl.counters();
  CHECK(c.host_pages_written == 16);
  CHECK(c.nand_pages_written == 17);
  CHECK(c.erases == 2);
  CHECK(c.superblock_erases == 2);
  CHECK(c.wa_ftl() == Approx(17.0 / 16.0));
  const EraseCountStats e = ftl.erase_count_stats();
  CHECK(e.min == 0);
  CHECK(e.max == 1);
  CHECK(e.mean == 0.5);
  CHECK_NOTHROW(ftl.check_invariants());
}

TEST_CASE("pages stripe across channels, then dies, then planes", "[simflash]") {
  SimFlashConfig c = geometry(2, 3, 2, 8, 4);  // 12 lanes, superblocks of 48 pages
  c.utilization = 0.5;
  Ftl ftl(c);
  const FlashAddress a0 = ftl.locate(0);
  CHECK((a0.channel == 0 && a0.die == 0 && a0.plane == 0 && a0.block == 0 && a0.page == 0));
  const FlashAddress a1 = ftl.locate(1);
  CHECK((a1.channel == 1 && a1.die == 0 && a1.plane == 0 && a1.page == 0));
  const FlashAddress a2 = ftl.locate(2);
  CHECK((a2.channel == 0 && a2.die == 1 && a2.plane == 0));
  const FlashAddress a6 = ftl.locate(6);
  CHECK((a6.channel == 0 && a6.die == 0 && a6.plane == 1 && a6.page == 0));
  const FlashAddress a13 = ftl.locate(13);
  CHECK((a13.channel == 1 && a13.die == 0 && a13.plane == 0 && a13.page == 1));
  const FlashAddress b = ftl.locate(3 * 48 + 47);
  CHECK((b.block == 3 && b.page == 3 && b.channel == 1 && b.die == 2 && b.plane == 1));
  CHECK(ftl.superblock_of(3 * 48 + 47) == 3);
  // The first 12 writes touch each (channel, die, plane) once.
  for (uint32_t p = 0; p < 12; ++p) ftl.write(p);
  for (uint32_t ch = 0; ch < 2; ++ch) {
    for (uint32_t d = 0; d < 3; ++d) {
      for (uint32_t pl = 0; pl < 2; ++pl) CHECK(ftl.valid_pages_in_block(ch, d, pl, 0) == 1);
    }
  }
}

TEST_CASE("TRIM of a whole superblock makes it reclaimable without copies", "[simflash]") {
  for (GcPolicy policy :
       {GcPolicy::kGreedy, GcPolicy::kFifo, GcPolicy::kCostBenefit, GcPolicy::kDChoices}) {
    INFO(gc_policy_name(policy));
    SimFlashConfig c = geometry(2, 1, 1, 8, 2);  // superblocks of 4 pages, 32 pages
    c.utilization = 0.5;                         // 16 logical pages
    c.gc_policy = policy;
    // d_choices takes only what it draws: 64 draws among the 6 sealed superblocks miss the
    // empty one with probability (5/6)^64 < 1e-5 (and the seed is fixed).
    c.gc_d = 64;
    Ftl ftl(c);
    for (uint32_t p = 0; p < 16; ++p) ftl.write(p);  // superblocks 0–3 full, 4 free
    // Trim the pages of superblock 2 (not the oldest: fifo would take 0 first).
    for (uint32_t p = 8; p < 12; ++p) ftl.trim(p);
    CHECK(ftl.valid_pages(2) == 0);
    CHECK(ftl.counters().host_pages_trimmed_mapped == 4);
    // Overwrites that leave superblocks 0, 1 and 3 partly valid fill two new superblocks; the
    // ninth takes a third, leaving one free: GC collects superblock 2, copying nothing.
    for (uint32_t p : {0u, 4u, 12u, 1u, 5u, 13u, 2u, 6u}) ftl.write(p);
    CHECK(ftl.counters().gc_victims == 0);
    ftl.write(14);
    CHECK(ftl.counters().gc_victims == 1);
    CHECK(ftl.counters().gc_victims_empty == 1);
    CHECK(ftl.counters().gc_pages_copied == 0);
    CHECK(ftl.erase_count(2) == 1);
    CHECK(ftl.physical_page(9) == Ftl::kUnmapped);
    ftl.read(9);  // unmapped read: counted, no NAND read
    CHECK(ftl.counters().host_pages_read_unmapped == 1);
    CHECK(ftl.counters().nand_pages_read == 0);
    CHECK_NOTHROW(ftl.check_invariants());
  }
}

TEST_CASE("counters balance and invariants hold under mixed random traffic", "[simflash]") {
  for (GcPolicy policy :
       {GcPolicy::kGreedy, GcPolicy::kFifo, GcPolicy::kCostBenefit, GcPolicy::kDChoices}) {
    for (GcStream stream : {GcStream::kSeparate, GcStream::kShared}) {
      INFO(gc_policy_name(policy) << " " << gc_stream_name(stream));
      SimFlashConfig c;  // tiny: 64 superblocks of 64 pages, 3072 logical pages
      c.gc_policy = policy;
      c.gc_stream = stream;
      c.gc_d = 3;
      c.gc_low_watermark = stream == GcStream::kShared ? 1 : 2;
      c.gc_high_watermark = 4;
      Ftl ftl(c);
      Mix rng{uint64_t(policy) * 10 + uint64_t(stream)};
      uint64_t mapped_reads = 0;
      const uint64_t n = ftl.logical_pages();
      for (uint32_t i = 0; i < 60000; ++i) {
        const uint64_t r = rng.below(100);
        const uint64_t lpn = rng.below(n);
        if (r < 80) {
          ftl.write(lpn);
        } else if (r < 90) {
          ftl.trim(lpn);
        } else {
          mapped_reads += ftl.physical_page(lpn) != Ftl::kUnmapped;
          ftl.read(lpn);
        }
        if (i % 15000 == 0) REQUIRE_NOTHROW(ftl.check_invariants());
      }
      REQUIRE_NOTHROW(ftl.check_invariants());
      const FtlCounters& k = ftl.counters();
      CHECK(k.gc_runs > 0);
      CHECK(k.nand_pages_written == k.host_pages_written + k.gc_pages_copied);
      CHECK(k.nand_pages_read == mapped_reads + k.gc_pages_copied);
      CHECK(k.host_pages_read - k.host_pages_read_unmapped == mapped_reads);
      CHECK(k.erases == k.superblock_erases * c.erase_blocks_per_superblock());
      CHECK(k.superblock_erases == k.gc_victims);
      uint64_t valid = 0, mapped = 0, erased = 0;
      for (uint32_t sb = 0; sb < ftl.superblocks(); ++sb) {
        valid += ftl.valid_pages(sb);
        erased += ftl.erase_count(sb);
      }
      for (uint64_t p = 0; p < n; ++p) mapped += ftl.physical_page(p) != Ftl::kUnmapped;
      CHECK(valid == mapped);
      CHECK(erased == k.superblock_erases);
      CHECK(ftl.free_superblocks() + ftl.sealed_superblocks() <= ftl.superblocks());
      // At rest, every take of a free superblock has been followed by GC if it crossed the
      // low watermark.
      CHECK(ftl.free_superblocks() >= c.gc_low_watermark);
    }
  }
}

TEST_CASE("counters snapshot and subtract", "[simflash]") {
  Ftl ftl(SimFlashConfig{});
  for (uint32_t p = 0; p < 3072; ++p) ftl.write(p);
  const FtlCounters warm = ftl.counters();
  Mix rng{7};
  for (int i = 0; i < 20000; ++i) ftl.write(rng.below(3072));
  const FtlCounters d = ftl.counters() - warm;
  CHECK(d.host_pages_written == 20000);
  CHECK(d.nand_pages_written == 20000 + d.gc_pages_copied);
  CHECK(d.wa_ftl() > 1.0);
  CHECK((ftl.counters() - ftl.counters()) == FtlCounters{});
  CHECK(FtlCounters{}.wa_ftl() == 0.0);
  CHECK(warm.wa_ftl() == 1.0);  // a sequential fill never collects
}

TEST_CASE("sequential overwrites spread erases evenly", "[simflash]") {
  Ftl ftl(SimFlashConfig{});  // FIFO free list: every superblock takes its turn
  for (int pass = 0; pass < 20; ++pass) {
    for (uint32_t p = 0; p < 3072; ++p) ftl.write(p);
  }
  const EraseCountStats e = ftl.erase_count_stats();
  CHECK(e.max - e.min <= 1);
  CHECK(e.mean == Approx(double(ftl.counters().superblock_erases) / 64.0));
  CHECK(e.min <= e.mean);
  CHECK(e.mean <= e.max);
  CHECK(e.min >= 10);
  CHECK(ftl.counters().gc_pages_copied == 0);
}

TEST_CASE("d_choices is deterministic for a seed", "[simflash]") {
  auto run = [](uint64_t seed) {
    SimFlashConfig c;
    c.gc_policy = GcPolicy::kDChoices;
    c.gc_d = 2;
    c.seed = seed;
    Ftl ftl(c);
    for (uint32_t p = 0; p < 3072; ++p) ftl.write(p);
    Mix rng{99};
    for (int i = 0; i < 30000; ++i) ftl.write(rng.below(3072));
    return ftl.counters();
  };
  CHECK(run(5) == run(5));
  CHECK(run(5).gc_pages_copied != run(6).gc_pages_copied);
}

TEST_CASE("an extent write never copies the pages it overwrites", "[simflash]") {
  // Random 16-page aligned overwrites on tiny: page by page, GC triggered inside a request
  // copies the still-valid rest of its old chunk; as one extent it cannot.
  auto copies = [](bool extent) {
    Ftl ftl(SimFlashConfig{});
    for (uint32_t p = 0; p < 3072; ++p) ftl.write(p);
    Mix rng{21};
    for (int i = 0; i < 5000; ++i) {
      const uint64_t base = rng.below(3072 / 16) * 16;
      if (extent) {
        ftl.write_extent(base, 16);
      } else {
        for (uint32_t k = 0; k < 16; ++k) ftl.write(base + k);
      }
    }
    CHECK(ftl.counters().host_pages_written == 3072 + 5000 * 16);
    CHECK_NOTHROW(ftl.check_invariants());
    return ftl.counters().gc_pages_copied;
  };
  const uint64_t as_extents = copies(true);
  const uint64_t by_pages = copies(false);
  CHECK(as_extents < by_pages);
}

TEST_CASE("the FTL rejects logical pages past the exported capacity", "[simflash]") {
  Ftl ftl(SimFlashConfig{});
  CHECK_THROWS_AS(ftl.write(3072), std::out_of_range);
  CHECK_THROWS_AS(ftl.write_extent(3070, 3), std::out_of_range);
  CHECK_THROWS_AS(ftl.write_extent(1, ~uint64_t{0}), std::out_of_range);
  CHECK(ftl.counters().host_pages_written == 0);
  ftl.write_extent(3069, 3);
  ftl.write_extent(0, 0);
  CHECK(ftl.counters().host_pages_written == 3);
  CHECK_THROWS_AS(ftl.read(1ull << 40), std::out_of_range);
  CHECK_THROWS_AS(ftl.trim(3072), std::out_of_range);
  CHECK_THROWS_AS(Ftl(geometry(1, 1, 1, 1, 4)), std::invalid_argument);
}

// (Not d_choices: it takes only the superblocks it draws, full ones included — with d = 2 it
// copies about 4 pages per host page here.)
TEST_CASE("sequential overwrites: WA = 1 for greedy, fifo and cost_benefit", "[simflash]") {
  for (GcPolicy policy : {GcPolicy::kGreedy, GcPolicy::kFifo, GcPolicy::kCostBenefit}) {
    INFO(gc_policy_name(policy));
    SimFlashConfig c = geometry(4, 2, 1, 512, 8);  // 512 superblocks of 64 pages
    c.utilization = 0.9;                           // 29491 pages: not a superblock multiple
    c.gc_policy = policy;
    Ftl ftl(c);
    const uint64_t n = ftl.logical_pages();
    for (uint64_t p = 0; p < n; ++p) ftl.write(p);
    const FtlCounters warm = ftl.counters();
    for (int pass = 0; pass < 4; ++pass) {
      for (uint64_t p = 0; p < n; ++p) ftl.write(p);
    }
    const FtlCounters d = ftl.counters() - warm;
    CHECK(d.gc_victims > 0);
    CHECK(d.gc_pages_copied == 0);
    CHECK(d.wa_ftl() == 1.0);
  }
}

// (Not d_choices: it takes only the superblocks it draws, full ones included.)
TEST_CASE("trimming whole superblocks before rewriting them: WA = 1", "[simflash]") {
  for (GcPolicy policy : {GcPolicy::kGreedy, GcPolicy::kFifo, GcPolicy::kCostBenefit}) {
    INFO(gc_policy_name(policy));
    SimFlashConfig c = geometry(4, 2, 1, 512, 8);
    c.utilization = 0.875;  // 448 superblocks' worth of 64 pages exactly
    c.gc_policy = policy;
    Ftl ftl(c);
    const uint32_t s = ftl.pages_per_superblock();
    const uint64_t extents = ftl.logical_pages() / s;
    REQUIRE(extents * s == ftl.logical_pages());
    for (uint64_t p = 0; p < ftl.logical_pages(); ++p) ftl.write(p);
    const FtlCounters warm = ftl.counters();
    Mix rng{3};
    std::vector<uint32_t> order(s);
    std::iota(order.begin(), order.end(), 0u);
    for (int i = 0; i < 4000; ++i) {
      const uint64_t base = rng.below(extents) * s;
      for (uint32_t k = 0; k < s; ++k) ftl.trim(base + k);
      for (uint32_t k = s - 1; k > 0; --k) std::swap(order[k], order[rng.below(k + 1)]);
      for (uint32_t k : order) ftl.write(base + k);  // in random order within the extent
    }
    const FtlCounters d = ftl.counters() - warm;
    CHECK(d.gc_victims > 1000);
    CHECK(d.gc_pages_copied == 0);
    CHECK(d.wa_ftl() == 1.0);
  }
}

// ---------------------------------------------------------------------------------------------
// The device seam.

TEST_CASE("SimFlashDevice maps byte extents onto pages", "[simflash][devices]") {
  DeviceConfig dc;
  dc.name = "simflash";
  dc.params.set("device.profile", "tiny");
  auto dev = make_device(dc);
  CHECK(dev->capacity_bytes() == 3072ull * 4096);
  CHECK(dev->logical_block_bytes() == 4096);
  auto& flash = static_cast<SimFlashDevice&>(*dev);

  dev->write(0, 8 * 4096);
  dev->write(3071ull * 4096, 4096);  // the last page
  dev->read(4096, 2 * 4096);
  dev->read(100 * 4096, 4096);  // never written: allowed, counted
  dev->trim(0, 4 * 4096);
  const FtlCounters& c = flash.ftl().counters();
  CHECK(c.host_pages_written == 9);
  CHECK(c.host_pages_read == 3);
  CHECK(c.host_pages_read_unmapped == 1);
  CHECK(c.host_pages_trimmed == 4);
  CHECK(flash.ftl().physical_page(3) == Ftl::kUnmapped);
  CHECK(flash.ftl().physical_page(4) != Ftl::kUnmapped);
  CHECK(dev->counters().writes == 2);
  CHECK(dev->counters().write_bytes == 9 * 4096);

  CHECK_THROWS_WITH(dev->write(100, 4096), Contains("not aligned"));
  CHECK_THROWS_WITH(dev->write(3072ull * 4096, 4096), Contains("past the capacity"));
  CHECK(c.host_pages_written == 9);

  dc.params.set("device.utilization", 2.0);
  CHECK_THROWS_WITH(make_device(dc), Contains("utilization") && Contains("2"));
}

TEST_CASE("simflash's keys: the profile, then each key that is set -- the row shows them resolved",
          "[simflash][devices]") {
  Params p;
  p.set("device.profile", "femu");
  p.set("device.channels", 2);
  p.set("device.over_provisioning", 0.25);
  const SimFlashConfig c = simflash_config(p, 7);
  const SimFlashConfig femu = simflash_profile("femu");
  CHECK(c.channels == 2);                                  // set
  CHECK(c.dies_per_channel == femu.dies_per_channel);      // the profile's
  CHECK(c.effective_utilization() == 1.0 / (1.0 + 0.25));  // over_provisioning instead
  CHECK(c.seed == 7);                                      // the cell's seed
  Params shown;
  show_simflash_config(c, shown);
  CHECK(shown.text("device.channels") == "2");
  CHECK(shown.text("device.dies_per_channel") == std::to_string(femu.dies_per_channel));
  CHECK(shown.text("device.utilization") == "0.8");
  CHECK(shown.text("device.over_provisioning") == "0.25");
  CHECK(shown.text("device.gc_policy") == "greedy");
  CHECK(shown.text("device.tR_us") == "40");
  p.set("device.utilization", 0.9);
  CHECK_THROWS_WITH(simflash_config(p, 1), Contains("not both"));
  // Every simflash key but the profile and size_to_cache (a choice of the experiment, default
  // false) is filled in by the profile: help says where from.
  for (const KeySpec& k : simflash_spec().keys) {
    if (k.name == "device.profile") continue;
    if (k.name == "device.capacity") {  // shared with the block device: sizes blocks_per_plane
      CHECK(k.filled_by == "the device");
      CHECK(k.strict);
      continue;
    }
    if (k.name == "device.size_to_cache") {
      CHECK(k.default_value == "false");
      CHECK(k.filled_by.empty());
      CHECK(k.strict);
      continue;
    }
    if (k.name == "device.endurance_dwpd" || k.name == "device.warranty_years") {
      CHECK(k.filled_by.empty());  // a rating, not the profile's
      CHECK(k.strict);
      continue;
    }
    CHECK(k.filled_by == "device.profile");
    CHECK(k.strict);
  }
}

// ---------------------------------------------------------------------------------------------
// Validation against the analytic models. Geometries of 2^18–2^19
// physical pages (1024–4096 superblocks); sequential fill, 6 × the user pages of random warm-up,
// then 6 × measured. Each row prints: measured WA, the model at the measured ρ, the error.

struct Row {
  std::string policy;
  double rho_nominal;
  WaResult r;
  double model;
};

void report(const Row& row) {
  std::printf(
      "  %-13s rho %.2f (in circulation %.5f; erased %.2f sb, free %.2f)  WA %.4f  "
      "model %.4f  err %+.3f%%\n",
      row.policy.c_str(), row.rho_nominal, row.r.rho, row.r.mean_erased, row.r.mean_free, row.r.wa,
      row.model, 100.0 * rel_err(row.r.wa, row.model));
}

const double kRhos[] = {0.5, 0.6, 0.7, 0.8, 0.9, 0.95};

TEST_CASE("WA of fifo victims matches Desnoyers Eq. 4 within 1 %", "[simflash][slow]") {
  for (GcStream stream : {GcStream::kShared, GcStream::kSeparate}) {
    for (double rho : kRhos) {
      SimFlashConfig c = geometry(4, 2, 1, 4096, 8);  // 4096 superblocks of 64 pages
      c.utilization = rho;
      c.gc_policy = GcPolicy::kFifo;
      c.gc_stream = stream;
      c.gc_low_watermark = stream == GcStream::kShared ? 1 : 2;
      c.gc_high_watermark = c.gc_low_watermark;
      Ftl ftl(c);
      const WaResult r = run_random(ftl, ftl.logical_pages(), 1, 6.0, 6.0, 11);
      const Row row{stream == GcStream::kShared ? "fifo/shared" : "fifo/separate", rho, r,
                    wa_fifo(r.rho)};
      report(row);
      CHECK(std::abs(rel_err(r.wa, row.model)) < 0.01);
    }
  }
}

TEST_CASE("WA of greedy victims matches the mean-field model within 1 %", "[simflash][slow]") {
  for (uint32_t b : {64u, 256u}) {
    for (double rho : kRhos) {
      // b = 64: 4 ch × 2 dies × 8 pages, 4096 superblocks; b = 256: 4 × 2 × 2 planes × 16
      // pages, 2048 superblocks.
      SimFlashConfig c = b == 64 ? geometry(4, 2, 1, 4096, 8) : geometry(4, 2, 2, 2048, 16);
      c.utilization = rho;
      c.gc_policy = GcPolicy::kGreedy;
      Ftl ftl(c);
      REQUIRE(ftl.pages_per_superblock() == b);
      const WaResult r = run_random(ftl, ftl.logical_pages(), 1, 6.0, 6.0, 12);
      const Row row{b == 64 ? "greedy b=64" : "greedy b=256", rho, r,
                    wa_greedy_meanfield(r.rho, b)};
      report(row);
      CHECK(std::abs(rel_err(r.wa, row.model)) < 0.01);
    }
  }
}

TEST_CASE("WA of random victims (d_choices, d = 1) is 1/(1 − ρ) within 1 %", "[simflash][slow]") {
  for (double rho : kRhos) {
    SimFlashConfig c = geometry(4, 2, 1, 4096, 8);
    c.utilization = rho;
    c.gc_policy = GcPolicy::kDChoices;
    c.gc_d = 1;
    Ftl ftl(c);
    const WaResult r = run_random(ftl, ftl.logical_pages(), 1, 6.0, 6.0, 13);
    const Row row{"d_choices d=1", rho, r, wa_random(r.rho)};
    report(row);
    CHECK(std::abs(rel_err(r.wa, row.model)) < 0.01);
  }
}

TEST_CASE("superblock trend at rho = 0.9: WA falls with the write size, 1 from a superblock up",
          "[simflash][slow]") {
  // 4 ch × 4 dies × 64 pages: superblocks of S = 1024 pages; 512 superblocks, 460 of them
  // exported (ρ = 0.898), a multiple of every write size.
  std::vector<double> was;
  const std::vector<uint32_t> sizes = {1, 4, 16, 64, 256, 512, 1024, 2048};
  for (uint32_t s : sizes) {
    SimFlashConfig c = geometry(4, 4, 1, 512, 64);
    c.utilization = 460.0 / 512.0;
    c.gc_policy = GcPolicy::kGreedy;
    Ftl ftl(c);
    const uint32_t S = ftl.pages_per_superblock();
    REQUIRE(ftl.logical_pages() % 2048 == 0);
    const WaResult r = run_random(ftl, ftl.logical_pages(), s, 5.0, 5.0, 14);
    const uint32_t b = s >= S ? 1 : S / s;
    const Row row{"greedy", 0.9, r, wa_greedy_meanfield(r.rho, b)};
    std::printf("  write size %4u pages (b = %4u): ", s, b);
    report(row);
    was.push_back(r.wa);
    if (s >= S) CHECK(r.wa == Approx(1.0).margin(0.01));
    if (s == S / 64) CHECK(std::abs(rel_err(r.wa, row.model)) < 0.05);
  }
  for (size_t i = 0; i + 1 < sizes.size() && sizes[i] < 1024; ++i) {
    INFO("write size " << sizes[i] << " vs " << sizes[i + 1]);
    CHECK(was[i] > was[i + 1]);
  }
}

// ---------------------------------------------------------------------------------------------
// Micro-benchmark (hidden): uniform random single-page overwrites at ρ = 0.9, greedy.

// Run: flashpq_tests "[.bench]" -c simflash (not tagged [simflash], which would select it).
TEST_CASE("simflash benchmark: FTL page writes per second", "[.bench]") {
  // 2^18 physical pages (maps in L2/L3), 2^22 (maps of 16 MiB each), 2^24 (64 MiB each).
  for (uint32_t blocks : {4096u, 65536u, 262144u}) {
    SimFlashConfig c = geometry(4, 2, 1, blocks, 8);
    c.utilization = 0.9;
    Ftl ftl(c);
    const uint64_t n = ftl.logical_pages();
    for (uint64_t p = 0; p < n; ++p) ftl.write(p);
    Mix rng{1};
    for (uint64_t i = 0; i < 2 * n; ++i) ftl.write(rng.below(n));  // reach steady state
    const FtlCounters before = ftl.counters();
    const uint64_t writes = std::max<uint64_t>(4 * n, 20'000'000);
    // CPU time: the figure must not depend on what else the machine runs.
    const std::clock_t t0 = std::clock();
    for (uint64_t i = 0; i < writes; ++i) ftl.write(rng.below(n));
    const double sec = double(std::clock() - t0) / CLOCKS_PER_SEC;
    const FtlCounters d = ftl.counters() - before;
    std::printf(
        "  %llu physical pages: %.2f M host page writes/s, %.2f M NAND page writes/s "
        "(WA %.3f), CPU time\n",
        (unsigned long long)ftl.physical_pages(), writes / sec / 1e6,
        d.nand_pages_written / sec / 1e6, d.wa_ftl());
    CHECK(d.host_pages_written == writes);
  }
}

}  // namespace
}  // namespace flashpq::test_simflash

namespace flashpq::test_simflash {
namespace {

using flash_models::Mix;
using flash_models::wa_greedy_meanfield;

// simflash_blocks_per_plane_for against a brute-force search: the first n from 2 up whose
// exported space holds the bytes and whose config validates.
TEST_CASE("simflash_blocks_per_plane_for: the smallest valid device holding the bytes",
          "[simflash][size_to_cache]") {
  for (const std::string profile : {"tiny", "femu", "model_a"}) {
    for (const double rho : {0.5, 0.75, 0.9, 0.97}) {
      SimFlashConfig base = simflash_profile(profile);
      base.over_provisioning.reset();
      base.utilization = rho;
      for (const uint64_t bytes : {uint64_t{1}, uint64_t{4096}, uint64_t{27795456},
                                   uint64_t{3} << 30, base.superblock_bytes() * 10 + 1}) {
        INFO(profile << " rho " << rho << " bytes " << bytes);
        uint64_t want = 0;
        for (uint64_t n = 2; n <= (uint64_t{1} << 24) && want == 0; ++n) {
          SimFlashConfig c = base;
          c.blocks_per_plane = static_cast<uint32_t>(n);
          if (c.exported_bytes() < bytes) continue;
          try {
            c.validate();
            want = n;
          } catch (const std::invalid_argument&) {
          }
        }
        REQUIRE(want != 0);
        CHECK(simflash_blocks_per_plane_for(base, bytes) == want);
      }
    }
  }
  SimFlashConfig tiny = simflash_profile("tiny");
  CHECK_THROWS_WITH(simflash_blocks_per_plane_for(tiny, uint64_t{1} << 62),
                    Catch::Contains("device.size_to_cache: no simflash device"));
}

// ---------------------------------------------------------------------------------------------
// Flexible Data Placement (ftl.h "Flexible Data Placement").

// Two cyclic sequential streams over disjoint halves of the logical space, A three pages for
// each of B's: every page is overwritten in the order it was written, so a reclaim unit
// holding one stream's pages is invalidated whole. B goes through `b_placement`.
FtlCounters two_sequential_streams(Ftl& ftl, uint32_t b_placement, int passes) {
  const uint64_t n = ftl.logical_pages();
  const uint64_t na = n / 2, nb = n - na;
  uint64_t a = 0, b = 0;
  auto step = [&] {
    for (int i = 0; i < 3; ++i) ftl.write(a++ % na, 0);
    ftl.write(na + b++ % nb, b_placement);
  };
  while (a < na || b < nb) step();  // every page written once
  const FtlCounters warm = ftl.counters();
  while (b < uint64_t(passes) * nb) step();
  return ftl.counters() - warm;
}

TEST_CASE("FDP: streams that invalidate whole reclaim units, a handle each, give WA 1.000",
          "[simflash][fdp]") {
  for (double rho : {0.5, 0.8, 0.9}) {
    for (FdpIsolation iso : {FdpIsolation::kInitial, FdpIsolation::kPersistent}) {
      for (GcStream stream : {GcStream::kSeparate, GcStream::kShared}) {
        INFO("rho " << rho << " " << fdp_isolation_name(iso) << " " << gc_stream_name(stream));
        SimFlashConfig c = geometry(4, 2, 1, 256, 8);  // 256 superblocks of 64 pages
        c.utilization = rho;
        c.gc_stream = stream;
        c.gc_low_watermark = 2;
        c.gc_high_watermark = 2;
        c.fdp_handles = 2;
        c.fdp_isolation = iso;
        Ftl ftl(c);
        const FtlCounters d = two_sequential_streams(ftl, 1, 6);
        REQUIRE_NOTHROW(ftl.check_invariants());
        CHECK(d.gc_victims > 0);
        CHECK(d.gc_pages_copied == 0);
        CHECK(d.wa_ftl() == 1.0);
        CHECK(d.fdp_media_reallocated_events == 0);
      }
    }
    // The same streams on one handle share every superblock: GC copies.
    INFO("rho " << rho << " without FDP");
    SimFlashConfig c = geometry(4, 2, 1, 256, 8);
    c.utilization = rho;
    Ftl ftl(c);
    const FtlCounters d = two_sequential_streams(ftl, 1, 6);  // the placement is ignored
    CHECK(d.wa_ftl() > 1.05);
  }
}

TEST_CASE("FDP: every write on the default handle is the FTL without FDP", "[simflash][fdp]") {
  for (FdpIsolation iso : {FdpIsolation::kInitial, FdpIsolation::kPersistent}) {
    for (GcStream stream : {GcStream::kSeparate, GcStream::kShared}) {
      INFO(fdp_isolation_name(iso) << " " << gc_stream_name(stream));
      SimFlashConfig c;  // tiny
      c.gc_stream = stream;
      c.gc_low_watermark = 2;  // FDP's least with a shared stream too
      c.gc_high_watermark = 3;
      SimFlashConfig f = c;
      f.fdp_handles = 4;
      f.fdp_isolation = iso;
      Ftl plain(c), fdp(f);
      Mix rng{11};
      const uint64_t n = plain.logical_pages();
      for (int i = 0; i < 40000; ++i) {
        const uint64_t lpn = rng.below(n);
        if (rng.below(10) == 0) {
          plain.trim(lpn);
          fdp.trim(lpn);
        } else {
          plain.write(lpn);
          fdp.write(lpn, 0);
        }
      }
      REQUIRE_NOTHROW(fdp.check_invariants());
      FtlCounters k = fdp.counters();
      CHECK(k.fdp_invalid_placement_events == 0);
      CHECK(k.fdp_media_reallocated_events ==
            (iso == FdpIsolation::kInitial ? k.gc_victims - k.gc_victims_empty : 0));
      k.fdp_media_reallocated_events = k.fdp_media_reallocated_pages = 0;
      CHECK(k == plain.counters());
      CHECK(k.gc_pages_copied > 0);
      REQUIRE(fdp.fdp_counters().size() == 4);
      CHECK(fdp.fdp_counters()[0].host_pages_written == k.host_pages_written);
      CHECK(fdp.fdp_counters()[0].media_pages_written == k.nand_pages_written);
      CHECK(plain.fdp_counters().empty());
    }
  }
}

TEST_CASE("FDP: isolation, per-handle counts and events under mixed random traffic",
          "[simflash][fdp]") {
  for (FdpIsolation iso : {FdpIsolation::kInitial, FdpIsolation::kPersistent}) {
    for (GcStream stream : {GcStream::kSeparate, GcStream::kShared}) {
      INFO(fdp_isolation_name(iso) << " " << gc_stream_name(stream));
      SimFlashConfig c = geometry(2, 2, 1, 128, 16);  // 128 superblocks of 64 pages
      c.utilization = 0.7;
      c.gc_stream = stream;
      c.gc_low_watermark = 2;
      c.gc_high_watermark = 3;
      c.fdp_handles = 3;
      c.fdp_isolation = iso;
      Ftl ftl(c);
      Mix rng{uint64_t(iso) * 2 + uint64_t(stream) + 5};
      const uint64_t n = ftl.logical_pages();
      uint64_t invalid = 0;
      for (int i = 0; i < 60000; ++i) {
        // Handle 0 rewrites a small hot range, 1 and 2 the rest; 1 in 50 writes names a
        // placement handle the device does not have (RUH 0 then takes it).
        const uint64_t r = rng.below(50);
        if (r == 0) {
          ftl.write(rng.below(n), 7);
          ++invalid;
        } else if (r < 25) {
          ftl.write(rng.below(n / 10), 0);
        } else {
          ftl.write(n / 10 + rng.below(n - n / 10), 1 + uint32_t(r % 2));
        }
        if (r == 1) ftl.trim(rng.below(n));
        if (i % 20000 == 0) REQUIRE_NOTHROW(ftl.check_invariants());  // persistent: no mixing
      }
      REQUIRE_NOTHROW(ftl.check_invariants());
      const FtlCounters& k = ftl.counters();
      CHECK(k.gc_pages_copied > 0);
      CHECK(k.fdp_invalid_placement_events == invalid);
      uint64_t host = 0, media = 0;
      for (const FdpHandleCounters& h : ftl.fdp_counters()) {
        host += h.host_pages_written;
        media += h.media_pages_written;
        CHECK(h.media_pages_written >= h.host_pages_written);
      }
      CHECK(host == k.host_pages_written);
      CHECK(media == k.nand_pages_written);
      if (iso == FdpIsolation::kInitial) {
        CHECK(k.fdp_media_reallocated_events == k.gc_victims - k.gc_victims_empty);
        CHECK(k.fdp_media_reallocated_pages == k.gc_pages_copied);
      } else {
        CHECK(k.fdp_media_reallocated_events == 0);
      }
      // Every valid page's handle is the one that last wrote its logical page.
      uint64_t tagged = 0;
      for (uint32_t ppn = 0; ppn < ftl.physical_pages(); ++ppn) {
        tagged += ftl.page_handle(ppn) != Ftl::kNoHandle;
      }
      uint64_t valid = 0;
      for (uint32_t sb = 0; sb < ftl.superblocks(); ++sb) valid += ftl.valid_pages(sb);
      CHECK(tagged == valid);
    }
  }
}

TEST_CASE("FDP: misplaced writes take another handle at the configured rate and cost WA",
          "[simflash][fdp]") {
  double previous = 0.0;
  for (double p : {0.0, 0.05, 0.3}) {
    INFO("misplaced " << p);
    SimFlashConfig c = geometry(4, 2, 1, 256, 8);
    c.utilization = 0.8;
    c.fdp_handles = 2;
    c.fdp_misplaced_fraction = p;
    Ftl ftl(c);
    const FtlCounters d = two_sequential_streams(ftl, 1, 6);
    const FtlCounters& all = ftl.counters();
    // Binomial: within 5 standard deviations of p × the write requests.
    const double n = double(all.host_pages_written);
    CHECK(std::abs(double(all.fdp_misplaced_writes) - p * n) <= 5 * std::sqrt(n * p * (1 - p)) + 1);
    if (p == 0.0) {
      CHECK(d.wa_ftl() == 1.0);
    } else {
      CHECK(d.wa_ftl() > previous);
    }
    previous = d.wa_ftl();
    REQUIRE_NOTHROW(ftl.check_invariants());
  }
  SimFlashConfig c;
  c.fdp_handles = 2;
  c.fdp_misplaced_fraction = 1.5;
  CHECK_THROWS_WITH(c.validate(), Contains("fdp.misplaced_fraction") && Contains("1.5"));
}

TEST_CASE("FDP: the handles and GC frontiers are open superblocks validate() accounts for",
          "[simflash][fdp]") {
  SimFlashConfig c;
  CHECK(c.frontiers() == 2);
  c.fdp_handles = 4;
  CHECK(c.frontiers() == 5);  // four host frontiers, one shared GC frontier
  c.fdp_isolation = FdpIsolation::kPersistent;
  CHECK(c.frontiers() == 8);  // and one GC frontier per handle
  c.gc_stream = GcStream::kShared;
  c.gc_low_watermark = 1;
  CHECK(c.frontiers() == 4);
  CHECK_THROWS_WITH(c.validate(), Contains("gc_low_watermark") && Contains("FDP handles"));
  c.gc_low_watermark = 2;
  c.fdp_handles = 257;
  CHECK_THROWS_WITH(c.validate(), Contains("fdp.handles") && Contains("257"));
  c.fdp_handles = 64;  // tiny has 64 superblocks: 64 frontiers leave GC nothing
  CHECK_THROWS_WITH(c.validate(), Contains("gc_high_watermark") && Contains("frontiers 64"));
}

}  // namespace
}  // namespace flashpq::test_simflash
