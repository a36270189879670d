// traces/summary_cache.h — a trace's summary, computed once and kept on disk.
//
// A cell needs its trace's summary (requests, distinct objects, working set, sizes, content hash:
// traces/trace_summary.h) before it replays the trace. Reading a trace of billions of requests
// twice per cell would double a sweep's I/O, so the summary is stored the first time it is
// computed and read back afterwards: a sweep, a later sweep, every task of a cluster job and
// `flashpq trace info` then read each trace once per cell.
//
// Where: `dir` when given, else the user cache directory ($XDG_CACHE_HOME/flashpq when
// XDG_CACHE_HOME is an absolute path, as the XDG Base Directory Specification requires, else
// $HOME/.cache/flashpq), one file "NAME.HASH.flashpq-summary" per trace (NAME the trace file's
// name or "generator", HASH the identity's XXH3-64). Never beside the trace: a user's data
// folder is not ours to write in. When neither variable is set and no `dir` is given, the
// summary is computed and kept in memory only, and SummaryOrigin says so.
//
// When a stored summary counts: its identity equals the trace's — the format, every trace key's
// value, the seed, the device geometry a generator reads (trace_identity()) and, for a file, its
// canonical path, size in bytes, modification time (ns) and inode, as ccache's direct mode and
// make trust a file's status. A file rewritten in place with the same size and modification time
// is not noticed: `touch` it, or pass a fresh `dir`. A stored summary that does not parse is
// ignored and recomputed. Files are written to a temporary name and renamed, so concurrent
// processes (parallel cells, cluster tasks) never read half a summary.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "traces/trace_reader.h"
#include "traces/trace_summary.h"

namespace flashpq {

/// What identifies the requests a TraceConfig yields, without reading them, separated by
/// U+001F: the format and every trace key's value (trace.path made canonical) for a file; the
/// format, every trace key's value, the seed and the device geometry for a generator. Two
/// configs read the same requests iff their identities agree (a file: while it is unchanged).
std::string trace_identity(const TraceConfig& config);

/// Where summaries are stored and whether they are used.
struct SummaryCacheOptions {
  /// Directory for every summary; "" = the user cache directory (see above).
  std::string dir;
  /// False: always compute, never read or write a stored summary.
  bool enabled = true;
};

/// The directory summaries are stored in under `options`, as an absolute path: options.dir,
/// else $XDG_CACHE_HOME/flashpq, else $HOME/.cache/flashpq; "" when options.dir is empty and
/// neither variable is usable (unset, empty, or a relative XDG_CACHE_HOME).
std::string summary_cache_dir(const SummaryCacheOptions& options);

/// Where one summary came from (cached_summary()).
struct SummaryOrigin {
  /// Read back from the stored summary `file`.
  bool from_cache = false;
  /// Computed, and stored in `file`.
  bool stored = false;
  /// The stored summary's file, absolute; "" when there is no cache directory or the cache is
  /// disabled.
  std::string file;
  /// Computed and not stored: why, in words ("the summary cache is disabled", "neither
  /// XDG_CACHE_HOME nor HOME is set: kept in memory only", "cannot write FILE: REASON", ...).
  std::string not_stored;

  /// For `flashpq trace info`: "read from the summary cache: FILE", "computed (one read of the
  /// trace), stored in FILE" or "computed (one read of the trace), not stored: WHY".
  std::string text() const;
};

/// The summary of `config`: read back when a stored one matches its identity, else computed by
/// summarize_trace() and stored (a failure to store is not an error: the summary is returned
/// and *origin says why it was not stored). Sets *origin when given. Throws TraceError as
/// summarize_trace().
TraceSummary cached_summary(const TraceConfig& config, const SummaryCacheOptions& options,
                            SummaryOrigin* origin = nullptr);

/// The file where the summary of `config` is stored under `options` (whether or not it
/// exists), absolute; "" when summary_cache_dir(options) is "".
std::string summary_cache_path(const TraceConfig& config, const SummaryCacheOptions& options);

/// One line for a log on how the summaries of a run's traces were obtained, true to each
/// origin, e.g. "traces: 1 summarised (stored in /home/u/.cache/flashpq), 2 read from the
/// summary cache (/home/u/.cache/flashpq)"; counts of 0 are left out. `failed`: traces that
/// could not be summarised (", N could not be read ...").
std::string describe_summary_origins(const std::vector<SummaryOrigin>& origins, size_t failed = 0);

/// The stored form of a summary (text, one "key value" line each) and back. parse_summary()
/// returns false if `text` is not a complete summary with exactly `identity`.
std::string format_summary(const TraceSummary& summary, const std::string& identity);
bool parse_summary(const std::string& text, const std::string& identity, TraceSummary& out);

}  // namespace flashpq
