// experiments/run/simulated_cell.h — the simulated-time runner of a cell
// (experiments/run/runners.h): the same functional steps as the functional runner, each issued
// at its arrival on the discrete-event clock (experiments/run/simulated_runner.h).
//
// run_simulated (simulated_cell.cpp) sets up a SimulatedCellRun and replays framework direct
// itself; a cache's replay is its type's kernel (experiments/run/kernels.h),
// simulated_cache_kernel below, compiled in the cache type's kernel unit.
#pragma once

#include <cstdint>
#include <optional>

#include "devices/simflash/simflash_device.h"
#include "experiments/config/cell_config.h"
#include "experiments/run/interval_stats.h"
#include "experiments/run/measure.h"
#include "experiments/run/simulated_runner.h"
#include "traces/prefetch_reader.h"

namespace flashpq {

/// What run_simulated's replays share: the cell, its device and measurement, and the series
/// over time (stats.interval_s) with its counts.
struct SimulatedCellRun {
  const CellConfig& cell;
  const CellPlan& plan;
  Device& device;
  /// The device's simulated clock (DeviceType::service_model).
  ServiceModel& model;
  Measurement& m;
  /// stats.interval_s: the series (experiments/run/interval_stats.h) and its counts.
  std::optional<IntervalStats> series;
  IntervalCounters counts;

  IntervalCounters snapshot() const {
    IntervalCounters c = counts;
    add_device_counters(c, device, &model);
    return c;
  }

  /// Replays the trace, calling step(request, index) for each request at its arrival, and
  /// on_warm() just before request warmup_requests (or at the end if the warm-up covers all).
  template <class OnWarm, class Step>
  void drive(OnWarm&& on_warm, Step&& step) {
    PrefetchReader prefetch(open_cell_trace(cell, plan));
    ProgressReader reader(prefetch, plan.progress, plan.interrupt);
    bool warm_taken = false;
    auto snap = [&] { return snapshot(); };
    const TimedRunResult r = run_timed(
        model, cell.timing, plan.warmup_requests, cell.seed, reader,
        [&](const Request& q, uint64_t i, uint64_t now_ns) -> uint64_t {
          if (series) {
            series->advance(now_ns, snap);
            series->issued(i < plan.warmup_requests);
          }
          if (i == plan.warmup_requests) {
            on_warm();
            warm_taken = true;
          }
          step(q, i);
          return now_ns;
        },
        [&](uint64_t, uint64_t arrival_ns, uint64_t completion_ns, uint64_t, OpClass op) {
          if (series) {
            series->advance(completion_ns, snap);
            series->completed(op, completion_ns - arrival_ns);
          }
        });
    if (!warm_taken) on_warm();
    if (series) series->finish(r.end_ns, snapshot());
    m.timing = r.metrics;
    m.replayed = r.requests;
    m.sim_events = r.events;
  }
};

/// The simulated replay of the cache `Build` builds (a cache builder of
/// experiments/run/kernel_unit.h): each request's access at its arrival, hits counted after the
/// warm-up.
template <class Build>
void simulated_cache_kernel(SimulatedCellRun& run) {
  const CellConfig& cell = run.cell;
  const CellPlan& plan = run.plan;
  HitStats stats;
  stats.reserve(plan.trace_objects);
  Build::build(cell.policy, cell.admission, plan.framework, plan.cache, plan.expected_objects,
               run.device, [&](auto& c) {
                 run.drive([&] { end_warmup(run.m, run.device, c); },
                           [&](const Request& q, uint64_t i) {
                             const bool hit = c.access(q);
                             count_op(run.counts, q, hit);
                             if (i >= plan.warmup_requests) {
                               stats.record(q, hit);
                             } else {
                               stats.record_warmup(q, hit);
                             }
                           });
                 stats.flush();
                 finish(run.m, c, run.device);
               });
  run.m.counted = stats.counters();
}

}  // namespace flashpq
