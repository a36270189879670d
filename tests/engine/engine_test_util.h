// tests/engine/engine_test_util.h — what the tests of the flash engines (engine/bighash,
// engine/kangaroo, engine/hybrid) share: the policy they are built with, requests, and the
// FrameworkCounters balance (engine/queue.h).
#pragma once

#include <catch2/catch.hpp>
#include <cstdint>

#include "engine/queue.h"
#include "engine/request.h"
#include "policies/fifo.h"
#include "tests/requests.h"  // get, set, del

namespace flashpq::testing {

/// The policy every engine is built with (engine/framework.h kEngine).
inline FifoPolicy fifo() {
  return FifoPolicy(PolicyConfig{"fifo", {}});
}

/// Every placed byte is live (`used`), evicted or superseded.
inline void check_balance(const FrameworkCounters& c, uint64_t used) {
  CHECK(c.placed_bytes == used + c.evicted_bytes + c.superseded_bytes);
}

}  // namespace flashpq::testing
