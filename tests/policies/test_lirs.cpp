// tests/policies/test_lirs.cpp — LIRS (policies/lirs.h): the SIGMETRICS'02 paper's example
// (Table 1's references, then Figure 4's four accesses) worked by hand, a second, deliberately
// plain implementation of libCacheSim's LIRS compared request by request on random sequences
// (unit-size and sized). (libCacheSim's miss ratios: tests/policies/test_libcachesim.cpp.)
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <list>
#include <string>
#include <unordered_map>
#include <vector>

#include "policies/lirs.h"
#include "tests/policies/owning_test_util.h"
#include "tests/test_util.h"

namespace flashpq::test_lirs {
namespace {

using testing::OwningCache;

using testing::get;

// S from the top as text: a key, then L (LIR), H (resident HIR) or N (non-resident HIR).
template <class C>
std::string stack_text(const C& c) {
  std::string out;
  for (const uint32_t id : c.policy().stack()) {
    if (!out.empty()) out += ' ';
    if (id & LirsPolicy::kGhostBit) {
      out += std::string(1, static_cast<char>(
                                'A' - 1 + c.policy().ghosts()[id & ~LirsPolicy::kGhostBit].key)) +
             "N";
    } else {
      const ObjectEntry& e = c.table()[id];
      out += std::string(1, static_cast<char>('A' - 1 + e.key)) +
             ((e.slot & LirsPolicy::kLir) ? "L" : "H");
    }
  }
  return out;
}
// Q from its newest end to its front (the next evicted).
template <class C>
std::string q_text(const C& c) {
  std::string out;
  for (const Handle h : c.policy().queue_q()) out += static_cast<char>('A' - 1 + c.table()[h].key);
  return out;
}

constexpr uint64_t A = 1, B = 2, C = 3, D = 4, E = 5;

TEST_CASE("LIRS: the paper's example, worked by hand", "[policies][lirs]") {
  // Table 1 of the paper: A D B C B A D A E at virtual times 1-9 (A at 1, 6, 8; recencies at
  // time 10: A 1, B 3, C 4, D 2, E 0; IRRs A 1, B 1, D 3). L_lirs = 2, L_hirs = 1: capacity 3
  // objects, hir_limit = max(1, floor(0.01 x 3)) = 1, lir_limit = 2.
  OwningCache<LirsPolicy> oc(3, true);
  auto& c = oc.cache;
  REQUIRE(c.policy().lir_limit() == 2);
  REQUIRE(c.policy().hir_limit() == 1);
  CHECK_FALSE(c.access(get(A)));  // the LIR part has room: LIR
  CHECK_FALSE(c.access(get(D)));  // LIR
  CHECK(stack_text(c) == "DL AL");
  CHECK_FALSE(c.access(get(B)));  // LIR part full: resident HIR, in S and Q
  CHECK(stack_text(c) == "BH DL AL");
  CHECK(q_text(c) == "B");
  // C: the front of Q (B) is evicted, B stays in S non-resident; C resident HIR.
  CHECK_FALSE(c.access(get(C)));
  CHECK(stack_text(c) == "CH BN DL AL");
  CHECK(q_text(c) == "C");
  CHECK_FALSE(c.contains(B));
  // B: non-resident in S, a miss. B goes to the top; the LIR part is full, so the bottom LIR
  // block A is demoted to Q, which evicts Q's front C (C non-resident in S); A leaves S; the
  // bottom is D (LIR): nothing pruned. B becomes LIR.
  CHECK_FALSE(c.access(get(B)));
  CHECK(stack_text(c) == "BL CN DL");
  CHECK(q_text(c) == "A");
  CHECK_FALSE(c.contains(C));
  // A: resident HIR not in S, a hit. The paper moves A to the top of S and to the end of Q and
  // nothing else. libCacheSim (hit_RD_HIRinQ) first demotes LIR blocks while the LIR part has
  // no room for A: D goes to Q, which evicts Q's front — A itself, the only block in Q; S loses
  // D and is pruned (C, non-resident, at the bottom). A then enters S at the top: libCacheSim
  // marks it resident though it is evicted (its next reference would hit); here it is
  // non-resident (see policies/lirs.h).
  CHECK(c.access(get(A)));
  CHECK(stack_text(c) == "AN BL");
  CHECK(q_text(c) == "D");
  CHECK_FALSE(c.contains(A));
  CHECK(c.policy().lir_bytes() == 1);
  // D: resident HIR not in S, a hit: the LIR part has room, nothing is demoted. D to the top
  // of S and the newest end of Q.
  CHECK(c.access(get(D)));
  CHECK(stack_text(c) == "DH AN BL");
  CHECK(q_text(c) == "D");
  // A: non-resident in S, a miss (libCacheSim: its phantom's hit); the LIR part has room: LIR.
  CHECK_FALSE(c.access(get(A)));
  CHECK(stack_text(c) == "AL DH BL");
  // E: new; both parts full: Q's front D is evicted (non-resident in S), E resident HIR.
  CHECK_FALSE(c.access(get(E)));
  // The state of the paper's Figure 4(a): LIR {A, B}, E the only resident HIR block, D a
  // non-resident HIR block in S, C gone.
  CHECK(stack_text(c) == "EH AL DN BL");
  CHECK(q_text(c) == "E");
  CHECK(c.object_count() == 3);

  // Figure 4(b): B, an LIR block at the bottom of S: to the top, and stack pruning removes D
  // (non-resident HIR) from the new bottom, until A (LIR).
  CHECK(c.access(get(B)));
  CHECK(stack_text(c) == "BL EH AL");
  CHECK(c.policy().ghosts().size() == 0);
  // Figure 4(c): E, a resident HIR block in S: LIR, out of Q; the bottom LIR block A becomes
  // HIR at the end of Q and leaves S; the bottom is B (LIR).
  CHECK(c.access(get(E)));
  CHECK(stack_text(c) == "EL BL");
  CHECK(q_text(c) == "A");
  // Figure 4(d): D, not in S (pruned in (b)): a miss; Q's front A is evicted (not in S: no
  // entry left), D a resident HIR block at the top of S and the end of Q.
  CHECK_FALSE(c.access(get(D)));
  CHECK(stack_text(c) == "DH EL BL");
  CHECK(q_text(c) == "D");
  CHECK_FALSE(c.contains(A));
  // Figure 4(e): C, not in S: a miss; Q's front D is evicted and stays in S non-resident.
  CHECK_FALSE(c.access(get(C)));
  CHECK(stack_text(c) == "CH DN EL BL");
  CHECK(q_text(c) == "C");
  CHECK(c.object_count() == 3);
  CHECK(c.used_bytes() == 3);
}

TEST_CASE("LIRS: the bound on S drops the oldest non-resident blocks", "[policies][lirs]") {
  // Capacity 3 (lir_limit 2, hir_limit 1): S may hold 6 entries. A, B are LIR; each new key
  // evicts the previous one from Q, which stays in S non-resident.
  OwningCache<LirsPolicy> oc(3, true);
  auto& c = oc.cache;
  for (uint64_t k = 1; k <= 7; ++k) c.access(get(k));
  // S: G(H) F E D C (N) B A: 7 entries > 6: the oldest non-resident (C) dropped.
  CHECK(stack_text(c) == "GH FN EN DN BL AL");
  CHECK(c.policy().stack_bytes() == 6);
  c.access(get(8));
  CHECK(stack_text(c) == "HH GN FN EN BL AL");
  // A delete of an LIR block at the bottom: it leaves S, and pruning leaves B at the bottom.
  c.access(Request{0, A, 1, Op::kDelete});
  CHECK(stack_text(c) == "HH GN FN EN BL");
  c.access(Request{0, B, 1, Op::kDelete});
  CHECK(stack_text(c) == "HH");  // pruned down to the top node
  CHECK(c.policy().lir_bytes() == 0);
  CHECK(c.policy().ghosts().size() == 0);
}

TEST_CASE("LIRS: objects larger than the HIR part are not cached", "[policies][lirs]") {
  // 1000 bytes: hir_limit 10. A 20-byte object is refused (libCacheSim: LIRS_can_insert); in a
  // cache with room nothing is evicted for it.
  OwningCache<LirsPolicy> oc(1000, false);
  auto& c = oc.cache;
  CHECK_FALSE(c.access(get(1, 10)));
  CHECK_FALSE(c.access(get(2, 20)));
  CHECK_FALSE(c.contains(2));
  CHECK(c.contains(1));
  CHECK(c.used_bytes() == 10);
  CHECK_FALSE(c.access(get(2, 20)));
  CHECK(c.access(get(1, 10)));
  // policy.lirs_hir_ratio 0.05: hir_limit 50.
  PolicyConfig pc;
  pc.params.set("policy.lirs_hir_ratio", "0.05");
  OwningCache<LirsPolicy> oc2(1000, false, pc);
  CHECK(oc2.cache.policy().hir_limit() == 50);
  CHECK(oc2.cache.policy().lir_limit() == 950);
  CHECK_FALSE(oc2.cache.access(get(2, 20)));
  CHECK(oc2.cache.access(get(2, 20)));
}

// A plain LIRS after libCacheSim's LIRS.c: std::list stacks with key maps, each step named after
// its function there. phantom_hits: libCacheSim's hit_RD_HIRinQ exactly (an evicted block
// re-entering S as "resident", its next reference a hit); otherwise as policies/lirs.h.
class ReferenceLirs {
 public:
  ReferenceLirs(uint64_t capacity, bool phantom_hits = false, double ratio = 0.01,
                int keep_ghost_size = -1)
      : cap_(capacity),
        phantom_(phantom_hits),
        keep_size_(keep_ghost_size < 0 ? phantom_hits : keep_ghost_size != 0) {
    hir_limit_ =
        std::max<uint64_t>(1, static_cast<uint64_t>(ratio * static_cast<double>(capacity)));
    lir_limit_ = capacity - hir_limit_;
  }

  bool access(uint64_t key, uint32_t size) {
    bool hit = get(key, size);
    // limitStack
    while (s_bytes_ > 2 * cap_ && !nh_.empty()) {
      const uint64_t k = nh_.back();
      nh_remove(k);
      s_erase(k);
    }
    return hit;
  }
  uint64_t used() const { return lirs_ + hirs_; }

 private:
  struct SNode {
    uint64_t key;
    uint32_t size;
    bool lir, resident;
  };
  struct QNode {
    uint64_t key;
    uint32_t size;
  };

  bool get(uint64_t key, uint32_t size) {
    auto si = s_idx_.find(key);
    auto qi = q_idx_.find(key);
    if (si != s_idx_.end()) S_.splice(S_.begin(), S_, si->second);
    if (qi != q_idx_.end()) Q_.splice(Q_.begin(), Q_, qi->second);
    if (si != s_idx_.end()) {
      SNode& n = *si->second;
      if (n.lir) {
        prune();
        return true;
      }
      if (n.resident) {  // hit_RD_HIRinS
        if (qi != q_idx_.end()) {
          hirs_ -= qi->second->size;
          Q_.erase(qi->second);
          q_idx_.erase(qi);
        }
        while (lirs_ + n.size > lir_limit_ && evict_lir()) {
        }
        n.lir = true;
        lirs_ += n.size;
        return true;
      }
      // A non-resident HIR block: a miss. LIRS_can_insert, the evict loop, LIRS_insert.
      if (size > cap_) return false;
      if (!keep_size_) {  // the new copy's size throughout (policies/lirs.h)
        s_bytes_ = s_bytes_ - n.size + size;
        n.size = size;
      }
      while (lirs_ + n.size > lir_limit_ && evict_lir()) {
      }
      nh_remove(key);
      while (lirs_ + hirs_ + size > cap_) {
        while (hirs_ >= hir_limit_ && !Q_.empty()) evict_hir();
        if (!evict_lir()) break;
      }
      n.lir = n.resident = true;
      lirs_ += n.size;
      return false;
    }
    if (qi != q_idx_.end()) {  // hit_RD_HIRinQ
      const uint32_t sz = qi->second->size;
      while (lirs_ + sz > lir_limit_ && evict_lir()) {
      }
      const bool evicted = q_idx_.count(key) == 0;
      S_.push_front({key, sz, false, !evicted || phantom_});
      s_idx_[key] = S_.begin();
      s_bytes_ += sz;
      return true;
    }
    // A new object.
    if (size > cap_ || size > lir_limit_ || size > hir_limit_) return false;
    if (lirs_ + size > lir_limit_ && hirs_ + size > hir_limit_) {
      while (hirs_ + size > hir_limit_ && !Q_.empty()) evict_hir();
    }
    if (lirs_ + size <= lir_limit_) {
      S_.push_front({key, size, true, true});
      lirs_ += size;
    } else {
      S_.push_front({key, size, false, true});
      Q_.push_front({key, size});
      q_idx_[key] = Q_.begin();
      hirs_ += size;
    }
    s_idx_[key] = S_.begin();
    s_bytes_ += size;
    return false;
  }

  // evictHIR: Q's front leaves the cache; its node in S becomes non-resident.
  void evict_hir() {
    const QNode q = Q_.back();
    Q_.pop_back();
    q_idx_.erase(q.key);
    hirs_ -= q.size;
    auto si = s_idx_.find(q.key);
    if (si != s_idx_.end()) {
      si->second->resident = false;
      nh_.push_front(q.key);
      nh_idx_[q.key] = nh_.begin();
    }
  }
  // evictLIR: the bottom of S (an LIR block) to Q's newest end, then pruning.
  bool evict_lir() {
    prune();
    if (S_.empty() || !S_.back().lir) return false;
    const SNode n = S_.back();
    s_erase(n.key);
    lirs_ -= n.size;
    if (n.size <= hir_limit_) {
      while (hirs_ + n.size > hir_limit_ && !Q_.empty()) evict_hir();
      Q_.push_front({n.key, n.size});
      q_idx_[n.key] = Q_.begin();
      hirs_ += n.size;
    }
    prune();
    return true;
  }
  void prune() {
    while (S_.size() > 1 && !S_.back().lir) {
      if (!S_.back().resident) nh_remove(S_.back().key);
      s_erase(S_.back().key);
    }
  }
  void s_erase(uint64_t key) {
    auto it = s_idx_.find(key);
    s_bytes_ -= it->second->size;
    S_.erase(it->second);
    s_idx_.erase(it);
  }
  void nh_remove(uint64_t key) {
    auto it = nh_idx_.find(key);
    if (it == nh_idx_.end()) return;
    nh_.erase(it->second);
    nh_idx_.erase(it);
  }

  uint64_t cap_, lir_limit_, hir_limit_;
  bool phantom_, keep_size_;
  uint64_t lirs_ = 0, hirs_ = 0, s_bytes_ = 0;
  std::list<SNode> S_;  // front: the top
  std::list<QNode> Q_;  // front: the newest end; back: the next evicted
  std::list<uint64_t> nh_;
  std::unordered_map<uint64_t, std::list<SNode>::iterator> s_idx_;
  std::unordered_map<uint64_t, std::list<QNode>::iterator> q_idx_;
  std::unordered_map<uint64_t, std::list<uint64_t>::iterator> nh_idx_;
};

// Whether the cache honours on_miss's refusal (engine/cache.h: Cache::insert returns when a
// bool on_miss says false). Without it a refused object is inserted after make_room() evicted
// for it, then dropped: it is not cached, but the evictions are not libCacheSim's.
bool cache_honours_refusals() {
  OwningCache<LirsPolicy> oc(1000, false);  // hir_limit 10
  for (uint64_t k = 1; k <= 100; ++k) oc.cache.access(get(k, 10));
  const uint64_t evicted = oc.cache.evictions();
  oc.cache.access(get(1000, 20));  // refused
  return oc.cache.evictions() == evicted;
}

TEST_CASE("LIRS agrees with a plain implementation request by request", "[policies][lirs]") {
  struct Case {
    uint32_t max_size;
    uint64_t keys, capacity;
  };
  // Unit-size: hir_limit 1 below 200 objects (where a hit on a block in Q alone evicts it:
  // libCacheSim's phantom, policies/lirs.h), 2 and 4 above. Sized: capacities of at least
  // 100 x max_size, so that no object exceeds the HIR part; and, when the cache honours
  // refusals, capacities where most objects are refused.
  std::vector<Case> cases = {Case{1, 300, 2},      Case{1, 300, 7},      Case{1, 300, 50},
                             Case{1, 300, 150},    Case{1, 1000, 250},   Case{1, 1000, 400},
                             Case{20, 1000, 2000}, Case{20, 1000, 3500}, Case{20, 2000, 5000},
                             Case{5, 3000, 1200}};
  if (cache_honours_refusals()) {
    cases.insert(cases.end(), {Case{100, 300, 400}, Case{100, 1000, 3000}, Case{50, 2000, 20000}});
  }
  for (const Case k : cases) {
    const auto trace =
        testing::random_gets(k.capacity * 31 + k.max_size, 20000, k.keys, k.max_size);
    OwningCache<LirsPolicy> oc(k.capacity, false);
    ReferenceLirs ref(k.capacity);
    for (size_t i = 0; i < trace.size(); ++i) {
      INFO("max_size " << k.max_size << " capacity " << k.capacity << " request " << i);
      REQUIRE(oc.cache.access(trace[i]) == ref.access(trace[i].key, trace[i].size_bytes));
      REQUIRE(oc.cache.used_bytes() == ref.used());
    }
    CHECK(oc.cache.used_bytes() <= k.capacity);
    const FrameworkCounters& fc = oc.cache.queue().counters();
    CHECK(fc.placed_bytes == oc.cache.used_bytes() + fc.evicted_bytes + fc.superseded_bytes);
    CHECK(oc.cache.policy().stack_bytes() <= 2 * k.capacity + k.max_size);
  }
}

}  // namespace
}  // namespace flashpq::test_lirs
