// python/_flashpq.cpp — the Python package's native module, flashpq._flashpq (pybind11).
//
// The package (python/flashpq/__init__.py) is the interface; this module is what it calls:
//   run_experiment()  a sweep as `flashpq run` runs it (experiments/sweep.h), on a thread of its
//                     own while the calling thread, holding the GIL only between waits, draws
//                     the progress and looks for signals (Ctrl-C stops the sweep as SIGINT does
//                     `flashpq run`: the finished cells' rows are written, KeyboardInterrupt is
//                     raised);
//   plan()            `flashpq plan`'s estimate (experiments/plan.h);
//   trace_info(), read_trace()  a trace's summary (traces/trace_summary.h) and its requests;
//   Session           one cache driven request by request (experiments/session.h), the GIL
//                     released while a batch runs; with a policy written in Python
//                     (PythonPolicy below) the GIL is held, since its hooks are Python.
// Errors: ConfigError (a bad experiment: file, line, key) becomes flashpq.ConfigError, a
// ValueError; std::invalid_argument ValueError; other exceptions RuntimeError; each with the
// message `flashpq run` prints.
#include <fmt/format.h>
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <signal.h>

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <mutex>
#include <sstream>
#include <thread>

#include "engine/cache.h"
#include "engine/framework.h"
#include "experiments/calibrate.h"
#include "experiments/curves.h"
#include "experiments/experiment.h"
#include "experiments/plan.h"
#include "experiments/run/kernel_unit.h"
#include "experiments/run/row.h"
#include "experiments/session.h"
#include "experiments/sweep.h"
#include "traces/generator.h"
#include "traces/summary_cache.h"
#include "traces/trace_reader.h"
#include "traces/trace_summary.h"

namespace py = pybind11;

namespace flashpq::python {

// ---- Experiments -------------------------------------------------------------------------------

std::vector<Override> overrides_of(const std::vector<std::pair<std::string, std::string>>& sets) {
  std::vector<Override> out;
  for (const auto& [k, v] : sets) out.push_back({k, v});
  return out;
}

Experiment load(const std::string& source, bool is_text,
                const std::vector<std::pair<std::string, std::string>>& sets) {
  return is_text ? load_experiment_text(source, "<string>", overrides_of(sets))
                 : load_experiment(source, overrides_of(sets));
}

// What run_experiment() returns besides the rows it wrote.
struct RunOutcome {
  size_t cells = 0;
  size_t failed = 0;
  std::string log;
};

// Runs `work` on a thread of its own. Until it ends, the calling thread (holding the GIL)
// wakes every 0.1 s, runs the interpreter's signal handlers (PyErr_CheckSignals: Ctrl-C raises
// KeyboardInterrupt there) and calls `tick`. A raised exception sets `interrupt`, and is raised
// again once `work` has ended.
template <class Work, class Tick>
void run_beside_interpreter(Work&& work, Tick&& tick, std::atomic<bool>& interrupt) {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  std::exception_ptr error;
  std::thread worker([&] {
    try {
      work();
    } catch (...) {
      error = std::current_exception();
    }
    std::lock_guard lk(mu);
    done = true;
    cv.notify_all();
  });
  bool raised = false;
  for (;;) {
    bool finished;
    {
      py::gil_scoped_release release;
      std::unique_lock lk(mu);
      cv.wait_for(lk, std::chrono::milliseconds(100), [&] { return done; });
      finished = done;
    }
    if (!raised) {
      if (PyErr_CheckSignals() != 0) {
        raised = true;
      } else {
        try {
          tick(finished);
        } catch (py::error_already_set& e) {
          e.restore();
          raised = true;
        }
      }
      if (raised) interrupt.store(true);
    }
    if (finished) break;
  }
  worker.join();
  if (raised) throw py::error_already_set();
  if (error) std::rethrow_exception(error);
}

// While a sweep runs from the interpreter's main thread, SIGINT and SIGTERM stop it at once, as
// they stop `flashpq run` (experiments/cli/run.inc): the handler only stores. The
// interpreter's own handlers are put back when the sweep ends, and the signal is then raised
// as the interpreter would have raised it (KeyboardInterrupt for SIGINT).
std::atomic<bool>* g_sweep_interrupt = nullptr;
std::atomic<int> g_sweep_signal{0};
extern "C" void on_sweep_signal(int sig) {
  g_sweep_signal.store(sig, std::memory_order_relaxed);
  if (g_sweep_interrupt != nullptr) g_sweep_interrupt->store(true, std::memory_order_relaxed);
}

class StopSignals {
 public:
  StopSignals(std::atomic<bool>& interrupt, bool install) : installed_(install) {
    if (!installed_) return;
    g_sweep_signal.store(0);
    g_sweep_interrupt = &interrupt;
    struct sigaction sa {};
    sa.sa_handler = on_sweep_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int_);
    sigaction(SIGTERM, &sa, &old_term_);
  }
  ~StopSignals() {
    if (!installed_) return;
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
    g_sweep_interrupt = nullptr;
  }
  // The signal received, 0 for none.
  int received() const { return installed_ ? g_sweep_signal.load() : 0; }

 private:
  bool installed_;
  struct sigaction old_int_ {
  }, old_term_{};
};

RunOutcome run_sweep(const std::string& source, bool is_text,
                     const std::vector<std::pair<std::string, std::string>>& sets, unsigned jobs,
                     const std::string& output, bool keep_output, uint64_t memory_bytes,
                     const py::object& on_progress) {
  Experiment ex = load(source, is_text, sets);
  check_profile_devices(ex.cells, false);
  // stats.interval_s: each cell's series beside the results, as `flashpq run` writes them
  // (experiments/cli/run.inc): OUTPUT_STEM.stats/cell-N.csv, named in the row relative to the
  // results file's directory. Only beside results that are kept.
  for (const CellConfig& cell : ex.cells) {
    if (cell.stats.enabled() && !keep_output) {
      throw std::invalid_argument(fmt::format(
          "cell {}: stats.interval_s writes a series per cell beside the results file: give "
          "output= (the series go to OUTPUT_STEM.stats/)",
          cell.index));
    }
  }
  place_series_files(ex.cells, output);
  RunOutcome outcome;
  outcome.cells = ex.cells.size();
  std::ostringstream log;
  std::atomic<bool> interrupt{false};
  SweepProgress progress;
  SweepOptions options;
  options.jobs = std::max(1u, jobs);
  options.memory_bytes = memory_bytes;
  options.progress_seconds = 0;
  options.summaries.enabled = true;
  options.interrupt = &interrupt;
  options.progress = &progress;
  const bool curves = !ex.curve.method.empty();
  auto work = [&] {
    if (curves) {
      CurveMethod m;
      m.method = ex.curve.method;
      m.rate = ex.curve.rate;
      m.sample_keys = ex.curve.sample_keys;
      write_curves(compute_experiment_curves(ex, m, log), output);
      return;
    }
    try {
      outcome.failed = run_experiment(ex, output, log, options);
    } catch (const SweepInterrupted&) {
      // The interpreter's KeyboardInterrupt, raised by run_beside_interpreter, says it.
    }
  };
  auto tick = [&](bool finished) {
    if (on_progress.is_none()) return;
    on_progress(progress.cells_written.load(),
                curves ? ex.cells.size() : progress.cells_total.load(),
                progress.requests_done.load(), progress.requests_total.load(), finished);
  };
  {
    // The interpreter's signal handlers are the main thread's.
    const py::module_ threading = py::module_::import("threading");
    const bool main_thread = threading.attr("current_thread")().is(threading.attr("main_thread")());
    StopSignals signals(interrupt, main_thread);
    run_beside_interpreter(work, tick, interrupt);
    if (const int sig = signals.received(); sig != 0) {
      outcome.log = log.str();
      // The interpreter's handler, now restored, decides what the signal does (Python 3.10:
      // PyErr_SetInterruptEx simulates its arrival).
      PyErr_SetInterruptEx(sig);
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    }
  }
  outcome.log = log.str();
  return outcome;
}

py::dict plan_experiment(const std::string& source, bool is_text,
                         const std::vector<std::pair<std::string, std::string>>& sets,
                         unsigned jobs, uint64_t sample_requests) {
  Experiment ex = load(source, is_text, sets);
  PlanOptions options;
  options.jobs = std::max(1u, jobs);
  options.sample_requests = sample_requests;
  std::ostringstream log;
  SweepPlan p;
  {
    py::gil_scoped_release release;
    p = plan_sweep(ex, options, log);
  }
  std::ostringstream text;
  print_plan(ex, p, options, text);
  py::list cells;
  for (const CellEstimate& e : p.cells) {
    py::dict row;
    row["cell"] = e.cell;
    for (const auto& [k, v] : row_parameters(ex.cells[e.cell])) row[py::str(k)] = v;
    row["requests"] = e.requests;
    row["memory_bytes"] = e.memory_bytes;
    row["seconds"] = e.sampled ? py::cast(e.seconds) : py::none();
    row["not_sampled"] = e.not_sampled;
    cells.append(row);
  }
  auto findings = [](const std::vector<CellFindings>& f) {
    py::list out;
    for (const CellFindings& x : f) out.append(py::make_tuple(x.message, x.cells));
    return out;
  };
  py::dict out;
  out["experiment"] = ex.name;
  out["output"] = ex.output;
  out["cells"] = cells;
  out["failures"] = findings(p.failures);
  out["warnings"] = findings(p.warnings);
  out["duplicates"] = p.duplicates;
  out["requests"] = p.requests;
  out["seconds"] = p.seconds;
  out["text"] = text.str();
  return out;
}

TraceConfig trace_config(const std::string& path, const std::string& format,
                         const std::vector<std::pair<std::string, std::string>>& sets) {
  TraceConfig t = trace_source(path, format, "format");
  for (const auto& [k, v] : sets) {
    if (!k.starts_with("trace.")) {
      throw std::invalid_argument("set: expected trace.KEY, found '" + k + "'");
    }
    t.params.set(k, v);
  }
  return t;
}

py::dict trace_info(const std::string& path, const std::string& format,
                    const std::vector<std::pair<std::string, std::string>>& sets, uint64_t seed) {
  TraceConfig t = trace_config(path, format, sets);
  t.seed = seed;
  TraceSummary s;
  {
    py::gil_scoped_release release;
    s = cached_summary(t, SummaryCacheOptions{}, nullptr);
  }
  py::dict d;
  d["trace"] = path;
  d["format"] = t.format;
  d["requests"] = s.requests;
  d["objects"] = s.unique_objects;
  d["working_set_bytes"] = s.working_set_bytes;
  d["gets"] = s.gets;
  d["sets"] = s.sets;
  d["deletes"] = s.deletes;
  d["size_p50_bytes"] = s.sizes.quantile(0.5);
  d["size_p90_bytes"] = s.sizes.quantile(0.9);
  d["size_p99_bytes"] = s.sizes.quantile(0.99);
  d["max_object_bytes"] = s.max_object_bytes;
  d["one_hit_wonders"] = s.one_hit_wonders;
  d["one_hit_wonder_ratio"] =
      s.unique_objects == 0 ? 0.0 : static_cast<double>(s.one_hit_wonders) / s.unique_objects;
  d["time_span_s"] = static_cast<double>(s.last_time_ns - s.first_time_ns) / 1e9;
  d["zipf_alpha"] = s.zipf_alpha;
  d["content_hash"] = s.content_hash;
  return d;
}

// The requests of a trace as arrays (time_ns, key, size_bytes, op), at most `limit` of them
// (0: all).
py::tuple read_trace(const std::string& path, const std::string& format,
                     const std::vector<std::pair<std::string, std::string>>& sets, uint64_t seed,
                     uint64_t limit) {
  TraceConfig t = trace_config(path, format, sets);
  t.seed = seed;
  std::vector<Request> all;
  {
    py::gil_scoped_release release;
    const std::unique_ptr<TraceReader> reader = open_trace(t);
    std::array<Request, 4096> batch;
    for (size_t n; (n = reader->read(batch)) != 0;) {
      for (size_t i = 0; i < n && (limit == 0 || all.size() < limit); ++i) all.push_back(batch[i]);
      if (limit != 0 && all.size() >= limit) break;
    }
  }
  const auto n = static_cast<py::ssize_t>(all.size());
  py::array_t<uint64_t> time_ns(n), key(n);
  py::array_t<uint32_t> size(n);
  py::array_t<uint8_t> op(n);
  auto tm = time_ns.mutable_unchecked<1>();
  auto km = key.mutable_unchecked<1>();
  auto sm = size.mutable_unchecked<1>();
  auto om = op.mutable_unchecked<1>();
  for (py::ssize_t i = 0; i < n; ++i) {
    const Request& r = all[static_cast<size_t>(i)];
    tm(i) = r.time_ns;
    km(i) = r.key;
    sm(i) = r.size_bytes;
    om(i) = static_cast<uint8_t>(r.op);
  }
  return py::make_tuple(time_ns, key, size, op);
}

// ---- Policies written in Python ----------------------------------------------------------------

// A priority policy whose three hooks (engine/policy.h; RIPQ paper §4.1, Table 2) are the
// methods of a Python object:
//   on_insert(key, size) -> priority      a miss is inserted at that priority;
//   on_hit(key, size, priority) -> priority or None   a hit increases to it (None: stays);
//   on_evict(key, size, priority)         optional: the victim of delete-min, still queued.
// Relative priorities lie in (0, 1] (1 the head); absolute ones are any finite numbers (the
// smallest is evicted first). Each hook is a call into the interpreter: slow, and meant for
// exploring an idea before writing it in C++ (docs/guide/python.md).
template <PriorityKind K>
class PythonPolicy {
 public:
  static constexpr PriorityKind kKind = K;
  PythonPolicy(py::object object, uint32_t grid)
      : on_insert_(object.attr("on_insert")),
        on_hit_(object.attr("on_hit")),
        on_evict_(py::hasattr(object, "on_evict") ? py::object(object.attr("on_evict"))
                                                  : py::object(py::none())),
        grid_(grid) {}
  uint32_t grid() const { return grid_; }

  template <class Q>
  void on_insert(Q& q, ObjectTable& t, Handle h) {
    const ObjectEntry& e = t[h];
    q.insert(h, checked(on_insert_(static_cast<uint64_t>(e.key), e.size_bytes), "on_insert"));
  }
  template <class Q>
  void on_hit(Q& q, ObjectTable& t, Handle h) {
    const ObjectEntry& e = t[h];
    const py::object p = on_hit_(static_cast<uint64_t>(e.key), e.size_bytes, q.priority(h));
    if (!p.is_none()) q.increase(h, checked(p, "on_hit"));
  }
  template <class Q>
  void on_evict(Q& q, ObjectTable& t, Handle h) {
    if (on_evict_.is_none()) return;
    const ObjectEntry& e = t[h];
    on_evict_(static_cast<uint64_t>(e.key), e.size_bytes, q.priority(h));
  }

 private:
  static double checked(const py::object& value, const char* hook) {
    const double p = value.cast<double>();
    if constexpr (K == PriorityKind::kRelative) {
      if (!(p > 0 && p <= 1)) {
        throw py::value_error(fmt::format(
            "{}: a relative policy's priority lies in (0, 1] (1 the queue's head), found {}", hook,
            p));
      }
    } else if (!std::isfinite(p)) {
      throw py::value_error(fmt::format("{}: expected a finite priority, found {}", hook, p));
    }
    return p;
  }
  py::object on_insert_, on_hit_, on_evict_;
  uint32_t grid_;
};

static_assert(Policy<PythonPolicy<PriorityKind::kRelative>>);
static_assert(Policy<PythonPolicy<PriorityKind::kAbsolute>>);

// The cache of a policy written in Python on the cell's framework (any framework with a queue).
template <PriorityKind K, class F>
std::unique_ptr<SessionCache> python_cache(const SessionBuild& b, const py::object& object,
                                           uint32_t grid) {
  using P = PythonPolicy<K>;
  using C = Cache<P, typename F::template Queue<P>, NoAdmission>;
  auto c = std::make_unique<C>(b.plan->cache, b.plan->framework, P(object, grid), *b.device,
                               NoAdmission(b.cell->admission, b.plan->expected_objects));
  c->reserve(b.plan->expected_objects);
  return std::make_unique<SessionCacheOf<C>>(std::move(c), *b.device);
}

template <PriorityKind K, class... F>
std::unique_ptr<SessionCache> python_cache_on(const SessionBuild& b, const py::object& object,
                                              uint32_t grid, TypeList<F...>) {
  std::unique_ptr<SessionCache> out;
  ((out == nullptr && b.cell->framework.name == F::spec().name
        ? (void)(out = python_cache<K, F>(b, object, grid))
        : (void)0),
   ...);
  if (out == nullptr) {
    std::string names;
    ((names += (names.empty() ? "" : ", ") + F::spec().name), ...);
    throw std::invalid_argument("framework " + b.cell->framework.name +
                                ": a policy written in Python runs on a framework with a "
                                "priority queue: " +
                                names);
  }
  return out;
}

// ---- Sessions ----------------------------------------------------------------------------------

class Session {
 public:
  // A built-in policy (policy_object None) or one written in Python (its kind and grid).
  Session(const std::string& yaml, const std::string& max_object_size, uint64_t expected_objects,
          const py::object& policy_object, const std::string& kind, uint32_t grid)
      : python_(!policy_object.is_none()) {
    SessionShape shape;
    shape.max_object_bytes = parse_size(max_object_size);  // the keys' units (sim/params.h)
    shape.expected_objects = expected_objects;
    if (!python_) {
      session_ = std::make_unique<CacheSession>(yaml, "<flashpq.Cache>", shape);
      return;
    }
    if (kind != "relative" && kind != "absolute") {
      throw std::invalid_argument("policy kind: expected 'relative' or 'absolute', found '" + kind +
                                  "'");
    }
    auto make = [&](const SessionBuild& b) -> std::unique_ptr<SessionCache> {
      if (b.cell->admission.name != "none") {
        throw std::invalid_argument("admission " + b.cell->admission.name +
                                    ": a policy written in Python runs without admission");
      }
      if (kind == "relative") {
        return python_cache_on<PriorityKind::kRelative>(b, policy_object, grid,
                                                        kernels::CachingFrameworks{});
      }
      return python_cache_on<PriorityKind::kAbsolute>(b, policy_object, grid,
                                                      kernels::CachingFrameworks{});
    };
    session_ = std::make_unique<CacheSession>(yaml, "<flashpq.Cache>", shape, make);
  }

  bool access(uint64_t key, uint32_t size, uint8_t op) {
    const Request r{0, key, size, checked_op(op)};
    uint8_t hit = 0;
    std::unique_lock lock = hold();
    guarded([&] { session_->access({&r, 1}, &hit); });
    return hit != 0;
  }

  py::array_t<bool> access_many(const py::array_t<uint64_t, py::array::forcecast>& keys,
                                const py::array_t<uint32_t, py::array::forcecast>& sizes,
                                const py::object& ops_object) {
    if (keys.ndim() != 1 || sizes.ndim() != 1 || keys.shape(0) != sizes.shape(0)) {
      throw std::invalid_argument(fmt::format(
          "access_many: expected keys and sizes as 1-D arrays of one length, found shapes {} "
          "and {}",
          shape_text(keys), shape_text(sizes)));
    }
    const py::ssize_t n = keys.shape(0);
    py::array_t<uint8_t, py::array::forcecast> ops;
    if (!ops_object.is_none()) {
      ops = py::array_t<uint8_t, py::array::forcecast>::ensure(ops_object);
      if (!ops || ops.ndim() != 1 || ops.shape(0) != n) {
        throw std::invalid_argument(
            "access_many: ops: expected a 1-D array of op codes (0 get, 1 set, 2 delete) as "
            "long as keys");
      }
    }
    py::array_t<bool> hits(n);
    const uint64_t* k = keys.data();
    const uint32_t* s = sizes.data();
    const uint8_t* o = ops_object.is_none() ? nullptr : ops.data();
    bool* h = hits.mutable_data();
    auto loop = [&] {
      std::array<Request, 4096> batch;
      std::array<uint8_t, 4096> out;
      for (py::ssize_t i = 0; i < n;) {
        const size_t m = static_cast<size_t>(std::min<py::ssize_t>(n - i, batch.size()));
        for (size_t j = 0; j < m; ++j) {
          batch[j] = Request{0, k[i + j], s[i + j], o ? checked_op(o[i + j]) : Op::kGet};
        }
        session_->access({batch.data(), m}, out.data());
        for (size_t j = 0; j < m; ++j) h[i + j] = out[j] != 0;
        i += static_cast<py::ssize_t>(m);
      }
    };
    if (python_) {
      std::unique_lock lock = hold();
      guarded(loop);  // the policy's hooks need the interpreter
    } else {
      py::gil_scoped_release release;
      std::lock_guard lock(mu_);
      guarded(loop);
    }
    return hits;
  }

  py::dict stats() {
    std::vector<Column> columns;
    {
      std::unique_lock lock = hold();
      columns = session_->stats();
    }
    py::dict d;
    for (const Column& c : columns) {
      if (!c.numeric) {
        d[py::str(c.name)] = c.text;
      } else if (c.text.empty()) {
        d[py::str(c.name)] = py::float_(std::numeric_limits<double>::quiet_NaN());
      } else if (c.text.find_first_of(".eEn") != std::string::npos ||
                 c.name.find("ratio") != std::string::npos || c.name.starts_with("wa_")) {
        d[py::str(c.name)] = std::stod(c.text);
      } else {
        d[py::str(c.name)] = std::stoull(c.text);
      }
    }
    return d;
  }

  py::dict config() const {
    py::dict d;
    for (const auto& [k, v] : row_parameters(session_->cell())) d[py::str(k)] = v;
    d["cache_capacity_bytes"] = session_->plan().cache.capacity_bytes;
    return d;
  }

 private:
  // The cache, for one thread at a time (called with the GIL). A built-in policy's cache runs
  // without the GIL, so another thread's batch may hold it: wait for it without the GIL. A
  // policy written in Python runs its hooks with the GIL, which the interpreter hands to other
  // threads between bytecodes: waiting could deadlock, so a second thread (or a hook calling
  // its own cache) is refused.
  std::unique_lock<std::mutex> hold() {
    if (python_) {
      std::unique_lock lock(mu_, std::try_to_lock);
      if (!lock.owns_lock()) {
        throw std::runtime_error(
            "this cache is running a request of another thread (or of its own policy's hook): "
            "a cache with a policy written in Python serves one thread at a time");
      }
      return lock;
    }
    py::gil_scoped_release release;
    return std::unique_lock(mu_);
  }
  static Op checked_op(uint8_t op) {
    if (op > 2) {
      throw std::invalid_argument(
          fmt::format("op: expected 0 (get), 1 (set) or 2 (delete), found {}", op));
    }
    return static_cast<Op>(op);
  }
  static std::string shape_text(const py::array& a) {
    std::string s = "(";
    for (py::ssize_t i = 0; i < a.ndim(); ++i) s += (i ? ", " : "") + std::to_string(a.shape(i));
    return s + (a.ndim() == 1 ? ",)" : ")");
  }
  // A request that throws (a policy's hook raised) leaves the cache between two states: the
  // session refuses further requests.
  template <class Fn>
  void guarded(Fn&& fn) {
    if (broken_) {
      throw std::runtime_error(
          "this cache stopped in the middle of a request when its policy raised: make a new "
          "one");
    }
    try {
      fn();
    } catch (...) {
      broken_ = true;
      throw;
    }
  }
  std::unique_ptr<CacheSession> session_;
  std::mutex mu_;  // held while the cache runs without the GIL
  bool python_;
  bool broken_ = false;
};

}  // namespace flashpq::python

PYBIND11_MODULE(_flashpq, m) {
  using namespace flashpq;
  using namespace flashpq::python;
  m.doc() = "FlashPQ's native module: use the package flashpq (python/flashpq/__init__.py).";
  static py::exception<ConfigError> config_error(m, "ConfigError", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const ConfigError& e) {
      PyErr_SetString(config_error.ptr(), (std::string("flashpq: ") + e.what()).c_str());
    } catch (const std::invalid_argument& e) {
      PyErr_SetString(PyExc_ValueError, (std::string("flashpq: ") + e.what()).c_str());
    } catch (const TraceError& e) {
      PyErr_SetString(PyExc_ValueError, (std::string("flashpq: ") + e.what()).c_str());
    }
  });

  py::class_<RunOutcome>(m, "RunOutcome")
      .def_readonly("cells", &RunOutcome::cells)
      .def_readonly("failed", &RunOutcome::failed)
      .def_readonly("log", &RunOutcome::log);
  m.def("run_experiment", &run_sweep, py::arg("source"), py::arg("is_text"), py::arg("sets"),
        py::arg("jobs"), py::arg("output"), py::arg("keep_output"), py::arg("memory_bytes"),
        py::arg("on_progress"));
  m.def("plan", &plan_experiment, py::arg("source"), py::arg("is_text"), py::arg("sets"),
        py::arg("jobs"), py::arg("sample_requests"));
  m.def("trace_info", &trace_info, py::arg("path"), py::arg("format"), py::arg("sets"),
        py::arg("seed"));
  m.def("read_trace", &read_trace, py::arg("path"), py::arg("format"), py::arg("sets"),
        py::arg("seed"), py::arg("limit"));
  m.def("policy_names", &policy_names);
  m.def("framework_names", &framework_names);
  m.def("device_names", &device_names);
  py::class_<Session>(m, "Session")
      .def(py::init<const std::string&, const std::string&, uint64_t, const py::object&,
                    const std::string&, uint32_t>(),
           py::arg("yaml"), py::arg("max_object_size"), py::arg("expected_objects"),
           py::arg("policy_object"), py::arg("kind"), py::arg("grid"))
      .def("access", &Session::access, py::arg("key"), py::arg("size"), py::arg("op"))
      .def("access_many", &Session::access_many, py::arg("keys"), py::arg("sizes"), py::arg("ops"))
      .def("stats", &Session::stats)
      .def("config", &Session::config);
}
