// engine/kangaroo/kangaroo_queue.h — Kangaroo (McAllister, Berg, Tutuncu-Macias, Yang, Gunasekar,
// Lu, Gibbons, Beckmann, Ganger, Berger, Zhou; "Kangaroo: Caching Billions of Tiny Objects on
// Flash", SOSP'21) as a FlashPQ framework: a small log-structured cache, KLog, in front of a
// large set-associative cache, KSet. Objects enter KLog; when KLog cleans a segment, the
// objects of a set move to KSet together, in one set rewrite, but only when at least n of them
// are in KLog (threshold admission); within a set, RRIParoo chooses what to evict.
//
// Sources: docs/reference/kangaroo-spec.md (§ below), which cites
//   [S] github.com/saramcallister/Kangaroo at 48397846af0b838a0431977bc7a4a2e1493fe181, the
//       simulator of the paper's simulation figures (simulator/);
//   [C] github.com/saramcallister/CacheLib-1, branch artifact-eval-kangaroo-upstream, at
//       a3706e08012780eac98d588d02de8977a43a2586, the on-flash implementation
//       (cachelib/navy/kangaroo/, paths below relative to it);
//   [P] the paper (its behaviour is taken where [S] and [C] differ, as the brief asks).
//
// Geometry (§1.1, §1.2, §2.1; engine/kangaroo/kangaroo_config.h). MODELLING CHOICE (the
// brief's layout, not [C]'s, which puts the sets first): the log area is at offset 0,
// ⌊C·log_pct/100⌋ rounded down to P partitions of N whole segments (N >= 2); partition p,
// segment slot i is at (p·N + i)·segment_bytes, its page j at + j·page_bytes (a partition is a
// contiguous circular log, [C] KangarooLog.h:102-105). The set area follows: ⌊(C − log)/S⌋ sets
// of S bytes, set s at log_bytes + s·S. A key's set is keyHash mod the set count ([C]
// Kangaroo.h:138-139); keyHash is FlashPQ's mix64(key), as BigHash's (engine/bighash/
// bighash_queue.h says why); a set's log objects live in partition set mod P (MODELLING
// CHOICE: [C]'s (set mod entries mod P_index) mod P_phys, KangarooLog.h:107-115, reduces to it
// when the index partitions are a multiple of P, as [C] requires).
//
// On-flash formats ([C], §1.2, §2.1): a log page and a set each start with a 24-byte header;
// a log entry costs size + 6 bytes (2-byte slot + 4-byte LogBucketEntry, LogBucket.cpp:15-50),
// a set entry size + 14 (2-byte slot {rrip:3, size:13} + 12-byte RripBucketEntry,
// RripBucket.cpp:16-57), where size = key + value = the FlashPQ object size. admits(): the
// object fits an empty page and an empty set.
//
// Per request (§6.2, the spec's pseudo-code):
//   * insert (a get miss, or a set): pre-log random admission first (§3; [P] table 90 %):
//     one draw u = RngStream(ctx.seed, kKangarooAdmissionStream).uniform() per insert, admitted
//     iff u < p ([S] admission/random_admission.hpp:15-40 draws its own LCG). A refused object is
//     not cached: the Cache has already added it to the ObjectTable, so insert() evicts it at
//     once through ctx.sink (the policy sees a victim) and counts it in
//     KangarooCounters::admission_rejections — not as placed, not as evicted, no I/O.
//     An admitted object goes first-fit into the DRAM buffer of its partition's open segment,
//     page by page ([C] KangarooLogSegment.cpp:41-64); if no page has room, the buffer is
//     written whole (device.write(segment offset, segment_bytes), [C] KangarooLog.cpp:47-67)
//     and the ring advances to the next slot; if that slot holds a segment written before, it
//     is cleaned first (below). Then the object is placed (a loop: readmissions may refill the
//     buffer; it ends since readmitted objects restart at 0 hits).
//   * MODELLING CHOICE — when to clean: when the ring wraps onto a written segment, i.e. when
//     the log is full ([S] rotating_log.cpp:43-66), not [C]'s background cleaner at 10 % free
//     segments (KangarooLog.h:148, .cpp:214-222). The log holds N − 1 segments on flash plus
//     the DRAM buffer.
//   * cleaning a segment (§1.4; [C] KangarooLog.cpp:324-371): one device read of the whole
//     segment (readLogSegment, l.327), then its live objects in on-flash order (page by page,
//     each page in append order; [C] KangarooLogSegment iterators). For each object o still in
//     it: count the live log objects of o's set, wherever they are (the buffer included; exact
//     per-set counts, the spec's "use per-set counts", not [C]'s aliased chains).
//       - count < n: o is readmitted if it has >= readmit_hits KLog hits and the open buffer has
//         room ([C] l.357-364, readmit l.506-528: "only if the current segment has room"),
//         else dropped (evicted). Its set-mates stay where they are.
//       - count >= n: the whole group moves (moveBucket, l.241-322): one device read of the
//         page of every member that is on flash in another segment (l.273-286; MODELLING
//         CHOICE as the spec states: members in the segment being cleaned, already read, and
//         in the DRAM buffer cost nothing; one read per object, not per distinct page), then
//         one set rewrite (below). The group is in the order its members entered the log
//         ([C] ChainedLogIndex::insert appends at the chain's tail, l.118-140, and a
//         readmission keeps its entry in place).
//     A readmitted object restarts at 0 KLog hits ([C] readmit: index insert with 0 hits;
//     [S] rotating_log.cpp:141,166) and costs no write of its own: it is in the next segment.
//   * set rewrite (§2.4; [C] Kangaroo.cpp:150-218): device read of the set (S bytes), fold the
//     DRAM hit bits, age, then for each member in group order: insertion RRPV
//     r = max(0, 2^b − 2 − hits) ([C] RripBucket.h:111-117, [S] rrip_sets.cpp:73-78); if it
//     fits after evicting only objects of RRPV >= r from the front (isSpace, RripBucket.cpp:
//     143-162: walking from the front, free space plus those objects' entries, failing at an
//     object of RRPV < r or at the end), evict from the front until it fits (makeSpace,
//     l.164-193; victims through ctx.sink) and insert it after every object of RRPV >= r
//     (ties FIFO, RripBucketStorage.cpp:14-48); otherwise it is refused: a member from another
//     segment or the buffer stays in KLog (no write, l.305-306), one from the segment being
//     cleaned is readmitted (>= readmit_hits hits, room) or dropped. Then one device write of
//     the set (even if every member was refused, as [C] l.191 and [S] count), and its Bloom
//     filter is rebuilt. A set keeps its objects sorted by RRPV, highest first.
//   * RRIParoo ([P]; spec's "Recommended for FlashPQ"): a KSet hit sets the object's DRAM hit
//     bit (one per object: MODELLING CHOICE, the paper's 1 bit/object, not [C]'s 16-object
//     quirk RripBitVector.cpp:12). At every rewrite of the set (a move or a remove) the hit
//     objects go to RRPV 0 behind all others, in their order ([C] reorder, RripBucket.cpp:
//     211-248), the bits are cleared, and then, if the highest RRPV m is below 2^b − 1, every
//     object's RRPV rises by 2^b − 1 − m. PAPER, NOT CODE: [C] computes the target as
//     `uint8_t highestValue = 1 << 3 - 1;` = 4 (RripBucket.h:119-125: − binds tighter than <<),
//     so it ages only sets whose non-hit objects are all <= 4, and only up to 4; here the
//     highest RRPV becomes 2^b − 1, as [S] (rrip_sets.cpp:32-50) and the paper do.
//   * log hit: the object's 3-bit KLog hit counter rises, saturating at 7
//     ([C] ChainedLogIndexEntry.h:31); read_hit reads its page (page_bytes at its offset), or
//     nothing while it is in the DRAM buffer. Nothing moves.
//   * set hit: read_hit reads the set (S bytes); on_hit sets the hit bit.
//   * get miss (on_lookup_miss): the KLog index is DRAM (no I/O); the set's Bloom filter is
//     probed: "no" → nothing, "maybe" → one set read for nothing (bloom_false_positive_reads,
//     [C] Kangaroo.cpp:415-434). No filter (0 bits): every miss reads its set.
//   * remove (a delete, or the old copy of a replaced key): a log object leaves the index (no
//     I/O, [C] KangarooLog.cpp:530-579; its bytes stay dead in its segment); a set object costs
//     a read, the fold and aging of a rewrite, and a write of its set, plus a filter rebuild
//     ([C] Kangaroo.cpp:441-499). A FlashPQ set of a cached key is remove() then insert().
// The Bloom filter: engine/bighash/bighash_bloom.h (CacheLib's BloomFilter, 4 hash functions of
// bits/4 each), all zero at start, rebuilt from the set's keys at every set write: a filter is
// always exactly the union of its set's keys' bits. The simulator keeps that union by counts per
// bit (keys added as they enter a set, erased as they leave), without walking the set at each
// write; check_invariants() compares every filter with one rebuilt from its keys.
//
// Counters. FrameworkCounters: placed = admitted to KLog, plus readmissions (also reinsertions;
// the old copy superseded); a move KLog→KSet is internal (the object stays cached; counted in
// moved_to_sets); evicted = RRIParoo victims + objects dropped at cleaning; superseded =
// removes + readmitted copies; dram_buffer_bytes = P segment buffers. Admission rejections are
// in neither (they were never cached). KangarooCounters: flash_bytes_written =
// log_bytes_written (segment_bytes per segment written) + set_bytes_written (S per set rewrite,
// moves and removes); application write amplification (spec §5) = flash_bytes_written /
// admitted_bytes.
//
// DRAM. modelled_dram_index_bytes(): the paper's accounting ([P] §5.2 table, spec §4.1):
//   ⌈(48·KLog objects + 1·KSet objects + (16 + bloom bits)·sets) / 8⌉ bytes
// — a 48-bit KLog index entry per log object (offset 19, tag 9, next 16, hits 3, valid 1),
// one DRAM hit bit per KSet object (RRIParoo), a 16-bit chain head per set ([C]'s chains ≈ sets,
// ChainedLogIndex.h:121 uint16_t heads) and each set's Bloom filter. RRPVs are on flash.
// The simulator's own DRAM: prev/next order each object in its list (kOrderWords = 2): a set's
// list by RRPV, a flash segment's in on-flash order, a buffer page's in append order; slot
// locates it (see kLog below); a 4-byte word per handle (aux_, grown as the ObjectTable's slab
// is) chains a set's log objects; per set: list head, chain head, fill; per segment slot: list
// head, written flag; per partition: the buffer's page lists and free bytes.
//
// Not modelled: [C]'s 9-bit tags (tag collisions: overwritten index entries, false page reads —
// the index here is exact); [C]'s index partitions aliasing chains (exact per-set counts);
// concurrency and the background cleaner (cleaning is synchronous, on wrap); checksums,
// generations, persistence; [C]'s 13-bit slot size limit; the DRAM cache in front of KLog
// ([S]'s MemLogSetsCache: a hierarchy's DRAM tier plays that part, engine/tiers.h); TTLs;
// [S]'s EVICT_SET_LIMIT (16000 B moved per set, constants.hpp:24: more than a set holds).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "devices/device.h"
#include "engine/bighash/bighash_bloom.h"
#include "engine/kangaroo/kangaroo_config.h"
#include "engine/key_hash.h"
#include "engine/object_table.h"
#include "engine/queue.h"
#include "sim/rng.h"

namespace flashpq {

/// Kangaroo's own metrics. Bytes and counts since construction.
struct KangarooCounters {
  /// Every byte written to the device: log_bytes_written + set_bytes_written.
  uint64_t flash_bytes_written = 0;
  /// Whole segments written (segment_bytes each).
  uint64_t log_bytes_written = 0;
  /// Whole sets written (S each): moves and removes.
  uint64_t set_bytes_written = 0;
  /// Every byte read from the device: segments cleaned, pages (log hits, group members), sets
  /// (hits, false positives, rewrites, removes).
  uint64_t flash_bytes_read = 0;
  /// Segments written and cleaned.
  uint64_t log_segments_written = 0;
  uint64_t segments_cleaned = 0;
  /// Set writes (each a read-modify-write): every KLog→KSet move and every remove of a KSet
  /// object. set_bytes_written = set_rewrites × S.
  uint64_t set_rewrites = 0;
  /// The set rewrites that were KLog→KSet moves (the rest are removes).
  uint64_t group_moves = 0;
  /// Objects appended to KLog by insert (after admission) and their bytes (key + value): the
  /// application bytes of the write amplification.
  uint64_t admitted_objects = 0;
  uint64_t admitted_bytes = 0;
  /// Inserts the pre-log random admission refused (not cached), and their bytes.
  uint64_t admission_rejections = 0;
  uint64_t admission_rejected_bytes = 0;
  /// Objects moved KLog→KSet, and their bytes.
  uint64_t moved_to_sets = 0;
  uint64_t moved_bytes = 0;
  /// Cleaned objects whose set had fewer than n log objects.
  uint64_t below_threshold = 0;
  /// Objects that left the cache at cleaning (below threshold or refused by their set, and not
  /// readmitted), and their bytes.
  uint64_t dropped_at_cleaning = 0;
  uint64_t dropped_bytes = 0;
  /// Objects re-appended to KLog at cleaning, their bytes, and those that qualified but found
  /// the open buffer full (then dropped).
  uint64_t readmissions = 0;
  uint64_t readmitted_bytes = 0;
  uint64_t readmit_failures = 0;
  /// Group members a set refused (no room without evicting a lower RRPV).
  uint64_t set_refusals = 0;
  /// Objects RRIParoo evicted from sets.
  uint64_t set_evictions = 0;
  /// Pages read for group members on flash in other segments.
  uint64_t group_page_reads = 0;
  /// Hits in KLog and in KSet; gets that found nothing.
  uint64_t log_hits = 0;
  uint64_t set_hits = 0;
  uint64_t lookup_misses = 0;
  /// Misses the set's filter rejected (no I/O), and misses that read the set for nothing.
  uint64_t bloom_rejects = 0;
  uint64_t bloom_false_positive_reads = 0;
  /// Removes of KLog objects (no I/O) and of KSet objects (a set rewrite).
  uint64_t log_removes = 0;
  uint64_t set_removes = 0;
};

/// Kangaroo on the queue contract of engine/queue.h (see the file comment). The policy's
/// priorities are ignored. Not thread-safe.
class KangarooQueue {
 public:
  /// prev and next order each object within its list; slot locates it.
  static constexpr unsigned kOrderWords = 2;

  /// Builds the log and the sets of kangaroo_geometry() from ctx (KangarooConfig::from of
  /// ctx.framework.params). Throws std::invalid_argument naming the key and a value that works
  /// when a key is bad or C does not hold the geometry.
  explicit KangarooQueue(const QueueContext& ctx)
      : KangarooQueue(ctx, KangarooConfig::from(ctx.framework.params)) {}

  KangarooQueue(const QueueContext& ctx, const KangarooConfig& config)
      : table_(ctx.table),
        device_(ctx.device),
        sink_(ctx.sink),
        base_(ctx.device_offset),
        placement_klog_(ctx.placement(0, {"klog", "kset"})),
        placement_kset_(ctx.placement(1, {"klog", "kset"})),
        geo_(kangaroo_geometry(config, ctx.capacity_bytes, ctx.device.logical_block_bytes())),
        segments_(geo_.segments_per_partition),
        pps_(geo_.pages_per_segment),
        page_capacity_(geo_.page_bytes - kKangarooHeaderBytes),
        set_capacity_(geo_.set_bytes - kKangarooHeaderBytes),
        threshold_(config.threshold),
        rrpv_max_((1u << config.rrip_bits) - 1),
        readmit_hits_(config.readmit_hits),
        admission_probability_(config.admission_probability),
        bloom_bits_(config.bloom_filter_bits),
        bloom_on_(config.bloom_filter_bits > 0),
        rng_(ctx.seed, kKangarooAdmissionStream),
        bloom_(bloom_on_ ? geo_.sets : 1, kKangarooBloomHashes,
               bloom_on_ ? config.bloom_filter_bits / kKangarooBloomHashes : 1),
        set_head_(geo_.sets, kNoHandle),
        log_head_(geo_.sets, kNoHandle),
        set_fill_(geo_.sets, 0),
        seg_head_(uint64_t{geo_.partitions} * segments_, kNoHandle),
        written_(uint64_t{geo_.partitions} * segments_, 0),
        page_head_(uint64_t{geo_.partitions} * pps_, kNoHandle),
        page_free_(uint64_t{geo_.partitions} * pps_, page_capacity_),
        open_slot_(geo_.partitions, 0) {
    counters_.dram_buffer_bytes = uint64_t{geo_.partitions} * geo_.segment_bytes;
    // Counted filters (engine/bighash/bighash_bloom.h): keys enter and leave a set's filter as
    // they enter and leave the set, so at every write it is the union of the set's keys' bits —
    // the rebuild's result — without walking the set.
    if (bloom_on_) bloom_.enable_counting();
  }

  KangarooQueue(const KangarooQueue&) = delete;
  KangarooQueue& operator=(const KangarooQueue&) = delete;

  /// The largest object (key + value) a page and a set of `config` both hold:
  /// min(page − 24 − 6, S − 24 − 14).
  static uint32_t max_object_bytes(const KangarooConfig& config) {
    return std::min(config.page_bytes - kKangarooHeaderBytes - kKangarooLogEntryOverheadBytes,
                    config.set_bytes - kKangarooHeaderBytes - kKangarooSetEntryOverheadBytes);
  }

  // ---- the queue contract (engine/queue.h) ----

  /// Whether an object of `size` bytes fits an empty log page and an empty set.
  bool admits(uint32_t size) const {
    return uint64_t{size} + kKangarooLogEntryOverheadBytes <= page_capacity_ &&
           uint64_t{size} + kKangarooSetEntryOverheadBytes <= set_capacity_;
  }
  /// Eviction depends on the log's cleaning, which the queue runs only at insert().
  Handle victim(uint32_t) const { return kNoHandle; }
  /// Eviction happens inside insert().
  void make_room(uint32_t) {}

  /// Pre-log admission, then an append to the open segment of h's partition (flushing the
  /// buffer and cleaning the next segment when no page has room). A refused h is evicted at once
  /// through the sink. REQUIRES: admits(size of h); h's key is not in the queue. `p` ignored.
  void insert(Handle h, double /*p*/) {
    const uint32_t size = table_[h].size_bytes;
    if (!(rng_.uniform() < admission_probability_)) {
      ++engine_.admission_rejections;
      engine_.admission_rejected_bytes += size;
      sink_.before_evict(h);
      table_.remove(h);
      return;
    }
    if (h >= aux_.size()) grow_for_handle(aux_, h);
    const uint64_t s = set_of(table_[h].key);
    const uint32_t p = partition_of_set(s);
    const uint32_t need = size + kKangarooLogEntryOverheadBytes;
    uint32_t page;
    while (!first_fit(p, need, &page)) flush_and_advance(p);
    place_in_buffer(h, p, page, need, 0);
    chain_append(s, h);
    ++log_objects_;
    used_ += size;
    ++engine_.admitted_objects;
    engine_.admitted_bytes += size;
    counters_.placed_bytes += size;
    counters_.placed_objects++;
  }

  void increase(Handle, double) {}
  double priority(Handle) const { return 0; }

  /// A hit reads h's log page (nothing while it is in the DRAM buffer) or h's whole set.
  /// REQUIRES: h queued.
  void read_hit(Handle h) {
    const uint32_t slot = table_[h].slot;
    if (slot & kLog) {
      if (!(slot & kBuffered)) read_page(slot & kPageMask);
    } else {
      read_set(set_of(table_[h].key));
    }
  }

  /// Every hit: a log object's hit counter rises (saturating at 7); a set object's hit bit is
  /// set (folded into its RRPV at the set's next rewrite).
  void on_hit(Handle h) {
    uint32_t& slot = table_[h].slot;
    if (slot & kLog) {
      ++engine_.log_hits;
      if (hits_of(slot) < kKangarooLogHitMax) slot += 1u << kHitsShift;
    } else {
      ++engine_.set_hits;
      slot |= kHitBit;
    }
  }

  /// A get of a key that is not cached: the KLog index (DRAM) has nothing; the set's filter is
  /// probed, and on "maybe" (or with no filter) the set is read for nothing.
  void on_lookup_miss(uint64_t key) {
    ++engine_.lookup_misses;
    const uint64_t kh = key_hash(key);
    const uint64_t s = kh % geo_.sets;
    if (bloom_on_ && !bloom_.could_exist(s, kh)) {
      ++engine_.bloom_rejects;
      return;
    }
    read_set(s);
    ++engine_.bloom_false_positive_reads;
  }

  /// Drops h: from KLog's index (no I/O), or from its set by a rewrite (read, fold and age,
  /// write, filter rebuilt). The cache removes h from the ObjectTable. REQUIRES: h queued.
  void remove(Handle h) {
    const uint32_t size = table_[h].size_bytes;
    const uint64_t s = set_of(table_[h].key);
    if (table_[h].slot & kLog) {
      unlink(list_head_of(h), h);
      chain_remove(s, h);
      --log_objects_;
      ++engine_.log_removes;
    } else {
      read_set(s);
      fold_hits_and_age(s);
      unlink(set_head_[s], h);
      if (bloom_on_) bloom_.erase(s, key_hash(table_[h].key));
      set_fill_[s] -= size + kKangarooSetEntryOverheadBytes;
      --set_objects_;
      write_set(s);
      ++engine_.set_removes;
    }
    used_ -= size;
    counters_.superseded_bytes += size;
  }

  /// Bytes of the cached objects (their sizes, without the per-entry overhead).
  uint64_t used_bytes() const { return used_; }
  bool places_objects() const { return true; }
  const FrameworkCounters& counters() const { return counters_; }
  const KangarooCounters& engine_counters() const { return engine_; }

  /// DRAM Kangaroo keeps for its index by the paper's accounting (see the file comment):
  /// ⌈(48·log objects + 1·set objects + (16 + bloom bits)·sets) / 8⌉ bytes.
  uint64_t modelled_dram_index_bytes() const {
    return (48 * log_objects_ + set_objects_ + (16 + uint64_t{bloom_bits_}) * geo_.sets + 7) / 8;
  }

  /// The simulator's index-map DRAM outside the entries: the KLog chain links and heads, the
  /// Bloom filters.
  size_t index_bytes() const {
    return aux_.capacity() * sizeof(Handle) + log_head_.capacity() * sizeof(Handle) +
           (bloom_on_ ? bloom_.memory_bytes() : 0);
  }
  /// The simulator's queue structure: set heads and fills, segment heads and flags, the
  /// buffers' page heads and free bytes, the open slots.
  size_t queue_bytes() const {
    return set_head_.capacity() * sizeof(Handle) + set_fill_.capacity() * sizeof(uint32_t) +
           seg_head_.capacity() * sizeof(Handle) + written_.capacity() +
           page_head_.capacity() * sizeof(Handle) + page_free_.capacity() * sizeof(uint32_t) +
           open_slot_.capacity() * sizeof(uint32_t);
  }

  // ---- introspection, for tests and results ----

  /// keyHash in this model: mix64 (engine/key_hash.h).
  static uint64_t key_hash(uint64_t key) { return mix64(key); }
  /// The set of `key`: keyHash mod the set count.
  uint64_t set_of(uint64_t key) const { return key_hash(key) % geo_.sets; }
  /// The log partition of set s: s mod P.
  uint32_t partition_of_set(uint64_t s) const { return static_cast<uint32_t>(s % geo_.partitions); }
  const KangarooGeometry& geometry() const { return geo_; }
  uint64_t set_offset(uint64_t s) const { return base_ + geo_.log_bytes + s * geo_.set_bytes; }
  /// The device offset of segment slot i of partition p.
  uint64_t segment_offset(uint32_t p, uint64_t i) const {
    return (uint64_t{p} * segments_ + i) * geo_.segment_bytes;
  }
  /// The slot partition p's DRAM buffer will be written to.
  uint64_t open_slot(uint32_t p) const { return open_slot_[p]; }
  uint64_t log_object_count() const { return log_objects_; }
  uint64_t set_object_count() const { return set_objects_; }
  uint32_t set_fill(uint64_t s) const { return set_fill_[s]; }
  uint32_t set_capacity() const { return set_capacity_; }
  uint32_t page_capacity() const { return page_capacity_; }

  /// One KSet object: its key, RRPV and DRAM hit bit.
  struct SetEntry {
    uint64_t key;
    uint32_t rrpv;
    bool hit;
    bool operator==(const SetEntry&) const = default;
  };
  /// Set s's objects, front (highest RRPV, evicted first) to back.
  std::vector<SetEntry> set_entries(uint64_t s) const {
    std::vector<SetEntry> out;
    for_each_in(set_head_[s], [&](Handle x) {
      out.push_back({table_[x].key, table_[x].slot & kRrpvMask, (table_[x].slot & kHitBit) != 0});
    });
    return out;
  }
  /// The keys of set s's KLog chain, in the order they entered the log.
  std::vector<uint64_t> log_chain(uint64_t s) const {
    std::vector<uint64_t> out;
    for (Handle x = log_head_[s]; x != kNoHandle; x = aux_[x]) out.push_back(table_[x].key);
    return out;
  }
  /// The live keys of flash segment slot i of partition p, in on-flash order.
  std::vector<uint64_t> segment_keys(uint32_t p, uint64_t i) const {
    std::vector<uint64_t> out;
    for_each_in(seg_head_[uint64_t{p} * segments_ + i],
                [&](Handle x) { out.push_back(table_[x].key); });
    return out;
  }
  /// The live keys of partition p's DRAM buffer, page by page.
  std::vector<std::vector<uint64_t>> buffer_pages(uint32_t p) const {
    std::vector<std::vector<uint64_t>> out(pps_);
    for (uint32_t j = 0; j < pps_; ++j) {
      for_each_in(page_head_[uint64_t{p} * pps_ + j],
                  [&](Handle x) { out[j].push_back(table_[x].key); });
    }
    return out;
  }
  /// KLog hits of a log object (REQUIRES: h in KLog).
  uint32_t log_hits(Handle h) const { return hits_of(table_[h].slot); }
  bool in_log(Handle h) const { return (table_[h].slot & kLog) != 0; }
  bool in_buffer(Handle h) const {
    return (table_[h].slot & (kLog | kBuffered)) == (kLog | kBuffered);
  }
  /// Whether set s's filter says "maybe" for key (true without a filter).
  bool bloom_may_contain(uint64_t key) const {
    const uint64_t kh = key_hash(key);
    return !bloom_on_ || bloom_.could_exist(kh % geo_.sets, kh);
  }

  /// Recomputes every list, chain, fill and count from the entries; returns the first
  /// inconsistency, or "" when there is none. O(sets + segments + objects): for tests.
  std::string check_invariants() const {
    uint64_t used = 0, in_sets = 0, in_log_lists = 0, in_chains = 0;
    std::string err;
    const auto fail = [&](const std::string& what, uint64_t where) {
      if (err.empty()) err = what + " " + std::to_string(where);
    };
    std::vector<uint64_t> hashes;  // the key hashes of set s
    for (uint64_t s = 0; s < geo_.sets; ++s) {
      uint64_t fill = 0;
      uint32_t last = rrpv_max_;
      hashes.clear();
      check_list(set_head_[s], fail, s);
      for_each_in(set_head_[s], [&](Handle x) {
        const ObjectEntry& e = table_[x];
        if (e.slot & kLog) fail("log object in set", s);
        if (set_of(e.key) != s) fail("key of another set in set", s);
        const uint32_t r = e.slot & kRrpvMask;
        if (r > last) fail("RRPVs out of order in set", s);
        last = r;
        if (!bloom_may_contain(e.key)) fail("Bloom false negative in set", s);
        hashes.push_back(key_hash(e.key));
        fill += e.size_bytes + kKangarooSetEntryOverheadBytes;
        used += e.size_bytes;
        ++in_sets;
      });
      if (fill != set_fill_[s]) fail("fill mismatch in set", s);
      if (fill > set_capacity_) fail("set over capacity", s);
      if (bloom_on_ && !bloom_.equals_rebuilt(s, hashes)) {
        fail("filter differs from one rebuilt from the keys of set", s);
      }
      for (Handle x = log_head_[s]; x != kNoHandle; x = aux_[x]) {
        if (!(table_[x].slot & kLog)) fail("set object in the KLog chain of set", s);
        if (set_of(table_[x].key) != s) fail("key of another set in the KLog chain of", s);
        if (++in_chains > table_.size()) return "cycle in a KLog chain";
      }
    }
    for (uint64_t g = 0; g < seg_head_.size(); ++g) {
      check_list(seg_head_[g], fail, g);
      if (seg_head_[g] != kNoHandle && !written_[g]) fail("live objects in unwritten slot", g);
      for_each_in(seg_head_[g], [&](Handle x) {
        const uint32_t slot = table_[x].slot;
        if ((slot & (kLog | kBuffered)) != kLog) fail("wrong location bits in segment", g);
        if ((slot & kPageMask) / pps_ != g) fail("object of another segment in segment", g);
        if (partition_of_set(set_of(table_[x].key)) != g / segments_)
          fail("object of another partition in segment", g);
        used += table_[x].size_bytes;
        ++in_log_lists;
      });
    }
    for (uint32_t p = 0; p < geo_.partitions; ++p) {
      const uint64_t g = uint64_t{p} * segments_ + open_slot_[p];
      for (uint32_t j = 0; j < pps_; ++j) {
        uint64_t live = 0;
        check_list(page_head_[uint64_t{p} * pps_ + j], fail, p);
        for_each_in(page_head_[uint64_t{p} * pps_ + j], [&](Handle x) {
          const uint32_t slot = table_[x].slot;
          if ((slot & (kLog | kBuffered)) != (kLog | kBuffered))
            fail("wrong location bits in the buffer of partition", p);
          if ((slot & kPageMask) != g * pps_ + j) fail("wrong page in the buffer of partition", p);
          live += table_[x].size_bytes + kKangarooLogEntryOverheadBytes;
          used += table_[x].size_bytes;
          ++in_log_lists;
        });
        if (live + page_free_[uint64_t{p} * pps_ + j] > page_capacity_)
          fail("page over capacity in partition", p);
      }
    }
    if (!err.empty()) return err;
    if (in_sets != set_objects_) return "set object count mismatch";
    if (in_log_lists != log_objects_ || in_chains != log_objects_)
      return "log object count mismatch";
    if (in_sets + log_objects_ != table_.size()) return "objects outside the queue";
    if (used != used_) return "used bytes mismatch";
    if (counters_.placed_bytes != used_ + counters_.evicted_bytes + counters_.superseded_bytes)
      return "counters out of balance";
    return "";
  }

 private:
  // slot, for a log object: kLog | kBuffered (in the DRAM buffer) | hits << 27 | its page's
  // global index (partition·N + slot)·pages_per_segment + page, whose offset is index ×
  // page_bytes. For a set object: kHitBit | RRPV.
  static constexpr uint32_t kLog = 1u << 31;
  static constexpr uint32_t kBuffered = 1u << 30;
  static constexpr uint32_t kHitBit = 1u << 30;
  static constexpr uint32_t kHitsShift = 27;
  static constexpr uint32_t kHitsMask = 7u << kHitsShift;
  static constexpr uint32_t kPageMask = (1u << kHitsShift) - 1;
  static constexpr uint32_t kRrpvMask = 0xFF;

  static uint32_t hits_of(uint32_t slot) { return (slot & kHitsMask) >> kHitsShift; }
  // The insertion RRPV of an object with `hits` KLog hits: max(0, 2^b − 2 − hits).
  uint32_t insertion_rrpv(uint32_t hits) const {
    return hits + 1 >= rrpv_max_ ? 0 : rrpv_max_ - 1 - hits;
  }

  // ---- I/O ----
  void read_page(uint64_t page) {
    device_.read(base_ + page * geo_.page_bytes, geo_.page_bytes);
    engine_.flash_bytes_read += geo_.page_bytes;
  }
  void read_set(uint64_t s) {
    device_.read(set_offset(s), geo_.set_bytes);
    engine_.flash_bytes_read += geo_.set_bytes;
  }
  // Writes set s whole; its filter is then the union of its keys' bits (kept by counts, or
  // rebuilt when a count overflowed).
  void write_set(uint64_t s) {
    device_.write(set_offset(s), geo_.set_bytes, placement_kset_);
    ++engine_.set_rewrites;
    engine_.set_bytes_written += geo_.set_bytes;
    engine_.flash_bytes_written += geo_.set_bytes;
    if (bloom_on_ && !bloom_.counts_exact(s)) {
      bloom_.clear(s);
      for_each_in(set_head_[s], [&](Handle x) { bloom_.set(s, key_hash(table_[x].key)); });
    }
  }

  // ---- circular doubly linked lists through prev/next ----
  template <class Fn>
  void for_each_in(Handle head, Fn&& fn) const {
    if (head == kNoHandle) return;
    Handle x = head;
    do {
      const Handle next = table_[x].next;
      fn(x);
      x = next;
    } while (x != head);
  }
  template <class Fail>
  void check_list(Handle head, Fail& fail, uint64_t where) const {
    if (head == kNoHandle) return;
    Handle x = head;
    uint64_t n = 0;
    do {
      if (table_[table_[x].next].prev != x) return fail("broken links in list", where);
      x = table_[x].next;
      if (++n > table_.size()) return fail("cycle without the head in list", where);
    } while (x != head);
  }
  void link_back(Handle& head, Handle h) {
    ObjectEntry& e = table_[h];
    if (head == kNoHandle) {
      e.prev = e.next = h;
      head = h;
      return;
    }
    const Handle tail = table_[head].prev;
    e.prev = tail;
    e.next = head;
    table_[tail].next = h;
    table_[head].prev = h;
  }
  // Inserts h just before `pos` (a member of the list); before the head, h becomes the head.
  void link_before(Handle& head, Handle pos, Handle h) {
    const Handle before = table_[pos].prev;
    ObjectEntry& e = table_[h];
    e.prev = before;
    e.next = pos;
    table_[before].next = h;
    table_[pos].prev = h;
    if (pos == head) head = h;
  }
  void unlink(Handle& head, Handle h) {
    ObjectEntry& e = table_[h];
    if (e.next == h) {
      head = kNoHandle;
    } else {
      table_[e.prev].next = e.next;
      table_[e.next].prev = e.prev;
      if (head == h) head = e.next;
    }
    e.prev = e.next = kNoHandle;
  }
  // Appends list `src` to list `dst`; src becomes empty.
  void splice(Handle& dst, Handle& src) {
    if (src == kNoHandle) return;
    if (dst == kNoHandle) {
      dst = src;
    } else {
      const Handle dst_tail = table_[dst].prev, src_tail = table_[src].prev;
      table_[dst_tail].next = src;
      table_[src].prev = dst_tail;
      table_[src_tail].next = dst;
      table_[dst].prev = src_tail;
    }
    src = kNoHandle;
  }
  // The head of the list h is in: its buffer page's, its flash segment's, or its set's.
  Handle& list_head_of(Handle h) {
    const uint32_t slot = table_[h].slot;
    if (slot & kLog) {
      const uint64_t page = slot & kPageMask;
      if (slot & kBuffered) {
        const uint64_t p = page / pps_ / segments_;
        return page_head_[p * pps_ + page % pps_];
      }
      return seg_head_[page / pps_];
    }
    return set_head_[set_of(table_[h].key)];
  }

  // ---- a set's KLog chain through aux_ (singly linked, in the order of entry to the log) ----
  void chain_append(uint64_t s, Handle h) {
    aux_[h] = kNoHandle;
    Handle* link = &log_head_[s];
    while (*link != kNoHandle) link = &aux_[*link];
    *link = h;
  }
  void chain_remove(uint64_t s, Handle h) {
    Handle* link = &log_head_[s];
    while (*link != h) link = &aux_[*link];
    *link = aux_[h];
    aux_[h] = kNoHandle;
  }
  uint32_t chain_count(uint64_t s) const {
    uint32_t n = 0;
    for (Handle x = log_head_[s]; x != kNoHandle; x = aux_[x]) ++n;
    return n;
  }

  // ---- KLog ----
  // The first page of partition p's buffer with `need` bytes free, in *page.
  bool first_fit(uint32_t p, uint32_t need, uint32_t* page) const {
    const uint32_t* free = &page_free_[uint64_t{p} * pps_];
    for (uint32_t j = 0; j < pps_; ++j) {
      if (free[j] >= need) {
        *page = j;
        return true;
      }
    }
    return false;
  }
  // Puts h (its entry taking `need` bytes) at the back of page j of partition p's buffer with
  // `hits` KLog hits. REQUIRES: h in no list; the page has room.
  void place_in_buffer(Handle h, uint32_t p, uint32_t j, uint32_t need, uint32_t hits) {
    const uint64_t idx = uint64_t{p} * pps_ + j;
    page_free_[idx] -= need;
    const uint64_t page = (uint64_t{p} * segments_ + open_slot_[p]) * pps_ + j;
    table_[h].slot = kLog | kBuffered | (hits << kHitsShift) | static_cast<uint32_t>(page);
    link_back(page_head_[idx], h);
  }
  // Writes partition p's buffer to its slot, advances the ring and cleans the next slot if it
  // holds a segment.
  void flush_and_advance(uint32_t p) {
    const uint64_t g = uint64_t{p} * segments_ + open_slot_[p];
    device_.write(base_ + g * geo_.segment_bytes, geo_.segment_bytes, placement_klog_);
    ++engine_.log_segments_written;
    engine_.log_bytes_written += geo_.segment_bytes;
    engine_.flash_bytes_written += geo_.segment_bytes;
    for (uint32_t j = 0; j < pps_; ++j) {
      const uint64_t idx = uint64_t{p} * pps_ + j;
      for_each_in(page_head_[idx], [&](Handle x) { table_[x].slot &= ~kBuffered; });
      splice(seg_head_[g], page_head_[idx]);
      page_free_[idx] = page_capacity_;
    }
    written_[g] = 1;
    open_slot_[p] = static_cast<uint32_t>((open_slot_[p] + 1) % segments_);
    const uint64_t next = uint64_t{p} * segments_ + open_slot_[p];
    if (written_[next]) {
      clean(next);
      written_[next] = 0;
    }
  }
  // Whether log object x qualifies for readmission and partition p's buffer has room: the page
  // in *page. Counts a qualifying object that finds no room.
  bool can_readmit(Handle x, uint32_t p, uint32_t* page) {
    if (readmit_hits_ == 0 || hits_of(table_[x].slot) < readmit_hits_) return false;
    if (first_fit(p, table_[x].size_bytes + kKangarooLogEntryOverheadBytes, page)) return true;
    ++engine_.readmit_failures;
    return false;
  }
  // Moves x from the segment being cleaned (slot g) to page `page` of the open buffer, at 0
  // hits. Its chain position is kept.
  void readmit(Handle x, uint64_t g, uint32_t p, uint32_t page) {
    const uint32_t size = table_[x].size_bytes;
    unlink(seg_head_[g], x);
    place_in_buffer(x, p, page, size + kKangarooLogEntryOverheadBytes, 0);
    ++engine_.readmissions;
    engine_.readmitted_bytes += size;
    counters_.placed_bytes += size;
    counters_.placed_objects++;
    counters_.reinsertions++;
    counters_.reinserted_bytes += size;
    counters_.superseded_bytes += size;  // the copy in the cleaned segment
  }
  // Evicts log object x at cleaning (engine/queue.h's protocol), from its chain too if
  // `in_chain`.
  void drop(Handle x, uint64_t s, bool in_chain) {
    sink_.before_evict(x);
    const uint32_t size = table_[x].size_bytes;
    unlink(list_head_of(x), x);
    if (in_chain) chain_remove(s, x);
    --log_objects_;
    used_ -= size;
    ++engine_.dropped_at_cleaning;
    engine_.dropped_bytes += size;
    counters_.evicted_objects++;
    counters_.evicted_bytes += size;
    table_.remove(x);
  }
  // Cleans flash segment slot g: read it, then each live object in on-flash order.
  void clean(uint64_t g) {
    device_.read(base_ + g * geo_.segment_bytes, geo_.segment_bytes);
    engine_.flash_bytes_read += geo_.segment_bytes;
    ++engine_.segments_cleaned;
    const uint32_t p = static_cast<uint32_t>(g / segments_);
    while (seg_head_[g] != kNoHandle) {
      const Handle o = seg_head_[g];
      const uint64_t s = set_of(table_[o].key);
      if (chain_count(s) >= threshold_) {
        move_group(s, g);
        continue;
      }
      ++engine_.below_threshold;
      uint32_t page;
      if (can_readmit(o, p, &page)) {
        readmit(o, g, p, page);
      } else {
        drop(o, s, true);
      }
    }
  }
  // Moves set s's KLog objects to set s in one rewrite, during the cleaning of slot g.
  void move_group(uint64_t s, uint64_t g) {
    const uint32_t p = partition_of_set(s);
    for (Handle m = log_head_[s]; m != kNoHandle; m = aux_[m]) {
      const uint32_t slot = table_[m].slot;
      if (!(slot & kBuffered) && (slot & kPageMask) / pps_ != g) {
        read_page(slot & kPageMask);
        ++engine_.group_page_reads;
      }
    }
    read_set(s);
    fold_hits_and_age(s);
    Handle m = log_head_[s];
    log_head_[s] = kNoHandle;
    Handle* tail = &log_head_[s];  // the members that stay in KLog, in order
    const auto keep = [&](Handle x) {
      aux_[x] = kNoHandle;
      *tail = x;
      tail = &aux_[x];
    };
    while (m != kNoHandle) {
      const Handle next = aux_[m];
      const uint32_t slot = table_[m].slot;
      const uint32_t size = table_[m].size_bytes;
      const uint32_t need = size + kKangarooSetEntryOverheadBytes;
      const uint32_t r = insertion_rrpv(hits_of(slot));
      if (set_fits(s, need, r)) {
        make_space(s, need);
        unlink(list_head_of(m), m);
        aux_[m] = kNoHandle;
        table_[m].slot = r;
        insert_in_set(s, m, r);
        if (bloom_on_) bloom_.set(s, key_hash(table_[m].key));
        set_fill_[s] += need;
        --log_objects_;
        ++set_objects_;
        ++engine_.moved_to_sets;
        engine_.moved_bytes += size;
      } else {
        ++engine_.set_refusals;
        uint32_t page;
        if ((slot & kBuffered) || (slot & kPageMask) / pps_ != g) {
          keep(m);  // another segment or the buffer: stays in KLog, no write
        } else if (can_readmit(m, p, &page)) {
          readmit(m, g, p, page);
          keep(m);
        } else {
          drop(m, s, false);
        }
      }
      m = next;
    }
    ++engine_.group_moves;
    write_set(s);
  }

  // ---- KSet ----
  // Folds set s's hit bits (hit objects to RRPV 0, behind the others, in their order; bits
  // cleared), then ages it: if its highest RRPV m is below 2^b − 1, every RRPV rises by
  // 2^b − 1 − m.
  void fold_hits_and_age(uint64_t s) {
    const Handle head = set_head_[s];
    if (head == kNoHandle) return;
    const Handle last = table_[head].prev;
    for (Handle x = head;;) {
      const Handle next = table_[x].next;
      const bool at_end = x == last;
      if (table_[x].slot & kHitBit) {
        unlink(set_head_[s], x);
        table_[x].slot = 0;
        link_back(set_head_[s], x);
      }
      if (at_end) break;
      x = next;
    }
    const uint32_t highest = table_[set_head_[s]].slot & kRrpvMask;
    if (highest < rrpv_max_) {
      const uint32_t inc = rrpv_max_ - highest;
      for_each_in(set_head_[s], [&](Handle x) { table_[x].slot += inc; });
    }
  }
  // Whether an entry of `need` bytes at RRPV r fits set s after evicting only objects of
  // RRPV >= r from the front (isSpace).
  bool set_fits(uint64_t s, uint32_t need, uint32_t r) const {
    uint64_t free = set_capacity_ - set_fill_[s];
    const Handle head = set_head_[s];
    Handle x = head;
    while (free < need) {
      if (x == kNoHandle || (table_[x].slot & kRrpvMask) < r) return false;
      free += table_[x].size_bytes + kKangarooSetEntryOverheadBytes;
      x = table_[x].next;
      if (x == head) x = kNoHandle;
    }
    return true;
  }
  // Evicts set s's front objects until `need` bytes are free (makeSpace). REQUIRES: set_fits.
  void make_space(uint64_t s, uint32_t need) {
    while (set_capacity_ - set_fill_[s] < need) {
      const Handle x = set_head_[s];
      sink_.before_evict(x);
      const uint32_t size = table_[x].size_bytes;
      unlink(set_head_[s], x);
      if (bloom_on_) bloom_.erase(s, key_hash(table_[x].key));
      set_fill_[s] -= size + kKangarooSetEntryOverheadBytes;
      --set_objects_;
      used_ -= size;
      ++engine_.set_evictions;
      counters_.evicted_objects++;
      counters_.evicted_bytes += size;
      table_.remove(x);
    }
  }
  // Links h into set s after every object of RRPV >= r.
  void insert_in_set(uint64_t s, Handle h, uint32_t r) {
    const Handle head = set_head_[s];
    if (head != kNoHandle) {
      Handle x = head;
      do {
        if ((table_[x].slot & kRrpvMask) < r) {
          link_before(set_head_[s], x, h);
          return;
        }
        x = table_[x].next;
      } while (x != head);
    }
    link_back(set_head_[s], h);
  }

  ObjectTable& table_;
  Device& device_;
  EvictionSink sink_;
  uint64_t base_;  // ctx.device_offset: the log starts there, the sets after it
  // The FDP placement handles of its two data classes (QueueContext::placement): the KLog's
  // segments, written in log order, and the KSet's sets, rewritten in place.
  uint32_t placement_klog_;
  uint32_t placement_kset_;
  KangarooGeometry geo_;
  uint64_t segments_;       // N: segment slots per partition
  uint32_t pps_;            // pages per segment
  uint32_t page_capacity_;  // page − 24
  uint32_t set_capacity_;   // S − 24
  uint32_t threshold_;      // n
  uint32_t rrpv_max_;       // 2^b − 1
  uint32_t readmit_hits_;   // 0: never
  double admission_probability_;
  uint32_t bloom_bits_;
  bool bloom_on_;
  RngStream rng_;
  BucketBloomFilters bloom_;         // one filter per set (a 1-byte stub when off)
  std::vector<Handle> set_head_;     // by set: the front (highest RRPV) object
  std::vector<Handle> log_head_;     // by set: the first object of its KLog chain
  std::vector<uint32_t> set_fill_;   // by set: entry bytes in use
  std::vector<Handle> seg_head_;     // by segment slot p·N + i: the first object on flash
  std::vector<uint8_t> written_;     // by segment slot: holds a segment not yet cleaned
  std::vector<Handle> page_head_;    // by partition and page: the buffer's page lists
  std::vector<uint32_t> page_free_;  // by partition and page: the buffer's free bytes
  std::vector<uint32_t> open_slot_;  // by partition: the slot its buffer will be written to
  std::vector<Handle> aux_;          // by handle: the next object of its set's KLog chain
  uint64_t log_objects_ = 0;
  uint64_t set_objects_ = 0;
  uint64_t used_ = 0;
  FrameworkCounters counters_;
  KangarooCounters engine_;
};

/// The `kangaroo` framework as registered (engine/framework.h); its keys: KangarooConfig.
struct KangarooFramework {
  static const ComponentSpec& spec();
  /// Decodes the keys it reads, to check them. Throws std::invalid_argument.
  static void check(const Params& params) { KangarooConfig::from(params); }
  /// S as the block size, log + sets as the device bytes, and notes on configurations that
  /// mislead: many objects too large for a page or a set, no Bloom filter, fewer sets than log
  /// partitions. Throws std::invalid_argument in unit-size mode and as kangaroo_geometry().
  static FrameworkLayout layout(const Params& params, const CacheShape& shape);
  static constexpr bool kHasQueue = true;
  static constexpr bool kEngine = true;
  template <class P>
  using Queue = KangarooQueue;
};

}  // namespace flashpq
