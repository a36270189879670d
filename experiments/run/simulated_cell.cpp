// experiments/run/simulated_cell.cpp — the simulated-time runner of a cell
// (experiments/run/runners.h): the same functional steps as the functional runner, each issued
// at its arrival on the discrete-event clock (experiments/run/simulated_runner.h).
#include <chrono>
#include <optional>

#include "devices/simflash/simflash_device.h"
#include "engine/direct/direct.h"
#include "experiments/run/interval_stats.h"
#include "experiments/run/runners.h"
#include "experiments/run/simulated_runner.h"
#include "traces/prefetch_reader.h"

namespace flashpq {

Measurement run_simulated(const CellConfig& cell, const CellPlan& plan, SimFlashDevice& device) {
  if (plan.tiers.enabled()) return run_tiered_simulated(cell, plan, device);
  Measurement m;
  const auto t0 = std::chrono::steady_clock::now();  // wall_seconds only
  // stats.interval_s: the series (experiments/run/interval_stats.h) and its counts.
  std::optional<IntervalStats> series;
  if (cell.stats.enabled()) {
    series.emplace(cell.stats.interval_ns, cell.stats_path,
                   plan.direct ? IntervalStats::Shape::kDirect : IntervalStats::Shape::kCache);
  }
  IntervalCounters counts;
  auto snapshot = [&] {
    IntervalCounters c = counts;
    add_device_counters(c, device);
    return c;
  };
  // Replays the trace, calling step(request, index) for each request at its arrival, and
  // on_warm() just before request warmup_requests (or at the end if the warm-up covers all).
  auto drive = [&](auto&& on_warm, auto&& step) {
    PrefetchReader prefetch(open_cell_trace(cell, plan));
    ProgressReader reader(prefetch, plan.progress, plan.interrupt);
    bool warm_taken = false;
    const TimedRunResult r = run_timed(
        device, cell.timing, plan.warmup_requests, cell.seed, reader,
        [&](const Request& q, uint64_t i, uint64_t now_ns) -> uint64_t {
          if (series) {
            series->advance(now_ns, snapshot);
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
            series->advance(completion_ns, snapshot);
            series->completed(op, completion_ns - arrival_ns);
          }
        });
    if (!warm_taken) on_warm();
    if (series) series->finish(r.end_ns, snapshot());
    m.timing = r.metrics;
    m.replayed = r.requests;
    m.sim_events = r.events;
  };
  if (plan.direct) {
    const uint64_t unit = DirectConfig::from(cell.framework.params).offset_unit_bytes;
    drive([&] { end_warmup(m, device); },
          [&](const Request& q, uint64_t i) {
            direct_issue(device, q, unit, i);
            count_op(counts, q, false);
            if (i >= plan.warmup_requests) count_direct(m.counted, q);
          });
    m.end = run_counters(device);
  } else {
    HitStats stats;
    stats.reserve(plan.trace_objects);
    with_cell_cache(cell, plan, device, [&](auto& c) {
      drive([&] { end_warmup(m, device, c); },
            [&](const Request& q, uint64_t i) {
              const bool hit = c.access(q);
              count_op(counts, q, hit);
              if (i >= plan.warmup_requests) {
                stats.record(q, hit);
              } else {
                stats.record_warmup(q, hit);
              }
            });
      stats.flush();
      finish(m, c, device);
    });
    m.counted = stats.counters();
  }
  if (series) m.stats_file = cell.stats_file;
  m.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return m;
}

}  // namespace flashpq
