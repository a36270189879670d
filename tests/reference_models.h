// tests/reference_models.h — deliberately simple reference caches for the policy tests.
//
// Written independently of engine/ and policies/: no ObjectTable, no intrusive lists, no heap.
// Objects live in std::deque / std::vector and are found by linear scan, so that each rule is
// one or two obvious lines. Only engine/request.h (the Request type) is shared with the engine.
//
// Specs quoted below:
//   [cache]  engine/cache.h file comment (request semantics);
//   [§4.1]   RIPQ paper (FAST'15) §4.1, relative priority queue;
//   [§4.3]   RIPQ paper §4.3 "Segmented-LRU" and "Greedy-Dual-Size-Frequency", and Table 2.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "engine/request.h"

namespace flashpq {

/// The cache parameters a reference needs (the engine's CacheConfig, restated).
struct RefConfig {
  uint64_t capacity = 0;               // bytes, or objects when unit_size
  bool unit_size = false;              // every object counts as size 1
  bool update_on_size_change = false;  // false: kKeep, true: kUpdate
};

/// One cached object of a list-ordered reference.
struct RefObject {
  uint64_t key = 0;
  uint64_t size = 0;
};

/// The request semantics shared by all references. `Derived` keeps the cached objects and
/// provides: std::optional<uint64_t> size_of(key); void hit(key); void erase(key);
/// uint64_t evict() (removes the victim, returns its size); void insert(key, size).
template <class Derived>
class RefCacheBase {
 public:
  /// Applies one request. Returns true if and only if it is a get that hit.
  bool access(const Request& r) {
    // [cache] unit_size: "Count every object as size 1, so capacity is a number of objects."
    const uint64_t size = config_.unit_size ? 1 : r.size_bytes;
    const std::optional<uint64_t> cached = self().size_of(r.key);
    if (r.op == Op::kDelete) {
      // [cache] "delete: removes the object if cached; otherwise nothing."
      if (cached) remove(r.key, *cached);
      return false;
    }
    if (r.op == Op::kGet && cached) {
      // [cache] kKeep: "a hit; the cached copy keeps its size". kUpdate: a hit only if the size
      // is the same, else "the get is a miss, the old copy is removed and ... inserted again".
      if (!config_.update_on_size_change || *cached == size) {
        self().hit(r.key);
        return true;
      }
    }
    // [cache] "set: inserts the object, or replaces the cached copy (the old copy is removed and
    // the new one inserted as a fresh object)"; also the stale copy of kUpdate.
    if (cached) remove(r.key, *cached);
    // [cache] "An object larger than the capacity is never admitted."
    if (size > config_.capacity) return false;
    // [cache] "Insertion evicts before it inserts: delete-min runs until the new object fits."
    while (used_ + size > config_.capacity) {
      used_ -= self().evict();
      ++evictions_;
    }
    self().insert(r.key, size);
    used_ += size;
    return false;
  }

  uint64_t used() const { return used_; }
  uint64_t evictions() const { return evictions_; }
  uint64_t capacity() const { return config_.capacity; }

 protected:
  explicit RefCacheBase(const RefConfig& config) : config_(config) {}

 private:
  Derived& self() { return static_cast<Derived&>(*this); }
  void remove(uint64_t key, uint64_t size) {
    self().erase(key);
    used_ -= size;
  }

  RefConfig config_;
  uint64_t used_ = 0;
  uint64_t evictions_ = 0;
};

/// Linear search of a head→tail list; returns list.end() when absent.
inline std::deque<RefObject>::iterator ref_find(std::deque<RefObject>& list, uint64_t key) {
  return std::find_if(list.begin(), list.end(), [key](const RefObject& o) { return o.key == key; });
}

/// FIFO: one list, head = newest insertion; hits change nothing (policies/fifo.h).
class RefFifo : public RefCacheBase<RefFifo> {
 public:
  explicit RefFifo(const RefConfig& config) : RefCacheBase(config) {}

  /// Cached keys, head (newest) to tail (next victim).
  std::vector<uint64_t> keys() const {
    std::vector<uint64_t> k;
    for (const RefObject& o : list_) k.push_back(o.key);
    return k;
  }

  std::optional<uint64_t> size_of(uint64_t key) {
    auto it = ref_find(list_, key);
    return it == list_.end() ? std::nullopt : std::optional<uint64_t>(it->size);
  }
  void hit(uint64_t) {}  // FIFO: "hits change nothing"
  void erase(uint64_t key) { list_.erase(ref_find(list_, key)); }
  uint64_t evict() {  // the oldest insertion is at the tail
    const uint64_t size = list_.back().size;
    list_.pop_back();
    return size;
  }
  void insert(uint64_t key, uint64_t size) { list_.push_front({key, size}); }

 private:
  std::deque<RefObject> list_;
};

/// LRU: one list, head = most recently used; a hit moves the object to the head.
class RefLru : public RefCacheBase<RefLru> {
 public:
  explicit RefLru(const RefConfig& config) : RefCacheBase(config) {}

  /// Cached keys, head (most recent) to tail (next victim).
  std::vector<uint64_t> keys() const {
    std::vector<uint64_t> k;
    for (const RefObject& o : list_) k.push_back(o.key);
    return k;
  }

  std::optional<uint64_t> size_of(uint64_t key) {
    auto it = ref_find(list_, key);
    return it == list_.end() ? std::nullopt : std::optional<uint64_t>(it->size);
  }
  void hit(uint64_t key) {  // recency: the accessed object becomes the head
    auto it = ref_find(list_, key);
    const RefObject o = *it;
    list_.erase(it);
    list_.push_front(o);
  }
  void erase(uint64_t key) { list_.erase(ref_find(list_, key)); }
  uint64_t evict() {  // the least recently used object is at the tail
    const uint64_t size = list_.back().size;
    list_.pop_back();
    return size;
  }
  void insert(uint64_t key, uint64_t size) { list_.push_front({key, size}); }

 private:
  std::deque<RefObject> list_;
};

/// Segmented-L LRU with L equal byte segments. seg_[0] is the paper's segment 1 (highest
/// priority), seg_[L-1] its segment L; each list is ordered head→tail.
class RefSlru : public RefCacheBase<RefSlru> {
 public:
  RefSlru(const RefConfig& config, uint32_t segments)
      : RefCacheBase(config), seg_(segments), bytes_(segments, 0) {}

  /// Cached keys of segment s (0-based, 0 = highest), head to tail.
  std::vector<uint64_t> keys(uint32_t s) const {
    std::vector<uint64_t> k;
    for (const RefObject& o : seg_[s]) k.push_back(o.key);
    return k;
  }
  /// All cached keys.
  std::vector<uint64_t> keys() const {
    std::vector<uint64_t> k;
    for (uint32_t s = 0; s < seg_.size(); ++s) {
      for (uint64_t key : keys(s)) k.push_back(key);
    }
    return k;
  }
  uint64_t segment_bytes(uint32_t s) const { return bytes_[s]; }

  std::optional<uint64_t> size_of(uint64_t key) {
    for (auto& list : seg_) {
      auto it = ref_find(list, key);
      if (it != list.end()) return it->size;
    }
    return std::nullopt;
  }
  void hit(uint64_t key) {
    // [§4.3] "On a hit, an object is promoted to the head of the previous LRU cache, i.e., if it
    // is in sub-cache l, it will be promoted to the head of the max(l − 1, 1)-th LRU cache."
    const uint32_t s = segment_of(key);
    const RefObject o = take(s, key);
    put_head(s == 0 ? 0 : s - 1, o);
    cascade();
  }
  void erase(uint64_t key) { take(segment_of(key), key); }
  uint64_t evict() {
    // [§4.1] delete-min: the tail of the lowest non-empty segment ("objects evicted from the
    // last cache are evicted from the whole cache"; the last cache may be empty).
    for (uint32_t s = static_cast<uint32_t>(seg_.size()); s-- > 0;) {
      if (!seg_[s].empty()) {
        const RefObject o = seg_[s].back();
        take(s, o.key);
        return o.size;
      }
    }
    return 0;  // unreachable: evict() runs only while something is cached
  }
  void insert(uint64_t key, uint64_t size) {
    // [§4.3] "On a miss, the object is inserted to the head of the L-th (the last) LRU cache."
    put_head(static_cast<uint32_t>(seg_.size()) - 1, {key, size});
    cascade();
  }

 private:
  // [§4.3] "An object evicted from the l-th cache will go to the head of the (l + 1)-th cache":
  // segment l < L holds at most capacity/L bytes (L equal segments); while bytes_l · L exceeds
  // the capacity its tail moves to the head of segment l+1. Segment L takes the rest.
  void cascade() {
    const uint64_t L = seg_.size();
    for (uint32_t l = 0; l + 1 < L; ++l) {
      while (bytes_[l] * L > capacity()) {
        const RefObject o = seg_[l].back();
        take(l, o.key);
        put_head(l + 1, o);
      }
    }
  }
  uint32_t segment_of(uint64_t key) {
    for (uint32_t s = 0; s < seg_.size(); ++s) {
      if (ref_find(seg_[s], key) != seg_[s].end()) return s;
    }
    return 0;  // unreachable: callers pass cached keys
  }
  RefObject take(uint32_t s, uint64_t key) {
    auto it = ref_find(seg_[s], key);
    const RefObject o = *it;
    seg_[s].erase(it);
    bytes_[s] -= o.size;
    return o;
  }
  void put_head(uint32_t s, const RefObject& o) {
    seg_[s].push_front(o);
    bytes_[s] += o.size;
  }

  std::vector<std::deque<RefObject>> seg_;
  std::vector<uint64_t> bytes_;
};

/// Greedy-Dual-Size-Frequency with frequency cap L and c(x) = 1.
class RefGdsf : public RefCacheBase<RefGdsf> {
 public:
  struct Object {
    uint64_t key;
    uint64_t size;
    double priority;
    uint64_t n;    // accesses since insertion, the inserting miss being access 1 (not capped)
    uint64_t seq;  // when the priority was last set (insert or hit)
  };

  RefGdsf(const RefConfig& config, uint32_t cap) : RefCacheBase(config), cap_(cap) {}

  double clock() const { return clock_; }
  const std::vector<Object>& objects() const { return objects_; }
  std::vector<uint64_t> keys() const {
    std::vector<uint64_t> k;
    for (const Object& o : objects_) k.push_back(o.key);
    return k;
  }
  /// The object with `key`, or nullptr.
  const Object* find(uint64_t key) const {
    for (const Object& o : objects_) {
      if (o.key == key) return &o;
    }
    return nullptr;
  }

  std::optional<uint64_t> size_of(uint64_t key) {
    const Object* o = find(key);
    return o ? std::optional<uint64_t>(o->size) : std::nullopt;
  }
  void hit(uint64_t key) {
    // [§4.3] "p(x) ← Lowest + c(x) · min(L, n) / s(x)" upon the n-th access since insertion.
    Object& o = objects_[index_of(key)];
    ++o.n;
    o.priority =
        clock_ + static_cast<double>(std::min<uint64_t>(cap_ == 0 ? UINT64_MAX : cap_, o.n)) /
                     static_cast<double>(o.size);  // cap 0: none (classic GDSF)
    o.seq = next_seq_++;                           // the tie-break of engine/exact/absolute_queue.h
  }
  void erase(uint64_t key) { objects_.erase(objects_.begin() + index_of(key)); }
  uint64_t evict() {
    // delete-min; ties: "the object whose priority was set least recently ... is the minimum"
    // (engine/exact/absolute_queue.h). Lowest ("clock") = the priority of the evicted object.
    size_t victim = 0;
    for (size_t i = 1; i < objects_.size(); ++i) {
      const Object& a = objects_[i];
      const Object& b = objects_[victim];
      if (a.priority < b.priority || (a.priority == b.priority && a.seq < b.seq)) victim = i;
    }
    clock_ = objects_[victim].priority;
    const uint64_t size = objects_[victim].size;
    objects_.erase(objects_.begin() + static_cast<std::ptrdiff_t>(victim));
    return size;
  }
  void insert(uint64_t key, uint64_t size) {
    // Table 2, on miss: insert(x, Lowest + c(x)/s(x)); the inserting miss is access n = 1.
    objects_.push_back({key, size, clock_ + 1.0 / static_cast<double>(size), 1, next_seq_++});
  }

 private:
  std::ptrdiff_t index_of(uint64_t key) const { return find(key) - objects_.data(); }

  uint64_t cap_;
  double clock_ = 0.0;
  uint64_t next_seq_ = 0;
  std::vector<Object> objects_;
};

}  // namespace flashpq
