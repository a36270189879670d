// experiments/run/wall_cell.cpp — the wall-clock runner of a cell (experiments/run/wall_cell.h).
#include "experiments/run/wall_cell.h"

#include <array>
#include <chrono>
#include <optional>
#include <type_traits>

#include "devices/block/block_device.h"
#include "engine/direct/direct.h"
#include "experiments/run/interval_stats.h"
#include "experiments/run/kernels.h"
#include "experiments/run/replay.h"
#include "experiments/run/runners.h"
#include "experiments/run/wall_runner.h"
#include "sim/fio_json.h"
#include "traces/prefetch_reader.h"
#include "traces/trace_reader.h"

namespace flashpq {

namespace {

// Requests from a trace reader, one at a time, counted after the warm-up as framework direct
// counts them (count_direct).
class CountingReaderSource {
 public:
  CountingReaderSource(TraceReader& reader, uint64_t warmup, HitCounters& counted)
      : reader_(reader), warmup_(warmup), counted_(counted) {}
  bool next(Request& out) {
    if (!reader_.next(out)) return false;
    if (index_++ >= warmup_) count_direct(counted_, out);
    return true;
  }
  uint64_t index() const { return index_; }

 private:
  RequestReader<TraceReader> reader_;
  uint64_t warmup_;
  HitCounters& counted_;
  uint64_t index_ = 0;
};

// The arrival process of framework direct on a real device: the timing section's with
// timing.mode wall; otherwise (none: a real device is timed anyway) closed loop with as many
// clients as device.queue_depth, fio's iodepth.
TimingConfig direct_timing(const CellConfig& cell, const BlockDevice& device) {
  if (cell.timing.mode == TimingMode::kWall) return cell.timing;
  TimingConfig t;
  t.mode = TimingMode::kWall;
  t.arrival = ArrivalProcess::kClosedLoop;
  t.clients = device.config().queue_depth;
  return t;
}

}  // namespace

std::vector<Column> fio_columns(const TimingMetrics& timing, const LatencyHistogram& clat) {
  const bool measured = timing.requests > 0 && timing.interval_ns > 0;
  const std::string values[] = {
      measured ? format_number(timing.throughput_rps()) : "",
      measured ? format_number(timing.throughput_mib_s() * 1024 * 1024) : "",
      clat.count() ? fio_latency_json(clat) : "",
      timing.all.count() ? fio_latency_json(timing.all) : ""};
  std::vector<Column> out;
  const std::vector<std::string>& names = runner_column_names();
  for (size_t i = 0; i < names.size(); ++i) out.push_back({names[i], values[i], true});
  return out;
}

Measurement run_on_wall_clock(const CellConfig& cell, const CellPlan& plan, BlockDevice& device) {
  if (plan.tiers.enabled()) return run_tiered_on_wall_clock(cell, plan, device);
  Measurement m;
  TimingMetrics timing;
  LatencyHistogram clat;  // completion − submission: framework direct only
  const auto t0 = std::chrono::steady_clock::now();  // wall_seconds only
  if (plan.direct) {
    const uint64_t unit = DirectConfig::from(cell.framework.params).offset_unit_bytes;
    {
      // Every request is checked before the first I/O: misaligned ones are refused, never
      // read-modify-written, and a bad one late in the trace must not leave a half-run behind.
      auto reader = open_trace(cell.trace);
      std::array<Request, 4096> batch;
      uint64_t index = 0;
      for (size_t n; (n = reader->read(batch)) != 0;) {
        for (size_t j = 0; j < n; ++j, ++index) direct_io_of(device, batch[j], unit, index);
      }
    }
    auto opened = open_cell_trace(cell, plan);
    ProgressReader reader(*opened, plan.progress, plan.interrupt);
    CountingReaderSource source(reader, plan.warmup_requests, m.counted);
    WallOptions options;
    options.offset_unit_bytes = unit;
    options.seed = cell.seed;
    device.begin_nvme_measurement();
    const WallResult r = run_wall(device, direct_timing(cell, device), source, plan.warmup_requests,
                                  options, [&] { end_warmup(m, device); });
    device.end_nvme_measurement();
    timing = r.timing;
    clat = r.clat;
    m.replayed = source.index();
    m.end = run_counters(device);
  } else {
    WallCellRun run{cell, plan, device, m, timing};
    cell_kernels(cell.policy.name, cell.admission.name, cell.framework.name).wall(run);
  }
  m.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (timing.requests) m.timing = timing;
  m.runner_columns = fio_columns(timing, clat);
  return m;
}

}  // namespace flashpq
