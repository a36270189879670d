// Tests of engine/key_index.h (KeyIndex, hash_key) and engine/key_set.h (KeySet) against
// std::unordered_map / std::unordered_set, including runs that wrap around the table's end and
// backward-shift deletions inside them.
#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "engine/key_index.h"
#include "engine/key_set.h"

namespace flashpq {
namespace {

// Handles index a vector of keys, as ObjectTable's slab does.
struct VectorKeyOf {
  const std::vector<uint64_t>* keys;
  uint64_t operator()(uint32_t h) const { return (*keys)[h]; }
};

// The home slot of `key` in a table of 2^bits slots (KeyIndex and KeySet use the top bits of
// hash_key).
uint64_t home(uint64_t key, unsigned bits) {
  return hash_key(key) >> (64 - bits);
}

// Replays `ops` random inserts/erases of keys drawn from `universe` on a KeyIndex and on
// std::unordered_map, checking every key of the universe after every operation.
void differential(const std::vector<uint64_t>& universe, size_t max_live, int ops, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> keys;  // handle -> key
  std::vector<uint32_t> free_handles;
  KeyIndex<VectorKeyOf> index(VectorKeyOf{&keys});
  std::unordered_map<uint64_t, uint32_t> model;
  for (int op = 0; op < ops; ++op) {
    const uint64_t key = universe[rng() % universe.size()];
    const auto it = model.find(key);
    if (it != model.end()) {
      index.erase(key, it->second);
      free_handles.push_back(it->second);
      model.erase(it);
    } else if (model.size() < max_live) {
      uint32_t h;
      if (!free_handles.empty()) {
        h = free_handles.back();
        free_handles.pop_back();
        keys[h] = key;
      } else {
        h = static_cast<uint32_t>(keys.size());
        keys.push_back(key);
      }
      index.insert(key, h);
      model.emplace(key, h);
    }
    REQUIRE(index.size() == model.size());
    for (const uint64_t k : universe) {
      const auto m = model.find(k);
      const uint32_t expected = m == model.end() ? KeyIndex<VectorKeyOf>::kEmpty : m->second;
      if (index.find(k) != expected) {  // REQUIRE only on a mismatch: millions of lookups
        INFO("op " << op << " key " << k);
        REQUIRE(index.find(k) == expected);
      }
    }
  }
}

}  // namespace

TEST_CASE("KeyIndex matches a map under random inserts and erases", "[index]") {
  std::vector<uint64_t> universe;
  for (uint64_t k = 0; k < 200; ++k) universe.push_back(k * 0x10001 + 7);
  universe.push_back(0);
  universe.push_back(~uint64_t{0});
  // Growing from 16 slots, and a small live set that keeps the table at 16 or 32 slots.
  differential(universe, universe.size(), 20'000, 1);
  differential(universe, 8, 20'000, 2);
}

TEST_CASE("KeyIndex erases inside runs that wrap around the table's end", "[index]") {
  // A new index has 16 slots and holds at most 8 keys before it grows. Keys whose home is one
  // of the last two slots form runs that wrap to slot 0, mixed with keys homed at slots 0 and 1
  // that those runs displace: every backward-shift case (move, keep, wrap) occurs.
  std::vector<uint64_t> universe;
  size_t at_end = 0, at_start = 0;
  for (uint64_t k = 1; universe.size() < 12; ++k) {
    const uint64_t h = home(k, 4);
    if (h >= 14 && at_end < 6) {
      universe.push_back(k);
      ++at_end;
    } else if (h <= 1 && at_start < 6) {
      universe.push_back(k);
      ++at_start;
    }
  }
  for (uint64_t seed = 0; seed < 20; ++seed) differential(universe, 8, 5'000, seed);
}

TEST_CASE("KeyIndex reserve keeps every key and reports its slots' memory", "[index]") {
  std::vector<uint64_t> keys;
  KeyIndex<VectorKeyOf> index(VectorKeyOf{&keys});
  for (uint64_t k = 0; k < 1000; ++k) {
    keys.push_back(k * 977);
    index.insert(k * 977, static_cast<uint32_t>(k));
  }
  index.reserve(5000);  // a rebuild: 16384 slots of 8 B (load at most 1/2)
  CHECK(index.memory_bytes() == 16384 * 8);
  for (uint64_t k = 0; k < 1000; ++k) REQUIRE(index.find(k * 977) == k);
  CHECK(index.find(1) == KeyIndex<VectorKeyOf>::kEmpty);
}

TEST_CASE("KeySet matches a set, key 0 included", "[index]") {
  std::mt19937_64 rng(7);
  KeySet set;
  std::unordered_set<uint64_t> model;
  for (int i = 0; i < 100'000; ++i) {
    // Small keys repeat often; key 0 is stored apart from the slots.
    const uint64_t key = (i % 3 == 0) ? rng() % 64 : rng() % 50'000;
    REQUIRE(set.insert(key) == model.insert(key).second);
    REQUIRE(set.size() == model.size());
  }
  KeySet reserved;
  reserved.reserve(1000);
  for (uint64_t k = 0; k < 1000; ++k) REQUIRE(reserved.insert(k));
  for (uint64_t k = 0; k < 1000; ++k) REQUIRE_FALSE(reserved.insert(k));
  CHECK(reserved.size() == 1000);
}

TEST_CASE("hash_key spreads consecutive keys over the home slots", "[index]") {
  // 2^16 consecutive keys into 2^16 home slots: a random function fills 1 − 1/e ≈ 63 % of
  // them; a hash whose top bits ignored the low key bits would fill almost none.
  for (const uint64_t base : {uint64_t{0}, uint64_t{1} << 40, ~uint64_t{0} - 70'000}) {
    std::unordered_set<uint64_t> homes;
    for (uint64_t k = base; k < base + 65'536; ++k) homes.insert(home(k, 16));
    INFO("base " << base);
    CHECK(homes.size() > 65'536 * 6 / 10);
  }
}

}  // namespace flashpq
