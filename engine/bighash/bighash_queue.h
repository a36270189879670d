// engine/bighash/bighash_queue.h — CacheLib navy's BigHash, the small-object engine, as a
// FlashPQ framework: a set-associative cache of fixed-size buckets on flash, FIFO within each
// bucket, every change a read-modify-write of one whole bucket, a Bloom filter per bucket in
// DRAM and no per-object index.
//
// Source: github.com/facebook/CacheLib at 278ffc74e3015608e385a87caba9f65f9d1113dd (Apache-2.0),
// docs/reference/navy-spec.md §3 (with §1.2 and §9). Paths below are under
// cachelib/navy/bighash/ unless given in full.
//
// Geometry (§3.1, §1.2). The cache's C bytes are ⌊C/B⌋ buckets of B bytes
// (framework.bighash_bucket_size); bucket b is at device offset b·B (navy:
// cacheBaseOffset + bucketSize·id, BigHash.h:209-211; here cacheBaseOffset = 0: the device is
// the cache's own, with no navy metadata area or BlockCache beside it). A key's bucket is
// keyHash mod the bucket count (BigHash.h:205-207). MODELLING CHOICE: keyHash is FlashPQ's
// mix64(key) (engine/key_hash.h, MurmurHash3's fmix64, a bijection on 64-bit keys), not navy's
// SpookyHashV2-64 of the key bytes: traces give keys as 64-bit numbers, not byte strings, and
// mix64 — not hash_key, which the ObjectTable reduces by its high bits — is the one whose low
// bits are well mixed for a reduction mod the bucket count. Buckets and Bloom bits are therefore
// navy's statistically, not key by key.
//
// Bucket layout (§3.2): a 24-byte header (Bucket.cpp:24-26), so a capacity of B − 24 bytes
// (Bucket::initNew, Bucket.cpp:56-59); each entry takes 4 + 16 + key + value bytes of it (the
// slot header, BucketStorage.cpp:24, and the BucketEntry, Bucket.h:138-142), with no padding.
// An object's FlashPQ size is its key + value (the request size), so it takes size + 20 bytes.
// Objects over B − 44 bytes (BigHash::getMaxItemSize, BigHash.cpp:143-146) are never stored
// (admits() is false; navy's hybrid sends them to BlockCache, which this framework is not).
//
// Operations (§3.3):
//   * insert (BigHash::insert, BigHash.cpp:298-385): read the whole bucket (one device read of
//     B bytes at its offset; the Bloom filter is not consulted); if the entry does not fit
//     (Bucket::makeSpace, Bucket.cpp:90-129) evict from the front (oldest first) until it
//     does; append it at the back; Bloom: set its bits if nothing left the bucket, else rebuild
//     the filter from the bucket's keys (BigHash.cpp:346-353, bfRebuild :552-566); write the
//     whole bucket back (one device write of B bytes). Evictions go through ctx.sink after the
//     write, as navy runs its destructor callbacks after the write (BigHash.cpp:363-367): the
//     device sees read, write; the policy then sees each victim, oldest first.
//   * lookup hit (BigHash::lookup, :404-449): the filter passes (no false negatives), the
//     bucket is read (one device read of B bytes, framework.read_hits; false: no read). A hit
//     changes nothing: no recency state.
//   * lookup miss (on_lookup_miss): the filter rejects → no I/O; it says maybe → the bucket is
//     read and the key is not in it: a false positive (bfFalsePositiveCount_, :442-444).
//   * remove (BigHash::remove, :451-518), for a delete or the old copy of a replaced key: the
//     filter passes (the key is in the bucket), read the bucket, drop the entry, rebuild the
//     filter, write the bucket. The cache calls remove() only for a cached key, so a remove
//     here always finds its key; a delete of an uncached key never reaches the queue (see
//     "Not modelled").
//   * a set of a cached key is the cache's remove() then insert(): two read-modify-writes of the
//     bucket. That is what CacheLib's hybrid does — insertOrReplace enqueues an NVM remove
//     (cachelib/allocator/CacheAllocator.h:3921-3926) and the new copy reaches navy as a later
//     insert — whereas a direct navy insert of a present key removes it inside its one
//     read-modify-write (Bucket::remove, BigHash.cpp:341).
// The Bloom filter (§3.4, engine/bighash/bighash_bloom.h): framework.bighash_bloom_filter_bits
// per bucket (default 64 = navy's 8 bytes), 4 hash functions of bits/4 bits each
// (NavySetup.cpp:128-138), all zero at start (every bucket rejects every key); 0 bits = no
// filter, as navy's bucketBfSize 0: every lookup and remove reads its bucket, and a miss read
// counts as a false-positive read (navy counts bfFalsePositiveCount_ without a filter too).
// Between rebuilds only set() touches a filter and keys leave a bucket only through eviction or
// remove, which rebuild it: a filter is always exactly the union of its bucket's keys' bits.
// The simulator computes that union without walking the bucket: the filters keep a count per
// bit (bighash_bloom.h, counting), a leaving key is erased, and check_invariants() compares
// every filter with one rebuilt from its keys. Navy's counters still count each rebuild.
//
// Counters (BigHashCounters) follow navy's: flash_bytes_written = physicalWrittenCount_ (B per
// bucket write), logical_bytes_written = logicalWrittenCount_ (object sizes inserted, not
// removes), bloom_lookups = bfProbeCount_, bloom_rejects = bfRejectCount_,
// bloom_false_positive_reads = bfFalsePositiveCount_, bloom_rebuilds = bfRebuildCount_.
// App write amplification = flash_bytes_written / logical_bytes_written (CacheBench's, §8.3):
// B/s for objects of size s inserted once each.
//
// DRAM. modelled_dram_index_bytes(): what navy keeps, numBuckets × filter bytes (§9.3: no
// per-object state). MODELLING CHOICE: navy's ValidBucketChecker (1 bit per 100 buckets,
// BigHash.cpp:31) is left out, as the brief asks. The simulator's own DRAM: each bucket's FIFO
// is a circular doubly linked list through the entries' prev/next (kOrderWords = 2) with the
// bucket's head (4 B) and slot bytes in use (4 B) in vectors of their own (queue_bytes()); the
// entry's slot holds its bucket (index map); the filters and their per-bit counts (one byte a bit)
// are index_bytes(). All allocated from C at construction: no allocation per request.
//
// Not modelled (navy behaviour outside FlashPQ's cache contract): TTL expiry before eviction
// (Bucket::removeExpired: FlashPQ objects have no TTL); couldExist; a delete or a set of a key
// FlashPQ does not cache (navy probes the filter, and on "maybe" reads the bucket: the cache
// does not call the queue for it); device errors and disabled (invalid) buckets; checksums and
// generation times (CPU only); the hybrid's routing (smallItemMaxSize) and BlockCache;
// navy's concurrency (every operation here completes before the next).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "devices/device.h"
#include "engine/bighash/bighash_bloom.h"
#include "engine/bighash/bighash_config.h"
#include "engine/key_hash.h"
#include "engine/object_table.h"
#include "engine/queue.h"

namespace flashpq {

/// BigHash's own metrics (navy's counter names in brackets). Bytes and counts since
/// construction.
struct BigHashCounters {
  /// Every byte written to the device: B per bucket write [physicalWrittenCount_].
  uint64_t flash_bytes_written = 0;
  /// Every byte read from the device: B per bucket read (inserts, hits when
  /// framework.read_hits, false positives, removes).
  uint64_t flash_bytes_read = 0;
  /// Object sizes (key + value) inserted [logicalWrittenCount_]; removes add nothing.
  uint64_t logical_bytes_written = 0;
  /// Bucket writes: every insert, every remove that found its key.
  uint64_t bucket_rewrites = 0;
  /// Bucket reads (as flash_bytes_read, in buckets).
  uint64_t bucket_reads = 0;
  /// Objects inserted [succInsertCount_] and removed [succRemoveCount_].
  uint64_t inserts = 0;
  uint64_t removes = 0;
  /// Lookups that found their key [succLookupCount_] and that did not.
  uint64_t hits = 0;
  uint64_t lookup_misses = 0;
  /// Bloom filter probes: lookups and removes, with a filter [bfProbeCount_].
  uint64_t bloom_lookups = 0;
  /// Probes the filter rejected: no I/O [bfRejectCount_].
  uint64_t bloom_rejects = 0;
  /// Lookup misses that read their bucket for nothing: the filter said maybe (or there is no
  /// filter) [bfFalsePositiveCount_].
  uint64_t bloom_false_positive_reads = 0;
  /// Filter rebuilds: inserts that evicted, removes [bfRebuildCount_].
  uint64_t bloom_rebuilds = 0;
};

/// Navy's BigHash on the queue contract of engine/queue.h (see the file comment). The policy's
/// priorities are ignored. Not thread-safe.
class BigHashQueue {
 public:
  /// prev and next link each bucket's FIFO; slot holds the bucket (it locates the object).
  static constexpr unsigned kOrderWords = 2;

  /// Builds ⌊C/B⌋ empty buckets with empty filters from ctx (BigHashConfig::from of
  /// ctx.framework.params). Throws std::invalid_argument naming the key and a value that works
  /// when a key is bad, B is not a multiple of the device's logical block, or C holds no bucket
  /// or more than 2^32.
  explicit BigHashQueue(const QueueContext& ctx)
      : BigHashQueue(ctx, BigHashConfig::from(ctx.framework.params)) {}

  BigHashQueue(const QueueContext& ctx, const BigHashConfig& config)
      : table_(ctx.table),
        device_(ctx.device),
        sink_(ctx.sink),
        base_(ctx.device_offset),
        placement_(ctx.placement(0, {"buckets"})),
        bucket_bytes_(config.bucket_bytes),
        capacity_(config.bucket_bytes - kBigHashBucketHeaderBytes),
        buckets_(bighash_buckets(config, ctx.capacity_bytes, ctx.device.logical_block_bytes())),
        bloom_on_(config.bloom_filter_bits > 0),
        bloom_(bloom_on_ ? buckets_ : 1, kBigHashBloomHashes,
               bloom_on_ ? config.bloom_filter_bits / kBigHashBloomHashes : 1),
        heads_(buckets_, kNoHandle),
        fill_(buckets_, 0) {
    // Counted filters (bighash_bloom.h): a key leaves its filter in O(hashes), and the filter
    // is still the union of the bucket's keys' bits, as navy's rebuild makes it.
    if (bloom_on_) bloom_.enable_counting();
  }

  BigHashQueue(const BigHashQueue&) = delete;
  BigHashQueue& operator=(const BigHashQueue&) = delete;

  // ---- the queue contract (engine/queue.h) ----

  /// Whether an object of `size` bytes (key + value) fits an empty bucket: size + 20 ≤ B − 24.
  bool admits(uint32_t size) const {
    return uint64_t{size} + kBigHashEntryOverheadBytes <= capacity_;
  }
  /// Eviction depends on the object's bucket, which the queue learns only at insert().
  Handle victim(uint32_t) const { return kNoHandle; }
  /// Eviction happens inside insert().
  void make_room(uint32_t) {}

  /// Navy's insert: read the bucket, evict its oldest entries until h fits, append h, update
  /// the filter, write the bucket; then report the victims to the sink, oldest first.
  /// REQUIRES: admits(size of h); h's key is not in the queue. `p` is ignored.
  void insert(Handle h, double /*p*/) {
    const uint64_t key = table_[h].key;
    const uint32_t size = table_[h].size_bytes;
    const uint64_t kh = key_hash(key);
    const uint32_t b = bucket_of_hash(kh);
    const uint64_t offset = base_ + uint64_t{b} * bucket_bytes_;
    read_bucket(offset);
    // Bucket::makeSpace: how many of the oldest entries must go for h's slot to fit.
    const uint32_t need = size + kBigHashEntryOverheadBytes;
    uint32_t victims = 0;
    uint32_t free = capacity_ - fill_[b];
    for (Handle x = heads_[b]; free < need; x = table_[x].next) {
      free += table_[x].size_bytes + kBigHashEntryOverheadBytes;
      ++victims;
    }
    // The filter is fixed before the write (BigHash.cpp:346-353); it is DRAM, so doing it after
    // the victims leave is the same.
    device_.write(offset, bucket_bytes_, placement_);
    ++engine_.bucket_rewrites;
    engine_.flash_bytes_written += bucket_bytes_;
    for (uint32_t i = 0; i < victims; ++i) evict_head(b);
    table_[h].slot = b;
    link_back(b, h);
    fill_[b] += need;
    used_ += size;
    if (bloom_on_) {
      if (victims == 0) {
        bloom_.set(b, kh);
      } else if (bloom_.counts_exact(b)) {
        // The victims were erased by evict_head: the rebuild's result.
        ++engine_.bloom_rebuilds;
        bloom_.set(b, kh);
      } else {
        rebuild_filter(b);
      }
    }
    ++engine_.inserts;
    engine_.logical_bytes_written += size;
    counters_.placed_bytes += size;
    counters_.placed_objects++;
  }

  void increase(Handle, double) {}
  double priority(Handle) const { return 0; }

  /// A hit reads h's whole bucket: one device read of B bytes at its offset.
  /// REQUIRES: h queued.
  [[gnu::always_inline]] void read_hit(Handle h) {
    read_bucket(base_ + uint64_t{table_[h].slot} * bucket_bytes_);
  }

  /// Every hit: counts it, and its filter probe (which passes: the key is in the bucket).
  void on_hit(Handle) {
    ++engine_.hits;
    if (bloom_on_) ++engine_.bloom_lookups;
  }

  /// A get of a key that is not cached: its bucket's filter is probed; on "maybe" (or with no
  /// filter) the bucket is read and the key is not there, a false-positive read.
  void on_lookup_miss(uint64_t key) {
    ++engine_.lookup_misses;
    const uint64_t kh = key_hash(key);
    const uint32_t b = bucket_of_hash(kh);
    if (bloom_on_) {
      ++engine_.bloom_lookups;
      if (!bloom_.could_exist(b, kh)) {
        ++engine_.bloom_rejects;
        return;
      }
    }
    read_bucket(base_ + uint64_t{b} * bucket_bytes_);
    ++engine_.bloom_false_positive_reads;
  }

  /// Navy's remove of a cached key (a delete, or the old copy of a replaced key): the filter
  /// passes, the bucket is read, the entry dropped, the filter rebuilt, the bucket written.
  /// The cache removes h from the ObjectTable itself. REQUIRES: h queued.
  void remove(Handle h) {
    const uint32_t b = table_[h].slot;
    const uint32_t size = table_[h].size_bytes;
    const uint64_t offset = base_ + uint64_t{b} * bucket_bytes_;
    if (bloom_on_) ++engine_.bloom_lookups;
    read_bucket(offset);
    unlink(b, h);
    fill_[b] -= size + kBigHashEntryOverheadBytes;
    used_ -= size;
    if (bloom_on_ && bloom_.counts_exact(b)) {  // the rebuild's result without walking the bucket
      ++engine_.bloom_rebuilds;
      bloom_.erase(b, key_hash(table_[h].key));
    } else if (bloom_on_) {
      rebuild_filter(b);
    }
    device_.write(offset, bucket_bytes_, placement_);
    ++engine_.bucket_rewrites;
    engine_.flash_bytes_written += bucket_bytes_;
    ++engine_.removes;
    counters_.superseded_bytes += size;
  }

  /// Bytes of the cached objects (their sizes, without navy's per-entry overhead).
  uint64_t used_bytes() const { return used_; }
  bool places_objects() const { return true; }
  const FrameworkCounters& counters() const { return counters_; }
  const BigHashCounters& engine_counters() const { return engine_; }

  /// DRAM navy's BigHash keeps for its index (docs/reference/navy-spec.md §9.3): one filter per
  /// bucket, numBuckets × bitsToBytes(4 × bits/4) bytes (8 B per bucket by default); 0 without a
  /// filter. Navy keeps nothing per object.
  uint64_t modelled_dram_index_bytes() const {
    return bloom_on_ ? buckets_ * bloom_.filter_bytes() : 0;
  }

  /// The simulator's index-map DRAM outside the entries: the Bloom filters (what navy looks a
  /// key up in before flash).
  size_t index_bytes() const { return bloom_on_ ? bloom_.memory_bytes() : 0; }
  /// The simulator's queue structure: each bucket's FIFO head and slot bytes in use.
  size_t queue_bytes() const {
    return heads_.capacity() * sizeof(Handle) + fill_.capacity() * sizeof(uint32_t);
  }

  // ---- introspection, for tests and results ----

  /// navy's keyHash in this model: mix64 (engine/key_hash.h; see the file comment).
  static uint64_t key_hash(uint64_t key) { return mix64(key); }
  /// The bucket of `key`: keyHash mod the bucket count.
  uint32_t bucket_of(uint64_t key) const { return bucket_of_hash(key_hash(key)); }
  uint64_t bucket_count() const { return buckets_; }
  uint32_t bucket_bytes() const { return bucket_bytes_; }
  /// The bytes of a bucket entries may take: B − 24.
  uint32_t bucket_capacity() const { return capacity_; }
  /// Slot bytes in use in bucket b: Σ (size + 20) over its entries.
  uint32_t bucket_fill(uint32_t b) const { return fill_[b]; }
  /// The keys of bucket b, oldest first. O(entries).
  std::vector<uint64_t> bucket_keys(uint32_t b) const {
    std::vector<uint64_t> keys;
    const Handle head = heads_[b];
    if (head == kNoHandle) return keys;
    Handle x = head;
    do {
      keys.push_back(table_[x].key);
      x = table_[x].next;
    } while (x != head);
    return keys;
  }
  /// Whether the filter of key's bucket says "maybe" (true without a filter).
  bool bloom_may_contain(uint64_t key) const {
    const uint64_t kh = key_hash(key);
    return !bloom_on_ || bloom_.could_exist(bucket_of_hash(kh), kh);
  }
  /// Bits set in bucket b's filter (0 without a filter).
  uint32_t bloom_bits_set(uint32_t b) const { return bloom_on_ ? bloom_.bits_set(b) : 0; }
  bool bloom_enabled() const { return bloom_on_; }

  /// Recomputes every bucket's fill, links, slots and filter from the entries; returns the
  /// first inconsistency, or "" when there is none. O(buckets + objects): for tests.
  std::string check_invariants() const {
    uint64_t used = 0;
    std::vector<uint64_t> hashes;  // the key hashes of bucket b
    for (uint64_t b = 0; b < buckets_; ++b) {
      const Handle head = heads_[b];
      uint64_t fill = 0;
      if (head != kNoHandle) {
        Handle x = head;
        uint64_t n = 0;
        do {
          const ObjectEntry& e = table_[x];
          if (e.slot != b) return "entry in the wrong bucket " + std::to_string(b);
          if (bucket_of(e.key) != b) return "key hashed to another bucket " + std::to_string(b);
          if (table_[e.next].prev != x) return "broken links in bucket " + std::to_string(b);
          if (!bloom_may_contain(e.key))
            return "Bloom false negative in bucket " + std::to_string(b);
          hashes.push_back(key_hash(e.key));
          fill += e.size_bytes + kBigHashEntryOverheadBytes;
          used += e.size_bytes;
          x = e.next;
          if (++n > table_.size()) return "cycle without the head in bucket " + std::to_string(b);
        } while (x != head);
      }
      if (fill != fill_[b]) return "fill mismatch in bucket " + std::to_string(b);
      if (bloom_on_ && !bloom_.equals_rebuilt(b, hashes)) {
        return "filter of bucket " + std::to_string(b) + " differs from one rebuilt from its keys";
      }
      hashes.clear();
      if (fill > capacity_) return "bucket over capacity " + std::to_string(b);
    }
    if (used != used_) return "used bytes mismatch";
    return "";
  }

 private:
  uint32_t bucket_of_hash(uint64_t kh) const { return static_cast<uint32_t>(kh % buckets_); }

  void read_bucket(uint64_t offset) {
    device_.read(offset, bucket_bytes_);
    ++engine_.bucket_reads;
    engine_.flash_bytes_read += bucket_bytes_;
  }

  // Appends h at the back (newest end) of bucket b's circular list.
  void link_back(uint32_t b, Handle h) {
    ObjectEntry& e = table_[h];
    const Handle head = heads_[b];
    if (head == kNoHandle) {
      e.prev = e.next = h;
      heads_[b] = h;
      return;
    }
    const Handle tail = table_[head].prev;
    e.prev = tail;
    e.next = head;
    table_[tail].next = h;
    table_[head].prev = h;
  }

  void unlink(uint32_t b, Handle h) {
    ObjectEntry& e = table_[h];
    if (e.next == h) {
      heads_[b] = kNoHandle;
    } else {
      table_[e.prev].next = e.next;
      table_[e.next].prev = e.prev;
      if (heads_[b] == h) heads_[b] = e.next;
    }
    e.prev = e.next = kNoHandle;
  }

  // Evicts bucket b's oldest entry: the sink sees it while it is still queued, then it is
  // unlinked, counted and removed from the ObjectTable (engine/queue.h's protocol).
  void evict_head(uint32_t b) {
    const Handle h = heads_[b];
    sink_.before_evict(h);
    const uint32_t size = table_[h].size_bytes;
    if (bloom_on_) bloom_.erase(b, key_hash(table_[h].key));
    unlink(b, h);
    fill_[b] -= size + kBigHashEntryOverheadBytes;
    used_ -= size;
    counters_.evicted_objects++;
    counters_.evicted_bytes += size;
    table_.remove(h);
  }

  // bfRebuild: clear the filter and add every key in the bucket.
  void rebuild_filter(uint32_t b) {
    ++engine_.bloom_rebuilds;
    bloom_.clear(b);
    const Handle head = heads_[b];
    if (head == kNoHandle) return;
    Handle x = head;
    do {
      bloom_.set(b, key_hash(table_[x].key));
      x = table_[x].next;
    } while (x != head);
  }

  ObjectTable& table_;
  Device& device_;
  EvictionSink sink_;
  uint64_t base_;       // ctx.device_offset: bucket b is at base_ + b·B
  uint32_t placement_;  // the FDP placement handle of its one data class, buckets
  uint32_t bucket_bytes_;
  uint32_t capacity_;  // B − 24: the bytes entries may take
  uint64_t buckets_;
  bool bloom_on_;
  BucketBloomFilters bloom_;    // one filter per bucket (a 1-byte stub when off)
  std::vector<Handle> heads_;   // by bucket: the oldest entry, or kNoHandle
  std::vector<uint32_t> fill_;  // by bucket: slot bytes in use
  uint64_t used_ = 0;
  FrameworkCounters counters_;
  BigHashCounters engine_;
};

/// The `bighash` framework as registered (engine/framework.h); its keys: BigHashConfig.
struct BigHashFramework {
  static const ComponentSpec& spec();
  /// Decodes the keys it reads, to check them. Throws std::invalid_argument.
  static void check(const Params& params) { BigHashConfig::from(params); }
  /// B as the block size, ⌊C/B⌋·B device bytes, and notes on configurations that mislead:
  /// many requests for objects over B − 44 bytes (never cached), no Bloom filter. Throws
  /// std::invalid_argument in unit-size mode (BigHash lays out bytes) and as bighash_buckets().
  static FrameworkLayout layout(const Params& params, const CacheShape& shape);
  static constexpr bool kHasQueue = true;
  static constexpr bool kEngine = true;
  template <class P>
  using Queue = BigHashQueue;
};

}  // namespace flashpq
