// tests/policies/test_clock.cpp — CLOCK (policies/clock.h): sequences worked by hand (second
// chance with a 1-bit counter; a 2-bit counter's cap and decrements), agreement request by
// request with a second, deliberately plain implementation on random sequences (unit-size and
// sized, 1 to 8 bits, with and without a peek at the victim before each insertion).
// (libCacheSim's miss ratios: tests/policies/test_libcachesim.cpp.)
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <deque>
#include <vector>

#include "policies/clock.h"
#include "tests/policies/owning_test_util.h"
#include "tests/test_util.h"

namespace flashpq::test_clock {
namespace {

using testing::OwningCache;
using V = std::vector<uint64_t>;

using testing::get;

PolicyConfig clock_config(int bits) {
  PolicyConfig p;
  p.name = "clock";
  p.params.set(kClockBitsKey.name, bits);
  return p;
}

// Keys of the queue from the newest (head) to the oldest (tail).
template <class C>
std::vector<uint64_t> queue_keys(const C& c) {
  return testing::list_keys(c.table(), c.policy().queue());
}

TEST_CASE("CLOCK: keys", "[policies][clock]") {
  const auto& spec = ClockPolicy::spec();
  CHECK(spec.name == "clock");
  REQUIRE(spec.keys.size() == 1);
  CHECK(spec.keys[0].name == "policy.clock_bits");
  CHECK(ClockPolicy(PolicyConfig{}).max_count() == 1);
  CHECK(ClockPolicy(clock_config(2)).max_count() == 3);
  CHECK(ClockPolicy(clock_config(8)).max_count() == 255);
  CHECK_THROWS_AS(ClockPolicy(clock_config(0)), std::invalid_argument);
  CHECK_THROWS_AS(ClockPolicy(clock_config(9)), std::invalid_argument);
}

TEST_CASE("CLOCK: second chance (1 bit), worked by hand", "[policies][clock]") {
  // Capacity 3 objects. Lists are written newest -> oldest.
  OwningCache<ClockPolicy> oc(3, true);
  auto& c = oc.cache;
  for (uint64_t k : {1, 2, 3}) CHECK_FALSE(c.access(get(k)));
  CHECK(c.access(get(1)));
  CHECK(c.access(get(1)));  // the counter stays at 1
  CHECK(ClockPolicy::count(c.table(), c.table().find(1)) == 1);
  // 4: the oldest, 1, has its bit: cleared, 1 goes around; 2 is evicted.
  uint64_t v = 0;
  REQUIRE(c.next_victim(1, &v));
  CHECK(v == 2);
  CHECK(queue_keys(c) == V{1, 3, 2});  // the peek made the reinsertion ...
  REQUIRE(c.next_victim(1, &v));
  CHECK(v == 2);
  CHECK(queue_keys(c) == V{1, 3, 2});  // ... once
  CHECK_FALSE(c.access(get(4)));
  CHECK(queue_keys(c) == V{4, 1, 3});
  CHECK(ClockPolicy::count(c.table(), c.table().find(1)) == 0);
  // 3 and 1 hit: 5 makes both go around (3 then 1) and evicts 4.
  CHECK(c.access(get(3)));
  CHECK(c.access(get(1)));
  CHECK_FALSE(c.access(get(5)));
  CHECK(queue_keys(c) == V{5, 1, 3});
  // All three hit: every one goes around once and the first, 3, is evicted with a cleared bit.
  for (uint64_t k : {1, 3, 5}) CHECK(c.access(get(k)));
  CHECK_FALSE(c.access(get(6)));
  CHECK(queue_keys(c) == V{6, 5, 1});
  CHECK(c.evictions() == 3);
}

TEST_CASE("CLOCK: a 2-bit counter, worked by hand", "[policies][clock]") {
  OwningCache<ClockPolicy> oc(3, true, clock_config(2));
  auto& c = oc.cache;
  auto count = [&](uint64_t k) { return ClockPolicy::count(c.table(), c.table().find(k)); };
  for (uint64_t k : {1, 2, 3}) CHECK_FALSE(c.access(get(k)));
  for (int i = 0; i < 5; ++i) CHECK(c.access(get(1)));
  CHECK(count(1) == 3);  // capped at 2^2 - 1
  CHECK(c.access(get(2)));
  CHECK(count(2) == 1);
  // 4: 1 (3 -> 2) goes around, 2 (1 -> 0) goes around, 3 (0) is evicted.
  CHECK_FALSE(c.access(get(4)));
  CHECK(queue_keys(c) == V{4, 2, 1});
  CHECK(count(1) == 2);
  CHECK(count(2) == 0);
  // 5: 1 (2 -> 1) goes around; 2 (0) is evicted.
  CHECK_FALSE(c.access(get(5)));
  CHECK(queue_keys(c) == V{5, 1, 4});
  CHECK(count(1) == 1);
  // 6: 4 (0) is evicted.
  CHECK_FALSE(c.access(get(6)));
  CHECK(queue_keys(c) == V{6, 5, 1});
  // 7: 1 (1 -> 0) goes around; 5 is evicted. 8: 6 is evicted. 9: 1, at last, is evicted.
  CHECK_FALSE(c.access(get(7)));
  CHECK(queue_keys(c) == V{7, 1, 6});
  CHECK(count(1) == 0);
  CHECK_FALSE(c.access(get(8)));
  CHECK(queue_keys(c) == V{8, 7, 1});
  CHECK_FALSE(c.access(get(9)));
  CHECK(queue_keys(c) == V{9, 8, 7});
  // A delete unlinks anywhere.
  c.access(Request{0, 8, 1, Op::kDelete});
  CHECK(queue_keys(c) == V{9, 7});
}

// A plain CLOCK as libCacheSim's Clock.c runs it: a deque from the oldest (front) to the
// newest, linear searches.
class ReferenceClock {
 public:
  ReferenceClock(uint64_t capacity, int bits) : capacity_(capacity), max_((1 << bits) - 1) {}
  bool access(const Request& r) {
    for (Obj& o : q_) {
      if (o.key == r.key) {
        if (o.count < max_) ++o.count;
        return true;
      }
    }
    if (r.size_bytes > capacity_) return false;
    while (used_ + r.size_bytes > capacity_) {
      Obj o = q_.front();
      q_.pop_front();
      if (o.count >= 1) {
        o.count -= 1;
        q_.push_back(o);
      } else {
        used_ -= o.size;
        evicted.push_back(o.key);
      }
    }
    q_.push_back({r.key, r.size_bytes, 0});
    used_ += r.size_bytes;
    return false;
  }
  std::vector<uint64_t> evicted;

 private:
  struct Obj {
    uint64_t key;
    uint32_t size;
    int count;
  };
  uint64_t capacity_;
  int max_;
  uint64_t used_ = 0;
  std::deque<Obj> q_;
};

struct Evicted {
  std::vector<uint64_t> keys;
  static void record(void* self, uint64_t key, uint32_t) {
    static_cast<Evicted*>(self)->keys.push_back(key);
  }
};

TEST_CASE("CLOCK agrees with a plain implementation request by request", "[policies][clock]") {
  for (const int bits : {1, 2, 3, 8}) {
    for (const uint32_t max_size : {1u, 100u}) {
      for (const uint64_t capacity : {1u, 7u, 50u, 400u, 3000u}) {
        for (const bool peek : {false, true}) {
          const auto trace =
              testing::random_gets(capacity * 31 + max_size + bits, 20000, 300, max_size);
          OwningCache<ClockPolicy> oc(capacity, false, clock_config(bits));
          Evicted ev;
          oc.cache.set_eviction_listener(&Evicted::record, &ev);
          ReferenceClock ref(capacity, bits);
          for (size_t i = 0; i < trace.size(); ++i) {
            INFO("bits " << bits << " max_size " << max_size << " capacity " << capacity << " peek "
                         << peek << " request " << i);
            const size_t before = ev.keys.size();
            uint64_t v1 = 0, v2 = 0;
            bool peeked = false;
            if (peek && !oc.cache.contains(trace[i].key) && trace[i].size_bytes <= capacity) {
              // What a TinyLFU admission is shown: twice the same, and then what is evicted.
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
        }
      }
    }
  }
}

}  // namespace
}  // namespace flashpq::test_clock
