// engine/admission.h — the admission extension point: does a missed object enter the cache?
//
// An admission policy A composes with every policy and framework (DESIGN.md "admission"). The
// cache calls, per request:
//   a.record(key)                  on every get and set (frequency estimators count accesses);
// and before inserting a miss or a set:
//   a.admit(key, victim_key)       only when the framework names a victim: victim_key is the
//                                  key of the object its delete-min would evict next (Q::victim();
//                                  on RIPQ that happens at the next insertion that seals a block,
//                                  not necessarily this one: README "Frameworks and admission").
// A is a template parameter of the cache: no virtual call per request. `kEnabled` false lets
// the cache skip the calls entirely.
//
// The seam knows no implementation: NoAdmission (below) admits everything, and the admission
// policies are registered by name with the policies (policies/registry.h: with_admission()),
// TinyLFU among them (policies/tinylfu.h).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace flashpq {

/// The `admission:` section of an experiment. The tinylfu fields are read by "tinylfu" (and by
/// policy wtinylfu, whose sketch is the same) and ignored by "none". The sketch's depth (4) and
/// counter width (4 bits, saturating at 15) are fixed, as in Caffeine.
struct AdmissionConfig {
  /// Registered admission name: "none" (admit everything) or "tinylfu". Default "none".
  std::string name = "none";

  /// tinylfu: additions between two halvings of the sketch, as a multiple of the expected
  /// number of cached objects (TinyLFU's sample size W = sample_factor × C). Default 10
  /// (Caffeine FrequencySketch: sampleSize = 10 × maximum). Range [1, 1000].
  uint32_t sample_factor = 10;
  /// tinylfu: sketch words (16 counters each, 4 per row) per expected cached object, before
  /// rounding up to a power of two; the sketch takes 8 bytes × that many words. Default 1.0
  /// (Caffeine simulator: tiny-lfu.count-min-4.counters-multiplier = 1.0). Range (0, 64].
  double counters_multiplier = 1.0;
  /// tinylfu: put a doorkeeper Bloom filter in front of the sketch (TinyLFU's doorkeeper). Default
  /// false (Caffeine simulator: tiny-lfu.count-min-4.periodic.doorkeeper.enabled = false).
  bool doorkeeper = false;
  /// tinylfu with doorkeeper: the filter is sized for this many insertions per expected cached
  /// object. Default 3.0 (Caffeine simulator: membership.expected-insertions-multiplier).
  /// Range (0, 64].
  double doorkeeper_insertions_multiplier = 3.0;
  /// tinylfu with doorkeeper: target false-positive probability of the filter at that many
  /// insertions. Default 0.01 (Caffeine simulator: membership.fpp). Range (0, 0.5].
  double doorkeeper_fpp = 0.01;

  /// Throws std::invalid_argument quoting the bad value (unknown name, a field out of range).
  void validate() const;
};

/// The registered admission names, in registration order.
const std::vector<std::string>& admission_names();

/// Admits every object.
struct NoAdmission {
  static constexpr bool kEnabled = false;
  /// `expected_objects`: how many objects the cache is expected to hold (for sizing).
  NoAdmission(const AdmissionConfig&, uint64_t /*expected_objects*/) {}
  void record(uint64_t) {}
  bool admit(uint64_t, uint64_t) { return true; }
  size_t memory_bytes() const { return 0; }
};

}  // namespace flashpq
