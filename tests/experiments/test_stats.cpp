// Tests of experiments/run/stats.h (HitStats) and experiments/run/replay.h: every counter against a
// brute-force reference, with sets, deletes and the warm-up boundary anywhere in a batch.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <unordered_set>
#include <vector>

#include "devices/null_device.h"
#include "engine/cache.h"
#include "engine/exact/relative_queue.h"
#include "experiments/run/replay.h"
#include "experiments/run/stats.h"
#include "policies/registry.h"
#include "tests/test_util.h"

namespace flashpq::test_stats {
namespace {

// A stand-in cache: a get hits when its key was requested before and a fixed pseudo-random
// function of the key and the request's position says so. Only the outcomes matter to
// HitStats; "a hit is a get on a key already seen" holds by construction.
class FakeCache {
 public:
  bool access(const Request& r) {
    const uint64_t i = position_++;
    const bool known = seen_.count(r.key) != 0;
    if (r.op != Op::kDelete) seen_.insert(r.key);
    return r.op == Op::kGet && known && ((r.key * 7 + i) % 5 != 0);
  }

 private:
  std::unordered_set<uint64_t> seen_;
  uint64_t position_ = 0;
};

// Hands out a vector's requests `chunk` at a time.
class VectorReader final : public TraceReader {
 public:
  VectorReader(const std::vector<Request>& reqs, size_t chunk) : reqs_(reqs), chunk_(chunk) {}
  size_t read(std::span<Request> out) override {
    const size_t n = std::min({out.size(), chunk_, reqs_.size() - next_});
    std::copy_n(reqs_.begin() + static_cast<std::ptrdiff_t>(next_), n, out.begin());
    next_ += n;
    return n;
  }
  const std::string& path() const override { return path_; }

 private:
  const std::vector<Request>& reqs_;
  size_t chunk_;
  size_t next_ = 0;
  std::string path_ = "vector";
};

// The definitions of experiments/run/stats.h, computed directly.
HitCounters reference(const std::vector<Request>& reqs, uint64_t warmup) {
  FakeCache cache;
  std::unordered_set<uint64_t> seen;
  HitCounters c;
  for (size_t i = 0; i < reqs.size(); ++i) {
    const Request& r = reqs[i];
    const bool hit = cache.access(r);
    const bool first = r.op != Op::kDelete && seen.insert(r.key).second;
    if (i < warmup) continue;
    c.requests++;
    if (r.op == Op::kGet) {
      c.get_requests++;
      c.bytes_requested += r.size_bytes;
      if (hit) {
        c.hits++;
        c.bytes_hit += r.size_bytes;
      } else if (first) {
        c.compulsory_misses++;
      }
    } else if (r.op == Op::kSet) {
      c.set_requests++;
    } else {
      c.delete_requests++;
    }
  }
  return c;
}

void check_equal(const HitCounters& a, const HitCounters& b) {
  CHECK(a.requests == b.requests);
  CHECK(a.get_requests == b.get_requests);
  CHECK(a.set_requests == b.set_requests);
  CHECK(a.delete_requests == b.delete_requests);
  CHECK(a.hits == b.hits);
  CHECK(a.compulsory_misses == b.compulsory_misses);
  CHECK(a.bytes_requested == b.bytes_requested);
  CHECK(a.bytes_hit == b.bytes_hit);
}

std::vector<Request> random_requests(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Request> reqs(n);
  for (size_t i = 0; i < n; ++i) {
    const uint64_t u = rng() % 100;
    const Op op = u < 80 ? Op::kGet : (u < 92 ? Op::kSet : Op::kDelete);
    reqs[i] = Request{i, rng() % 300, static_cast<uint32_t>(1 + rng() % 1000), op};
  }
  return reqs;
}

}  // namespace

TEST_CASE("HitStats counts every request as the definitions say, streamed in batches", "[stats]") {
  const std::vector<Request> reqs = random_requests(20'000, 11);
  for (const uint64_t warmup : {uint64_t{0}, uint64_t{1}, uint64_t{4095}, uint64_t{4096},
                                uint64_t{7777}, uint64_t{20'000}, uint64_t{30'000}}) {
    for (const size_t chunk : {size_t{1}, size_t{333}, size_t{5000}}) {
      INFO("warmup " << warmup << " chunk " << chunk);
      FakeCache cache;
      HitStats stats;
      VectorReader reader(reqs, chunk);
      uint64_t warm_at = UINT64_MAX, calls = 0;
      const uint64_t n = replay_stream(cache, reader, stats, warmup, [&] {
        ++calls;
        warm_at = stats.counters().requests;  // nothing counted before the boundary
      });
      CHECK(n == reqs.size());
      if (warmup < reqs.size()) {  // else no request follows the warm-up: no call
        CHECK(calls == 1);
        CHECK(warm_at == 0);
      }
      check_equal(stats.counters(), reference(reqs, warmup));
    }
  }
}

TEST_CASE("replay_span numbers requests across spans for the warm-up", "[stats]") {
  const std::vector<Request> reqs = random_requests(5'000, 12);
  const std::span<const Request> all(reqs);
  for (const uint64_t warmup : {uint64_t{0}, uint64_t{999}, uint64_t{1000}, uint64_t{1001},
                                uint64_t{2500}, uint64_t{5000}}) {
    INFO("warmup " << warmup);
    FakeCache cache;
    HitStats stats;
    uint64_t i = 0;
    for (size_t start = 0; start < reqs.size(); start += 1000) {
      i = replay_span(cache, all.subspan(start, 1000), stats, i, warmup);
    }
    CHECK(i == reqs.size());
    check_equal(stats.counters(), reference(reqs, warmup));
  }
}

TEST_CASE("replay_span's prefetch hints change no result", "[stats]") {
  // Two exact LRU caches of one size: one reserved small (no hints: Cache::prefetch_pays is
  // false), one reserved past kPrefetchFromIndexBytes (hints on every request). Same rows.
  const std::vector<Request> reqs = random_requests(20'000, 31);
  const uint64_t capacity = 300;
  using C = Cache<LruPolicy, ExactRelativeQueue>;
  NullDevice d1, d2;
  const FrameworkConfig framework;
  C plain(testing::cache_config(capacity, /*unit_size=*/true), framework,
          LruPolicy(testing::policy_config("lru")), d1);
  C hinted(testing::cache_config(capacity, /*unit_size=*/true), framework,
           LruPolicy(testing::policy_config("lru")), d2);
  plain.reserve(capacity);
  hinted.reserve(C::kPrefetchFromIndexBytes / sizeof(ObjectEntry) + 1);
  REQUIRE_FALSE(plain.prefetch_pays());
  REQUIRE(hinted.prefetch_pays());
  HitStats s1, s2;
  replay_span(plain, std::span<const Request>(reqs), s1, 0, 5'000);
  replay_span(hinted, std::span<const Request>(reqs), s2, 0, 5'000);
  check_equal(s1.counters(), s2.counters());
  CHECK(s1.counters().hits > 0);
  CHECK(plain.evictions() == hinted.evictions());
  CHECK(plain.object_count() == hinted.object_count());
}

TEST_CASE("op_class: a get is a read, a set a write, a delete neither", "[stats][timing]") {
  Request r;
  r.op = Op::kGet;
  CHECK(op_class(r) == OpClass::kRead);
  r.op = Op::kSet;
  CHECK(op_class(r) == OpClass::kWrite);
  r.op = Op::kDelete;
  CHECK(op_class(r) == OpClass::kOther);
}

}  // namespace flashpq::test_stats
