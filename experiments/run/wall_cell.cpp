#include "experiments/run/wall_cell.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "experiments/run/wall_runner.h"
#include "fmt/format.h"
#include "sim/fio_json.h"
#include "traces/trace_reader.h"

namespace flashpq {

namespace {

// Requests from a trace reader, in batches, counted as replay_direct counts them.
class CountingReaderSource {
 public:
  CountingReaderSource(TraceReader& reader, uint64_t warmup, HitCounters& counted)
      : reader_(reader), warmup_(warmup), counted_(counted) {}
  bool next(Request& out) {
    if (i_ == n_) {
      n_ = reader_.read(batch_);
      i_ = 0;
      if (n_ == 0) return false;
    }
    out = batch_[i_++];
    if (index_++ >= warmup_) {
      counted_.requests++;
      (out.op == Op::kGet   ? counted_.get_requests
       : out.op == Op::kSet ? counted_.set_requests
                            : counted_.delete_requests)++;
      counted_.bytes_requested += out.size_bytes;
    }
    return true;
  }
  uint64_t index() const { return index_; }

 private:
  TraceReader& reader_;
  uint64_t warmup_;
  HitCounters& counted_;
  std::array<Request, 4096> batch_;
  size_t n_ = 0, i_ = 0;
  uint64_t index_ = 0;
};

std::string num(uint64_t v) {
  return std::to_string(v);
}
std::string num(double v) {
  return std::isnan(v) ? std::string() : fmt::format("{}", v);
}

}  // namespace

TimingConfig block_timing(const CellConfig& cell) {
  if (cell.timing.mode == TimingMode::kWall) return cell.timing;
  TimingConfig t;
  t.mode = TimingMode::kWall;
  t.arrival = ArrivalProcess::kClosedLoop;
  t.clients = cell.device.block.queue_depth;
  return t;
}

uint64_t replay_direct_wall(BlockDevice& device, const CellConfig& cell, uint64_t warmup_requests,
                            HitCounters& counted, const std::function<void()>& on_warmup_end,
                            BlockCellMetrics& metrics) {
  const uint64_t unit = cell.framework.offset_unit_bytes;
  {
    // Every request is checked before the first I/O: misaligned ones are refused, never
    // read-modify-written, and a bad one late in the trace must not leave a half-run behind.
    auto reader = open_trace(cell.trace);
    std::array<Request, 4096> batch;
    uint64_t index = 0;
    for (size_t n; (n = reader->read(batch)) != 0;) {
      for (size_t j = 0; j < n; ++j, ++index) block_io_of(device, batch[j], unit, index);
    }
  }
  auto reader = open_trace(cell.trace);
  CountingReaderSource source(*reader, warmup_requests, counted);
  WallOptions options;
  options.offset_unit_bytes = unit;
  options.seed = cell.seed;
  device.begin_nvme_measurement();
  const WallResult r =
      run_wall(device, block_timing(cell), source, warmup_requests, options, on_warmup_end);
  metrics.nvme = device.end_nvme_measurement();
  metrics.timing = r.timing;
  metrics.clat = r.clat;
  return source.index();
}

std::vector<std::string> block_column_names() {
  std::vector<std::string> names = {"block_engine",
                                    "block_o_direct",
                                    "block_notes",
                                    "block_logical_block_bytes",
                                    "verify_blocks_checked",
                                    "verify_blocks_unchecked",
                                    "nvme_host_bytes_written",
                                    "nvme_media_bytes_written",
                                    "wa_device"};
  for (const char* n : {"iops", "bw_bytes", "clat_ns", "lat_ns"}) names.emplace_back(n);
  return names;
}

std::vector<Column> block_columns(const BlockDevice* d, const BlockCellMetrics* m) {
  std::vector<Column> out;
  const std::vector<std::string> names = block_column_names();
  auto add = [&](std::string text, bool numeric) {
    out.push_back({names[out.size()], std::move(text), numeric});
  };
  auto opt = [](const std::optional<uint64_t>& v) { return v ? num(*v) : std::string(); };
  add(d ? io_engine_name(d->engine()) : "", false);
  add(d ? (d->o_direct() ? "true" : "false") : "", false);
  add(d ? d->notes_text() : "", false);
  add(d ? num(uint64_t{d->logical_block_bytes()}) : "", true);
  add(d && d->config().verify ? num(d->verify_counters().blocks_checked) : "", true);
  add(d && d->config().verify ? num(d->verify_counters().blocks_unchecked) : "", true);
  add(m ? opt(m->nvme.host_bytes) : "", true);
  add(m ? opt(m->nvme.media_bytes) : "", true);
  add(m && m->nvme.wa_device ? num(*m->nvme.wa_device) : "", true);
  const bool measured = m && m->timing.requests > 0 && m->timing.interval_ns > 0;
  add(measured ? num(m->timing.throughput_rps()) : "", true);
  add(measured ? num(m->timing.throughput_mib_s() * 1024 * 1024) : "", true);
  // JSON objects: raw in JSON Lines (numeric), one quoted field in CSV.
  add(m && m->clat.count() ? fio_latency_json(m->clat) : "", true);
  add(m && m->timing.all.count() ? fio_latency_json(m->timing.all) : "", true);
  return out;
}

}  // namespace flashpq
