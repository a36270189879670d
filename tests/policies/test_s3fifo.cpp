// tests/policies/test_s3fifo.cpp — S3-FIFO (policies/s3fifo.h): a sequence worked by hand from
// the SOSP'23 paper's algorithm (§4, Algorithm 1) as libCacheSim's S3FIFO.c runs it (a move from
// S to M, ghost hits, M's reinsertion), agreement request by request with a second, deliberately
// plain implementation on random sequences (unit-size and sized, with and without a peek at the
// victim before each insertion), the objects libCacheSim declines (larger than |S|, or exactly
// |S| and not a ghost hit). (libCacheSim's miss ratios: tests/policies/test_libcachesim.cpp.)
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <deque>
#include <vector>

#include "policies/s3fifo.h"
#include "tests/policies/owning_test_util.h"
#include "tests/test_util.h"

namespace flashpq::test_s3fifo {
namespace {

using testing::OwningCache;

using testing::get;

PolicyConfig s3fifo_config(double small, double ghost, int threshold = 2) {
  PolicyConfig p;
  p.name = "s3fifo";
  p.params.set(kS3FifoSmallRatioKey.name, small);
  p.params.set(kS3FifoGhostRatioKey.name, ghost);
  p.params.set(kS3FifoMoveToMainThresholdKey.name, threshold);
  return p;
}

using V = std::vector<uint64_t>;

TEST_CASE("S3-FIFO: shares and keys", "[policies][s3fifo]") {
  OwningCache<S3FifoPolicy> d(1000, true);
  CHECK(d.cache.policy().small_capacity() == 100);
  CHECK(d.cache.policy().main_capacity() == 900);
  CHECK(d.cache.policy().ghost().capacity() == 900);
  // libCacheSim truncates C × ratio: 489 × 0.1 = 48.9 -> 48, 489 × 0.9 = 440.1 -> 440.
  OwningCache<S3FifoPolicy> e(489, true);
  CHECK(e.cache.policy().small_capacity() == 48);
  CHECK(e.cache.policy().main_capacity() == 441);
  CHECK(e.cache.policy().ghost().capacity() == 440);
  const auto& spec = S3FifoPolicy::spec();
  CHECK(spec.name == "s3fifo");
  REQUIRE(spec.keys.size() == 3);
  CHECK(spec.keys[0].name == "policy.s3fifo_small_ratio");
  CHECK(spec.keys[1].name == "policy.s3fifo_ghost_ratio");
  CHECK(spec.keys[2].name == "policy.s3fifo_move_to_main_threshold");
  PolicyConfig bad = s3fifo_config(1.5, 0.9);
  CHECK_THROWS_AS(S3FifoPolicy(bad), std::invalid_argument);
  bad = s3fifo_config(0.1, 0.9, -1);
  CHECK_THROWS_AS(S3FifoPolicy(bad), std::invalid_argument);
}

TEST_CASE("S3-FIFO: a move to main, ghost hits, main's reinsertion, worked by hand",
          "[policies][s3fifo]") {
  // C = 5 objects, |S| = floor(5 × 0.4) = 2, |M| = 3, |G| = floor(5 × 0.4) = 2.
  // Lists are written newest -> oldest.
  OwningCache<S3FifoPolicy> oc(5, true, s3fifo_config(0.4, 0.4));
  auto& c = oc.cache;
  const auto& p = c.policy();
  const ObjectTable& t = c.table();
  auto S = [&] { return testing::list_keys(t, p.small()); };
  auto M = [&] { return testing::list_keys(t, p.main()); };
  auto freq = [&](uint64_t k) { return S3FifoPolicy::freq(t, t.find(k)); };
  REQUIRE(p.small_capacity() == 2);
  REQUIRE(p.main_capacity() == 3);
  REQUIRE(p.ghost().capacity() == 2);

  for (uint64_t k : {1, 2}) CHECK_FALSE(c.access(get(k)));
  CHECK(c.access(get(1)));
  CHECK(c.access(get(1)));  // freq(1) = 2
  for (uint64_t k : {3, 4, 5}) CHECK_FALSE(c.access(get(k)));
  CHECK(S() == V{5, 4, 3, 2, 1});  // S may exceed its share while the cache is not full
  CHECK(c.access(get(2)));         // freq(2) = 1
  CHECK(freq(1) == 2);
  CHECK(freq(2) == 1);

  // 6: full. M (0) is within |M| and S is not empty: evict from S. Its oldest, 1, has freq 2
  // >= 2: moved to M with freq 0; then 2, freq 1 < 2: the victim. A peek makes the move and
  // names 2, and a second peek names 2 again without moving anything.
  uint64_t v = 0;
  REQUIRE(c.next_victim(1, &v));
  CHECK(v == 2);
  CHECK(M() == V{1});
  CHECK(freq(1) == 0);
  REQUIRE(c.next_victim(1, &v));
  CHECK(v == 2);
  CHECK_FALSE(c.access(get(6)));  // 2 evicted into G
  CHECK(S() == V{6, 5, 4, 3});
  CHECK(M() == V{1});
  CHECK(p.ghost().contains(2));
  CHECK(c.evictions() == 1);

  // 2 again: a ghost hit (out of G). The eviction takes S's oldest 3 (freq 0) into G; 2 enters
  // M with freq 0.
  CHECK_FALSE(c.access(get(2)));
  CHECK_FALSE(p.ghost().contains(2));
  CHECK(p.ghost().contains(3));
  CHECK(S() == V{6, 5, 4});
  CHECK(M() == V{2, 1});
  CHECK(c.access(get(1)));        // freq(1) = 1, in M
  CHECK_FALSE(c.access(get(7)));  // 4 evicted into G: G = 4 3
  CHECK_FALSE(c.access(get(8)));  // 5 evicted into G: G = 5 4 (3 leaves, |G| = 2)
  CHECK(S() == V{8, 7, 6});
  CHECK_FALSE(p.ghost().contains(3));
  CHECK(p.ghost().size() == 2);
  CHECK_FALSE(c.access(get(3)));  // not a ghost any more: into S; 6 evicted into G = 6 5
  CHECK(S() == V{3, 8, 7});
  CHECK(M() == V{2, 1});

  // Two ghost hits fill M: 6 (7 evicted from S into G = 7 5) and 5 (M holds 3 = |M|, not more:
  // 8 evicted from S into G = 8 7).
  CHECK_FALSE(c.access(get(6)));
  CHECK_FALSE(c.access(get(5)));
  CHECK(S() == V{3});
  CHECK(M() == V{5, 6, 2, 1});
  CHECK(p.ghost().contains(8));
  CHECK(p.ghost().contains(7));
  for (int i = 0; i < 4; ++i) CHECK(c.access(get(5)));  // freq(5) = 3, the cap
  CHECK(freq(5) == 3);
  CHECK(c.access(get(6)));  // freq(6) = 1
  // 9: M holds 4 > |M| = 3: evict from M. Its oldest 1 (freq 1) is reinserted with freq 0;
  // 2 (freq 0) is evicted, not into G.
  CHECK_FALSE(c.access(get(9)));
  CHECK(S() == V{9, 3});
  CHECK(M() == V{1, 5, 6});
  CHECK(freq(1) == 0);
  CHECK_FALSE(p.ghost().contains(2));
  // 10: M holds 3, not more than |M|: evict from S, whose oldest 3 goes to G = 3 8.
  CHECK_FALSE(c.access(get(10)));
  CHECK(S() == V{10, 9});
  CHECK(p.ghost().contains(3));
  // 8: a ghost hit into M (4 objects); 9 (S's oldest) evicted into G = 9 3.
  CHECK_FALSE(c.access(get(8)));
  CHECK(M() == V{8, 1, 5, 6});
  CHECK(S() == V{10});
  // 11: M over its share: 6 (freq 1) reinserted with 0, 5 (freq 3) reinserted with 2, 1 (freq
  // 0) evicted.
  CHECK_FALSE(c.access(get(11)));
  CHECK(M() == V{5, 6, 8});
  CHECK(freq(5) == 2);
  CHECK(freq(6) == 0);
  CHECK(S() == V{11, 10});
  // 12: M holds 3: from S: 10 into G.
  CHECK_FALSE(c.access(get(12)));
  CHECK(S() == V{12, 11});
  // S drains without an eviction: 11 and 12 each hit twice move to M (5 objects > |M|), and the
  // eviction then takes M: 8 (freq 0) is evicted.
  for (uint64_t k : {11, 12, 11, 12}) CHECK(c.access(get(k)));
  CHECK_FALSE(c.access(get(13)));
  CHECK(S() == V{13});
  CHECK(M() == V{12, 11, 5, 6});
  CHECK_FALSE(c.contains(8));
  CHECK_FALSE(p.ghost().contains(8));
  CHECK(c.used_bytes() == 5);
  // A delete unlinks from either queue.
  c.access(Request{0, 11, 1, Op::kDelete});
  c.access(Request{0, 13, 1, Op::kDelete});
  CHECK(S().empty());
  CHECK(M() == V{12, 5, 6});
}

TEST_CASE("S3-FIFO: moves from S may take M over its share and the victim stays the same",
          "[policies][s3fifo]") {
  // C = 10, |S| = 5, |M| = 5, |G| = 5: S holds 1..10 (inserted while not full), 1..4 hit twice.
  OwningCache<S3FifoPolicy> oc(10, true, s3fifo_config(0.5, 0.5));
  auto& c = oc.cache;
  for (uint64_t k = 1; k <= 10; ++k) c.access(get(k));
  for (uint64_t k = 1; k <= 4; ++k) {
    c.access(get(k));
    c.access(get(k));
  }
  // 111..115: every eviction takes S (M holds at most 4 <= 5); the first moves 1..4 to M and
  // evicts 5, the others evict 6..9.
  for (uint64_t k = 111; k <= 115; ++k) CHECK_FALSE(c.access(get(k)));
  const ObjectTable& t = c.table();
  CHECK(testing::list_keys(t, c.policy().main()) == V{4, 3, 2, 1});
  CHECK(testing::list_keys(t, c.policy().small()) == V{115, 114, 113, 112, 111, 10});
  for (uint64_t k = 5; k <= 9; ++k) CHECK(c.policy().ghost().contains(k));
  // Now three more hit twice in S, then peek: 10, 111, 112 move to M (7 > |M|), the victim is
  // 113, S's oldest with freq 0, and it stays so on a second peek although M is now over |M|.
  for (uint64_t k : {10, 111, 112}) {
    c.access(get(k));
    c.access(get(k));
  }
  uint64_t v1 = 0, v2 = 0;
  REQUIRE(c.next_victim(1, &v1));
  CHECK(v1 == 113);
  CHECK(testing::list_keys(t, c.policy().main()) == V{112, 111, 10, 4, 3, 2, 1});
  REQUIRE(c.next_victim(1, &v2));
  CHECK(v2 == 113);
  CHECK_FALSE(c.access(get(200)));
  CHECK_FALSE(c.contains(113));
  CHECK(c.policy().ghost().contains(113));
  // The next eviction takes M (7 > 5): its oldest, 1 (freq 0 since the move), leaves.
  CHECK_FALSE(c.access(get(201)));
  CHECK_FALSE(c.contains(1));
  CHECK_FALSE(c.policy().ghost().contains(1));
}

TEST_CASE(
    "S3-FIFO: objects larger than |S|, or of exactly |S| bytes and not a ghost hit, "
    "are not cached",
    "[policies][s3fifo]") {
  // C = 100 bytes: |S| = 10, |M| = 90, |G| = 90 (libCacheSim's S3FIFO_can_insert and insert).
  OwningCache<S3FifoPolicy> oc(100, false);
  auto& c = oc.cache;
  const auto& p = c.policy();
  const ObjectTable& t = c.table();
  REQUIRE(p.small_capacity() == 10);
  CHECK_FALSE(c.access(get(1, 11)));  // larger than |S|: a miss, not cached
  CHECK_FALSE(c.contains(1));
  CHECK_FALSE(c.access(get(1, 11)));
  CHECK_FALSE(c.access(get(2, 10)));  // exactly |S|, not a ghost hit: not cached
  CHECK_FALSE(c.contains(2));
  CHECK(c.used_bytes() == 0);
  for (uint64_t k = 10; k <= 20; ++k) CHECK_FALSE(c.access(get(k, 9)));  // S: 11 × 9 = 99 bytes
  CHECK(c.used_bytes() == 99);
  // Declined without evicting (libCacheSim would evict 10 here, for nothing).
  CHECK_FALSE(c.access(get(2, 10)));
  CHECK_FALSE(c.access(get(3, 50)));
  CHECK(c.evictions() == 0);
  CHECK(c.used_bytes() == 99);
  CHECK_FALSE(c.access(get(30, 9)));  // evicts S's oldest, 10, into G
  CHECK(p.ghost().contains(10));
  CHECK(c.evictions() == 1);
  // 10 again, now of |S| bytes: a ghost hit is cached, into M (11 leaves S for G).
  CHECK_FALSE(c.access(get(10, 10)));
  REQUIRE(c.contains(10));
  CHECK(S3FifoPolicy::in_main(t, t.find(10)));
  CHECK_FALSE(p.ghost().contains(10));
  CHECK(p.ghost().contains(11));
  CHECK(c.used_bytes() == 100);
  CHECK(c.evictions() == 2);
  // 11, now larger than |S|: out of G all the same (S3FIFO_find), then declined.
  CHECK_FALSE(c.access(get(11, 11)));
  CHECK_FALSE(c.contains(11));
  CHECK_FALSE(p.ghost().contains(11));
  CHECK(c.evictions() == 2);
  // So 11 at its old size is no ghost hit any more: into S.
  CHECK_FALSE(c.access(get(11, 9)));
  REQUIRE(c.contains(11));
  CHECK_FALSE(S3FifoPolicy::in_main(t, t.find(11)));
  CHECK(c.access(get(10, 10)));

  // Unit-size: nothing is cached while |S| <= 1 (C < 20), as in libCacheSim.
  OwningCache<S3FifoPolicy> u19(19, true), u20(20, true);
  for (int i = 0; i < 3; ++i) {
    CHECK_FALSE(u19.cache.access(get(1)));
    CHECK(u20.cache.access(get(1)) == (i > 0));
  }
  CHECK(u19.cache.used_bytes() == 0);
}

// A plain S3-FIFO as libCacheSim's S3FIFO.c runs it (find: S, then the ghost, then M; can_insert:
// size <= |S|; evict: M if it exceeds its share or S is empty, else S until one object is
// evicted or S is empty; insert: M on a ghost hit, else S unless the object has |S| bytes):
// deques from the oldest (front) to the newest, linear searches, frequencies without a cap. The
// object of exactly |S| bytes that is not a ghost hit is declined, as `exact` says:
//   kBeforeEviction  before any eviction (policies/s3fifo.h, FlashPQ's engine);
//   kAfterEviction   after the evictions for it (libCacheSim: S3FIFO_insert declines it);
//   kCached          not at all: cached in S (the alternative policies/s3fifo.h rejected).
enum class Exact { kBeforeEviction, kAfterEviction, kCached };

class ReferenceS3Fifo {
 public:
  ReferenceS3Fifo(uint64_t capacity, double small, double ghost, int threshold,
                  Exact exact = Exact::kBeforeEviction)
      : exact_(exact),
        capacity_(capacity),
        small_cap_(static_cast<uint64_t>(static_cast<double>(capacity) * small)),
        main_cap_(capacity - small_cap_),
        ghost_cap_(static_cast<uint64_t>(static_cast<double>(capacity) * ghost)),
        threshold_(threshold) {}

  bool access(const Request& r) {
    if (Obj* o = find(small_, r.key)) {
      ++o->freq;
      return true;
    }
    bool ghost_hit = false;
    for (size_t i = 0; i < ghost_.size(); ++i) {
      if (ghost_[i].key == r.key) {
        ghost_bytes_ -= ghost_[i].size;
        ghost_.erase(ghost_.begin() + static_cast<std::ptrdiff_t>(i));
        ghost_hit = true;
        break;
      }
    }
    if (Obj* o = find(main_, r.key)) {
      ++o->freq;
      return true;
    }
    if (r.size_bytes > small_cap_) return false;  // can_insert: not cached, nothing evicted
    const bool exact_declined = r.size_bytes == small_cap_ && !ghost_hit;
    if (exact_declined && exact_ == Exact::kBeforeEviction) return false;
    while (bytes(small_) + bytes(main_) + r.size_bytes > capacity_) evict();
    if (exact_declined && exact_ == Exact::kAfterEviction) return false;
    (ghost_hit ? main_ : small_).push_back({r.key, r.size_bytes, 0});
    return false;
  }
  std::vector<uint64_t> evicted;  // keys, in eviction order

 private:
  struct Obj {
    uint64_t key;
    uint32_t size;
    int freq;
  };
  static Obj* find(std::deque<Obj>& q, uint64_t key) {
    for (Obj& o : q)
      if (o.key == key) return &o;
    return nullptr;
  }
  static uint64_t bytes(const std::deque<Obj>& q) {
    uint64_t b = 0;
    for (const Obj& o : q) b += o.size;
    return b;
  }
  void evict() {
    if (bytes(main_) > main_cap_ || small_.empty()) {
      for (;;) {
        Obj o = main_.front();
        main_.pop_front();
        if (o.freq >= 1) {
          o.freq = std::min(o.freq, 3) - 1;
          main_.push_back(o);
        } else {
          evicted.push_back(o.key);
          return;
        }
      }
    }
    while (!small_.empty()) {
      Obj o = small_.front();
      small_.pop_front();
      if (o.freq >= threshold_) {
        main_.push_back({o.key, o.size, 0});
      } else {
        if (o.size <= ghost_cap_) {
          while (ghost_bytes_ + o.size > ghost_cap_) {
            ghost_bytes_ -= ghost_.front().size;
            ghost_.pop_front();
          }
          ghost_.push_back({o.key, o.size, 0});
          ghost_bytes_ += o.size;
        }
        evicted.push_back(o.key);
        return;
      }
    }
  }

  Exact exact_;
  uint64_t capacity_, small_cap_, main_cap_, ghost_cap_;
  int threshold_;
  std::deque<Obj> small_, main_, ghost_;
  uint64_t ghost_bytes_ = 0;
};

struct Evicted {
  std::vector<uint64_t> keys;
  static void record(void* self, uint64_t key, uint32_t) {
    static_cast<Evicted*>(self)->keys.push_back(key);
  }
};

TEST_CASE("S3-FIFO agrees with a plain implementation request by request", "[policies][s3fifo]") {
  struct Params {
    double small, ghost;
    int threshold;
  };
  for (const Params prm : {Params{0.1, 0.9, 2}, Params{0.25, 0.5, 1}, Params{0.3, 2.0, 3},
                           Params{0.5, 0.0, 2}, Params{0.2, 0.9, 5}}) {
    for (const uint32_t max_size : {1u, 100u}) {
      for (const uint64_t capacity : {1u, 7u, 50u, 400u, 3000u}) {
        for (const bool peek : {false, true}) {
          const auto trace =
              testing::random_gets(capacity * 31 + max_size + prm.threshold, 20000, 300, max_size);
          INFO("small " << prm.small << " ghost " << prm.ghost << " threshold " << prm.threshold
                        << " max_size " << max_size << " capacity " << capacity << " peek "
                        << peek);
          OwningCache<S3FifoPolicy> oc(capacity, false,
                                       s3fifo_config(prm.small, prm.ghost, prm.threshold));
          Evicted ev;
          oc.cache.set_eviction_listener(&Evicted::record, &ev);
          ReferenceS3Fifo ref(capacity, prm.small, prm.ghost, prm.threshold);
          for (size_t i = 0; i < trace.size(); ++i) {
            INFO("small " << prm.small << " ghost " << prm.ghost << " threshold " << prm.threshold
                          << " max_size " << max_size << " capacity " << capacity << " peek "
                          << peek << " request " << i);
            const size_t before = ev.keys.size();
            uint64_t v1 = 0, v2 = 0;
            bool peeked = false;
            const auto& pol = oc.cache.policy();
            const uint32_t size = trace[i].size_bytes;
            if (peek && !oc.cache.contains(trace[i].key) &&
                (size < pol.small_capacity() ||
                 (size == pol.small_capacity() && pol.ghost().contains(trace[i].key)))) {
              // What a TinyLFU admission is shown (only for an object the policy accepts: the
              // engine asks on_miss first): twice the same, and then what is evicted.
              peeked = oc.cache.next_victim(trace[i].size_bytes, &v1);
              REQUIRE(oc.cache.next_victim(trace[i].size_bytes, &v2) == peeked);
              if (peeked) REQUIRE(v1 == v2);
            }
            REQUIRE(oc.cache.access(trace[i]) == ref.access(trace[i]));
            if (peeked) {
              REQUIRE(ev.keys.size() > before);
              REQUIRE(ev.keys[before] == v1);
            }
          }
          CHECK(ev.keys == ref.evicted);
          CHECK(oc.cache.used_bytes() <= capacity);
          // No object larger than |S| is ever cached.
          const ObjectTable& t = oc.cache.table();
          for (const IntrusiveList* l : {&oc.cache.policy().small(), &oc.cache.policy().main()})
            for (Handle h = l->head; h != kNoHandle; h = t[h].next)
              REQUIRE(t[h].size_bytes <= oc.cache.policy().small_capacity());
        }
      }
    }
  }
}

TEST_CASE("S3-FIFO: objects of exactly |S| bytes, declined before eviction vs after",
          "[policies][s3fifo]") {
  // Sequences where one object in five has exactly |S| bytes (sizes 1..|S|): the policy against
  // libCacheSim's order (evict for it, then decline it) and against caching it.
  struct Case {
    uint64_t capacity;
    uint32_t max_size;
    double object, byte;  // measured: policy − libCacheSim's order (20000 gets, 100 keys)
  };
  for (const Case k : {Case{50, 5, -0.013050, -0.007947}, Case{100, 10, -0.005700, -0.004808},
                       Case{400, 40, -0.002400, -0.000600}}) {
    const auto trace = testing::random_gets(7 * k.capacity + 1, 20000, 100, k.max_size);
    OwningCache<S3FifoPolicy> oc(k.capacity, false);
    REQUIRE(oc.cache.policy().small_capacity() == k.max_size);
    const auto ours = testing::replay_miss_ratios(oc.cache, trace);
    ReferenceS3Fifo after(k.capacity, 0.1, 0.9, 2, Exact::kAfterEviction);
    ReferenceS3Fifo cached(k.capacity, 0.1, 0.9, 2, Exact::kCached);
    const auto lcs = testing::replay_miss_ratios(after, trace);
    const auto alt = testing::replay_miss_ratios(cached, trace);
    INFO("C " << k.capacity << ": ours " << ours.object << " " << ours.byte << ", after eviction "
              << lcs.object << " " << lcs.byte << ", cached " << alt.object << " " << alt.byte);
    CHECK(std::abs((ours.object - lcs.object) - k.object) <= 1e-9);
    CHECK(std::abs((ours.byte - lcs.byte) - k.byte) <= 1e-6);
    // Caching the object instead would be further from libCacheSim.
    CHECK(std::abs(alt.object - lcs.object) > std::abs(ours.object - lcs.object));
    CHECK(std::abs(alt.byte - lcs.byte) > std::abs(ours.byte - lcs.byte));
  }
}

}  // namespace
}  // namespace flashpq::test_s3fifo
