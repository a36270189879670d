// engine/lru_stack.cpp — LRU stack distances (engine/lru_stack.h).
#include "engine/lru_stack.h"

#include <algorithm>

namespace flashpq {

LruStack::Reuse LruStack::touch(uint64_t key, uint32_t size_bytes) {
  Handle h = table_.find(key);
  Reuse r;
  if (h == kNoHandle) {
    h = table_.add(key, size_bytes);
  } else {
    const uint32_t p = table_[h].slot;
    const uint32_t old = table_[h].size_bytes;
    const Node dead = dead_through(p);
    // The live markers after p: those placed after it less those of them that died.
    const uint64_t above = (next_ - p - 1) - (dead_count_ - dead.count);
    const uint64_t above_bytes = (before_[next_] - before_[p + 1]) - (dead_bytes_ - dead.bytes);
    r = Reuse{true, above + 1, above_bytes + old, old};
    kill(p, old);
    live_bytes_ -= old;
    table_[h].size_bytes = size_bytes;
  }
  live_bytes_ += size_bytes;
  place(h, size_bytes);
  return r;
}

bool LruStack::remove(uint64_t key) {
  const Handle h = table_.find(key);
  if (h == kNoHandle) return false;
  kill(table_[h].slot, table_[h].size_bytes);
  live_bytes_ -= table_[h].size_bytes;
  table_.remove(h);
  return true;
}

void LruStack::renumber(size_t keys) {
  // The live markers keep their order, at positions 0..live-1; no marker is dead after it.
  uint32_t live = 0;
  uint64_t bytes = 0;
  for (uint32_t p = 0; p < next_; ++p) {
    const Handle h = at_[p];
    if (h == kNoHandle) continue;
    at_[live] = h;
    table_[h].slot = live;
    bytes += table_[h].size_bytes;
    ++live;
    before_[live] = bytes;
  }
  const size_t positions = std::max<size_t>(2 * keys + 1024, size_t{live} + 1);
  at_.resize(positions, kNoHandle);
  before_.resize(positions + 1, 0);
  before_[0] = 0;
  dead_.assign(positions + 1, Node{});
  dead_count_ = dead_bytes_ = 0;
  next_ = live;
}

}  // namespace flashpq
