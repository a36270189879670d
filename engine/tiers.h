// engine/tiers.h — a cache hierarchy: a DRAM tier over the flash tier over a backing store.
//
// Source: docs/DESIGN.md "Tiers". The flash tier is the cell's cache (any policy on any
// framework and device); a DRAM tier, an exact cache with a policy of its own, sits above it;
// the backing store (Open CAS's "core" device) below holds every object and is counted in bytes
// read and written. Lookups go DRAM → flash → backing store. The hierarchy itself keeps no
// clock (time in it is the request count); experiments/run/tiered_cell.cpp times it on
// simflash with a fixed_latency backing device (devices/backing.h). The DRAM tier may be absent
// (`tiers.dram: false`, Open CAS's SSD cache over a core device): then a get miss is offered to
// flash through flash_admission, and sets write the flash tier.
//
//   get    DRAM hit: served from DRAM. Flash hit: served from flash and promoted into DRAM; the
//          flash copy stays, so the DRAM copy is clean with respect to flash and evicting it
//          again writes nothing (CacheLib's "nvm clean" items). Miss: read from the backing
//          store and inserted into DRAM (read-through).
//   DRAM eviction (offered to flash)
//          nothing to do when flash holds the object (the copies are the same: a set
//          invalidates the flash copy). Otherwise `flash_admission` decides (CacheLib's hybrid
//          cache admits DRAM evictions to NVM through a policy): all; random with probability p
//          (CacheLib's RandomAP); nhit, admitted from its n-th request on, counted in a
//          direct-mapped table of recent keys as Open CAS's promotion policy nhit counts
//          recently requested addresses; rate_limited, random with a probability that follows
//          the flash tier's write rate toward a target (navy's dynamic random admission,
//          engine/write_rate_admission.h; the flash tier's bytes written are the bytes inserted
//          into it, before the device's write amplification; the clock is the request's
//          time_ns: the trace's timestamps in a functional cell, the arrival time in a timed
//          one); tinylfu, admitted iff its estimated frequency exceeds that of the object flash
//          would evict for it (TinyLFU's rule, engine/frequency_sketch.h, over every get and set
//          the hierarchy receives; admitted when flash would evict nothing); retention,
//          rejecting a victim whose eviction age (the
//          requests since its last request) exceeds `retention_requests`, as CacheBench's
//          nvmAdmissionRetentionTimeThreshold rejects items that stayed in DRAM too long without
//          a hit; reject_first, CacheLib's RejectFirstAP (NvmAdmissionPolicy.h, navy-spec.md
//          §4.5): a victim is admitted iff the low 32 bits of its key hash (mix64: MODELLING
//          CHOICE, CacheLib's is SpookyHashV2 of the key bytes) were already among the keys
//          an ApproxSplitSet (engine/approx_split_set.h) remembers, every victim's being added,
//          or — with the DRAM-hit signal — it was hit in DRAM since it entered DRAM (CacheLib:
//          lastAccessTime > creationTime, in seconds; here any hit counts, and a set makes a
//          new item). A dirty victim that flash does not take is flushed to the backing store.
//   flash eviction
//          a dirty object that DRAM does not also hold is flushed to the backing store.
//
// Cache modes between the cache tiers and the backing store (`tiers.mode`; Open CAS's cache
// modes, Open CAS documentation "Cache Modes"):
//   wt  write-through: a set writes the backing store and the cache; cached copies are clean.
//   wb  write-back: a set writes the cache only and marks the object dirty; the backing store is
//       written when a dirty object leaves the cache (a flush on eviction) or when the cleaner
//       finds it older than the staleness threshold (Open CAS's ALRU cleaning policy: it wakes
//       every `cleaner_interval_requests` and flushes objects dirty for at least
//       `cleaner_staleness_requests`).
//   wa  write-around: a set writes the backing store; a cached copy is updated, no copy is made.
//   wo  write-only: sets as write-back; gets are served from the cache when cached, and misses
//       are read from the backing store without being inserted.
//   pt  pass-through: every request goes to the backing store; a set or delete invalidates the
//       cached copies.
//   nhc_wa, nhc_wb
//       non-hierarchical caching (engine/nhc.h; Orthus-CAS's mfwa and mfwb, ocf-mf
//       src/engine/engine_mfwa.c, engine_mfwb.c): sets as wa or wb; a get that hits the flash
//       tier is served by flash with probability load_admit, else by the backing store (an
//       offloaded read: counted as a flash hit and in offloaded_reads; flash is not touched, so
//       its order is not updated; never a dirty object, which only the cache holds: engine_mfwb.c
//       "Reads to dirty entries always go to cache"); a miss is inserted only while data_admit
//       is on. The controller that sets both runs in simulated time (set_nhc).
// A delete removes the object from every tier, the backing store included; a dirty copy is
// dropped, not flushed. Time in this model is the request count (the cleaner's and nhit's
// clocks): functional cells have no other clock.
//
// The hierarchy reports what the tiers did in TierCounters. A test harness may pass a value
// tracker V (the NoValues default compiles to nothing) that is told of every copy made, moved,
// served and dropped, so that a test can check that every get returns the latest set
// (tests/engine/test_tiers.cpp, as the NHC demo's fuzzy mode checks Open CAS's modes).
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "engine/approx_split_set.h"
#include "engine/cache.h"
#include "engine/frequency_sketch.h"
#include "engine/nhc.h"
#include "engine/request.h"
#include "engine/write_rate_admission.h"
#include "sim/params.h"
#include "sim/rng.h"

namespace flashpq {

/// tiers.mode: none = no hierarchy (the cell's cache alone, as without the section).
enum class CacheMode {
  kNone,
  kWriteThrough,
  kWriteBack,
  kWriteAround,
  kWriteOnly,
  kPassThrough,
  kNhcWriteAround,
  kNhcWriteBack
};

/// tiers.flash_admission.
enum class FlashAdmission {
  kAll,
  kRandom,
  kRateLimited,
  kNHit,
  kTinyLfu,
  kRetention,
  kRejectFirst
};

/// The `tiers:` section, resolved.
struct TiersConfig {
  CacheMode mode = CacheMode::kNone;
  /// tiers.dram_capacity as written; dram_capacity_bytes once resolved against the working set
  /// (CapacitySpec::resolve, as cache.capacity).
  CapacitySpec dram_capacity;
  uint64_t dram_capacity_bytes = 0;
  /// tiers.dram_policy: a registered policy that can be a DRAM tier (policies/registry.h:
  /// policy_can_be_dram_tier; experiments/run/dram_tier.h), run on an
  /// exact queue with that policy's default keys.
  std::string dram_policy = "lru";
  /// tiers.dram: false = no DRAM tier (the flash tier is the first).
  bool dram = true;
  /// tiers.dram_latency_us: timed hierarchies only: the time every request spends in the DRAM
  /// tier (its lookup and copy), ns; requests overlap in it (no queueing).
  uint64_t dram_latency_ns = 0;
  FlashAdmission flash_admission = FlashAdmission::kAll;
  /// random: the probability of admission, in [0, 1].
  double admit_probability = 1;
  /// nhit: the request (1-based) from which on a key is admitted, >= 1; table slots, a power of
  /// two.
  uint32_t nhit = 2;
  uint32_t nhit_table_slots = 1u << 20;
  /// retention: the largest eviction age, in requests, admitted to flash.
  uint64_t retention_requests = 1000000;
  /// reject_first: the keys remembered (numEntries), over how many splits (numSplits), and
  /// whether a DRAM hit admits (useDramHitSignal): CacheLib's enableRejectFirstAPForNvm.
  uint64_t reject_first_entries = 1000000;
  uint32_t reject_first_splits = 20;
  bool reject_first_dram_hit_signal = true;
  /// rate_limited: the controller's constants (engine/write_rate_admission.h).
  WriteRateAdmissionConfig write_rate;
  /// tinylfu: the objects the flash tier is expected to hold (the sketch's size; the caller sets
  /// it, as it sizes the flash cache's index).
  uint64_t flash_expected_objects = 1;
  /// The cleaner (wb, wo): flush objects dirty for at least this many requests; 0 = no cleaner.
  uint64_t cleaner_staleness_requests = 0;
  /// The cleaner wakes every this many requests, >= 1.
  uint64_t cleaner_interval_requests = 1000;
  /// nhc_wa, nhc_wb: the controller's constants.
  NhcConfig nhc_config;
  /// The random admission's and the offload's streams (the cell's seed).
  uint64_t seed = 1;

  bool enabled() const { return mode != CacheMode::kNone; }
  /// Whether sets can leave objects dirty (wb, wo, nhc_wb).
  bool writes_back() const {
    return mode == CacheMode::kWriteBack || mode == CacheMode::kWriteOnly ||
           mode == CacheMode::kNhcWriteBack;
  }
  /// nhc_wa, nhc_wb.
  bool nhc() const {
    return mode == CacheMode::kNhcWriteAround || mode == CacheMode::kNhcWriteBack;
  }

  /// Decodes the tiers.* values of `params` (unset keys take their defaults); the DRAM capacity
  /// stays unresolved. Throws std::invalid_argument quoting a bad value.
  static TiersConfig from(const Params& params, uint64_t seed);
};

/// The `tiers:` section: tiers.mode, then the hierarchy's keys (read when mode is not none).
const SectionSpec& tiers_section();
extern const KeySpec kTiersModeKey;

/// What the tiers did. Every field accumulates (a row reports the growth after the warm-up).
struct TierCounters {
  uint64_t dram_hits = 0;
  uint64_t flash_hits = 0;
  /// Gets answered by the backing store (misses, offloaded reads, every get in pt), and their
  /// bytes.
  uint64_t backing_reads = 0;
  uint64_t backing_read_bytes = 0;
  /// Writes to the backing store (sets in wt, wa, pt; flushes), and their bytes.
  uint64_t backing_writes = 0;
  uint64_t backing_write_bytes = 0;
  /// DRAM evictions offered to flash that flash_admission accepted or rejected (victims flash
  /// already holds are not offered).
  uint64_t flash_admission_accepts = 0;
  uint64_t flash_admission_rejects = 0;
  /// Flash hits copied into DRAM.
  uint64_t promotions = 0;
  /// nhc: flash hits served by the backing store (counted in flash_hits and backing_reads).
  uint64_t offloaded_reads = 0;
  /// Dirty bytes written to the backing store when their object left the cache, and by the
  /// cleaner.
  uint64_t dirty_bytes_flushed = 0;
  uint64_t cleaner_bytes_flushed = 0;
};

/// Where a copy is: the tiers of a hierarchy, top down.
enum class Tier : uint8_t { kDram = 0, kFlash = 1, kBacking = 2 };

/// The value tracker that tracks nothing (the default; every call compiles away). A tracker is
/// told: write(t, key), the request's own value stored in tier t; copy(from, to, key); erase(t,
/// key), the copy in t dropped; serve(t, key), a get answered from t; hold(t, key) then
/// land(to, key), a copy whose source may leave in between.
struct NoValues {
  static constexpr bool kEnabled = false;
  void write(Tier, uint64_t) {}
  void copy(Tier, Tier, uint64_t) {}
  void erase(Tier, uint64_t) {}
  void serve(Tier, uint64_t) {}
  void hold(Tier, uint64_t) {}
  void land(Tier, uint64_t) {}
};

/// The hierarchy over a DRAM cache D and a flash cache F (engine/cache.h Cache types, built by
/// the caller; they must outlive it and are used by nothing else). V tracks values for tests.
/// Not thread-safe.
template <class D, class F, class V = NoValues>
class TieredCache {
 public:
  /// REQUIRES: config.enabled(); neither cache has an eviction listener (the hierarchy sets
  /// both) nor an admission policy of its own.
  TieredCache(const TiersConfig& config, D& dram, F& flash, V* values = nullptr)
      : config_(config),
        dram_(dram),
        flash_(flash),
        values_(values),
        rng_(config.seed, RngStream::kTierAdmissionStream),
        offload_rng_(config.seed, RngStream::kTierOffloadStream) {
    dram_.set_eviction_listener(&TieredCache::on_dram_evict, this);
    flash_.set_eviction_listener(&TieredCache::on_flash_evict, this);
    if (config_.flash_admission == FlashAdmission::kNHit) {
      nhit_.assign(config_.nhit_table_slots, NhitSlot{});
    }
    if (config_.flash_admission == FlashAdmission::kRateLimited) rate_.emplace(config_.write_rate);
    if (config_.flash_admission == FlashAdmission::kRejectFirst) {
      reject_first_.emplace(config_.reject_first_entries, config_.reject_first_splits);
    }
    // Caffeine's sketch defaults (TinyLfuConfig): one word per object, sample 10 × objects.
    if (config_.flash_admission == FlashAdmission::kTinyLfu) {
      sketch_.emplace(config_.flash_expected_objects, 1.0, 10);
    }
    next_clean_ = config_.cleaner_interval_requests;
  }
  ~TieredCache() {
    dram_.set_eviction_listener(nullptr, nullptr);
    flash_.set_eviction_listener(nullptr, nullptr);
  }
  TieredCache(const TieredCache&) = delete;
  TieredCache& operator=(const TieredCache&) = delete;

  /// Applies one request. Returns true iff it is a get served by a cache tier.
  bool access(const Request& r) {
    ++now_;
    clock_ns_ = r.time_ns;
    if (config_.flash_admission == FlashAdmission::kNHit && r.op != Op::kDelete) count_nhit(r.key);
    if (config_.flash_admission == FlashAdmission::kTinyLfu && r.op != Op::kDelete) {
      sketch_->increment(r.key);
    }
    if (config_.cleaner_staleness_requests != 0 && now_ >= next_clean_) [[unlikely]]
      clean();
    switch (r.op) {
      case Op::kGet: {
        const bool hit = get(r);
        if (config_.flash_admission == FlashAdmission::kRetention) note_access(r.key);
        return hit;
      }
      case Op::kSet:
        set(r);
        if (config_.flash_admission == FlashAdmission::kRetention) note_access(r.key);
        return false;
      case Op::kDelete:
        remove(r);
        return false;
    }
    return false;
  }

  const TierCounters& tier_counters() const { return counters_; }
  const D& dram() const { return dram_; }
  const F& flash() const { return flash_; }
  /// Objects dirty now (cached, not yet written to the backing store).
  size_t dirty_objects() const { return dirty_.size(); }

  /// nhc: sets the controller's switches (engine/nhc.h): whether misses are inserted, and the
  /// probability, in [0, 1], that a flash hit is served by flash.
  void set_nhc(bool data_admit, double load_admit) {
    data_admit_ = data_admit;
    load_admit_ = load_admit;
  }
  /// Called with each read of the backing store (write false: a get it answers) and each write
  /// (a set it takes, a flush), with the object's key and size, after the counters: a runner
  /// that puts the backing store on a device does the I/O there
  /// (experiments/run/backing_store.h). Null (the default): counted only.
  using BackingListener = void (*)(void* context, uint64_t key, uint32_t size_bytes, bool write);
  void set_backing_listener(BackingListener listener, void* context) {
    backing_listener_ = listener;
    backing_context_ = context;
  }

  /// Gets that no cache tier held (offloaded reads are hits), and all gets, since the start.
  uint64_t read_misses() const { return counters_.backing_reads - counters_.offloaded_reads; }
  uint64_t reads() const { return counters_.dram_hits + counters_.flash_hits + read_misses(); }

  // What the runners read of a cache (experiments/run/measure.h): the flash tier's.
  uint64_t used_bytes() const { return flash_.used_bytes(); }
  bool places_objects() const { return flash_.places_objects(); }
  size_t object_count() const { return flash_.object_count(); }
  uint64_t miss_bytes_inserted() const { return flash_.miss_bytes_inserted(); }
  uint64_t admission_rejections() const { return counters_.flash_admission_rejects; }
  size_t index_bytes() const { return flash_.index_bytes(); }
  size_t queue_bytes() const { return flash_.queue_bytes(); }
  size_t admission_bytes() const {
    return nhit_.capacity() * sizeof(NhitSlot) + (sketch_ ? sketch_->memory_bytes() : 0);
  }
  /// rate_limited: the controller (engine/write_rate_admission.h); null otherwise.
  const WriteRateAdmission* write_rate_admission() const { return rate_ ? &*rate_ : nullptr; }
  /// reject_first: the keys it remembers (engine/approx_split_set.h); null otherwise.
  const ApproxSplitSet* reject_first_tracker() const {
    return reject_first_ ? &*reject_first_ : nullptr;
  }
  const auto& queue() const { return flash_.queue(); }

 private:
  struct NhitSlot {
    uint64_t key = 0;
    uint32_t count = 0;
  };
  struct DirtyEntry {
    uint64_t key;
    uint64_t since;
    uint32_t size_bytes;
  };

  bool get(const Request& r) {
    if (config_.mode == CacheMode::kPassThrough) {
      read_backing(r.key, r.size_bytes);
      return false;
    }
    if (config_.dram && dram_.lookup(r)) [[likely]] {
      ++counters_.dram_hits;
      if (tracks_dram_hits()) dram_hit_.insert(r.key);
      if constexpr (V::kEnabled) values_->serve(Tier::kDram, r.key);
      return true;
    }
    if (load_admit_ < 1 && flash_.contains(r.key) && !is_dirty(r.key) &&
        offload_rng_.uniform() >= load_admit_) {
      ++counters_.flash_hits;
      ++counters_.offloaded_reads;
      read_backing(r.key, r.size_bytes);
      return true;
    }
    if (flash_.lookup(r)) {
      ++counters_.flash_hits;
      if constexpr (V::kEnabled) values_->serve(Tier::kFlash, r.key);
      if (config_.mode != CacheMode::kWriteOnly && config_.dram) {
        ++counters_.promotions;
        insert_dram(r, Tier::kFlash);
      }
      return true;
    }
    read_backing(r.key, r.size_bytes);
    if (config_.mode == CacheMode::kWriteOnly || !data_admit_) return false;
    if (config_.dram) {
      insert_dram(r, Tier::kBacking);
    } else {
      offer_flash(r.key, r.size_bytes, Tier::kBacking);
    }
    return false;
  }

  void set(const Request& r) {
    switch (config_.mode) {
      case CacheMode::kWriteThrough:
        write_backing(r);
        write_cache(r, false);
        return;
      case CacheMode::kWriteBack:
      case CacheMode::kWriteOnly:
      case CacheMode::kNhcWriteBack:
        write_cache(r, true);
        return;
      case CacheMode::kWriteAround:
      case CacheMode::kNhcWriteAround:
        write_backing(r);
        if (dram_.contains(r.key)) {
          write_cache(r, false);  // updates the DRAM copy, invalidates the flash copy
        } else if (flash_.contains(r.key)) {
          flash_.access(r);  // rewrites the flash copy
          if constexpr (V::kEnabled) {
            if (flash_.contains(r.key)) values_->write(Tier::kFlash, r.key);
          }
        }
        return;
      case CacheMode::kPassThrough:
      case CacheMode::kNone:
        write_backing(r);
        invalidate(r.key);
        return;
    }
  }

  void remove(const Request& r) {
    invalidate(r.key);
    if constexpr (V::kEnabled) values_->erase(Tier::kBacking, r.key);
  }

  // Drops the cached copies of `key` (and its dirt: nothing is flushed).
  void invalidate(uint64_t key) {
    dram_.access(Request{0, key, 0, Op::kDelete});
    if (config_.flash_admission == FlashAdmission::kRetention) last_access_.erase(key);
    if (tracks_dram_hits()) dram_hit_.erase(key);
    invalidate_flash(key);
    if (config_.writes_back()) dirty_.erase(key);
    if constexpr (V::kEnabled) values_->erase(Tier::kDram, key);
  }

  void invalidate_flash(uint64_t key) {
    if (!flash_.contains(key)) return;
    flash_.access(Request{0, key, 0, Op::kDelete});
    if constexpr (V::kEnabled) values_->erase(Tier::kFlash, key);
  }

  // A set that lands in the cache: the new version in DRAM, the flash copy (now stale) dropped.
  void write_cache(const Request& r, bool dirty) {
    if (!config_.dram) {
      write_flash(r, dirty);
      return;
    }
    invalidate_flash(r.key);
    if (tracks_dram_hits()) dram_hit_.erase(r.key);  // a set makes a new item
    dram_.access(r);
    if (dram_.contains(r.key)) {
      if constexpr (V::kEnabled) values_->write(Tier::kDram, r.key);
      if (dirty) {
        mark_dirty(r.key, r.size_bytes);
      } else if (config_.writes_back()) {
        dirty_.erase(r.key);
      }
      return;
    }
    // Larger than DRAM, or declined by its policy (S3-FIFO, 2Q and LIRS decline objects larger
    // than their small queue): the old copy is gone; written to the backing store (done
    // already unless write-back).
    if constexpr (V::kEnabled) values_->erase(Tier::kDram, r.key);
    if (config_.writes_back()) dirty_.erase(r.key);
    if (dirty) write_backing(r);
  }

  // Without a DRAM tier: the set's new version replaces the flash copy.
  void write_flash(const Request& r, bool dirty) {
    flash_.access(r);
    if (flash_.contains(r.key)) {
      if constexpr (V::kEnabled) values_->write(Tier::kFlash, r.key);
      if (dirty) {
        mark_dirty(r.key, r.size_bytes);
      } else if (config_.writes_back()) {
        dirty_.erase(r.key);
      }
      return;
    }
    // Larger than flash (or evicted at once): written to the backing store.
    if constexpr (V::kEnabled) values_->erase(Tier::kFlash, r.key);
    if (config_.writes_back()) dirty_.erase(r.key);
    if (dirty) write_backing(r);
  }

  // Offers an object that is not in flash, copied from `from`, to flash through
  // flash_admission.
  void offer_flash(uint64_t key, uint32_t size, Tier from) {
    if (!admit_to_flash(key, size)) {
      ++counters_.flash_admission_rejects;
      return;
    }
    ++counters_.flash_admission_accepts;
    flash_.access(Request{0, key, size, Op::kSet});
    // The source copy is still there: the backing store's always, DRAM's until its eviction
    // listener returns.
    if constexpr (V::kEnabled) {
      if (flash_.contains(key)) values_->copy(from, Tier::kFlash, key);
    }
  }

  // Copies a get's object from `from` (flash or the backing store) into DRAM.
  // The value is taken before the insertion, which may evict the flash copy it comes from.
  void insert_dram(const Request& r, Tier from) {
    if constexpr (V::kEnabled) values_->hold(from, r.key);
    dram_.access(Request{r.time_ns, r.key, r.size_bytes, Op::kSet});
    if constexpr (V::kEnabled) {
      if (dram_.contains(r.key)) values_->land(Tier::kDram, r.key);
    }
  }

  void read_backing(uint64_t key, uint32_t size) {
    ++counters_.backing_reads;
    counters_.backing_read_bytes += size;
    if (backing_listener_ != nullptr) [[unlikely]]
      backing_listener_(backing_context_, key, size, false);
    if constexpr (V::kEnabled) values_->serve(Tier::kBacking, key);
  }

  void write_backing(const Request& r) {
    ++counters_.backing_writes;
    counters_.backing_write_bytes += r.size_bytes;
    if (backing_listener_ != nullptr) [[unlikely]]
      backing_listener_(backing_context_, r.key, r.size_bytes, true);
    if constexpr (V::kEnabled) values_->write(Tier::kBacking, r.key);
  }

  // Writes the dirty copy of `key` held in `from` to the backing store.
  void flush(uint64_t key, uint32_t size, Tier from) {
    ++counters_.backing_writes;
    counters_.backing_write_bytes += size;
    if (backing_listener_ != nullptr) [[unlikely]]
      backing_listener_(backing_context_, key, size, true);
    dirty_.erase(key);
    if constexpr (V::kEnabled) values_->copy(from, Tier::kBacking, key);
  }

  void mark_dirty(uint64_t key, uint32_t size) {
    dirty_[key] = now_;
    if (config_.cleaner_staleness_requests != 0) dirty_queue_.push_back({key, now_, size});
  }

  bool is_dirty(uint64_t key) const {
    return config_.writes_back() && dirty_.find(key) != dirty_.end();
  }

  bool admit_to_flash(uint64_t key, uint32_t size) {
    switch (config_.flash_admission) {
      case FlashAdmission::kAll:
        return true;
      case FlashAdmission::kRandom:
        return rng_.uniform() < config_.admit_probability;
      case FlashAdmission::kRateLimited: {
        rate_->tick(clock_ns_, flash_.miss_bytes_inserted());
        const double p = rate_->probability(size);
        return p >= 1 || rng_.uniform() < p;
      }
      case FlashAdmission::kTinyLfu: {
        uint64_t victim = 0;
        return !flash_.next_victim(size, &victim) ||
               sketch_->estimate(key) > sketch_->estimate(victim);
      }
      case FlashAdmission::kNHit: {
        const NhitSlot& s = nhit_[nhit_slot(key)];
        return s.key == key && s.count >= config_.nhit;
      }
      case FlashAdmission::kRetention: {
        const auto it = last_access_.find(key);
        return it != last_access_.end() && now_ - it->second <= config_.retention_requests;
      }
      case FlashAdmission::kRejectFirst: {
        // RejectFirstAP::acceptImpl: the hit signal read first, the key tracked always.
        const bool was_dram_hit = tracks_dram_hits() && dram_hit_.count(key) != 0;
        const bool seen = reject_first_->insert(mix64(key));
        return seen || was_dram_hit;
      }
    }
    return true;
  }

  // reject_first with the DRAM-hit signal: which objects DRAM holds were hit there.
  bool tracks_dram_hits() const {
    return config_.flash_admission == FlashAdmission::kRejectFirst &&
           config_.reject_first_dram_hit_signal;
  }

  // retention: the request count of the last request of each object DRAM holds.
  void note_access(uint64_t key) {
    if (dram_.contains(key)) last_access_[key] = now_;
  }

  size_t nhit_slot(uint64_t key) const {
    return static_cast<size_t>((key * 0x9E3779B97F4A7C15ull) >> 32) & (nhit_.size() - 1);
  }
  void count_nhit(uint64_t key) {
    NhitSlot& s = nhit_[nhit_slot(key)];
    if (s.key != key) s = NhitSlot{key, 0};
    if (s.count < UINT32_MAX) ++s.count;
  }

  // The cleaner (Open CAS ALRU): flushes, oldest first, the objects dirty for at least the
  // staleness threshold. Entries of objects written again, flushed or dropped since are skipped.
  void clean() {
    next_clean_ = now_ + config_.cleaner_interval_requests;
    while (!dirty_queue_.empty()) {
      const DirtyEntry e = dirty_queue_.front();
      if (now_ - e.since < config_.cleaner_staleness_requests) break;
      dirty_queue_.pop_front();
      const auto it = dirty_.find(e.key);
      if (it == dirty_.end() || it->second != e.since) continue;
      counters_.cleaner_bytes_flushed += e.size_bytes;
      flush(e.key, e.size_bytes, dram_.contains(e.key) ? Tier::kDram : Tier::kFlash);
    }
  }

  static void on_dram_evict(void* self, uint64_t key, uint32_t size) {
    static_cast<TieredCache*>(self)->dram_evicted(key, size);
  }
  static void on_flash_evict(void* self, uint64_t key, uint32_t size) {
    static_cast<TieredCache*>(self)->flash_evicted(key, size);
  }

  void dram_evicted(uint64_t key, uint32_t size) {
    if (!flash_.contains(key)) {
      offer_flash(key, size, Tier::kDram);
      if (is_dirty(key) && !flash_.contains(key)) {
        counters_.dirty_bytes_flushed += size;
        flush(key, size, Tier::kDram);
      }
    }
    if (config_.flash_admission == FlashAdmission::kRetention) last_access_.erase(key);
    if (tracks_dram_hits()) dram_hit_.erase(key);
    if constexpr (V::kEnabled) values_->erase(Tier::kDram, key);
  }

  void flash_evicted(uint64_t key, uint32_t size) {
    // DRAM may hold the same copy (promoted): then the dirt stays with it.
    if (is_dirty(key) && !dram_.contains(key)) {
      counters_.dirty_bytes_flushed += size;
      flush(key, size, Tier::kFlash);
    }
    if constexpr (V::kEnabled) values_->erase(Tier::kFlash, key);
  }

  TiersConfig config_;
  D& dram_;
  F& flash_;
  V* values_;
  RngStream rng_;
  RngStream offload_rng_;
  TierCounters counters_;
  // nhc's switches (engine/nhc.h); other modes keep them at their classic values.
  bool data_admit_ = true;
  double load_admit_ = 1;
  uint64_t now_ = 0;
  uint64_t clock_ns_ = 0;  // the current request's time_ns (rate_limited's clock)
  uint64_t next_clean_ = 0;
  std::optional<WriteRateAdmission> rate_;
  BackingListener backing_listener_ = nullptr;
  void* backing_context_ = nullptr;
  std::optional<FrequencySketch> sketch_;
  std::vector<NhitSlot> nhit_;
  // Dirty objects: key → the request count when last written (wb, wo only).
  std::unordered_map<uint64_t, uint64_t> dirty_;
  std::deque<DirtyEntry> dirty_queue_;
  // retention only: key → the request count of its last request, for the objects DRAM holds.
  std::unordered_map<uint64_t, uint64_t> last_access_;
  // reject_first: the tracker, and the objects DRAM holds that were hit there (never iterated).
  std::optional<ApproxSplitSet> reject_first_;
  std::unordered_set<uint64_t> dram_hit_;
};

}  // namespace flashpq
