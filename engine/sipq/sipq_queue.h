// engine/sipq/sipq_queue.h — SIPQ, the Single Insertion Priority Queue on flash.
//
// Source: Tang et al., "RIPQ: Advanced Photo Caching on Flash for Facebook", FAST'15, §5
// ("SIPQ uses flash as a cyclic queue and only sequentially writes to the device ... maintains
// an exact priority queue of the keys of the cached objects in memory ... only includes the keys
// of a portion of all the cached objects in the in-memory priority queue, referred to as the
// virtual cache, and will only reinsert evicted objects that are in this cache"), evaluated as
// SIPQ-0.5 / SIPQ-0.9 in §6 (Figure 8).
//
// Physical cache: the device is one cyclic log of M = ⌊C / B⌋ device blocks (slots) of B =
// block_size_bytes, slot i at offset i·B; M >= 2 or construction fails. Objects are appended to
// a write buffer of one block in DRAM (counters().dram_buffer_bytes = B); an object never spans
// blocks, and objects larger than B are not admitted. When the next object does not fit, the
// buffer is sealed — written whole with device.write(slot·B, B), padding included — and the next
// slot becomes the buffer. If that slot still holds a sealed block (the log is full), it is the
// tail, the oldest block, and it is reclaimed first, in log order: an object that is in the
// virtual cache is to be reinserted (its bytes are read back with an aligned device.read), any
// other object is evicted (EvictionSink protocol, then removed from the ObjectTable); then the
// slot is trimmed. The object being inserted goes into the fresh buffer first and the
// reinsertions after it, in log order, each counting as a reinsertion, a placement and a
// superseded copy; those that no longer fit seal the buffer in turn (reclaiming the next tail,
// whose reinsertions queue behind them). Putting the new object first means it always fits in
// one step, and an object nearly as large as B never leaves a buffer of reinsertions sealed
// mostly empty. A queued reinsertion the VC has dropped meanwhile is evicted instead.
//
// On a zoned device (docs/guide/devices.md "Zoned Namespaces") each slot is one zone: a sealed
// block is written from the zone's start, and a reclaimed slot's zone is reset instead of
// trimmed — the host's collection, with the reinsertions the only copies.
//
// Block headers. Which objects a tail block holds is read from the block itself, as RIPQ reads
// its block headers at delete-min (§4.2, §4.4) and as a log-structured flash cache reads a
// region it reclaims: each block carries a header of its objects' keys and offsets, written
// with the block, and a reclaim begins with one device read of the logical block size at the
// block's offset (header_reads() counts them). The simulator keeps a DRAM copy of the headers
// only to replay that read (header_model_bytes(), not SIPQ's cost). A header record is the
// object's current copy only while the object's location names this block and offset; deletes,
// replacements and reinsertions leave stale records behind and need no other bookkeeping. So
// DRAM holds per object only its location, 8 bytes: block (31 bits), VC membership (1 bit) and
// offset — not the links of per-block object lists.
//
// Usable capacity. The buffer is the M-th block: it is always written to the slot reclaimed when
// it was opened, so the cache holds M−1 sealed blocks plus the buffer, i.e. up to M·B bytes
// minus padding. With θ = 0 and blocks that hold exactly one object (e.g. unit-size mode and
// B = 1, or every object of exactly B bytes), SIPQ is therefore exact FIFO at capacity M
// objects: the buffer holds the newest object; inserting the next one seals it, and the slot
// the new buffer needs is the oldest object's, which is evicted. The remainder C − M·B is unused.
//
// Virtual cache (VC). An exact in-memory priority queue over the policy's priorities — the
// exact framework's ExactRelativeQueue (segments) or ExactAbsoluteQueue (heap), over the same
// ObjectTable entries (prev/next/slot) — holding at most θ times the physical cache's room for
// objects, θ = occupancy (the paper's "ratio between the total byte size of objects in the
// virtual cache to the size of the physical cache"):
//   VC limit = ⌊θ · (M·B − P)⌋,  P = the padding of the sealed blocks (B minus the bytes
//                                     appended to each, summed; 0 with unit sizes and B = 1)
// i.e. ⌊θ·M·B⌋ (= θ × capacity when the capacity is a multiple of B) less θ·P. Padding is no
// room for objects: without the θ·P, VC objects plus padding leave too little of the log to
// non-VC objects at high θ, and nearly every reclaim reinserts (adaptsize, 10% of its working
// set, B = 1 MiB, padding about 3% of the log: LRU at θ = 0.9 writes 3.1 object bytes per
// miss byte without the term, 1.35 with it; at B = 256 KiB the log stalls without it). The exact
// queue is built for ⌊θ·M·B⌋ (SLRU's segments are a 1/L share of that); when padding lowers the
// limit, the lowest segment holds the difference less.
// Membership is a bit of SIPQ's per-object location.
//   * insert(x, p): x enters the VC with p (the VC's delete-min first drops its minimum objects
//     while x would not fit the limit; an object larger than it does not enter), then x is
//     appended to the log, reclaiming blocks as needed (before each reclaim the VC drops down
//     to the limit, which a seal may have lowered). The VC goes first so that a full VC at
//     θ = 1 names the object to evict, as the exact queue would.
//   * increase(x, p): x in the VC: the VC's increase. x outside (dropped earlier): x re-enters
//     the VC with priority p, as an insertion into the VC (drops first), with no I/O: its flash
//     copy stays where it is and is reinserted when its block is reclaimed, if x is still in
//     the VC then.
//   * Objects dropped from the VC stay cached on flash until the log reclaims their block.
//   * remove(x): x leaves the VC (if in it) and the log (its copy becomes garbage; the block is
//     trimmed when reclaimed).
// priority(x): in the VC, the VC's priority. Outside it, the lowest priority: relative 0 (so
// SLRU's Table 2 promotion re-enters x at 1/L, LRU at 1); absolute, the VC's drop level — the
// highest priority its delete-min has removed so far (0 before any), i.e. what GDSF's clock
// ("Lowest", the priority of the last delete-min victim) would be in the exact queue; GDSF reads
// it in on_evict, so its clock never decreases.
// θ = 0: there is no VC; SIPQ is FIFO at block granularity (no reinsertions: placed_bytes =
// miss bytes; implementation WA, device bytes ÷ miss bytes, is 1 plus the sealed blocks'
// padding).
//
// Stall guard. At θ near 1 with large objects the VC's objects plus the padding their repacking
// creates can still exceed the log: reclaiming would reinsert forever. If one insertion
// reclaims more than M blocks (a full lap), the VC's delete-min drops at least B bytes before
// each further reclaim; the dropped objects are evicted when their blocks come round (or from
// the reinsertion queue). stall_drops() counts them; tests show it stays 0 on the traces at
// θ <= 0.9 (it is reached with objects of about half a block at θ = 0.9 and a 10-block log).
//
// make_room() does nothing: whether the log must evict depends on the VC, decided inside
// insert(), which evicts through the sink. victim(size) looks at the first reclaim only: kNoHandle
// if the object fits the buffer or the next slot is free, else the tail block's first object
// outside the VC (kNoHandle if all are in it); it ignores the VC drops the insertion causes.
//
// Unit-size mode: sizes are 1, so B counts objects (like the capacity) and device offsets and
// lengths are in those units.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "devices/device.h"
#include "engine/exact/absolute_queue.h"
#include "engine/exact/relative_queue.h"
#include "engine/object_table.h"
#include "engine/policy.h"
#include "engine/queue.h"
#include "engine/sipq/sipq_config.h"

namespace flashpq {

/// SIPQ over virtual-cache type VC (ExactRelativeQueue or ExactAbsoluteQueue), under the queue
/// contract of engine/queue.h (see the file comment). Not thread-safe.
template <class VC>
class SipqQueue {
 public:
  static constexpr bool kAbsolute = std::is_same_v<VC, ExactAbsoluteQueue>;
  /// With a relative VC, prev, next and slot are its segment links and segment; with an
  /// absolute VC, prev is the heap position and next and slot hold the log location
  /// (engine/queue.h).
  static constexpr unsigned kOrderWords = kAbsolute ? 1 : 3;

  /// Builds the queue from ctx, reading SIPQ's keys from ctx.framework.params (SipqConfig).
  explicit SipqQueue(const QueueContext& ctx)
      : SipqQueue(ctx, SipqConfig::from(ctx.framework.params, ctx.capacity_bytes,
                                        ctx.device.logical_block_bytes())) {}

  /// Reads the block size B and the occupancy θ. REQUIRES: ctx's references outlive the queue.
  /// Throws std::invalid_argument if the capacity holds fewer than 2 blocks (or more than
  /// 2^31), if B is not a multiple of the device's logical block size, or if a bounded device
  /// is smaller than M·B.
  SipqQueue(const QueueContext& ctx, const SipqConfig& config)
      : table_(ctx.table),
        device_(ctx.device),
        sink_(ctx.sink),
        block_(config.block_size_bytes),
        slots_(checked_slots(ctx, block_)),
        occupancy_(config.occupancy),
        vc_capacity_(static_cast<uint64_t>(occupancy_ * static_cast<double>(slots_ * block_))),
        vc_(QueueContext{ctx.table, ctx.device, vc_config_, std::max<uint64_t>(1, vc_capacity_),
                         ctx.grid, EvictionSink{}}),
        blocks_(slots_),
        headers_(slots_),
        header_bytes_(std::max<uint64_t>(1, ctx.device.logical_block_bytes())) {
    counters_.dram_buffer_bytes = block_;
    zoned_ = zoned_units(ctx.device, block_, 0, "framework.block_size");
    placement_ = ctx.placement(0, {"blocks"});
  }

  SipqQueue(const SipqQueue&) = delete;
  SipqQueue& operator=(const SipqQueue&) = delete;

  // ---- the queue contract (engine/queue.h) ----

  /// Writes each block whole at its slot and frees the slot whole before its next lap: runs on
  /// a zoned device with one slot per zone (engine/queue.h zoned_units).
  static constexpr bool kWritesZones = true;

  /// An object is admitted if it fits in one block.
  bool admits(uint32_t size) const { return size <= block_; }

  /// See the file comment.
  Handle victim(uint32_t size) const {
    if (fill_ + size <= block_) return kNoHandle;
    const uint32_t next = head_ + 1 == slots_ ? 0 : head_ + 1;
    if (!blocks_[next].sealed) return kNoHandle;
    for (const Content& c : headers_[next]) {
      if (holds(next, c) && !(block_word(c.handle) & kInVc)) return c.handle;
    }
    return kNoHandle;
  }

  /// Nothing: SIPQ evicts inside insert() (see the file comment).
  void make_room(uint32_t) {}

  /// insert(x, p) of §4.1 on SIPQ: into the VC, then appended to the log (may evict through the
  /// sink). REQUIRES: h not queued; admits(size of h).
  void insert(Handle h, double p) {
    if constexpr (!kAbsolute) {
      if (h >= loc_.size()) [[unlikely]]
        grow_for_handle(loc_, h);
    }
    block_word(h) = kNoSlot;
    offset_word(h) = 0;
    const uint32_t size = table_[h].size_bytes;
    if (vc_capacity_ > 0) enter_vc(h, p, size);
    reclaims_ = 0;
    if (fill_ + size > block_) advance();  // a fresh buffer holds any admitted object
    append(h, size);
    used_bytes_ += size;
    counters_.placed_bytes += size;
    counters_.placed_objects++;
    if (!carry_.empty()) [[unlikely]]
      reinsert_carried();
  }

  /// increase(x, p) of §4.1 on SIPQ: no I/O. In the VC: the VC's increase (which rejects a
  /// decrease with std::invalid_argument). Outside: re-enters the VC at p. θ = 0: nothing.
  /// REQUIRES: h queued.
  void increase(Handle h, double p) {
    if (vc_capacity_ == 0) return;
    if (block_word(h) & kInVc) {
      vc_.increase(h, p);
    } else {
      enter_vc(h, p, table_[h].size_bytes);
    }
  }

  /// The VC's priority of h, or the lowest priority outside it (see the file comment).
  double priority(Handle h) const {
    if (block_word(h) & kInVc) return vc_.priority(h);
    return outside_priority();
  }

  /// A hit on h is served from where its copy is (framework.read_hits): from the RAM write
  /// buffer (no I/O), else one device read of its bytes in the log, widened to whole logical
  /// blocks as a reinsertion's read is. REQUIRES: h queued.
  [[gnu::always_inline]] void read_hit(Handle h) {
    if ((block_word(h) & ~kInVc) == head_) return;  // still in the buffer
    device_.read_covering(device_offset(h), table_[h].size_bytes);
  }

  /// Removes h wherever it is (a delete or a replacement). REQUIRES: h queued.
  void remove(Handle h) {
    const uint32_t size = table_[h].size_bytes;
    if (block_word(h) & kInVc) {
      vc_.remove(h);
      block_word(h) &= ~kInVc;
    }
    unlink(h, size);
    used_bytes_ -= size;
    counters_.superseded_bytes += size;
  }

  /// Bytes of the cached objects, in the buffer and on flash.
  uint64_t used_bytes() const { return used_bytes_; }
  /// SIPQ writes every object to the device (its log).
  bool places_objects() const { return true; }
  const FrameworkCounters& counters() const { return counters_; }

  /// Index-map DRAM outside the entries: the objects' log locations, 8 bytes per handle with a
  /// relative VC (whose links fill the entry words), none with an absolute VC (the location
  /// fills the entry words the heap leaves free).
  size_t index_bytes() const { return loc_.capacity() * sizeof(Location) + vc_.index_bytes(); }
  /// DRAM of SIPQ's own structures: the block table, the reinsertion queue and the VC's (the
  /// write buffer is counters().dram_buffer_bytes). The block headers are on flash and not
  /// counted (see the file comment and header_model_bytes()).
  size_t queue_bytes() const {
    return blocks_.capacity() * sizeof(Block) + carry_.capacity() * sizeof(Handle) +
           vc_.queue_bytes();
  }
  /// DRAM the simulator spends on its copy of the on-flash block headers (not counted above).
  size_t header_model_bytes() const {
    size_t bytes = headers_.capacity() * sizeof(std::vector<Content>);
    for (const std::vector<Content>& h : headers_) bytes += h.capacity() * sizeof(Content);
    return bytes;
  }

  // ---- introspection, for tests and reports ----

  /// M, the number of device blocks (slots) of the log.
  uint64_t slots() const { return slots_; }
  uint64_t block_bytes() const { return block_; }
  /// ⌊θ·M·B⌋, the VC's capacity in bytes without padding.
  uint64_t vc_capacity_bytes() const { return vc_capacity_; }
  /// ⌊θ·(M·B − P)⌋, the VC's current limit in bytes (see the file comment).
  uint64_t vc_limit_bytes() const {
    return static_cast<uint64_t>(occupancy_ * static_cast<double>(slots_ * block_ - padding_));
  }
  /// P, the padding of the sealed blocks, bytes.
  uint64_t padding_bytes() const { return padding_; }
  /// Bytes of the objects in the VC.
  uint64_t vc_bytes() const { return vc_capacity_ > 0 ? vc_.used_bytes() : 0; }
  bool in_vc(Handle h) const { return (block_word(h) & kInVc) != 0; }
  /// Objects the VC's delete-min has dropped (an object can drop more than once).
  uint64_t vc_drops() const { return vc_drops_; }
  /// Objects dropped by the stall guard (see the file comment).
  uint64_t stall_drops() const { return stall_drops_; }
  /// Blocks written (sealed) so far; device write bytes = sealed_blocks() · B.
  uint64_t sealed_blocks() const { return sealed_blocks_; }
  /// Block headers read (one per reclaimed block), each one device read of header_bytes().
  uint64_t header_reads() const { return header_reads_; }
  /// Bytes of one header read: the device's logical block size (at least 1).
  uint64_t header_bytes() const { return header_bytes_; }
  /// Bytes appended to the current write buffer (objects, live or not).
  uint64_t buffer_fill_bytes() const { return fill_; }
  /// The slot of the current write buffer.
  uint32_t buffer_slot() const { return head_; }
  /// Where h's copy is: the device offset it was (or will be) written at.
  uint64_t device_offset(Handle h) const {
    return uint64_t{block_word(h) & ~kInVc} * block_ + offset_word(h);
  }
  /// The VC itself.
  const VC& virtual_cache() const { return vc_; }

  /// Checks the block lists, byte counts and VC membership; returns "" or what is wrong. O(n),
  /// for tests.
  std::string check_invariants() const {
    uint64_t live = 0, in_vc_bytes = 0, padding = 0, objects = 0;
    std::vector<uint8_t> counted;  // by handle
    for (uint32_t s = 0; s < slots_; ++s) {
      const Block& b = blocks_[s];
      if (s != head_ && !b.sealed && !headers_[s].empty()) return "unsealed slot has a header";
      if (!b.sealed && b.padding != 0) return "padding of an unsealed slot";
      padding += b.padding;
      uint64_t bytes = 0, end = 0, last = 0;
      for (const Content& c : headers_[s]) {
        if (c.offset < last) return "unordered header records";
        last = c.offset;
        if (!holds(s, c)) continue;  // stale (its handle may name another object by now)
        // A zero-size object's stale record can share its successor's offset: count it once.
        if (c.handle >= counted.size()) counted.resize(c.handle + 1, 0);
        if (counted[c.handle]++) continue;
        if (c.offset < end) return "overlapping copies";
        end = uint64_t{c.offset} + table_[c.handle].size_bytes;
        if (end > block_ || (s == head_ && end > fill_)) return "copy past its block";
        bytes += table_[c.handle].size_bytes;
        ++objects;
        if (block_word(c.handle) & kInVc) in_vc_bytes += table_[c.handle].size_bytes;
      }
      if (bytes != b.live_bytes) return "block live bytes";
      live += bytes;
    }
    if (objects != table_.size()) return "an object without a live header record";
    if (live != used_bytes_) return "used bytes";
    if (in_vc_bytes != vc_bytes()) return "VC bytes";
    if (padding != padding_) return "padding";
    if (vc_bytes() > vc_capacity_) return "VC over capacity";
    if (counters_.placed_bytes !=
        used_bytes_ + counters_.evicted_bytes + counters_.superseded_bytes) {
      return "byte balance";
    }
    return "";
  }

 private:
  static constexpr uint32_t kInVc = uint32_t{1} << 31;
  // The slot field of an object in no block: between its removal and the handle's reuse, and
  // while a reinsertion waits in carry_.
  static constexpr uint32_t kNoSlot = kInVc - 1;

  // Per handle: where its copy is, 8 bytes.
  struct Location {
    uint32_t block;   // slot (kNoSlot if none) | kInVc
    uint32_t offset;  // within the block, bytes
  };
  static_assert(sizeof(Location) == 8);
  // One record of a block's header (see the file comment): the header on flash records keys
  // and offsets; the model records handles.
  struct Content {
    Handle handle;
    uint32_t offset;
  };
  struct Block {
    uint64_t live_bytes = 0;
    uint64_t padding = 0;  // B minus the bytes appended, set when sealed
    bool sealed = false;   // written and not yet reclaimed
  };

  // An object's location words: with an absolute VC, the entry's next and slot, which
  // ExactAbsoluteQueue leaves free (it keeps the heap position in prev); with a relative VC,
  // whose segments use all three entry words, loc_.
  uint32_t& block_word(Handle h) const {
    if constexpr (kAbsolute) {
      return table_[h].slot;
    } else {
      return loc_[h].block;
    }
  }
  uint32_t& offset_word(Handle h) const {
    if constexpr (kAbsolute) {
      return table_[h].next;
    } else {
      return loc_[h].offset;
    }
  }

  // Whether header record c of slot s is its object's current copy.
  bool holds(uint32_t s, const Content& c) const {
    return (block_word(c.handle) & ~kInVc) == s && offset_word(c.handle) == c.offset;
  }

  static uint32_t checked_slots(const QueueContext& ctx, uint64_t b) {
    const uint64_t m = b == 0 ? 0 : ctx.capacity_bytes / b;
    auto fail = [&](const std::string& why) {
      throw std::invalid_argument("framework sipq: cache capacity " +
                                  std::to_string(ctx.capacity_bytes) + " B and block size " +
                                  std::to_string(b) + " B: " + why);
    };
    if (m < 2) fail("the log needs at least 2 blocks, found " + std::to_string(m));
    if (m >= kNoSlot) fail("2^31 - 1 blocks or more");
    if (b % ctx.device.logical_block_bytes() != 0) {
      fail("block size not a multiple of the device's logical block size " +
           std::to_string(ctx.device.logical_block_bytes()) + " B");
    }
    if (ctx.device.capacity_bytes() != 0 && ctx.device.capacity_bytes() / b < m) {
      fail("the device's " + std::to_string(ctx.device.capacity_bytes()) + " B hold fewer than " +
           std::to_string(m) + " blocks");
    }
    return static_cast<uint32_t>(m);
  }

  double outside_priority() const {
    if constexpr (kAbsolute) return drop_level_;
    return 0.0;
  }

  // x enters the VC at p; the VC's delete-min drops what no longer fits. REQUIRES: x not in it.
  void enter_vc(Handle x, double p, uint32_t size) {
    const uint64_t limit = vc_limit_bytes();
    if (size > limit) return;
    while (vc_.used_bytes() + size > limit) drop_vc_min();
    vc_.insert(x, p);
    block_word(x) |= kInVc;
  }

  void drop_vc_min() {
    const Handle m = vc_.min();
    if constexpr (kAbsolute) drop_level_ = std::max(drop_level_, vc_.priority(m));
    vc_.remove(m);
    block_word(m) &= ~kInVc;
    ++vc_drops_;
  }

  // Seals the buffer and opens the next slot, reclaiming it if it holds a sealed block (the
  // tail): the VC first drops down to its limit, then the tail's VC objects join carry_ and the
  // others are evicted.
  void advance() {
    device_.write(uint64_t{head_} * block_, block_, placement_);  // the whole block, padding too
    blocks_[head_].sealed = true;
    blocks_[head_].padding = block_ - fill_;
    padding_ += block_ - fill_;
    ++sealed_blocks_;
    head_ = head_ + 1 == slots_ ? 0 : head_ + 1;
    fill_ = 0;
    if (!blocks_[head_].sealed) return;
    padding_ -= blocks_[head_].padding;  // the reclaimed block's padding is gone
    if (vc_capacity_ > 0) {
      const uint64_t limit = vc_limit_bytes();
      while (vc_.used_bytes() > limit) drop_vc_min();
      if (++reclaims_ > slots_) [[unlikely]]
        relieve_stall();
    }
    reclaim(head_);
  }

  // Reclaims the tail block `slot`, the new buffer's slot (see the file comment): reads its
  // header, then each object whose record is current is queued for reinsertion (in the VC) or
  // evicted.
  void reclaim(uint32_t slot) {
    device_.read(uint64_t{slot} * block_, header_bytes_);
    ++header_reads_;
    blocks_[slot] = Block{};
    // Neither branch appends to a header, so the records stay put while they are walked.
    for (const Content& c : headers_[slot]) {
      if (!holds(slot, c)) continue;  // removed, reinserted elsewhere, or its handle reused
      const Handle x = c.handle;
      const uint32_t size = table_[x].size_bytes;
      if (block_word(x) & kInVc) {
        // Read the old copy back, in whole logical blocks.
        device_.read_covering(uint64_t{slot} * block_ + c.offset, size);
        // In no block until reinserted (a zero-size object's stale record at the same offset
        // can no longer match it).
        block_word(x) = (block_word(x) & kInVc) | kNoSlot;
        carry_.push_back(x);
      } else {
        evict(x, size);
      }
    }
    headers_[slot].clear();  // keeps its capacity for the slot's next lap
    // On a zoned device (a slot per zone) the zone is reset: the host's collection.
    if (zoned_) {
      device_.zone_reset(uint64_t{slot} * block_);
    } else {
      device_.trim(uint64_t{slot} * block_, block_);
    }
  }

  // Appends the queued reinsertions (carry_ grows while a full buffer reclaims the next tail).
  [[gnu::noinline]] void reinsert_carried() {
    for (size_t i = 0; i < carry_.size(); ++i) {
      const Handle x = carry_[i];
      const uint32_t size = table_[x].size_bytes;
      if (!(block_word(x) & kInVc)) {  // dropped by the VC since its block was reclaimed
        evict(x, size);
        continue;
      }
      if (fill_ + size > block_) advance();
      append(x, size);
      counters_.placed_bytes += size;
      counters_.placed_objects++;
      counters_.reinsertions++;
      counters_.reinserted_bytes += size;
      counters_.superseded_bytes += size;  // the copy left in the reclaimed block
    }
    carry_.clear();
  }

  // x leaves the cache by delete-min: the policy sees it first. Its block's live bytes are the
  // caller's (a reclaimed block's are reset).
  void evict(Handle x, uint32_t size) {
    sink_.before_evict(x);
    block_word(x) = kNoSlot;  // its records are stale from here, whatever reuses the handle
    used_bytes_ -= size;
    counters_.evicted_objects++;
    counters_.evicted_bytes += size;
    table_.remove(x);
  }

  // Every object left is in the VC and they do not fit in the log: drop at least one block's
  // worth of the VC's minimum objects (they are evicted when their blocks come round).
  [[gnu::cold]] [[gnu::noinline]] void relieve_stall() {
    uint64_t dropped = 0;
    while (dropped < block_ && vc_.min() != kNoHandle) {
      dropped += std::max<uint32_t>(1, table_[vc_.min()].size_bytes);  // size-0 objects count 1
      drop_vc_min();
      ++stall_drops_;
    }
  }

  // Appends x's copy to the buffer and its record to the buffer's header. REQUIRES: fill_ +
  // size <= B.
  void append(Handle x, uint32_t size) {
    block_word(x) = (block_word(x) & kInVc) | head_;
    offset_word(x) = static_cast<uint32_t>(fill_);
    headers_[head_].push_back(Content{x, offset_word(x)});
    blocks_[head_].live_bytes += size;
    fill_ += size;
  }

  // x's copy leaves its block (a delete or a replacement): its record goes stale.
  void unlink(Handle x, uint32_t size) {
    uint32_t& b = block_word(x);
    blocks_[b & ~kInVc].live_bytes -= size;
    b = (b & kInVc) | kNoSlot;
  }

  ObjectTable& table_;
  Device& device_;
  bool zoned_ = false;      // a slot per zone: a reclaim resets its zone
  uint32_t placement_ = 0;  // the FDP placement handle of its one data class, blocks
  EvictionSink sink_;
  uint64_t block_;
  uint32_t slots_;
  double occupancy_;
  uint64_t vc_capacity_;
  FrameworkConfig vc_config_{"exact", {}};  // before vc_: the VC is exact, placement none
  VC vc_;
  std::vector<Block> blocks_;
  std::vector<std::vector<Content>> headers_;  // by slot: the model of its on-flash header
  mutable std::vector<Location> loc_;          // by handle; relative VC only (block_word())
  uint64_t header_bytes_ = 1;
  uint64_t header_reads_ = 0;
  uint32_t head_ = 0;          // the buffer's slot
  uint64_t fill_ = 0;          // bytes appended to the buffer
  uint64_t padding_ = 0;       // P: padding of the sealed blocks
  uint64_t reclaims_ = 0;      // reclaims during the current insertion
  std::vector<Handle> carry_;  // reinsertions waiting for buffer room, in log order
  uint64_t used_bytes_ = 0;
  double drop_level_ = 0.0;
  uint64_t vc_drops_ = 0;
  uint64_t stall_drops_ = 0;
  uint64_t sealed_blocks_ = 0;
  FrameworkCounters counters_;
};

/// The SIPQ queue for policy P: its VC is the exact queue of P's kind.
template <class P>
using SipqQueueFor = SipqQueue<std::conditional_t<P::kKind == PriorityKind::kRelative,
                                                  ExactRelativeQueue, ExactAbsoluteQueue>>;

/// The `sipq` framework as registered (engine/framework.h); its keys: SipqConfig.
struct SipqFramework {
  static const ComponentSpec& spec();
  /// Decodes the keys it reads, to check them. Throws std::invalid_argument.
  static void check(const Params& params) { SipqConfig::from(params); }
  /// B resolved, ⌊C/B⌋ blocks of the device addressed, and a note when B is below the largest
  /// object (never cached).
  static FrameworkLayout layout(const Params& params, const CacheShape& shape);
  static constexpr bool kHasQueue = true;
  template <class P>
  using Queue = SipqQueueFor<P>;
};

}  // namespace flashpq
