// devices/block/block_device.h — the `block` device: a regular file or a raw block device,
// O_DIRECT, asynchronous I/O through io_uring (psync as fallback and reference), discard,
// verify mode, behind the safety gate (safety.h).
//
// Source: docs/DESIGN.md "Data flow" (the block device) and docs/guide/real-devices.md "A file or
// block device". Opening (constructor), in order:
//   1. a missing file is created (capacity_bytes required); then the path is opened read-write
//      with O_DIRECT and, for a block device, O_EXCL — the kernel's exclusive claim, refused
//      while the device is mounted, swap or held, and kept until the destructor; a file is
//      locked with flock(LOCK_EX). A filesystem that refuses O_DIRECT (EINVAL) gets a buffered
//      open instead, and notes() says so;
//   2. the safety gate (inspect_device + enforce_safety) with the claim held: every failed
//      check is reported, nothing has been written;
//   3. geometry: the logical block size is BLKSSZGET (block device) or statx's
//      dio_offset_align (file; st_blksize without STATX_DIOALIGN). Every offset and length must
//      be a multiple of it: Device rejects the others (std::invalid_argument), never a
//      read-modify-write. A file is extended to capacity_bytes (fallocate);
//   4. the engine: io_uring with queue_depth entries and registered buffers, or psync;
//   5. discard_before_run: the whole capacity is discarded.
//
// Synchronous Device calls (the cache frameworks' path) split an extent into pieces of at most
// max_io_bytes, issue up to queue_depth of them at once and return when all completed:
// afterwards the data is on the device (O_DIRECT) or in the page cache (buffered fallback).
// The asynchronous interface (start / submit_and_wait / reap) is wall_runner.h's.
//
// Data: without verify, every write sends a fixed pseudo-random pattern (pattern_seed). With
// verify, every logical block written carries a 32-byte header — magic "FPQBLK01", its byte
// offset, the write's generation (a counter of write pieces), CRC32C (crc32c.h) of the rest of
// the block, 4 zero bytes — then a payload derived from (offset, generation). Every read block
// this device last wrote is checked against it: magic, offset, generation, zero bytes and CRC
// must match or VerifyError is thrown naming the offset. Blocks never written by this device,
// or discarded since, are not checked (their content is undefined) and are counted.
#pragma once

#include <sys/uio.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "devices/block/block_config.h"
#include "devices/block/io_engines.h"
#include "devices/block/nvme_log.h"
#include "devices/block/safety.h"
#include "devices/device.h"

namespace flashpq {

/// Verify mode found a block that differs from what was last written there.
class VerifyError : public std::runtime_error {
 public:
  VerifyError(const std::string& what, uint64_t offset)
      : std::runtime_error(what), offset_(offset) {}
  /// Byte offset of the first mismatching logical block.
  uint64_t offset() const { return offset_; }

 private:
  uint64_t offset_;
};

/// Verify mode's counts.
struct VerifyCounters {
  /// Logical blocks read whose header and CRC were checked (and matched).
  uint64_t blocks_checked = 0;
  /// Logical blocks read that this device never wrote, or discarded since: not checked.
  uint64_t blocks_unchecked = 0;
};

class BlockDevice final : public Device {
 public:
  /// Opens, gates and prepares the device that config's keys name (block_config_of(); see the
  /// file comment). Throws std::invalid_argument (bad config, capacity not a multiple of the
  /// logical block), SafetyError (the gate refused: nothing was written), std::system_error
  /// (open, I/O).
  explicit BlockDevice(const DeviceConfig& config);
  explicit BlockDevice(const BlockConfig& config);
  /// Waits for I/O in flight, then releases the claim and closes.
  ~BlockDevice() override;

  const BlockConfig& config() const { return config_; }
  /// What the gate found at open.
  const DeviceReport& report() const { return report_; }
  /// O_DIRECT in effect (false after the buffered fallback or with o_direct = false).
  bool o_direct() const { return o_direct_; }
  /// The engine in effect (psync after an io_uring setup failure).
  IoEngineKind engine() const { return engine_kind_; }
  /// How this run differs from what was asked, and why: O_DIRECT fallback, io_uring flags
  /// dropped, buffers not registered, io_uring unavailable, discard unsupported.
  const std::vector<std::string>& notes() const { return notes_; }
  /// notes() joined with "; ".
  std::string notes_text() const;
  /// False once a discard was refused by the device or filesystem (later ones are skipped
  /// and counted in discards_skipped()).
  bool discard_supported() const { return discard_supported_; }
  uint64_t discards_skipped() const { return discards_skipped_; }
  const VerifyCounters& verify_counters() const { return verify_; }
  /// With verify on: a read of a block this device never wrote (or discarded since) throws
  /// VerifyError instead of being counted unchecked. A cache reads only what it wrote, so for
  /// its cells such a read is a lost write or a bug, never data to accept (the cell runner sets
  /// it for every framework but direct, whose device workloads may read unwritten space).
  void set_unwritten_reads_are_errors(bool on) { unwritten_reads_are_errors_ = on; }

  // --- Drive write counters (nvme_log.h) -------------------------------------------------
  /// Snapshots the NVMe counters of the drive under this device (when nvme_counters is set
  /// and there is one). Call right before the measured run.
  void begin_nvme_measurement();
  /// Snapshots again and returns the deltas since begin_nvme_measurement() (also kept for the
  /// device's columns: nvme_host_bytes_written, nvme_media_bytes_written, wa_device); empty
  /// when there is no NVMe drive or no begin.
  NvmeWriteDelta end_nvme_measurement();

  // --- Asynchronous interface (wall_runner.h; the synchronous calls use it too) ------------
  /// Slots: one buffer of max_io_bytes each; an I/O occupies a slot until reaped.
  uint32_t slots() const { return static_cast<uint32_t>(slots_.size()); }
  uint32_t max_io_bytes() const { return config_.max_io_bytes; }
  /// A free slot, or UINT32_MAX when all are busy.
  uint32_t acquire_slot() {
    if (free_slots_.empty()) return UINT32_MAX;
    const uint32_t s = free_slots_.back();
    free_slots_.pop_back();
    return s;
  }
  /// Counts a request of the asynchronous path in counters() (start() and discard() do not
  /// count: one request may take several pieces).
  void count_request_write(uint64_t len) { count_write(len); }
  void count_request_read(uint64_t len) { count_read(len); }
  void count_request_trim(uint64_t len) { count_trim(len); }
  /// Starts a read or write of `len` bytes at `offset` on slot `slot` (from acquire_slot):
  /// fills a write's buffer (pattern or verify headers) and queues it; submit_and_wait()
  /// sends it. REQUIRES: check_extent passed, len ≤ max_io_bytes, and no I/O in flight
  /// overlapping it when either is a write (the caller orders them: wall_runner.h waits).
  void start(uint32_t slot, bool write, uint64_t offset, uint32_t len);
  /// Submits what start() queued and waits until at least `min_complete` I/Os completed or
  /// `timeout_ns` passed (< 0: no timeout).
  void submit_and_wait(uint32_t min_complete, int64_t timeout_ns) {
    if (uring_)
      uring_->submit_and_wait(min_complete, timeout_ns);
    else
      psync_->submit_and_wait(min_complete, timeout_ns);
  }
  /// Calls f(slot) for every I/O that completed entirely (a short transfer is resubmitted for
  /// the rest; a read is verified), then frees its slot. Throws std::system_error for an I/O
  /// error, VerifyError for a mismatch (after handling every other completion available).
  template <class F>
  uint32_t reap(F&& f) {
    uint32_t finished = 0;
    auto on_cqe = [&](uint32_t slot, int res) {
      if (complete(slot, res)) {
        ++finished;
        f(slot);
        free_slots_.push_back(slot);
      }
    };
    if (uring_)
      uring_->reap(on_cqe);
    else
      psync_->reap(on_cqe);
    if (pending_error_) rethrow_pending();
    return finished;
  }
  /// I/Os started and not yet reaped.
  uint32_t in_flight() const { return slots() - static_cast<uint32_t>(free_slots_.size()); }
  /// Discards [offset, offset + len) now (BLKDISCARD; punch hole in a file), synchronously.
  /// When the device or filesystem refuses discards, the first refusal is noted and this and
  /// later ones are skipped (discards_skipped()). REQUIRES: check_extent passed, no I/O in
  /// flight overlapping it.
  void discard(uint64_t offset, uint64_t len) { discard_extent(offset, len); }

  /// The verify header, little-endian, at the start of every logical block (verify mode).
  struct VerifyHeader {
    uint64_t magic;
    uint64_t offset;
    uint64_t generation;
    uint32_t payload_crc32c;
    uint32_t zero;
  };
  static_assert(sizeof(VerifyHeader) == 32);
  /// "FPQBLK01" read as a little-endian uint64.
  static constexpr uint64_t kVerifyMagic = 0x31304B4C42515046ull;

 private:
  // What opening found; the Device base is built from it.
  struct Opened {
    int fd = -1;
    DeviceReport report;
    bool o_direct = false;
    std::vector<std::string> notes;
    uint64_t capacity_bytes = 0;
    uint32_t logical_block_bytes = 0;
  };
  static Opened open_and_gate(const BlockConfig& config);
  BlockDevice(const BlockConfig& config, Opened opened);

  struct Slot {
    char* buf = nullptr;
    uint64_t offset = 0;
    uint32_t len = 0;
    uint32_t done = 0;
    bool write = false;
  };

  void do_write(uint64_t offset, uint64_t len) override { transfer(true, offset, len); }
  void do_read(uint64_t offset, uint64_t len) override { transfer(false, offset, len); }
  void do_trim(uint64_t offset, uint64_t len) override { discard_extent(offset, len); }
  std::vector<Column> do_columns(const ReportContext& context) const override;

  void setup_engine();
  void transfer(bool write, uint64_t offset, uint64_t len);
  void discard_extent(uint64_t offset, uint64_t len);
  // Handles one completion of `slot`; true when the slot's I/O is complete.
  bool complete(uint32_t slot, int res);
  void fill_verified(Slot& s);
  void check_verified(const Slot& s);
  [[noreturn]] void rethrow_pending();
  void drain() noexcept;

  BlockConfig config_;
  DeviceReport report_;
  int fd_ = -1;
  bool o_direct_ = false;
  IoEngineKind engine_kind_ = IoEngineKind::kIoUring;
  std::vector<std::string> notes_;
  char* arena_ = nullptr;  // slots × max_io_bytes, page-aligned (mmap)
  size_t arena_bytes_ = 0;
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_slots_;
  std::vector<iovec> iovecs_;
  std::unique_ptr<UringEngine> uring_;
  std::unique_ptr<PsyncEngine> psync_;
  bool discard_supported_ = true;
  uint64_t discards_skipped_ = 0;
  // Verify mode: the generation last written to each logical block (0 = unknown).
  std::vector<uint32_t> generation_;
  uint64_t next_generation_ = 1;
  uint32_t block_shift_ = 0;
  VerifyCounters verify_;
  bool unwritten_reads_are_errors_ = false;
  std::exception_ptr pending_error_;
  std::optional<NvmeSnapshot> nvme_before_;
  NvmeWriteDelta nvme_delta_;  // the last end_nvme_measurement()
};

/// The block device as registered (devices/device.cpp). Its columns: block_engine,
/// block_o_direct, block_notes, block_logical_block_bytes, verify_blocks_checked,
/// verify_blocks_unchecked (with verify on), and the drive's nvme_host_bytes_written,
/// nvme_media_bytes_written and wa_device (NVMe drives that report both counters).
extern const DeviceType kBlockDeviceType;

}  // namespace flashpq
