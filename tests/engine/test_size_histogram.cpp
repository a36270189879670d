// tests/engine/test_size_histogram.cpp — engine/size_histogram.h against a brute-force count,
// and framework.block_size resolution (engine/queue.h block_size_bytes) by hand.
#include <bit>
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "engine/queue.h"
#include "engine/size_histogram.h"
#include "sim/rng.h"

namespace flashpq::test_size_histogram {
namespace {

TEST_CASE("SizeHistogram::count_above is exact at bucket starts, a lower bound inside",
          "[engine][size_histogram]") {
  SizeHistogram h;
  // Buckets: 0..7 one each; then 8 per octave: [8,9) … [15,16), [16,18) … [30,32), [32,36) …
  for (uint64_t s :
       std::vector<uint64_t>{0, 1, 7, 8, 15, 16, 17, 18, 31, 32, 35, 36, 1000, 1u << 20})
    h.add(s);
  CHECK(h.total() == 14);
  CHECK(h.count_above(0) == 13);
  CHECK(h.count_above(7) == 11);
  CHECK(h.count_above(15) == 9);    // 16 and up
  CHECK(h.count_above(16) == 7);    // bucket [16,18) holds 16 and 17: neither counted; 18 and up
  CHECK(h.count_above(17) == 7);    // exact: 18 starts a bucket
  CHECK(h.count_above(31) == 5);    // 32 and up
  CHECK(h.count_above(1000) == 1);  // 1000 lies in [960,1024): whole buckets above it hold 2^20
  CHECK(h.count_above(1u << 20) == 0);

  // Brute force on random sizes: never above the true count, exact at every bucket start.
  RngStream rng(7, 1);
  std::vector<uint64_t> sizes;
  SizeHistogram r;
  for (int i = 0; i < 20000; ++i) {
    const uint64_t s = rng.next() >> (rng.next() % 64);
    sizes.push_back(s);
    r.add(s);
  }
  for (uint64_t b : {uint64_t{0}, uint64_t{5}, uint64_t{4095}, uint64_t{4096}, uint64_t{70000},
                     uint64_t{1} << 40, uint64_t{3} << 50}) {
    uint64_t truth = 0, from_next_start = 0;
    for (uint64_t s : sizes) truth += s > b;
    CHECK(r.count_above(b) <= truth);
    // The first bucket start above b: every size >= it is counted.
    uint64_t start = b + 1;
    if (start >= 8) {
      const uint64_t width = uint64_t{1} << (63 - std::countl_zero(start) - 3);
      start = (start + width - 1) / width * width;
    }
    for (uint64_t s : sizes) from_next_start += s >= start;
    CHECK(r.count_above(b) == from_next_start);
  }
}

TEST_CASE("framework.block_size: bytes as written, or a fraction of C rounded to the granule",
          "[engine][size_histogram]") {
  Params p;
  // auto without a trace: C/256 rounded down to the granule, at least one granule.
  CHECK(block_size_bytes(p, 123456, 4096) == 4096);          // 482 B: one granule
  CHECK(block_size_bytes(p, 256u << 20, 4096) == 1u << 20);  // 256 MiB / 256
  CHECK(block_size_bytes(p, 27885423, 4096) == 106496);      // ⌊108,927 / 4096⌋ pages
  p.set("framework.block_size", "256KiB");
  CHECK(block_size_bytes(p, 123456, 4096) == 262144);
  p.set("framework.block_size", "0.00390625");
  CHECK(block_size_bytes(p, 27885423, 1) == 108927);     // ⌊27,885,423 / 256⌋
  CHECK(block_size_bytes(p, 27885423, 4096) == 106496);  // 26 pages
  CHECK(block_size_bytes(p, 100000, 4096) == 4096);      // 390 B: at least one granule
  p.set("framework.block_size", "1.0");
  CHECK(block_size_bytes(p, 27885423, 512) == 27885056);  // C rounded down to 512 B
  p.set("framework.block_size", "8GiB");
  CHECK_THROWS_WITH(block_size_bytes(p, 1, 1), Catch::Contains("at most 4294967295 bytes"));
  p.set("framework.block_size", "1.5");
  CHECK_THROWS_WITH(block_size_bytes(p, 1, 1), Catch::Contains("framework.block_size"));
  p.set("framework.block_size", "automatic");
  CHECK_THROWS_WITH(block_size_bytes(p, 1, 1), Catch::Contains("auto, a size with a unit"));
}

TEST_CASE("framework.block_size auto: C/256, raised to the largest object within the fewest blocks",
          "[engine][size_histogram]") {
  const Params p;  // auto, the default
  CacheShape shape;
  shape.granule = 4096;
  // C/256 = 1 MiB, larger than any object: C/256.
  shape.capacity_bytes = 256u << 20;
  shape.largest_object_bytes = 70000;
  BlockSize b = resolve_block_size(p, shape, 32);
  CHECK(b.bytes == 1u << 20);
  CHECK(b.basis == "auto: C/256");
  // C/256 = 40,000 B → 36,864 (9 pages, rounded down); the largest object, 70,000 B, needs 18
  // pages, within C/32 = 320,000 B: raised to 73,728 B.
  shape.capacity_bytes = 10240000;
  b = resolve_block_size(p, shape, 32);
  CHECK(b.bytes == 73728);
  CHECK(b.basis == "auto: the largest object");
  // A 4 MB object in the same cache would leave 2 blocks: B stops at C/32 = 78 pages.
  shape.largest_object_bytes = 4092928;
  b = resolve_block_size(p, shape, 32);
  CHECK(b.bytes == 319488);
  CHECK(b.basis == "auto: C/32, the largest object being larger");
  // Objects and C/256 below a page: one logical block.
  shape.capacity_bytes = 100000;
  shape.largest_object_bytes = 100;
  b = resolve_block_size(p, shape, 32);
  CHECK(b.bytes == 4096);
  CHECK(b.basis == "auto: one logical block");
  // Unit-size mode: B counts objects, C/256 of them, at least 1; the device's page is not a
  // unit of objects.
  shape.unit_size = true;
  shape.capacity_bytes = 1000;
  b = resolve_block_size(p, shape, 32);
  CHECK(b.bytes == 3);
  shape.capacity_bytes = 100;
  CHECK(resolve_block_size(p, shape, 32).bytes == 1);
  // A fraction rounds down, and says when it was raised instead.
  Params f;
  f.set("framework.block_size", "0.001");
  shape.unit_size = false;
  shape.capacity_bytes = 10240000;  // 10,240 B → 8,192
  b = resolve_block_size(f, shape);
  CHECK(b.bytes == 8192);
  CHECK(b.basis == "fraction of C");
  shape.capacity_bytes = 1000000;  // 1,000 B → one page, up
  b = resolve_block_size(f, shape);
  CHECK(b.bytes == 4096);
  CHECK(b.basis == "fraction of C, raised to one logical block");
}

TEST_CASE("exact_size_text: a size key's value that reads back exactly", "[engine]") {
  CHECK(exact_size_text(4096) == "4KiB");
  CHECK(exact_size_text(3u << 20) == "3MiB");
  CHECK(exact_size_text(4097) == "4097");
  CHECK(exact_size_text(1536) == "1536");
  for (uint64_t v :
       {uint64_t{1}, uint64_t{1024}, uint64_t{1536}, uint64_t{5} << 30, uint64_t{12345}}) {
    CHECK(parse_size(exact_size_text(v)) == v);
  }
}

}  // namespace
}  // namespace flashpq::test_size_histogram

namespace flashpq::test_size_histogram {
namespace {

TEST_CASE("size histogram: quantiles are their bucket's smallest size", "[size_histogram]") {
  SizeHistogram h;
  CHECK(h.quantile(0.5) == 0);
  for (uint64_t s : {1, 2, 3, 100, 100, 100, 1000, 1000, 5000, 70000}) h.add(s);
  CHECK(h.quantile(0) == 1);
  CHECK(h.quantile(0.1) == 1);
  CHECK(h.quantile(0.3) == 3);
  // 100 lies in [96, 104): 8 per octave from 64.
  CHECK(h.quantile(0.5) == 96);
  // 1000 in [960, 1024), 5000 in [4608, 5120), 70000 in [65536, 73728).
  CHECK(h.quantile(0.8) == 960);
  CHECK(h.quantile(0.9) == 4608);
  CHECK(h.quantile(1.0) == 65536);
}

}  // namespace
}  // namespace flashpq::test_size_histogram
