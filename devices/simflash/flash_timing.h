// devices/simflash/flash_timing.h — the timing model of simflash: the NAND operations the FTL
// logs (Ftl::set_op_log), executed on dies and channels in simulated time.
//
// Resources. Every die (LUN; SimFlashConfig's channels × dies_per_channel, numbered die =
// channel + channels × die-in-channel, the FTL's lane order) executes one array command at a
// time; every channel carries one page transfer at a time. Each keeps a FIFO queue of the work
// that is ready for it and starts the head when it becomes free; a completion is a kDieDone /
// kChannelDone event of the discrete-event kernel (sim/des.h).
//
// The rules, and where they come from:
//   * Program: the page is transferred over its channel (page_size / channel bandwidth), then
//     programmed on its die (tPROG). Read: the die reads the page into its register (tR), then
//     the page is transferred over the channel. Erase: tBERS on the die, no transfer. This is
//     FEMU's latency model (hw/femu/bbssd/ftl.c ssd_advance_status: NAND_WRITE = channel
//     transfer, then pg_wr_lat on the LUN; NAND_READ = pg_rd_lat on the LUN, then the transfer;
//     NAND_ERASE = blk_er_lat on the LUN only, per-LUN and per-channel next-available times)
//     and the order of MQSim's NVM_PHY_ONFI_NVDDR2::Send_command_to_chip (command and data in,
//     then Get_command_execution_latency; for reads the data-out transfer after it).
//   * A die and its channel are separate resources: a die is busy only for its array time and a
//     channel only for its transfers, so the channel can load the next page of a die while the
//     die programs the previous one, and a die can read the next page while the channel carries
//     the previous one out. This is FEMU's model (independent next_lun_avail_time and
//     next_ch_avail_time) and what ONFI's cache operations provide (ONFI 4.x, "Page Cache
//     Program" 80h-15h and "Read Cache" 31h: the cache register decouples the data transfer from
//     the array operation). Consequence: sequential writes reach min(channels × channel
//     bandwidth, dies × planes × page / tPROG), the bound SimFlashConfig::peak_write_mib_s()
//     states.
//   * Multi-plane: the planes of a die operate in parallel, but the die executes one command at
//     a time, so a plane-parallel set of operations is one command taking one tR / tPROG /
//     tBERS. When a die starts a command it takes the head of its queue and, for a read or a
//     program, adds for each other plane the first queued operation on that plane of the same
//     kind and at the same page address within its block — MQSim's
//     TSU_OutofOrder::service_read_transaction / service_write_transaction, which gather one
//     transaction per plane of the die with an identical PageID into one multi-plane command
//     (CMD_READ_PAGE_MULTIPLANE / CMD_PROGRAM_PAGE_MULTIPLANE) whose latency is that of one
//     page. Like MQSim's, the scan passes over operations it cannot take (so an operation may
//     start before an earlier-queued one of another kind or page on its plane; the pages of a
//     block are not forced into program order, which the timing does not depend on), but it
//     stops at an erase (an erase is never overtaken) and looks at most at kGatherWindow (256)
//     queued operations (a bound on the cost; under GC a die's queue holds hundreds of
//     operations, and 64 left a quarter of the programs unpaired in the random-write test). The FTL
//     stripes a superblock row over planes with the same page index, so sequential writes and GC
//     reads of a victim form multi-plane commands when a die is backlogged. An erase is logged per
//     superblock and becomes one multi-plane erase on every die (MQSim's
//     CMD_ERASE_BLOCK_MULTIPLANE).
//   * GC occupies dies and channels like the host: a GC copy is a read on the victim's die, a
//     transfer out over its channel, a transfer in over the destination's channel and a program
//     on the destination die (MQSim without copyback: the GC write waits for its RelatedRead).
//     The erase of a victim enters each die's queue when GC issues it, behind the victim's reads
//     on that die, so it never overtakes them, and every later program into the reclaimed
//     superblock queues behind it. (MQSim dispatches an erase only once the victim's page
//     movements, programs included, are done — service_erase_transaction; here the programs do
//     not hold the erase back: their data has left the victim.)
//
// Simplified, knowingly: no write cache (a program completes when the page is programmed, not
// when a controller buffer accepts it); one FCFS queue per die for every kind of operation (MQSim
// keeps separate read / write / erase / GC queues and serves reads first); no program or erase
// suspension; no copyback; command and address cycles take no time (MQSim's ReadCommandTime
// etc., tens of ns); one tR / tPROG for every page (no LSB/MSB page latencies); the cache
// register is unbounded (a transferred page waits for its die however long the die's queue is);
// the channels carry pages in the order they become ready (MQSim arbitrates between chips round
// robin).
//
// Cost: jobs live in a pool indexed by 32-bit links (intrusive FIFO queues), so a steady-state
// run allocates nothing. Events: one per array command (shared by the pages of a multi-plane
// command) and one per transfer — a host read or program ≤ 2, a GC copy ≤ 4, an erase one per
// die; a die scans at most kGatherWindow queued jobs per command.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "devices/simflash/ftl.h"
#include "devices/simflash/simflash_config.h"
#include "sim/des.h"

namespace flashpq {

/// What the dies and channels did. Monotonic.
struct FlashTimingCounters {
  /// Array commands started on dies, by kind. A multi-plane command counts once.
  uint64_t read_commands = 0;
  uint64_t program_commands = 0;
  uint64_t erase_commands = 0;
  /// Commands that covered two planes or more (erases included when planes_per_die ≥ 2).
  uint64_t multiplane_commands = 0;
  /// Pages read (host and GC) and programmed, erase blocks erased.
  uint64_t pages_read = 0;
  uint64_t pages_programmed = 0;
  uint64_t blocks_erased = 0;
  /// Page transfers over channels.
  uint64_t transfers = 0;
  /// Sums, over all dies and all channels, of the time they were busy, in ns.
  uint64_t die_busy_ns = 0;
  uint64_t channel_busy_ns = 0;
};

/// The dies and channels of one simflash geometry. Not thread-safe.
class FlashTiming {
 public:
  /// Operations a die examines when it gathers a multi-plane command.
  static constexpr uint32_t kGatherWindow = 256;

  /// Validates `config` (std::invalid_argument as SimFlashConfig::validate) and derives the
  /// durations in integer ns: tR, tPROG, tBERS rounded to the nearest ns; a page transfer =
  /// page_size_bytes / (channel_bandwidth_mib_s × 2^20 B/s), rounded to the nearest ns, 0 (no
  /// transfer stage) when the bandwidth is 0.
  /// `id_base`: the ids of this instance's kDieDone and kChannelDone events start there (die or
  /// channel + id_base), so that two devices can share one event queue (a hierarchy's flash
  /// tier and its simflash backing store); handle() refuses ids outside its range.
  explicit FlashTiming(const SimFlashConfig& config, uint32_t id_base = 0);

  /// Queues the NAND operations `ops` of one request, tagged `tag`, at the current time of
  /// `events` (the FTL's op log since the request began: a GC read immediately followed by a
  /// GC program is one copy). Returns the number of jobs created: handle() reports `tag` once
  /// per job as each finishes (a read, a program or a GC copy is one job; an erase is one per
  /// die). 0 when `ops` is empty.
  uint32_t submit(std::span<const FlashOp> ops, uint32_t tag, EventQueue& events);

  /// Handles a kDieDone or kChannelDone event popped from `events` (its clock at the event's
  /// time): starts what the freed resource does next and returns the tags of the jobs that
  /// finished, one entry per job (valid until the next call). Throws std::logic_error for another
  /// kind of event or one for a resource that is idle.
  std::span<const uint32_t> handle(const Event& event, EventQueue& events);

  /// Durations in ns.
  uint64_t read_ns() const { return read_ns_; }
  uint64_t program_ns() const { return program_ns_; }
  uint64_t erase_ns() const { return erase_ns_; }
  uint64_t transfer_ns() const { return transfer_ns_; }

  uint32_t dies() const { return dies_; }
  uint32_t channels() const { return channels_; }
  /// Global die (channel + channels × die-in-channel), plane and page-in-block of physical
  /// page ppn: the location Ftl::locate gives. REQUIRES: ppn < physical pages.
  uint32_t die_of(uint32_t ppn) const { return lane_die_[lane(ppn)]; }
  uint32_t plane_of(uint32_t ppn) const { return lane(ppn) / dies_; }
  uint32_t page_of(uint32_t ppn) const {
    return (sb_pages_pow2_ ? ppn & (sb_pages_ - 1) : ppn % sb_pages_) / lanes_;
  }
  /// Channel of global die `die`.
  uint32_t channel_of_die(uint32_t die) const { return die % channels_; }

  /// Jobs queued or running (0 when every submitted job has been reported).
  uint64_t jobs_in_flight() const { return in_flight_; }
  const FlashTimingCounters& counters() const { return counters_; }

 private:
  static constexpr uint32_t kNone = 0xFFFFFFFFu;

  enum class Stage : uint8_t { kReadArray, kReadOut, kProgramIn, kProgramArray, kEraseArray };

  // One read, program, GC copy (read then program) or per-die erase. Location [0] is the page
  // read, [1] the page programmed; an erase uses die[0].
  struct Job {
    uint32_t tag;
    uint32_t next;  // link in a die's or channel's queue, or in a running command
    uint32_t die[2];
    uint16_t page[2];
    uint8_t plane[2];
    Stage stage;
    bool copy;  // a GC copy: after kReadOut comes kProgramIn
  };
  // A die or a channel: an FCFS queue of jobs linked through Job::next, and what it runs.
  struct Server {
    uint32_t head = kNone, tail = kNone;  // queue
    uint32_t running = kNone;  // die: jobs of the command executing; channel: job transferred
    bool busy = false;
  };

  uint32_t lane(uint32_t ppn) const { return lanes_pow2_ ? ppn & (lanes_ - 1) : ppn % lanes_; }
  uint32_t new_job(uint32_t tag);
  void set_read(Job& j, uint32_t ppn);
  void set_program(Job& j, uint32_t ppn);
  void start(uint32_t job, EventQueue& events);    // first stage of a new job
  void advance(uint32_t job, EventQueue& events);  // after its current stage
  void push(Server& s, uint32_t job);              // appends job to s's queue
  uint32_t pop(Server& s);  // takes s's first queued job; REQUIRES: one queued
  void enqueue_die(uint32_t die, uint32_t job, EventQueue& events);
  void enqueue_channel(uint32_t channel, uint32_t job, EventQueue& events);
  void start_die(uint32_t die, EventQueue& events);
  void start_channel(uint32_t channel, EventQueue& events);

  uint32_t id_base_;
  uint32_t channels_;
  uint32_t dies_;    // channels × dies_per_channel
  uint32_t planes_;  // per die
  uint32_t lanes_;   // dies × planes
  uint32_t sb_pages_;
  bool lanes_pow2_;
  bool sb_pages_pow2_;
  uint64_t read_ns_, program_ns_, erase_ns_, transfer_ns_;
  std::vector<uint32_t> lane_die_;  // lane → global die

  std::vector<Job> jobs_;
  uint32_t free_jobs_ = kNone;
  uint64_t in_flight_ = 0;
  std::vector<Server> die_state_;
  std::vector<Server> channel_state_;
  std::vector<uint32_t> done_;
  FlashTimingCounters counters_;
};

}  // namespace flashpq
