// engine/admission.h — the admission extension point: does a missed object enter the cache?
//
// An admission policy A composes with every policy and framework (docs/DESIGN.md "Data flow"). The
// cache calls, per request:
//   a.record(key)                  on every get and set (frequency estimators count accesses);
// and before inserting a miss or a set:
//   a.admit(key, victim_key)       only when the framework names a victim: victim_key is the
//                                  key of the object its delete-min would evict next (Q::victim();
//                                  on RIPQ that happens at the next insertion that seals a block,
//                                  not necessarily this one: docs/guide/frameworks.md "Admission").
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

#include "sim/params.h"

namespace flashpq {

/// The `admission:` section of an experiment: the registered name of the admission policy
/// (policies/registry.h) and the values of the section's keys, which each admission policy
/// declares and decodes itself (TinyLfuConfig, policies/tinylfu.h).
struct AdmissionConfig {
  /// Registered admission name: "none" (admit everything) or "tinylfu". Default "none".
  std::string name = "none";
  /// The admission.* values, by dotted key.
  Params params;
};

/// Admits every object.
struct NoAdmission {
  /// "none": no keys.
  static const ComponentSpec& spec();
  static constexpr bool kEnabled = false;
  /// `expected_objects`: how many objects the cache is expected to hold (for sizing).
  NoAdmission(const AdmissionConfig&, uint64_t /*expected_objects*/) {}
  void record(uint64_t) {}
  bool admit(uint64_t, uint64_t) { return true; }
  size_t memory_bytes() const { return 0; }
};

}  // namespace flashpq
