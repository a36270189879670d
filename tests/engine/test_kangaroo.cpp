// Tests of engine/kangaroo: Kangaroo (KLog + KSet) as a FlashPQ framework — a hand-worked KLog
// flush checked I/O by I/O (only the sets reaching the threshold move; readmission; a drop),
// RRIParoo inside one set on a hand-worked sequence (insertion RRPVs, hit-bit folding, aging,
// eviction order, refusals, the flush loop a readmission causes), a brute-force model (std
// containers, written from the spec's pseudo-code) agreeing request by request on random traces
// with admission probability 1 and 0.9, the application write amplification with threshold 1
// and no readmission, the pre-log admission, the paper's DRAM accounting, the counters'
// balance, and the configuration errors.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "devices/null_device.h"
#include "devices/simflash/simflash_device.h"
#include "engine/bighash/bighash_bloom.h"
#include "engine/cache.h"
#include "engine/kangaroo/kangaroo_config.h"
#include "engine/kangaroo/kangaroo_queue.h"
#include "engine/key_hash.h"
#include "policies/fifo.h"
#include "sim/rng.h"
#include "tests/engine/engine_test_util.h"
#include "tests/test_util.h"

namespace flashpq::test_kangaroo {
namespace {

using testing::R;
using testing::RecordingDevice;
using testing::W;
using Io = RecordingDevice::Io;
using Entry = KangarooQueue::SetEntry;

using KCache = Cache<FifoPolicy, KangarooQueue, NoAdmission>;
using RecordingFifo = testing::EvictionRecording<FifoPolicy>;
using RecCache = Cache<RecordingFifo, KangarooQueue, NoAdmission>;

struct Knobs {
  double log_pct = 5;
  uint32_t partitions = 1;
  uint32_t segment = 256 * 1024;
  uint32_t page = 4096;
  uint32_t set = 4096;
  uint32_t threshold = 2;
  uint32_t rrip_bits = 3;
  uint32_t bloom_bits = 64;
  double probability = 1.0;
  uint32_t readmit_hits = 1;
  bool read_hits = true;
};

FrameworkConfig kg_config(const Knobs& k) {
  FrameworkConfig f;
  f.name = "kangaroo";
  f.params.set(kKangarooLogPctKey.name, k.log_pct);
  f.params.set(kKangarooLogPartitionsKey.name, k.partitions);
  f.params.set(kKangarooSegmentSizeKey.name, k.segment);
  f.params.set(kKangarooPageSizeKey.name, k.page);
  f.params.set(kKangarooSetSizeKey.name, k.set);
  f.params.set(kKangarooThresholdKey.name, k.threshold);
  f.params.set(kKangarooRripBitsKey.name, k.rrip_bits);
  f.params.set(kKangarooBloomFilterBitsKey.name, k.bloom_bits);
  f.params.set(kKangarooAdmissionProbabilityKey.name, k.probability);
  f.params.set(kKangarooReadmitHitsKey.name, k.readmit_hits);
  f.params.set(kReadHitsKey.name, k.read_hits);
  return f;
}

CacheConfig cache_config(uint64_t capacity, uint64_t seed = 0) {
  CacheConfig c = testing::cache_config(capacity);
  c.seed = seed;
  return c;
}

using testing::check_balance;
using testing::del;
using testing::fifo;
using testing::get;
using testing::set;

// The n-th key (n >= 0) from `from` on whose set, of `sets`, is `s`.
uint64_t key_in(uint64_t s, uint64_t sets, uint64_t from = 1) {
  while (mix64(from) % sets != s) ++from;
  return from;
}

// ---- the brute-force model ----

// Kangaroo as plainly as the spec's §6.2 pseudo-code says it, in std containers: every object a
// record in a map; each flash segment, buffer page, set and KLog chain a vector of keys.
struct Model {
  // Geometry, given by hand (the test checks the queue computed the same).
  uint32_t P;
  uint64_t N;
  uint32_t seg, page, pps, set_bytes;
  uint64_t sets, log_bytes;
  Knobs k;
  uint32_t rrpv_max;
  RngStream rng;

  struct Obj {
    uint32_t size = 0;
    bool log = true;
    uint32_t hits = 0;
    bool buffered = true;
    uint64_t slot = 0;  // global segment slot p·N + i
    uint32_t pg = 0;    // page within the segment
    bool hitbit = false;
    uint32_t rrpv = 0;
  };
  std::map<uint64_t, Obj> objs;
  std::vector<std::vector<uint64_t>> flash;             // by global slot, on-flash order
  std::vector<bool> written;                            // by global slot
  std::vector<std::vector<std::vector<uint64_t>>> buf;  // [p][page] keys
  std::vector<std::vector<uint32_t>> buf_used;          // [p][page] entry bytes
  std::vector<uint64_t> open;                           // [p] slot index in the partition
  std::vector<std::vector<uint64_t>> chain;             // by set, in order of entry to KLog
  std::vector<std::vector<uint64_t>> kset;              // by set, front to back

  // Counters.
  uint64_t log_written = 0, set_rewrites = 0, moved = 0, dropped = 0, readmissions = 0,
           rejections = 0, fp_reads = 0, set_evictions = 0, refusals = 0;

  struct Out {
    bool hit = false;
    std::vector<Io> io;
    std::vector<uint64_t> evicted;
  };
  Out* out = nullptr;

  Model(uint32_t partitions, uint64_t segs, uint64_t n_sets, const Knobs& knobs, uint64_t seed)
      : P(partitions),
        N(segs),
        seg(knobs.segment),
        page(knobs.page),
        pps(knobs.segment / knobs.page),
        set_bytes(knobs.set),
        sets(n_sets),
        log_bytes(uint64_t{partitions} * segs * knobs.segment),
        k(knobs),
        rrpv_max((1u << knobs.rrip_bits) - 1),
        rng(seed, kKangarooAdmissionStream),
        flash(partitions * segs),
        written(partitions * segs, false),
        buf(partitions, std::vector<std::vector<uint64_t>>(pps)),
        buf_used(partitions, std::vector<uint32_t>(pps, 0)),
        open(partitions, 0),
        chain(n_sets),
        kset(n_sets) {}

  uint64_t set_of(uint64_t key) const { return mix64(key) % sets; }
  uint32_t part(uint64_t s) const { return static_cast<uint32_t>(s % P); }
  uint32_t page_cap() const { return page - 24; }
  uint32_t set_cap() const { return set_bytes - 24; }
  uint64_t set_off(uint64_t s) const { return log_bytes + s * set_bytes; }
  bool admits(uint32_t size) const { return size + 6 <= page_cap() && size + 14 <= set_cap(); }
  uint32_t fill(uint64_t s) const {
    uint32_t f = 0;
    for (uint64_t x : kset[s]) f += objs.at(x).size + 14;
    return f;
  }

  // Navy's Bloom hashing (bighash_bloom.h's folly functions): bit of hash i for key.
  uint64_t bit(uint64_t key, uint32_t i) const {
    return bighash::hash_128_to_64(mix64(key), bighash::twang_mix64(i)) % (k.bloom_bits / 4);
  }
  bool maybe(uint64_t key) const {
    if (k.bloom_bits == 0) return true;
    for (uint32_t i = 0; i < 4; ++i) {
      bool covered = false;
      for (uint64_t x : kset[set_of(key)]) covered = covered || bit(x, i) == bit(key, i);
      if (!covered) return false;
    }
    return true;
  }

  void evict(uint64_t key) {
    out->evicted.push_back(key);
    objs.erase(key);
  }
  void erase_from(std::vector<uint64_t>& v, uint64_t key) {
    auto it = std::find(v.begin(), v.end(), key);
    REQUIRE(it != v.end());
    v.erase(it);
  }
  // Takes a log object out of its segment or buffer page (buffer space stays used).
  void leave_log_place(uint64_t key) {
    const Obj& o = objs.at(key);
    if (o.buffered) {
      erase_from(buf[o.slot / N][o.pg], key);
    } else {
      erase_from(flash[o.slot], key);
    }
  }
  // First page of partition p's buffer with room for `need`, or -1.
  int first_fit(uint32_t p, uint32_t need) const {
    for (uint32_t j = 0; j < pps; ++j) {
      if (buf_used[p][j] + need <= page_cap()) return static_cast<int>(j);
    }
    return -1;
  }
  void place(uint64_t key, uint32_t p, int j) {
    Obj& o = objs[key];
    buf[p][j].push_back(key);
    buf_used[p][j] += o.size + 6;
    o.log = true;
    o.buffered = true;
    o.slot = p * N + open[p];
    o.pg = static_cast<uint32_t>(j);
    o.hits = 0;
  }

  void insert(uint64_t key, uint32_t size) {
    if (!(rng.uniform() < k.probability)) {
      ++rejections;
      out->evicted.push_back(key);
      return;
    }
    const uint64_t s = set_of(key);
    const uint32_t p = part(s);
    while (first_fit(p, size + 6) < 0) flush(p);
    objs[key].size = size;
    place(key, p, first_fit(p, size + 6));
    chain[s].push_back(key);
  }

  void flush(uint32_t p) {
    const uint64_t g = p * N + open[p];
    out->io.push_back(W(g * seg, seg));
    log_written += seg;
    REQUIRE(flash[g].empty());
    for (uint32_t j = 0; j < pps; ++j) {
      for (uint64_t x : buf[p][j]) {
        objs[x].buffered = false;
        flash[g].push_back(x);
      }
      buf[p][j].clear();
      buf_used[p][j] = 0;
    }
    written[g] = true;
    open[p] = (open[p] + 1) % N;
    const uint64_t nxt = p * N + open[p];
    if (written[nxt]) {
      clean(nxt);
      written[nxt] = false;
    }
  }

  bool readmittable(uint64_t key) const {
    return k.readmit_hits > 0 && objs.at(key).hits >= k.readmit_hits;
  }

  void clean(uint64_t g) {
    out->io.push_back(R(g * seg, seg));
    while (!flash[g].empty()) {
      const uint64_t o = flash[g].front();
      const uint64_t s = set_of(o);
      if (chain[s].size() >= k.threshold) {
        move(s, g);
        continue;
      }
      const uint32_t p = part(s);
      const int j = readmittable(o) ? first_fit(p, objs[o].size + 6) : -1;
      erase_from(flash[g], o);
      if (j >= 0) {
        place(o, p, j);
        ++readmissions;
      } else {
        erase_from(chain[s], o);
        ++dropped;
        evict(o);
      }
    }
  }

  void fold_and_age(uint64_t s) {
    std::vector<uint64_t> stay, promoted;
    for (uint64_t x : kset[s]) (objs[x].hitbit ? promoted : stay).push_back(x);
    for (uint64_t x : promoted) {
      objs[x].hitbit = false;
      objs[x].rrpv = 0;
    }
    stay.insert(stay.end(), promoted.begin(), promoted.end());
    kset[s] = stay;
    if (kset[s].empty()) return;
    uint32_t m = 0;
    for (uint64_t x : kset[s]) m = std::max(m, objs[x].rrpv);
    for (uint64_t x : kset[s]) objs[x].rrpv += rrpv_max - m;
  }

  void move(uint64_t s, uint64_t g) {
    for (uint64_t x : chain[s]) {
      const Obj& o = objs[x];
      if (!o.buffered && o.slot != g) out->io.push_back(R((o.slot * pps + o.pg) * page, page));
    }
    out->io.push_back(R(set_off(s), set_bytes));
    fold_and_age(s);
    const std::vector<uint64_t> group = chain[s];
    chain[s].clear();
    for (uint64_t x : group) {
      Obj& o = objs[x];
      const uint32_t need = o.size + 14;
      const uint32_t r = static_cast<uint32_t>(std::max(0, int(rrpv_max) - 1 - int(o.hits)));
      // isSpace: from the front, free space plus evictable entries, stopping at a lower RRPV.
      uint64_t free = set_cap() - fill(s);
      size_t i = 0;
      bool fits = true;
      while (free < need) {
        if (i == kset[s].size() || objs[kset[s][i]].rrpv < r) {
          fits = false;
          break;
        }
        free += objs[kset[s][i]].size + 14;
        ++i;
      }
      if (fits) {
        while (set_cap() - fill(s) < need) {
          const uint64_t v = kset[s].front();
          kset[s].erase(kset[s].begin());
          ++set_evictions;
          evict(v);
        }
        leave_log_place(x);
        Obj& m = objs[x];
        m.log = false;
        m.rrpv = r;
        m.hitbit = false;
        size_t pos = 0;
        while (pos < kset[s].size() && objs[kset[s][pos]].rrpv >= r) ++pos;
        kset[s].insert(kset[s].begin() + static_cast<long>(pos), x);
        ++moved;
        continue;
      }
      ++refusals;
      if (o.buffered || o.slot != g) {
        chain[s].push_back(x);
        continue;
      }
      const int j = readmittable(x) ? first_fit(part(s), o.size + 6) : -1;
      erase_from(flash[g], x);
      if (j >= 0) {
        place(x, part(s), j);
        chain[s].push_back(x);
        ++readmissions;
      } else {
        ++dropped;
        evict(x);
      }
    }
    out->io.push_back(W(set_off(s), set_bytes));
    ++set_rewrites;
  }

  void remove(uint64_t key) {
    Obj& o = objs[key];
    const uint64_t s = set_of(key);
    if (o.log) {
      leave_log_place(key);
      erase_from(chain[s], key);
    } else {
      out->io.push_back(R(set_off(s), set_bytes));
      fold_and_age(s);
      erase_from(kset[s], key);
      out->io.push_back(W(set_off(s), set_bytes));
      ++set_rewrites;
    }
    objs.erase(key);
  }

  Out step(const Request& r) {
    Out result;
    out = &result;
    const bool cached = objs.count(r.key) != 0;
    if (r.op == Op::kGet) {
      if (cached) {
        Obj& o = objs[r.key];
        result.hit = true;
        if (k.read_hits) {
          if (!o.log) {
            result.io.push_back(R(set_off(set_of(r.key)), set_bytes));
          } else if (!o.buffered) {
            result.io.push_back(R((o.slot * pps + o.pg) * page, page));
          }
        }
        if (o.log) {
          o.hits = std::min(o.hits + 1, 7u);
        } else {
          o.hitbit = true;
        }
        return result;
      }
      if (maybe(r.key)) {
        result.io.push_back(R(set_off(set_of(r.key)), set_bytes));
        ++fp_reads;
      }
      if (admits(r.size_bytes)) insert(r.key, r.size_bytes);
    } else if (r.op == Op::kSet) {
      if (cached) remove(r.key);
      if (admits(r.size_bytes)) insert(r.key, r.size_bytes);
    } else if (cached) {
      remove(r.key);
    }
    return result;
  }
};

// A random trace of `get_pct` % gets, `set_pct` % sets, the rest deletes, over `keys` keys (half
// the requests for the first eighth of them); sizes uniform in [1, small_size], one request in 16
// uniform in [1, max_size] instead.
std::vector<Request> random_trace(uint64_t seed, size_t n, uint64_t keys, uint32_t small_size,
                                  uint32_t max_size, uint32_t get_pct = 60, uint32_t set_pct = 30) {
  RngStream rng(seed, 0);
  std::vector<Request> reqs;
  reqs.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const uint64_t key = 1 + rng.below(rng.below(2) == 0 ? keys / 8 : keys);
    const uint32_t size =
        1 + static_cast<uint32_t>(rng.below(rng.below(16) == 0 ? max_size : small_size));
    const uint64_t op = rng.below(100);
    reqs.push_back(op < get_pct             ? get(key, size)
                   : op < get_pct + set_pct ? set(key, size)
                                            : del(key));
  }
  return reqs;
}

struct Expected {
  uint64_t min_hits, min_evictions, min_moves, min_readmissions, min_rejections, min_fp;
};

// Replays `reqs` through a Kangaroo cache of capacity C and the model (P partitions of N
// segments, `sets` sets), comparing every request: hit or miss, the device's I/O, the victims in
// order; then the counters.
void compare_with_model(const std::vector<Request>& reqs, uint64_t capacity, uint32_t P, uint64_t N,
                        uint64_t sets, const Knobs& k, uint64_t seed,
                        const Expected& want_at_least) {
  RecordingDevice device(capacity, 512);
  std::vector<uint64_t> evicted;
  const FrameworkConfig fc = kg_config(k);
  RecCache c(cache_config(capacity, seed), fc, RecordingFifo(fifo(), &evicted), device);
  const KangarooQueue& q = c.queue();
  REQUIRE(q.geometry().partitions == P);
  REQUIRE(q.geometry().segments_per_partition == N);
  REQUIRE(q.geometry().sets == sets);
  Model m(P, N, sets, k, seed);
  uint64_t hits = 0, evictions = 0;
  for (size_t i = 0; i < reqs.size(); ++i) {
    const Request& r = reqs[i];
    device.log.clear();
    evicted.clear();
    const Model::Out want = m.step(r);
    const bool hit = c.access(r);
    INFO("request " << i << " op " << int(r.op) << " key " << r.key << " size " << r.size_bytes);
    REQUIRE(hit == want.hit);
    REQUIRE(device.log == want.io);
    REQUIRE(evicted == want.evicted);
    hits += hit;
    evictions += want.evicted.size();
    if (i % 1000 == 0) REQUIRE(q.check_invariants() == "");
  }
  REQUIRE(q.check_invariants() == "");
  // Every set holds the model's keys and RRPVs, front to back; every chain the model's keys.
  for (uint64_t s = 0; s < sets; ++s) {
    std::vector<Entry> entries;
    for (uint64_t x : m.kset[s]) entries.push_back({x, m.objs[x].rrpv, m.objs[x].hitbit});
    REQUIRE(q.set_entries(s) == entries);
    REQUIRE(q.log_chain(s) == m.chain[s]);
  }
  for (uint32_t p = 0; p < P; ++p) {
    for (uint64_t i = 0; i < N; ++i) REQUIRE(q.segment_keys(p, i) == m.flash[p * N + i]);
    REQUIRE(q.buffer_pages(p) == m.buf[p]);
  }
  const KangarooCounters& e = q.engine_counters();
  CHECK(e.log_bytes_written == m.log_written);
  CHECK(e.set_rewrites == m.set_rewrites);
  CHECK(e.set_bytes_written == m.set_rewrites * k.set);
  CHECK(e.flash_bytes_written == m.log_written + m.set_rewrites * k.set);
  CHECK(e.flash_bytes_written == device.counters().write_bytes);
  CHECK(e.flash_bytes_read == device.counters().read_bytes);
  CHECK(e.moved_to_sets == m.moved);
  CHECK(e.dropped_at_cleaning == m.dropped);
  CHECK(e.readmissions == m.readmissions);
  CHECK(e.admission_rejections == m.rejections);
  CHECK(e.bloom_false_positive_reads == m.fp_reads);
  CHECK(e.set_evictions == m.set_evictions);
  CHECK(e.set_refusals == m.refusals);
  CHECK(e.log_hits + e.set_hits == hits);
  CHECK(q.counters().evicted_objects == evictions - m.rejections);
  CHECK(c.object_count() == m.objs.size());
  check_balance(q.counters(), c.used_bytes());
  // The trace exercised what it is meant to.
  INFO("hits " << hits << " (log " << e.log_hits << ", set " << e.set_hits << ") evictions "
               << evictions << " moves " << e.group_moves << " moved " << e.moved_to_sets
               << " dropped " << e.dropped_at_cleaning << " readmissions " << e.readmissions
               << " refusals " << e.set_refusals << " rejections " << e.admission_rejections
               << " false positives " << m.fp_reads << " set removes " << e.set_removes
               << " log removes " << e.log_removes << " below threshold " << e.below_threshold);
  CHECK(hits >= want_at_least.min_hits);
  CHECK(e.log_hits > 0);
  CHECK(e.set_hits > 0);
  CHECK(evictions >= want_at_least.min_evictions);
  CHECK(e.group_moves >= want_at_least.min_moves);
  CHECK(e.readmissions >= want_at_least.min_readmissions);
  CHECK(e.admission_rejections >= want_at_least.min_rejections);
  CHECK(m.fp_reads >= want_at_least.min_fp);
  CHECK(e.set_removes > 0);
  CHECK(e.log_removes > 0);
  CHECK(e.set_refusals > 0);
  CHECK(e.set_evictions > 0);
}

}  // namespace

TEST_CASE("Kangaroo: a KLog flush moves only the sets that reach the threshold, I/O by I/O",
          "[kangaroo]") {
  // Pages of 512 B (488 B of entries), segments of 2 pages, 1 partition; C = 6144 B with a log of
  // 34 %: ⌊2088 / 1024⌋ = 2 segments (log 2048 B at offset 0), then 4 sets of 1024 B (1000 B of
  // entries) at 2048, 3072, 4096, 5120. Objects of 238 B: a log entry takes 244 B (2 a page, 4
  // a segment), a set entry 252 B (3 a set). Threshold 2, readmission at >= 1 hit, every object
  // admitted. New objects arrive by sets (no filter probe); keys aN lie in set 0, bN in set 1,
  // cN in set 2, dN in set 3.
  Knobs k;
  k.log_pct = 34;
  k.segment = 1024;
  k.page = 512;
  k.set = 1024;
  const uint64_t C = 6144;
  RecordingDevice device(C, 512);
  std::vector<uint64_t> evicted;
  RecCache c(cache_config(C), kg_config(k), RecordingFifo(fifo(), &evicted), device);
  const KangarooQueue& q = c.queue();
  REQUIRE(q.geometry().segments_per_partition == 2);
  REQUIRE(q.geometry().log_bytes == 2048);
  REQUIRE(q.geometry().sets == 4);
  REQUIRE(q.set_offset(3) == 5120);
  const uint64_t a1 = key_in(0, 4), a2 = key_in(0, 4, a1 + 1), a3 = key_in(0, 4, a2 + 1);
  const uint64_t b1 = key_in(1, 4), b2 = key_in(1, 4, b1 + 1);
  const uint64_t c1 = key_in(2, 4), c2 = key_in(2, 4, c1 + 1);
  const uint64_t d1 = key_in(3, 4), d2 = key_in(3, 4, d1 + 1), d3 = key_in(3, 4, d2 + 1),
                 d4 = key_in(3, 4, d3 + 1);
  const auto step = [&](const Request& r) {
    device.log.clear();
    evicted.clear();
    return c.access(r);
  };
  using Pages = std::vector<std::vector<uint64_t>>;
  using Keys = std::vector<uint64_t>;

  // Segment slot 0's buffer fills: page 0 [a1, b1], page 1 [c1, a2]. No I/O.
  for (uint64_t x : {a1, b1, c1, a2}) {
    step(set(x, 238));
    CHECK(device.log.empty());
  }
  CHECK(q.buffer_pages(0) == Pages{{a1, b1}, {c1, a2}});
  // A hit in the DRAM buffer reads nothing; b1 has 1 KLog hit.
  CHECK(step(get(b1, 238)));
  CHECK(device.log.empty());
  // d1 fits no page: the buffer is written whole to slot 0; slot 1 was never written, so nothing
  // is cleaned; d1 opens slot 1's buffer.
  step(set(d1, 238));
  CHECK(device.log == std::vector<Io>{W(0, 1024)});
  CHECK(q.segment_keys(0, 0) == Keys{a1, b1, c1, a2});
  CHECK(q.open_slot(0) == 1);
  // A hit on flash reads its page: a1 is on page 0 of slot 0.
  CHECK(step(get(a1, 238)));
  CHECK(device.log == std::vector<Io>{R(0, 512)});
  for (uint64_t x : {a3, d2, d3}) step(set(x, 238));
  CHECK(device.log.empty());
  CHECK(q.buffer_pages(0) == Pages{{d1, a3}, {d2, d3}});
  CHECK(q.log_chain(0) == Keys{a1, a2, a3});

  // d4: the buffer is written to slot 1; the ring wraps onto slot 0, which is cleaned: read whole,
  // then its objects in on-flash order a1, b1, c1, a2:
  //   a1: set 0 has 3 log objects (a1, a2 here, a3 in slot 1) >= 2: the group moves. a3's page
  //       (slot 1, page 0 at 1024) is read; set 0 is read, and written once with
  //       a2 (RRPV 6), a3 (6), a1 (5: one KLog hit);
  //   b1: set 1 has 1 < 2; b1 was hit once: readmitted to the new buffer (slot 0), at 0 hits;
  //   c1: set 2 has 1 < 2, never hit: dropped (evicted);
  //   a2: already moved.
  // Then d4 joins b1 on the buffer's page 0.
  step(set(d4, 238));
  CHECK(device.log ==
        std::vector<Io>{W(1024, 1024), R(0, 1024), R(1024, 512), R(2048, 1024), W(2048, 1024)});
  CHECK(evicted == Keys{c1});
  CHECK(q.set_entries(0) == std::vector<Entry>{{a2, 6, false}, {a3, 6, false}, {a1, 5, false}});
  CHECK(q.set_entries(1).empty());
  CHECK(q.set_entries(2).empty());
  CHECK(q.log_chain(0).empty());
  CHECK(q.log_chain(1) == Keys{b1});
  CHECK(q.log_chain(3) == Keys{d1, d2, d3, d4});
  CHECK(q.segment_keys(0, 1) == Keys{d1, d2, d3});  // a3 left slot 1 for its set
  CHECK(q.buffer_pages(0) == Pages{{b1, d4}, {}});
  CHECK_FALSE(c.contains(c1));
  {
    const KangarooCounters& e = q.engine_counters();
    CHECK(e.log_segments_written == 2);
    CHECK(e.segments_cleaned == 1);
    CHECK(e.group_moves == 1);
    CHECK(e.set_rewrites == 1);
    CHECK(e.moved_to_sets == 3);
    CHECK(e.below_threshold == 2);
    CHECK(e.readmissions == 1);
    CHECK(e.dropped_at_cleaning == 1);
    CHECK(e.group_page_reads == 1);
    CHECK(e.flash_bytes_written == 2 * 1024 + 1024);
  }
  // A set hit reads the whole set and sets the hit bit.
  CHECK(step(get(a3, 238)));
  CHECK(device.log == std::vector<Io>{R(2048, 1024)});
  CHECK(q.set_entries(0) == std::vector<Entry>{{a2, 6, false}, {a3, 6, true}, {a1, 5, false}});
  // c1 again: its set's filter is empty (never written): a miss without I/O, then an insert on
  // page 1 of the buffer.
  CHECK(q.engine_counters().bloom_rejects == 0);
  CHECK_FALSE(step(get(c1, 238)));
  CHECK(device.log.empty());
  CHECK(q.engine_counters().bloom_rejects == 1);
  step(set(c2, 238));
  CHECK(q.buffer_pages(0) == Pages{{b1, d4}, {c1, c2}});

  // b2: slot 0 is written (b1, d4 | c1, c2), the ring wraps onto slot 1 (d1, d2, d3): d1's set
  // has 4 log objects: all four move; d1..d3 are in the segment just read, d4 on page 0 of the
  // slot just written (read at 0). Set 3 holds 3: d4 (RRPV 6) evicts the front, d1.
  step(set(b2, 238));
  CHECK(device.log ==
        std::vector<Io>{W(0, 1024), R(1024, 1024), R(0, 512), R(5120, 1024), W(5120, 1024)});
  CHECK(evicted == Keys{d1});
  CHECK(q.set_entries(3) == std::vector<Entry>{{d2, 6, false}, {d3, 6, false}, {d4, 6, false}});
  CHECK(q.segment_keys(0, 0) == Keys{b1, c1, c2});  // d4's entry is dead space on page 0
  CHECK(q.buffer_pages(0) == Pages{{b2}, {}});
  CHECK(q.log_chain(1) == Keys{b1, b2});
  CHECK(q.engine_counters().group_page_reads == 2);

  const FrameworkCounters& f = q.counters();
  CHECK(f.placed_objects == 13);  // 12 inserts, 1 readmission
  CHECK(f.reinsertions == 1);
  CHECK(f.evicted_objects == 2);  // c1 (dropped), d1 (RRIParoo)
  CHECK(f.dram_buffer_bytes == 1024);
  CHECK(c.used_bytes() == 10 * 238);
  check_balance(f, c.used_bytes());
  CHECK(q.check_invariants() == "");
}

TEST_CASE("Kangaroo: RRIParoo inside one set, hand-worked", "[kangaroo]") {
  // One set of 1024 B (1000 B of entries) after a log of 2 segments of one 512-B page each
  // (C = 2048, log 50 %). Objects kN of 186 B: log entries of 192 B (2 a page), set entries of
  // 200 B (5 a set); B of 386 B: a log entry of 392 B (alone on a page), a set entry of 400 B.
  // RRIParoo with 3 bits: RRPVs 0..7, insertion RRPV 6 − KLog hits. Every key is in set 0 (at
  // 1024); segment slot i is at 512·i. Threshold 2, readmission at >= 1 hit.
  Knobs k;
  k.log_pct = 50;
  k.segment = 512;
  k.page = 512;
  k.set = 1024;
  const uint64_t C = 2048;
  RecordingDevice device(C, 512);
  std::vector<uint64_t> evicted;
  RecCache c(cache_config(C), kg_config(k), RecordingFifo(fifo(), &evicted), device);
  const KangarooQueue& q = c.queue();
  REQUIRE(q.geometry().sets == 1);
  REQUIRE(q.geometry().segments_per_partition == 2);
  const auto step = [&](const Request& r) {
    device.log.clear();
    evicted.clear();
    return c.access(r);
  };
  const auto put = [&](uint64_t key, uint32_t size = 186) { step(set(key, size)); };
  using Keys = std::vector<uint64_t>;
  using Entries = std::vector<Entry>;
  const uint64_t B = 100;
  const uint64_t kSet = 1024;

  // Round 1. k1, k2 in slot 0's buffer; k2 hit twice there (no I/O). k3 writes slot 0 and opens
  // slot 1 (never written: nothing cleaned); k3 hit once; k4.
  put(1);
  put(2);
  CHECK(step(get(2, 186)));
  CHECK(step(get(2, 186)));
  put(3);
  CHECK(device.log == std::vector<Io>{W(0, 512)});
  CHECK(step(get(3, 186)));
  put(4);
  // k5 writes slot 1 and wraps onto slot 0: read it; k1's set has 4 log objects: move them all.
  // k3, k4 are on slot 1's page (one read each); the set is read, filled in chain order:
  //   k1 at 6; k2 (2 hits) at 4; k3 (1 hit) at 5, before k2; k4 at 6, after k1 (FIFO ties);
  // and written. k5 opens slot 0's buffer.
  put(5);
  CHECK(device.log == std::vector<Io>{W(512, 512), R(0, 512), R(512, 512), R(512, 512),
                                      R(kSet, 1024), W(kSet, 1024)});
  CHECK(q.set_entries(0) == Entries{{1, 6, false}, {4, 6, false}, {3, 5, false}, {2, 4, false}});
  CHECK(evicted.empty());

  // Round 2. Set hits on k3 and k1 read the set and set their bits. k6 (hit once in the buffer);
  // k7 writes slot 0, wraps onto slot 1 (its objects all moved: only the read); k8; k9 writes
  // slot 1, wraps onto slot 0 (k5, k6): the group k5..k8 moves (k7, k8 read from slot 1):
  //   fold: k1, k3 to RRPV 0 behind the others: k4 6, k2 4, k1 0, k3 0;
  //   age: the highest is 6 < 7: all + 1: k4 7, k2 5, k1 1, k3 1 (800 B);
  //   k5 (6) fits in the free 200 B: after k4;
  //   k6 (1 hit: 5): the front k4 (7 >= 5) is evicted; k6 goes after k2 (5, FIFO);
  //   k7 (6): evicts the front k5; k8 (6): evicts k7.
  CHECK(step(get(3, 186)));
  CHECK(device.log == std::vector<Io>{R(kSet, 1024)});
  CHECK(step(get(1, 186)));
  CHECK(q.set_entries(0) == Entries{{1, 6, true}, {4, 6, false}, {3, 5, true}, {2, 4, false}});
  put(6);
  CHECK(step(get(6, 186)));
  CHECK(device.log.empty());
  put(7);
  CHECK(device.log == std::vector<Io>{W(0, 512), R(512, 512)});
  put(8);
  put(9);
  CHECK(device.log == std::vector<Io>{W(512, 512), R(0, 512), R(512, 512), R(512, 512),
                                      R(kSet, 1024), W(kSet, 1024)});
  CHECK(evicted == Keys{4, 5, 7});
  CHECK(q.set_entries(0) ==
        Entries{{8, 6, false}, {2, 5, false}, {6, 5, false}, {1, 1, false}, {3, 1, false}});

  // Round 3: refusals. Hits on k2 and k6 set their bits. B does not fit beside k9 on slot 0's
  // page: slot 0 is written, slot 1 (empty) cleaned; B opens slot 1's buffer and is hit once
  // (insertion RRPV 5). k10 does not fit beside B: slot 1 is written, slot 0 (k9) cleaned: the
  // group k9, B moves (B's page read):
  //   fold: k2, k6 to 0: k8 6, k1 1, k3 1, k2 0, k6 0; age + 1: k8 7, k1 2, k3 2, k2 1, k6 1;
  //   k9 (6): evicts k8;
  //   B (5) needs 400 B: k9 (6 >= 5) frees 200, then k1 (2 < 5) stops the walk: refused. B is
  //   in slot 1, not the segment being cleaned: it stays in KLog (no write).
  CHECK(step(get(2, 186)));
  CHECK(step(get(6, 186)));
  put(B, 386);
  CHECK(device.log == std::vector<Io>{W(0, 512), R(512, 512)});
  CHECK(step(get(B, 386)));
  put(10);
  CHECK(device.log ==
        std::vector<Io>{W(512, 512), R(0, 512), R(512, 512), R(kSet, 1024), W(kSet, 1024)});
  CHECK(evicted == Keys{8});
  CHECK(q.set_entries(0) ==
        Entries{{9, 6, false}, {1, 2, false}, {3, 2, false}, {2, 1, false}, {6, 1, false}});
  CHECK(q.log_chain(0) == Keys{B, 10});
  CHECK(q.engine_counters().set_refusals == 1);

  // k11 joins k10. k12 does not fit: slot 0 is written, slot 1 (B) cleaned: the group B, k10,
  // k11 moves (k10, k11 read from slot 0):
  //   age (no hits): + 1: k9 7, k1 3, k3 3, k2 2, k6 2;
  //   B (1 hit: 5): k9 frees 200, k1 (3 < 5) stops it: refused; B is in the segment being
  //   cleaned and was hit: readmitted (at 0 hits) to the empty buffer of slot 1;
  //   k10 (6): evicts k9; k11 (6): evicts k10.
  // Then k12 does not fit beside B: slot 1 is written again and slot 0 (its objects moved)
  // cleaned: the loop a readmission can cause. k12 opens slot 0's buffer.
  put(11);
  put(12);
  CHECK(device.log == std::vector<Io>{W(0, 512), R(512, 512), R(0, 512), R(0, 512), R(kSet, 1024),
                                      W(kSet, 1024), W(512, 512), R(0, 512)});
  CHECK(evicted == Keys{9, 10});
  CHECK(q.set_entries(0) ==
        Entries{{11, 6, false}, {1, 3, false}, {3, 3, false}, {2, 2, false}, {6, 2, false}});
  CHECK(q.log_chain(0) == Keys{B, 12});
  CHECK(q.segment_keys(0, 1) == Keys{B});
  CHECK(q.engine_counters().readmissions == 1);
  CHECK(q.log_hits(c.table().find(B)) == 0);

  // k13; k14 writes slot 0, cleans slot 1 (B): the group B, k12, k13 (k12, k13 read):
  //   age + 1: k11 7, k1 4, k3 4, k2 3, k6 3;
  //   B (0 hits: 6): refused (k1 4 < 6 after k11); in the cleaned segment, not hit: dropped;
  //   k12 (6): evicts k11; k13 (6): evicts k12.
  put(13);
  put(14);
  CHECK(device.log == std::vector<Io>{W(0, 512), R(512, 512), R(0, 512), R(0, 512), R(kSet, 1024),
                                      W(kSet, 1024)});
  CHECK(evicted == Keys{B, 11, 12});
  CHECK(q.set_entries(0) ==
        Entries{{13, 6, false}, {1, 4, false}, {3, 4, false}, {2, 3, false}, {6, 3, false}});
  CHECK(q.log_chain(0) == Keys{14});

  const KangarooCounters& e = q.engine_counters();
  CHECK(e.set_refusals == 3);
  CHECK(e.readmissions == 1);
  CHECK(e.dropped_at_cleaning == 1);
  CHECK(e.set_evictions == 8);  // k4 k5 k7, k8, k9 k10, k11 k12 (B was dropped at cleaning)
  CHECK(e.group_moves == 5);
  check_balance(q.counters(), c.used_bytes());
  CHECK(q.check_invariants() == "");

  // A remove of a set object rewrites its set, folding and ageing it first: k2 hit, then
  // deleted: fold k2 to 0, age + 1, drop k2.
  CHECK(step(get(2, 186)));
  step(del(6));
  CHECK(device.log == std::vector<Io>{R(kSet, 1024), W(kSet, 1024)});
  CHECK(q.set_entries(0) == Entries{{13, 7, false}, {1, 5, false}, {3, 5, false}, {2, 1, false}});
  // A remove of a log object costs nothing.
  step(del(14));
  CHECK(device.log.empty());
  CHECK(q.log_chain(0).empty());
  check_balance(q.counters(), c.used_bytes());
  CHECK(q.check_invariants() == "");
}

TEST_CASE("Kangaroo agrees with a brute-force model request by request", "[kangaroo]") {
  // 2 partitions of 3 segments of 4 KiB (4 pages of 1 KiB), then 256 sets of 1 KiB:
  // C = 286720, log 9 % (⌊25804 / 8192⌋ = 3 segments a partition, 24576 B): about one log
  // object per set, so cleaning meets sets below and above the threshold. Sizes mostly up to
  // 150 B, some up to 1000 B (objects over 986 B are never admitted); 8000 keys, far more than
  // it holds (about 2800 objects).
  const uint64_t C = 286720;
  Knobs k;
  k.log_pct = 9;
  k.partitions = 2;
  k.segment = 4096;
  k.page = 1024;
  k.set = 1024;
  const std::vector<Request> reqs = random_trace(31, 20000, 8000, 150, 1000);
  SECTION("admission probability 1") {
    compare_with_model(reqs, C, 2, 3, 256, k, 5, {3000, 3000, 1000, 100, 0, 50});
  }
  SECTION("admission probability 0.9") {
    k.probability = 0.9;
    compare_with_model(reqs, C, 2, 3, 256, k, 7, {3000, 3000, 1000, 100, 1000, 50});
  }
  SECTION("threshold 1, no readmission") {
    k.threshold = 1;
    k.readmit_hits = 0;
    compare_with_model(reqs, C, 2, 3, 256, k, 5, {3000, 3000, 1000, 0, 0, 50});
  }
  SECTION("threshold 3, readmission at 2 hits, 2 RRIParoo bits") {
    k.threshold = 3;
    k.readmit_hits = 2;
    k.rrip_bits = 2;
    compare_with_model(reqs, C, 2, 3, 256, k, 5, {2000, 3000, 500, 10, 0, 50});
  }
  SECTION("no Bloom filter, hits not read, admission 0.8") {
    k.bloom_bits = 0;
    k.read_hits = false;
    k.probability = 0.8;
    compare_with_model(reqs, C, 2, 3, 256, k, 9, {3000, 3000, 1000, 100, 2000, 5000});
  }
  SECTION("a dense log: 32 sets, about 9 log objects a set") {
    // C = 24576 + 32 · 1024 = 57344, log 43 %: ⌊24657 / 8192⌋ = 3.
    k.log_pct = 43;
    compare_with_model(random_trace(33, 20000, 1500, 150, 1000), 57344, 2, 3, 32, k, 5,
                       {3000, 3000, 1000, 20, 0, 50});
  }
  SECTION("one partition of 4 segments of 8 pages of 512 B, 4 RRIParoo bits") {
    // C = 4 · 4096 + 256 · 1024 = 278528, log 6 %: ⌊16711 / 4096⌋ = 4.
    k.partitions = 1;
    k.page = 512;
    k.rrip_bits = 4;
    k.log_pct = 6;
    compare_with_model(random_trace(32, 20000, 8000, 120, 480), 278528, 1, 4, 256, k, 5,
                       {3000, 3000, 1000, 100, 0, 50});
  }
}

TEST_CASE("Kangaroo's application write amplification: threshold 1, no readmission", "[kangaroo]") {
  // With threshold 1 every cleaned object's group moves, and without readmission nothing is
  // written twice to the log: flash bytes = segments written × segment + set rewrites × S, on
  // the counters and on the device alike (the log area is [0, log), the sets after it). Gets of
  // 200-B objects over more keys than the cache holds; 3 partitions of 8 segments of 16 KiB.
  Knobs k;
  k.threshold = 1;
  k.readmit_hits = 0;
  k.partitions = 3;
  k.segment = 16384;
  k.page = 4096;
  k.set = 4096;
  k.log_pct = 5;
  const uint64_t C = 3 * 8 * 16384 * 20;  // log 5 % = 393216 B = 3 × 8 × 16 KiB
  RecordingDevice device(C, 512);
  KCache c(cache_config(C), kg_config(k), fifo(), device);
  const KangarooQueue& q = c.queue();
  REQUIRE(q.geometry().segments_per_partition == 8);
  const uint64_t log_bytes = q.geometry().log_bytes;
  REQUIRE(log_bytes == 393216);
  REQUIRE(q.geometry().sets == (C - log_bytes) / 4096);
  RngStream rng(3, 0);
  uint64_t misses = 0;
  for (int i = 0; i < 60000; ++i) misses += !c.access(get(1 + rng.below(40000), 200));
  const KangarooCounters& e = q.engine_counters();
  uint64_t log_writes = 0, set_writes = 0, log_write_ios = 0, set_write_ios = 0;
  for (const Io& io : device.log) {
    if (io.op != 'w') continue;
    if (io.offset < log_bytes) {
      CHECK(io.len == 16384);
      CHECK(io.offset % 16384 == 0);
      log_writes += io.len;
      ++log_write_ios;
    } else {
      CHECK(io.len == 4096);
      CHECK((io.offset - log_bytes) % 4096 == 0);
      set_writes += io.len;
      ++set_write_ios;
    }
  }
  INFO("misses " << misses << " segments " << e.log_segments_written << " set rewrites "
                 << e.set_rewrites << " moved " << e.moved_to_sets << " dropped "
                 << e.dropped_at_cleaning);
  CHECK(e.readmissions == 0);
  CHECK(e.below_threshold == 0);
  CHECK(e.admitted_objects == misses);
  CHECK(e.admitted_bytes == 200 * misses);
  CHECK(e.set_rewrites == e.group_moves);  // no removes in a get-only trace
  CHECK(e.flash_bytes_written == e.log_bytes_written + e.set_rewrites * 4096);
  CHECK(e.log_bytes_written == e.log_segments_written * 16384);
  CHECK(e.log_bytes_written == log_writes);
  CHECK(e.log_segments_written == log_write_ios);
  CHECK(e.set_bytes_written == set_writes);
  CHECK(e.set_rewrites == set_write_ios);
  CHECK(device.counters().write_bytes == e.flash_bytes_written);
  CHECK(e.segments_cleaned > 100);
  CHECK(e.set_rewrites > 1000);
  // Every cleaned object reaches its set or is refused there (a hit object inserted at RRPV 5
  // can stop a later one at 6); a refused one is dropped only from the segment being cleaned.
  CHECK(e.dropped_at_cleaning <= e.set_refusals);
  // Every admitted object is in KLog, or left it once (moved or dropped); every cleaned segment
  // held 76 of them.
  CHECK(e.admitted_objects == e.moved_to_sets + e.dropped_at_cleaning + q.log_object_count());
  CHECK(e.moved_to_sets + e.dropped_at_cleaning >= e.segments_cleaned * 76);
  // The log adds whole segments per admitted byte: 16384 B per segment of ⌊4072/206⌋·4 = 76
  // objects of 200 B, so log bytes / admitted bytes = 16384 / 15200 for full segments.
  const double log_wa = double(e.log_bytes_written) / double(e.admitted_bytes);
  const double app_wa = double(e.flash_bytes_written) / double(e.admitted_bytes);
  INFO("log WA " << log_wa << ", application WA " << app_wa);
  CHECK(std::abs(log_wa / (16384.0 / (76 * 200)) - 1) < 0.01);
  // Each set rewrite admits about (log objects per set) objects, far fewer than a set holds: the
  // application WA is well above the log's and below BigHash's 4096/200.
  CHECK(app_wa > log_wa + 1);
  CHECK(app_wa < 4096.0 / 200);
  check_balance(q.counters(), c.used_bytes());
  CHECK(q.check_invariants() == "");
}

TEST_CASE("Kangaroo on an FDP device: the KLog on one placement handle, the KSet on another",
          "[kangaroo][fdp]") {
  // Two data classes: KLog segments (class 0) and KSet sets (class 1), one handle each by
  // default (0 and 1); the device counts each handle's host pages, which must be the engine's
  // own log and set bytes. framework.placement_handles maps both to one handle, or is refused
  // when it does not give one handle per class.
  Knobs k;
  k.threshold = 1;
  k.partitions = 3;
  k.segment = 16384;
  k.page = 4096;
  k.set = 4096;
  k.log_pct = 5;
  const uint64_t C = 3 * 8 * 16384 * 20;
  SimFlashConfig sf = simflash_profile("tiny");
  sf.utilization = 0.93;  // exports 14.9 MiB, above C
  sf.fdp_handles = 2;
  for (const char* handles : {"auto", "1,1"}) {
    INFO(handles);
    SimFlashDevice device(sf);
    FrameworkConfig f = kg_config(k);
    f.params.set(kPlacementHandlesKey.name, handles);
    KCache c(cache_config(C), f, fifo(), device);
    RngStream rng(3, 0);
    for (int i = 0; i < 60000; ++i) c.access(get(1 + rng.below(40000), 200));
    const KangarooCounters& e = c.queue().engine_counters();
    REQUIRE(e.log_bytes_written > 0);
    REQUIRE(e.set_bytes_written > 0);
    const std::vector<FdpHandleCounters>& h = device.ftl().fdp_counters();
    if (std::string(handles) == "auto") {
      CHECK(h[0].host_pages_written * 4096 == e.log_bytes_written);
      CHECK(h[1].host_pages_written * 4096 == e.set_bytes_written);
    } else {
      CHECK(h[0].host_pages_written == 0);
      CHECK(h[1].host_pages_written * 4096 == e.log_bytes_written + e.set_bytes_written);
    }
  }
  SimFlashDevice device(sf);
  FrameworkConfig f = kg_config(k);
  f.params.set(kPlacementHandlesKey.name, "1");
  CHECK_THROWS_WITH(KCache(cache_config(C), f, fifo(), device),
                    Catch::Contains("framework.placement_handles") &&
                        Catch::Contains("(klog, kset)") && Catch::Contains("'1'"));
  f.params.set(kPlacementHandlesKey.name, "1,x");
  CHECK_THROWS_WITH(KCache(cache_config(C), f, fifo(), device),
                    Catch::Contains("framework.placement_handles") && Catch::Contains("1,x"));
}

TEST_CASE("Kangaroo's pre-log admission refuses objects and leaves nothing behind", "[kangaroo]") {
  Knobs k;
  k.segment = 16384;
  k.log_pct = 10;
  const uint64_t C = 64 * 4096 * 10;
  for (const double p : {0.0, 0.5, 0.9}) {
    k.probability = p;
    RecordingDevice device(C, 512);
    std::vector<uint64_t> evicted;
    RecCache c(cache_config(C, 17), kg_config(k), RecordingFifo(fifo(), &evicted), device);
    const KangarooQueue& q = c.queue();
    // Distinct keys, each set once: an insert is admitted or evicted at once.
    uint64_t rejected = 0;
    for (uint64_t key = 1; key <= 20000; ++key) {
      evicted.clear();
      const uint64_t before = q.engine_counters().flash_bytes_written;
      const uint64_t admitted_before = q.engine_counters().admitted_objects;
      c.access(set(key, 100));
      if (q.engine_counters().admitted_objects == admitted_before) {
        ++rejected;
        REQUIRE_FALSE(c.contains(key));
        REQUIRE(evicted == std::vector<uint64_t>{key});
        REQUIRE(q.engine_counters().flash_bytes_written == before);
      } else {
        REQUIRE(c.contains(key));
      }
    }
    const KangarooCounters& e = q.engine_counters();
    CHECK(e.admission_rejections == rejected);
    CHECK(e.admission_rejected_bytes == 100 * rejected);
    CHECK(e.admitted_objects + rejected == 20000);
    // Binomial(20000, 1 − p): within 4 standard deviations.
    const double mean = 20000 * (1 - p), sd = std::sqrt(20000 * p * (1 - p));
    INFO("p = " << p << ": " << rejected << " rejected, expected " << mean);
    CHECK(std::abs(double(rejected) - mean) <= 4 * sd + 0.5);
    CHECK(q.counters().placed_objects == e.admitted_objects + e.readmissions);
    check_balance(q.counters(), c.used_bytes());
    CHECK(q.check_invariants() == "");
    if (p == 0.0) {
      CHECK(c.object_count() == 0);
      CHECK(device.log.empty());
    }
  }
  // The same seed draws the same decisions.
  k.probability = 0.5;
  NullDevice d1, d2;
  KCache x(cache_config(C, 5), kg_config(k), fifo(), d1),
      y(cache_config(C, 5), kg_config(k), fifo(), d2);
  for (uint64_t key = 1; key <= 2000; ++key) {
    x.access(set(key, 100));
    y.access(set(key, 100));
    REQUIRE(x.contains(key) == y.contains(key));
  }
}

TEST_CASE("Kangaroo's DRAM: the paper's accounting", "[kangaroo]") {
  // ⌈(48 · log objects + 1 · set objects + (16 + Bloom bits) · sets) / 8⌉ bytes.
  NullDevice device;
  Knobs k;
  k.probability = 1.0;
  const uint64_t C = 64ull << 20;
  KCache c(cache_config(C), kg_config(k), fifo(), device);
  const KangarooQueue& q = c.queue();
  const uint64_t sets = q.geometry().sets;
  CHECK(q.modelled_dram_index_bytes() == (16 + 64) * sets / 8);
  RngStream rng(9, 0);
  for (int i = 0; i < 400000; ++i) c.access(get(1 + rng.below(1000000), 300));
  const uint64_t lo = q.log_object_count(), so = q.set_object_count();
  CHECK(lo + so == c.object_count());
  CHECK(q.modelled_dram_index_bytes() == (48 * lo + so + 80 * sets + 7) / 8);
  // With 300-B objects the log holds ≈ 5 % of them: ≈ 2.4 b/object there, 1 b of hit bits, and
  // 80 bits per set of ≈ 12 objects: about 10 bits per object (the paper's 7.0 charges 3 b of
  // Bloom filter per object, not 64 per set).
  const double bits = 8.0 * double(q.modelled_dram_index_bytes()) / double(c.object_count());
  INFO("log objects " << lo << ", set objects " << so << ", " << bits << " bits per object");
  CHECK(double(lo) / double(lo + so) > 0.03);
  CHECK(double(lo) / double(lo + so) < 0.08);
  CHECK(bits > 8);
  CHECK(bits < 12);
  CHECK(q.index_bytes() >= sets * 8 + sets * 4);
  CHECK(q.queue_bytes() >= sets * 8);
  CHECK(q.counters().dram_buffer_bytes == 256 * 1024);
  check_balance(q.counters(), c.used_bytes());
  CHECK(q.check_invariants() == "");
}

TEST_CASE("Kangaroo's counters balance on a long random trace", "[kangaroo]") {
  NullDevice device;
  Knobs k;
  k.probability = 0.9;
  k.segment = 64 * 1024;
  k.partitions = 4;
  const uint64_t C = 16ull << 20;
  KCache c(cache_config(C, 3), kg_config(k), fifo(), device);
  const std::vector<Request> reqs = random_trace(41, 300000, 60000, 400, 4096);
  for (size_t i = 0; i < reqs.size(); ++i) {
    c.access(reqs[i]);
    if (i % 100000 == 0) {
      REQUIRE(c.queue().check_invariants() == "");
      check_balance(c.queue().counters(), c.used_bytes());
    }
  }
  REQUIRE(c.queue().check_invariants() == "");
  const FrameworkCounters& f = c.queue().counters();
  const KangarooCounters& e = c.queue().engine_counters();
  check_balance(f, c.used_bytes());
  CHECK(f.placed_objects == e.admitted_objects + e.readmissions);
  CHECK(f.reinsertions == e.readmissions);
  CHECK(f.evicted_objects == e.set_evictions + e.dropped_at_cleaning);
  CHECK(f.evicted_objects > 10000);
  CHECK(e.readmissions > 0);
  CHECK(e.flash_bytes_written == e.log_bytes_written + e.set_bytes_written);
  CHECK(device.counters().write_bytes == e.flash_bytes_written);
  CHECK(c.used_bytes() <= C);
}

TEST_CASE("Kangaroo's configuration errors quote the value and name a fix", "[kangaroo]") {
  const auto message = [](auto&& fn) {
    try {
      fn();
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  using Catch::Matchers::Contains;
  {
    Params p;
    p.set(kKangarooPageSizeKey.name, "3000");
    const std::string m = message([&] { KangarooConfig::from(p); });
    CHECK_THAT(m, Contains("framework.kangaroo_page_size") && Contains("'3000'") &&
                      Contains("power of two") && Contains("2KiB"));
  }
  {
    Params p;
    p.set(kKangarooSegmentSizeKey.name, "10000");
    const std::string m = message([&] { KangarooConfig::from(p); });
    CHECK_THAT(m, Contains("framework.kangaroo_segment_size") && Contains("'10000'") &&
                      Contains("use 8KiB"));
  }
  {
    Params p;
    p.set(kKangarooBloomFilterBitsKey.name, "60");
    const std::string m = message([&] { KangarooConfig::from(p); });
    CHECK_THAT(m, Contains("framework.kangaroo_bloom_filter_bits") && Contains("'60'") &&
                      Contains("use 56"));
  }
  for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{
           {kKangarooLogPctKey.name, "0"},
           {kKangarooLogPctKey.name, "100"},
           {kKangarooThresholdKey.name, "0"},
           {kKangarooRripBitsKey.name, "8"},
           {kKangarooAdmissionProbabilityKey.name, "1.5"},
           {kKangarooReadmitHitsKey.name, "8"},
           {kKangarooLogPartitionsKey.name, "0"},
           {kKangarooSetSizeKey.name, "32"}}) {
    Params p;
    p.set(key, value);
    const std::string m = message([&] { KangarooConfig::from(p); });
    CHECK_THAT(m, Contains(key) && Contains("'" + value + "'"));
  }
  const KangarooConfig d = KangarooConfig::from(Params{});
  CHECK(d.log_pct == 5);
  CHECK(d.log_partitions == 1);
  CHECK(d.segment_bytes == 256 * 1024);
  CHECK(d.page_bytes == 4096);
  CHECK(d.set_bytes == 4096);
  CHECK(d.threshold == 2);
  CHECK(d.rrip_bits == 3);
  CHECK(d.bloom_filter_bits == 64);
  CHECK(d.admission_probability == 0.9);
  CHECK(d.readmit_hits == 1);

  // The log too small for 2 segments a partition: 5 % of 8 MiB is 419430 B < 2 × 256 KiB.
  {
    NullDevice device;
    const std::string m =
        message([&] { KCache c(cache_config(8 << 20), kg_config(Knobs{}), fifo(), device); });
    CHECK_THAT(m, Contains("framework.kangaroo_log_pct") && Contains("6.25 or more") &&
                      Contains("framework.kangaroo_segment_size: 204KiB or less") &&
                      Contains("a cache of at least 10485760 B"));
  }
  // Page or set not a multiple of the device's logical block.
  {
    NullDevice device(0, 4096);
    Knobs k;
    k.page = 1024;
    std::string m =
        message([&] { KCache c(cache_config(64 << 20), kg_config(k), fifo(), device); });
    CHECK_THAT(m, Contains("1024 B") && Contains("4096 B") &&
                      Contains("framework.kangaroo_page_size: 4KiB"));
    k.page = 4096;
    k.set = 1536;
    m = message([&] { KCache c(cache_config(64 << 20), kg_config(k), fifo(), device); });
    CHECK_THAT(m, Contains("framework.kangaroo_set_size: 4KiB"));
  }
  // No set left: the log takes 99 % and rounds to all of C.
  {
    CacheShape shape;
    shape.capacity_bytes = 2 * 4096;
    shape.granule = 512;
    Params p;
    p.set(kKangarooLogPctKey.name, "99");
    p.set(kKangarooSegmentSizeKey.name, "2KiB");
    p.set(kKangarooPageSizeKey.name, "512");
    const std::string m = message([&] { KangarooFramework::layout(p, shape); });
    CHECK_THAT(m, Contains("hold no set") && Contains("framework.kangaroo_log_pct"));
  }
  // Unit-size mode.
  CacheShape shape;
  shape.capacity_bytes = 64 << 20;
  shape.unit_size = true;
  CHECK_THAT(message([&] { KangarooFramework::layout(Params{}, shape); }), Contains("unit_size"));
}

TEST_CASE("Kangaroo's layout and registration", "[kangaroo]") {
  CacheShape shape;
  shape.capacity_bytes = (100ull << 20) + 777;
  shape.granule = 512;
  FrameworkLayout l = KangarooFramework::layout(Params{}, shape);
  // Log: ⌊5 % of C⌋ = 5242918 B → 20 segments of 256 KiB = 5242880 B; sets: ⌊(C − log)/4096⌋.
  const uint64_t log = 20 * 256 * 1024;
  const uint64_t sets = (shape.capacity_bytes - log) / 4096;
  CHECK(l.block_bytes == 4096);
  CHECK(l.block_basis == "framework.kangaroo_set_size");
  CHECK(l.device_bytes == log + sets * 4096);
  CHECK(l.places_objects);
  CHECK(l.notes.empty());
  SizeHistogram sizes;
  for (int i = 0; i < 90; ++i) sizes.add(100);
  for (int i = 0; i < 10; ++i) sizes.add(5000);
  shape.sizes = &sizes;
  shape.largest_object_bytes = 5000;
  Params p;
  p.set(kKangarooBloomFilterBitsKey.name, "0");
  l = KangarooFramework::layout(p, shape);
  REQUIRE(l.notes.size() == 2);
  CHECK_THAT(l.notes[0], Catch::Matchers::Contains("4058 B"));  // 4096 − 24 − 14
  CHECK_THAT(l.notes[1], Catch::Matchers::Contains("Bloom filters off"));
  KangarooConfig cfg;
  CHECK(KangarooQueue::max_object_bytes(cfg) == 4058);
  const ComponentSpec& spec = KangarooFramework::spec();
  CHECK(spec.name == "kangaroo");
  std::vector<std::string> names;
  for (const KeySpec& key : spec.keys) names.push_back(key.name);
  CHECK(names == std::vector<std::string>{
                     "framework.read_hits", "framework.placement_handles",
                     "framework.kangaroo_log_pct", "framework.kangaroo_log_partitions",
                     "framework.kangaroo_segment_size", "framework.kangaroo_page_size",
                     "framework.kangaroo_set_size", "framework.kangaroo_threshold",
                     "framework.kangaroo_rrip_bits", "framework.kangaroo_bloom_filter_bits",
                     "framework.kangaroo_admission_probability",
                     "framework.kangaroo_readmit_hits"});
  REQUIRE(spec.requirements.size() == 3);
  CHECK(spec.requirements[0].key == "policy.name");
  CHECK(spec.requirements[1].key == "admission.name");
  STATIC_REQUIRE(KangarooFramework::kEngine);
  STATIC_REQUIRE(KangarooFramework::kHasQueue);
  KangarooFramework::check(Params{});
  // Objects too large: admits() refuses them; the cache never stores them.
  RecordingDevice device(64 << 20, 512);
  KCache c(cache_config(64 << 20), kg_config(Knobs{}), fifo(), device);
  CHECK(c.queue().admits(4058));
  CHECK_FALSE(c.queue().admits(4059));
  c.access(set(1, 4059));
  CHECK_FALSE(c.contains(1));
  CHECK(device.log.empty());
}

}  // namespace flashpq::test_kangaroo
