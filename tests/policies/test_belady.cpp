// tests/policies/test_belady.cpp — the offline bounds: the next-access file (traces/
// next_access.h, engine/next_access.h) against a forward scan; Belady's MIN (policies/belady.h)
// worked by hand and against a plain implementation (for unit sizes its hits do not depend on
// how never-again objects are ordered, so the comparison is exact request by request); PFOO-L
// (policies/pfoo_l.h) worked by hand and never above Belady's hit ratio. The bounds against
// every policy on the shared traces: tests/policies/test_libcachesim.cpp.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "engine/next_access.h"
#include "policies/belady.h"
#include "policies/pfoo_l.h"
#include "tests/policies/owning_test_util.h"
#include "tests/test_util.h"
#include "traces/next_access.h"

namespace flashpq::test_belady {
namespace {

std::string write_future(const testing::TempDir& dir, const std::vector<Request>& trace) {
  return testing::write_future(trace, dir.file("trace.flashpq-next-access"));
}

std::vector<Request> gets(const std::vector<uint64_t>& keys) {
  std::vector<Request> out;
  for (uint64_t k : keys) out.push_back(Request{0, k, 1, Op::kGet});
  return out;
}

PolicyConfig with_future(const std::string& name, const std::string& path) {
  PolicyConfig p;
  p.name = name;
  p.next_access_file = path;
  return p;
}

TEST_CASE("next-access file: each request's next index, size and op", "[policies][belady]") {
  testing::TempDir dir;
  std::vector<Request> trace = gets({5, 6, 5, 7, 6, 5});
  trace[3].size_bytes = 300;
  trace[4].op = Op::kSet;
  const NextAccessFile f(write_future(dir, trace));
  REQUIRE(f.requests() == 6);
  CHECK(f.content_hash() == 42);
  const uint64_t never = kNeverAgain;
  const std::vector<uint64_t> expected = {2, 4, 5, never, never, never};
  for (uint64_t i = 0; i < 6; ++i) {
    INFO("request " << i);
    CHECK(f.next(i) == expected[i]);
  }
  CHECK(f.size(3) == 300);
  CHECK(f.op(4) == static_cast<uint8_t>(Op::kSet));
  CHECK(f.op(5) == static_cast<uint8_t>(Op::kGet));
  // A reader that yields other than the summary's count is refused, and nothing is left.
  const std::vector<Request> two = gets({1, 2});
  testing::MemoryTrace shorter(two);
  CHECK_THROWS_WITH(write_next_access_file(shorter, 3, 0, dir.file("x")),
                    Catch::Contains("yields 2 requests, its summary 3"));
  CHECK_FALSE(std::filesystem::exists(dir.file("x")));
  CHECK_THROWS_WITH(NextAccessFile(dir.file("absent")), Catch::Contains("cannot open"));
}

#ifdef FLASHPQ_SHARED_TRACES
TEST_CASE("the pass computes what oracleGeneral records carry as next_access_vtime",
          "[policies][belady]") {
  // libCacheSim's oracleGeneral record: u32 time, u64 id, u32 size, i64 next_access_vtime (the
  // 1-based index of the next request to the id, -1 for none), read here straight from the file.
  const std::string path = FLASHPQ_SHARED_TRACES "/libcachesim/cloudPhysicsIO.oracleGeneral.bin";
  const std::string bytes = testing::slurp(path);
  REQUIRE(bytes.size() % 24 == 0);
  const auto& trace = testing::load_trace(path);
  REQUIRE(trace.size() == bytes.size() / 24);
  testing::TempDir dir;
  const NextAccessFile f(write_future(dir, trace));
  size_t mismatches = 0;
  for (uint64_t i = 0; i < trace.size(); ++i) {
    int64_t vtime;
    std::memcpy(&vtime, bytes.data() + 24 * i + 16, 8);
    const uint64_t next = f.next(i);
    mismatches += next == kNeverAgain ? vtime != -1 : vtime != static_cast<int64_t>(next + 1);
  }
  CHECK(mismatches == 0);
}
#endif

TEST_CASE("Belady: worked by hand", "[policies][belady]") {
  // Capacity 2, unit sizes. Trace (index: key): 0:1 1:2 2:3 3:1 4:2 5:3 6:1.
  //   0, 1: misses, cached {1 (next 3), 2 (next 4)}.
  //   2: 3 misses (next 5); the farthest of 1 (3), 2 (4) is 2: evicted -> {1, 3}.
  //   3: 1 hits (next 6). 4: 2 misses (never again); farthest of 1 (6), 3 (5) is 1: evicted.
  //      {3, 2}; 5: 3 hits (never again). 6: 1 misses: 3 and 2 are both never again.
  // LRU on the same trace hits nothing; MIN hits twice.
  testing::TempDir dir;
  const auto trace = gets({1, 2, 3, 1, 2, 3, 1});
  testing::OwningCache<BeladyPolicy> oc(2, true, with_future("belady", write_future(dir, trace)));
  std::vector<bool> hits;
  for (const Request& r : trace) hits.push_back(oc.cache.access(r));
  CHECK(hits == std::vector<bool>{false, false, false, true, false, true, false});
  CHECK(oc.cache.evictions() == 3);
}

TEST_CASE("Belady refuses to run without the trace's future", "[policies][belady]") {
  CHECK_THROWS_WITH(testing::OwningCache<BeladyPolicy>(2, true, PolicyConfig{}),
                    Catch::Contains("needs the trace's next accesses"));
}

// A plain MIN: on a miss with the cache full, scan forward from each cached object for its next
// request and evict the farthest (unit sizes).
std::vector<bool> plain_min(const std::vector<Request>& trace, size_t capacity) {
  std::vector<uint64_t> cached;
  std::vector<bool> hits;
  for (size_t i = 0; i < trace.size(); ++i) {
    const uint64_t key = trace[i].key;
    if (std::find(cached.begin(), cached.end(), key) != cached.end()) {
      hits.push_back(true);
      continue;
    }
    hits.push_back(false);
    if (cached.size() == capacity) {
      size_t far = 0, far_at = 0;
      for (size_t c = 0; c < cached.size(); ++c) {
        size_t j = i + 1;
        while (j < trace.size() && trace[j].key != cached[c]) ++j;
        if (j >= far_at) {
          far_at = j;
          far = c;
        }
      }
      cached.erase(cached.begin() + static_cast<std::ptrdiff_t>(far));
    }
    cached.push_back(key);
  }
  return hits;
}

TEST_CASE("Belady agrees with a plain MIN request by request (unit sizes)", "[policies][belady]") {
  testing::TempDir dir;
  for (const uint64_t capacity : {1u, 5u, 40u}) {
    const auto trace = testing::random_gets(capacity + 7, 4000, 120, 1);
    const std::string path = write_future(dir, trace);
    testing::OwningCache<BeladyPolicy> oc(capacity, true, with_future("belady", path));
    const std::vector<bool> expected = plain_min(trace, capacity);
    for (size_t i = 0; i < trace.size(); ++i) {
      INFO("capacity " << capacity << " request " << i);
      REQUIRE(oc.cache.access(trace[i]) == expected[i]);
    }
  }
}

TEST_CASE("PFOO-L: worked by hand", "[policies][pfoo_l]") {
  // Trace (index: key size): 0:1 10  1:2 1  2:1 10  3:2 1  4:3 5  5:3 5. N = 6.
  // Intervals (start -> end: cost = size x length): 0->2: 10x2 = 20; 1->3: 1x2 = 2;
  // 4->5: 5x1 = 5. By cost: 2, 5, 20.
  //   C = 1: budget 6; take 2 (used 0 <= 6 -> 2), take 5 (2 <= 6 -> 7), stop (7 > 6):
  //          hits at 3 and 5: 2 of 6 requests, bytes 1 + 5 of 32.
  //   C = 2: budget 12: all three (7 <= 12 -> 27): hits at 2, 3, 5.
  testing::TempDir dir;
  std::vector<Request> trace = {{0, 1, 10, Op::kGet}, {0, 2, 1, Op::kGet}, {0, 1, 10, Op::kGet},
                                {0, 2, 1, Op::kGet},  {0, 3, 5, Op::kGet}, {0, 3, 5, Op::kGet}};
  const NextAccessFile future(write_future(dir, trace));
  auto hits_at = [&](uint64_t capacity) {
    PfooLCache bound(testing::OwningCache<BeladyPolicy>::make_config(capacity, false), future);
    std::vector<bool> hits;
    for (const Request& r : trace) hits.push_back(bound.access(r));
    return hits;
  };
  CHECK(hits_at(1) == std::vector<bool>{false, false, false, true, false, true});
  CHECK(hits_at(2) == std::vector<bool>{false, false, true, true, false, true});
}

TEST_CASE("PFOO-L's hit ratio is at least Belady's, unit-size and sized", "[policies][pfoo_l]") {
  testing::TempDir dir;
  for (const uint32_t max_size : {1u, 50u}) {
    for (const uint64_t capacity : {10u, 100u, 1000u}) {
      const auto trace = testing::random_gets(capacity * 3 + max_size, 5000, 400, max_size);
      const std::string path = write_future(dir, trace);
      const bool unit = max_size == 1;
      testing::OwningCache<BeladyPolicy> oc(capacity, unit, with_future("belady", path));
      const auto belady = testing::replay_miss_ratios(oc.cache, trace);
      const NextAccessFile future(path);
      PfooLCache bound(testing::OwningCache<BeladyPolicy>::make_config(capacity, unit), future);
      const auto pfoo = testing::replay_miss_ratios(bound, trace);
      INFO("max_size " << max_size << " capacity " << capacity);
      CHECK(pfoo.object <= belady.object);
      CHECK(pfoo.object > 0);
    }
  }
}

}  // namespace
}  // namespace flashpq::test_belady
