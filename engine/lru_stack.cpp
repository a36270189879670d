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
    // The live markers after p: those placed after it less those of them that died.
    const uint64_t dead_after = dead_total_ - dead_through(p);
    const uint64_t above =
        bytes_ ? (before_[next_] - before_[p + 1]) - dead_after : (next_ - p - 1) - dead_after;
    r = Reuse{true, above + (bytes_ ? old : 1), old};
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
    if (bytes_) before_[live] = bytes;
  }
  const size_t positions = std::max<size_t>(2 * keys + 1024, size_t{live} + 1);
  at_.resize(positions, kNoHandle);
  if (bytes_) {
    before_.resize(positions + 1, 0);
    before_[0] = 0;
    dead_bytes_.assign(positions + 1, 0);
  } else {
    dead_count_.assign(positions + 1, 0);
  }
  dead_total_ = 0;
  next_ = live;
}

}  // namespace flashpq
