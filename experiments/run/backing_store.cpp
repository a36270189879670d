// experiments/run/backing_store.cpp — a backing store on a device of its own
// (experiments/run/backing_store.h).
#include "experiments/run/backing_store.h"

#include <algorithm>
#include <bit>
#include <optional>
#include <stdexcept>
#include <string>

#include "devices/device.h"
#include "engine/key_hash.h"

namespace flashpq {

DeviceBacking::DeviceBacking(const BackingConfig& config, uint64_t objects,
                             uint64_t working_set_bytes, uint64_t seed,
                             const std::string& force_destroy) {
  // The device, built through the device registry as a cell's own: backing.device names its
  // type (simflash or block) and the backing keys become its device keys.
  DeviceConfig dc;
  dc.seed = seed;
  dc.force_destroy = force_destroy;
  if (config.kind == BackingKind::kSimFlash) {
    dc.name = "simflash";
    dc.params.set("device.profile", config.profile);
    dc.params.set("device.utilization", config.utilization);
    dc.params.set("device.size_to_cache", "true");  // sized below, for the objects
  } else {
    dc.name = "block";
    dc.params.set("device.path", config.path);
  }
  type_ = &device_type(dc.name);
  if (type_->clock == DeviceClock::kSimulated) {
    // The device's pages (its logical block) are the extents' unit.
    Params shown;
    page_bytes_ = type_->resolve(dc, shown).logical_block_bytes;
  }
  // Every object rounded up to pages (at most one partial page each), with 25 % slack.
  const uint64_t pages = working_set_bytes / page_bytes_ + std::max<uint64_t>(objects, 1);
  const uint64_t bytes = (pages + pages / 4) * page_bytes_;
  // A device that sizes itself for a footprint (simflash) holds the bytes; another is given
  // them as its capacity (a file is created or extended to it, a block device must hold it).
  if (type_->size_for_cache == nullptr || !type_->size_for_cache(dc, bytes)) {
    dc.params.set("device.capacity", std::to_string(bytes));
  }
  device_ = type_->make(dc);
  pages_ = device_->capacity_bytes() / page_bytes_;
  slots_.assign(std::bit_ceil(std::max<uint64_t>(16, 2 * objects)), Slot{});
  mask_ = slots_.size() - 1;
}

std::unique_ptr<ServiceModel> DeviceBacking::service_model(const ServiceModel::Options& options) {
  if (type_->service_model == nullptr) return nullptr;
  return type_->service_model(*device_, options);
}

void DeviceBacking::fill() {
  const uint64_t chunk = 256 * page_bytes_;
  const uint64_t end = pages_ * page_bytes_;
  for (uint64_t off = 0; off < end; off += chunk) device_->write(off, std::min(chunk, end - off));
}

DeviceBacking::Slot& DeviceBacking::slot_of(uint64_t key) {
  for (uint64_t i = hash_key(key) & mask_;; i = (i + 1) & mask_) {
    Slot& s = slots_[i];
    if (!s.used || s.key == key) return s;
  }
}

void DeviceBacking::access(uint64_t key, uint32_t size_bytes, bool write) {
  Slot& s = slot_of(key);
  const uint32_t pages =
      static_cast<uint32_t>(std::max<uint64_t>(1, (size_bytes + page_bytes_ - 1) / page_bytes_));
  if (!s.used || pages > s.pages) {
    if (next_page_ + pages > pages_) {
      throw std::runtime_error("backing.device: the objects' extents outgrew the backing device (" +
                               std::to_string(pages_) +
                               " pages; objects that grow get a new extent)");
    }
    s = Slot{key, next_page_, pages, true};
    next_page_ += pages;
  }
  const uint64_t offset = s.first_page * page_bytes_;
  const uint64_t len = uint64_t{pages} * page_bytes_;
  if (write) {
    device_->write(offset, len);
  } else {
    device_->read(offset, len);
  }
}

}  // namespace flashpq
