// tests/policies/test_sieve.cpp — SIEVE (policies/sieve.h): a sequence worked by hand from the
// NSDI'24 paper's algorithm (§3, Figure 2), and agreement request by request with a second,
// deliberately plain implementation on random sequences, unit-size and sized.
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "policies/sieve.h"
#include "tests/policies/owning_test_util.h"
#include "tests/test_util.h"

namespace flashpq::test_sieve {
namespace {

using testing::OwningCache;

using testing::get;

// Keys of the queue from the newest (head) to the oldest (tail).
template <class C>
std::vector<uint64_t> queue_keys(const C& c) {
  return testing::list_keys(c.table(), c.policy().queue());
}

TEST_CASE("SIEVE: the hand, worked by hand", "[policies][sieve]") {
  // Capacity 3 objects. Lists are written newest -> oldest.
  OwningCache<SievePolicy> oc(3, true);
  auto& c = oc.cache;
  CHECK_FALSE(c.access(get(1)));  // 1
  CHECK_FALSE(c.access(get(2)));  // 2 1
  CHECK_FALSE(c.access(get(3)));  // 3 2 1
  CHECK(c.access(get(1)));        // 1 visited
  // 4: the hand is unset, so the scan starts at the tail 1: visited, cleared; on to 2 (newer):
  // not visited, evicted; the hand stays at 3, 2's newer neighbour.
  CHECK_FALSE(c.access(get(4)));
  CHECK(queue_keys(c) == std::vector<uint64_t>{4, 3, 1});
  CHECK(c.table()[c.policy().hand()].key == 3);
  // 2: the hand's 3 is not visited: evicted; the hand moves to 4.
  CHECK_FALSE(c.access(get(2)));
  CHECK(queue_keys(c) == std::vector<uint64_t>{2, 4, 1});
  CHECK(c.access(get(1)));  // 1 visited again
  // 5: the hand's 4 is not visited: evicted, the hand to 2.
  CHECK_FALSE(c.access(get(5)));
  CHECK(queue_keys(c) == std::vector<uint64_t>{5, 2, 1});
  CHECK(c.access(get(1)));  // still visited
  // 6: 2 evicted, the hand to 5.
  CHECK_FALSE(c.access(get(6)));
  CHECK(queue_keys(c) == std::vector<uint64_t>{6, 5, 1});
  CHECK(c.access(get(5)));  // 5 visited
  // 7: the hand's 5 is visited: cleared, on to 6: evicted. 6 was the newest: the hand is unset.
  CHECK_FALSE(c.access(get(7)));
  CHECK(queue_keys(c) == std::vector<uint64_t>{7, 5, 1});
  CHECK(c.policy().hand() == kNoHandle);
  // 8: from the tail: 1 visited (since its third hit), cleared; 5 was cleared by the last scan:
  // evicted. The hand to 7.
  CHECK_FALSE(c.access(get(8)));
  CHECK(queue_keys(c) == std::vector<uint64_t>{8, 7, 1});
  CHECK(c.table()[c.policy().hand()].key == 7);
  CHECK(c.evictions() == 6);
  // A delete of the object at the hand moves the hand to its newer neighbour.
  c.access(Request{0, 7, 1, Op::kDelete});
  CHECK(c.table()[c.policy().hand()].key == 8);
  CHECK(queue_keys(c) == std::vector<uint64_t>{8, 1});
}

// A plain SIEVE: a vector from the oldest (index 0) to the newest, the hand an index.
class ReferenceSieve {
 public:
  explicit ReferenceSieve(uint64_t capacity) : capacity_(capacity) {}
  bool access(const Request& r) {
    for (Obj& o : q_) {
      if (o.key == r.key) {
        o.visited = true;
        return true;
      }
    }
    if (r.size_bytes > capacity_) return false;
    while (used_ + r.size_bytes > capacity_) evict();
    q_.push_back({r.key, r.size_bytes, false});
    used_ += r.size_bytes;
    return false;
  }

 private:
  struct Obj {
    uint64_t key;
    uint32_t size;
    bool visited;
  };
  void evict() {
    size_t i = hand_ != kUnset ? hand_ : 0;
    while (q_[i].visited) {
      q_[i].visited = false;
      i = i + 1 == q_.size() ? 0 : i + 1;
    }
    used_ -= q_[i].size;
    q_.erase(q_.begin() + static_cast<std::ptrdiff_t>(i));
    hand_ = i < q_.size() ? i : kUnset;
  }
  uint64_t capacity_;
  uint64_t used_ = 0;
  std::vector<Obj> q_;
  static constexpr size_t kUnset = SIZE_MAX;
  size_t hand_ = kUnset;
};

TEST_CASE("SIEVE agrees with a plain implementation request by request", "[policies][sieve]") {
  for (const uint32_t max_size : {1u, 100u}) {
    for (const uint64_t capacity : {1u, 7u, 50u, 400u}) {
      const auto trace = testing::random_gets(capacity * 31 + max_size, 20000, 300, max_size);
      OwningCache<SievePolicy> oc(capacity, false);
      ReferenceSieve ref(capacity);
      for (size_t i = 0; i < trace.size(); ++i) {
        INFO("max_size " << max_size << " capacity " << capacity << " request " << i);
        REQUIRE(oc.cache.access(trace[i]) == ref.access(trace[i]));
      }
      CHECK(oc.cache.used_bytes() <= capacity);
    }
  }
}

}  // namespace
}  // namespace flashpq::test_sieve
