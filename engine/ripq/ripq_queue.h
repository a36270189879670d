// engine/ripq/ripq_queue.h — RIPQ, the Restricted Insertion Priority Queue on flash.
//
// Source: Tang et al., "RIPQ: Advanced Photo Caching on Flash for Facebook", FAST'15, §4.
//
// On a zoned device (docs/guide/devices.md "Zoned Namespaces") each slot is one zone: a sealed
// block is written from the zone's start, and a freed slot's zone is reset instead of trimmed —
// RIPQ's reclaims are then the host's collection, its materializations the only copies.
//
// The queue is an ordered list of blocks, head (priority 1) to tail (priority 0), cut into
// sections — contiguous runs of blocks, the insertion points (§4.2 "Queue Structure"):
//   * a device block holds object data: while active it is a RAM buffer (the "Block Buffer"),
//     when full it is sealed and written whole to one free device slot of B bytes (§4.2);
//   * a virtual block holds only counters: objects whose priority was increased are moved to
//     the active virtual block of the target section, in memory only (§4.2 "Device and Virtual
//     Blocks", §4.4 "Increase");
//   * every block counts the logical bytes whose position it is: a device block its objects
//     that were not moved since, a virtual block the objects moved into it.
// Operations (§4.4):
//   * insert(x, p): append x to the active device block of the section whose range contains
//     p; a full active block is sealed, written to a free slot, and a new active device block
//     (and virtual block) opens at the section's head;
//   * increase(x, p): set x's virtual block to the active virtual block of p's section; no I/O;
//   * delete-min: when free slots fall below `reserved_blocks` (§4.4, footnote 6: 10), the
//     tail-most sealed device block is reclaimed: its header is read (one device read of the
//     logical block size), every object with a virtual block is materialized — read and copied
//     into the active device block of its virtual block's section — unless its relative
//     priority is below `materialize_threshold` (the occupancy trade-off), the rest are
//     evicted, and the slot is trimmed;
//   * sections split when one holds more than 2α of the queue and two neighbours merge when
//     together they hold less than α (§4.4 "Internal operations": α is "the average section
//     size", a merge needs two sections to "shrink from 2α ... to α"), α = 1/K, the queue
//     being its logical bytes (total_bytes_, what relative priorities are fractions of); an
//     empty section is always absorbed. Measured against the fixed flash capacity instead, a
//     filling queue keeps one section until it holds 2α of the flash, and at steady state
//     (the queue short of the flash by the reserved blocks and padding) sections run larger
//     than K of them would: on adaptsize at 10 % of its working set RIPQ-SLRU-3 is 0.32 points
//     below exact with B = C/256 that way, 0.13 this way. A section is checked for a split when
//     it grows (an append or an increase into it); merges are checked at the end of an
//     insertion that sealed a block (never inside a reclaim), so sections that deletes and hits
//     shrink are merged at the next seal. A split opens a new active device and virtual
//     block at the head of the lower half; a merge copies the lower active buffer into the
//     upper one (or seals it when both do not fit in one block).
// Choices the paper leaves open, stated:
//   * Relative priority of an object = min(its nominal priority, the middle of its block's
//     range), the nominal being the p it was last inserted or increased with. Implicit demotion
//     only ever lowers a relative priority (§4.1), and insertion at a section's head places an
//     object above the p it asked for; the minimum keeps SLRU's Table 2 promotion ⌈p·L⌉ from
//     skipping a segment because of that rounding.
//   * The active virtual block of a section is also sealed when its logical bytes reach B, so
//     a section whose hits all go to one place still consists of blocks of about B and can
//     split.
//   * Absolute priorities (GDSF) go through DynamicHistogram (§4.3); their relative priority
//     is the histogram quantile. priority() returns the absolute value.
//   * Objects larger than B are not admitted. Unit-size mode: B counts objects.
// §4.5 bounds checked by the tests: object writes ≤ inserts + increases; RIPQ-LRU with 4α of
// extra space holds every object exact LRU holds.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <stdexcept>
#include <string>
#include <vector>

#include "devices/device.h"
#include "engine/object_table.h"
#include "engine/policy.h"
#include "engine/queue.h"
#include "engine/ripq/fenwick.h"
#include "engine/ripq/histogram.h"
#include "engine/ripq/ripq_config.h"

namespace flashpq {

template <PriorityKind kKind>
class RipqQueue {
 public:
  /// None: slot holds the device block (and the 8-bit nominal priority), prev the offset in
  /// it and next the virtual block — the block ids and location §4.2 puts in the index map.
  static constexpr unsigned kOrderWords = 0;

  /// Builds the queue from ctx, reading RIPQ's keys from ctx.framework.params (RipqConfig).
  explicit RipqQueue(const QueueContext& ctx)
      : RipqQueue(ctx, RipqConfig::from(ctx.framework.params, ctx.capacity_bytes,
                                        ctx.device.logical_block_bytes())) {}

  /// Builds the queue over ctx.capacity_bytes / block_size_bytes device slots.
  /// Throws std::invalid_argument if the capacity holds fewer than reserved_blocks + 2 blocks
  /// or more than 2^22 (block ids are 24 bits in the object entry).
  RipqQueue(const QueueContext& ctx, const RipqConfig& config)
      : table_(ctx.table),
        device_(ctx.device),
        sink_(ctx.sink),
        block_bytes_(config.block_size_bytes),
        slots_(ctx.capacity_bytes / config.block_size_bytes),
        reserved_(config.reserved_blocks),
        k_(config.insertion_points),
        threshold_(config.materialize_threshold),
        // Only absolute priorities need the histogram (§4.3); a relative queue holds no bins.
        histogram_(kKind == PriorityKind::kAbsolute ? config.histogram_bins : 0) {
    check_ripq_blocks(ctx.capacity_bytes, slots_, config,
                      "framework.block_size " + (ctx.framework.params.has(kBlockSizeKey.name)
                                                     ? ctx.framework.params.text(kBlockSizeKey.name)
                                                     : kBlockSizeKey.default_value),
                      ctx.device.logical_block_bytes());
    flash_bytes_ = slots_ * block_bytes_;
    zoned_ = zoned_units(ctx.device, block_bytes_, 0, "framework.block_size");
    placement_ = ctx.placement(0, {"blocks"});
    for (uint64_t s = 0; s < slots_; ++s) free_slots_.push_back(static_cast<uint32_t>(s));
    header_bytes_ = std::max<uint64_t>(1, device_.logical_block_bytes());
    // One section to start with; splits add the others as the queue fills.
    const uint32_t sec = new_section();
    order_.push_back(sec);
    renumber_sections();
    open_active_blocks(sec, kNone);
  }

  RipqQueue(const RipqQueue&) = delete;
  RipqQueue& operator=(const RipqQueue&) = delete;

  // ---- the queue contract (engine/queue.h) ----

  /// Writes each device block whole from its slot's start and frees slots whole: runs on a
  /// zoned device with one slot per zone (engine/queue.h zoned_units).
  static constexpr bool kWritesZones = true;

  bool admits(uint32_t size) const { return size <= block_bytes_; }

  /// At steady state (no slot to spare), the first object of the block delete-min reclaims
  /// next that would be evicted rather than materialized; otherwise kNoHandle.
  Handle victim(uint32_t) const {
    if (free_slots_.size() > reserved_) return kNoHandle;
    const uint32_t b = tail_sealed_block();
    if (b == kNone) return kNoHandle;  // nothing sealed yet
    for (const Content& c : headers_[b]) {
      if (holds(b, c) && table_[c.handle].next == kNone) return c.handle;
    }
    return kNoHandle;
  }

  /// RIPQ evicts when it seals a block, not before an insertion: nothing to do.
  void make_room(uint32_t) {}

  void insert(Handle h, double p) {
    double rel = p;
    if constexpr (kKind == PriorityKind::kAbsolute) {
      set_absolute(h, p);
      histogram_.add(p, table_[h].size_bytes);
      rel = histogram_.quantile(p);
    }
    counters_.placed_bytes += table_[h].size_bytes;
    counters_.placed_objects++;
    set_nominal(h, rel);
    set_device_block(table_[h], kNoBlock);  // until append() places it
    table_[h].next = kNone;                 // no virtual block
    append(section_of(rel), h);
    seal_and_reclaim();
  }

  void increase(Handle h, double p) {
    double rel = p;
    if constexpr (kKind == PriorityKind::kAbsolute) {
      const uint32_t size = table_[h].size_bytes;
      histogram_.remove(absolute(h), size);
      histogram_.add(p, size);
      set_absolute(h, p);
      rel = histogram_.quantile(p);
    }
    increases_++;
    const uint32_t sec = section_of(rel);
    const uint32_t from = logical_block(h);
    // RIPQ knows priorities at section granularity (§4.2: p ∈ (p_{k-1}, p_k] is "section
    // k"): an increase whose target section is not above the object's current one leaves it
    // in place. This is why a single section (K ≈ 2, §6 Figure 9) "degenerates to FIFO".
    if (rank_of(sec) >= rank_of(blocks_[from].section)) return;
    move_up(h, rel, sec, from);
  }

  /// An increase never moves an object whose logical block is in the head section: no section
  /// is above it (see increase()). For such an h this counts the increase, as increase() would,
  /// and returns true, so a relative policy need not compute the target priority (SLRU's hit
  /// reads p, an O(log blocks) query, only to find it). Otherwise does nothing and returns
  /// false. Relative priorities only: an absolute increase also moves h in the histogram.
  bool skip_increase(Handle h) requires(kKind == PriorityKind::kRelative) {
    if (rank_of(blocks_[logical_block(h)].section) != 0) return false;
    increases_++;
    return true;
  }

  double priority(Handle h) const {
    if constexpr (kKind == PriorityKind::kAbsolute) {
      return absolute(h);
    } else {
      return relative_priority(h);
    }
  }

  /// A hit on h is served from where its data is (framework.read_hits): from the RAM buffer
  /// while its device block is active (no I/O), else one device read of its bytes in the
  /// sealed block, widened to whole logical blocks (§4.2: sealed blocks are on flash; the
  /// in-memory index gives the object's block and offset). REQUIRES: h queued.
  [[gnu::always_inline]] void read_hit(Handle h) {
    const uint64_t at = data_offset(h);
    if (at != kInRam) device_.read_covering(at, table_[h].size_bytes);
  }

  /// data_offset() of an object whose device block is an active RAM buffer.
  static constexpr uint64_t kInRam = UINT64_MAX;
  /// The device byte offset of queued object h's data, or kInRam while its device block is
  /// still an active buffer (not yet sealed and written).
  uint64_t data_offset(Handle h) const {
    const ObjectEntry& e = table_[h];
    const Block& blk = blocks_[device_block(e)];
    if (!blk.sealed) return kInRam;
    return uint64_t{blk.slot} * block_bytes_ + e.prev;
  }

  void remove(Handle h) {
    const uint32_t size = table_[h].size_bytes;
    if constexpr (kKind == PriorityKind::kAbsolute) histogram_.remove(absolute(h), size);
    const uint32_t lb = logical_block(h);
    drop_logical(h, lb);
    leave_device_block(h);
    counters_.superseded_bytes += size;
    collect_empty(lb);
    debug_check("remove");
  }

  uint64_t used_bytes() const { return total_bytes_; }
  /// RIPQ writes every object to the device (in sealed blocks).
  bool places_objects() const { return true; }

  const FrameworkCounters& counters() const { return counters_; }

  /// Index-map DRAM outside the entries: none (every block id and offset is in the entry).
  size_t index_bytes() const { return 0; }

  /// DRAM of RIPQ's queue structure (§4.2): the block and section records, the order of
  /// sections, the Fenwick tree, the free slots, the histogram and GDSF's absolute priorities
  /// (8 bytes per handle; none for relative priorities), from their allocated capacities. The block
  /// headers (every object's handle and offset in its device block, §4.2: "within each block, a
  /// header records all object keys and their offsets") are not counted: RIPQ writes them on flash
  /// with the block and reads them back at delete-min (one device read of the logical block size,
  /// counted); this simulator keeps a copy in DRAM only to replay that read, reported by
  /// header_model_bytes().
  size_t queue_bytes() const {
    return blocks_.capacity() * sizeof(Block) + sections_.capacity() * sizeof(Section) +
           order_.capacity() * sizeof(uint32_t) + histogram_.memory_bytes() +
           free_slots_.size() * sizeof(uint32_t) + list_pos_.capacity() * sizeof(uint32_t) +
           tree_.memory_bytes() + free_blocks_.capacity() * sizeof(uint32_t) +
           free_sections_.capacity() * sizeof(uint32_t) + absolute_.capacity() * sizeof(double);
  }

  /// DRAM the simulator spends on its copy of the on-flash block headers (see queue_bytes()).
  size_t header_model_bytes() const {
    size_t bytes = headers_.capacity() * sizeof(std::vector<Content>);
    for (const std::vector<Content>& h : headers_) bytes += h.capacity() * sizeof(Content);
    return bytes;
  }

  // ---- introspection, for tests and results ----

  size_t sections() const { return order_.size(); }
  /// The logical bytes of each section, head section first.
  std::vector<uint64_t> section_bytes() const {
    std::vector<uint64_t> out;
    out.reserve(order_.size());
    for (const uint32_t sec : order_) out.push_back(sections_[sec].bytes);
    return out;
  }
  uint64_t increases() const { return increases_; }
  uint64_t free_slots() const { return free_slots_.size(); }
  uint64_t flash_bytes() const { return flash_bytes_; }
  /// Prints the sections and their blocks to stderr (debugging aid).
  void dump() const {
    for (const uint32_t sec : order_) {
      const Section& s = sections_[sec];
      std::fprintf(stderr, "section %u bytes %llu:", sec, (unsigned long long)s.bytes);
      for (uint32_t x = s.head;; x = blocks_[x].next) {
        std::fprintf(stderr, " %s%llu",
                     blocks_[x].is_virtual ? "v" : (blocks_[x].sealed ? "s" : "a"),
                     (unsigned long long)blocks_[x].bytes);
        if (x == s.tail) break;
      }
      std::fprintf(stderr, "\n");
    }
  }

  /// Recomputes every counter from the structure and returns a description of the first
  /// inconsistency, or "" when there is none. O(blocks + objects): for tests.
  std::string check_invariants() const {
    std::vector<uint64_t> logical(blocks_.size(), 0);
    uint64_t objects = 0, total = 0;
    for (size_t b = 0; b < blocks_.size(); ++b) {
      const Block& blk = blocks_[b];
      if (blk.section == kFreeRecord || blk.is_virtual) continue;
      uint32_t live = 0;
      for (const Content& c : headers_[b]) {
        if (!holds(static_cast<uint32_t>(b), c)) continue;
        ++live;
        const ObjectEntry& e = table_[c.handle];
        if (uint64_t{e.prev} + e.size_bytes > blk.fill)
          return "object past block " + std::to_string(b) + "'s fill";
        const uint32_t lb = e.next != kNone ? e.next : device_block(e);
        if (blocks_[lb].section == kFreeRecord) return "object in a freed logical block";
        logical[lb] += e.size_bytes;
        total += e.size_bytes;
        ++objects;
      }
      if (live != blk.live) return "block " + std::to_string(b) + " live count is wrong";
    }
    if (objects != table_.size()) return "objects in blocks != objects in the table";
    if (total != total_bytes_) return "total bytes mismatch";
    uint64_t sum_sections = 0;
    for (const uint32_t sec : order_) {
      const Section& s = sections_[sec];
      uint64_t sum = 0;
      for (uint32_t x = s.head;; x = blocks_[x].next) {
        if (blocks_[x].section != sec) return "block in the wrong section";
        if (blocks_[x].bytes != logical[x]) {
          return "block " + std::to_string(x) + " bytes " + std::to_string(blocks_[x].bytes) +
                 " != " + std::to_string(logical[x]);
        }
        sum += blocks_[x].bytes;
        if (x == s.tail) break;
      }
      if (sum != s.bytes) {
        return "section " + std::to_string(sec) + " bytes " + std::to_string(s.bytes) +
               " != sum of its blocks " + std::to_string(sum);
      }
      sum_sections += sum;
    }
    if (sum_sections != total_bytes_) return "sections do not add up to the total";
    return "";
  }

  /// The relative priority (§4.1) of queued object h, as this queue approximates it:
  /// min(nominal, the middle of its logical block's range), the range being the block's bytes
  /// above the bytes of every block below it, over the total (see the file comment).
  [[gnu::always_inline]] double relative_priority(Handle h) const {
    const uint32_t b = logical_block(h);
    const double nom = nominal(h);
    if (total_bytes_ == 0) return nom;
    // Integer byte counts are exact in a double (< 2^53), so this is the exact middle, however
    // the bytes below are summed.
    const double below = static_cast<double>(bytes_below(b));
    const double mid =
        (below + static_cast<double>(blocks_[b].bytes) / 2) / static_cast<double>(total_bytes_);
    return std::min(nom, mid);
  }

 private:
  static constexpr uint32_t kNone = 0xFFFFFFFFu;
  static constexpr uint16_t kFreeRecord = 0xFFFF;

#ifdef FLASHPQ_RIPQ_DEBUG
 public:
  bool debug_on = false;

 private:
  void debug_check(const char* step) const {
    if (!debug_on) return;
    const std::string err = check_invariants();
    if (!err.empty()) throw std::logic_error(std::string("ripq after ") + step + ": " + err);
  }
#else
  void debug_check(const char*) const {}
#endif

  // One object of a device block's header (§4.2): the header on flash records keys and
  // offsets; the model records handles, and a record is the object's only while that object's
  // entry names this block and offset (holds()): a handle freed and reused elsewhere, or in the
  // same (active) block at a later offset, leaves the old record stale. No tombstones.
  struct Content {
    Handle handle;
    uint32_t offset;  // byte offset of the object in the block
  };

  struct Block {
    uint64_t bytes = 0;     // logical bytes whose position is this block
    uint32_t prev = kNone;  // towards the head
    uint32_t next = kNone;  // towards the tail
    uint32_t slot = kNone;  // device slot once sealed
    uint32_t fill = 0;      // device block: bytes appended (its write offset)
    uint32_t live = 0;      // device block: objects whose data is in it
    // kFreeRecord: a free block record. 16 bits: K <= 64 keeps sections well below 2^16.
    uint16_t section = kFreeRecord;
    bool is_virtual : 1 = false;
    bool sealed : 1 = false;
    bool reclaiming : 1 = false;
  };
  static_assert(sizeof(Block) == 32);

  struct Section {
    uint32_t head = kNone, tail = kNone;  // first and last block of its run
    uint64_t bytes = 0;
    uint32_t active_device = kNone, active_virtual = kNone;
    uint32_t rank = 0;  // position in order_ (0 = head section)
  };

  // ---- object fields: slot = device block (low 24 bits) and nominal priority (high 8 bits),
  //      prev = byte offset in its device block, next = virtual block (kNone if none) ----
  //
  // The nominal relative priority is kept in 8 bits, rounded down to a multiple of 1/255 (the
  // paper's entry is ~20 B plus 2 B for the virtual block, §4.2; ours is 28 B with the chain
  // link). Rounding down changes no decision of the Table 2 policies: SLRU-L's increase reads
  // ⌈p·L⌉ of p = min(nominal, middle), and for a nominal k/L with L < 255 the rounded value q
  // lies in (k−1, k]/L, as does any middle between q and k/L, so ⌈p·L⌉ = k either way; LRU's 1
  // and FIFO's 1 are exact. Only a materialize_threshold between q and the nominal sees it.

  static constexpr uint32_t kBlockBits = 24;
  static constexpr uint32_t kBlockMask = (uint32_t{1} << kBlockBits) - 1;
  /// Most device slots RIPQ accepts: block ids are 24-bit (a slot, its virtual block and the
  /// blocks open in sections stay well below 2^24 blocks).
  static constexpr uint64_t kMaxSlots = kRipqMaxBlocks;

  static constexpr uint32_t kNoBlock = kBlockMask;  // an entry between its blocks

  static uint32_t device_block(const ObjectEntry& e) {
    return e.slot & kBlockMask;
  }

  // Whether header record c of device block b is the object's current copy (see Content).
  bool holds(uint32_t b, const Content& c) const {
    const ObjectEntry& e = table_[c.handle];
    return device_block(e) == b && e.prev == c.offset;
  }
  static void set_device_block(ObjectEntry& e, uint32_t b) {
    e.slot = (e.slot & ~kBlockMask) | b;
  }

  uint32_t logical_block(Handle h) const {
    const ObjectEntry& e = table_[h];
    return e.next != kNone ? e.next : device_block(e);
  }
  double nominal(Handle h) const {
    return static_cast<double>(table_[h].slot >> kBlockBits) / 255.0;
  }
  void set_nominal(Handle h, double p) {
    const auto code = static_cast<uint32_t>(std::clamp(p, 0.0, 1.0) * 255.0);  // rounds down
    ObjectEntry& e = table_[h];
    e.slot = (e.slot & kBlockMask) | (code << kBlockBits);
  }
  double absolute(Handle h) const {
    return absolute_[h];
  }
  void set_absolute(Handle h, double p) {
    if (absolute_.size() <= h) [[unlikely]]
      grow_for_handle(absolute_, h);
    absolute_[h] = p;
  }

  // ---- sections and their order ----

  uint32_t new_section() {
    if (!free_sections_.empty()) {
      const uint32_t s = free_sections_.back();
      free_sections_.pop_back();
      sections_[s] = Section{};
      return s;
    }
    if (sections_.size() >= kFreeRecord) [[unlikely]]
      throw std::length_error("ripq: more than 2^16 - 1 sections");
    sections_.push_back(Section{});
    return static_cast<uint32_t>(sections_.size() - 1);
  }

  size_t rank_of(uint32_t sec) const {
    return sections_[sec].rank;
  }  // 0 = head section

  // Records every section's position in order_ (after a split or a merge changed it).
  void renumber_sections() {
    for (size_t i = 0; i < order_.size(); ++i) sections_[order_[i]].rank = static_cast<uint32_t>(i);
  }

  uint32_t head_of(uint32_t sec) const {
    return sections_[sec].head;
  }

  // The section whose range contains p (§4.2): sections cover (p_{k-1}, p_k] from the tail.
  uint32_t section_of(double p) const {
    if (total_bytes_ == 0 || p >= 1.0) return order_.front();
    const double target = p * static_cast<double>(total_bytes_);
    double cum = 0;
    for (size_t i = order_.size(); i-- > 0;) {
      cum += static_cast<double>(sections_[order_[i]].bytes);
      if (target <= cum) return order_[i];
    }
    return order_.front();
  }

  // ---- bytes below a block: a Fenwick tree over the listed blocks, tail first ----
  //
  // Block byte counts change on every insertion, increase and eviction: the tree
  // (engine/ripq/fenwick.h) is updated in place, O(log blocks). The list's shape changes only
  // when a block opens or is freed (a few times per sealed block): the positions are then stale
  // and the tree is rebuilt, in O(blocks), at the next query.

  uint64_t bytes_below(uint32_t b) const {
    if (tree_stale_) rebuild_tree();
    return tree_.sum_below(list_pos_[b]);
  }

  void add_block_bytes(uint32_t b, uint64_t size) {
    blocks_[b].bytes += size;
    if (!tree_stale_) tree_.add(list_pos_[b], size);
  }

  void sub_block_bytes(uint32_t b, uint64_t size) {
    blocks_[b].bytes -= size;
    if (!tree_stale_) tree_.subtract(list_pos_[b], size);
  }

  void rebuild_tree() const {
    // Sized as the block records are (grown by a quarter), not by the vectors' doubling.
    list_pos_.reserve(blocks_.capacity());
    list_pos_.resize(blocks_.size());
    tree_.start(blocks_.capacity());
    for (uint32_t x = list_tail_; x != kNone; x = blocks_[x].prev) {
      list_pos_[x] = tree_.push(blocks_[x].bytes);
    }
    tree_.build();
    tree_stale_ = false;
  }

  // ---- blocks ----

  // The rest of increase(): h's logical position moves to the active virtual block of the
  // higher section `sec` (§4.4 "Increase"). Out of line: most increases stop before it.
  [[gnu::noinline]] void move_up(Handle h, double rel, uint32_t sec, uint32_t from) {
    set_nominal(h, rel);
    const uint32_t to = sections_[sec].active_virtual;
    if (to == from) return;
    move_logical(h, from, to);
    table_[h].next = to;
    if (blocks_[to].bytes >= block_bytes_) {
      // Sealing a full active virtual block only opens a new one (no I/O).
      sections_[sec].active_virtual = new_block(sec, /*is_virtual=*/true, head_of(sec));
    }
    maybe_split(sec);
    debug_check("increase");
  }

  // Creates a block in section `sec`, linked just above block `before` (kNone: at the tail of
  // the whole list, for an empty queue), and makes it the section's head if `before` was.
  uint32_t new_block(uint32_t sec, bool is_virtual, uint32_t before) {
    uint32_t b;
    if (!free_blocks_.empty()) {
      b = free_blocks_.back();
      free_blocks_.pop_back();
    } else {
      if (blocks_.size() >= kBlockMask) [[unlikely]]
        throw std::length_error("ripq: more than 2^24 - 1 block records");
      if (blocks_.size() == blocks_.capacity()) [[unlikely]]  // by a quarter, not doubling
        blocks_.reserve(blocks_.size() + blocks_.size() / 4 + 16);
      blocks_.emplace_back();
      b = static_cast<uint32_t>(blocks_.size() - 1);
    }
    tree_stale_ = true;
    Block& blk = blocks_[b];
    blk = Block{};
    if (headers_.size() <= b) headers_.resize(b + 1);
    headers_[b].clear();  // keeps its capacity for the block's next life
    blk.section = static_cast<uint16_t>(sec);
    blk.is_virtual = is_virtual;
    Section& s = sections_[sec];
    if (before == kNone) {  // the list's tail
      blk.prev = list_tail_;
      if (list_tail_ != kNone)
        blocks_[list_tail_].next = b;
      else
        list_head_ = b;
      list_tail_ = b;
      if (s.tail == kNone) s.tail = b;
      if (s.head == kNone) s.head = b;
    } else {
      blk.next = before;
      blk.prev = blocks_[before].prev;
      if (blk.prev != kNone)
        blocks_[blk.prev].next = b;
      else
        list_head_ = b;
      blocks_[before].prev = b;
      if (s.head == before || s.head == kNone) s.head = b;
      if (s.tail == kNone) s.tail = b;
    }
    return b;
  }

  void unlink_block(uint32_t b) {
    tree_stale_ = true;
    Block& blk = blocks_[b];
    Section& s = sections_[blk.section];
    if (s.head == b) s.head = (s.tail == b) ? kNone : blk.next;
    if (s.tail == b) s.tail = (s.head == kNone) ? kNone : blk.prev;
    if (blk.prev != kNone)
      blocks_[blk.prev].next = blk.next;
    else
      list_head_ = blk.next;
    if (blk.next != kNone)
      blocks_[blk.next].prev = blk.prev;
    else
      list_tail_ = blk.prev;
    blk.section = kFreeRecord;
    free_blocks_.push_back(b);
  }

  // Opens a new active device block and active virtual block at the head of `sec`, whose run
  // starts at `first` (kNone: the section is empty and goes at the list's tail — only for the
  // very first section). The virtual block goes above the device block.
  void open_active_blocks(uint32_t sec, uint32_t first) {
    const uint32_t dev = new_block(sec, false, first);
    sections_[sec].active_device = dev;
    sections_[sec].active_virtual = new_block(sec, true, dev);
    update_dram();
  }

  void update_dram() {
    counters_.dram_buffer_bytes =
        std::max<uint64_t>(counters_.dram_buffer_bytes, order_.size() * block_bytes_);
  }

  // Appends h's data to the active device block of `sec` (sealing it first when h does not
  // fit). The object's logical position becomes that block.
  void append(uint32_t sec, Handle h) {
    const uint32_t size = table_[h].size_bytes;
    uint32_t dev = sections_[sec].active_device;
    if (blocks_[dev].fill + size > block_bytes_) {
      seal(sec);
      dev = sections_[sec].active_device;
    }
    Block& blk = blocks_[dev];
    ObjectEntry& e = table_[h];
    set_device_block(e, dev);
    e.prev = blk.fill;
    headers_[dev].push_back(Content{h, blk.fill});
    blk.fill += size;
    blk.live++;
    add_block_bytes(dev, size);
    sections_[sec].bytes += size;
    total_bytes_ += size;
    maybe_split(sec);
    debug_check("append");
  }

  // Writes the section's active device block to a free slot and opens new active blocks.
  // Reclaiming (delete-min) is deferred to seal_and_reclaim(), which runs at the end of every
  // insertion, so a reclaim never runs inside another's materialization.
  void seal(uint32_t sec) {
    const uint32_t dev = sections_[sec].active_device;
    // A reclaim can materialize into several sections' active blocks, each of which may seal:
    // when that exhausts the slots, reclaim another tail block right here.
    while (free_slots_.empty()) {
      const uint32_t t = tail_sealed_block();
      if (t == kNone) throw std::logic_error("ripq: no sealed block left to reclaim");
      reclaim(t);
    }
    const uint32_t slot = free_slots_.front();
    free_slots_.pop_front();
    Block& blk = blocks_[dev];
    blk.slot = slot;
    blk.sealed = true;
    device_.write(uint64_t{slot} * block_bytes_, block_bytes_,
                  placement_);  // the whole block, padding too
    const uint32_t old_virtual = sections_[sec].active_virtual;
    const uint32_t head = sections_[sec].head;
    sections_[sec].active_device = new_block(sec, false, head);
    sections_[sec].active_virtual = new_block(sec, true, sections_[sec].active_device);
    collect_empty(dev);
    collect_empty(old_virtual);
    pending_reclaim_ = true;
  }

  void seal_and_reclaim() {
    if (!pending_reclaim_) return;  // nothing was sealed since the last insertion
    while (free_slots_.size() < reserved_) {
      const uint32_t b = tail_sealed_block();
      if (b == kNone) break;
      reclaim(b);
    }
    // Merges run here only, never inside a reclaim: a reclaim may be nested in an append
    // (seal() reclaiming for a slot) whose section must survive it.
    merge_pass();
    pending_reclaim_ = false;
  }

  // The tail-most sealed device block not already being reclaimed.
  uint32_t tail_sealed_block() const {
    for (uint32_t b = list_tail_; b != kNone; b = blocks_[b].prev) {
      if (!blocks_[b].is_virtual && blocks_[b].sealed && !blocks_[b].reclaiming) return b;
    }
    return kNone;
  }

  // Delete-min (§4.4): read the header, materialize or evict every live object, trim.
  void reclaim(uint32_t b) {
    blocks_[b].reclaiming = true;
    const uint64_t offset = uint64_t{blocks_[b].slot} * block_bytes_;
    device_.read(offset, header_bytes_);
    // By index, with a copy of each record: materializing opens blocks, which may move the
    // headers' vector.
    for (size_t i = 0; i < headers_[b].size(); ++i) {
      const Content c = headers_[b][i];
      if (!holds(b, c)) continue;  // the object left, or its handle was reused since
      const Handle h = c.handle;
      const uint32_t size = table_[h].size_bytes;
      const uint32_t v = table_[h].next;
      if (v != kNone && (threshold_ <= 0 || relative_priority(h) >= threshold_)) {
        // Materialize: read the object, copy it into the active block of v's section.
        device_.read_covering(offset + c.offset, size);
        blocks_[b].live--;
        const uint32_t sec = blocks_[v].section;
        sub_block_bytes(v, size);
        sections_[sec].bytes -= size;
        total_bytes_ -= size;
        table_[h].next = kNone;
        collect_empty(v);
        append(sec, h);
        counters_.reinsertions++;
        counters_.reinserted_bytes += size;
        counters_.placed_bytes += size;
        counters_.placed_objects++;
        counters_.superseded_bytes += size;  // the copy left in the reclaimed block
      } else {
        sink_.before_evict(h);
        if constexpr (kKind == PriorityKind::kAbsolute) histogram_.remove(absolute(h), size);
        drop_logical(h, logical_block(h));
        blocks_[b].live--;
        set_device_block(table_[h], kNoBlock);  // its record in b is stale from here
        counters_.evicted_objects++;
        counters_.evicted_bytes += size;
        const uint32_t lb = v;  // a virtual block below threshold may become empty
        table_.remove(h);
        if (lb != kNone) collect_empty(lb);
      }
    }
    free_slot_data(offset);
    free_slots_.push_back(blocks_[b].slot);
    unlink_block(b);  // its logical bytes are 0: every object left or moved to a virtual block
    debug_check("reclaim");
  }

  // Moves h's logical bytes from block `from` to block `to` (an increase).
  void move_logical(Handle h, uint32_t from, uint32_t to) {
    const uint32_t size = table_[h].size_bytes;
    sub_block_bytes(from, size);
    sections_[blocks_[from].section].bytes -= size;
    add_block_bytes(to, size);
    sections_[blocks_[to].section].bytes += size;
    collect_empty(from);
  }

  void drop_logical(Handle h, uint32_t lb) {
    const uint32_t size = table_[h].size_bytes;
    sub_block_bytes(lb, size);
    sections_[blocks_[lb].section].bytes -= size;
    total_bytes_ -= size;
  }

  // The object's data leaves its device block (delete or replacement).
  void leave_device_block(Handle h) {
    const uint32_t dev = device_block(table_[h]);
    set_device_block(table_[h], kNoBlock);  // its record in dev's header is stale from here
    blocks_[dev].live--;
    collect_empty(dev);
  }

  // A slot's data is gone: TRIM, or on a zoned device (a slot per zone) the zone's reset, the
  // host's collection (every slot is freed this way before it is written again).
  void free_slot_data(uint64_t offset) {
    if (zoned_) {
      device_.zone_reset(offset);
    } else {
      device_.trim(offset, block_bytes_);
    }
  }

  // Frees a block that holds nothing any more: a sealed virtual block with no objects, or a
  // sealed device block whose data all left (its slot is trimmed and freed).
  void collect_empty(uint32_t b) {
    if (b == kNone || blocks_[b].section == kFreeRecord) return;
    Block& blk = blocks_[b];
    const Section& s = sections_[blk.section];
    if (b == s.active_device || b == s.active_virtual || blk.bytes != 0) return;
    if (blk.is_virtual) {
      unlink_block(b);
    } else if (blk.sealed && blk.live == 0 && !blk.reclaiming) {
      free_slot_data(uint64_t{blk.slot} * block_bytes_);
      free_slots_.push_back(blk.slot);
      unlink_block(b);
    }
  }

  // §4.4: split a section past 2α of the queue into two halves at a block boundary.
  void maybe_split(uint32_t sec) {
    Section& s = sections_[sec];
    if (static_cast<double>(s.bytes) * k_ <= 2.0 * static_cast<double>(total_bytes_)) return;
    // The upper half keeps the section's active blocks, so the cut never lies above either
    // of them (sealed virtual blocks opened at the head can sit above the active device block).
    // An active block at the section's tail leaves no cut: return before walking (a head
    // section fed only by increases keeps its active device block at its tail for long).
    if (s.active_device == s.tail || s.active_virtual == s.tail) return;
    uint64_t acc = 0;
    uint32_t cut = s.head;  // last block of the upper half
    bool passed_dev = cut == s.active_device, passed_virt = cut == s.active_virtual;
    while (cut != s.tail &&
           (acc + blocks_[cut].bytes < s.bytes / 2 || !passed_dev || !passed_virt)) {
      acc += blocks_[cut].bytes;
      cut = blocks_[cut].next;
      passed_dev = passed_dev || cut == s.active_device;
      passed_virt = passed_virt || cut == s.active_virtual;
    }
    if (cut == s.tail) return;  // nothing below the cut: one block holds most of the section
    const uint32_t lower = new_section();
    Section& up = sections_[sec];
    Section& lo = sections_[lower];
    lo.head = blocks_[cut].next;
    lo.tail = up.tail;
    up.tail = cut;
    uint64_t moved = 0;
    for (uint32_t x = lo.head;; x = blocks_[x].next) {
      blocks_[x].section = static_cast<uint16_t>(lower);
      moved += blocks_[x].bytes;
      if (x == lo.tail) break;
    }
    up.bytes -= moved;
    lo.bytes = moved;
    order_.insert(order_.begin() + static_cast<std::ptrdiff_t>(rank_of(sec)) + 1, lower);
    renumber_sections();
    open_active_blocks(lower, lo.head);
    debug_check("split");
  }

  // §4.4: merge neighbours holding less than α of the queue together; absorb empty sections.
  void merge_pass() {
    for (size_t i = order_.size(); i-- > 1;) {
      const uint32_t up = order_[i - 1], lo = order_[i];
      const uint64_t sum = sections_[up].bytes + sections_[lo].bytes;
      if (sections_[lo].bytes == 0 || sections_[up].bytes == 0 ||
          static_cast<double>(sum) * k_ < static_cast<double>(total_bytes_)) {
        merge(i - 1);
      }
    }
  }

  // Merges order_[i+1] (lower) into order_[i] (upper). The merged section keeps the upper
  // section's active blocks; the lower active device buffer is copied into the upper one when
  // it fits, else sealed (written) in place; the lower active virtual block becomes sealed.
  void merge(size_t i) {
    const uint32_t up = order_[i], lo = order_[i + 1];
    Section& u = sections_[up];
    Section& l = sections_[lo];
    const uint32_t lo_dev = l.active_device;
    const bool fits = blocks_[u.active_device].fill + blocks_[lo_dev].fill <= block_bytes_;
    if (!fits && blocks_[lo_dev].live > 0 && free_slots_.empty()) return;  // try again later
    for (uint32_t x = l.head;; x = blocks_[x].next) {
      blocks_[x].section = static_cast<uint16_t>(up);
      if (x == l.tail) break;
    }
    u.tail = l.tail;
    u.bytes += l.bytes;
    order_.erase(order_.begin() + static_cast<std::ptrdiff_t>(i) + 1);
    renumber_sections();
    free_sections_.push_back(lo);
    const uint32_t up_dev = u.active_device;
    Block& src = blocks_[lo_dev];
    if (fits) {
      // Copy the live objects into the upper buffer (RAM to RAM, no I/O).
      for (const Content& c : headers_[lo_dev]) {
        if (!holds(lo_dev, c)) continue;
        Block& dst = blocks_[up_dev];
        ObjectEntry& e = table_[c.handle];
        const uint32_t size = e.size_bytes;
        set_device_block(e, up_dev);
        e.prev = dst.fill;
        headers_[up_dev].push_back(Content{c.handle, dst.fill});
        dst.fill += size;
        dst.live++;
        if (e.next == kNone) {  // its logical position moves with it
          sub_block_bytes(lo_dev, size);
          add_block_bytes(up_dev, size);
        }
      }
      headers_[lo_dev].clear();
      src.live = 0;
      src.bytes = 0;
      unlink_block(lo_dev);
    } else if (src.live > 0) {
      const uint32_t slot = free_slots_.front();
      free_slots_.pop_front();
      src.slot = slot;
      src.sealed = true;
      device_.write(uint64_t{slot} * block_bytes_, block_bytes_, placement_);
      pending_reclaim_ = true;
    } else {
      unlink_block(lo_dev);
    }
    const uint32_t lo_virt = l.active_virtual;
    if (blocks_[lo_virt].bytes == 0) unlink_block(lo_virt);
    debug_check("merge");
  }

  ObjectTable& table_;
  Device& device_;
  bool zoned_ = false;      // a slot per zone: freeing a slot resets its zone
  uint32_t placement_ = 0;  // the FDP placement handle of its one data class, blocks
  EvictionSink sink_;
  uint64_t block_bytes_;
  uint64_t slots_;
  uint32_t reserved_;
  uint32_t k_;
  double threshold_;
  uint64_t flash_bytes_ = 0;
  uint64_t header_bytes_ = 1;

  std::vector<Block> blocks_;
  std::vector<std::vector<Content>> headers_;  // by block: the model of its on-flash header
  std::vector<uint32_t> free_blocks_;
  std::vector<Section> sections_;
  std::vector<uint32_t> free_sections_;
  std::vector<uint32_t> order_;             // section ids, head to tail
  mutable std::vector<uint32_t> list_pos_;  // block -> position in the list, tail = 0
  mutable FenwickTree tree_;                // prefix sums of blocks' bytes, tail first
  mutable bool tree_stale_ = true;          // the list changed shape since the last build
  uint32_t list_head_ = kNone, list_tail_ = kNone;
  std::deque<uint32_t> free_slots_;
  uint64_t total_bytes_ = 0;
  uint64_t increases_ = 0;
  bool pending_reclaim_ = false;  // a block was sealed: reclaim and merge at the insertion's end
  DynamicHistogram histogram_;
  std::vector<double> absolute_;  // by handle: the absolute priority (GDSF)
  FrameworkCounters counters_;
};

/// The `ripq` framework as registered (engine/framework.h); its keys: RipqConfig.
struct RipqFramework {
  static const ComponentSpec& spec();
  /// Decodes the keys it reads, to check them. Throws std::invalid_argument.
  static void check(const Params& params) { RipqConfig::from(params); }
  /// B resolved, ⌊C/B⌋ blocks of the device addressed, and the notes on configurations that
  /// starve the queue: fewer than 4·K blocks (each of the K sections, §4.2, then spans under 4
  /// blocks, so insertion points collapse onto the same blocks), reserved blocks over a quarter
  /// of them (§4.4: the reserve is not cache), and B below the largest object (never cached).
  static FrameworkLayout layout(const Params& params, const CacheShape& shape);
  static constexpr bool kHasQueue = true;
  template <class P>
  using Queue = RipqQueue<P::kKind>;
};

}  // namespace flashpq
