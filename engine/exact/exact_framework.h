// engine/exact/exact_framework.h — the `exact` framework as registered (engine/framework.h): an
// exact priority queue in memory, the fidelity baseline, with optional naive placement of its
// objects on the device (engine/exact/exact_config.h).
#pragma once

#include <type_traits>

#include "engine/exact/absolute_queue.h"
#include "engine/exact/exact_config.h"
#include "engine/exact/owned_queue.h"
#include "engine/exact/relative_queue.h"
#include "engine/policy.h"
#include "sim/params.h"

namespace flashpq {

/// The exact framework's queue for a policy: exact relative (segments), exact absolute (heap),
/// or, for a policy that owns its structure, the policy's own order (engine/exact/owned_queue.h).
template <class P>
using ExactQueueFor =
    std::conditional_t<P::kKind == PriorityKind::kOwning, ExactOwnedQueue<P>,
                       std::conditional_t<P::kKind == PriorityKind::kRelative, ExactRelativeQueue,
                                          ExactAbsoluteQueue>>;

struct ExactFramework {
  /// "exact": framework.placement, framework.placement_alignment, framework.read_hits.
  static const ComponentSpec& spec();
  /// Decodes the keys it reads, to check them. Throws std::invalid_argument.
  static void check(const Params& params) { ExactConfig::from(params); }
  /// No blocks; C bytes addressed (naive placement spans at most the device); objects placed
  /// with naive placement only.
  static FrameworkLayout layout(const Params& params, const CacheShape& shape) {
    FrameworkLayout layout;
    layout.device_bytes = shape.capacity_bytes;
    layout.places_objects = ExactConfig::from(params).naive_placement;
    return layout;
  }
  static constexpr bool kHasQueue = true;
  template <class P>
  using Queue = ExactQueueFor<P>;
};

}  // namespace flashpq
