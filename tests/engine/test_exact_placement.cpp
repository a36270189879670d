// tests/engine/test_exact_placement.cpp — the exact framework's naive placement (RIPQ paper §4.2,
// "Naive Design"; engine/exact/naive_placement.h).
//
//  * Hand-computed sequences: every offset, write and trim below was worked out by hand from
//    the spec (lowest free offset aligned to 4096, extent = size rounded up to 4096, trimmed on
//    eviction, delete and replacement), not copied from output.
//  * On random sequences and on the bundled adaptsize trace, after every request: the live
//    extents and the free extents tile the span exactly (no overlap, nothing outside it, free
//    extents coalesced); hits equal placement "none" request by request; host bytes written are
//    the sum of the rounded sizes of the insertions.
//  * The documented fallback (a bounded device too small for the span): delete-min until an
//    extent fits, counted.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <ostream>
#include <random>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "devices/device.h"
#include "devices/null_device.h"
#include "engine/cache.h"
#include "engine/exact/naive_placement.h"
#include "engine/framework.h"
#include "policies/registry.h"
#include "tests/test_util.h"
#include "traces/trace_reader.h"

namespace flashpq::test_exact_placement {
namespace {

using namespace flashpq::testing;  // tests/test_util.h

Request get(uint64_t key, uint32_t size = 1) {
  return Request{0, key, size, Op::kGet};
}
Request set(uint64_t key, uint32_t size = 1) {
  return Request{0, key, size, Op::kSet};
}
Request del(uint64_t key) {
  return Request{0, key, 1, Op::kDelete};
}

enum : uint64_t { A = 1, B, C, D, E, F, G, H };

FrameworkConfig naive(uint32_t alignment = 4096) {
  FrameworkConfig f;
  f.params.set(kPlacementKey.name, "naive");
  f.params.set(kPlacementAlignmentKey.name, alignment);
  return f;
}

/// A policy that also reports each delete-min victim's key, so tests can mirror the contents.
template <class P>
class Spy : public P {
 public:
  Spy(P p, std::vector<uint64_t>* evicted) : P(std::move(p)), evicted_(evicted) {}
  template <class Q>
  void on_evict(Q& q, ObjectTable& t, Handle h) {
    evicted_->push_back(t[h].key);
    P::on_evict(q, t, h);
  }

 private:
  std::vector<uint64_t>* evicted_;
};

template <class CacheT>
uint64_t offset_of(const CacheT& cache, uint64_t key) {
  REQUIRE(cache.contains(key));
  return cache.queue().placement()->offset(cache.table().find(key));
}

/// A mirror of the live extents, kept from the outside (requests, and evictions reported by
/// Spy), checked against the allocator.
class ExtentMirror {
 public:
  explicit ExtentMirror(const NaivePlacement& pl) : pl_(pl) {}

  /// The key's extent is gone (evicted, deleted, replaced).
  void release(uint64_t key) {
    const auto it = by_key_.find(key);
    if (it == by_key_.end()) return;
    if (it->second.second > 0) {
      live_.erase(it->second.first);
      live_bytes_ -= it->second.second;
    }
    by_key_.erase(it);
  }

  /// The key has a new extent. Returns "" or what is wrong with it: unaligned, outside the span,
  /// overlapping a live extent or a free extent.
  std::string place(uint64_t key, uint64_t offset, uint64_t len) {
    by_key_[key] = {offset, len};
    if (len == 0) return "";
    if (offset % pl_.alignment_bytes() != 0) return "unaligned extent";
    if (offset + len > pl_.span_bytes()) return "extent past the span";
    auto next = live_.lower_bound(offset);
    if (next != live_.end() && next->first < offset + len) return "overlaps a live extent";
    if (next != live_.begin() && std::prev(next)->first + std::prev(next)->second > offset) {
      return "overlaps a live extent";
    }
    const auto& fr = pl_.free_extents();
    auto f = fr.lower_bound(offset);
    if (f != fr.end() && f->first < offset + len) return "overlaps a free extent";
    if (f != fr.begin() && std::prev(f)->first + std::prev(f)->second > offset) {
      return "overlaps a free extent";
    }
    live_.emplace(offset, len);
    live_bytes_ += len;
    return "";
  }

  /// Cheap checks: the allocator's byte count and the object count.
  std::string check_counts(size_t objects) const {
    if (live_bytes_ != pl_.allocated_bytes()) return "allocated bytes differ from the mirror";
    if (by_key_.size() != objects) return "object count differs from the mirror";
    return "";
  }

  /// Full check: live and free extents tile [0, span) exactly, free extents coalesced.
  std::string check_tiling() const {
    const auto& fr = pl_.free_extents();
    auto l = live_.begin();
    auto f = fr.begin();
    uint64_t at = 0;
    bool last_free = false;
    while (l != live_.end() || f != fr.end()) {
      const bool take_free = l == live_.end() || (f != fr.end() && f->first < l->first);
      const auto& [off, len] = take_free ? *f : *l;
      if (off != at) {
        return (off < at ? "overlap at " : "gap at ") + std::to_string(off) + " (expected " +
               std::to_string(at) + ")";
      }
      if (len == 0) return "empty extent";
      if (take_free && last_free) return "free extents not coalesced at " + std::to_string(off);
      last_free = take_free;
      at += len;
      if (take_free)
        ++f;
      else
        ++l;
    }
    if (at != pl_.span_bytes()) return "extents end at " + std::to_string(at) + ", not the span";
    if (pl_.high_water_bytes() > pl_.span_bytes()) return "high water past the span";
    return "";
  }

 private:
  const NaivePlacement& pl_;
  std::unordered_map<uint64_t, std::pair<uint64_t, uint64_t>> by_key_;  // key → offset, len
  std::map<uint64_t, uint64_t> live_;                                   // offset → len
  uint64_t live_bytes_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Hand-computed sequences.

TEST_CASE("naive placement: hand-computed offsets, writes and trims (LRU)", "[frameworks]") {
  // Capacity 20000 B, alignment 4096. Extents: 1000 → 4096, 5000 → 8192, 9000 → 12288.
  RecordingDevice device;
  const FrameworkConfig framework = naive();
  Cache<LruPolicy, ExactRelativeQueue> cache(cache_config(20000), framework,
                                             LruPolicy(policy_config("lru")), device);
  const NaivePlacement& pl = *cache.queue().placement();
  CHECK(pl.span_bytes() == 4096 * (5 + 20000));  // ⌈20000/4096⌉ + 20000 units
  using Io = RecordingDevice::Io;

  cache.access(get(A, 1000));  // A [0, 4096)
  cache.access(get(B, 5000));  // B [4096, 12288)
  cache.access(get(C, 4096));  // C [12288, 16384); used 10096
  CHECK(device.log == std::vector<Io>{W(0, 4096), W(4096, 8192), W(12288, 4096)});
  device.log.clear();

  cache.access(del(A));        // trim A; free [0, 4096) and [16384, span)
  cache.access(get(D, 6000));  // 8192 B: [0, 4096) too small → D [16384, 24576); used 15096
  cache.access(get(E, 2000));  // lowest fit → E [0, 4096); used 17096
  CHECK(device.log == std::vector<Io>{T(0, 4096), W(16384, 8192), W(0, 4096)});
  CHECK(offset_of(cache, D) == 16384);
  CHECK(offset_of(cache, E) == 0);
  device.log.clear();

  // Replacement: B's old extent is trimmed, the new copy (3000 → 4096) takes the lowest fit, the
  // front of B's old extent. Used 15096. LRU order (MRU first): B E D C.
  cache.access(set(B, 3000));
  CHECK(device.log == std::vector<Io>{T(4096, 8192), W(4096, 4096)});
  CHECK(offset_of(cache, B) == 4096);
  device.log.clear();

  // F 7000: 15096 + 7000 > 20000 → evict the LRU object C (trim [12288, 16384)); its extent
  // coalesces with the free [8192, 12288) into [8192, 16384), an exact fit for F's 8192 B.
  CHECK(!cache.access(get(F, 7000)));
  CHECK(device.log == std::vector<Io>{T(12288, 4096), W(8192, 8192)});
  CHECK(!cache.contains(C));
  CHECK(offset_of(cache, F) == 8192);
  device.log.clear();

  CHECK(cache.access(get(E)));  // a hit reads E's extent [0, 4096). LRU order: E F B D.
  cache.access(get(G, 1));      // used 18001: G [24576, 28672)
  CHECK(device.log == std::vector<Io>{R(0, 4096), W(24576, 4096)});
  device.log.clear();

  // H 9000 (12288 B): 27001 > 20000 → evict D (trim [16384, 24576)), 21001 > 20000 → evict B
  // (trim [4096, 8192)); 18001 fits. Free: [4096, 8192), [16384, 24576), [28672, span): only
  // the last holds 12288 B.
  cache.access(get(H, 9000));
  CHECK(device.log == std::vector<Io>{T(16384, 8192), T(4096, 4096), W(28672, 12288)});
  CHECK(cache.used_bytes() == 18001);
  CHECK(offset_of(cache, E) == 0);
  CHECK(offset_of(cache, F) == 8192);
  CHECK(offset_of(cache, G) == 24576);
  CHECK(offset_of(cache, H) == 28672);
  const std::map<uint64_t, uint64_t> free_after = {
      {4096, 4096}, {16384, 8192}, {40960, pl.span_bytes() - 40960}};
  CHECK(pl.free_extents() == free_after);
  // Units written: A1 B2 C1 D2 E1 B1 F2 G1 H3 = 14; trimmed: A1 B2 C1 D2 B1 = 7; live 7.
  CHECK(device.counters().write_bytes == 14 * 4096);
  CHECK(device.counters().trimmed_bytes == 7 * 4096);
  CHECK(pl.allocated_bytes() == 7 * 4096);
  CHECK(pl.high_water_bytes() == 40960);
  CHECK(cache.queue().fragmentation_evictions() == 0);
}

TEST_CASE("naive placement: the absolute queue (GDSF) places and trims the same way",
          "[frameworks]") {
  RecordingDevice device;
  const FrameworkConfig framework = naive();
  Cache<GdsfPolicy, ExactAbsoluteQueue> cache(cache_config(20000), framework,
                                              GdsfPolicy(policy_config("gdsf", 3)), device);
  using Io = RecordingDevice::Io;
  // The first seven steps of the LRU case evict nothing, so the offsets are the same.
  cache.access(get(A, 1000));
  cache.access(get(B, 5000));
  cache.access(get(C, 4096));
  cache.access(del(A));
  cache.access(get(D, 6000));
  cache.access(get(E, 2000));
  cache.access(set(B, 3000));
  CHECK(device.log == std::vector<Io>{W(0, 4096), W(4096, 8192), W(12288, 4096), T(0, 4096),
                                      W(16384, 8192), W(0, 4096), T(4096, 8192), W(4096, 4096)});
  device.log.clear();
  // Extents: E [0, 4096), B [4096, 8192), C [12288, 16384), D [16384, 24576); free [8192,
  // 12288) and [24576, span). Priorities (clock 0): B 1/3000, C 1/4096, D 1/6000, E 1/2000.
  // F 7000: 22096 > 20000 → evict the minimum, D (trim); D's extent joins the tail extent, and
  // F's 8192 B do not fit in [8192, 12288), so F goes to 16384.
  cache.access(get(F, 7000));
  CHECK(device.log == std::vector<Io>{T(16384, 8192), W(16384, 8192)});
  CHECK(!cache.contains(D));
  CHECK(offset_of(cache, F) == 16384);
  CHECK(cache.queue().placement()->free_extents().begin()->first == 8192);
}

TEST_CASE("naive placement: unit-size mode puts each object in one alignment unit",
          "[frameworks]") {
  RecordingDevice device;
  const FrameworkConfig framework = naive(512);
  Cache<FifoPolicy, ExactRelativeQueue> cache(cache_config(3, /*unit_size=*/true), framework,
                                              FifoPolicy(policy_config("fifo")), device);
  using Io = RecordingDevice::Io;
  CHECK(cache.queue().placement()->span_bytes() == 512 * (1 + 3));
  cache.access(get(A, 70000));  // sizes are 1 in unit-size mode
  cache.access(get(B, 5));
  cache.access(get(C, 1));
  cache.access(get(D, 9));  // evicts A (FIFO), D takes A's unit
  cache.access(del(C));
  cache.access(get(E, 1));  // C's unit
  CHECK(device.log == std::vector<Io>{W(0, 512), W(512, 512), W(1024, 512), T(0, 512), W(0, 512),
                                      T(1024, 512), W(1024, 512)});
  CHECK(offset_of(cache, D) == 0);
  CHECK(offset_of(cache, E) == 1024);
}

TEST_CASE("naive placement: a bounded device smaller than the span evicts more (fallback)",
          "[frameworks]") {
  // Device of 4 units; the cache (20000 B) would hold more. Span = 16384.
  RecordingDevice device(16384);
  const FrameworkConfig framework = naive();
  Cache<LruPolicy, ExactRelativeQueue> cache(cache_config(20000), framework,
                                             LruPolicy(policy_config("lru")), device);
  CHECK(cache.queue().placement()->span_bytes() == 16384);
  for (uint64_t k : {A, B, C, D}) cache.access(get(k, 1000));  // units 0..3; used 4000
  CHECK(cache.queue().victim(1000) == cache.table().find(A));  // no extent left: A would go
  cache.access(get(E, 1000));  // evicts A only for its extent; E at 0
  CHECK(!cache.contains(A));
  CHECK(offset_of(cache, E) == 0);
  CHECK(cache.queue().fragmentation_evictions() == 1);
  // F 5000 needs 2 adjacent units: evict B (frees [4096, 8192), too small), then C.
  cache.access(get(F, 5000));
  CHECK(!cache.contains(B));
  CHECK(!cache.contains(C));
  CHECK(offset_of(cache, F) == 4096);
  CHECK(cache.queue().fragmentation_evictions() == 3);
  // An object whose extent exceeds the span is not admitted, though it fits the capacity.
  CHECK(!cache.access(get(G, 17000)));
  CHECK(!cache.contains(G));
  CHECK(cache.queue().counters().placed_bytes == cache.used_bytes() +
                                                     cache.queue().counters().evicted_bytes +
                                                     cache.queue().counters().superseded_bytes);
}

TEST_CASE("naive placement: configuration errors", "[frameworks]") {
  const FrameworkConfig framework = naive(512);
  NullDevice device(0, 4096);
  CHECK_THROWS_AS((Cache<LruPolicy, ExactRelativeQueue>(cache_config(1000), framework,
                                                        LruPolicy(policy_config("lru")), device)),
                  std::invalid_argument);
  FrameworkConfig bad = naive(3);
  CHECK_THROWS_WITH(check_framework(bad),
                    Catch::Contains("placement_alignment") && Catch::Contains("power of two"));
}

// ---------------------------------------------------------------------------------------------
// Lockstep against placement "none", with the tiling checked after every request.

struct LockstepResult {
  uint64_t hits = 0;
  uint64_t high_water = 0;
  uint64_t peak_allocated = 0;
};

/// Replays `requests` on policy P with placement naive and with placement none in lockstep.
/// After every request: both agree (hit, used bytes); the new extent overlaps no live or free
/// extent and lies in the span; the allocator's bytes match the mirror. Every `full_every`
/// requests and at the end: live and free extents tile the span. At the end: host writes equal
/// the rounded insertions, and writes − trims the live extents.
template <class P>
LockstepResult lockstep(P policy, const CacheConfig& config, uint32_t alignment,
                        const std::vector<Request>& requests, size_t full_every = 1) {
  using Q = ExactQueueFor<P>;
  std::vector<uint64_t> evicted;
  NullDevice naive_device;
  NullDevice none_device;
  const FrameworkConfig naive_fw = naive(alignment);
  const FrameworkConfig none_fw;
  Cache<Spy<P>, Q> placed(config, naive_fw, Spy<P>(policy, &evicted), naive_device);
  Cache<P, Q> plain(config, none_fw, policy, none_device);
  const NaivePlacement& pl = *placed.queue().placement();
  ExtentMirror mirror(pl);
  uint64_t rounded_insertions = 0;
  LockstepResult result;
  for (size_t i = 0; i < requests.size(); ++i) {
    const Request& r = requests[i];
    evicted.clear();
    const bool hit = placed.access(r);
    if (hit != plain.access(r)) FAIL("request " << i << ": hit differs from placement none");
    if (placed.used_bytes() != plain.used_bytes()) FAIL("request " << i << ": used bytes differ");
    result.hits += hit;
    for (uint64_t k : evicted) mirror.release(k);
    const Handle h = placed.table().find(r.key);
    std::string problem;
    if (h == kNoHandle) {
      mirror.release(r.key);
    } else if (!hit) {  // a miss or a set inserted the object (after removing any old copy)
      mirror.release(r.key);
      const uint64_t len = pl.extent_bytes(placed.table()[h].size_bytes);
      rounded_insertions += len;
      problem = mirror.place(r.key, pl.offset(h), len);
    }
    if (problem.empty()) problem = mirror.check_counts(placed.object_count());
    if (problem.empty() && (i % full_every == 0 || i + 1 == requests.size())) {
      problem = mirror.check_tiling();
    }
    if (!problem.empty()) FAIL("request " << i << ": " << problem);
    result.peak_allocated = std::max(result.peak_allocated, pl.allocated_bytes());
  }
  result.high_water = pl.high_water_bytes();
  CHECK(placed.queue().fragmentation_evictions() == 0);
  CHECK(placed.evictions() == plain.evictions());
  CHECK(naive_device.counters().write_bytes == rounded_insertions);
  CHECK(naive_device.counters().write_bytes - naive_device.counters().trimmed_bytes ==
        pl.allocated_bytes());
  CHECK(none_device.counters().writes == 0);
  const FrameworkCounters& c = placed.queue().counters();
  CHECK(c.placed_bytes == placed.used_bytes() + c.evicted_bytes + c.superseded_bytes);
  return result;
}

template <class Fn>
void with_named_policy(const PolicyConfig& config, Fn&& fn) {
  with_policy(config, [&](auto p) { fn(std::move(p)); });
}

TEST_CASE("naive placement: random sequences tile the span and keep placement none's hits",
          "[frameworks]") {
  const std::vector<PolicyConfig> policies = {policy_config("fifo"), policy_config("lru"),
                                              policy_config("slru", 3), policy_config("gdsf", 3)};
  uint64_t seed = 11;
  for (const PolicyConfig& policy : policies) {
    for (bool unit_size : {false, true}) {
      for (SizeChange mode : {SizeChange::kKeep, SizeChange::kUpdate}) {
        for (uint32_t alignment : {1u, 64u, 4096u}) {
          std::mt19937_64 rng(seed++);
          const uint64_t capacity = unit_size ? 40 : 20000;
          std::vector<Request> requests;
          for (int i = 0; i < 5000; ++i) {
            const uint64_t key = rng() % 150;
            const uint64_t wobble = rng() % 8 == 0 ? rng() % 700 : 0;
            auto size = static_cast<uint32_t>(1 + (key * 37 + wobble) % 3000);
            if (rng() % 100 == 0) size = 20001;  // never admitted
            if (rng() % 100 == 0) size = 0;
            const uint64_t op = rng() % 20;
            requests.push_back(op < 16 ? get(key, size) : op < 18 ? set(key, size) : del(key));
          }
          INFO("policy " << policy.name << " unit_size=" << unit_size << " update="
                         << (mode == SizeChange::kUpdate) << " alignment " << alignment);
          with_named_policy(policy, [&](auto p) {
            const LockstepResult r = lockstep(std::move(p), cache_config(capacity, unit_size, mode),
                                              alignment, requests);
            CHECK(r.hits > 0);
          });
        }
      }
    }
  }
}

/// Loads (once) an oracleGeneral trace.
const std::vector<Request>& load_trace(const std::string& path) {
  static std::map<std::string, std::vector<Request>> cache;
  auto [it, fresh] = cache.try_emplace(path);
  if (fresh) {
    auto reader = open_trace(trace_file(path));
    std::vector<Request> batch(4096);
    while (const size_t n = reader->read(batch)) {
      it->second.insert(it->second.end(), batch.begin(),
                        batch.begin() + static_cast<std::ptrdiff_t>(n));
    }
  }
  return it->second;
}

TEST_CASE("naive placement on adaptsize: LRU at 5% of the working set, checked every request",
          "[frameworks][slow]") {
  const auto& trace =
      load_trace(FLASHPQ_SOURCE_DIR "/traces/data/adaptsize-request.oracleGeneral.zst");
  REQUIRE(trace.size() == 66'987);
  const uint64_t capacity = 278'854'232 / 20;  // 5% of the working set
  const LockstepResult r =
      lockstep(LruPolicy(policy_config("lru")), cache_config(capacity), 4096, trace);
  CHECK(r.hits > 0);
  // Lowest fit keeps the extents packed: the highest offset reached is within 1.5 times the
  // peak of the live extents (here 24.0 MB against 21.0 MB, for a capacity of 13.9 MB: 4 KiB
  // extents round up the many small objects).
  INFO("high water " << r.high_water << " B, peak live extents " << r.peak_allocated << " B");
  CHECK(r.high_water <= r.peak_allocated * 3 / 2);
}

TEST_CASE("naive placement on adaptsize with sets and deletes: GDSF and SLRU",
          "[frameworks][slow]") {
  const auto& base =
      load_trace(FLASHPQ_SOURCE_DIR "/traces/data/adaptsize-request.oracleGeneral.zst");
  std::vector<Request> trace = base;
  std::mt19937_64 rng(5);
  for (Request& r : trace) {
    const uint64_t x = rng() % 20;
    if (x == 0) r.op = Op::kSet;
    if (x == 1) r.op = Op::kDelete;
  }
  const uint64_t capacity = 278'854'232 / 20;
  // GDSF keeps ~11K small objects: the full tiling walk every 16 requests.
  const LockstepResult g =
      lockstep(GdsfPolicy(policy_config("gdsf", 3)), cache_config(capacity), 4096, trace, 16);
  const LockstepResult s =
      lockstep(SlruPolicy(policy_config("slru", 3)), cache_config(capacity), 4096, trace);
  CHECK(g.high_water <= g.peak_allocated * 3 / 2);
  CHECK(s.high_water <= s.peak_allocated * 3 / 2);
}

}  // namespace
}  // namespace flashpq::test_exact_placement
