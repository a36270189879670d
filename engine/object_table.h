// engine/object_table.h — the index map (key → cached object) and the slab of object entries.
//
// Every framework keeps its cached objects here (RIPQ paper §4.2 "Index Map": "an in-memory hash
// table which associates all objects' keys with their metadata"). An object is named by a 32-bit
// Handle, the index of its entry in a slab; freed entries are recycled through a free list, so
// the steady state allocates nothing per request.
//
// Memory is the point of the layout (at most 32 B of DRAM per cached object; the paper's
// entries are ~20 B plus 2 B for RIPQ's virtual block). The index is chained, as CacheLib's
// ChainedHashTable and memcached are: an array of 4-byte buckets, each the handle of the first
// entry of its chain, and a 4-byte chain link inside each entry. A key's bucket is the high half
// of hash_key(key) × buckets (Lemire's multiply-shift range reduction), so any bucket count
// works: reserve(n) sizes the array to ⌈n/2⌉ and it grows by half when the objects exceed twice
// its buckets, so it costs 2–3 B per object (reserve(n, b) asks for b buckets: S3-FIFO's index
// holds its ghosts too, and takes a bucket per entry). A lookup walks load ≤ 2 entries on a miss;
// the cache's lookups move a found entry to the front of its chain (find_to_front), so a hit on a
// requested-again key reads the first entry, with no unpredictable branch — on w106 that alone
// is the difference between 30 and 45 M LRU requests/s. An open-addressed index of 8-byte
// {fingerprint, handle} slots at load ≤ 1/2 — what this table was before — costs 8–16 B.
// The entry is 28 bytes: the key, the size, the chain link and three framework-owned words, the
// key held as two 32-bit words (Key64) so the entry is 4-byte aligned (x86 loads an 8-byte key
// at a 4-byte boundary at full speed).
// Per object: 28 B + 2–4 B of buckets + the slab's spare capacity (grown by 1/4, not doubled).
// Of the entry, the key, size and chain link (16 B) are index map; the three framework words are
// index map where they locate the object and queue structure where they order it (list links,
// segment, heap position): Cache::index_bytes() and queue_bytes() split them (engine/queue.h).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

#include "engine/key_hash.h"
#include "sim/prefetch.h"

namespace flashpq {

/// Names one cached object: the index of its entry in the ObjectTable's slab.
using Handle = uint32_t;
inline constexpr Handle kNoHandle = std::numeric_limits<Handle>::max();

/// A 64-bit key kept as two 32-bit words, so that ObjectEntry needs only 4-byte alignment (28
/// bytes, not 32). It reads and assigns as a uint64_t (one unaligned load or store on x86);
/// unlike a packed uint64_t member, it can be bound to a reference safely (it has no 8-byte
/// alignment to violate).
struct Key64 {
  uint32_t words[2] = {0, 0};
  Key64& operator=(uint64_t k) {
    std::memcpy(words, &k, sizeof k);
    return *this;
  }
  operator uint64_t() const {
    uint64_t k;
    std::memcpy(&k, words, sizeof k);
    return k;
  }
};

/// One cached object. 28 bytes, 4-byte aligned. `prev`, `next` and `slot` belong to whoever
/// orders the object (the framework: list links, heap position, device block; see each queue's
/// header); policies that need per-object state keep it in a vector of their own by handle
/// (policies/gdsf.h).
struct ObjectEntry {
  Key64 key;
  /// The next entry of the same index bucket, or of the free list. Owned by ObjectTable.
  Handle chain = kNoHandle;
  /// Size the object occupies in the cache, in bytes (1 in unit-size mode).
  uint32_t size_bytes = 0;
  /// Intrusive list links (kNoHandle at the ends) or, for heap-ordered queues, `prev` holds the
  /// heap position. Owned by the framework.
  Handle prev = kNoHandle;
  Handle next = kNoHandle;
  /// Framework-owned small value: the segment or device block the object is in.
  uint32_t slot = 0;
};
static_assert(sizeof(ObjectEntry) == 28 && alignof(ObjectEntry) == 4);

/// Grows `by_handle`, a side vector of per-object state indexed by handle, to cover `h`: by a
/// quarter of its size at least, as the slab grows, so that spare capacity stays a small share
/// of the DRAM counted (std::vector's own growth doubles). New elements are value-initialized.
template <class T>
void grow_for_handle(std::vector<T>& by_handle, Handle h) {
  const size_t n = std::max<size_t>(size_t{h} + 1, by_handle.size() + by_handle.size() / 4 + 16);
  by_handle.reserve(n);
  by_handle.resize(n);
}

/// The slab of entries plus the chained key index. Not thread-safe.
class ObjectTable {
 public:
  /// Largest number of entries (handles kNoHandle and up are reserved).
  static constexpr size_t kMaxObjects = size_t{kNoHandle} - 1;

  ObjectTable() { rebuild(kMinBuckets); }
  ObjectTable(const ObjectTable&) = delete;
  ObjectTable& operator=(const ObjectTable&) = delete;

  /// Reserves room for `objects` entries and sizes the index for them, so that a run that never
  /// exceeds it allocates nothing after start-up.
  void reserve(size_t objects) {
    if (objects > entries_.capacity()) entries_.reserve(objects);
    if (objects > 2 * buckets_.size()) rebuild((objects + 1) / 2);
  }

  /// As reserve(), with at least `buckets` index buckets (more than objects / 2: shorter
  /// chains for a table whose entries are not all looked up alike, at 4 B a bucket).
  void reserve(size_t objects, size_t buckets) {
    reserve(objects);
    if (buckets > buckets_.size()) rebuild(buckets);
  }

  /// Returns the handle of the cached object with `key`, or kNoHandle.
  Handle find(uint64_t key) const {
    Handle h = buckets_[bucket(key)];
    while (h != kNoHandle && entries_[h].key != key) h = entries_[h].chain;
    return h;
  }

  /// As find(), and moves a found entry to the front of its chain (a self-organizing chain,
  /// Knuth 6.1): requested keys gather at the heads, so most hits read the bucket's first
  /// entry and take no unpredictable branch. The order within a chain reaches no result.
  /// Always inlined: it is the first step of every request (Cache::access).
  [[gnu::always_inline]] Handle find_to_front(uint64_t key) {
    Handle* const head = &buckets_[bucket(key)];
    Handle h = *head;
    if (h == kNoHandle || entries_[h].key == key) [[likely]]
      return h;
    for (;;) {
      Handle* const link = &entries_[h].chain;
      const Handle x = *link;
      if (x == kNoHandle) return kNoHandle;
      if (entries_[x].key == key) {
        *link = entries_[x].chain;
        entries_[x].chain = *head;
        *head = x;
        return x;
      }
      h = x;
    }
  }

  /// Hints that `key` is looked up soon: prefetches its bucket (stage 1, some requests ahead)
  /// or, once the bucket has arrived, the first entry of its chain (stage 2, fewer requests
  /// ahead). Reads nothing that reaches a result; a replay loop over requests in memory calls
  /// them (experiments/run/replay.h) so that a lookup finds both in cache.
  void prefetch_bucket(uint64_t key) const { flashpq::prefetch(&buckets_[bucket(key)]); }
  void prefetch_entry(uint64_t key) const {
    const Handle h = buckets_[bucket(key)];
    if (h != kNoHandle) flashpq::prefetch(&entries_[h]);
  }

  /// Creates an entry for `key` (REQUIRES: not present) and indexes it. Returns its handle.
  /// Throws std::length_error past kMaxObjects live entries.
  Handle add(uint64_t key, uint32_t size_bytes) {
    Handle h;
    if (free_head_ != kNoHandle) {
      h = free_head_;
      free_head_ = entries_[h].chain;
    } else {
      h = static_cast<Handle>(entries_.size());
      if (entries_.size() == entries_.capacity()) [[unlikely]]
        grow_slab();
      entries_.emplace_back();
    }
    if (live_ + 1 > 2 * buckets_.size()) [[unlikely]]
      rebuild(buckets_.size() + buckets_.size() / 2);
    ObjectEntry& e = entries_[h];
    e = ObjectEntry{};
    e.key = key;
    e.size_bytes = size_bytes;
    Handle& head = buckets_[bucket(key)];
    e.chain = head;
    head = h;
    ++live_;
    return h;
  }

  /// Removes the entry `h` from the index and recycles it. REQUIRES: h is live.
  void remove(Handle h) {
    Handle* link = &buckets_[bucket(entries_[h].key)];
    while (*link != h) link = &entries_[*link].chain;
    *link = entries_[h].chain;
    entries_[h].chain = free_head_;
    free_head_ = h;
    --live_;
  }

  ObjectEntry& operator[](Handle h) { return entries_[h]; }
  const ObjectEntry& operator[](Handle h) const { return entries_[h]; }

  /// Number of live (cached) objects.
  size_t size() const { return live_; }

  /// Number of index buckets (at least 16).
  size_t buckets() const { return buckets_.size(); }
  /// Number of entries the slab has room for without reallocating.
  size_t slab_capacity() const { return entries_.capacity(); }
  /// Number of handles ever issued: every handle is below it (freed ones are reissued first).
  size_t handles() const { return entries_.size(); }

  /// Bytes of DRAM held by the index and the slab, measured from their allocated capacities:
  /// bucket capacity × 4 B + slab capacity × 28 B.
  size_t memory_bytes() const {
    return buckets_.capacity() * sizeof(Handle) + entries_.capacity() * sizeof(ObjectEntry);
  }
  /// Bytes of `words` (at most 3) of each entry's framework words (prev, next, slot) over the
  /// slab's capacity: the part of memory_bytes() a framework orders objects with
  /// (engine/queue.h).
  size_t framework_word_bytes(unsigned words) const {
    return entries_.capacity() * sizeof(uint32_t) * words;
  }

 private:
  static constexpr size_t kMinBuckets = 16;

  size_t bucket(uint64_t key) const {
    return static_cast<size_t>((static_cast<unsigned __int128>(hash_key(key)) * buckets_.size()) >>
                               64);
  }

  // The slab grows by a quarter (at least 64 entries), not by doubling: the spare capacity is
  // DRAM too (reserve() sizes it exactly when the object count is known).
  [[gnu::noinline]] void grow_slab() {
    const size_t cap = entries_.capacity();
    if (cap >= kMaxObjects) throw std::length_error("ObjectTable: more than 2^32 - 2 objects");
    entries_.reserve(std::min(kMaxObjects, cap + std::max<size_t>(64, cap / 4)));
  }

  // Re-links every live entry into `count` buckets (count >= kMinBuckets).
  [[gnu::noinline]] void rebuild(size_t count) {
    std::vector<Handle> old(count, kNoHandle);
    old.swap(buckets_);
    for (Handle head : old) {
      while (head != kNoHandle) {
        const Handle next = entries_[head].chain;
        Handle& b = buckets_[bucket(entries_[head].key)];
        entries_[head].chain = b;
        b = head;
        head = next;
      }
    }
  }

  std::vector<ObjectEntry> entries_;
  std::vector<Handle> buckets_;  // head of each chain
  Handle free_head_ = kNoHandle;
  size_t live_ = 0;
};

}  // namespace flashpq
