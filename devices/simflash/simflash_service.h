// devices/simflash/simflash_service.h — simflash's simulated clock (devices/service_model.h).
//
// Source: docs/DESIGN.md "Time" (the simulated mode). For each request, the NAND operations the
// FTL logged while the request's device operations ran (reads, programs, GC copies and erases,
// Ftl::set_op_log) are queued at its issue on the dies and channels (FlashTiming,
// devices/simflash/flash_timing.h); when the last of them completes the request passes the host
// side a calibrated profile sets (SimFlashConfig; all 0 by default, which skips this step): the
// controller, a FIFO server that holds each request for host_command_us plus its payload over
// host_link_mib_s, in the order the requests' flash work finished, then host_overhead_us, a
// delay in which requests overlap. GC is foreground: the request whose write triggered GC waits
// for the copies and erases GC logged (FEMU's ssd_write runs do_gc in the write path; MQSim
// triggers GC from the write that depletes a plane's free blocks). A request that causes no
// NAND operation (a hit in DRAM, a read of a page never written, a TRIM) takes no time, host
// side included.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "devices/service_model.h"
#include "devices/simflash/flash_timing.h"
#include "devices/simflash/simflash_device.h"

namespace flashpq {

class SimFlashServiceModel final : public ServiceModel {
 public:
  /// From its first begin() until it is destroyed, the FTL logs its NAND operations for this
  /// model (operations before, e.g. a functional fill, cost no time). `front` is the device
  /// the runner drives (whose I/O log the model keeps on the clock): `device` itself, or a
  /// host FTL over it (devices/host_ftl/host_ftl.h). REQUIRES: both outlive the model.
  /// Throws std::invalid_argument as FlashTiming's constructor.
  SimFlashServiceModel(Device& front, SimFlashDevice& device, const Options& options)
      : front_(front),
        device_(device),
        base_(options.id_base),
        flash_(device.ftl().config(), options.id_base) {
    const SimFlashConfig& fc = device.ftl().config();
    if (options.host_side) {
      host_overhead_ns_ = static_cast<uint64_t>(std::llround(fc.host_overhead_us * 1e3));
      host_command_ns_ = static_cast<uint64_t>(std::llround(fc.host_command_us * 1e3));
      link_ns_per_byte_ = fc.host_link_mib_s > 0 ? 1e9 / (fc.host_link_mib_s * 1048576.0) : 0.0;
    }
    host_side_ = host_overhead_ns_ != 0 || host_command_ns_ != 0 || link_ns_per_byte_ != 0;
    log_.reserve(4096);
  }
  ~SimFlashServiceModel() override { device_.ftl().set_op_log(nullptr); }
  SimFlashServiceModel(const SimFlashServiceModel&) = delete;
  SimFlashServiceModel& operator=(const SimFlashServiceModel&) = delete;

  void begin(uint64_t now_ns) override {
    if (!logging_) {
      device_.ftl().set_op_log(&log_);
      logging_ = true;
    }
    log_.clear();
    if (FioIoLog* io_log = front_.io_log()) io_log->set_now_ns(now_ns);
  }

  bool submit(uint32_t slot, uint64_t bytes, EventQueue& events) override {
    const uint32_t jobs = flash_.submit(log_, slot, events);
    if (jobs == 0) return false;
    if (slot >= requests_.size()) requests_.resize(slot + 1);
    requests_[slot] = InFlight{jobs, bytes};
    return true;
  }

  void handle(const Event& event, EventQueue& events, std::vector<uint32_t>& done) override {
    if (event.kind == EventKind::kRequestDone) {  // its host side is over
      done.push_back(event.id - base_);
      return;
    }
    for (const uint32_t s : flash_.handle(event, events)) {
      if (--requests_[s].jobs != 0) continue;
      if (!host_side_) {
        done.push_back(s);
        continue;
      }
      // The controller serves requests in the order their flash work finished.
      const uint64_t service =
          host_command_ns_ + static_cast<uint64_t>(std::llround(
                                 link_ns_per_byte_ * static_cast<double>(requests_[s].bytes)));
      controller_free_ns_ = std::max(controller_free_ns_, events.now()) + service;
      events.schedule(controller_free_ns_ + host_overhead_ns_, EventKind::kRequestDone, base_ + s);
    }
  }

  uint64_t media_bytes_written() const override {
    return device_.ftl().counters().nand_pages_written * device_.ftl().config().page_size_bytes;
  }

  /// What the dies and channels did so far (busy time).
  FlashTimingCounters counters() const { return flash_.counters(); }

 private:
  struct InFlight {
    uint32_t jobs = 0;   // NAND jobs not yet finished
    uint64_t bytes = 0;  // the payload, for the host link
  };

  Device& front_;
  SimFlashDevice& device_;
  uint32_t base_;
  FlashTiming flash_;
  std::vector<FlashOp> log_;
  std::vector<InFlight> requests_;  // by slot
  uint64_t host_overhead_ns_ = 0;
  uint64_t host_command_ns_ = 0;
  double link_ns_per_byte_ = 0;  // ns per payload byte over the host link (0: instant)
  bool host_side_ = false;
  bool logging_ = false;             // the FTL's op log points at log_ (since the first begin())
  uint64_t controller_free_ns_ = 0;  // when the controller finishes its last request
};

}  // namespace flashpq
