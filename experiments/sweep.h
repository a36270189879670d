// experiments/sweep.h — runs the cells of an experiment on a pool of workers and writes their
// rows in cell order.
//
// A sweep (docs/DESIGN.md "Sweeps"):
//   1. summarises each distinct trace once (traces/summary_cache.h: read back when stored),
//      the distinct traces in parallel;
//   2. with `resume`, reads the results file back and keeps a row as its cell's only when the
//      experiment, every parameter, the trace's content hash (trace_hash) and the FlashPQ version
//      (flashpq_version) all match; a row whose parameters match but whose trace or version
//      differ is stale, and `stale` says what happens to it;
//   3. runs the remaining cells (of `cells`, when a range is given) on `jobs` threads, one cell
//      per thread, single-threaded and deterministic, starting a cell only when the estimated
//      memory of the running cells (estimate_cell_memory()) stays within `memory_bytes` (a cell
//      estimated above it runs alone); a cell timed on the wall clock (a real device) runs
//      alone, so that no other cell shares its CPU or its device while its latencies are
//      measured;
//   4. writes each row as soon as every earlier cell's row is written, flushed, so an
//      interrupted sweep leaves complete rows of a prefix of the cells it ran (and at most one
//      unfinished last record, dropped by the next `resume`);
//   5. when the file's rows are not in cell order (a resumed sweep appends after the kept rows),
//      rewrites it sorted by cell (through a temporary file renamed over it).
// The rows are those of a one-cell-at-a-time run, byte for byte, except wall_seconds and the
// timing of a real device.
#pragma once

#include <atomic>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "experiments/experiment.h"
#include "traces/summary_cache.h"

namespace flashpq {

/// What `--resume` does with a stale row: one computed by another FlashPQ version or on other
/// trace bytes than the cell's trace now has.
enum class StaleRule {
  kError,  // refuse to run, leaving the file untouched (the default: a result never changes
           // silently)
  kRerun,  // drop the row and run its cell again
  kKeep,   // keep the row as the cell's
};

/// Parses "error" | "rerun" | "keep". Throws std::invalid_argument quoting the text.
StaleRule parse_stale_rule(const std::string& text);

/// Fault injection for tests of what an interrupted sweep leaves behind: a point, chosen by the
/// work done and never by the clock, where the sweep sends itself a signal (raise(3)). Set by
/// SweepOptions::kill_after or, for `flashpq run`, by the environment variable
/// FLASHPQ_KILL_AFTER=EVENT:N[:SIGNAL] (parse_kill_point()). The events, counted from the start
/// of this run (rows kept by --resume and requests of kept cells do not count):
///   rows:N      right after the N-th row this run writes is flushed; rows:0 right after the
///               results file is created or truncated (empty) or rewritten with the kept rows
///               (--resume), before any cell starts.
///   torn-row:N  as rows:N (N >= 1), but first the file is cut back to the first half of that
///               row's text, without its line break: what a write stopped midway leaves, the
///               unfinished last record --resume drops. KILL only.
///   requests:N  once the cells of this run have read N requests together (N >= 1), counted as
///               their progress is, batch by batch: the writer thread looks every millisecond
///               and a worker looks as its cell ends, before the cell can count as finished.
///               With KILL, therefore, every row in the file belongs to a cell that finished
///               while fewer than N requests had been read: when every cell reads R requests,
///               fewer than N / R new rows, however fast the machine.
/// SIGNAL is KILL (the default: the process dies at that point), INT or TERM (flashpq run's
/// handlers stop the sweep cleanly, SweepOptions::interrupt). The signal is sent at most once;
/// none when the run ends before the point. For tests only: never set it in a real sweep.
struct KillPoint {
  enum class Event { kRows, kTornRow, kRequests };
  Event event = Event::kRows;
  /// N: rows (>= 0; >= 1 for torn rows) or requests (>= 1).
  uint64_t count = 0;
  /// SIGKILL, SIGINT or SIGTERM.
  int signal_number = SIGKILL;
};

/// Parses FLASHPQ_KILL_AFTER's text, "rows:N", "torn-row:N" or "requests:N", optionally
/// followed by ":KILL", ":INT" or ":TERM" (e.g. "requests:150000:INT"). Throws
/// std::invalid_argument naming the variable, quoting the text and giving an example.
KillPoint parse_kill_point(const std::string& text);

/// A sweep's progress as another thread may read it (the Python package's progress bar): the
/// sweep stores into it at least every 0.1 s while it runs, and once more at its end.
struct SweepProgress {
  /// Cells this run runs (after --cells and --resume), and of those whose row is written.
  std::atomic<uint64_t> cells_total{0};
  std::atomic<uint64_t> cells_written{0};
  std::atomic<uint64_t> cells_failed{0};
  /// Requests the cells of this run read in all (their traces' lengths), and have read.
  std::atomic<uint64_t> requests_total{0};
  std::atomic<uint64_t> requests_done{0};
};

/// How a sweep runs. The defaults run every cell on one thread, without resuming.
struct SweepOptions {
  /// Keep the finished, current rows of an existing results file and run only the other cells.
  bool resume = false;
  StaleRule stale = StaleRule::kError;
  /// Worker threads, >= 1 (flashpq run: the number of cores).
  unsigned jobs = 1;
  /// Bound on the summed estimates of the running cells, in bytes; 0 = none (flashpq run: 80 %
  /// of the machine's RAM).
  uint64_t memory_bytes = 0;
  /// Only the cells with an index in one of these [first, last] ranges (0-based, inclusive): a
  /// cluster task's share. Empty: every cell.
  std::vector<std::pair<size_t, size_t>> cells;
  /// Progress: a live line redrawn in place (a terminal), else a plain line every
  /// `progress_seconds` (0 = only the per-cell lines).
  bool live_progress = false;
  double progress_seconds = 30;
  /// Where trace summaries are stored and read back.
  SummaryCacheOptions summaries;
  /// Set (by a signal handler: flashpq run on SIGINT and SIGTERM) to stop the sweep: no cell
  /// starts, running cells stop at their next batch of requests and write no row, the finished
  /// cells' rows are written, then run_experiment throws SweepInterrupted. Null: never.
  const std::atomic<bool>* interrupt = nullptr;
  /// Where the sweep reports its progress (SweepProgress); null: nowhere.
  SweepProgress* progress = nullptr;
  /// Fault injection for tests (KillPoint). Unset: FLASHPQ_KILL_AFTER's, when the environment
  /// sets it (run_experiment() throws std::invalid_argument, before writing anything, on a bad
  /// value); else none.
  std::optional<KillPoint> kill_after;
};

/// A sweep stopped by SweepOptions::interrupt. Every finished cell's row is in the results file
/// (whole: a row is written only once its cell has finished); `remaining` are the cells of the
/// run without a row, which `--resume` runs.
class SweepInterrupted : public std::runtime_error {
 public:
  explicit SweepInterrupted(std::vector<size_t> remaining)
      : std::runtime_error("interrupted"), remaining(std::move(remaining)) {}
  /// Cell indices (0-based, ascending).
  std::vector<size_t> remaining;
};

/// Runs the cells of `ex` as `options` say, writing rows to `output` (created or truncated
/// unless resuming; a CSV header, the union of the cells' columns, before the first row) and the
/// log to `log` (one line per cell, warnings, progress). A cell that fails records its error in
/// its row and the sweep goes on. Returns the number of failed cells.
///
/// Resume (options.resume, and `output` exists): the file is rewritten with the kept rows
/// (failed rows are dropped and their cells run again; rows of cells no longer in the matrix
/// are kept, after the matrix's; an unfinished last record is dropped), then the other cells'
/// rows are appended. A row is its cell's when its experiment and the parameters the cell's row
/// carries match (CellMatcher, experiments/collect.h); the file keeps its columns, widened by
/// those of the cells run (docs/DESIGN.md "Results"). Throws std::runtime_error, leaving the
/// file untouched, if the results file cannot be read, is not a results file (no `experiment`
/// or `cell` column), or holds stale rows and options.stale is kError (the message counts them
/// by cause and FlashPQ version); throws
/// std::runtime_error on a write error (the rows written before it stay); throws
/// SweepInterrupted once options.interrupt stopped it (the finished cells' rows written).
size_t run_experiment(const Experiment& ex, const std::string& output, std::ostream& log,
                      const SweepOptions& options = {});

/// Places the series over time of the cells with stats.interval_s (experiments/run/
/// interval_stats.h) beside the results file `output`: DIR/cell-N.csv, DIR being `stats_dir`
/// when given, else OUTPUT_STEM.stats next to `output`; sets each such cell's stats_path (the
/// file) and stats_file (DIR's name/cell-N.csv: what its row says, relative to the results
/// file's directory). Returns DIR when a cell has a series, else "". Creates nothing.
std::string place_series_files(std::vector<CellConfig>& cells, const std::string& output,
                               const std::string& stats_dir = "");

/// Parses cell ranges "I-J", "I", or several separated by commas ("0-3,7,9-12"; 0-based,
/// inclusive). Throws std::invalid_argument quoting the text.
std::vector<std::pair<size_t, size_t>> parse_cell_ranges(const std::string& text);

/// Formats cell indices (ascending) as ranges, the form parse_cell_ranges() reads: {0,1,2,5}
/// gives "0-2,5".
std::string format_cell_ranges(const std::vector<size_t>& cells);

/// The indices of the cells of `ex` (within options.cells) that a sweep with these options
/// would run: without resume, all of them; with resume, those without a kept row in `output`
/// (docs in run_experiment()). Summarises the traces as a sweep does. Throws as
/// run_experiment() does before running anything (stale rows and options.stale kError
/// included); writes nothing.
std::vector<size_t> pending_cells(const Experiment& ex, const std::string& output,
                                  std::ostream& log, const SweepOptions& options);

}  // namespace flashpq
