// Tests of engine/hybrid: navy's small/large split. The layout equals navy's worked layouts
// (docs/reference/navy-spec.md §1.2, computed from NavySetup.cpp); each engine inside the hybrid
// behaves exactly as the same engine alone, on its own range of the device, fed the requests
// routed to it (a second implementation: the engines composed by hand); bad keys are refused.
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "devices/null_device.h"
#include "engine/bighash/bighash_queue.h"
#include "engine/blockcache/blockcache_queue.h"
#include "engine/cache.h"
#include "engine/hybrid/hybrid_queue.h"
#include "engine/kangaroo/kangaroo_queue.h"
#include "policies/fifo.h"
#include "sim/rng.h"
#include "tests/engine/engine_test_util.h"
#include "tests/test_util.h"

namespace flashpq::test_hybrid {
namespace {

using testing::RecordingDevice;

using testing::fifo;

FrameworkConfig hybrid_config(uint64_t region_bytes, uint32_t small_max, uint32_t pct) {
  FrameworkConfig f;
  f.name = "hybrid";
  f.params.set(kBlockCacheRegionSizeKey.name, region_bytes);
  f.params.set(kBlockCacheReinsertionKey.name, std::string("hits"));
  f.params.set(kHybridSmallItemMaxSizeKey.name, small_max);
  f.params.set(kHybridSmallPctKey.name, pct);
  return f;
}

TEST_CASE("hybrid: navy's worked layouts", "[hybrid]") {
  {
    // 512 MiB, 512-byte blocks, BigHash 50 %, 4 KiB buckets, 16 MiB regions (CacheBench's
    // defaults): metadata 2,683,904 B, BigHash at 268,435,456 with 65,536 buckets, 15 regions.
    Params p;
    const HybridLayout l = hybrid_layout(HybridConfig{}, p, 536870912, 512);
    CHECK(l.metadata_bytes == 2683904);
    CHECK(l.small_offset == 268435456);
    CHECK(l.small_bytes / 4096 == 65536);
    CHECK(l.large_offset == 2683904);
    CHECK(l.large_bytes == 15ull * (16 << 20));
  }
  {
    // 932,000 MiB with 4096-byte blocks (ssd_perf/flat_kvcache_reg): metadata 4,886,364,160 B,
    // 119,296,000 buckets, 28,833 regions.
    Params p;
    const HybridLayout l = hybrid_layout(HybridConfig{}, p, 932000ull << 20, 4096);
    CHECK(l.metadata_bytes == 4886364160ull);
    CHECK(l.small_bytes / 4096 == 119296000ull);
    CHECK(l.large_bytes / (16 << 20) == 28833);
  }
}

// The hybrid of config `hc` (small objects <= 1000 B) against its engines alone, each of its
// own size on a device of its own, request by request and I/O by I/O. `Small` is the small
// engine's queue (`small_name` its framework).
template <class Small>
void check_engines_alone(const FrameworkConfig& hc, const std::string& small_name) {
  const uint64_t c = 4 << 20;
  Params p = hc.params;
  const HybridLayout l = hybrid_layout(HybridConfig::from(p), p, c, 1);
  CacheConfig cc;
  cc.capacity_bytes = c;
  RecordingDevice hybrid_dev;
  Cache<FifoPolicy, HybridQueue, NoAdmission> hybrid(cc, hc, fifo(), hybrid_dev);
  CacheConfig small_cc = cc, large_cc = cc;
  small_cc.capacity_bytes = l.small_bytes;
  large_cc.capacity_bytes = l.large_bytes;
  FrameworkConfig sc{small_name, p}, bc{"blockcache", p};
  RecordingDevice small_dev, large_dev;
  Cache<FifoPolicy, Small, NoAdmission> small(small_cc, sc, fifo(), small_dev);
  Cache<FifoPolicy, BlockCacheQueue, NoAdmission> large(large_cc, bc, fifo(), large_dev);
  RngStream rng(3, 0);
  uint64_t hits = 0;
  for (int i = 0; i < 60000; ++i) {
    const uint64_t key = rng.next() % 3000;
    // Sizes fixed per key (a key's size never changes): small keys 50-1000 B, large 1-20 KB.
    const uint32_t size = key % 2 == 0 ? 50 + static_cast<uint32_t>(key % 951)
                                       : 1001 + static_cast<uint32_t>((key * 7919) % 19000);
    const uint64_t op = rng.next() % 10;
    const Request r{static_cast<uint64_t>(i), key, size,
                    op < 7 ? Op::kGet : (op < 9 ? Op::kSet : Op::kDelete)};
    const bool hit = hybrid.access(r);
    const bool alone = size <= 1000 ? small.access(r) : large.access(r);
    REQUIRE(hit == alone);
    // Navy looks a key up in BlockCache, then in the small engine: a large object's miss
    // probes its Bloom filter too (Cache::lookup: a get that never inserts).
    if (size > 1000 && r.op == Op::kGet && !alone) small.lookup(r);
    hits += hit;
  }
  CHECK(hits > 5000);
  // The same I/O, each engine's shifted to its range: the hybrid's log is the two logs merged.
  std::vector<RecordingDevice::Io> small_io, large_io;
  for (const RecordingDevice::Io& io : hybrid_dev.log) {
    (io.offset >= l.small_offset ? small_io : large_io)
        .push_back({io.op,
                    io.offset - (io.offset >= l.small_offset ? l.small_offset : l.large_offset),
                    io.len});
  }
  CHECK(small_io.size() > 1000);
  CHECK(small_io == small_dev.log);
  CHECK(large_io == large_dev.log);
  CHECK(hybrid.queue().used_bytes() == small.queue().used_bytes() + large.queue().used_bytes());
  CHECK(hybrid.queue().counters().evicted_bytes ==
        small.queue().counters().evicted_bytes + large.queue().counters().evicted_bytes);
  CHECK(hybrid.queue().engine_counters().bloom_false_positive_reads ==
        small.queue().engine_counters().bloom_false_positive_reads);
  CHECK(hybrid.queue().modelled_dram_index_bytes() ==
        small.queue().modelled_dram_index_bytes() + large.queue().modelled_dram_index_bytes());
  const FrameworkCounters& fc = hybrid.queue().counters();
  CHECK(fc.placed_bytes == hybrid.queue().used_bytes() + fc.evicted_bytes + fc.superseded_bytes);
}

TEST_CASE("hybrid: each engine behaves as it does alone on its range and its requests",
          "[hybrid]") {
  check_engines_alone<BigHashQueue>(hybrid_config(256 << 10, 1000, 30), "bighash");
}

TEST_CASE("hybrid: Kangaroo as the small engine behaves as it does alone", "[hybrid]") {
  FrameworkConfig hc = hybrid_config(256 << 10, 1000, 30);
  hc.params.set(kHybridSmallEngineKey.name, std::string("kangaroo"));
  // Its 30 % of 4 MiB: a log of 10 % in 16 KiB segments (7 of them), the rest sets.
  hc.params.set(kKangarooSegmentSizeKey.name, std::string("16KiB"));
  hc.params.set(kKangarooLogPctKey.name, 10);
  check_engines_alone<KangarooQueue>(hc, "kangaroo");
  // Its admission rejections are the hybrid's, and its largest item bounds the threshold.
  hc.params.set(kKangarooAdmissionProbabilityKey.name, 0.5);
  CacheConfig cc;
  cc.capacity_bytes = 4 << 20;
  NullDevice none;
  Cache<FifoPolicy, HybridQueue, NoAdmission> h(cc, hc, fifo(), none);
  for (uint64_t k = 0; k < 2000; ++k) h.access(Request{0, k, 100, Op::kSet});
  CHECK(h.queue().engine_counters().admission_rejections > 800);
  CHECK(h.queue().engine_counters().admission_rejections < 1200);
  REQUIRE(h.queue().kangaroo_engine() != nullptr);
  CHECK(h.queue().bighash_engine() == nullptr);
  Params p = hc.params;
  p.set(kHybridSmallItemMaxSizeKey.name, 4059);  // a 4 KiB page holds 4058 (4096 - 24 - 14)
  CHECK_THROWS_WITH(
      hybrid_layout(HybridConfig::from(p), p, 4 << 20, 1),
      Catch::Contains("framework.hybrid_small_item_max_size") && Catch::Contains("Kangaroo page"));
}

// Bytes written per placement handle (Device::write's tag; 0 for untagged writes).
class PlacementBytesDevice final : public Device {
 public:
  PlacementBytesDevice() : Device(0, 1) {}
  std::vector<uint64_t> bytes = std::vector<uint64_t>(8, 0);

 private:
  void do_write(uint64_t, uint64_t l) override { bytes[0] += l; }
  void do_write_placed(uint64_t, uint64_t l, uint32_t p) override { bytes.at(p) += l; }
  void do_read(uint64_t, uint64_t) override {}
  void do_trim(uint64_t, uint64_t) override {}
};

TEST_CASE("hybrid: each engine's data classes on the handles framework.placement_handles gives",
          "[hybrid][fdp]") {
  // The small engine's classes first, then BlockCache's regions: auto puts them on 1, 2, ...
  // (CacheLib's order), a list on its handles in that order; a list of another length is
  // refused naming the classes. Each handle's bytes are the engine's own flash writes.
  for (const bool kangaroo : {false, true}) {
    FrameworkConfig hc = hybrid_config(256 << 10, 1000, 30);
    std::vector<std::string> lists = {"auto", "3,1"};
    if (kangaroo) {
      hc.params.set(kHybridSmallEngineKey.name, std::string("kangaroo"));
      hc.params.set(kKangarooSegmentSizeKey.name, std::string("16KiB"));
      hc.params.set(kKangarooLogPctKey.name, 10);
      lists = {"auto", "5,4,1"};
    }
    for (const std::string& list : lists) {
      INFO((kangaroo ? "kangaroo " : "bighash ") << list);
      hc.params.set(kPlacementHandlesKey.name, list);
      CacheConfig cc;
      cc.capacity_bytes = 4 << 20;
      PlacementBytesDevice dev;
      Cache<FifoPolicy, HybridQueue, NoAdmission> h(cc, hc, fifo(), dev);
      RngStream rng(5, 0);
      for (int i = 0; i < 40000; ++i) {
        const uint64_t key = 1 + rng.below(20000);
        h.access(Request{0, key, static_cast<uint32_t>(key % 2 == 0 ? 200 : 3000), Op::kGet});
      }
      const HybridQueue& q = h.queue();
      const uint64_t large = q.large_engine().engine_counters().flash_bytes_written;
      REQUIRE(large > 0);
      CHECK(dev.bytes[0] == 0);
      if (kangaroo) {
        const KangarooCounters& e = q.kangaroo_engine()->engine_counters();
        REQUIRE(e.log_bytes_written > 0);
        REQUIRE(e.set_bytes_written > 0);
        const bool listed = list != "auto";
        CHECK(dev.bytes[listed ? 5 : 1] == e.log_bytes_written);
        CHECK(dev.bytes[listed ? 4 : 2] == e.set_bytes_written);
        CHECK(dev.bytes[listed ? 1 : 3] == large);
      } else {
        const uint64_t small = q.bighash_engine()->engine_counters().flash_bytes_written;
        REQUIRE(small > 0);
        CHECK(dev.bytes[list == "auto" ? 1 : 3] == small);
        CHECK(dev.bytes[list == "auto" ? 2 : 1] == large);
      }
    }
    hc.params.set(kPlacementHandlesKey.name, std::string(kangaroo ? "1,2" : "1,2,3"));
    CacheConfig cc;
    cc.capacity_bytes = 4 << 20;
    NullDevice none;
    CHECK_THROWS_WITH(
        (Cache<FifoPolicy, HybridQueue, NoAdmission>(cc, hc, fifo(), none)),
        Catch::Contains("framework.placement_handles") &&
            Catch::Contains(kangaroo ? "(klog, kset, regions)" : "(buckets, regions)") &&
            Catch::Contains(kangaroo ? "'1,2'" : "'1,2,3'"));
  }
}

TEST_CASE("hybrid: bad keys are refused, quoting the value", "[hybrid]") {
  Params p;
  HybridConfig c;
  c.small_item_max_bytes = 4053;  // a 4 KiB bucket holds at most 4052
  CHECK_THROWS_WITH(hybrid_layout(c, p, 64 << 20, 1),
                    Catch::Matchers::Contains("framework.hybrid_small_item_max_size") &&
                        Catch::Matchers::Contains("4052"));
  c = HybridConfig{};
  c.small_pct = 99;  // 99 % of 64 MiB leaves no 16 MiB region
  CHECK_THROWS_WITH(
      hybrid_layout(c, p, 64 << 20, 1),
      Catch::Matchers::Contains("framework.hybrid_small_pct") && Catch::Matchers::Contains("99"));
  Params bad;
  bad.set(kHybridSmallPctKey.name, 0);
  CHECK_THROWS_WITH(HybridConfig::from(bad),
                    Catch::Matchers::Contains("framework.hybrid_small_pct"));
}

}  // namespace
}  // namespace flashpq::test_hybrid
