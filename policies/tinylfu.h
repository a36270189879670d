// policies/tinylfu.h — TinyLFU admission over the frequency sketch of
// engine/frequency_sketch.h (count-min, 4-bit counters, periodic halving, optional doorkeeper).
//
// Sources: [TinyLFU] and [CFSIM] as cited in engine/frequency_sketch.h: a candidate is admitted
// iff its estimated frequency exceeds the victim's; with the doorkeeper, a first occurrence
// only enters the doorkeeper, and the estimate is the sketch's plus 1 if the doorkeeper may
// hold the key.
//
// Memory is sized by an object count, never by bytes of capacity: 8 bytes per expected object
// (rounded up to a power of two) for the sketch, plus ~3.6–7.2 bytes per expected object for
// the doorkeeper when enabled. (libCacheSim sizes its W-TinyLFU sketch from the byte capacity,
// which gives multi-GB sketches for TB caches.)
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/admission.h"
#include "engine/frequency_sketch.h"
#include "sim/params.h"

namespace flashpq {

/// What TinyLFU reads of the admission section (and policy wtinylfu, whose sketch is the
/// same). The sketch's depth (4) and counter width (4 bits, saturating at 15) are fixed, as in
/// Caffeine.
struct TinyLfuConfig {
  /// Additions between two halvings of the sketch, as a multiple of the expected number of
  /// cached objects (TinyLFU's sample size W = sample_factor × C). Default 10 (Caffeine
  /// FrequencySketch: sampleSize = 10 × maximum). Range [1, 1000].
  uint32_t sample_factor = 10;
  /// Sketch words (16 counters each, 4 per row) per expected cached object, before rounding up
  /// to a power of two; the sketch takes 8 bytes × that many words. Default 1.0 (Caffeine
  /// simulator: tiny-lfu.count-min-4.counters-multiplier = 1.0). Range (0, 64].
  double counters_multiplier = 1.0;
  /// Put a doorkeeper Bloom filter in front of the sketch (TinyLFU's doorkeeper). Default false
  /// (Caffeine simulator: tiny-lfu.count-min-4.periodic.doorkeeper.enabled = false).
  bool doorkeeper = false;
  /// With the doorkeeper: the filter is sized for this many insertions per expected cached
  /// object. Default 3.0 (Caffeine simulator: membership.expected-insertions-multiplier).
  /// Range (0, 64].
  double doorkeeper_insertions_multiplier = 3.0;
  /// With the doorkeeper: target false-positive probability of the filter at that many
  /// insertions. Default 0.01 (Caffeine simulator: membership.fpp). Range (0, 0.5].
  double doorkeeper_fpp = 0.01;

  /// Decodes `params` (admission.* keys; unset keys take their defaults). Throws
  /// std::invalid_argument quoting a bad value.
  static TinyLfuConfig from(const Params& params);
};

/// admission.sample_factor, counters_multiplier, doorkeeper, doorkeeper_insertions_multiplier,
/// doorkeeper_fpp.
extern const KeySpec kSampleFactorKey;
extern const KeySpec kCountersMultiplierKey;
extern const KeySpec kDoorkeeperKey;
extern const KeySpec kDoorkeeperInsertionsMultiplierKey;
extern const KeySpec kDoorkeeperFppKey;

/// TinyLFU admission ([TinyLFU], [CFSIM] TinyLfu.java) under the admission seam of
/// engine/admission.h: record() counts every get and set; admit(candidate, victim) is true iff
/// the candidate's estimated frequency is strictly greater than the victim's (ties reject, so a
/// one-time scan cannot displace objects seen before). Not thread-safe.
class TinyLfuAdmission {
 public:
  /// "tinylfu": its keys are TinyLfuConfig's.
  static const ComponentSpec& spec();
  /// Decodes its keys, to check them. Throws std::invalid_argument.
  static void check(const Params& params) { TinyLfuConfig::from(params); }
  static constexpr bool kEnabled = true;

  /// Sizes the sketch (and the doorkeeper, if config.doorkeeper) for `expected_objects`, the
  /// number of objects the cache is expected to hold — an object count, independent of the byte
  /// capacity. Throws std::invalid_argument if the structures would be too large
  /// (FrequencySketch, Doorkeeper).
  TinyLfuAdmission(const TinyLfuConfig& config, uint64_t expected_objects);
  /// As above, reading TinyLfuConfig from the admission section (config.name is not read).
  TinyLfuAdmission(const AdmissionConfig& config, uint64_t expected_objects)
      : TinyLfuAdmission(TinyLfuConfig::from(config.params), expected_objects) {}

  /// Bytes the sketch and doorkeeper would take for these parameters (no allocation).
  static size_t memory_bytes_for(const TinyLfuConfig& config, uint64_t expected_objects);
  /// As above, reading TinyLfuConfig from the admission section.
  static size_t memory_bytes_for(const AdmissionConfig& config, uint64_t expected_objects) {
    return memory_bytes_for(TinyLfuConfig::from(config.params), expected_objects);
  }

  /// Counts one access. With the doorkeeper: a key absent from it is only put there; otherwise
  /// the sketch is incremented, and a sketch reset also clears the doorkeeper.
  /// Inlined into every caller (the cache calls it on every request).
  [[gnu::always_inline]] void record(uint64_t key) {
    if (doorkeeper_enabled_ && doorkeeper_.put(key)) return;
    if (sketch_.increment(key) && doorkeeper_enabled_) doorkeeper_.clear();
  }

  /// Estimated frequency: the sketch's estimate, plus 1 if the doorkeeper holds the key; at
  /// most 15.
  [[gnu::always_inline]] uint32_t estimate(uint64_t key) const {
    const uint32_t e = sketch_.estimate(key);
    if (doorkeeper_enabled_ && e < FrequencySketch::kMaxCount && doorkeeper_.contains(key)) {
      return e + 1;
    }
    return e;
  }

  /// Admit `candidate` in place of `victim`: estimate(candidate) > estimate(victim).
  [[gnu::always_inline]] bool admit(uint64_t candidate, uint64_t victim) const {
    return estimate(candidate) > estimate(victim);
  }

  size_t memory_bytes() const { return sketch_.memory_bytes() + doorkeeper_.memory_bytes(); }

  const FrequencySketch& sketch() const { return sketch_; }
  bool doorkeeper_enabled() const { return doorkeeper_enabled_; }
  const Doorkeeper& doorkeeper() const { return doorkeeper_; }

 private:
  FrequencySketch sketch_;
  Doorkeeper doorkeeper_;
  bool doorkeeper_enabled_ = false;
};

}  // namespace flashpq
