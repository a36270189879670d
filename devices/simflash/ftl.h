// devices/simflash/ftl.h — the page-mapped flash translation layer of simflash, functional
// (counts only, no time).
//
// Model. Logical pages (page-sized) map to physical pages through a flat uint32 table; writes
// go out of place to a write frontier, an open superblock filled in lane order: page 0 of the
// erase block on (channel 0, die 0, plane 0), then on channel 1, …, then the next die, then the
// next plane, then page 1 of each, … — so consecutive writes stripe across every channel, die
// and plane (MQSim's CWDP order; FEMU's write pointer advances channel first too). The
// superblock — one erase block per (channel, die, plane) — is the unit of allocation, of
// garbage collection and of erasure: the "aggregated erase block" of the RIPQ paper §3.
// GC copies go to a separate GC frontier or to the host frontier (SimFlashConfig::gc_stream).
// GC starts when the host frontier has just taken a free superblock and fewer than gc_low_watermark
// remain, and collects victims until gc_high_watermark are free; each victim's valid pages are
// copied, then all its erase blocks are erased and it joins the tail of the free list (FIFO, so
// erases spread over all superblocks). A write — of one page, or of an extent (write_extent) —
// invalidates the old copies before GC can run, so GC never copies a page being overwritten.
//
// Victim policies (SimFlashConfig::gc_policy), over sealed superblocks only. greedy, fifo and
// cost_benefit take a superblock without valid pages first (no copies; inherent in greedy and
// cost_benefit, and under uniform random writes it never measurably changes a fifo victim);
// d_choices takes only what it draws, as in Van Houdt's model and MQSim's RGA (taking empties
// first would lower the random policy's WA by 2 % at ρ = 0.5, off 1/(1 − ρ)):
//   greedy        fewest valid pages, from buckets indexed by valid count (O(1) amortized, as
//                 in Desnoyers' ftlsim and MQSim); Hu et al., SYSTOR'09. Ties: the superblock
//                 that reached that count first.
//   fifo          oldest sealed first (LRW; Desnoyers, SYSTOR'12 / ACM ToS'14, Eq. 4 gives its
//                 write amplification under uniform random writes).
//   cost_benefit  largest (1 − u)·age / 2u (Rosenblum & Ousterhout; Kawaguchi et al.), O(N).
//   d_choices     fewest valid pages among d drawn uniformly with replacement (Van Houdt,
//                 SIGMETRICS'13); seeded, the RNG is the FTL's own.
//
// Flexible Data Placement (SimFlashConfig::fdp_handles > 0; NVMe Base 2.1 §3.2.4, §8.1.10;
// docs/reference/fdp-spec.md). Modelling choices, as FEMU's FDP FTL makes them
// (hw/femu/bbssd/ftl-fdp.c): a reclaim unit (RU) is one superblock, there is one reclaim group,
// and reclaim unit handle h is host frontier h. A write's placement handle h < fdp_handles goes
// to RUH h; any other is an invalid placement identifier: RUH 0, and event 03h is counted
// (Base 2.1 p. 539). Victims are chosen by gc_policy across all handles (FEMU's greedy over the
// reclaim group). GC copies go, with a separate GC stream, to one shared GC frontier when the
// handles are initially isolated (the spec lets GC mix their data) and to handle h's own GC
// frontier when they are persistently isolated; with a shared stream, to the host frontier of
// the victim's handle. Each physical page keeps the handle its data was written through, so
// host and media pages are counted per handle (FEMU counts HBMW/MBMW per RUH too), and a victim
// of an initially isolated handle holding valid data raises event 80h, Media Reallocated, with
// the pages moved (FEMU raises 81h instead; Base 2.1 p. 300 defines 80h for this). A host that
// misclassifies lifetimes is modelled by fdp_misplaced_fraction: each write request goes, with
// that probability, through another handle drawn uniformly (seeded). Without FDP every
// placement handle is ignored and nothing here changes a count.
//
// Zoned Namespaces (SimFlashConfig::zoned(); NVMe Zoned Namespace Command Set 1.1; as QEMU's
// and FEMU's ZNS models, hw/femu/zns/). The logical space is zones of zone_size pages, each
// writable up to its capacity, sequentially at its write pointer; zone z owns superblocks
// [z·k, z·k + k) (k = zone_superblocks()) for life, its page p at superblock z·k + p ÷ S, page
// p mod S in lane order (S = pages per superblock), so consecutive writes stripe as without
// zones. There is no GC: nothing is ever copied, a zone's superblocks are erased when the host
// resets it, and NAND pages written = host pages written (device-level WA 1; every copy is the
// host's). Zone states: empty, implicitly open (by a write), closed (by the open limit), full
// (written to capacity, or finished). A write that is not at its zone's write pointer, runs
// past the capacity or finds the zone full throws ZoneError with the NVMe status (Zone Invalid
// Write 0xBC, Zone Boundary Error 0xB8, Zone Is Full 0xB9); opening a zone past
// zns_max_open_zones first closes the implicitly open zone opened first, and activating one
// past zns_max_active_zones throws Too Many Active Zones (0xBD), as QEMU's nvme_zrm_open and
// nvme_aor_check. Reads below the write pointer read NAND; above it, they are unmapped reads.
// TRIM (deallocate) leaves zones as they are: the pages stay valid until the zone is reset.
// Explicit open and close are not modelled (a cache never needs them).
//
// Counters (FtlCounters) can be snapshotted and subtracted, to measure after a warm-up:
// wa_ftl = NAND page writes ÷ host page writes (Hu et al.; the RIPQ paper's "FTL write
// amplification").
//
// Timing seam: set_op_log() makes the FTL append every NAND operation (read, program, erase)
// it performs, with its cause (host or GC), so a timing model can replay the operations of one
// host request on the dies and channels locate() names. Nothing is appended by default.
//
// Cost: no allocation after construction (an op log, when set, is the caller's vector and
// grows as vectors do); memory 4 B per logical page + 4 B per physical page + 2 B per erase
// block + ~40 B per superblock (+ 4 B per page of a superblock for greedy's buckets).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "devices/simflash/simflash_config.h"
#include "sim/rng.h"

namespace flashpq {

/// FTL counters, in pages and operations. Monotonic; subtract two snapshots to measure an
/// interval.
struct FtlCounters {
  /// Pages written by the host.
  uint64_t host_pages_written = 0;
  /// Pages read by the host, mapped or not.
  uint64_t host_pages_read = 0;
  /// Host page reads of a never-written or trimmed page (no NAND read).
  uint64_t host_pages_read_unmapped = 0;
  /// Pages trimmed by the host, mapped or not.
  uint64_t host_pages_trimmed = 0;
  /// Trimmed pages that were mapped (each invalidated one physical page).
  uint64_t host_pages_trimmed_mapped = 0;
  /// Pages programmed: host writes + GC copies.
  uint64_t nand_pages_written = 0;
  /// Pages read from NAND: mapped host reads + GC copy reads.
  uint64_t nand_pages_read = 0;
  /// Valid pages GC copied out of victims.
  uint64_t gc_pages_copied = 0;
  /// GC runs (low watermark crossed → high watermark reached).
  uint64_t gc_runs = 0;
  /// Victim superblocks collected (each then erased).
  uint64_t gc_victims = 0;
  /// Victims that had no valid page (reclaimed without copies).
  uint64_t gc_victims_empty = 0;
  /// Erase blocks erased (superblock erases × erase blocks per superblock).
  uint64_t erases = 0;
  /// Superblocks erased.
  uint64_t superblock_erases = 0;
  /// FDP event 80h, Media Reallocated: victims of initially isolated handles GC collected with
  /// valid data, and the pages it moved out of them. 0 without FDP or with persistently
  /// isolated handles (no event is defined for them).
  uint64_t fdp_media_reallocated_events = 0;
  uint64_t fdp_media_reallocated_pages = 0;
  /// FDP event 03h, Invalid Placement Identifier: host writes whose placement handle is not
  /// below fdp_handles (written through RUH 0). 0 without FDP.
  uint64_t fdp_invalid_placement_events = 0;
  /// Host write requests sent through another handle than their own
  /// (SimFlashConfig::fdp_misplaced_fraction).
  uint64_t fdp_misplaced_writes = 0;

  /// ZNS: zone resets that erased a zone (a reset of an empty zone erases nothing and is not
  /// counted), zone finishes, zone appends, and implicitly open zones closed by the open limit.
  uint64_t zone_resets = 0;
  uint64_t zone_finishes = 0;
  uint64_t zone_appends = 0;
  uint64_t zone_implicit_closes = 0;

  /// NAND ÷ host pages written; 0 when no host page was written.
  double wa_ftl() const {
    return host_pages_written == 0 ? 0.0 : double(nand_pages_written) / double(host_pages_written);
  }
  /// Field-wise difference: the counts of the interval between snapshot `earlier` and this.
  /// REQUIRES: `earlier` taken from the same FTL before this one.
  FtlCounters operator-(const FtlCounters& earlier) const;
  bool operator==(const FtlCounters&) const = default;
};

/// An FDP reclaim unit handle's page counts (FEMU's per-RUH HBMW and MBMW, in pages).
struct FdpHandleCounters {
  /// Pages the host wrote through the handle.
  uint64_t host_pages_written = 0;
  /// Pages of the handle's data programmed: its host writes and GC's copies of them.
  uint64_t media_pages_written = 0;
  FdpHandleCounters operator-(const FdpHandleCounters& e) const {
    return {host_pages_written - e.host_pages_written, media_pages_written - e.media_pages_written};
  }
  bool operator==(const FdpHandleCounters&) const = default;
};

/// Erase counts across all erase blocks. Every erase block of a superblock is erased together,
/// so a superblock's blocks share one count.
struct EraseCountStats {
  uint32_t min = 0;
  double mean = 0.0;
  uint32_t max = 0;
};

/// A zone's state (NVMe ZNS 1.1 zone state machine; explicitly opened zones are not modelled).
enum class ZoneState : uint8_t { kEmpty, kImplicitlyOpen, kClosed, kFull };

/// A zoned write or zone operation the device refuses, with the NVMe status it would return.
class ZoneError : public std::invalid_argument {
 public:
  ZoneError(uint16_t status, const std::string& what)
      : std::invalid_argument(what), status_(status) {}
  /// The NVMe status code: 0xB8 Zone Boundary Error, 0xB9 Zone Is Full, 0xBC Zone Invalid
  /// Write, 0xBD Too Many Active Zones.
  uint16_t status() const { return status_; }

 private:
  uint16_t status_;
};

/// Where a physical page is.
struct FlashAddress {
  uint32_t channel = 0;
  uint32_t die = 0;    // within the channel
  uint32_t plane = 0;  // within the die
  uint32_t block = 0;  // within the plane = superblock index
  uint32_t page = 0;   // within the block
};

enum class FlashOpKind : uint8_t { kRead, kProgram, kErase };
enum class FlashOpCause : uint8_t { kHost, kGc };

/// One NAND operation. target: the physical page (read, program) or the superblock (erase:
/// every erase block of it).
struct FlashOp {
  FlashOpKind kind;
  FlashOpCause cause;
  uint32_t target;
};

/// The page-mapped FTL. Not thread-safe.
class Ftl {
 public:
  /// Value of physical_page() for an unmapped logical page.
  static constexpr uint32_t kUnmapped = 0xFFFFFFFFu;

  /// Validates config (std::invalid_argument as SimFlashConfig::validate) and allocates every
  /// table; all superblocks start free and erased (erase count 0).
  explicit Ftl(const SimFlashConfig& config);

  /// Writes logical page lpn (out of place; the old copy, if any, becomes invalid) through
  /// placement handle `placement` (FDP; ignored without it). May run GC. Throws
  /// std::out_of_range if lpn ≥ logical_pages().
  void write(uint64_t lpn, uint32_t placement = 0) {
    check_lpn(lpn);
    if (zoned_) [[unlikely]] {
      zoned_write(lpn, 1);
      return;
    }
    const uint32_t h = handle_of(placement);
    const uint32_t old = l2p_[lpn];
    if (old != kUnmapped) invalidate(old);
    while (host_[h].sb == kNone) open_host_frontier(h);
    program(host_[h], static_cast<uint32_t>(lpn), FlashOpCause::kHost, h);
    ++counters_.host_pages_written;
    if (fdp_) ++fdp_counters_[h].host_pages_written;
  }
  /// Writes the `count` logical pages from lpn as one host request through placement handle
  /// `placement` (as write()): every old copy is invalidated before the first page is
  /// programmed, so GC running during the request never copies a page the request overwrites
  /// (the request's data is all in the controller). Throws std::out_of_range if the extent
  /// ends past logical_pages().
  void write_extent(uint64_t lpn, uint64_t count, uint32_t placement = 0);
  /// Reads logical page lpn: a NAND read if mapped; an unmapped read is allowed and counted.
  /// Throws std::out_of_range if lpn ≥ logical_pages().
  void read(uint64_t lpn) {
    check_lpn(lpn);
    ++counters_.host_pages_read;
    const uint32_t ppn = l2p_[lpn];
    if (ppn == kUnmapped) {
      ++counters_.host_pages_read_unmapped;
      return;
    }
    ++counters_.nand_pages_read;
    if (op_log_) op_log_->push_back({FlashOpKind::kRead, FlashOpCause::kHost, ppn});
  }
  /// TRIM of logical page lpn: unmaps it and invalidates its physical page (no NAND op).
  /// Throws std::out_of_range if lpn ≥ logical_pages().
  void trim(uint64_t lpn) {
    check_lpn(lpn);
    ++counters_.host_pages_trimmed;
    if (zoned_) [[unlikely]]
      return;  // zones keep their pages until reset (file comment)
    const uint32_t ppn = l2p_[lpn];
    if (ppn == kUnmapped) return;
    ++counters_.host_pages_trimmed_mapped;
    invalidate(ppn);
    l2p_[lpn] = kUnmapped;
  }

  // --- Zoned Namespaces (file comment); every call below REQUIRES zoned() unless noted ---
  /// Whether the FTL is zoned (SimFlashConfig::zoned()). Any FTL.
  bool zoned() const { return zoned_; }
  uint32_t zones() const { return static_cast<uint32_t>(zones_.size()); }
  uint64_t zone_size_pages() const { return zone_size_pages_; }
  uint64_t zone_capacity_pages() const { return zone_cap_pages_; }
  /// Zone z's write pointer: pages written from its start. REQUIRES: z < zones().
  uint64_t zone_write_pointer(uint32_t z) const { return zones_[z].wp; }
  ZoneState zone_state(uint32_t z) const { return zones_[z].state; }
  /// Zones implicitly open; zones open or closed (active).
  uint32_t open_zones() const { return open_zones_; }
  uint32_t active_zones() const { return active_zones_; }
  /// Zone Append of `count` pages to zone z: written at its write pointer, whose page (the
  /// logical page of the first one) is returned. Throws ZoneError as a write there would, and
  /// std::out_of_range if z ≥ zones() (as zone_reset and zone_finish).
  uint64_t zone_append(uint32_t z, uint64_t count);
  /// Zone Reset: unmaps the zone's pages and erases its superblocks (nothing for an empty
  /// zone); the zone becomes empty, its write pointer 0.
  void zone_reset(uint32_t z);
  /// Zone Finish: the zone becomes full where its write pointer is (the rest of its capacity
  /// unwritable until a reset), releasing its open and active resources.
  void zone_finish(uint32_t z);

  const SimFlashConfig& config() const { return config_; }
  const FtlCounters& counters() const { return counters_; }
  /// Per reclaim unit handle, FDP's page counts (empty without FDP).
  const std::vector<FdpHandleCounters>& fdp_counters() const { return fdp_counters_; }
  /// The handle whose data is in valid physical page ppn (FDP), or kNoHandle (not valid, or
  /// no FDP). REQUIRES: ppn < physical_pages().
  uint32_t page_handle(uint32_t ppn) const {
    return fdp_ && p2l_[ppn] != kNone ? p2h_[ppn] : kNoHandle;
  }
  static constexpr uint32_t kNoHandle = 0xFFFFFFFFu;
  /// Exported logical pages (SimFlashConfig::exported_pages()).
  uint64_t logical_pages() const { return l2p_.size(); }
  uint64_t physical_pages() const { return p2l_.size(); }
  uint32_t superblocks() const { return nsb_; }
  uint32_t pages_per_superblock() const { return sb_pages_; }

  /// Physical page of lpn, or kUnmapped. REQUIRES: lpn < logical_pages().
  uint32_t physical_page(uint64_t lpn) const { return l2p_[lpn]; }
  /// Superblock holding physical page ppn. REQUIRES: ppn < physical_pages().
  uint32_t superblock_of(uint32_t ppn) const { return sb_div_.div(ppn); }
  /// Channel, die, plane, block and page of physical page ppn. REQUIRES: ppn <
  /// physical_pages().
  FlashAddress locate(uint32_t ppn) const;

  /// Valid pages in superblock sb. REQUIRES: sb < superblocks().
  uint32_t valid_pages(uint32_t sb) const { return sb_valid_[sb]; }
  /// Valid pages in one erase block. REQUIRES: each index below its geometry bound.
  uint32_t valid_pages_in_block(uint32_t channel, uint32_t die, uint32_t plane,
                                uint32_t block) const;
  /// Times the erase blocks of superblock sb were erased. REQUIRES: sb < superblocks().
  uint32_t erase_count(uint32_t sb) const { return erase_count_[sb]; }
  /// Min / mean / max erase count over all erase blocks. O(superblocks).
  EraseCountStats erase_count_stats() const;
  /// Superblocks free (erased, not open). Excludes the open frontiers.
  uint32_t free_superblocks() const { return free_count_; }
  /// Physical pages erased and not yet programmed: the free superblocks' and the unwritten
  /// tails of the open frontiers.
  uint64_t erased_pages() const {
    uint64_t n = uint64_t{free_count_} * sb_pages_;
    for (const Frontier& f : host_) {
      if (f.sb != kNone) n += sb_pages_ - f.next;
    }
    for (const Frontier& f : gc_) {
      if (f.sb != kNone) n += sb_pages_ - f.next;
    }
    return n;
  }
  /// Superblocks sealed (full, GC candidates).
  uint32_t sealed_superblocks() const { return nsb_ - free_count_ - open_count_; }

  /// Appends every NAND operation from now on to *log (nullptr: stop). The FTL never clears
  /// it; the caller drains it. REQUIRES: log outlives its use here.
  void set_op_log(std::vector<FlashOp>* log) { op_log_ = log; }

  /// Recomputes every count from the maps and checks l2p/p2l agree, valid counts, free list and
  /// victim structures. O(physical pages). Throws std::logic_error describing the first
  /// mismatch. For tests.
  void check_invariants() const;

 private:
  static constexpr uint32_t kNone = 0xFFFFFFFFu;
  enum class SbState : uint8_t { kFree, kOpen, kSealed, kVictim, kZoned };  // kZoned: a zone's

  // Exact division and remainder of 32-bit values by a fixed divisor: a shift and mask for a
  // power of two, else Lemire, Kaser & Kurz, "Faster remainder by direct computation",
  // Software: Practice and Experience 2019 (M = ⌊(2^64 − 1)/d⌋ + 1, exact for 32-bit operands).
  struct FastDiv {
    uint32_t d = 1;
    uint32_t shift = 0;
    uint64_t m = 0;
    bool pow2 = true;
    void init(uint32_t divisor);
    uint32_t div(uint32_t a) const {
      return pow2 ? a >> shift : uint32_t((static_cast<unsigned __int128>(m) * a) >> 64);
    }
    uint32_t mod(uint32_t a) const {
      if (pow2) return a & (d - 1);
      const uint64_t low = m * a;
      return uint32_t((static_cast<unsigned __int128>(low) * d) >> 64);
    }
  };

  // The two page maps: 2 MiB-aligned and marked for transparent huge pages (Linux
  // madvise(MADV_HUGEPAGE)) before first touch, so random map accesses on a large geometry do
  // not each pay a TLB miss.
  class PageMap {
   public:
    void assign(size_t n, uint32_t value);
    uint32_t& operator[](size_t i) { return data_.get()[i]; }
    uint32_t operator[](size_t i) const { return data_.get()[i]; }
    size_t size() const { return size_; }

   private:
    struct Free {
      void operator()(uint32_t* p) const;
    };
    std::unique_ptr<uint32_t, Free> data_;
    size_t size_ = 0;
  };

  struct Frontier {
    uint32_t sb = kNone;  // open superblock, kNone if none
    uint32_t next = 0;    // next page offset in it
    uint32_t lane = 0;    // next % lanes
    uint16_t owner = 0;   // FDP: the handle its superblocks are opened for, or kMixed
  };

  void check_lpn(uint64_t lpn) const {
    if (lpn >= l2p_.size()) throw_out_of_range(lpn);
  }
  [[noreturn]] void throw_out_of_range(uint64_t lpn) const;

  void invalidate(uint32_t ppn) {
    p2l_[ppn] = kNone;
    const uint32_t sb = sb_div_.div(ppn);
    const uint32_t lane = lane_div_.mod(ppn - sb * sb_pages_);
    --block_valid_[size_t(sb) * lanes_ + lane];
    const uint32_t v = --sb_valid_[sb];
    if (state_[sb] == SbState::kSealed) sealed_lost_page(sb, v);
  }
  // Programs lpn at f's next page; `handle` is the FDP handle whose data it is.
  void program(Frontier& f, uint32_t lpn, FlashOpCause cause, uint32_t handle) {
    if (f.sb == kNone) open(f);
    const uint32_t ppn = f.sb * sb_pages_ + f.next;
    l2p_[lpn] = ppn;
    p2l_[ppn] = lpn;
    if (fdp_) {
      p2h_[ppn] = static_cast<uint8_t>(handle);
      ++fdp_counters_[handle].media_pages_written;
    }
    ++sb_valid_[f.sb];
    ++block_valid_[size_t(f.sb) * lanes_ + f.lane];
    ++counters_.nand_pages_written;
    if (op_log_) op_log_->push_back({FlashOpKind::kProgram, cause, ppn});
    if (++f.lane == lanes_) f.lane = 0;
    if (++f.next == sb_pages_) seal(f);
  }
  // The reclaim unit handle of a write's placement handle (FDP; 0 without it).
  uint32_t handle_of(uint32_t placement) {
    if (!fdp_) return 0;
    uint32_t h = 0;
    if (placement < config_.fdp_handles) {
      h = placement;
    } else {
      ++counters_.fdp_invalid_placement_events;
    }
    if (misplace_) [[unlikely]] {
      if (misplace_rng_.uniform() < config_.fdp_misplaced_fraction) {
        ++counters_.fdp_misplaced_writes;
        h = (h + 1 + static_cast<uint32_t>(misplace_rng_.below(config_.fdp_handles - 1))) %
            config_.fdp_handles;
      }
    }
    return h;
  }
  // Where GC copies the valid pages of victim sb (ftl.h's file comment).
  Frontier& gc_frontier(uint32_t sb) {
    const uint32_t owner = fdp_ ? sb_owner_[sb] : 0;
    if (config_.gc_stream == GcStream::kShared) return host_[owner == kMixed ? 0 : owner];
    return gc_[gc_.size() == 1 ? 0 : owner];
  }

  // ZNS: the zoned write of write_extent (checks, then programs each page at its fixed
  // place); a zone's transition into the open state, with the open and active limits.
  void zoned_write(uint64_t lpn, uint64_t count);
  void zone_open_for_write(uint32_t z);
  void zone_release(uint32_t z);      // leaves open/closed: the counts and the open list
  void check_zone(uint32_t z) const;  // throws std::out_of_range unless z < zones()
  [[noreturn]] void zone_fail(uint16_t status, const char* name, uint32_t z, uint64_t lpn,
                              uint64_t count, const std::string& why) const;

  void sealed_lost_page(uint32_t sb, uint32_t v);  // a sealed sb went from v + 1 to v valid
  void open_host_frontier(uint32_t h);  // pop a free sb for handle h; GC if below low watermark
  void open(Frontier& f);               // pop a free sb into f (no GC)
  void seal(Frontier& f);
  void run_gc();
  uint32_t select_victim();  // removes it from the victim structures; kNone if none
  void collect(uint32_t sb);
  void erase(uint32_t sb);

  // Victim structures.
  void list_unlink(uint32_t sb, uint32_t& head);
  void list_push_back(uint32_t sb, uint32_t& head);  // at the tail (head = oldest)
  void empty_push(uint32_t sb);
  void sealed_insert(uint32_t sb);
  void sealed_remove(uint32_t sb);

  SimFlashConfig config_;
  uint32_t lanes_;     // erase blocks per superblock
  uint32_t sb_pages_;  // pages per superblock
  uint32_t nsb_;       // superblocks
  FastDiv sb_div_;     // by sb_pages_
  FastDiv lane_div_;   // by lanes_

  PageMap l2p_;                        // logical page → physical page / kUnmapped
  PageMap p2l_;                        // physical page → logical page / kNone (invalid, free)
  std::vector<uint32_t> sb_valid_;     // per superblock
  std::vector<uint16_t> block_valid_;  // per erase block, [sb × lanes + lane]
  std::vector<uint32_t> erase_count_;  // per superblock
  std::vector<SbState> state_;         // per superblock
  std::vector<uint64_t> seal_time_;    // host pages written when sealed (cost_benefit)

  std::vector<uint32_t> free_ring_;  // FIFO of free superblocks
  uint32_t free_head_ = 0;
  uint32_t free_count_ = 0;
  uint32_t open_count_ = 0;

  std::vector<Frontier> host_;  // by reclaim unit handle (one without FDP)
  std::vector<Frontier> gc_;    // none (shared stream), one, or one per handle (persistent)

  // FDP (fdp_ = config_.fdp()): the handle of each valid page's data, the handle each open or
  // sealed superblock was opened for (kMixed: the shared GC frontier of initially isolated
  // handles), per-handle counts.
  static constexpr uint16_t kMixed = 0xFFFF;
  bool fdp_ = false;
  bool misplace_ = false;           // fdp_misplaced_fraction > 0 with at least 2 handles
  RngStream misplace_rng_{0, 0};    // stream kFdpMisplacementStream of the config's seed
  std::vector<uint8_t> p2h_;        // by physical page
  std::vector<uint16_t> sb_owner_;  // by superblock
  std::vector<FdpHandleCounters> fdp_counters_;

  // Circular doubly linked lists over next_/prev_, head = oldest entry, tail = prev_[head].
  // greedy: one list per valid count, in order of arrival at that count (ties go to the
  // superblock that reached the count first, which spreads erases under sequential writes);
  // fifo: one list in seal order.
  std::vector<uint32_t> next_;
  std::vector<uint32_t> prev_;
  std::vector<uint32_t> bucket_head_;  // greedy: [valid count] → first sb
  uint32_t min_bucket_ = 0;            // greedy: no sealed sb has fewer valid pages
  uint32_t fifo_head_ = kNone;         // fifo
  std::vector<uint32_t> sealed_;       // d_choices: the sealed superblocks
  std::vector<uint32_t> sealed_pos_;   // d_choices: index in sealed_
  std::vector<uint32_t> empty_ring_;   // fifo, cost_benefit: FIFO of empty sealed superblocks
  uint32_t empty_head_ = 0;
  uint32_t empty_count_ = 0;

  // ZNS (zoned_ = config_.zoned()): per zone its write pointer and state; the implicitly open
  // zones in the order they opened (the first is closed at the open limit).
  struct Zone {
    uint64_t wp = 0;
    ZoneState state = ZoneState::kEmpty;
  };
  bool zoned_ = false;
  uint64_t zone_size_pages_ = 0;
  uint64_t zone_cap_pages_ = 0;
  uint32_t zone_sbs_ = 0;
  std::vector<Zone> zones_;
  std::vector<uint32_t> open_list_;  // implicitly open zones, oldest first
  uint32_t open_zones_ = 0;
  uint32_t active_zones_ = 0;

  RngStream rng_;  // d_choices: stream RngStream::kGcStream of the config's seed
  FtlCounters counters_;
  std::vector<FlashOp>* op_log_ = nullptr;
};

}  // namespace flashpq
