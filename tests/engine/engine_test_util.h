// tests/engine/engine_test_util.h — what the tests of the flash engines (engine/bighash,
// engine/kangaroo, engine/hybrid) share: the policy they are built with, requests, and the
// FrameworkCounters balance (engine/queue.h).
#pragma once

#include <catch2/catch.hpp>
#include <cstdint>

#include "engine/queue.h"
#include "engine/request.h"
#include "policies/fifo.h"

namespace flashpq::testing {

/// The policy every engine is built with (engine/framework.h kEngine).
inline FifoPolicy fifo() {
  return FifoPolicy(PolicyConfig{"fifo", {}});
}

inline Request get(uint64_t key, uint32_t size) {
  return Request{0, key, size, Op::kGet};
}
inline Request set(uint64_t key, uint32_t size) {
  return Request{0, key, size, Op::kSet};
}
inline Request del(uint64_t key) {
  return Request{0, key, 0, Op::kDelete};
}

/// Every placed byte is live (`used`), evicted or superseded.
inline void check_balance(const FrameworkCounters& c, uint64_t used) {
  CHECK(c.placed_bytes == used + c.evicted_bytes + c.superseded_bytes);
}

}  // namespace flashpq::testing
