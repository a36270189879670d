// experiments/config/runner_requirements.h — what the runners (experiments/run/runners.h) and
// hierarchies need of a cell, declared as data (sim/params.h Requirement) so that the schema
// (experiments/config/schema.h) checks them with every component's before anything runs,
// without the configuration including the runners.
#pragma once

#include <vector>

#include "sim/params.h"

namespace flashpq {

/// The runners' requirements: timing.mode simulated needs device simflash; timing.mode wall
/// needs device block, and a cache (any framework but direct) closed_loop with 1 client, since
/// a cache serves one request at a time; a hierarchy's (tiers.mode not none) backing store,
/// controller, flash tier, policy, admission and size rule.
const std::vector<Requirement>& runner_requirements();

}  // namespace flashpq
