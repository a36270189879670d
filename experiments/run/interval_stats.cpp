// experiments/run/interval_stats.cpp — the `stats:` section and the series writer
// (experiments/run/interval_stats.h).
#include "experiments/run/interval_stats.h"

#include <fmt/format.h>

#include <filesystem>
#include <stdexcept>

#include "devices/device.h"
#include "devices/service_model.h"
#include "sim/columns.h"

namespace flashpq {

namespace {

const char* const kPercentiles[] = {"p50", "p95", "p99", "p999"};
const double kQuantiles[] = {0.50, 0.95, 0.99, 0.999};

double ratio(uint64_t a, uint64_t b) {
  return b == 0 ? std::nan("") : static_cast<double>(a) / static_cast<double>(b);
}

}  // namespace

const std::vector<std::string>& interval_stats_columns() {
  static const std::vector<std::string> columns = [] {
    std::vector<std::string> c = {"interval",
                                  "time_s",
                                  "warmup",
                                  "requests",
                                  "get_requests",
                                  "set_requests",
                                  "delete_requests",
                                  "object_hit_ratio",
                                  "dram_hit_ratio",
                                  "flash_hit_ratio",
                                  "completed_requests",
                                  "throughput_rps",
                                  "flash_bytes_written",
                                  "flash_bytes_read",
                                  "flash_write_mib_s",
                                  "nand_bytes_written",
                                  "backing_bytes_read",
                                  "backing_bytes_written",
                                  "offloaded_reads",
                                  "offload_share",
                                  "nhc_load_admit"};
    for (const char* op : {"read", "write", "delete"}) {
      for (const char* p : kPercentiles) c.push_back(fmt::format("{}_latency_{}_us", op, p));
    }
    return c;
  }();
  return columns;
}

void add_device_counters(IntervalCounters& c, const Device& device, const ServiceModel* model) {
  const DeviceCounters d = device.counters();
  c.flash_bytes_written = d.write_bytes;
  c.flash_bytes_read = d.read_bytes;
  c.has_nand = model != nullptr;
  if (model != nullptr) c.nand_bytes_written = model->media_bytes_written();
}

IntervalStats::IntervalStats(uint64_t interval_ns, std::string path, Shape shape)
    : interval_ns_(interval_ns), path_(std::move(path)), shape_(shape), next_end_ns_(interval_ns) {
  if (path_.empty()) {
    throw std::invalid_argument(
        "stats.interval_s: the cell has no series path (flashpq run puts the series beside the "
        "results)");
  }
  const std::filesystem::path p(path_);
  std::error_code ec;
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path(), ec);
  out_.open(path_ + ".tmp", std::ios::trunc);
  if (!out_) throw std::runtime_error("cannot create the series file " + path_ + ".tmp");
  const std::vector<std::string>& columns = interval_stats_columns();
  for (size_t i = 0; i < columns.size(); ++i) out_ << (i ? "," : "") << columns[i];
  out_ << '\n';
}

IntervalStats::~IntervalStats() {
  if (!finished_) {
    out_.close();
    std::error_code ec;
    std::filesystem::remove(path_ + ".tmp", ec);
  }
}

void IntervalStats::close(uint64_t end_ns, const IntervalCounters& c) {
  const double seconds = static_cast<double>(end_ns - start_ns_) * 1e-9;
  const uint64_t gets = c.gets - last_.gets;
  const uint64_t flash_hits = c.flash_hits - last_.flash_hits;
  const uint64_t written = c.flash_bytes_written - last_.flash_bytes_written;
  const uint64_t offloaded = c.offloaded_reads - last_.offloaded_reads;
  const bool tiered = shape_ == Shape::kTiered;
  std::string line = fmt::format(
      "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}", index_,
      static_cast<double>(end_ns) / 1e9, warmup_seen_ ? 1 : 0,
      gets + (c.sets - last_.sets) + (c.deletes - last_.deletes), gets, c.sets - last_.sets,
      c.deletes - last_.deletes,
      shape_ == Shape::kDirect ? "" : format_number(ratio(c.get_hits - last_.get_hits, gets)),
      tiered ? format_number(ratio(c.dram_hits - last_.dram_hits, gets)) : "",
      tiered ? format_number(ratio(flash_hits, gets)) : "", completed_,
      format_number(static_cast<double>(completed_) / seconds), written,
      c.flash_bytes_read - last_.flash_bytes_read,
      format_number(static_cast<double>(written) / (1024.0 * 1024.0) / seconds),
      c.has_nand ? format_number(c.nand_bytes_written - last_.nand_bytes_written) : "",
      c.backing_bytes_read - last_.backing_bytes_read,
      c.backing_bytes_written - last_.backing_bytes_written,
      tiered ? fmt::format("{}", offloaded) : "",
      tiered ? format_number(ratio(offloaded, flash_hits)) : "", format_number(c.nhc_load_admit));
  for (const LatencyHistogram* h : {&read_, &write_, &delete_}) {
    for (double q : kQuantiles) {
      line += ',';
      if (h->count() != 0) line += format_number(static_cast<double>(h->percentile_ns(q)) / 1e3);
    }
  }
  out_ << line << '\n';
  ++index_;
  start_ns_ = end_ns;
  next_end_ns_ = end_ns + interval_ns_;
  last_ = c;
  completed_ = 0;
  warmup_seen_ = false;
  read_.clear();
  write_.clear();
  delete_.clear();
}

void IntervalStats::finish(uint64_t end_ns, const IntervalCounters& c) {
  advance(end_ns, [&] { return c; });
  const bool pending =
      c.gets != last_.gets || c.sets != last_.sets || c.deletes != last_.deletes || completed_ != 0;
  if (end_ns > start_ns_ && pending) close(end_ns, c);
  out_.close();
  if (!out_) throw std::runtime_error("cannot write the series file " + path_ + ".tmp");
  std::filesystem::rename(path_ + ".tmp", path_);
  finished_ = true;
}

}  // namespace flashpq
