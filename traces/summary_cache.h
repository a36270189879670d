// traces/summary_cache.h — a trace's summary, computed once and kept on disk.
//
// A cell needs its trace's summary (requests, distinct objects, working set, sizes, content hash:
// traces/trace_summary.h) before it replays the trace. Reading a trace of billions of requests
// twice per cell would double a sweep's I/O, so the summary is stored the first time it is
// computed and read back afterwards: a sweep, a later sweep, every task of a cluster job and
// `flashpq trace info` then read each trace once per cell.
//
// Where: `dir` when given; else beside the trace file (".NAME.IDENT.flashpq-summary", IDENT the
// first 8 hex digits of the identity's hash) when its directory is writable; else the user cache
// directory ($XDG_CACHE_HOME/flashpq, or ~/.cache/flashpq). A generator's summary goes to `dir`
// or the user cache directory.
//
// When a stored summary counts: its identity equals the trace's — the format, every trace key's
// value, the seed, the device geometry a generator reads (trace_identity()) and, for a file, its
// canonical path, size in bytes, modification time (ns) and inode, as ccache's direct mode and
// make trust a file's status. A file rewritten in place with the same size and modification time
// is not noticed: `touch` it, or pass a fresh `dir`. A stored summary that does not parse is
// ignored and recomputed. Files are written to a temporary name and renamed, so concurrent
// processes (parallel cells, cluster tasks) never read half a summary.
#pragma once

#include <string>

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
  /// Directory for every summary; "" = beside the trace file, else the user cache directory.
  std::string dir;
  /// False: always compute, never read or write a stored summary.
  bool enabled = true;
};

/// The summary of `config`: read back when a stored one matches its identity, else computed by
/// summarize_trace() and stored (a failure to store is not an error: the summary is returned).
/// Sets *from_cache when given. Throws TraceError as summarize_trace().
TraceSummary cached_summary(const TraceConfig& config, const SummaryCacheOptions& options,
                            bool* from_cache = nullptr);

/// The file where the summary of `config` is stored under `options` (whether or not it exists).
std::string summary_cache_path(const TraceConfig& config, const SummaryCacheOptions& options);

/// The stored form of a summary (text, one "key value" line each) and back. parse_summary()
/// returns false if `text` is not a complete summary with exactly `identity`.
std::string format_summary(const TraceSummary& summary, const std::string& identity);
bool parse_summary(const std::string& text, const std::string& identity, TraceSummary& out);

}  // namespace flashpq
