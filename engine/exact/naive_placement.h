// engine/exact/naive_placement.h — where the exact framework puts objects on the device when
// framework.placement is "naive".
//
// Source: RIPQ paper (FAST'15) §4.2, "Naive Design": "fix an object's location on flash until it
// is evicted". Each inserted object is written on its own, at the lowest free offset aligned to
// the alignment a (framework.placement_alignment), as an extent of its size rounded up to
// a; when the object leaves (eviction, delete, replacement) its extent is trimmed. The scattered
// trims are what makes this design costly for the FTL; the placement itself never changes which
// objects are cached (see "Span" below), so hit ratios equal those of placement "none".
//
// Span. The allocator hands out extents inside [0, span):
//   span = a · (⌈C/a⌉ + C)            (C = the cache capacity in bytes, objects in unit-size mode)
// i.e. the capacity rounded up to the alignment plus one alignment unit of internal
// fragmentation for each object that can be cached at once (at most C objects of >= 1 byte, each
// wasting less than one unit). Live extents therefore never need more than the span in total;
// external fragmentation (holes left between live extents) is kept low by lowest-fit. If the
// device is bounded (capacity_bytes != 0) the span is also capped at the device capacity rounded
// down to a. Offsets are only numbers on a null device, so a large span costs nothing there;
// extents stay packed near offset 0 (high_water_bytes() reports how far they reached).
//
// Fallback (documented, counted). If a lowest-fit allocation ever fails (a bounded device, or
// pathological external fragmentation), the queue runs delete-min until it succeeds
// (ExactRelativeQueue/ExactAbsoluteQueue::make_room) and counts those evictions in
// fragmentation_evictions(); only then could hits differ from placement "none". Tests check it
// stays 0.
//
// Objects of size 0 get no extent (nothing written, nothing trimmed). In unit-size mode every
// object has size 1, so it occupies exactly one alignment unit.
//
// Memory: the free extents live in a std::map (offset → length) whose nodes are recycled through
// a spare pool (map node handles), and the object offsets in a vector indexed by handle, so the
// steady state allocates nothing per request.
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "devices/device.h"
#include "engine/exact/exact_config.h"
#include "engine/object_table.h"
#include "engine/queue.h"

namespace flashpq {

/// Lowest-fit extent allocator over [0, span) writing and trimming on a Device (see the file
/// comment). All lengths and offsets in bytes; every offset and length is a multiple of the
/// alignment. Not thread-safe.
class NaivePlacement {
 public:
  static constexpr uint64_t kNoOffset = UINT64_MAX;

  /// Returns a placement for ctx if its framework.placement is "naive", else nullptr (the
  /// queues' "none" path). Throws std::invalid_argument as ExactConfig::from and the
  /// constructor.
  static std::unique_ptr<NaivePlacement> make_if_enabled(const QueueContext& ctx) {
    const ExactConfig c = ExactConfig::from(ctx.framework.params);
    if (!c.naive_placement) return nullptr;
    auto placement = std::make_unique<NaivePlacement>(ctx.device, ctx.capacity_bytes,
                                                      c.placement_alignment_bytes);
    placement->placement_ = ctx.placement(0, {"objects"});
    return placement;
  }

  /// REQUIRES: capacity_bytes >= 1; alignment_bytes a power of two (ExactConfig::from).
  /// Throws std::invalid_argument if the alignment is not a multiple of the device's logical
  /// block size or the device is bounded and smaller than one alignment unit.
  NaivePlacement(Device& device, uint64_t capacity_bytes, uint32_t alignment_bytes)
      : device_(device), align_(alignment_bytes) {
    if (align_ == 0 || (align_ & (align_ - 1)) != 0) {
      throw std::invalid_argument("naive placement: alignment " + std::to_string(align_) +
                                  " B is not a power of two");
    }
    if (align_ % device.logical_block_bytes() != 0) {
      throw std::invalid_argument("naive placement: alignment " + std::to_string(align_) +
                                  " B is not a multiple of the device's logical block size " +
                                  std::to_string(device.logical_block_bytes()) + " B");
    }
    // units = ⌈C/a⌉ + C, capped so that units · a stays below 2^63.
    const uint64_t max_units = (uint64_t{1} << 63) / align_;
    const uint64_t rounded = capacity_bytes / align_ + (capacity_bytes % align_ != 0);
    const uint64_t units = std::min(max_units, rounded + std::min(capacity_bytes, max_units));
    span_ = units * align_;
    if (device.capacity_bytes() != 0) {
      span_ = std::min(span_, device.capacity_bytes() / align_ * align_);
    }
    if (span_ == 0) {
      throw std::invalid_argument("naive placement: device capacity " +
                                  std::to_string(device.capacity_bytes()) +
                                  " B holds no extent of " + std::to_string(align_) + " B");
    }
    free_.emplace(0, span_);
  }

  NaivePlacement(const NaivePlacement&) = delete;
  NaivePlacement& operator=(const NaivePlacement&) = delete;

  /// The extent length of an object of `size` bytes: size rounded up to the alignment.
  uint64_t extent_bytes(uint32_t size) const {
    return (uint64_t{size} + align_ - 1) & ~(uint64_t{align_} - 1);
  }

  /// Could an object of `size` bytes ever be placed (its extent fits in the span)?
  bool admits(uint32_t size) const { return extent_bytes(size) <= span_; }

  /// Would place() of an object of `size` bytes succeed now? Remembers the lowest-fit extent
  /// for the next place() (nothing changes the free map in between).
  bool fits(uint32_t size) const {
    const uint64_t len = extent_bytes(size);
    return len == 0 || lowest_fit(len) != free_.end();
  }

  /// Allocates the object's extent at the lowest fitting offset and writes it to the device.
  /// REQUIRES: h not placed. Throws std::logic_error if no extent fits (the queue must have made
  /// room: fits(size) was true).
  void place(Handle h, uint32_t size) {
    if (h >= offsets_.size()) offsets_.resize(std::max<size_t>(h + 1, offsets_.size() * 2));
    const uint64_t len = extent_bytes(size);
    if (len == 0) {
      offsets_[h] = kNoOffset;
      return;
    }
    const auto it = lowest_fit(len);
    if (it == free_.end()) [[unlikely]]
      no_room(len);
    const uint64_t offset = it->first;
    if (it->second == len) {
      spare_.push_back(free_.extract(it));
    } else {  // shrink the free extent from the front: same node, new key, same position
      auto hint = std::next(it);
      auto node = free_.extract(it);
      node.key() += len;
      node.mapped() -= len;
      free_.insert(hint, std::move(node));
    }
    cache_valid_ = false;
    offsets_[h] = offset;
    allocated_bytes_ += len;
    high_water_bytes_ = std::max(high_water_bytes_, offset + len);
    device_.write(offset, len, placement_);
  }

  /// Reads h's whole extent from the device: a cache hit served from flash (the extent is
  /// aligned, so the read is too). REQUIRES: h placed with `size`.
  void read(Handle h, uint32_t size) {
    const uint64_t len = extent_bytes(size);
    if (len != 0) device_.read(offsets_[h], len);
  }

  /// Frees h's extent (coalescing with its free neighbours) and trims it on the device.
  /// REQUIRES: h placed with `size`.
  void release(Handle h, uint32_t size) {
    const uint64_t len = extent_bytes(size);
    if (len == 0) return;
    const uint64_t offset = offsets_[h];
    offsets_[h] = kNoOffset;
    device_.trim(offset, len);
    allocated_bytes_ -= len;
    cache_valid_ = false;
    auto next = free_.lower_bound(offset);  // first free extent after the released one
    const bool join_next = next != free_.end() && next->first == offset + len;
    if (next != free_.begin()) {
      auto prev = std::prev(next);
      if (prev->first + prev->second == offset) {  // grow the previous extent
        prev->second += len;
        if (join_next) {
          prev->second += next->second;
          spare_.push_back(free_.extract(next));
        }
        return;
      }
    }
    if (join_next) {  // the next extent starts earlier: same node, new key, same position
      auto hint = std::next(next);
      auto node = free_.extract(next);
      node.key() = offset;
      node.mapped() += len;
      free_.insert(hint, std::move(node));
      return;
    }
    if (spare_.empty()) {
      free_.emplace_hint(next, offset, len);
    } else {
      auto node = std::move(spare_.back());
      spare_.pop_back();
      node.key() = offset;
      node.mapped() = len;
      free_.insert(next, std::move(node));
    }
  }

  /// The offset of placed object h's extent, or kNoOffset for a size-0 object.
  uint64_t offset(Handle h) const { return offsets_[h]; }

  uint32_t alignment_bytes() const { return static_cast<uint32_t>(align_); }
  /// The span [0, span) extents are allocated in (see the file comment), bytes.
  uint64_t span_bytes() const { return span_; }
  /// Bytes of live extents (sizes rounded up to the alignment).
  uint64_t allocated_bytes() const { return allocated_bytes_; }
  /// The highest end offset any extent has reached, bytes.
  uint64_t high_water_bytes() const { return high_water_bytes_; }
  /// The free extents, offset → length, for tests.
  const std::map<uint64_t, uint64_t>& free_extents() const { return free_; }

  /// DRAM of the objects' extent offsets (by handle): index map state.
  size_t index_bytes() const { return offsets_.capacity() * sizeof(uint64_t); }
  /// DRAM of the allocator: the map nodes (counted as 48 B each: three pointers and a colour
  /// word plus the 16 B pair), live and spare.
  size_t queue_bytes() const {
    constexpr size_t kNodeBytes = 4 * sizeof(void*) + 2 * sizeof(uint64_t);
    return (free_.size() + spare_.size()) * kNodeBytes + spare_.capacity() * sizeof(NodeHandle);
  }

 private:
  using FreeMap = std::map<uint64_t, uint64_t>;
  using NodeHandle = FreeMap::node_type;

  // The free extent with the lowest offset that holds `len` bytes, or end(). The last answer is
  // cached until the map changes (make_room's fits() then insert's place()).
  FreeMap::const_iterator lowest_fit(uint64_t len) const {
    if (cache_valid_ && cache_len_ == len) return cache_it_;
    auto it = free_.begin();
    while (it != free_.end() && it->second < len) ++it;
    cache_valid_ = true;
    cache_len_ = len;
    cache_it_ = it;
    return it;
  }
  FreeMap::iterator lowest_fit(uint64_t len) {
    const auto it = std::as_const(*this).lowest_fit(len);
    return free_.erase(it, it);  // const_iterator → iterator, no change
  }

  [[noreturn]] [[gnu::cold]] [[gnu::noinline]] void no_room(uint64_t len) const {
    throw std::logic_error("naive placement: no free extent of " + std::to_string(len) +
                           " B in a span of " + std::to_string(span_) +
                           " B (make_room was not called?)");
  }

  Device& device_;
  uint32_t placement_ = 0;  // the FDP placement handle of its one data class, objects
  uint64_t align_;
  uint64_t span_ = 0;
  FreeMap free_;
  std::vector<NodeHandle> spare_;
  std::vector<uint64_t> offsets_;  // by handle
  uint64_t allocated_bytes_ = 0;
  uint64_t high_water_bytes_ = 0;
  mutable bool cache_valid_ = false;
  mutable uint64_t cache_len_ = 0;
  mutable FreeMap::const_iterator cache_it_;
};

}  // namespace flashpq
