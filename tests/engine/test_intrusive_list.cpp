// tests/engine/test_intrusive_list.cpp — the list of ObjectTable entries the exact relative
// queue and W-TinyLFU link their objects in (engine/intrusive_list.h), against a std::deque of
// handles through random operations.
#include <algorithm>
#include <catch2/catch.hpp>
#include <deque>
#include <vector>

#include "engine/intrusive_list.h"
#include "sim/rng.h"

namespace flashpq::test_intrusive_list {
namespace {

// Walks the list head to tail, checking the back links, the ends and the bytes.
std::deque<Handle> contents(const ObjectTable& t, const IntrusiveList& l) {
  std::deque<Handle> out;
  Handle prev = kNoHandle;
  uint64_t bytes = 0;
  for (Handle h = l.head; h != kNoHandle; h = t[h].next) {
    REQUIRE(t[h].prev == prev);
    out.push_back(h);
    bytes += t[h].size_bytes;
    prev = h;
  }
  REQUIRE(l.tail == prev);
  REQUIRE(l.bytes == bytes);
  return out;
}

TEST_CASE("intrusive list: push_front, unlink and move_to_front as a deque does", "[list]") {
  ObjectTable t;
  std::vector<Handle> handles;
  for (uint64_t k = 1; k <= 50; ++k) handles.push_back(t.add(k, static_cast<uint32_t>(k * 3)));
  IntrusiveList l;
  CHECK(l.empty());
  std::deque<Handle> ref;
  std::vector<bool> in(handles.size(), false);
  RngStream rng(3, 0);
  for (int step = 0; step < 5000; ++step) {
    const size_t i = rng.below(handles.size());
    const Handle h = handles[i];
    if (!in[i]) {
      l.push_front(t, h);
      ref.push_front(h);
      in[i] = true;
    } else if (rng.below(2) == 0) {
      l.unlink(t, h);
      ref.erase(std::find(ref.begin(), ref.end(), h));
      in[i] = false;
    } else if (ref.front() != h) {
      l.move_to_front(t, h);
      ref.erase(std::find(ref.begin(), ref.end(), h));
      ref.push_front(h);
    }
    if (step % 50 == 0) REQUIRE(contents(t, l) == ref);
  }
  REQUIRE(contents(t, l) == ref);
  CHECK(l.empty() == ref.empty());
}

}  // namespace
}  // namespace flashpq::test_intrusive_list
