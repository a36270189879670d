// tests/policies/test_twoq.cpp — 2Q (policies/twoq.h): a sequence worked by hand from the VLDB'94
// paper's full version of 2Q (§2; an A1out hit promoting to Am), objects larger than Kin not
// cached (TwoQ_can_insert), agreement request by request with a second, deliberately plain
// implementation (std::list) on random sequences, unit-size and sized, and the deliberate
// difference of policies/twoq.h (TwoQ.c's Am bound) measured. (libCacheSim's miss ratios:
// tests/policies/test_libcachesim.cpp.)
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <list>
#include <string>
#include <unordered_map>
#include <vector>

#include "policies/twoq.h"
#include "tests/policies/owning_test_util.h"
#include "tests/test_util.h"

namespace flashpq::test_twoq {
namespace {

using testing::OwningCache;

using testing::get;

using V = std::vector<uint64_t>;

TEST_CASE("2Q: an A1out hit promotes to Am, worked by hand", "[policies][twoq]") {
  // c = 4 objects: Kin = 1, Kout = 2. Lists are written head -> tail.
  OwningCache<TwoQPolicy> oc(4, true);
  auto& c = oc.cache;
  const auto& q = c.policy();
  const ObjectTable& t = c.table();
  CHECK(q.kin() == 1);
  CHECK(q.a1out().capacity() == 2);
  for (uint64_t k : {1, 2, 3, 4}) CHECK_FALSE(c.access(get(k)));  // free slots: into A1in
  CHECK(testing::list_keys(t, q.a1in()) == V{4, 3, 2, 1});
  // 5: |A1in| = 4 > Kin: A1in's tail 1 is paged out, its identifier enters A1out.
  CHECK_FALSE(c.access(get(5)));
  CHECK(testing::list_keys(t, q.a1in()) == V{5, 4, 3, 2});
  CHECK(q.a1out().contains(1));
  // 2, a hit in A1in: nothing moves (a correlated reference).
  CHECK(c.access(get(2)));
  CHECK(testing::list_keys(t, q.a1in()) == V{5, 4, 3, 2});
  // 6, 7: 2 and then 3 leave A1in for A1out; |A1out| > Kout drops its tail 1.
  CHECK_FALSE(c.access(get(6)));
  CHECK_FALSE(c.access(get(7)));
  CHECK(testing::list_keys(t, q.a1in()) == V{7, 6, 5, 4});
  CHECK_FALSE(q.a1out().contains(1));
  CHECK(q.a1out().contains(2));
  CHECK(q.a1out().contains(3));
  // 2, an A1out hit (a miss): reclaimfor pages out A1in's tail 4 (|A1in| = 4 > Kin) into
  // A1out, and 2 enters Am's head.
  CHECK_FALSE(c.access(get(2)));
  CHECK(testing::list_keys(t, q.am()) == V{2});
  CHECK(testing::list_keys(t, q.a1in()) == V{7, 6, 5});
  CHECK_FALSE(q.a1out().contains(2));
  CHECK(q.a1out().contains(4));
  CHECK(q.a1out().contains(3));
  // 3, 4: the same, paging out 5 and 6.
  CHECK_FALSE(c.access(get(3)));
  CHECK_FALSE(c.access(get(4)));
  CHECK(testing::list_keys(t, q.am()) == V{4, 3, 2});
  CHECK(testing::list_keys(t, q.a1in()) == V{7});
  CHECK(q.a1out().contains(6));
  CHECK(q.a1out().contains(5));
  // 2, a hit in Am: to its head.
  CHECK(c.access(get(2)));
  CHECK(testing::list_keys(t, q.am()) == V{2, 4, 3});
  // 8: |A1in| = 1 = Kin, not above it: Am's tail 3 is paged out and remembered nowhere.
  CHECK_FALSE(c.access(get(8)));
  CHECK(testing::list_keys(t, q.a1in()) == V{8, 7});
  CHECK(testing::list_keys(t, q.am()) == V{2, 4});
  CHECK_FALSE(q.a1out().contains(3));
  // 3 is a plain miss again: into A1in; A1in's tail 7 goes to A1out, whose tail 5 leaves.
  CHECK_FALSE(c.access(get(3)));
  CHECK(testing::list_keys(t, q.a1in()) == V{3, 8});
  CHECK(q.a1out().contains(7));
  CHECK(q.a1out().contains(6));
  CHECK_FALSE(q.a1out().contains(5));
  CHECK(c.evictions() == 8);
}

TEST_CASE("2Q: keys and sized queues", "[policies][twoq]") {
  PolicyConfig pc;
  pc.name = "twoq";
  pc.params.set("policy.twoq_ain_ratio", 0.5);
  pc.params.set("policy.twoq_aout_ratio", 0.3);
  // c = 10 bytes: Kin = 5, Kout = 3 bytes.
  OwningCache<TwoQPolicy> oc(10, false, pc);
  auto& c = oc.cache;
  const auto& q = c.policy();
  const ObjectTable& t = c.table();
  CHECK(q.kin() == 5);
  CHECK(q.a1out().capacity() == 3);
  CHECK_FALSE(c.access(get(1, 2)));
  CHECK_FALSE(c.access(get(2, 4)));
  CHECK_FALSE(c.access(get(3, 3)));
  // 4 (3 B): 9 + 3 > 10; |A1in| = 9 > 5: 1 (2 B) -> A1out; 7 + 3 fits.
  CHECK_FALSE(c.access(get(4, 3)));
  CHECK(testing::list_keys(t, q.a1in()) == V{4, 3, 2});
  // 1 (2 B), an A1out hit: 10 + 2 > 10; 2 (4 B) leaves A1in; its 4 B exceed Kout = 3: it is
  // not remembered. 1 enters Am.
  CHECK_FALSE(c.access(get(1, 2)));
  CHECK(testing::list_keys(t, q.am()) == V{1});
  CHECK(q.a1out().size() == 0);
  // 2 (4 B) is a plain miss: 8 + 4 > 10, |A1in| = 6 > 5: 3 (3 B) -> A1out; 5 + 4 fits.
  CHECK_FALSE(c.access(get(2, 4)));
  CHECK(testing::list_keys(t, q.a1in()) == V{2, 4});
  CHECK(testing::list_keys(t, q.am()) == V{1});
  CHECK(q.a1out().contains(3));
  // 7 (1 B): 9 + 1 fits, nothing leaves.
  CHECK_FALSE(c.access(get(7, 1)));
  // 3 (3 B), an A1out hit: 10 + 3 > 10, |A1in| = 8 > 5: 4 (3 B) -> A1out; 3 enters Am.
  CHECK_FALSE(c.access(get(3, 3)));
  CHECK(testing::list_keys(t, q.a1in()) == V{7, 2});
  CHECK(testing::list_keys(t, q.am()) == V{3, 1});
  CHECK(q.a1out().contains(4));
  CHECK_FALSE(q.a1out().contains(3));
  // 8 (2 B): 10 + 2 > 10, |A1in| = 5 = Kin: Am's tail 1 goes, remembered nowhere.
  CHECK_FALSE(c.access(get(8, 2)));
  CHECK(testing::list_keys(t, q.a1in()) == V{8, 7, 2});
  CHECK(testing::list_keys(t, q.am()) == V{3});
  CHECK_FALSE(q.a1out().contains(1));
  CHECK(c.used_bytes() == 10);
}

TEST_CASE("2Q: objects larger than Kin are not cached (TwoQ_can_insert)", "[policies][twoq]") {
  // c = 20 bytes: Kin = 5, Kout = 10.
  OwningCache<TwoQPolicy> oc(20, false);
  auto& c = oc.cache;
  const auto& q = c.policy();
  const ObjectTable& t = c.table();
  REQUIRE(q.kin() == 5);
  CHECK_FALSE(c.access(get(1, 6)));  // larger than Kin: a miss, not cached
  CHECK_FALSE(c.contains(1));
  CHECK(c.used_bytes() == 0);
  for (uint64_t k : {1, 2, 3, 4}) CHECK_FALSE(c.access(get(k, 5)));  // Kin bytes: cached
  CHECK(testing::list_keys(t, q.a1in()) == V{4, 3, 2, 1});
  CHECK_FALSE(c.access(get(5, 5)));  // 1 -> A1out
  CHECK(q.a1out().contains(1));
  CHECK(c.evictions() == 1);
  // 1, now of 6 bytes: its A1out key goes (TwoQ_find), then it is declined; nothing evicted.
  CHECK_FALSE(c.access(get(1, 6)));
  CHECK_FALSE(c.contains(1));
  CHECK_FALSE(q.a1out().contains(1));
  CHECK(c.evictions() == 1);
  CHECK(c.used_bytes() == 20);
  // The next miss is a plain one, into A1in (2 -> A1out), not Am.
  CHECK_FALSE(c.access(get(6, 3)));
  CHECK(testing::list_keys(t, q.a1in()) == V{6, 5, 4, 3});
  CHECK(q.am().empty());
  CHECK(q.a1out().contains(2));
  // 1 at 5 bytes is no A1out hit any more: into A1in (3 -> A1out).
  CHECK_FALSE(c.access(get(1, 5)));
  CHECK(testing::list_keys(t, q.a1in()) == V{1, 6, 5, 4});
  CHECK(q.am().empty());
  // 2 at 5 bytes, an A1out hit: into Am.
  CHECK_FALSE(c.access(get(2, 5)));
  CHECK(testing::list_keys(t, q.am()) == V{2});

  // Unit size: nothing is cached while Kin = 0 (c < 4), as in libCacheSim.
  OwningCache<TwoQPolicy> u3(3, true), u4(4, true);
  for (int i = 0; i < 3; ++i) {
    CHECK_FALSE(u3.cache.access(get(1)));
    CHECK(u4.cache.access(get(1)) == (i > 0));
  }
  CHECK(u3.cache.used_bytes() == 0);
}

// A plain 2Q on std::lists (front = head), from the paper's full version with libCacheSim's
// byte rules and its admission (TwoQ_can_insert: an object larger than Kin is looked up, its
// A1out key removed, and not cached): policies/twoq.h. lcs: TwoQ.c's remaining departure too
// (Am is an LRU sub-cache of c - Kin bytes), and an object larger than c leaves A1out as well
// (TwoQ_find runs for it; FlashPQ's cache never shows it to the policy), to show that this is
// the whole difference.
class ReferenceTwoQ {
 public:
  ReferenceTwoQ(uint64_t capacity, bool unit, double ain = 0.25, double aout = 0.5,
                bool lcs = false)
      : c_(capacity),
        kin_(static_cast<uint64_t>(static_cast<double>(capacity) * ain)),
        kout_(static_cast<uint64_t>(static_cast<double>(capacity) * aout)),
        unit_(unit),
        lcs_(lcs) {}

  bool access(const Request& r) {
    const uint64_t size = unit_ ? 1 : r.size_bytes;
    auto it = where_.find(r.key);
    if (it != where_.end() && it->second.list == kA1in) return true;  // nothing
    if (it != where_.end() && it->second.list == kAm) {
      move_front(r.key, kAm);
      return true;
    }
    if (size > c_ && !lcs_) return false;   // never admitted (engine/cache.h), A1out kept
    const bool ghost = it != where_.end();  // in A1out
    if (ghost) drop(r.key);
    if (size > kin_) return false;  // TwoQ_can_insert: looked up, not cached, nothing evicted
    while (bytes_[kA1in] + bytes_[kAm] + size > c_) {  // reclaimfor
      if (bytes_[kA1in] > kin_ || lists_[kAm].empty()) {
        const Obj y = lists_[kA1in].back();
        drop(y.key);
        if (y.size <= kout_) {
          while (bytes_[kA1out] + y.size > kout_) drop(lists_[kA1out].back().key);
          push_front(kA1out, y);
        }
      } else {
        drop(lists_[kAm].back().key);
      }
    }
    if (ghost) {
      if (lcs_) {  // Am->get(): Am is a cache of c - Kin bytes
        if (size > c_ - kin_) return false;
        while (bytes_[kAm] + size > c_ - kin_) drop(lists_[kAm].back().key);
      }
      push_front(kAm, {r.key, size});
    } else {
      push_front(kA1in, {r.key, size});
    }
    return false;
  }

 private:
  enum { kA1in, kAm, kA1out };
  struct Obj {
    uint64_t key, size;
  };
  struct Where {
    int list;
    std::list<Obj>::iterator it;
  };
  void drop(uint64_t key) {
    const Where w = where_.at(key);
    bytes_[w.list] -= w.it->size;
    lists_[w.list].erase(w.it);
    where_.erase(key);
  }
  void push_front(int list, Obj o) {
    lists_[list].push_front(o);
    bytes_[list] += o.size;
    where_[o.key] = {list, lists_[list].begin()};
  }
  void move_front(uint64_t key, int list) {
    const Obj o = *where_.at(key).it;
    drop(key);
    push_front(list, o);
  }

  uint64_t c_, kin_, kout_;
  bool unit_, lcs_;
  std::list<Obj> lists_[3];
  uint64_t bytes_[3] = {0, 0, 0};
  std::unordered_map<uint64_t, Where> where_;
};

TEST_CASE("2Q agrees with a plain implementation request by request", "[policies][twoq]") {
  for (const auto& [ain, aout] : {std::pair{0.25, 0.5}, std::pair{0.1, 1.5}, std::pair{0.6, 0.0}}) {
    PolicyConfig pc;
    pc.params.set("policy.twoq_ain_ratio", ain);
    pc.params.set("policy.twoq_aout_ratio", aout);
    for (const uint32_t max_size : {1u, 100u}) {
      for (const uint64_t capacity : {1u, 3u, 7u, 50u, 400u, 3000u}) {
        const auto trace = testing::random_gets(capacity * 31 + max_size, 20000, 300, max_size);
        OwningCache<TwoQPolicy> oc(capacity, false, pc);
        ReferenceTwoQ ref(capacity, false, ain, aout);
        for (size_t i = 0; i < trace.size(); ++i) {
          INFO("ratios " << ain << "/" << aout << " max_size " << max_size << " capacity "
                         << capacity << " request " << i);
          REQUIRE(oc.cache.access(trace[i]) == ref.access(trace[i]));
        }
        CHECK(oc.cache.used_bytes() <= capacity);
        const auto& q = oc.cache.policy();
        CHECK(q.a1in().bytes + q.am().bytes == oc.cache.used_bytes());
        CHECK(q.a1out().bytes() <= q.a1out().capacity());
        const ObjectTable& t = oc.cache.table();
        for (const IntrusiveList* l : {&q.a1in(), &q.am()})  // nothing larger than Kin
          for (Handle h = l->head; h != kNoHandle; h = t[h].next)
            REQUIRE(t[h].size_bytes <= q.kin());
      }
    }
  }
}

TEST_CASE("2Q: TwoQ.c's Am bound of c - Kin bytes, measured", "[policies][twoq]") {
  // No reference row shows this difference (policies/twoq.h, difference 2): on sized random
  // sequences (20000 gets, sizes 1..100 bytes, so every object fits in Kin), the policy against
  // the plain implementation with TwoQ.c's Am sub-cache, which equals cachesim on every row.
  struct Case {
    uint64_t capacity, keys;
    double object, byte;  // measured: policy − TwoQ.c
  };
  for (const Case k :
       {Case{1000, 100, -0.00110, -0.001082}, Case{3000, 100, -0.00035, -0.001854},
        Case{3000, 300, -0.00035, -0.000995}, Case{6000, 300, -0.00080, -0.001149}}) {
    const auto trace = testing::random_gets(k.capacity * 13 + 5, 20000, k.keys, 100);
    OwningCache<TwoQPolicy> oc(k.capacity, false);
    REQUIRE(oc.cache.policy().kin() >= 100);
    const auto ours = testing::replay_miss_ratios(oc.cache, trace);
    ReferenceTwoQ ref(k.capacity, false, 0.25, 0.5, /*lcs=*/true);
    const auto lcs = testing::replay_miss_ratios(ref, trace);
    INFO("c " << k.capacity << " keys " << k.keys << ": ours " << ours.object << " " << ours.byte
              << ", TwoQ.c " << lcs.object << " " << lcs.byte);
    CHECK(std::abs((ours.object - lcs.object) - k.object) <= 1e-9);
    CHECK(std::abs((ours.byte - lcs.byte) - k.byte) <= 1e-6);
  }
}

TEST_CASE("2Q: sets and deletes keep the lists consistent", "[policies][twoq]") {
  for (const uint32_t max_size : {1u, 100u}) {
    for (const uint64_t capacity : {3u, 60u, 500u}) {
      auto trace = testing::random_gets(capacity * 7 + max_size, 20000, 200, max_size);
      for (size_t i = 0; i < trace.size(); ++i) {
        if (i % 7 == 3) trace[i].op = Op::kSet;
        if (i % 11 == 5) trace[i].op = Op::kDelete;
      }
      OwningCache<TwoQPolicy> oc(capacity, false, PolicyConfig{});
      for (const Request& r : trace) {
        oc.cache.access(r);
        const auto& a = oc.cache.policy();
        REQUIRE(a.a1in().bytes + a.am().bytes == oc.cache.used_bytes());
        REQUIRE(oc.cache.used_bytes() <= capacity);
        REQUIRE(a.a1out().bytes() <= a.a1out().capacity());
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
}  // namespace flashpq::test_twoq
