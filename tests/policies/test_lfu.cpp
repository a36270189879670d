// tests/policies/test_lfu.cpp — LFU (policies/lfu.h): a sequence worked by hand from
// libCacheSim's LFU.c rules (frequency since insertion, ties to the oldest of the lowest
// frequency's list), agreement request by request with a second, deliberately plain
// implementation on random sequences, unit-size and sized. (libCacheSim's miss ratios:
// tests/policies/test_libcachesim.cpp.)
#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "policies/lfu.h"
#include "tests/policies/owning_test_util.h"
#include "tests/test_util.h"

namespace flashpq::test_lfu {
namespace {

using testing::OwningCache;

static_assert(OwningPolicy<LfuPolicy>);

using testing::get;

// Keys in eviction order: by increasing frequency, the oldest of each frequency first.
template <class C>
std::vector<uint64_t> order(const C& c) {
  std::vector<uint64_t> out;
  for (Handle h : c.policy().eviction_order(c.table())) out.push_back(c.table()[h].key);
  return out;
}
template <class C>
uint64_t freq(const C& c, uint64_t key) {
  return c.policy().frequency(c.table(), c.table().find(key));
}

TEST_CASE("LFU: frequencies and ties, worked by hand", "[policies][lfu]") {
  // Capacity 3 objects. Eviction order is written first victim first.
  OwningCache<LfuPolicy> oc(3, true);
  auto& c = oc.cache;
  CHECK_FALSE(c.access(get(1)));
  CHECK_FALSE(c.access(get(2)));
  CHECK_FALSE(c.access(get(3)));
  CHECK(order(c) == std::vector<uint64_t>{1, 2, 3});  // all at 1, the oldest insertion first
  CHECK(c.access(get(1)));                            // 1 -> 2
  CHECK(c.access(get(2)));                            // 2 -> 2
  CHECK(order(c) == std::vector<uint64_t>{3, 1, 2});
  // 4: 3 is the only object at frequency 1: evicted.
  CHECK_FALSE(c.access(get(4)));
  CHECK(order(c) == std::vector<uint64_t>{4, 1, 2});
  CHECK(c.access(get(4)));  // 4 -> 2: three objects at frequency 2, 1 reached it first
  CHECK(order(c) == std::vector<uint64_t>{1, 2, 4});
  // 5: the tie at frequency 2 goes to the object that reached 2 first (its last access is the
  // oldest): 1, although 1 was accessed as often as 2 and 4.
  CHECK_FALSE(c.access(get(5)));
  CHECK(order(c) == std::vector<uint64_t>{5, 2, 4});
  CHECK(c.access(get(5)));  // 5 -> 2, after 2 and 4
  CHECK(c.access(get(2)));  // 2 -> 3
  CHECK(order(c) == std::vector<uint64_t>{4, 5, 2});
  CHECK(freq(c, 2) == 3);
  CHECK(freq(c, 4) == 2);
  // 6: 4 is the least recently accessed of frequency 2.
  CHECK_FALSE(c.access(get(6)));
  CHECK(order(c) == std::vector<uint64_t>{6, 5, 2});
  // 1 again: its count was forgotten at its eviction; it comes back at 1, and evicts 6 (the only
  // object at frequency 1), and the next miss evicts 1 itself.
  CHECK_FALSE(c.access(get(1)));
  CHECK(freq(c, 1) == 1);
  CHECK(order(c) == std::vector<uint64_t>{1, 5, 2});
  CHECK_FALSE(c.access(get(7)));
  CHECK(order(c) == std::vector<uint64_t>{7, 5, 2});
  CHECK(c.evictions() == 5);
  // Buckets: 1 {7}, 2 {5}, 3 {2}. Hits on 5 leave bucket 2 empty (recycled) and create 3 and 4.
  CHECK(c.policy().buckets_in_use() == 3);
  CHECK(c.access(get(5)));  // 5 -> 3, after 2
  CHECK(order(c) == std::vector<uint64_t>{7, 2, 5});
  CHECK(c.access(get(5)));  // 5 -> 4
  CHECK(c.access(get(5)));  // 5 -> 5: alone in bucket 4, the bucket is raised in place
  CHECK(freq(c, 5) == 5);
  CHECK(c.policy().buckets_in_use() == 3);
  // A delete takes 2 out (its bucket empties).
  c.access(Request{0, 2, 1, Op::kDelete});
  CHECK(order(c) == std::vector<uint64_t>{7, 5});
  CHECK(c.policy().buckets_in_use() == 2);
}

TEST_CASE("LFU: a large object evicts in LFU order until it fits", "[policies][lfu]") {
  OwningCache<LfuPolicy> oc(10, false);
  auto& c = oc.cache;
  c.access(get(1, 3));
  c.access(get(2, 3));
  c.access(get(3, 3));
  c.access(get(1, 3));  // 1 -> 2
  c.access(get(3, 3));  // 3 -> 2
  // 4 (6 bytes): 9 bytes used, at most 4 may stay: 2 (frequency 1) goes, then 1 (the first
  // to reach frequency 2).
  CHECK_FALSE(c.access(get(4, 6)));
  CHECK(order(c) == std::vector<uint64_t>{4, 3});
  CHECK(c.used_bytes() == 9);
  // An object larger than the cache is not inserted and evicts nothing.
  CHECK_FALSE(c.access(get(5, 11)));
  CHECK(order(c) == std::vector<uint64_t>{4, 3});
}

// A plain LFU: a vector of objects, the victim found by scanning for the least (frequency,
// time of the last access or insertion).
class ReferenceLfu {
 public:
  explicit ReferenceLfu(uint64_t capacity) : capacity_(capacity) {}
  bool access(const Request& r) {
    ++now_;
    for (Obj& o : objs_) {
      if (o.key == r.key) {
        ++o.freq;
        o.last = now_;
        return true;
      }
    }
    if (r.size_bytes > capacity_) return false;
    while (used_ + r.size_bytes > capacity_) {
      size_t v = 0;
      for (size_t i = 1; i < objs_.size(); ++i) {
        const Obj& a = objs_[i];
        const Obj& b = objs_[v];
        if (a.freq < b.freq || (a.freq == b.freq && a.last < b.last)) v = i;
      }
      used_ -= objs_[v].size;
      objs_.erase(objs_.begin() + static_cast<std::ptrdiff_t>(v));
    }
    objs_.push_back({r.key, r.size_bytes, 1, now_});
    used_ += r.size_bytes;
    return false;
  }

 private:
  struct Obj {
    uint64_t key;
    uint32_t size;
    uint64_t freq;
    uint64_t last;
  };
  uint64_t capacity_;
  uint64_t used_ = 0;
  uint64_t now_ = 0;
  std::vector<Obj> objs_;
};

TEST_CASE("LFU agrees with a plain implementation request by request", "[policies][lfu]") {
  for (const uint32_t max_size : {1u, 100u}) {
    for (const uint64_t capacity : {1u, 7u, 50u, 400u}) {
      const auto trace = testing::random_gets(capacity * 37 + max_size, 20000, 300, max_size);
      OwningCache<LfuPolicy> oc(capacity, false);
      ReferenceLfu ref(capacity);
      for (size_t i = 0; i < trace.size(); ++i) {
        INFO("max_size " << max_size << " capacity " << capacity << " request " << i);
        REQUIRE(oc.cache.access(trace[i]) == ref.access(trace[i]));
      }
      CHECK(oc.cache.used_bytes() <= capacity);
      // One bucket per distinct frequency, no more.
      CHECK(oc.cache.policy().buckets_in_use() <= oc.cache.table().size());
    }
  }
}

}  // namespace
}  // namespace flashpq::test_lfu
