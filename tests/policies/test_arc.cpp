// tests/policies/test_arc.cpp — ARC (policies/arc.h): a sequence worked by hand from the FAST'03
// paper's Figure 4 (p's adaptation on a B1 hit and on a B2 hit), agreement request by request
// with a second, deliberately plain implementation (std::list, from the paper and libCacheSim's
// ARC.c) on random sequences, unit-size and sized. (libCacheSim's miss ratios:
// tests/policies/test_libcachesim.cpp.)
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <iterator>
#include <list>
#include <string>
#include <unordered_map>
#include <vector>

#include "policies/arc.h"
#include "tests/policies/owning_test_util.h"
#include "tests/test_util.h"

namespace flashpq::test_arc {
namespace {

using testing::OwningCache;

using testing::get;

using V = std::vector<uint64_t>;

TEST_CASE("ARC: p adapts on a B1 hit and a B2 hit, worked by hand", "[policies][arc]") {
  // c = 4 objects. Lists are written MRU -> LRU.
  OwningCache<ArcPolicy> oc(4, true);
  auto& c = oc.cache;
  const auto& a = c.policy();
  const ObjectTable& t = c.table();
  for (uint64_t k : {1, 2, 3, 4}) CHECK_FALSE(c.access(get(k)));  // case IV, no eviction
  CHECK(testing::list_keys(t, a.t1()) == V{4, 3, 2, 1});
  CHECK(c.access(get(1)));  // case I: T1 -> T2
  CHECK(c.access(get(2)));
  CHECK(testing::list_keys(t, a.t1()) == V{4, 3});
  CHECK(testing::list_keys(t, a.t2()) == V{2, 1});
  // 5, case IV B (|T1|+|B1|+1 = 3 <= 4; the lists hold 4 < 2c: no B2 trim).
  // REPLACE: |T1| = 2 > p = 0: T1's LRU 3 -> B1.
  CHECK_FALSE(c.access(get(5)));
  CHECK(testing::list_keys(t, a.t1()) == V{5, 4});
  CHECK(a.b1().contains(3));
  // 6, case IV B (2+1+1 = 4 <= 4): REPLACE evicts 4 -> B1 = {4, 3}.
  CHECK_FALSE(c.access(get(6)));
  CHECK(testing::list_keys(t, a.t1()) == V{6, 5});
  CHECK(a.b1().size() == 2);
  // 7, case IV A (2+2+1 = 5 > 4, B1 non-empty): B1's LRU 3 goes; REPLACE: 5 -> B1 = {5, 4}.
  CHECK_FALSE(c.access(get(7)));
  CHECK_FALSE(a.b1().contains(3));
  CHECK(a.b1().contains(4));
  CHECK(a.b1().contains(5));
  CHECK(testing::list_keys(t, a.t1()) == V{7, 6});
  CHECK(a.p() == 0);
  // 4, case II (a B1 hit): δ1 = max(|B2|/|B1|, 1) = max(0/2, 1) = 1, p = 0 + 1 = 1.
  // REPLACE: |T1| = 2 > p = 1: T1's LRU 6 -> B1 = {6, 5}. 4 enters T2.
  CHECK_FALSE(c.access(get(4)));
  CHECK(a.p() == 1);
  CHECK(testing::list_keys(t, a.t1()) == V{7});
  CHECK(testing::list_keys(t, a.t2()) == V{4, 2, 1});
  CHECK(a.b1().size() == 2);
  CHECK(a.b1().contains(6));
  CHECK(a.b1().contains(5));
  // 8, case IV B (1+2+1 = 4 <= 4; lists hold 6 < 8). REPLACE: |T1| = 1 = p but 8 is not in B2,
  // so T2's LRU 1 -> B2.
  CHECK_FALSE(c.access(get(8)));
  CHECK(testing::list_keys(t, a.t1()) == V{8, 7});
  CHECK(testing::list_keys(t, a.t2()) == V{4, 2});
  CHECK(a.b2().contains(1));
  // 9, case IV A (2+2+1 = 5 > 4): B1's LRU 5 goes; REPLACE: |T1| = 2 > 1: 7 -> B1 = {7, 6}.
  CHECK_FALSE(c.access(get(9)));
  CHECK(testing::list_keys(t, a.t1()) == V{9, 8});
  CHECK_FALSE(a.b1().contains(5));
  CHECK(a.b1().contains(7));
  // 1, case III (a B2 hit): δ2 = max(|B1|/|B2|, 1) = max(2/1, 1) = 2, p = max(1 - 2, 0) = 0.
  // REPLACE: |T1| = 2 > 0: 8 -> B1 = {8, 7, 6}. 1 enters T2.
  CHECK_FALSE(c.access(get(1)));
  CHECK(a.p() == 0);
  CHECK(a.b2().size() == 0);
  CHECK(a.b1().size() == 3);
  CHECK(testing::list_keys(t, a.t1()) == V{9});
  CHECK(testing::list_keys(t, a.t2()) == V{1, 4, 2});
  // 8, case II with |B2| = 0: δ1 = 1, p = 1. REPLACE: |T1| = 1 = p, not > p, and 8 came from
  // B1: T2's LRU 2 -> B2. 8 enters T2.
  CHECK_FALSE(c.access(get(8)));
  CHECK(a.p() == 1);
  CHECK(testing::list_keys(t, a.t1()) == V{9});
  CHECK(testing::list_keys(t, a.t2()) == V{8, 1, 4});
  CHECK(a.b2().contains(2));
  // 2, case III: |B1| = 2 (7, 6), |B2| = 1: δ2 = 2, p = max(1 - 2, 0) = 0. REPLACE: |T1| = 1 >
  // 0: 9 -> B1. 2 enters T2; T1 is empty.
  CHECK_FALSE(c.access(get(2)));
  CHECK(a.p() == 0);
  CHECK(testing::list_keys(t, a.t1()).empty());
  CHECK(testing::list_keys(t, a.t2()) == V{2, 8, 1, 4});
  CHECK(a.b1().contains(9));
  CHECK(c.evictions() == 9);
}

TEST_CASE("ARC, sized: p moves by the byte ratio, ghosts trimmed per eviction", "[policies][arc]") {
  // c = 10 bytes. 1 (4 B), 2 (4 B), 3 (2 B) fill it; 2 is hit into T2.
  OwningCache<ArcPolicy> oc(10, false);
  auto& c = oc.cache;
  const auto& a = c.policy();
  const ObjectTable& t = c.table();
  CHECK_FALSE(c.access(get(1, 4)));
  CHECK_FALSE(c.access(get(2, 4)));
  CHECK_FALSE(c.access(get(3, 2)));
  CHECK(c.access(get(2, 4)));
  // 4 (6 B) needs two evictions. First: |T1|+|B1|+6 = 6+0+6 = 12 > 10, case IV A with B1
  // empty: T1's LRU 1 leaves without a ghost. Second: 2+0+6 = 8 <= 10, case IV B (the lists
  // hold 6 < 2c: no trim), REPLACE (|T1| = 2 > p = 0): 3 -> B1. 4 fits (4 + 6 = 10).
  CHECK_FALSE(c.access(get(4, 6)));
  CHECK(testing::list_keys(t, a.t1()) == V{4});
  CHECK(testing::list_keys(t, a.t2()) == V{2});
  CHECK_FALSE(a.b1().contains(1));
  CHECK(a.b1().contains(3));
  CHECK(a.b1().bytes() == 2);
  // 3 (2 B), case II: δ1 = max(0/2, 1) = 1 byte: p = 1 (not 2, the object's size).
  // REPLACE: |T1| = 6 > 1: 4 -> B1 (6 B). 3 enters T2.
  CHECK_FALSE(c.access(get(3, 2)));
  CHECK(a.p() == 1);
  CHECK(testing::list_keys(t, a.t2()) == V{3, 2});
  CHECK(a.b1().bytes() == 6);
}

// A plain ARC on std::lists (front = MRU), from Figure 4 with ARC.c's byte rules (policies/arc.h
// 1-6). lcs_too_large: as ARC.c, a ghost hit on an object larger than the cache still removes
// the ghost and adapts p (FlashPQ never sees such a request).
class ReferenceArc {
 public:
  ReferenceArc(uint64_t capacity, bool unit, bool lcs_too_large = false)
      : c_(capacity), unit_(unit), lcs_too_large_(lcs_too_large) {}

  bool access(const Request& r) {
    const uint64_t size = unit_ ? 1 : r.size_bytes;
    auto it = where_.find(r.key);
    if (it != where_.end() && (it->second.list == kT1 || it->second.list == kT2)) {
      in_b1_ = in_b2_ = false;  // case I
      move(r.key, kT2);
      return true;
    }
    if (size > c_ && !lcs_too_large_) return false;
    bool ghost = false;
    if (it != where_.end()) {
      const double b1 = static_cast<double>(bytes_[kB1]), b2 = static_cast<double>(bytes_[kB2]);
      if (it->second.list == kB1) {  // case II
        p_ = std::min(p_ + std::max(b2 / b1, 1.0), static_cast<double>(c_));
        in_b1_ = true;
        in_b2_ = false;
      } else {  // case III
        p_ = std::max(p_ - std::max(b1 / b2, 1.0), 0.0);
        in_b1_ = false;
        in_b2_ = true;
      }
      drop(r.key);
      ghost = true;
    }
    if (size > c_) return false;
    while (bytes_[kT1] + bytes_[kT2] + size > c_) evict(ghost, size);
    if (ghost) in_b1_ = in_b2_ = false;
    lists_[ghost ? kT2 : kT1].push_front({r.key, size});
    where_[r.key] = {ghost ? kT2 : kT1, lists_[ghost ? kT2 : kT1].begin()};
    bytes_[ghost ? kT2 : kT1] += size;
    return false;
  }

 private:
  enum { kT1, kT2, kB1, kB2 };
  struct Obj {
    uint64_t key, size;
  };
  struct Where {
    int list;
    std::list<Obj>::iterator it;
  };

  void evict(bool ghost, uint64_t size) {
    if (!ghost) {
      if (bytes_[kT1] + bytes_[kB1] + size > c_) {  // case IV A
        if (bytes_[kB1] == 0) {
          drop(lists_[kT1].back().key);  // T1's LRU, no ghost
          return;
        }
        drop(lists_[kB1].back().key);
      } else if (bytes_[kT1] + bytes_[kB1] + bytes_[kT2] + bytes_[kB2] >= 2 * c_ &&
                 bytes_[kB2] > 0) {  // case IV B
        drop(lists_[kB2].back().key);
      }
    }
    // REPLACE
    const double t1 = static_cast<double>(bytes_[kT1]);
    if ((bytes_[kT1] > 0 && (t1 > p_ || (t1 == p_ && in_b2_))) || bytes_[kT2] == 0) {
      move(lists_[kT1].back().key, kB1);
    } else {
      move(lists_[kT2].back().key, kB2);
    }
  }
  void drop(uint64_t key) {
    const Where w = where_.at(key);
    bytes_[w.list] -= w.it->size;
    lists_[w.list].erase(w.it);
    where_.erase(key);
  }
  void move(uint64_t key, int to) {
    const Where w = where_.at(key);
    const Obj o = *w.it;
    drop(key);
    lists_[to].push_front(o);
    bytes_[to] += o.size;
    where_[key] = {to, lists_[to].begin()};
  }

  uint64_t c_;
  bool unit_, lcs_too_large_;
  double p_ = 0;
  bool in_b1_ = false, in_b2_ = false;
  std::list<Obj> lists_[4];
  uint64_t bytes_[4] = {0, 0, 0, 0};
  std::unordered_map<uint64_t, Where> where_;
};

TEST_CASE("ARC agrees with a plain implementation request by request", "[policies][arc]") {
  for (const uint32_t max_size : {1u, 100u}) {
    for (const uint64_t capacity : {1u, 2u, 7u, 50u, 400u, 3000u}) {
      const auto trace = testing::random_gets(capacity * 31 + max_size, 20000, 300, max_size);
      OwningCache<ArcPolicy> oc(capacity, false);
      ReferenceArc ref(capacity, false);
      for (size_t i = 0; i < trace.size(); ++i) {
        INFO("max_size " << max_size << " capacity " << capacity << " request " << i);
        REQUIRE(oc.cache.access(trace[i]) == ref.access(trace[i]));
      }
      CHECK(oc.cache.used_bytes() <= capacity);
      const auto& a = oc.cache.policy();
      CHECK(a.t1().bytes + a.t2().bytes == oc.cache.used_bytes());
    }
  }
}

TEST_CASE("ARC: sets and deletes keep the lists consistent", "[policies][arc]") {
  for (const uint32_t max_size : {1u, 100u}) {
    for (const uint64_t capacity : {3u, 60u, 500u}) {
      auto trace = testing::random_gets(capacity * 7 + max_size, 20000, 200, max_size);
      for (size_t i = 0; i < trace.size(); ++i) {
        if (i % 7 == 3) trace[i].op = Op::kSet;
        if (i % 11 == 5) trace[i].op = Op::kDelete;
      }
      OwningCache<ArcPolicy> oc(capacity, false);
      for (const Request& r : trace) {
        oc.cache.access(r);
        const auto& a = oc.cache.policy();
        REQUIRE(a.t1().bytes + a.t2().bytes == oc.cache.used_bytes());
        REQUIRE(oc.cache.used_bytes() <= capacity);
        REQUIRE(a.p() >= 0);
        REQUIRE(a.p() <= static_cast<double>(capacity));
        // victim() only looks: twice the same.
        uint64_t k1 = 0, k2 = 0;
        const bool v1 = oc.cache.next_victim(r.size_bytes, &k1);
        const bool v2 = oc.cache.next_victim(r.size_bytes, &k2);
        REQUIRE((v1 == v2 && k1 == k2));
      }
    }
  }
}

}  // namespace
}  // namespace flashpq::test_arc
