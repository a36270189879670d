// Tests of engine/object_table.h (the chained index and the slab), engine/key_hash.h (hash_key)
// and engine/key_set.h (KeySet) against std::unordered_map / std::unordered_set, including long
// chains removed at every position.
#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "engine/key_hash.h"
#include "engine/key_set.h"
#include "engine/object_table.h"

namespace flashpq::test_index {
namespace {

// The home slot of `key` in a KeySet of 2^bits slots (the top bits of hash_key), which is also
// its bucket in an ObjectTable of 2^bits buckets (the high half of hash_key × buckets).
uint64_t home(uint64_t key, unsigned bits) {
  return hash_key(key) >> (64 - bits);
}

// Replays `ops` random adds/removes of keys drawn from `universe` on an ObjectTable and on
// std::unordered_map, looking up every key of the universe (alternately with find() and the
// chain-reordering find_to_front()) and checking every entry's key and size after every
// operation.
void differential(const std::vector<uint64_t>& universe, size_t max_live, int ops, uint64_t seed) {
  std::mt19937_64 rng(seed);
  ObjectTable table;
  std::unordered_map<uint64_t, std::pair<Handle, uint32_t>> model;  // key -> handle, size
  for (int op = 0; op < ops; ++op) {
    const uint64_t key = universe[rng() % universe.size()];
    const auto it = model.find(key);
    if (it != model.end()) {
      table.remove(it->second.first);
      model.erase(it);
    } else if (model.size() < max_live) {
      const auto size = static_cast<uint32_t>(rng() % 1000);
      model.emplace(key, std::pair{table.add(key, size), size});
    }
    REQUIRE(table.size() == model.size());
    for (const uint64_t k : universe) {
      const auto m = model.find(k);
      const Handle expected = m == model.end() ? kNoHandle : m->second.first;
      // Every other operation looks up with find_to_front(), which reorders the chains.
      const Handle got = op % 2 ? table.find_to_front(k) : table.find(k);
      if (got != expected) {  // REQUIRE only on a mismatch: millions of lookups
        INFO("op " << op << " key " << k);
        REQUIRE(got == expected);
      }
    }
    for (const auto& [k, hs] : model) {
      if (table[hs.first].key != k || table[hs.first].size_bytes != hs.second) {
        INFO("op " << op << " key " << k);
        REQUIRE(table[hs.first].key == k);
        REQUIRE(table[hs.first].size_bytes == hs.second);
      }
    }
  }
}

}  // namespace

TEST_CASE("ObjectTable matches a map under random adds and removes", "[index]") {
  std::vector<uint64_t> universe;
  for (uint64_t k = 0; k < 200; ++k) universe.push_back(k * 0x10001 + 7);
  universe.push_back(0);
  universe.push_back(~uint64_t{0});
  // Growing from 16 buckets to 121, and a small live set that keeps the table at 16 buckets.
  differential(universe, universe.size(), 20'000, 1);
  differential(universe, 8, 20'000, 2);
}

TEST_CASE("ObjectTable removes from the middle and the ends of long chains", "[index]") {
  // Keys that share one of the 16 buckets of a new table (at most 32 objects keep it at 16):
  // chains of up to 24 entries, removed at the head, inside and at the end.
  std::vector<uint64_t> universe;
  for (uint64_t k = 1; universe.size() < 24; ++k) {
    if (home(k, 4) == 5) universe.push_back(k);
  }
  for (uint64_t k = 1; universe.size() < 30; ++k) {
    if (home(k, 4) == 6) universe.push_back(k);
  }
  for (uint64_t seed = 0; seed < 20; ++seed) differential(universe, 30, 3'000, seed);
}

TEST_CASE("ObjectTable sizes its buckets and slab as documented and reports their memory",
          "[index]") {
  ObjectTable t;
  CHECK(t.buckets() == 16);
  CHECK(t.memory_bytes() == 16 * 4);
  // Buckets grow by half when the objects exceed twice their number: 32 objects fit 16.
  for (uint64_t k = 0; k < 32; ++k) t.add(k * 977, 1);
  CHECK(t.buckets() == 16);
  t.add(32 * 977, 1);
  CHECK(t.buckets() == 24);
  // The slab grows by max(64, a quarter): 64, 128, 192, 256, 320, 400, 500, 625, 781, 976, 1220.
  for (uint64_t k = 33; k < 1000; ++k) t.add(k * 977, 1);
  CHECK(t.slab_capacity() == 1220);
  // 16, 24, 36, 54, 81, 121, 181, 271, 406, 609: the first that holds 1000 objects at load 2.
  CHECK(t.buckets() == 609);
  CHECK(t.memory_bytes() == 609 * 4 + 1220 * 28);
  for (uint64_t k = 0; k < 1000; ++k) REQUIRE(t[t.find(k * 977)].key == k * 977);
  CHECK(t.find(1) == kNoHandle);

  // reserve(5000): 5000 entries, and 2500 buckets (load 2 at 5000 objects).
  ObjectTable r;
  for (uint64_t k = 0; k < 100; ++k) r.add(k, 1);
  r.reserve(5000);
  CHECK(r.buckets() == 2500);
  CHECK(r.slab_capacity() == 5000);
  CHECK(r.memory_bytes() == 2500 * 4 + 5000 * 28);
  for (uint64_t k = 0; k < 100; ++k) REQUIRE(r[r.find(k)].key == k);
  // Removed entries are recycled: the slab does not grow while the live count stays put.
  for (uint64_t k = 0; k < 100; ++k) r.remove(r.find(k));
  for (uint64_t k = 1000; k < 1100; ++k) r.add(k, 1);
  CHECK(r.slab_capacity() == 5000);
  CHECK(r.size() == 100);
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

}  // namespace flashpq::test_index
