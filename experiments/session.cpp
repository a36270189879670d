// experiments/session.cpp — a cache driven request by request (experiments/session.h).
#include "experiments/session.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "devices/device.h"
#include "engine/framework.h"
#include "experiments/experiment.h"
#include "experiments/run/kernels.h"
#include "experiments/run/runners.h"
#include "policies/registry.h"
#include "traces/trace_summary.h"

namespace flashpq {

namespace session_detail {

// The experiment text with the stand-in trace a session's cell needs to pass the schema: a
// generator that is never read. Refuses the sections that make more than one cell or read a
// trace.
std::string with_stand_in_trace(const std::string& text, const std::string& name) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw ConfigError(fmt::format("{}:{}: YAML syntax error: {}", name, e.mark.line + 1, e.msg));
  }
  if (root.IsNull()) root = YAML::Node(YAML::NodeType::Map);
  if (!root.IsMap()) throw ConfigError(name + ": expected a YAML mapping at the top level");
  for (const char* key : {"trace", "matrix", "zip", "exclude", "curve", "tiers"}) {
    if (root[key]) {
      throw ConfigError(fmt::format(
          "{}: '{}' does not apply to a cache driven request by request (one cache, no trace): "
          "give policy, admission, framework, cache, device, seed",
          name, key));
    }
  }
  YAML::Node trace;
  trace["format"] = "generator";
  trace["generator"] = "zipf";
  trace["objects"] = 1;
  trace["requests"] = 1;
  root["trace"] = trace;
  root["warmup"] = 0;
  YAML::Emitter out;
  out << root;
  return out.c_str();
}

double ratio(uint64_t num, uint64_t den) {
  return den == 0 ? std::numeric_limits<double>::quiet_NaN()
                  : static_cast<double>(num) / static_cast<double>(den);
}

Column count_column(const char* name, uint64_t v) {
  return Column{name, std::to_string(v), true};
}

Column ratio_column(const char* name, double v) {
  return Column{name, std::isnan(v) ? "" : fmt::format("{}", v), true};
}

}  // namespace session_detail

struct CacheSession::Impl {
  CellConfig cell;
  CellPlan plan;
  std::unique_ptr<Device> device;
  std::unique_ptr<SessionCache> cache;
  HitStats stats;
};

CacheSession::CacheSession(const std::string& experiment_yaml, const std::string& name,
                           const SessionShape& shape)
    : CacheSession(experiment_yaml, name, shape, MakeCache{}) {}

CacheSession::CacheSession(const std::string& experiment_yaml, const std::string& name,
                           const SessionShape& shape, const MakeCache& make)
    : impl_(std::make_unique<Impl>()) {
  Experiment ex =
      load_experiment_text(session_detail::with_stand_in_trace(experiment_yaml, name), name, {});
  // One cell: with_stand_in_trace() refused matrix:, zip: and exclude:, and the schema refuses
  // a list as a value.
  CellConfig& cell = impl_->cell;
  cell = std::move(ex.cells.front());
  if (cell.capacity.is_fraction) {
    throw std::invalid_argument(fmt::format(
        "{}: key 'cache.capacity': expected a size (e.g. 64MiB, or bytes), found the fraction "
        "{}: a cache driven request by request has no trace whose working set it divides",
        name, cell.capacity.fraction));
  }
  if (!framework_builds_cache(cell.framework.name)) {
    throw std::invalid_argument(fmt::format(
        "{}: framework {} builds no cache (requests go straight to the device): choose a "
        "framework with a cache",
        name, cell.framework.name));
  }
  if (!make && policy_reads_next_access(cell.policy.name)) {
    throw std::invalid_argument(fmt::format(
        "{}: policy {} reads the trace's future (the next access of every request): run it in "
        "a cell (flashpq.run), which computes it once per trace",
        name, cell.policy.name));
  }
  if (runner_for(cell) == RunnerKind::kWall) {
    throw std::invalid_argument(fmt::format(
        "{}: device {} is timed on the wall clock: a session is functional, on a simulated or "
        "null device",
        name, cell.device.name));
  }
  if (shape.max_object_bytes == 0) {
    throw std::invalid_argument(name + ": max_object_size: expected at least 1 byte, found 0");
  }
  // The summary a cell would have: one object per expected object, the largest as told.
  const uint64_t capacity = cell.capacity.bytes;
  TraceSummary summary;
  summary.requests = 1;
  summary.max_object_bytes = shape.max_object_bytes;
  summary.unique_objects =
      shape.expected_objects != 0 ? shape.expected_objects : std::max<uint64_t>(1, capacity / 4096);
  summary.working_set_bytes = std::max(capacity, summary.max_object_bytes);
  impl_->plan = plan_cell(cell, summary);
  impl_->plan.warmup_requests = 0;
  impl_->plan.notes.clear();
  impl_->device = make_device(impl_->plan.device);
  SessionBuild b{&cell, &impl_->plan, impl_->device.get()};
  if (make) {
    impl_->cache = make(b);
  } else {
    const CellKernels& k = cell_kernels(cell.policy.name, cell.admission.name, cell.framework.name);
    impl_->cache = k.session(b);
  }
  impl_->stats.reserve(summary.unique_objects);
  impl_->device->begin_measurement();  // a cell's with warmup: 0 (end_warmup, measure.h)
}

CacheSession::~CacheSession() = default;

void CacheSession::access(std::span<const Request> requests, uint8_t* hits) {
  impl_->cache->access(requests, hits);
  for (size_t i = 0; i < requests.size(); ++i) impl_->stats.record(requests[i], hits[i] != 0);
}

std::vector<Column> CacheSession::stats() {
  using namespace session_detail;
  impl_->stats.flush();
  const HitCounters h = impl_->stats.counters();
  const RunCounters r = impl_->cache->counters();
  const double wa_implementation = ratio(r.device.write_bytes, r.miss_bytes);
  std::vector<Column> out = {
      count_column("requests", h.requests),
      count_column("get_requests", h.get_requests),
      count_column("set_requests", h.set_requests),
      count_column("delete_requests", h.delete_requests),
      count_column("hits", h.hits),
      ratio_column("object_hit_ratio", ratio(h.hits, h.get_requests)),
      ratio_column("byte_hit_ratio", ratio(h.bytes_hit, h.bytes_requested)),
      count_column("compulsory_misses", h.compulsory_misses),
      count_column("bytes_requested", h.bytes_requested),
      count_column("bytes_hit", h.bytes_hit),
      count_column("evictions", r.framework.evicted_objects),
      count_column("evicted_bytes", r.framework.evicted_bytes),
      count_column("admission_rejections", r.rejections),
      count_column("miss_bytes_inserted", r.miss_bytes),
      count_column("host_write_bytes", r.device.write_bytes),
      count_column("host_writes", r.device.writes),
      count_column("host_read_bytes", r.device.read_bytes),
      ratio_column("wa_implementation", wa_implementation),
      count_column("objects", impl_->cache->objects()),
      count_column("cache_capacity_bytes", impl_->plan.cache.capacity_bytes),
      count_column("index_bytes", impl_->cache->index_bytes()),
      count_column("queue_bytes", impl_->cache->queue_bytes()),
      count_column("admission_bytes", impl_->cache->admission_bytes()),
  };
  ReportContext context;
  context.host_write_factor = wa_implementation;
  for (Column& c : impl_->device->columns(context)) out.push_back(std::move(c));
  return out;
}

const CellConfig& CacheSession::cell() const {
  return impl_->cell;
}

const CellPlan& CacheSession::plan() const {
  return impl_->plan;
}

}  // namespace flashpq
