// engine/admission.h — the admission extension point: does a missed object enter the cache?
//
// An admission policy A composes with every policy and framework (DESIGN.md "admission"). The
// cache calls, per request:
//   a.record(key)                  on every get and set (frequency estimators count accesses);
// and before inserting a miss or a set:
//   a.admit(key, victim_key)       only when the insertion would evict: victim_key is the key of
//                                  the object the framework would evict next (its victim()).
// A is a template parameter of the cache: no virtual call per request. `kEnabled` false lets
// the cache skip the calls entirely.
#pragma once

#include <cstdint>
#include <string>

namespace flashpq {

/// The `admission:` section of an experiment.
struct AdmissionConfig {
  /// Registered admission name: "none" (admit everything). Default "none".
  std::string name = "none";

  /// Throws std::invalid_argument quoting the bad value.
  void validate() const;
};

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
