// engine/cache.h — the cache: request semantics on top of a policy and a priority queue.
//
// Source: docs/DESIGN.md "Data flow". The cache owns the index (ObjectTable), the policy and the
// queue; it turns each Request into the policy's priority-queue operations (RIPQ paper §4.1):
//   * get, cached:     a hit; the object is read from the device where it is on flash
//                      (framework.read_hits), then the policy may increase its priority.
//   * get, not cached: a miss; the object is inserted with the request's size (read-through).
//   * set:             inserts the object, or replaces the cached copy (the old copy is removed
//                      and the new one inserted as a fresh object: priority and GDSF count
//                      restart, as a rewrite on flash would).
//   * delete:          removes the object if cached; otherwise nothing.
// Insertion evicts before it inserts: delete-min runs until the new object fits, so an object is
// admitted if and only if its size is at most the capacity (as libCacheSim does; flash
// frameworks also refuse objects larger than a device block). An object that is not admitted
// is not cached and its get counts as a miss. Eviction itself belongs to the framework's queue
// (engine/queue.h), which reports each victim back so the policy sees it.
//
// Size changes (a get for a cached key with a different size), by CacheConfig::on_size_change:
//   * kKeep (default, libCacheSim's behaviour): a hit; the cached copy keeps its size.
//   * kUpdate: the cached copy is stale: the get is a miss, the old copy is removed and the
//     object is inserted again with the new size.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "devices/device.h"
#include "engine/admission.h"
#include "engine/object_table.h"
#include "engine/policy.h"
#include "engine/queue.h"
#include "engine/request.h"
#include "sim/params.h"

namespace flashpq {

/// What a get for a cached key whose size differs does (see the file comment).
enum class SizeChange { kKeep, kUpdate };

/// The `cache:` section of an experiment, resolved.
struct CacheConfig {
  /// Capacity in bytes (in objects when unit_size). REQUIRES: >= 1. No default: the experiment
  /// resolves `cache.capacity` (CapacitySpec: bytes with a unit, or a fraction of the working
  /// set).
  uint64_t capacity_bytes = 0;
  /// Count every object as size 1, so capacity is a number of objects. Default false.
  bool unit_size = false;
  /// Default kKeep.
  SizeChange on_size_change = SizeChange::kKeep;
  /// The cell's seed (the experiment's `seed`), passed to the framework (QueueContext::seed)
  /// for what it draws at random. Not a key of the cache section. Default 0.
  uint64_t seed = 0;

  /// Decodes cache.unit_size and cache.on_size_change from `params` (unset keys take their
  /// defaults); capacity_bytes stays 0 until CapacitySpec::resolve(). Throws
  /// std::invalid_argument quoting a bad value.
  static CacheConfig from(const Params& params);

  /// Throws std::invalid_argument quoting the bad value (capacity 0, or above 2^62).
  void validate() const {
    if (capacity_bytes < 1 || capacity_bytes > (uint64_t{1} << 62)) {
      throw std::invalid_argument("cache.capacity: expected 1 B to 4 EiB, found " +
                                  std::to_string(capacity_bytes) + " bytes");
    }
  }
};

/// A cache capacity as written (cache.capacity): a byte count, or a fraction of the working set.
struct CapacitySpec {
  bool is_fraction = false;
  double fraction = 0;  // in (0, 1] when is_fraction
  uint64_t bytes = 0;   // when !is_fraction

  /// Reads the text of cache.capacity (checked by check_value(kCapacityKey, text)).
  static CapacitySpec parse(const std::string& text);
  /// Resolves against a working set (bytes, or objects in unit-size mode):
  /// floor(fraction × working set) as libCacheSim does, at least 1. REQUIRES: parsed.
  uint64_t resolve(uint64_t working_set) const;
};

/// cache.capacity, cache.unit_size, cache.on_size_change.
extern const KeySpec kCapacityKey;
extern const KeySpec kUnitSizeKey;
extern const KeySpec kOnSizeChangeKey;
/// The `cache:` section (no components: its three keys).
const SectionSpec& cache_section();

/// A cache running policy P on queue Q with admission A. Not thread-safe; one per cell.
template <Policy P, class Q, class A = NoAdmission>
class Cache {
 public:
  /// REQUIRES: configs validated; `framework` and `device` outlive the cache. Takes the policy
  /// and the admission policy by value. Throws std::invalid_argument if the framework rejects
  /// the combination.
  Cache(const CacheConfig& config, const FrameworkConfig& framework, P policy, Device& device,
        A admission = A(AdmissionConfig{}, 0))
      : config_(config),
        read_hits_(framework.params.get<bool>(kReadHitsKey)),
        admission_(std::move(admission)),
        policy_(std::move(policy)),
        queue_(with_placement_handles(
            QueueContext{table_, device, framework, config.capacity_bytes, policy_.grid(),
                         EvictionSink{&Cache::before_evict, this}, &policy_, config.seed})) {
    // A zoned device takes only sequential writes at each zone's write pointer: a framework
    // whose queue says it writes zones so (kWritesZones, engine/queue.h) runs on one.
    if constexpr (!requires { Q::kWritesZones; }) {
      if (device.zone_geometry().zoned()) throw_not_zoned(framework.name);
    }
  }

  Cache(const Cache&) = delete;
  Cache& operator=(const Cache&) = delete;

  /// Applies one request. Returns true if and only if it is a get that hit.
  /// Always inlined into the replay loop: with TinyLFU's inlined sketch in it, GCC otherwise
  /// emits it (and find_to_front) out of line, which cost exact LRU + TinyLFU 30 of its 198
  /// instructions per request on w106 (callgrind) and half of TinyLFU's time overhead.
  [[gnu::always_inline]] bool access(const Request& r) {
    if constexpr (requires { policy_.on_request(r); }) policy_.on_request(r);
    if constexpr (A::kEnabled) {
      if (r.op != Op::kDelete) admission_.record(r.key);
    }
    const Handle h = table_.find_to_front(r.key);
    if constexpr (kGhostEntries) {
      if (h != kNoHandle && policy_.is_ghost(table_, h)) [[unlikely]] {
        ghost_request(h, r);
        return false;
      }
    }
    if (r.op == Op::kGet) [[likely]] {
      if (h != kNoHandle && hit(h, r)) [[likely]] {
        return true;
      }
      // A flash engine looks where it would have found the key (BigHash: its bucket's Bloom
      // filter, and the bucket on a false positive).
      if constexpr (requires { queue_.on_lookup_miss(r.key); }) queue_.on_lookup_miss(r.key);
      insert(r.key, size_of(r));
      return false;
    }
    set_or_delete(r, h);
    return false;
  }

  /// A get that never inserts: true iff `r.key` is cached (a hit: the framework reads it where
  /// it reads hits, the policy sees it). A cached copy whose size differs counts as by
  /// CacheConfig::on_size_change (kUpdate: removed, a miss). The admission policy records
  /// nothing. A hierarchy's lower tier is looked up this way (engine/tiers.h): its misses are
  /// inserted above it, not in it.
  bool lookup(const Request& r) {
    const Handle h = table_.find_to_front(r.key);
    if (h != kNoHandle && !is_ghost(h) && hit(h, r)) return true;
    if constexpr (requires { queue_.on_lookup_miss(r.key); }) queue_.on_lookup_miss(r.key);
    return false;
  }

  /// Called with the key and size of each object the framework evicts, before it leaves (never
  /// for a removal by a set, a delete or a size change). A hierarchy (engine/tiers.h) offers
  /// DRAM's victims to flash and flushes dirty victims this way. The listener must not touch
  /// this cache. Null (the default): nothing is called.
  using EvictionListener = void (*)(void* context, uint64_t key, uint32_t size_bytes);
  void set_eviction_listener(EvictionListener listener, void* context) {
    listener_ = listener;
    listener_context_ = context;
  }

  /// Prefetch hints for a request `key` to come (ObjectTable::prefetch_bucket, prefetch_entry):
  /// no effect on any result. They are given only when they pay (prefetch_pays()): otherwise
  /// each is one predicted branch.
  void prefetch_bucket(uint64_t key) const {
    if (!prefetch_) return;
    table_.prefetch_bucket(key);
    if constexpr (requires { policy_.prefetch(key); }) policy_.prefetch(key);
  }
  void prefetch_entry(uint64_t key) const {
    if (prefetch_) table_.prefetch_entry(key);
  }
  /// Whether the hints pay: the index map (ObjectTable::memory_bytes(), from its capacity) is
  /// at least kPrefetchFromIndexBytes once reserve() has sized it. Below that the table sits in
  /// the CPU's caches and the hints only cost instructions (exact FIFO on w106: 70 → 58 M
  /// requests/s with them); above it they hide DRAM misses (15 M cached keys: 4.4 → 5.5 M
  /// requests/s).
  bool prefetch_pays() const { return prefetch_; }
  static constexpr size_t kPrefetchFromIndexBytes = size_t{32} << 20;

  /// Sizes the index for `objects` cached objects, so that a run allocates nothing after it.
  void reserve(size_t objects) {
    if constexpr (kGhostEntries) {
      const size_t entries = objects + policy_.ghost_reserve(objects);
      table_.reserve(entries, entries);
    } else {
      table_.reserve(objects);
    }
    prefetch_ = table_.memory_bytes() >= kPrefetchFromIndexBytes;
  }

  /// True if `key` is cached.
  bool contains(uint64_t key) const {
    const Handle h = table_.find(key);
    return h != kNoHandle && !is_ghost(h);
  }

  /// The key of the object that inserting `size_bytes` would evict next (the victim an
  /// admission policy is shown: Q::victim()), in *key; false when it would evict nothing.
  bool next_victim(uint32_t size_bytes, uint64_t* key) const {
    const Handle victim = queue_.victim(config_.unit_size ? 1u : size_bytes);
    if (victim == kNoHandle) return false;
    *key = table_[victim].key;
    return true;
  }

  /// Bytes cached (objects in unit-size mode).
  uint64_t used_bytes() const { return queue_.used_bytes(); }
  uint64_t capacity_bytes() const { return config_.capacity_bytes; }
  /// Whether the framework writes objects to the device (exact without placement does not).
  bool places_objects() const { return queue_.places_objects(); }
  size_t object_count() const {
    if constexpr (kGhostEntries) return table_.size() - policy_.ghost_entries();
    return table_.size();
  }
  uint64_t evictions() const { return queue_.counters().evicted_objects; }
  /// Bytes that inserting misses and sets required (the denominator of implementation WA).
  uint64_t miss_bytes_inserted() const { return miss_bytes_inserted_; }
  /// Insertions the admission policy refused.
  uint64_t admission_rejections() const { return rejected_; }
  const A& admission() const { return admission_; }

  /// DRAM of the index map (RIPQ paper §4.2, "Index Map": keys and their metadata — locations,
  /// sizes, block ids; see engine/queue.h): the ObjectTable's buckets and entries less the
  /// entry words the queue orders objects with (Q::kOrderWords), plus the locations the queue
  /// keeps by handle. Measured from allocated capacities.
  size_t index_bytes() const {
    return table_.memory_bytes() - table_.framework_word_bytes(Q::kOrderWords) +
           queue_.index_bytes() - ghost_entry_bytes();
  }
  /// DRAM of the queue structure (§4.2, "Queue Structure": what orders the objects): the entry
  /// words the queue orders objects with, the queue's own structures (segments, heap, blocks,
  /// sections, histogram, absolute priorities) and the policy's per-object state (GDSF's
  /// counts), from allocated capacities. The block buffers are apart, in
  /// FrameworkCounters::dram_buffer_bytes. index_bytes() + queue_bytes() is the framework's
  /// DRAM besides its buffers.
  size_t queue_bytes() const {
    size_t bytes = table_.framework_word_bytes(Q::kOrderWords) + queue_.queue_bytes();
    if constexpr (requires { policy_.memory_bytes(); }) bytes += policy_.memory_bytes();
    return bytes + ghost_entry_bytes();
  }
  /// DRAM of the admission policy (TinyLFU's sketch and doorkeeper; 0 without admission).
  size_t admission_bytes() const { return admission_.memory_bytes(); }

  const P& policy() const { return policy_; }
  const Q& queue() const { return queue_; }
  const ObjectTable& table() const { return table_; }

 private:
  // The policy keeps its ghost keys as table entries (engine/policy.h GhostEntryPolicy).
  static constexpr bool kGhostEntries = GhostEntryPolicy<P>;

  bool is_ghost(Handle h) const {
    if constexpr (kGhostEntries) return policy_.is_ghost(table_, h);
    return false;
  }

  // The ghost entries' index-map share (entries, not counting their framework words) is the
  // policy's ghost, not the index map of cached objects: queue_bytes() counts it.
  size_t ghost_entry_bytes() const {
    if constexpr (kGhostEntries) {
      return policy_.ghost_entries() * (sizeof(ObjectEntry) - Q::kOrderWords * sizeof(uint32_t));
    }
    return 0;
  }

  // A request whose key is a ghost entry h: a miss. A get or a set of an object the cache admits
  // takes the key out of the ghost (the policy's on_miss then sees the ghost hit) and inserts
  // it; a delete, or an object larger than the cache admits, leaves the ghost as it is, as it
  // would a key the table does not hold.
  [[gnu::noinline]] void ghost_request(Handle h, const Request& r) {
    if (r.op == Op::kDelete || !queue_.admits(size_of(r))) return;
    policy_.ghost_hit(table_, h);
    table_.remove(h);
    insert(r.key, size_of(r));
  }

  // The size the object occupies: 1 in unit-size mode.
  uint32_t size_of(const Request& r) const { return config_.unit_size ? 1u : r.size_bytes; }

  // A get for cached object h: a hit (the framework reads it where it reads hits, the policy
  // sees it), or, when its size differs under SizeChange::kUpdate, the stale copy removed.
  [[gnu::always_inline]] bool hit(Handle h, const Request& r) {
    if (config_.on_size_change == SizeChange::kKeep || table_[h].size_bytes == size_of(r))
        [[likely]] {
      if (read_hits_) queue_.read_hit(h);
      // A flash engine sees every hit (navy's hit counts, LRU regions), whatever the policy.
      if constexpr (requires { queue_.on_hit(h); }) queue_.on_hit(h);
      policy_.on_hit(queue_, table_, h);
      return true;
    }
    erase(h);
    return false;
  }

  [[gnu::noinline]] void set_or_delete(const Request& r, Handle h) {
    if (h != kNoHandle) erase(h);
    if (r.op == Op::kSet) insert(r.key, size_of(r));
  }

  void insert(uint64_t key, uint32_t size) {
    if (!queue_.admits(size)) return;  // never admitted
    // A policy that owns its structure sees the miss before admission and eviction (ARC's
    // ghost hits adapt its target, engine/policy.h OwningPolicy); one whose on_miss returns a
    // bool may decline to cache the object (S3-FIFO, 2Q: larger than their small queue).
    if constexpr (requires { policy_.on_miss(table_, key, size); }) {
      if constexpr (std::is_same_v<decltype(policy_.on_miss(table_, key, size)), bool>) {
        if (!policy_.on_miss(table_, key, size)) return;  // not cached: a miss
      } else {
        policy_.on_miss(table_, key, size);
      }
    }
    if constexpr (A::kEnabled) {
      const Handle victim = queue_.victim(size);
      if (victim != kNoHandle && !admission_.admit(key, table_[victim].key)) {
        ++rejected_;
        return;
      }
    }
    queue_.make_room(size);
    const Handle h = table_.add(key, size);
    miss_bytes_inserted_ += size;
    policy_.on_insert(queue_, table_, h);
  }

  void erase(Handle h) {
    queue_.remove(h);
    table_.remove(h);
  }

  static void before_evict(void* self, Handle h) {
    auto* c = static_cast<Cache*>(self);
    if (c->listener_ != nullptr) [[unlikely]] {
      c->listener_(c->listener_context_, c->table_[h].key, c->table_[h].size_bytes);
    }
    c->policy_.on_evict(c->queue_, c->table_, h);
  }

  CacheConfig config_;
  bool read_hits_;         // framework.read_hits (engine/queue.h)
  bool prefetch_ = false;  // prefetch_pays()
  A admission_;
  ObjectTable table_;  // declared before queue_: the queue holds a reference to it
  P policy_;
  Q queue_;
  uint64_t miss_bytes_inserted_ = 0;
  uint64_t rejected_ = 0;
  EvictionListener listener_ = nullptr;
  void* listener_context_ = nullptr;
};

}  // namespace flashpq
