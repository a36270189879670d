// Tests of engine/lru_stack.h: a hand-worked sequence, and random gets, sets and deletes against
// a brute-force LRU stack (a vector, most recent first, scanned linearly), long enough for the
// positions to be renumbered many times.
#include <catch2/catch.hpp>
#include <cstdint>
#include <tuple>
#include <utility>
#include <vector>

#include "engine/lru_stack.h"
#include "sim/rng.h"

namespace flashpq::test_lru_stack {
namespace {

// The reference: the stack of (key, size), the most recently requested first.
struct BruteStack {
  std::vector<std::pair<uint64_t, uint32_t>> s;

  // Distances in objects and in bytes.
  struct Found {
    bool seen = false;
    uint64_t objects = 0, bytes = 0;
    uint32_t previous_size = 0;
  };
  Found touch(uint64_t key, uint32_t size) {
    Found r;
    uint64_t bytes = 0;
    for (size_t j = 0; j < s.size(); ++j) {
      bytes += s[j].second;
      if (s[j].first == key) {
        r = Found{true, j + 1, bytes, s[j].second};
        s.erase(s.begin() + static_cast<std::ptrdiff_t>(j));
        break;
      }
    }
    s.insert(s.begin(), {key, size});
    return r;
  }
  bool remove(uint64_t key) {
    for (size_t j = 0; j < s.size(); ++j) {
      if (s[j].first == key) {
        s.erase(s.begin() + static_cast<std::ptrdiff_t>(j));
        return true;
      }
    }
    return false;
  }
  uint64_t bytes() const {
    uint64_t b = 0;
    for (const auto& e : s) b += e.second;
    return b;
  }
};

TEST_CASE("LRU stack: a hand-worked sequence", "[lru_stack]") {
  LruStack objects(LruStack::Measure::kObjects), bytes(LruStack::Measure::kBytes);
  auto touch = [&](uint64_t key, uint32_t size) {
    const LruStack::Reuse o = objects.touch(key, size);
    const LruStack::Reuse b = bytes.touch(key, size);
    REQUIRE(o.seen == b.seen);
    REQUIRE(o.previous_size == b.previous_size);
    return std::pair{o, b};
  };
  // a(10) b(20) c(30): the stack c b a.
  CHECK_FALSE(touch(1, 10).first.seen);
  CHECK_FALSE(touch(2, 20).first.seen);
  CHECK_FALSE(touch(3, 30).first.seen);
  // a again: below c and b, distance 3 objects, 30 + 20 + 10 = 60 bytes; the stack a c b.
  auto [o, b] = touch(1, 10);
  CHECK(o.seen);
  CHECK(o.distance == 3);
  CHECK(b.distance == 60);
  // c: below a only, 2 objects, 10 + 30 bytes; now with size 5: c a b.
  std::tie(o, b) = touch(3, 5);
  CHECK(o.distance == 2);
  CHECK(b.distance == 40);
  CHECK(b.previous_size == 30);
  // a deleted: c b. b: 2 objects, 5 + 20 bytes.
  CHECK(objects.remove(1));
  CHECK(bytes.remove(1));
  CHECK_FALSE(bytes.remove(1));
  std::tie(o, b) = touch(2, 20);
  CHECK(o.distance == 2);
  CHECK(b.distance == 25);
  CHECK(bytes.keys() == 2);
  CHECK(bytes.bytes() == 25);
  CHECK_FALSE(touch(1, 10).first.seen);  // a deleted is new again
}

TEST_CASE("LRU stack: random requests equal a brute-force stack", "[lru_stack]") {
  for (const uint64_t keys : {1u, 7u, 60u, 300u}) {
    INFO("keys = " << keys);
    RngStream rng(11, keys);
    LruStack objects(LruStack::Measure::kObjects), bytes(LruStack::Measure::kBytes);
    BruteStack ref;
    // Positions (2 × keys + 1024) run out about every keys + 1024 requests: renumbered about 12
    // times.
    const uint64_t n = 12 * (keys + 1024);
    for (uint64_t i = 0; i < n; ++i) {
      const uint64_t key = rng.below(keys);
      const uint64_t op = rng.below(20);
      if (op == 0) {
        const bool had = ref.remove(key);
        REQUIRE(objects.remove(key) == had);
        REQUIRE(bytes.remove(key) == had);
        continue;
      }
      // Mostly one size per key, sometimes another.
      const uint32_t size = op == 1 ? static_cast<uint32_t>(1 + rng.below(1000))
                                    : static_cast<uint32_t>(1 + key % 97);
      const LruStack::Reuse o = objects.touch(key, size);
      const LruStack::Reuse b = bytes.touch(key, size);
      const BruteStack::Found f = ref.touch(key, size);
      REQUIRE(o.seen == f.seen);
      REQUIRE(b.seen == f.seen);
      if (f.seen) {
        REQUIRE(o.distance == f.objects);
        REQUIRE(b.distance == f.bytes);
        REQUIRE(b.previous_size == f.previous_size);
      }
      REQUIRE(bytes.keys() == ref.s.size());
    }
    CHECK(bytes.bytes() == ref.bytes());
  }
}

}  // namespace
}  // namespace flashpq::test_lru_stack
