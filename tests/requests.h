// tests/requests.h — the requests hand-worked sequences are written in: a get, set or delete of
// one key, `size` bytes (1 by default: unit-size caches), at time 0.
#pragma once

#include <cstdint>

#include "engine/request.h"

namespace flashpq::testing {

inline Request get(uint64_t key, uint32_t size = 1) {
  return Request{0, key, size, Op::kGet};
}
inline Request set(uint64_t key, uint32_t size = 1) {
  return Request{0, key, size, Op::kSet};
}
inline Request del(uint64_t key) {
  return Request{0, key, 0, Op::kDelete};
}

}  // namespace flashpq::testing
