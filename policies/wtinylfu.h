// policies/wtinylfu.h — W-TinyLFU: an LRU admission window in front of an SLRU main cache whose
// admission is decided by a TinyLFU sketch. A complete cache, on the exact framework only.
//
// Sources: Einziger, Friedman, Manes, "TinyLFU: A Highly Efficient Cache Admission Policy",
// ACM ToS 2017 (W-TinyLFU: window LRU, main SLRU with probation and protected segments, the
// window's victim competes with main's victim through TinyLFU); Caffeine's simulator
// (policy/sketch/WindowTinyLfuPolicy.java, reference.conf window-tiny-lfu: percent-main 0.99,
// percent-main-protected 0.80) for the per-entry behaviour, and Caffeine's BoundedLocalCache
// (evictFromWindow / evictFromMain) for weighted entries. Our code, written from those
// descriptions.
//
// Regions, in bytes (objects in unit-size mode), C = capacity, all integer arithmetic:
//   window    = ceil(C / 100)                (C − floor(0.99 C), as Caffeine's
//                                             maxWindow = max − (int)(max × 0.99));
//   main      = C − window;
//   protected = floor(0.8 × main)            (Caffeine: (int)(maxMain × 0.80));
//   probation = no cap of its own: what the window and protected leave (≥ main − protected).
// E.g. C = 100: window 1, main 99, protected 79, probation 20.
//
// Requests (the semantics of engine/cache.h: read-through get, set replaces, delete, an object
// larger than C is never admitted, size changes by CacheConfig::on_size_change, unit_size).
// Every get and set is first recorded in the sketch. Then:
//   * window hit:    the object moves to the window's MRU end;
//   * probation hit: it moves to protected's MRU end; while protected exceeds its capacity, the
//                    protected LRU object moves to probation's MRU end. (An object larger than
//                    protected's capacity stays in probation, moved to its MRU end, as Caffeine.)
//   * protected hit: it moves to protected's MRU end;
//   * miss (or set): the object enters the window's MRU end; while the window exceeds its
//                    capacity its LRU object moves to probation's MRU end as a *candidate*. Then,
//                    while the cache exceeds C: the newest remaining candidate competes with the
//                    victim, probation's LRU non-candidate object: the victim is evicted iff
//                    estimate(candidate) > estimate(victim), otherwise the candidate is (ties keep
//                    the victim). With no non-candidate left in probation, the candidate is
//                    evicted; with no candidate left, probation's LRU, then protected's LRU.
// In unit-size mode this is exactly Caffeine's simulator: one candidate per miss, compared with
// probation's LRU object.
//
// Counters: evictions() and evicted_bytes() count every object removed for room, including
// losing candidates (they were cached, in the window); admission_rejections() counts the losing
// candidates; superseded_bytes() the copies deletes, sets and size changes removed.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "engine/admission.h"
#include "engine/cache.h"
#include "engine/intrusive_list.h"
#include "engine/object_table.h"
#include "engine/request.h"
#include "policies/tinylfu.h"
#include "sim/params.h"

namespace flashpq {

/// W-TinyLFU (see the file comment). The same public API as Cache. Not thread-safe.
class WTinyLfuCache {
 public:
  /// The region an object is in.
  enum class Region : uint32_t { kWindow = 0, kProbation = 1, kProtected = 2 };

  /// REQUIRES: config validated (capacity >= 1). `sketch` is the TinyLFU estimator (sized for
  /// the expected number of cached objects; see with_wtinylfu_cache).
  WTinyLfuCache(const CacheConfig& config, TinyLfuAdmission sketch)
      : config_(config), sketch_(std::move(sketch)) {
    const uint64_t c = config.capacity_bytes;
    window_capacity_ = c / 100 + (c % 100 != 0);
    main_capacity_ = c - window_capacity_;
    protected_capacity_ = main_capacity_ - (main_capacity_ / 5 + (main_capacity_ % 5 != 0));
  }

  WTinyLfuCache(const WTinyLfuCache&) = delete;
  WTinyLfuCache& operator=(const WTinyLfuCache&) = delete;

  /// Applies one request. Returns true if and only if it is a get that hit.
  bool access(const Request& r) {
    const uint32_t size = config_.unit_size ? 1u : r.size_bytes;
    if (r.op != Op::kDelete) sketch_.record(r.key);
    const Handle h = table_.find(r.key);
    switch (r.op) {
      case Op::kGet:
        if (h != kNoHandle) {
          if (config_.on_size_change == SizeChange::kKeep || table_[h].size_bytes == size) {
            on_hit(h);
            return true;
          }
          supersede(h);
        }
        insert(r.key, size);
        return false;
      case Op::kSet:
        if (h != kNoHandle) supersede(h);
        insert(r.key, size);
        return false;
      case Op::kDelete:
        if (h != kNoHandle) supersede(h);
        return false;
    }
    return false;
  }

  bool contains(uint64_t key) const { return table_.find(key) != kNoHandle; }

  /// Bytes cached (objects in unit-size mode).
  uint64_t used_bytes() const { return used_bytes_; }
  uint64_t capacity_bytes() const { return config_.capacity_bytes; }
  /// W-TinyLFU keeps its objects in memory: nothing goes to the device.
  bool places_objects() const { return false; }
  size_t object_count() const { return table_.size(); }
  /// Objects removed for room (losing candidates included).
  uint64_t evictions() const { return evictions_; }
  /// Bytes of those objects.
  uint64_t evicted_bytes() const { return evicted_bytes_; }
  /// Bytes of cached copies a delete, a set or a size change (kUpdate) removed. With the bytes
  /// inserted, the balance every framework keeps (engine/queue.h): miss_bytes_inserted() ==
  /// used_bytes() + evicted_bytes() + superseded_bytes().
  uint64_t superseded_bytes() const { return superseded_bytes_; }
  /// Bytes that inserting misses and sets required.
  uint64_t miss_bytes_inserted() const { return miss_bytes_inserted_; }
  /// Candidates that lost to main's victim (evicted on leaving the window).
  uint64_t admission_rejections() const { return rejected_; }
  /// The TinyLFU sketch; its memory_bytes() is the sketch's DRAM.
  const TinyLfuAdmission& admission() const { return sketch_; }
  /// DRAM of the index map (engine/queue.h): the ObjectTable's buckets and entries less the
  /// three entry words that order objects (list links and region).
  size_t index_bytes() const { return table_.memory_bytes() - table_.framework_word_bytes(3); }
  /// DRAM of the queue structure: the entries' list links and region, and the list heads.
  size_t queue_bytes() const { return table_.framework_word_bytes(3) + sizeof(lists_); }
  /// DRAM of the TinyLFU sketch.
  size_t admission_bytes() const { return sketch_.memory_bytes(); }
  const ObjectTable& table() const { return table_; }

  /// Region capacities in bytes (see the file comment).
  uint64_t window_capacity() const { return window_capacity_; }
  uint64_t main_capacity() const { return main_capacity_; }
  uint64_t protected_capacity() const { return protected_capacity_; }
  /// Bytes currently in a region.
  uint64_t region_bytes(Region r) const { return lists_[index(r)].bytes; }
  /// The region of cached `key`. REQUIRES: contains(key).
  Region region_of(uint64_t key) const {
    return static_cast<Region>(table_[table_.find(key)].slot);
  }
  /// Keys of a region from MRU to LRU (allocates; for tests and reports).
  std::vector<uint64_t> keys(Region r) const {
    std::vector<uint64_t> out;
    for (Handle h = lists_[index(r)].head; h != kNoHandle; h = table_[h].next) {
      out.push_back(table_[h].key);
    }
    return out;
  }

 private:
  // A region: its list (head = MRU, tail = LRU; links in the entries, prev toward the head)
  // and how many objects it holds.
  struct List : IntrusiveList {
    uint64_t objects = 0;
  };
  static_assert(sizeof(List) == 24);  // queue_bytes() counts the three of them
  static constexpr size_t index(Region r) { return static_cast<size_t>(r); }
  static constexpr uint32_t kWindow = 0, kProbation = 1, kProtected = 2;

  void on_hit(Handle h) {
    ObjectEntry& e = table_[h];
    switch (e.slot) {
      case kWindow:
        move_to_front(kWindow, h);
        return;
      case kProbation:
        if (e.size_bytes > protected_capacity_) {
          move_to_front(kProbation, h);
          return;
        }
        unlink(h);
        push_front(kProtected, h);
        while (lists_[kProtected].bytes > protected_capacity_) {
          const Handle t = lists_[kProtected].tail;
          unlink(t);
          push_front(kProbation, t);
        }
        return;
      default:
        move_to_front(kProtected, h);
        return;
    }
  }

  void insert(uint64_t key, uint32_t size) {
    if (size > config_.capacity_bytes) return;  // never admitted
    const Handle h = table_.add(key, size);
    push_front(kWindow, h);
    used_bytes_ += size;
    miss_bytes_inserted_ += size;
    // The window's overflow moves to probation's MRU end as candidates, the newest at the head:
    // the candidates are always the first `candidates` objects of probation.
    uint32_t candidates = 0;
    while (lists_[kWindow].bytes > window_capacity_) {
      const Handle t = lists_[kWindow].tail;
      unlink(t);
      push_front(kProbation, t);
      ++candidates;
    }
    while (used_bytes_ > config_.capacity_bytes) {
      const Handle candidate = candidates > 0 ? lists_[kProbation].head : kNoHandle;
      // Probation's tail is main's victim unless it is itself a candidate (probation holds
      // nothing but candidates).
      Handle victim = lists_[kProbation].objects > candidates ? lists_[kProbation].tail : kNoHandle;
      if (candidate == kNoHandle) {
        if (victim == kNoHandle) victim = lists_[kProtected].tail;
        if (victim == kNoHandle) victim = lists_[kWindow].tail;
        evict(victim);
      } else if (victim == kNoHandle || !sketch_.admit(table_[candidate].key, table_[victim].key)) {
        evict(candidate);
        --candidates;
        ++rejected_;
      } else {
        evict(victim);
      }
    }
  }

  void evict(Handle h) {
    ++evictions_;
    evicted_bytes_ += table_[h].size_bytes;
    erase(h);
  }

  void supersede(Handle h) {
    superseded_bytes_ += table_[h].size_bytes;
    erase(h);
  }

  void erase(Handle h) {
    unlink(h);
    used_bytes_ -= table_[h].size_bytes;
    table_.remove(h);
  }

  void push_front(uint32_t region, Handle h) {
    table_[h].slot = region;
    lists_[region].push_front(table_, h);
    lists_[region].objects++;
  }

  void unlink(Handle h) {
    List& l = lists_[table_[h].slot];
    l.unlink(table_, h);
    l.objects--;
  }

  void move_to_front(uint32_t region, Handle h) {
    if (lists_[region].head == h) return;
    unlink(h);
    push_front(region, h);
  }

  CacheConfig config_;
  TinyLfuAdmission sketch_;
  ObjectTable table_;
  std::array<List, 3> lists_{};
  uint64_t window_capacity_ = 0;
  uint64_t main_capacity_ = 0;
  uint64_t protected_capacity_ = 0;
  uint64_t used_bytes_ = 0;
  uint64_t evictions_ = 0;
  uint64_t evicted_bytes_ = 0;
  uint64_t superseded_bytes_ = 0;
  uint64_t miss_bytes_inserted_ = 0;
  uint64_t rejected_ = 0;
};

/// W-TinyLFU as registered among the cache policies (policies/registry.h): a whole cache, so
/// it runs on framework exact only (a requirement the experiment loader checks).
struct WTinyLfu {
  /// "wtinylfu": no keys of its own; it reads the tinylfu keys of the admission section.
  static const ComponentSpec& spec() {
    static const ComponentSpec s{
        "wtinylfu",
        "W-TinyLFU (Caffeine): 1 % LRU window, SLRU 20/80 main, TinyLFU admission; a whole cache",
        {},
        {Requirement{{},
                     "framework.name",
                     {"exact"},
                     "policy wtinylfu is a whole cache: it runs on framework exact only"}},
        {},
        {}};
    return s;
  }

  /// Builds the W-TinyLFU cache for `cache` with a sketch sized for `expected_objects` (an
  /// object count, never bytes: the capacity in unit-size mode, capacity / mean object size
  /// otherwise) and calls fn(cache) with it (a WTinyLfuCache&). The sketch takes the tinylfu
  /// keys of `admission` (sample_factor, counters_multiplier, doorkeeper…); admission.name is
  /// not read: W-TinyLFU always admits through its own sketch. Throws std::invalid_argument if
  /// a key is bad or the sketch would be too large.
  template <class Fn>
  static decltype(auto) build(const CacheConfig& cache, const AdmissionConfig& admission,
                              uint64_t expected_objects, Fn&& fn) {
    WTinyLfuCache c(cache, TinyLfuAdmission(admission, expected_objects));
    return std::forward<Fn>(fn)(c);
  }
  /// The cache build() builds, on the heap (a session's, experiments/session.h).
  static std::unique_ptr<WTinyLfuCache> make(const CacheConfig& cache,
                                             const AdmissionConfig& admission,
                                             uint64_t expected_objects) {
    return std::make_unique<WTinyLfuCache>(cache, TinyLfuAdmission(admission, expected_objects));
  }
};

/// WTinyLfu::build(); kept for the tests' and the bench's convenience.
template <class Fn>
decltype(auto) with_wtinylfu_cache(const CacheConfig& cache, const AdmissionConfig& admission,
                                   uint64_t expected_objects, Fn&& fn) {
  return WTinyLfu::build(cache, admission, expected_objects, std::forward<Fn>(fn));
}

}  // namespace flashpq
