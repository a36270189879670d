// Tests of engine/ghost_list.h: a hand-worked sequence, and random operations against a
// brute-force FIFO of (key, size) pairs with the same capacity rule.
#include <catch2/catch.hpp>
#include <cstdint>
#include <deque>
#include <utility>

#include "engine/ghost_list.h"
#include "sim/rng.h"

namespace flashpq::test_ghost_list {
namespace {

// The reference: a deque, oldest first, scanned linearly.
struct BruteGhost {
  uint64_t capacity;
  std::deque<std::pair<uint64_t, uint32_t>> q;
  uint64_t bytes = 0;

  bool contains(uint64_t k) const {
    for (const auto& e : q) {
      if (e.first == k) return true;
    }
    return false;
  }
  bool erase(uint64_t k) {
    for (auto it = q.begin(); it != q.end(); ++it) {
      if (it->first == k) {
        bytes -= it->second;
        q.erase(it);
        return true;
      }
    }
    return false;
  }
  bool pop_oldest() {
    if (q.empty()) return false;
    bytes -= q.front().second;
    q.pop_front();
    return true;
  }
  void push(uint64_t k, uint32_t size) {
    if (size > capacity) return;
    while (bytes + size > capacity && pop_oldest()) {
    }
    q.emplace_back(k, size);
    bytes += size;
  }
};

TEST_CASE("ghost list: a hand-worked sequence", "[ghost]") {
  GhostList g(10);
  g.push(1, 4);
  g.push(2, 4);
  CHECK(g.bytes() == 8);
  g.push(3, 4);  // 1 leaves: 8 + 4 > 10
  CHECK_FALSE(g.contains(1));
  CHECK(g.contains(2));
  CHECK(g.contains(3));
  CHECK(g.erase(2));  // a ghost hit
  CHECK_FALSE(g.erase(2));
  CHECK(g.bytes() == 4);
  g.push(4, 11);  // larger than the capacity: never enters, nothing leaves
  CHECK_FALSE(g.contains(4));
  CHECK(g.contains(3));
  g.push(2, 6);  // 2 enters again, as the newest: 4 + 6 fits
  CHECK(g.size() == 2);
  g.push(5, 1);  // 3 leaves (the oldest live; 2's first entry is dead)
  CHECK_FALSE(g.contains(3));
  CHECK(g.contains(2));
  CHECK(g.contains(5));
  CHECK(g.pop_oldest());  // 2
  CHECK_FALSE(g.contains(2));
  CHECK(g.pop_oldest());  // 5
  CHECK_FALSE(g.pop_oldest());
  CHECK(g.bytes() == 0);
  CHECK(g.size() == 0);
}

TEST_CASE("ghost list: random operations equal a brute-force FIFO", "[ghost]") {
  for (const uint64_t capacity : {uint64_t{0}, uint64_t{1}, uint64_t{50}, uint64_t{3000}}) {
    for (const uint64_t keys : {uint64_t{20}, uint64_t{2000}}) {
      INFO("capacity " << capacity << ", keys " << keys);
      GhostList g(capacity);
      BruteGhost b{capacity, {}, 0};
      RngStream rng(capacity * 31 + keys, 0);
      for (int i = 0; i < 60000; ++i) {
        const uint64_t k = rng.next() % keys;
        const uint64_t op = rng.next() % 10;
        if (op < 4) {
          REQUIRE(g.erase(k) == b.erase(k));
        } else if (op < 9) {
          if (!b.contains(k)) {
            const uint32_t size = 1 + static_cast<uint32_t>(rng.next() % 40);
            g.push(k, size);
            b.push(k, size);
          }
        } else if (op == 9 && rng.next() % 8 == 0) {
          REQUIRE(g.pop_oldest() == b.pop_oldest());
        }
        REQUIRE(g.bytes() == b.bytes);
        REQUIRE(g.size() == b.q.size());
        if (i % 997 == 0) {
          for (uint64_t x = 0; x < std::min<uint64_t>(keys, 100); ++x) {
            REQUIRE(g.contains(x) == b.contains(x));
          }
        }
      }
      // The order: popping yields the reference's keys oldest first.
      while (!b.q.empty()) {
        const uint64_t oldest = b.q.front().first;
        REQUIRE(g.contains(oldest));
        b.pop_oldest();
        REQUIRE(g.pop_oldest());
        REQUIRE_FALSE(g.contains(oldest));
      }
      CHECK_FALSE(g.pop_oldest());
    }
  }
}

TEST_CASE("ghost list: set_capacity trims the oldest, reserve keeps the contents", "[ghost]") {
  GhostList g(100);
  for (uint64_t k = 0; k < 10; ++k) g.push(k, 10);
  g.reserve(5000);
  for (uint64_t k = 0; k < 10; ++k) CHECK(g.contains(k));
  g.set_capacity(35);
  CHECK(g.size() == 3);
  CHECK(g.contains(7));
  CHECK(g.contains(9));
  CHECK_FALSE(g.contains(6));
}

}  // namespace
}  // namespace flashpq::test_ghost_list
