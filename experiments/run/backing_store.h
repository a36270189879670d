// experiments/run/backing_store.h — a hierarchy's backing store on a device of its own: a second
// simulated flash device (`backing.device: simflash`, simulated time) or a real file or block
// device (`backing.device: block`, the wall clock); devices/backing.h.
//
// The device holds every object: each key gets a page-aligned extent the first time the
// hierarchy reads or writes it (a bump allocator; an object that grows past its extent gets a
// new one), so its reads and writes are NAND operations on the pages of that extent. The whole
// exported space is written once before the run (fill(), functional: no time), so that every
// read finds mapped pages, as a store that already holds the data does, and so that the
// device's garbage collection runs at its steady state (on a real file, so that reads do not
// hit holes). The device is sized for the trace's objects (their sizes rounded up to pages of
// 4 KiB, or the simflash profile's, with 25 % slack for objects that change size): simflash at
// backing.utilization; a file is created or extended to that size; a block device must hold
// it. Not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "devices/backing.h"
#include "devices/device.h"

namespace flashpq {

class DeviceBacking {
 public:
  /// Sizes and builds the device of config (simflash or block) for `objects` distinct keys of
  /// `working_set_bytes` in all; `force_destroy` is the cell's --force-destroy (block: the
  /// identity of a device whose signature may be overwritten). Throws std::invalid_argument if
  /// no device of the profile holds them (simflash), as BlockDevice's constructor (block: a
  /// device too small, SafetyError from its gate, std::system_error).
  DeviceBacking(const BackingConfig& config, uint64_t objects, uint64_t working_set_bytes,
                uint64_t seed, const std::string& force_destroy);

  Device& device() { return *device_; }
  /// The device's simulated clock placed by `options` (DeviceType::service_model: its
  /// operations join a timed run), or null for a device without one (block). REQUIRES: this
  /// outlives the model.
  std::unique_ptr<ServiceModel> service_model(const ServiceModel::Options& options);

  /// Writes the whole exported space, functionally (call before the timed run).
  void fill();

  /// Reads (write false) or writes the object `key` of `size_bytes` at its extent. Throws
  /// std::runtime_error when objects that changed size have used up the device.
  void access(uint64_t key, uint32_t size_bytes, bool write);

  /// The hierarchy's backing listener (engine/tiers.h): `context` is a DeviceBacking.
  static void on_backing(void* context, uint64_t key, uint32_t size_bytes, bool write) {
    static_cast<DeviceBacking*>(context)->access(key, size_bytes, write);
  }

 private:
  struct Slot {
    uint64_t key = 0;
    uint64_t first_page = 0;
    uint32_t pages = 0;
    bool used = false;
  };
  Slot& slot_of(uint64_t key);

  std::unique_ptr<Device> device_;
  const DeviceType* type_ = nullptr;
  uint64_t page_bytes_ = 4096;
  uint64_t pages_ = 0;      // exported
  uint64_t next_page_ = 0;  // the bump allocator
  std::vector<Slot> slots_;
  uint64_t mask_ = 0;
};

}  // namespace flashpq
