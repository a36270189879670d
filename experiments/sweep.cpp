// experiments/sweep.cpp — the worker pool, resume and progress of a sweep (experiments/sweep.h).
#include "experiments/sweep.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <ostream>
#include <thread>

#include "engine/cache.h"
#include "engine/framework.h"
#include "experiments/collect.h"
#include "experiments/columns.h"
#include "experiments/results.h"
#include "experiments/run/cell_runner.h"
#include "experiments/run/row.h"
#include "experiments/run/runners.h"
#include "fmt/format.h"
#include "policies/registry.h"
#include "traces/summary_cache.h"

namespace flashpq {

namespace {

using Clock = std::chrono::steady_clock;

bool in_ranges(const std::vector<std::pair<size_t, size_t>>& ranges, size_t i) {
  if (ranges.empty()) return true;
  for (const auto& [first, last] : ranges) {
    if (i >= first && i <= last) return true;
  }
  return false;
}

// Runs fn(i) for i in [0, n) on up to `jobs` threads.
template <class Fn>
void parallel_for(size_t n, unsigned jobs, Fn&& fn) {
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < n;) fn(i);
  };
  std::vector<std::thread> threads;
  const size_t extra = std::min<size_t>(n, std::max(1u, jobs)) - (n ? 1 : 0);
  for (size_t t = 0; t < extra; ++t) threads.emplace_back(work);
  work();
  for (auto& t : threads) t.join();
}

std::string human_count(double v) {
  if (v >= 1e9) return fmt::format("{:.2f}G", v / 1e9);
  if (v >= 1e6) return fmt::format("{:.2f}M", v / 1e6);
  if (v >= 1e3) return fmt::format("{:.1f}k", v / 1e3);
  return fmt::format("{:.0f}", v);
}

std::string human_seconds(double s) {
  if (!(s >= 0) || s > 1e8) return "?";
  const auto t = static_cast<uint64_t>(s + 0.5);
  if (t >= 3600) return fmt::format("{}h{:02}m{:02}s", t / 3600, t / 60 % 60, t % 60);
  if (t >= 60) return fmt::format("{}m{:02}s", t / 60, t % 60);
  return fmt::format("{}s", t);
}

// One cell to run, shared between its worker and the writer.
struct CellSlot {
  const CellConfig* cell = nullptr;
  const TraceSummary* summary = nullptr;  // null: the trace could not be summarised
  const std::string* summary_error = nullptr;
  uint64_t estimate = 0;
  uint64_t total_requests = 0;
  bool exclusive = false;  // timed on the wall clock: runs alone
  std::atomic<uint64_t> progress{0};
  enum class State { kPending, kRunning, kDone } state = State::kPending;
  ResultRow row;
  std::string log;  // the cell's lines, printed when its row is written
  bool failed = false;
  bool interrupted = false;  // stopped by SweepOptions::interrupt: no row
};

// The label of a cell in the log: capacity, policy, framework and device.
std::string cell_label(const CellConfig& cell) {
  std::string label;
  const bool cache = framework_builds_cache(cell.framework.name);
  for (const auto& [k, v] : cell.parameters) {
    const bool shown = k == framework_section().selector || k == device_section().selector ||
                       (cache && (k == policy_section().selector || k == kCapacityKey.name));
    if (shown) label += fmt::format(" {}={}", k, v);
  }
  return label;
}

// A cell in the log: "[cell 2 of 0-11]", numbered from 0 as the results' cell column,
// --cells, flashpq plan and the interrupt message number it.
std::string cell_tag(size_t index, size_t cells) {
  return fmt::format("[cell {} of 0-{}]", index, cells == 0 ? 0 : cells - 1);
}

// Runs one cell: its row, and its log lines.
void run_slot(CellSlot& s, size_t cells, const std::atomic<bool>* interrupt) {
  const CellConfig& cell = *s.cell;
  const std::string label = cell_label(cell);
  const std::string at = cell_tag(cell.index, cells);
  try {
    if (s.summary == nullptr) throw std::runtime_error(*s.summary_error);
    s.row = run_cell(cell, *s.summary, &s.progress, interrupt);
    // The headline metrics: hit ratios of a cache, write amplification of a flash device.
    std::string metrics;
    for (const auto& c : s.row) {
      for (const char* name :
           {"object_hit_ratio", "byte_hit_ratio", "wa_implementation", "wa_ftl", "wa_combined"}) {
        if (c.name == name && !c.text.empty()) metrics += fmt::format(" {}={}", name, c.text);
      }
    }
    s.log = fmt::format("{}{} {}\n", at, label, metrics);
    for (const auto& c : s.row) {
      if (c.name != "notes" || c.text.empty()) continue;
      for (size_t i = 0; i < c.text.size();) {  // one line per note
        const size_t end = std::min(c.text.find("; ", i), c.text.size());
        s.log += fmt::format("{} warning: {}\n", at, c.text.substr(i, end - i));
        i = end + 2;
      }
    }
  } catch (const CellInterrupted&) {
    s.interrupted = true;
    s.row.clear();
    s.log = fmt::format("{}{}  interrupted\n", at, label);
  } catch (const std::exception& e) {
    s.failed = true;
    s.row = failed_row(cell, e.what());
    s.log = fmt::format("{}{}  FAILED: {}\n", at, label, e.what());
  }
}

// What resume found in the results file.
struct ResumeState {
  // The file's header (CSV) or its rows' keys (JSON Lines): a resumed file keeps every column
  // but those carried only with a value (error …) that no kept row has.
  std::vector<std::string> columns;
  // Per selected cell (by position in the run order): the kept row, if any.
  std::vector<std::optional<StoredRow>> kept;
  // Rows of cells not in this run, kept after the run's rows, in file order.
  std::vector<StoredRow> others;
};

// Reads `output` back and decides, per selected cell, whether a row is kept (docs in sweep.h).
std::optional<ResumeState> read_resume(const Experiment& ex, const std::vector<CellSlot*>& order,
                                       const std::string& output, const SweepOptions& options,
                                       std::ostream& log) {
  if (!options.resume || !std::filesystem::exists(output) || ex.cells.empty()) return {};
  StoredResults stored = read_results(output);
  if (stored.columns.empty() && stored.rows.empty()) return {};
  // Any results file resumes (the columns a row carries depend on its cell, and on the version
  // that wrote it: the earlier all-columns format included): its header is kept, and widened
  // by the columns of the cells this run adds. A file that is not one is refused.
  for (const char* needed : {"experiment", "cell"}) {
    if (std::find(stored.columns.begin(), stored.columns.end(), needed) == stored.columns.end()) {
      throw std::runtime_error(fmt::format(
          "{}: cannot resume: not a results file (no '{}' column); choose another --output, or "
          "run without --resume to replace it",
          output, needed));
    }
  }
  ResumeState state;
  state.columns = stored.columns;
  state.kept.resize(order.size());
  // The selected cells, matched to rows by experiment and the parameters their rows carry.
  std::vector<const CellConfig*> cells;
  for (const CellSlot* s : order) cells.push_back(s->cell);
  CellMatcher open(cells);
  size_t failed = 0, kept = 0, stale_kept = 0, stale_rerun = 0;
  std::map<std::string, size_t> stale_versions;  // version -> rows
  size_t stale_trace = 0;
  std::string example;
  for (StoredRow& row : stored.rows) {
    const std::optional<size_t> at = open.find(row);
    if (!at) {
      if (row.field("error").empty()) state.others.push_back(std::move(row));
      continue;
    }
    if (!row.field("error").empty()) {
      ++failed;
      continue;
    }
    const size_t pos = *at;
    const CellSlot& slot = *order[pos];
    const std::string& version = row.field("flashpq_version");
    const bool same_version = version == FLASHPQ_VERSION;
    const bool same_trace =
        slot.summary != nullptr && row.field("trace_hash") == slot.summary->content_hash;
    if (!same_version || !same_trace) {
      if (!same_version) ++stale_versions[version.empty() ? "(none)" : version];
      if (!same_trace) ++stale_trace;
      if (example.empty()) {
        example = fmt::format(
            "cell {} ({})", slot.cell->index,
            !same_version ? fmt::format("FlashPQ {}, now {}", version, FLASHPQ_VERSION)
                          : fmt::format("trace_hash {}, the trace now {}", row.field("trace_hash"),
                                        slot.summary ? slot.summary->content_hash : "unreadable"));
      }
      if (options.stale == StaleRule::kRerun) {
        ++stale_rerun;
        continue;
      }
      ++stale_kept;
    }
    open.claim(pos);
    state.kept[pos] = std::move(row);
    ++kept;
  }
  // The file's columns, less those carried only with a value that no kept row has (the error
  // column of failed rows, which run again).
  std::vector<std::string> columns;
  for (const std::string& c : state.columns) {
    auto has = [&](const StoredRow& r) { return !r.field(c).empty(); };
    if (!column_if_set(c) || std::any_of(state.others.begin(), state.others.end(), has) ||
        std::any_of(state.kept.begin(), state.kept.end(),
                    [&](const std::optional<StoredRow>& r) { return r && has(*r); })) {
      columns.push_back(c);
    }
  }
  state.columns = std::move(columns);
  const size_t stale = stale_rerun + stale_kept;
  std::string causes;
  for (const auto& [v, n] : stale_versions) {
    causes += fmt::format("{}{} by FlashPQ {}", causes.empty() ? "" : ", ", n, v);
  }
  if (stale_trace) {
    causes += fmt::format("{}{} on other trace bytes", causes.empty() ? "" : ", ", stale_trace);
  }
  if (stale != 0 && options.stale == StaleRule::kError) {
    throw std::runtime_error(fmt::format(
        "{}: cannot resume: {} rows are stale ({}; first: {}), computed by another FlashPQ "
        "version than {} or on other trace bytes than the trace has now; --stale rerun runs "
        "their cells again, --stale keep keeps them",
        output, stale, causes, example, FLASHPQ_VERSION));
  }
  log << fmt::format(
      "flashpq: resuming {}: {} finished rows kept{}, {} failed rows to run again{}{}{}\n", output,
      kept, stale_kept ? fmt::format(" ({} of them stale: {})", stale_kept, causes) : "", failed,
      stale_rerun ? fmt::format(", {} stale rows to run again ({})", stale_rerun, causes) : "",
      state.others.empty()
          ? ""
          : fmt::format(", {} rows of cells not in this run kept at the end", state.others.size()),
      stored.truncated_tail ? ", an unfinished last row dropped" : "");
  return state;
}

// What a sweep knows before it runs anything: its cells with their traces' summaries, and
// what resume keeps.
struct Prepared {
  std::vector<std::unique_ptr<CellSlot>> slots;  // the cells of this run, in cell order
  std::vector<std::optional<TraceSummary>> summaries;
  std::vector<std::string> summary_errors;
  std::vector<CellSlot*> order;
  std::optional<ResumeState> resume;
};

std::unique_ptr<Prepared> prepare(const Experiment& ex, const std::string& output,
                                  std::ostream& log, const SweepOptions& options) {
  const unsigned jobs = std::max(1u, options.jobs);
  auto p = std::make_unique<Prepared>();
  auto& slots = p->slots;
  auto& summaries = p->summaries;
  auto& summary_errors = p->summary_errors;
  // The cells of this run, in cell order.
  for (const CellConfig& cell : ex.cells) {
    if (!in_ranges(options.cells, cell.index)) continue;
    auto s = std::make_unique<CellSlot>();
    s->cell = &cell;
    s->exclusive = runner_for(cell) == RunnerKind::kWall;
    slots.push_back(std::move(s));
  }

  // 1. One summary per distinct trace, read back from the summary cache when stored.
  std::map<std::string, size_t> trace_of;  // identity -> index
  std::vector<const TraceConfig*> traces;
  for (const auto& s : slots) {
    if (trace_of.emplace(trace_identity(s->cell->trace), traces.size()).second) {
      traces.push_back(&s->cell->trace);
    }
  }
  summaries.resize(traces.size());
  summary_errors.resize(traces.size());
  std::vector<SummaryOrigin> origins(traces.size());
  parallel_for(traces.size(), jobs, [&](size_t i) {
    try {
      summaries[i] = cached_summary(*traces[i], options.summaries, &origins[i]);
    } catch (const std::exception& e) {
      summary_errors[i] = e.what();
    }
  });
  if (!traces.empty()) {
    std::vector<SummaryOrigin> summarised;
    for (size_t i = 0; i < traces.size(); ++i) {
      if (summaries[i]) summarised.push_back(origins[i]);
    }
    log << "flashpq: " << describe_summary_origins(summarised, traces.size() - summarised.size())
        << "\n";
  }
  for (auto& s : slots) {
    const size_t t = trace_of.at(trace_identity(s->cell->trace));
    if (summaries[t]) {
      s->summary = &*summaries[t];
      s->estimate = estimate_cell_memory(*s->cell, *s->summary);
      s->total_requests = s->summary->requests;
    } else {
      s->summary_error = &summary_errors[t];
    }
  }

  // 2. Resume: which cells keep their row.
  for (auto& s : slots) p->order.push_back(s.get());
  p->resume = read_resume(ex, p->order, output, options, log);
  return p;
}

}  // namespace

StaleRule parse_stale_rule(const std::string& text) {
  if (text == "error") return StaleRule::kError;
  if (text == "rerun") return StaleRule::kRerun;
  if (text == "keep") return StaleRule::kKeep;
  throw std::invalid_argument("--stale: expected error, rerun or keep, found '" + text + "'");
}

KillPoint parse_kill_point(const std::string& text) {
  const auto bad = [&] {
    return std::invalid_argument(
        "FLASHPQ_KILL_AFTER: expected rows:N, torn-row:N or requests:N, optionally followed by "
        ":KILL, :INT or :TERM (e.g. rows:3 or requests:150000:INT), found '" +
        text + "'");
  };
  const size_t colon = text.find(':');
  if (colon == std::string::npos) throw bad();
  const std::string event = text.substr(0, colon);
  std::string count = text.substr(colon + 1), signal = "KILL";
  if (const size_t second = count.find(':'); second != std::string::npos) {
    signal = count.substr(second + 1);
    count.erase(second);
  }
  KillPoint k;
  if (event == "rows")
    k.event = KillPoint::Event::kRows;
  else if (event == "torn-row")
    k.event = KillPoint::Event::kTornRow;
  else if (event == "requests")
    k.event = KillPoint::Event::kRequests;
  else
    throw bad();
  if (count.empty() || count.size() > 18 ||
      count.find_first_not_of("0123456789") != std::string::npos)
    throw bad();
  k.count = std::stoull(count);
  if (k.count == 0 && k.event != KillPoint::Event::kRows) {
    throw std::invalid_argument("FLASHPQ_KILL_AFTER: '" + text + "': " + event +
                                " counts from 1 (only rows:0 exists)");
  }
  if (signal == "KILL")
    k.signal_number = SIGKILL;
  else if (signal == "INT")
    k.signal_number = SIGINT;
  else if (signal == "TERM")
    k.signal_number = SIGTERM;
  else
    throw bad();
  if (k.event == KillPoint::Event::kTornRow && k.signal_number != SIGKILL) {
    // A sweep that went on after it would write whole rows after the torn one.
    throw std::invalid_argument("FLASHPQ_KILL_AFTER: '" + text +
                                "': a torn row is followed by KILL only (e.g. torn-row:" + count +
                                ")");
  }
  return k;
}

std::vector<std::pair<size_t, size_t>> parse_cell_ranges(const std::string& text) {
  auto number = [&](const std::string& t) {
    if (t.empty() || t.size() > 18 || t.find_first_not_of("0123456789") != std::string::npos) {
      throw std::invalid_argument(
          "--cells: expected I-J, I, or a comma-separated list of them (0-based cell indices), "
          "found '" +
          text + "'");
    }
    return static_cast<size_t>(std::stoull(t));
  };
  std::vector<std::pair<size_t, size_t>> out;
  size_t at = 0;
  do {
    const size_t comma = std::min(text.find(',', at), text.size());
    const std::string part = text.substr(at, comma - at);
    at = comma + 1;
    const size_t dash = part.find('-');
    if (dash == std::string::npos) {
      const size_t i = number(part);
      out.emplace_back(i, i);
      continue;
    }
    const size_t first = number(part.substr(0, dash)), last = number(part.substr(dash + 1));
    if (last < first) {
      throw std::invalid_argument("--cells: the range '" + part + "' ends before it starts");
    }
    out.emplace_back(first, last);
  } while (at <= text.size());
  return out;
}

std::string format_cell_ranges(const std::vector<size_t>& cells) {
  std::string out;
  for (size_t i = 0; i < cells.size();) {
    size_t j = i;
    while (j + 1 < cells.size() && cells[j + 1] == cells[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += i == j ? fmt::format("{}", cells[i]) : fmt::format("{}-{}", cells[i], cells[j]);
    i = j + 1;
  }
  return out;
}

std::vector<size_t> pending_cells(const Experiment& ex, const std::string& output,
                                  std::ostream& log, const SweepOptions& options) {
  const std::unique_ptr<Prepared> p = prepare(ex, output, log, options);
  std::vector<size_t> out;
  for (size_t i = 0; i < p->order.size(); ++i) {
    if (!p->resume || !p->resume->kept[i]) out.push_back(p->order[i]->cell->index);
  }
  return out;
}

size_t run_experiment(const Experiment& ex, const std::string& output, std::ostream& log,
                      const SweepOptions& options) {
  const unsigned jobs = std::max(1u, options.jobs);
  const size_t total_cells = ex.cells.size();
  // Fault injection (KillPoint), read before anything is written.
  std::optional<KillPoint> kill = options.kill_after;
  if (!kill) {
    if (const char* env = std::getenv("FLASHPQ_KILL_AFTER"); env != nullptr && *env != '\0') {
      kill = parse_kill_point(env);
    }
  }
  const auto kill_at = [&](KillPoint::Event e) { return kill && kill->event == e; };
  std::atomic<bool> kill_sent{false};
  const auto send_kill = [&] {
    if (!kill_sent.exchange(true)) std::raise(kill->signal_number);
  };

  const std::unique_ptr<Prepared> prepared = prepare(ex, output, log, options);
  const std::vector<CellSlot*>& order = prepared->order;
  const std::optional<ResumeState>& resume = prepared->resume;

  // The cell index of each row of the file, in file order (SIZE_MAX: not a cell of this run);
  // the writer holds their texts.
  std::vector<size_t> file_cells;
  std::vector<CellSlot*> to_run;
  for (size_t i = 0; i < order.size(); ++i) {
    if (!resume || !resume->kept[i]) to_run.push_back(order[i]);
  }
  // The header, before the first row: the union of the columns of the cells to run (known
  // from their configurations, summaries and plans) and, resuming, the file's own.
  std::vector<std::vector<std::string>> headers;
  if (resume) headers.push_back(resume->columns);
  for (const CellSlot* s : to_run) headers.push_back(planned_row_columns(*s->cell, s->summary));
  const std::vector<std::string> header = merge_columns(headers);
  std::optional<ResultsWriter> writer;
  if (resume) {
    std::vector<StoredRow> kept;
    for (size_t i = 0; i < order.size(); ++i) {
      if (resume->kept[i]) {
        file_cells.push_back(order[i]->cell->index);
        kept.push_back(*resume->kept[i]);
      }
    }
    for (const StoredRow& r : resume->others) {
      file_cells.push_back(SIZE_MAX);
      kept.push_back(r);
    }
    writer.emplace(output, header, kept);
    for (size_t i = 0; i < order.size(); ++i) {
      if (resume->kept[i]) {
        log << cell_tag(order[i]->cell->index, total_cells) << " finished before\n";
      }
    }
  } else {
    writer.emplace(output, header);
  }
  if (kill_at(KillPoint::Event::kRows) && kill->count == 0) send_kill();
  // Rows written by this run, and the hooks of rows:N and torn-row:N after each.
  uint64_t rows_written = 0;
  auto write_row = [&](const ResultRow& row) {
    std::string text = writer->write(row);
    ++rows_written;
    if (kill_at(KillPoint::Event::kTornRow) && rows_written == kill->count) {
      // Cut the row (flushed, the last thing in the file) back to its first half.
      const uint64_t size = std::filesystem::file_size(output);
      std::filesystem::resize_file(output, size - (text.size() + 1) + text.size() / 2);
      send_kill();
    }
    if (kill_at(KillPoint::Event::kRows) && rows_written == kill->count) send_kill();
    return text;
  };
  // requests:N: the requests the cells of this run have read so far.
  auto check_requests = [&] {
    if (!kill_at(KillPoint::Event::kRequests) || kill_sent.load()) return;
    uint64_t read = 0;
    for (const CellSlot* s : to_run) read += s->progress.load(std::memory_order_relaxed);
    if (read >= kill->count) send_kill();
  };

  // 3. The pool. Workers take cells in order, within the memory bound; this thread writes rows
  // in cell order and draws the progress.
  const size_t n = to_run.size();
  std::mutex mu;
  std::condition_variable work_cv, done_cv;
  size_t next = 0, running = 0;
  uint64_t used = 0;
  bool stop = false, exclusive_running = false;
  const uint64_t budget = options.memory_bytes;
  auto interrupted = [&] {
    return options.interrupt != nullptr && options.interrupt->load(std::memory_order_relaxed);
  };
  auto fits = [&] {
    if (next == n || stop || interrupted()) return true;
    const CellSlot& s = *to_run[next];
    if (exclusive_running) return false;
    if (s.exclusive) return running == 0;
    return running == 0 || budget == 0 || used + s.estimate <= budget;
  };
  auto worker = [&] {
    std::unique_lock lk(mu);
    for (;;) {
      work_cv.wait(lk, fits);
      if (next == n || stop || interrupted()) return;
      CellSlot& s = *to_run[next++];
      used += s.estimate;
      ++running;
      exclusive_running = s.exclusive;
      s.state = CellSlot::State::kRunning;
      lk.unlock();
      run_slot(s, total_cells, options.interrupt);
      check_requests();  // before the cell counts as finished (KillPoint)
      lk.lock();
      used -= s.estimate;
      --running;
      if (s.exclusive) exclusive_running = false;
      s.state = CellSlot::State::kDone;
      work_cv.notify_all();
      done_cv.notify_all();
    }
  };
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < std::min<size_t>(jobs, n); ++t) workers.emplace_back(worker);

  const auto start = Clock::now();
  uint64_t total_work = 0;
  for (const CellSlot* s : to_run) total_work += s->total_requests;
  size_t written = 0, failed = 0;
  uint64_t finished_work = 0;
  bool live_drawn = false;
  // The requests read so far: the written cells' and, of the others, the finished cells' whole
  // and the running cells' progress.
  auto work_done = [&] {  // REQUIRES: mu held
    uint64_t work = finished_work;
    for (size_t i = written; i < n; ++i) {
      const CellSlot& s = *to_run[i];
      if (s.state == CellSlot::State::kPending) continue;
      work += s.state == CellSlot::State::kDone
                  ? s.total_requests
                  : std::min(s.progress.load(std::memory_order_relaxed), s.total_requests);
    }
    return work;
  };
  auto progress_line = [&] {  // REQUIRES: mu held
    const uint64_t work = work_done();
    std::string cells;
    size_t shown = 0;
    for (size_t i = written; i < n && shown < 4; ++i) {
      const CellSlot& s = *to_run[i];
      if (s.state != CellSlot::State::kRunning) continue;
      const uint64_t p = std::min(s.progress.load(std::memory_order_relaxed), s.total_requests);
      ++shown;
      cells += fmt::format("{} cell {} at {}/{}", cells.empty() ? "" : ",", s.cell->index,
                           human_count(static_cast<double>(p)),
                           human_count(static_cast<double>(s.total_requests)));
    }
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    const double rate = elapsed > 0 ? static_cast<double>(work) / elapsed : 0;
    const double eta =
        rate > 0 ? static_cast<double>(total_work - std::min(work, total_work)) / rate : -1;
    return fmt::format("flashpq: {} of {} cells done, {} failed;{} {} req/s, elapsed {}, ETA {}",
                       written, n, failed, cells.empty() ? "" : " running" + cells + ";",
                       human_count(rate), human_seconds(elapsed), human_seconds(eta));
  };
  // SweepOptions::progress: the cells written and the requests read so far.
  auto store_progress = [&] {  // REQUIRES: mu held
    SweepProgress* p = options.progress;
    if (p == nullptr) return;
    p->cells_total.store(n, std::memory_order_relaxed);
    p->cells_written.store(written, std::memory_order_relaxed);
    p->cells_failed.store(failed, std::memory_order_relaxed);
    p->requests_total.store(total_work, std::memory_order_relaxed);
    p->requests_done.store(std::min(work_done(), total_work), std::memory_order_relaxed);
  };
  // A signal handler cannot wake done_cv: with an interrupt flag, look at it every 0.1 s.
  // requests:N (KillPoint): look at the requests read every millisecond.
  const double tick =
      std::min({options.interrupt != nullptr || options.progress != nullptr ? 0.1 : 3600,
                kill_at(KillPoint::Event::kRequests) ? 0.001 : 3600,
                options.live_progress          ? 0.5
                : options.progress_seconds > 0 ? std::max(0.05, options.progress_seconds)
                                               : 3600});
  auto last_plain = Clock::now();
  auto last_live = Clock::time_point{};  // the first pass draws
  // The next row to write is ready: its cell finished (and was not interrupted).
  auto ready = [&] {
    const CellSlot& s = *to_run[written];
    return s.state == CellSlot::State::kDone && !s.interrupted;
  };
  try {
    std::unique_lock lk(mu);
    while (written < n) {
      done_cv.wait_for(lk, std::chrono::duration<double>(tick),
                       [&] { return ready() || (interrupted() && running == 0); });
      check_requests();
      while (written < n && ready()) {
        CellSlot& s = *to_run[written];
        lk.unlock();
        if (live_drawn) log << "\r\x1b[K";
        live_drawn = false;
        log << s.log << std::flush;
        write_row(s.row);
        file_cells.push_back(s.cell->index);
        lk.lock();
        failed += s.failed ? 1 : 0;
        finished_work += s.total_requests;
        s.row.clear();
        s.row.shrink_to_fit();
        ++written;
      }
      store_progress();
      if (written == n) break;
      if (interrupted() && running == 0) break;  // no cell runs and none will start
      if (options.live_progress) {
        if (std::chrono::duration<double>(Clock::now() - last_live).count() >= 0.45) {
          log << "\r\x1b[K" << progress_line() << std::flush;
          live_drawn = true;
          last_live = Clock::now();
        }
      } else if (options.progress_seconds > 0 &&
                 std::chrono::duration<double>(Clock::now() - last_plain).count() >=
                     options.progress_seconds) {
        log << progress_line() << "\n";
        last_plain = Clock::now();
      }
    }
  } catch (...) {
    {
      std::lock_guard lk(mu);
      stop = true;
    }
    work_cv.notify_all();
    for (auto& t : workers) t.join();
    throw;
  }
  for (auto& t : workers) t.join();
  if (live_drawn) log << "\r\x1b[K" << std::flush;

  // Interrupted: the rows of cells that finished after one that did not, then what remains.
  std::vector<size_t> remaining;
  if (written < n) {
    for (size_t i = written; i < n; ++i) {
      CellSlot& s = *to_run[i];
      log << s.log;
      if (s.state == CellSlot::State::kDone && !s.interrupted) {
        write_row(s.row);
        file_cells.push_back(s.cell->index);
      } else {
        remaining.push_back(s.cell->index);
      }
    }
    log << std::flush;
  }

  // 4. Rows in cell order (a resumed file appended after its kept rows).
  if (!std::is_sorted(file_cells.begin(), file_cells.end())) {
    const std::vector<std::string> columns = writer->columns();
    const std::vector<std::string>& texts = writer->texts();
    std::vector<size_t> by_cell(file_cells.size());
    for (size_t i = 0; i < by_cell.size(); ++i) by_cell[i] = i;
    std::stable_sort(by_cell.begin(), by_cell.end(),
                     [&](size_t a, size_t b) { return file_cells[a] < file_cells[b]; });
    std::vector<std::string> sorted;
    for (const size_t i : by_cell) sorted.push_back(texts.at(i));
    writer.reset();
    ResultsWriter::replace(output, columns, sorted);
  }
  if (!remaining.empty()) throw SweepInterrupted(std::move(remaining));
  return failed;
}

std::string place_series_files(std::vector<CellConfig>& cells, const std::string& output,
                               const std::string& stats_dir) {
  const std::filesystem::path o(output);
  const std::filesystem::path dir = stats_dir.empty()
                                        ? o.parent_path() / (o.stem().string() + ".stats")
                                        : std::filesystem::path(stats_dir);
  bool any = false;
  for (CellConfig& cell : cells) {
    if (!cell.stats.enabled()) continue;
    any = true;
    const std::string name = "cell-" + std::to_string(cell.index) + ".csv";
    cell.stats_path = (dir / name).string();
    cell.stats_file = (dir.filename() / name).string();
  }
  return any ? dir.string() : std::string();
}

}  // namespace flashpq
