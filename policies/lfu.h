// policies/lfu.h — LFU: evict the least frequently used object; among equally frequent ones,
// the one that reached its frequency first (the least recently used of them).
//
// Source: libCacheSim's LFU (github 1a1a11a/libCacheSim, libCacheSim/cache/eviction/LFU.c, what
// cachesim's "lfu" builds: bin/cachesim/cache_init.h, LFU_init; not cpp/LFU.cpp, "lfucpp", which
// breaks ties differently). Its rules, all kept here:
//   * frequency: accesses since insertion. A miss inserts the object with frequency 1, each hit
//     adds 1; an evicted object's count is forgotten (no ghost, no cap, no aging);
//   * structure: one FIFO list per frequency ("freq node"): an inserted object is appended to
//     list 1, a hit moves the object from list f to the tail of list f + 1;
//   * evict: the first (oldest) object of the list of the lowest non-empty frequency. An object
//     entered list f at its last access (its insertion for f = 1), so ties between equal
//     frequencies go to the least recently accessed (inserted) object;
//   * sized objects: eviction repeats until the new object fits (engine/exact/exact_queue_base.h),
//     as libCacheSim's cache_get_base does; an object larger than the cache is not inserted.
// libCacheSim finds the lowest frequency by scanning its hash table of freq nodes upward from the
// last minimum (lazily after an eviction); that yields the same victim as the sorted list of
// non-empty frequencies kept here. Equal to libCacheSim's LFU: tests/policies/test_libcachesim.cpp
// compares the miss ratios with cachesim's.
//
// O(1) per operation (the constant-time LFU of Shah, Mitra, Matani, 2010): the non-empty
// frequencies are a doubly linked list of bucket nodes in increasing frequency, held in a vector
// with a free list; each bucket holds its objects in an IntrusiveList over the entries (head the
// newest, tail the oldest); the first bucket is the lowest frequency. A hit moves the object to
// the bucket f + 1 that follows its bucket, creating that bucket there when absent (or, when
// the object is alone in bucket f, raising the bucket's frequency in place); an emptied bucket
// is unlinked and recycled. At most one bucket per cached object (+1), so the vector stops
// growing with the cache's population.
//
// Entry words: prev/next link the object in its bucket's list (prev toward the newest), slot is
// the index of its bucket node.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/intrusive_list.h"
#include "engine/object_table.h"
#include "policies/policy.h"

namespace flashpq {

class LfuPolicy {
 public:
  static const ComponentSpec& spec() {
    static const ComponentSpec s{"lfu",
                                 "LFU: least frequently used (accesses since insertion), ties to "
                                 "the least recently used; libCacheSim's LFU.c, O(1) buckets",
                                 {},
                                 {exact_framework_only("lfu")},
                                 {},
                                 {}};
    return s;
  }
  static constexpr PriorityKind kKind = PriorityKind::kOwning;
  explicit LfuPolicy(const PolicyConfig&) {}
  uint32_t grid() const { return 1; }

  void attach(ObjectTable&, uint64_t) {}

  template <class Q>
  void on_insert(Q& q, ObjectTable& t, Handle h) {
    q.admit(h);
    uint32_t b = first_;
    if (b == kNone || buckets_[b].freq != 1) b = new_bucket(1, kNone, first_);
    t[h].slot = b;
    buckets_[b].objects.push_front(t, h);
  }

  template <class Q>
  void on_hit(Q&, ObjectTable& t, Handle h) {
    const uint32_t b = t[h].slot;
    Bucket& cur = buckets_[b];
    const uint64_t f = cur.freq + 1;
    const uint32_t n = cur.next;
    if (n != kNone && buckets_[n].freq == f) {
      cur.objects.unlink(t, h);
      if (cur.objects.empty()) free_bucket(b);
      t[h].slot = n;
      buckets_[n].objects.push_front(t, h);
    } else if (cur.objects.head == cur.objects.tail) {
      // Alone in its bucket and no bucket f + 1: the bucket becomes f + 1 (still sorted: its
      // successor's frequency is above f + 1).
      cur.freq = f;
    } else {
      cur.objects.unlink(t, h);
      const uint32_t nb = new_bucket(f, b, n);
      t[h].slot = nb;
      buckets_[nb].objects.push_front(t, h);
    }
  }

  template <class Q>
  void on_evict(Q&, ObjectTable&, Handle) {}

  /// The oldest object of the lowest frequency's bucket (kNoHandle when empty).
  Handle victim(const ObjectTable&) const {
    return first_ == kNone ? kNoHandle : buckets_[first_].objects.tail;
  }

  void unlink(ObjectTable& t, Handle h) {
    const uint32_t b = t[h].slot;
    buckets_[b].objects.unlink(t, h);
    if (buckets_[b].objects.empty()) free_bucket(b);
  }

  /// The bucket nodes (allocated capacity) and the policy's own words.
  size_t memory_bytes() const { return buckets_.capacity() * sizeof(Bucket) + sizeof(*this); }

  /// The frequency of cached object h (accesses since its insertion). For tests.
  uint64_t frequency(const ObjectTable& t, Handle h) const { return buckets_[t[h].slot].freq; }
  /// The cached objects by increasing frequency, each bucket oldest first: the eviction order.
  /// For tests.
  std::vector<Handle> eviction_order(const ObjectTable& t) const {
    std::vector<Handle> out;
    for (uint32_t b = first_; b != kNone; b = buckets_[b].next)
      for (Handle h = buckets_[b].objects.tail; h != kNoHandle; h = t[h].prev) out.push_back(h);
    return out;
  }
  /// Number of bucket nodes in use (non-empty frequencies). For tests.
  size_t buckets_in_use() const {
    size_t n = 0;
    for (uint32_t b = first_; b != kNone; b = buckets_[b].next) ++n;
    return n;
  }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;

  // One non-empty frequency: its objects (head the newest) and its neighbours in the sorted
  // list of buckets (prev the lower frequency). A free node's `next` links the free list.
  struct Bucket {
    IntrusiveList objects;
    uint64_t freq = 0;
    uint32_t prev = kNone;
    uint32_t next = kNone;
  };

  // A node for frequency f linked between prev and next (kNone: the ends).
  uint32_t new_bucket(uint64_t f, uint32_t prev, uint32_t next) {
    uint32_t b;
    if (free_ != kNone) {
      b = free_;
      free_ = buckets_[b].next;
    } else {
      b = static_cast<uint32_t>(buckets_.size());
      buckets_.emplace_back();
    }
    Bucket& k = buckets_[b];
    k.objects = IntrusiveList{};
    k.freq = f;
    k.prev = prev;
    k.next = next;
    (prev == kNone ? first_ : buckets_[prev].next) = b;
    if (next != kNone) buckets_[next].prev = b;
    return b;
  }

  // Unlinks the empty bucket b from the sorted list and recycles it.
  void free_bucket(uint32_t b) {
    Bucket& k = buckets_[b];
    (k.prev == kNone ? first_ : buckets_[k.prev].next) = k.next;
    if (k.next != kNone) buckets_[k.next].prev = k.prev;
    k.next = free_;
    free_ = b;
  }

  std::vector<Bucket> buckets_;
  uint32_t first_ = kNone;  // the lowest frequency's bucket
  uint32_t free_ = kNone;   // recycled nodes
};

}  // namespace flashpq
