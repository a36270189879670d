// devices/simflash/flash_timing.cpp — dies and channels executing the FTL's NAND operations.
#include "devices/simflash/flash_timing.h"

#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>

namespace flashpq {

namespace {

const SimFlashConfig& validated(const SimFlashConfig& c) {
  c.validate();
  return c;
}

uint64_t us_to_ns(double us) {
  return static_cast<uint64_t>(std::llround(us * 1000.0));
}

}  // namespace

FlashTiming::FlashTiming(const SimFlashConfig& config, uint32_t id_base)
    : id_base_(id_base),
      channels_(validated(config).channels),
      dies_(config.channels * config.dies_per_channel),
      planes_(config.planes_per_die),
      lanes_(config.erase_blocks_per_superblock()),
      sb_pages_(config.pages_per_superblock()),
      lanes_pow2_(std::has_single_bit(lanes_)),
      sb_pages_pow2_(std::has_single_bit(sb_pages_)),
      read_ns_(us_to_ns(config.tR_us)),
      program_ns_(us_to_ns(config.tPROG_us)),
      erase_ns_(us_to_ns(config.tBERS_us)),
      transfer_ns_(config.channel_bandwidth_mib_s > 0.0
                       ? static_cast<uint64_t>(
                             std::llround(static_cast<double>(config.page_size_bytes) * 1e9 /
                                          (config.channel_bandwidth_mib_s * 1024.0 * 1024.0)))
                       : 0),
      lane_die_(lanes_),
      die_state_(dies_),
      channel_state_(channels_) {
  // The FTL's lane order (ftl.h): lane = channel + channels × (die + dies_per_channel × plane),
  // so lane mod dies is the global die and lane / dies the plane.
  for (uint32_t l = 0; l < lanes_; ++l) lane_die_[l] = l % dies_;
  // An array time of 0 would let a die finish a command at the instant it started it; the
  // config's validate() requires positive times, and rounding to ns must keep them so.
  if (read_ns_ == 0 || program_ns_ == 0 || erase_ns_ == 0) {
    throw std::invalid_argument(
        "device.simflash: tR_us, tPROG_us and tBERS_us must be ≥ 0.0005 "
        "(they are rounded to whole ns)");
  }
}

uint32_t FlashTiming::new_job(uint32_t tag) {
  uint32_t j;
  if (free_jobs_ != kNone) {
    j = free_jobs_;
    free_jobs_ = jobs_[j].next;
  } else {
    j = static_cast<uint32_t>(jobs_.size());
    jobs_.emplace_back();
  }
  Job& job = jobs_[j];
  job.tag = tag;
  job.next = kNone;
  job.copy = false;
  ++in_flight_;
  return j;
}

void FlashTiming::set_read(Job& j, uint32_t ppn) {
  const uint32_t l = lane(ppn);
  j.die[0] = lane_die_[l];
  j.plane[0] = static_cast<uint8_t>(l / dies_);
  j.page[0] = static_cast<uint16_t>(page_of(ppn));
}

void FlashTiming::set_program(Job& j, uint32_t ppn) {
  const uint32_t l = lane(ppn);
  j.die[1] = lane_die_[l];
  j.plane[1] = static_cast<uint8_t>(l / dies_);
  j.page[1] = static_cast<uint16_t>(page_of(ppn));
}

uint32_t FlashTiming::submit(std::span<const FlashOp> ops, uint32_t tag, EventQueue& events) {
  uint32_t created = 0;
  for (size_t i = 0; i < ops.size(); ++i) {
    const FlashOp& op = ops[i];
    switch (op.kind) {
      case FlashOpKind::kRead: {
        const uint32_t j = new_job(tag);
        set_read(jobs_[j], op.target);
        jobs_[j].stage = Stage::kReadArray;
        // Ftl::collect logs each GC copy as its read immediately followed by its program.
        if (op.cause == FlashOpCause::kGc && i + 1 < ops.size() &&
            ops[i + 1].kind == FlashOpKind::kProgram && ops[i + 1].cause == FlashOpCause::kGc) {
          jobs_[j].copy = true;
          set_program(jobs_[j], ops[++i].target);
        }
        start(j, events);
        ++created;
        break;
      }
      case FlashOpKind::kProgram: {
        const uint32_t j = new_job(tag);
        set_program(jobs_[j], op.target);
        jobs_[j].stage = Stage::kProgramIn;
        start(j, events);
        ++created;
        break;
      }
      case FlashOpKind::kErase:
        // Every erase block of the superblock: one multi-plane erase per die.
        for (uint32_t d = 0; d < dies_; ++d) {
          const uint32_t j = new_job(tag);
          jobs_[j].die[0] = d;
          jobs_[j].stage = Stage::kEraseArray;
          start(j, events);
          ++created;
        }
        break;
    }
  }
  return created;
}

void FlashTiming::start(uint32_t j, EventQueue& events) {
  Job& job = jobs_[j];
  switch (job.stage) {
    case Stage::kReadArray:
    case Stage::kEraseArray:
      enqueue_die(job.die[0], j, events);
      return;
    case Stage::kProgramIn:
      if (transfer_ns_ == 0) {
        job.stage = Stage::kProgramArray;
        enqueue_die(job.die[1], j, events);
      } else {
        enqueue_channel(channel_of_die(job.die[1]), j, events);
      }
      return;
    case Stage::kReadOut:
    case Stage::kProgramArray:
      break;
  }
  throw std::logic_error("FlashTiming: a job cannot start at a middle stage");
}

void FlashTiming::advance(uint32_t j, EventQueue& events) {
  Job& job = jobs_[j];
  switch (job.stage) {
    case Stage::kReadArray:
      if (transfer_ns_ != 0) {
        job.stage = Stage::kReadOut;
        enqueue_channel(channel_of_die(job.die[0]), j, events);
        return;
      }
      [[fallthrough]];  // no transfer stage
    case Stage::kReadOut:
      if (job.copy) {
        job.stage = Stage::kProgramIn;
        start(j, events);
        return;
      }
      break;
    case Stage::kProgramIn:
      job.stage = Stage::kProgramArray;
      enqueue_die(job.die[1], j, events);
      return;
    case Stage::kProgramArray:
    case Stage::kEraseArray:
      break;
  }
  // Finished.
  done_.push_back(job.tag);
  job.next = free_jobs_;
  free_jobs_ = j;
  --in_flight_;
}

void FlashTiming::push(Server& s, uint32_t j) {
  jobs_[j].next = kNone;
  if (s.tail == kNone) {
    s.head = j;
  } else {
    jobs_[s.tail].next = j;
  }
  s.tail = j;
}

uint32_t FlashTiming::pop(Server& s) {
  const uint32_t j = s.head;
  s.head = jobs_[j].next;
  if (s.head == kNone) s.tail = kNone;
  jobs_[j].next = kNone;
  return j;
}

void FlashTiming::enqueue_die(uint32_t die, uint32_t j, EventQueue& events) {
  push(die_state_[die], j);
  if (!die_state_[die].busy) start_die(die, events);
}

void FlashTiming::enqueue_channel(uint32_t channel, uint32_t j, EventQueue& events) {
  push(channel_state_[channel], j);
  if (!channel_state_[channel].busy) start_channel(channel, events);
}

void FlashTiming::start_die(uint32_t die, EventQueue& events) {
  Server& d = die_state_[die];
  const uint32_t first = pop(d);
  d.running = first;
  d.busy = true;

  const Stage stage = jobs_[first].stage;
  uint64_t duration = 0;
  uint32_t pages = 1;
  if (stage == Stage::kEraseArray) {
    duration = erase_ns_;
    ++counters_.erase_commands;
    counters_.blocks_erased += planes_;
    if (planes_ > 1) ++counters_.multiplane_commands;
  } else {
    // The location of the array operation: [0] for a read, [1] for a program.
    const int loc = stage == Stage::kReadArray ? 0 : 1;
    if (planes_ > 1) {
      // Gather one operation per other plane (MQSim TSU_OutofOrder; see the header).
      const uint16_t page = jobs_[first].page[loc];
      uint64_t taken = uint64_t{1} << jobs_[first].plane[loc];
      const uint64_t all = planes_ == 64 ? ~uint64_t{0} : (uint64_t{1} << planes_) - 1;
      uint32_t last = first;  // tail of the command's list
      uint32_t prev = kNone;
      uint32_t cur = d.head;
      for (uint32_t seen = 0; cur != kNone && seen < kGatherWindow && taken != all; ++seen) {
        Job& c = jobs_[cur];
        if (c.stage == Stage::kEraseArray) break;
        const uint32_t next = c.next;
        if (c.stage == stage && c.page[loc] == page &&
            (taken & (uint64_t{1} << c.plane[loc])) == 0) {
          taken |= uint64_t{1} << c.plane[loc];
          // Unlink from the queue, append to the command.
          if (prev == kNone) {
            d.head = next;
          } else {
            jobs_[prev].next = next;
          }
          if (d.tail == cur) d.tail = prev;
          c.next = kNone;
          jobs_[last].next = cur;
          last = cur;
          ++pages;
        } else {
          prev = cur;
        }
        cur = next;
      }
      if (pages > 1) ++counters_.multiplane_commands;
    }
    if (stage == Stage::kReadArray) {
      duration = read_ns_;
      ++counters_.read_commands;
      counters_.pages_read += pages;
    } else {
      duration = program_ns_;
      ++counters_.program_commands;
      counters_.pages_programmed += pages;
    }
  }
  counters_.die_busy_ns += duration;
  events.schedule(events.now() + duration, EventKind::kDieDone, id_base_ + die);
}

void FlashTiming::start_channel(uint32_t channel, EventQueue& events) {
  Server& c = channel_state_[channel];
  const uint32_t j = pop(c);
  c.running = j;
  c.busy = true;
  ++counters_.transfers;
  counters_.channel_busy_ns += transfer_ns_;
  events.schedule(events.now() + transfer_ns_, EventKind::kChannelDone, id_base_ + channel);
}

std::span<const uint32_t> FlashTiming::handle(const Event& event, EventQueue& events) {
  done_.clear();
  const uint32_t id = event.id - id_base_;  // wraps far out of range below the base
  if (event.kind == EventKind::kDieDone && id < dies_ && die_state_[id].busy) {
    Server& d = die_state_[id];
    uint32_t j = d.running;
    d.running = kNone;
    d.busy = false;
    while (j != kNone) {
      const uint32_t next = jobs_[j].next;  // advance() relinks j
      advance(j, events);
      j = next;
    }
    // advance() may have queued work here (a copy within one die with no transfer stage) and
    // started it already.
    if (!d.busy && d.head != kNone) start_die(id, events);
  } else if (event.kind == EventKind::kChannelDone && id < channels_ && channel_state_[id].busy) {
    Server& c = channel_state_[id];
    const uint32_t j = c.running;
    c.running = kNone;
    c.busy = false;
    advance(j, events);
    if (!c.busy && c.head != kNone) start_channel(id, events);
  } else {
    throw std::logic_error("FlashTiming::handle: event of kind " +
                           std::to_string(static_cast<int>(event.kind)) + " for id " +
                           std::to_string(event.id) +
                           " is not a completion of a busy die or "
                           "channel");
  }
  return done_;
}

}  // namespace flashpq
