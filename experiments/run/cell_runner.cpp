// experiments/run/cell_runner.cpp — plan, runner, row (experiments/run/cell_runner.h).
#include "experiments/run/cell_runner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <optional>

#include "devices/block/block_device.h"
#include "devices/device.h"
#include "devices/service_model.h"
#include "experiments/run/row.h"
#include "experiments/run/runners.h"
#include "fmt/format.h"
#include "policies/registry.h"
#include "traces/next_access.h"

namespace flashpq {

uint64_t expected_cached_objects(uint64_t capacity_bytes, bool unit_size,
                                 const TraceSummary& summary) {
  if (unit_size) return std::max<uint64_t>(1, capacity_bytes);
  const uint64_t mean_object_bytes =
      summary.unique_objects
          ? std::max<uint64_t>(1, summary.working_set_bytes / summary.unique_objects)
          : 1;
  return std::max<uint64_t>(1, capacity_bytes / mean_object_bytes);
}

CellPlan plan_cell(const CellConfig& cell, const TraceSummary& summary) {
  // Empty and degenerate inputs (docs/guide/errors.md): a row of no requests is not a result.
  const std::string& transforms = cell.trace.params.text("trace.transforms");
  const std::string trace = cell.trace.path().empty()
                                ? "generator " + cell.trace.params.text("trace.generator")
                                : cell.trace.path();
  if (summary.requests == 0) {
    throw std::invalid_argument(
        transforms.empty()
            ? fmt::format("{}: the trace holds no requests", trace)
            : fmt::format("{}: no request is left after trace.transforms '{}'", trace, transforms));
  }
  CellPlan plan;
  plan.cache = cell.cache;
  const uint64_t working_set =
      plan.cache.unit_size ? summary.unique_objects : summary.working_set_bytes;
  plan.cache.capacity_bytes = cell.capacity.resolve(working_set);
  plan.cache.validate();
  // Preconditioning requests (a generator's sequential fill) are always warm-up; the fraction
  // applies to what follows.
  const uint64_t fill = std::min(summary.preconditioning_requests, summary.requests);
  plan.warmup_requests =
      fill +
      static_cast<uint64_t>(std::floor(cell.warmup * static_cast<double>(summary.requests - fill)));
  if (plan.warmup_requests >= summary.requests) {
    throw std::invalid_argument(fmt::format(
        "{}: the warm-up (warmup {}, {} preconditioning requests) leaves none of the trace's {} "
        "requests to measure",
        trace, cell.warmup, fill, summary.requests));
  }
  plan.expected_objects =
      expected_cached_objects(plan.cache.capacity_bytes, plan.cache.unit_size, summary);
  plan.direct = !framework_builds_cache(cell.framework.name);
  plan.tiers = cell.tiers;
  if (plan.tiers.enabled()) {
    plan.tiers.dram_capacity_bytes = cell.tiers.dram_capacity.resolve(working_set);
  }
  plan.trace_objects = summary.unique_objects;
  plan.trace_working_set_bytes = summary.working_set_bytes;

  // The framework's layout, then the device: sized for what the framework addresses when its
  // keys ask (device.size_to_cache), checked to hold it otherwise.
  plan.device = cell.device;
  plan.device_bounds = cell.device_bounds;
  CacheShape shape;
  shape.capacity_bytes = plan.cache.capacity_bytes;
  shape.granule = std::max<uint64_t>(1, plan.device_bounds.logical_block_bytes);
  shape.largest_object_bytes = summary.max_object_bytes;
  shape.sizes = &summary.sizes;
  shape.unit_size = plan.cache.unit_size;
  plan.layout = framework_layout(cell.framework, shape);
  plan.framework = cell.framework;
  if (plan.layout.block_bytes != 0) {
    plan.framework.params.set(kBlockSizeKey.name, std::to_string(plan.layout.block_bytes));
  }
  const DeviceType& type = device_type(plan.device.name);
  const uint64_t addressed = plan.cache.unit_size ? 0 : plan.layout.device_bytes;
  if (addressed != 0 && type.size_for_cache != nullptr) {
    if (auto bounds = type.size_for_cache(plan.device, addressed)) {
      plan.device_bounds = *bounds;
    }
  }
  const uint64_t exported = plan.device_bounds.capacity_bytes;
  if (addressed != 0 && plan.layout.block_bytes == 0 && plan.layout.places_objects &&
      exported != 0 && exported < addressed) {
    throw std::invalid_argument(fmt::format(
        "framework {}: placing the cache's objects needs its {} B on the device, but the device "
        "exports only {} B (a larger device, or device.size_to_cache: true for simflash)",
        cell.framework.name, addressed, exported));
  }
  if (addressed != 0 && plan.layout.block_bytes != 0 && exported != 0 && exported < addressed) {
    throw std::invalid_argument(fmt::format(
        "framework {}: the cache's {} device blocks of {} B need {} B, but the device exports "
        "only {} B (a larger device, or device.size_to_cache: true for simflash)",
        cell.framework.name, addressed / plan.layout.block_bytes, plan.layout.block_bytes,
        addressed, exported));
  }

  // Notes: the framework's, then the cell's (docs/DESIGN.md "Results", notes).
  plan.notes = plan.layout.notes;
  const uint64_t measured = summary.requests - std::min(summary.requests, plan.warmup_requests);
  if (summary.requests != 0 && 10 * measured < summary.requests) {
    plan.notes.push_back(fmt::format(
        "the warm-up leaves {} of the trace's {} requests measured, under 10 %: lower warmup",
        measured, summary.requests));
  }
  // The offline bounds bound the misses of the whole trace: a policy may give up hits before
  // the warm-up's end for a better start after it (docs/guide/policies.md "The offline bounds").
  if (policy_reads_next_access(cell.policy.name) && plan.warmup_requests != 0) {
    plan.notes.push_back(fmt::format(
        "policy {} bounds the whole trace's misses, but the row measures after a warm-up of {} "
        "requests: set warmup: 0 for the bound",
        cell.policy.name, plan.warmup_requests));
  }
  // In a hierarchy a flash tier that holds everything is a design (an SSD as large as the data,
  // as extstore's), the DRAM tier above it is where eviction happens: no note.
  if (!plan.direct && !plan.tiers.enabled() && working_set != 0 &&
      plan.cache.capacity_bytes >= working_set) {
    plan.notes.push_back(fmt::format(
        "the cache ({} {}) holds the whole working set ({}): only compulsory misses remain, "
        "whatever the policy",
        plan.cache.capacity_bytes, plan.cache.unit_size ? "objects" : "B", working_set));
  }
  // Unaddressed space is free space to the device's collection (DeviceType::
  // collects_unaddressed_space: simflash, not preconditioned, not bare zones).
  if (plan.layout.places_objects && addressed != 0 && exported != 0 &&
      10 * addressed < 9 * exported && type.collects_unaddressed_space != nullptr &&
      type.collects_unaddressed_space(plan.device)) {
    plan.notes.push_back(fmt::format(
        "the cache addresses {:.0f} % of the device's exported {} B: the FTL sees more free "
        "space than the device's utilization says, so its WA is understated: set "
        "device.size_to_cache: true, or device.precondition: true for a drive whose other "
        "pages hold data",
        100.0 * static_cast<double>(addressed) / static_cast<double>(exported), exported));
  }
  if (plan.tiers.enabled() && plan.tiers.dram_capacity_bytes >= plan.cache.capacity_bytes) {
    plan.notes.push_back(fmt::format(
        "the DRAM tier ({} B) is at least as large as the flash tier ({} B): flash holds little "
        "that DRAM does not, so its hit ratio says little about flash",
        plan.tiers.dram_capacity_bytes, plan.cache.capacity_bytes));
  }
  return plan;
}

uint64_t estimate_cell_memory(const CellConfig& cell, const TraceSummary& summary) {
  constexpr uint64_t kFixed = uint64_t{48} << 20;
  CellPlan plan;
  try {
    plan = plan_cell(cell, summary);
  } catch (const std::exception&) {
    return kFixed;
  }
  uint64_t bytes = kFixed;
  if (!plan.direct) {
    bytes += 32 * plan.trace_objects + 96 * plan.expected_objects;
    // TinyLFU's sketch and doorkeeper (admission, or inside W-TinyLFU).
    if (cell.admission.name != "none" || cell.policy.name == "wtinylfu") {
      const std::string& t = cell.admission.params.text("admission.counters_multiplier");
      const double m = t.empty() ? 1.0 : std::max(1.0, std::strtod(t.c_str(), nullptr));
      bytes += static_cast<uint64_t>(16.0 * m * static_cast<double>(plan.expected_objects));
    }
    // A policy that owns its structure keeps ghosts: at most two per cached object (LIRS's
    // non-resident blocks in S), about 40 B each (engine/ghost_list.h).
    if (is_owning_policy(cell.policy.name)) bytes += 80 * plan.expected_objects;
    // An offline bound that holds state per request of the trace (PFOO-L's intervals).
    bytes += policy_bytes_per_trace_request(cell.policy.name) * summary.requests;
    if (plan.tiers.enabled()) {
      // The DRAM tier's index and lists (96 B per expected object, as the cache's), nhit's
      // table, and the dirty objects' map and cleaner queue (64 B per object of either tier).
      const double dram_objects = static_cast<double>(plan.expected_objects) *
                                  static_cast<double>(plan.tiers.dram_capacity_bytes) /
                                  static_cast<double>(plan.cache.capacity_bytes);
      bytes += static_cast<uint64_t>(96.0 * dram_objects);
      if (plan.tiers.flash_admission == FlashAdmission::kNHit) {
        bytes += 16 * uint64_t{plan.tiers.nhit_table_slots};
      }
      // reject_first: the splits' tables (at least 60 % full: under 7 B a key) and the DRAM
      // objects' hit flags (a hash-set node each).
      if (plan.tiers.flash_admission == FlashAdmission::kRejectFirst) {
        bytes += 7 * plan.tiers.reject_first_entries + static_cast<uint64_t>(48.0 * dram_objects);
      }
      if (plan.tiers.writes_back()) {
        bytes += static_cast<uint64_t>(64.0 *
                                       (dram_objects + static_cast<double>(plan.expected_objects)));
      }
    }
  }
  if (const DeviceType& type = device_type(plan.device.name); type.memory_bytes != nullptr) {
    bytes += type.memory_bytes(plan.device, plan.device_bounds);
  }
  return bytes;
}

namespace {

// The simulated clock of `device`, which make_device(config) built: its type's service model
// (the loader's requirements give timing.mode simulated a device that has one).
std::unique_ptr<ServiceModel> simulated_clock(const DeviceConfig& config, Device& device) {
  const DeviceType& type = device_type(config.name);
  if (type.service_model == nullptr) {
    throw std::logic_error("device " + config.name + " has no simulated clock");
  }
  return type.service_model(device, ServiceModel::Options{});
}

// The cell as it runs: a policy that reads the trace's future (the offline bounds belady and
// pfoo_l) gets the trace's next-access file, computed once per trace and stored beside its
// summary (traces/next_access.h). Other cells run as written.
CellConfig with_next_access(const CellConfig& cell, const TraceSummary& summary) {
  CellConfig c = cell;
  if (policy_reads_next_access(cell.policy.name)) {
    c.policy.next_access_file = next_access_file(cell.trace, summary);
  }
  return c;
}

// Seconds to run `cell` on its first `requests` requests; the requests replayed in *replayed.
double timed_sample(const CellConfig& cell_as_run, const TraceSummary& summary, uint64_t requests,
                    uint64_t* replayed) {
  // Sampled without its series (a compare per event and a line per interval: negligible), so
  // that a sample never writes or replaces a series file.
  CellConfig cell = with_next_access(cell_as_run, summary);
  cell.stats = StatsConfig{};
  CellPlan plan = plan_cell(cell, summary);
  plan.request_limit = std::max<uint64_t>(1, requests);
  const auto t0 = std::chrono::steady_clock::now();
  Measurement m;
  switch (runner_for(cell)) {
    case RunnerKind::kSimulated: {
      const std::unique_ptr<Device> device = make_device(plan.device);
      const std::unique_ptr<ServiceModel> model = simulated_clock(plan.device, *device);
      m = run_simulated(cell, plan, *device, *model);
      break;
    }
    case RunnerKind::kWall:
      throw std::invalid_argument("a cell timed on the wall clock is not sampled");
    case RunnerKind::kFunctional: {
      const std::unique_ptr<Device> device = make_device(plan.device);
      m = run_functional(cell, plan, *device);
      break;
    }
  }
  *replayed = m.replayed;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

CellCost sample_cell_cost(const CellConfig& cell, const TraceSummary& summary, uint64_t requests) {
  uint64_t n1 = 0, n2 = 0;
  const double t1 = timed_sample(cell, summary, requests, &n1);
  const double t2 = timed_sample(cell, summary, 4 * requests, &n2);
  CellCost cost;
  if (n2 > n1 && t2 > t1) {
    cost.seconds_per_request = (t2 - t1) / static_cast<double>(n2 - n1);
    cost.setup_seconds = std::max(0.0, t1 - cost.seconds_per_request * static_cast<double>(n1));
  } else if (n2 > n1) {
    // The setup's noise hid the requests' cost: charge the whole second sample to its requests
    // (an upper bound), never nothing.
    cost.seconds_per_request = t2 / static_cast<double>(n2);
  } else {  // the whole trace fits in the first sample
    cost.setup_seconds = std::min(t1, t2);
  }
  return cost;
}

ResultRow run_cell(const CellConfig& cell_as_written, const TraceSummary& summary,
                   std::atomic<uint64_t>* progress, const std::atomic<bool>* interrupt) {
  const CellConfig cell = with_next_access(cell_as_written, summary);
  CellPlan plan = plan_cell(cell, summary);
  plan.progress = progress;
  plan.interrupt = interrupt;
  // Each runner builds the device it needs (the loader checked that the cell's device is one).
  // flashpq run --iolog: the device's I/O as a fio iolog, named after the device fio will
  // open (the block device's path; otherwise a name to redirect with --replay_redirect).
  std::optional<FioIoLog> io_log;
  std::optional<FaultInjector> fault;
  auto attach = [&](Device& device) {
    if (const FaultConfig f = fault_config(plan.device.params); f.active()) {
      const std::string& path = plan.device.params.text("device.path");
      fault.emplace(f, path.empty() ? plan.device.name : plan.device.name + " " + path,
                    plan.device.seed);
      device.set_fault(&*fault);
    }
    if (cell.iolog_path.empty()) return;
    // A device with a path (a real one) is named by it; the others by their type.
    const std::string path = plan.device.params.text("device.path");
    io_log.emplace(cell.iolog_path, !path.empty() ? path : "flashpq-" + plan.device.name);
    device.set_io_log(&*io_log);
  };
  auto row = [&](Measurement m, const Device& device) {
    if (io_log) io_log->finish();
    if (m.replayed != summary.requests) {
      throw std::runtime_error(
          fmt::format("{}: the trace yielded {} requests, but {} when summarised: did it change?",
                      cell.trace.path(), m.replayed, summary.requests));
    }
    return build_row(cell, summary, plan, m, device);
  };
  switch (runner_for(cell)) {
    case RunnerKind::kSimulated: {
      const std::unique_ptr<Device> device = make_device(plan.device);
      attach(*device);
      const std::unique_ptr<ServiceModel> model = simulated_clock(plan.device, *device);
      return row(run_simulated(cell, plan, *device, *model), *device);
    }
    case RunnerKind::kWall: {
      BlockDevice device(plan.device);
      device.set_unwritten_reads_are_errors(!plan.direct && !plan.layout.reads_unwritten_blocks);
      attach(device);
      return row(run_on_wall_clock(cell, plan, device), device);
    }
    case RunnerKind::kFunctional:
      break;
  }
  const std::unique_ptr<Device> device = make_device(plan.device);
  attach(*device);
  return row(run_functional(cell, plan, *device), *device);
}

}  // namespace flashpq
