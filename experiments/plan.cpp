// experiments/plan.cpp — flashpq plan (experiments/plan.h).
#include "experiments/plan.h"

#include <algorithm>
#include <map>
#include <optional>
#include <ostream>
#include <set>

#include "experiments/run/cell_runner.h"
#include "experiments/run/measure.h"
#include "experiments/run/runners.h"
#include "fmt/format.h"

namespace flashpq {

namespace {

std::string human_bytes(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) {
    b /= 1024;
    ++u;
  }
  return u == 0 ? fmt::format("{:.0f} B", b) : fmt::format("{:.1f} {}", b, units[u]);
}

std::string human_time(double s) {
  if (s < 120) return fmt::format("{:.1f} s", s);
  if (s < 7200) return fmt::format("{:.1f} min", s / 60);
  if (s < 172800) return fmt::format("{:.1f} h", s / 3600);
  return fmt::format("{:.1f} days", s / 86400);
}

std::string value_of(const CellConfig& c, const std::string& key) {
  for (const auto& [k, v] : c.parameters) {
    if (k == key) return v;
  }
  return "";
}

// What a cell computes: its experiment and every parameter but those no selected component
// reads.
std::string computation(const CellConfig& c) {
  std::string id = c.experiment;
  for (const auto& [k, v] : c.parameters) {
    const bool ignored =
        std::find(c.ignored_keys.begin(), c.ignored_keys.end(), k) != c.ignored_keys.end();
    id += '\x1f' + (ignored ? std::string() : v);
  }
  return id;
}

}  // namespace

std::vector<std::vector<size_t>> duplicate_cells(const Experiment& ex) {
  std::map<std::string, std::vector<size_t>> by_computation;
  for (const CellConfig& c : ex.cells) by_computation[computation(c)].push_back(c.index);
  std::vector<std::vector<size_t>> out;
  for (auto& [id, cells] : by_computation) {
    if (cells.size() > 1) out.push_back(cells);
  }
  std::sort(out.begin(), out.end());
  return out;
}

SweepPlan plan_sweep(const Experiment& ex, const PlanOptions& options, std::ostream& log) {
  SweepPlan plan;
  plan.duplicates = duplicate_cells(ex);

  // Summaries, once per trace; a trace that cannot be read fails its cells, as in a run.
  std::map<std::string, TraceSummary> summaries;
  std::map<std::string, std::string> unreadable;
  for (const CellConfig& c : ex.cells) {
    const std::string id = trace_identity(c.trace);
    if (summaries.count(id) || unreadable.count(id)) continue;
    try {
      summaries.emplace(id, cached_summary(c.trace, options.summaries));
    } catch (const std::exception& e) {
      unreadable.emplace(id, e.what());
    }
  }
  auto note = [](std::vector<CellFindings>& list, const std::string& message, size_t cell) {
    for (CellFindings& f : list) {
      if (f.message == message) {
        f.cells.push_back(cell);
        return;
      }
    }
    list.push_back({message, {cell}});
  };
  // Every check run makes before replaying a cell: the same messages its row would carry.
  std::vector<bool> fails(ex.cells.size(), false);
  for (size_t i = 0; i < ex.cells.size(); ++i) {
    const CellConfig& c = ex.cells[i];
    const std::string id = trace_identity(c.trace);
    if (unreadable.count(id)) {
      note(plan.failures, unreadable.at(id), c.index);
      fails[i] = true;
      continue;
    }
    try {
      const CellPlan p = plan_cell(c, summaries.at(id));
      for (const std::string& n : p.notes) note(plan.warnings, n, c.index);
    } catch (const std::exception& e) {
      note(plan.failures, e.what(), c.index);
      fails[i] = true;
    }
  }
  // Classes of cells that cost the same per request; merged when there are too many.
  auto class_of = [&](const CellConfig& c, bool fine) {
    std::string k = trace_identity(c.trace) + '\x1e' + c.framework.name + '\x1e' + c.device.name +
                    '\x1e' + value_of(c, "timing.mode");
    if (fine) k += '\x1e' + c.policy.name + '\x1e' + c.admission.name;
    return k;
  };
  std::set<std::string> fine_classes;
  for (const CellConfig& c : ex.cells) fine_classes.insert(class_of(c, true));
  const bool fine = fine_classes.size() <= options.max_samples;
  struct ClassCost {
    std::optional<CellCost> cost;
    std::string why_not;  // when not sampled
  };
  std::map<std::string, ClassCost> costs;
  for (size_t i = 0; i < ex.cells.size(); ++i) {
    const CellConfig& c = ex.cells[i];
    CellEstimate e;
    e.cell = c.index;
    const std::string id = trace_identity(c.trace);
    if (fails[i]) {
      e.not_sampled = "the cell fails";
      if (summaries.count(id)) e.requests = summaries.at(id).requests;
      plan.cells.push_back(e);
      continue;
    }
    const TraceSummary& s = summaries.at(id);
    e.requests = s.requests;
    e.memory_bytes = estimate_cell_memory(c, s);
    // A failing cell never samples its class: the next cell of the class does.
    auto it = costs.find(class_of(c, fine));
    if (it == costs.end()) {
      it = costs.emplace(class_of(c, fine), ClassCost{}).first;
      if (runner_for(c) == RunnerKind::kWall) {
        it->second.why_not = "timed on the wall clock: a sample would write the real device";
      } else {
        const uint64_t n = std::max<uint64_t>(1, std::min(options.sample_requests, s.requests / 3));
        try {
          it->second.cost = sample_cell_cost(c, s, n);
          ++plan.samples;
          log << fmt::format("flashpq plan: sampled cell {} ({} {} on {}): {:.0f} ns/request\n",
                             c.index, c.policy.name, c.framework.name, c.device.name,
                             it->second.cost->seconds_per_request * 1e9);
        } catch (const std::exception& err) {
          it->second.why_not = std::string("its sample failed: ") + err.what();
          log << fmt::format("flashpq plan: cell {} not sampled: {}\n", c.index, err.what());
        }
      }
    }
    if (it->second.cost) {
      e.sampled = true;
      e.seconds = it->second.cost->seconds(e.requests);
    } else {
      e.not_sampled = it->second.why_not;
    }
    plan.requests += e.requests;
    plan.seconds += e.seconds;
    plan.cells.push_back(e);
  }
  return plan;
}

namespace {

// "0-3, 7, 9-10": ascending cell indices as ranges (--cells' form).
std::string cell_ranges(const std::vector<size_t>& cells) {
  std::string out;
  for (size_t i = 0; i < cells.size();) {
    size_t j = i;
    while (j + 1 < cells.size() && cells[j + 1] == cells[j] + 1) ++j;
    out += fmt::format(
        "{}{}", out.empty() ? "" : ", ",
        j == i ? fmt::format("{}", cells[i]) : fmt::format("{}-{}", cells[i], cells[j]));
    i = j + 1;
  }
  return out;
}

}  // namespace

void print_plan(const Experiment& ex, const SweepPlan& plan, const PlanOptions& options,
                std::ostream& out) {
  out << fmt::format("experiment {}: {} cells -> {}\n", ex.name, ex.cells.size(), ex.output);
  // The keys that vary across cells and apply to every cell (not a component's own key that
  // only some cells' components read, nor a value resolved from another key).
  std::vector<std::string> varying;
  if (!ex.cells.empty()) {
    for (const auto& [k, v] : ex.cells.front().parameters) {
      bool varies = false, everywhere = true;
      for (const CellConfig& c : ex.cells) {
        const std::string x = value_of(c, k);
        varies = varies || x != v;
        everywhere = everywhere && !x.empty();
      }
      if (varies && everywhere) varying.push_back(k);
    }
  }
  for (size_t i = 0; i < std::min(options.shown, ex.cells.size()); ++i) {
    std::string kv;
    for (const std::string& k : varying) kv += fmt::format(" {}={}", k, value_of(ex.cells[i], k));
    out << fmt::format("  cell {}:{}\n", i, kv.empty() ? " (no key varies)" : kv);
  }
  if (ex.cells.size() > options.shown) {
    out << fmt::format("  ... {} more\n", ex.cells.size() - options.shown);
  }
  for (const CellFindings& f : plan.failures) {
    out << fmt::format("cell{} {}: FAILED: {}\n", f.cells.size() == 1 ? "" : "s",
                       cell_ranges(f.cells), f.message);
  }
  for (const CellFindings& f : plan.warnings) {
    out << fmt::format("cell{} {}: warning: {}\n", f.cells.size() == 1 ? "" : "s",
                       cell_ranges(f.cells), f.message);
  }
  size_t repeated = 0;
  for (const auto& g : plan.duplicates) repeated += g.size() - 1;
  if (plan.duplicates.empty()) {
    out << "duplicates: none (no two cells compute the same thing)\n";
  } else {
    out << fmt::format(
        "duplicates: {} cells repeat another cell's computation ({} groups); drop them with "
        "exclude:\n",
        repeated, plan.duplicates.size());
    for (size_t g = 0; g < std::min<size_t>(plan.duplicates.size(), 10); ++g) {
      const auto& cells = plan.duplicates[g];
      const CellConfig& first = ex.cells[cells.front()];
      std::set<std::string> differ;
      for (size_t c : cells) {
        for (const auto& [k, v] : ex.cells[c].parameters) {
          if (value_of(first, k) != v) differ.insert(k);
        }
      }
      std::string keys;
      for (const auto& k : differ) keys += (keys.empty() ? "" : ", ") + k;
      std::string list;
      for (size_t c : cells) list += fmt::format("{}{}", list.empty() ? "" : ", ", c);
      out << fmt::format("  cells {}: {}\n", list,
                         keys.empty()
                             ? "identical"
                             : "differ only in " + keys + ", which their components do not read");
    }
  }
  std::vector<uint64_t> mem, req;
  std::map<std::string, size_t> unsampled;  // why → cells
  for (const auto& e : plan.cells) {
    mem.push_back(e.memory_bytes);
    req.push_back(e.requests);
    if (!e.sampled) ++unsampled[e.not_sampled];
  }
  std::string not_sampled;
  for (const auto& [why, n] : unsampled) {
    not_sampled += fmt::format("; {} cell{} not sampled: {}", n, n == 1 ? "" : "s", why);
  }
  std::sort(mem.begin(), mem.end());
  std::sort(req.begin(), req.end());
  if (!plan.cells.empty()) {
    out << fmt::format("work: {} requests over the cells (per cell: {} to {})\n", plan.requests,
                       req.front(), req.back());
    out << fmt::format(
        "memory per cell (estimated): median {}, largest {}; {} workers need up to {}\n",
        human_bytes(static_cast<double>(mem[mem.size() / 2])),
        human_bytes(static_cast<double>(mem.back())), options.jobs,
        human_bytes(static_cast<double>(mem.back()) * options.jobs));
  }
  const unsigned jobs = std::max(1u, options.jobs);
  out << fmt::format(
      "time (estimated from {} timed samples of {} requests): {} of CPU; about {} with {} "
      "worker{}{}\n",
      plan.samples, options.sample_requests, human_time(plan.seconds),
      human_time(plan.seconds / std::min<double>(jobs, std::max<size_t>(1, ex.cells.size()))), jobs,
      jobs == 1 ? "" : "s", not_sampled);
  if (!plan.failures.empty()) {
    size_t failing = 0;
    for (const CellFindings& f : plan.failures) failing += f.cells.size();
    out << fmt::format(
        "{} of {} cells would fail: flashpq run would write their rows with the "
        "error above\n",
        failing, ex.cells.size());
  }
}

}  // namespace flashpq
