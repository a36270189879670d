// traces/next_access.h — writes a trace's next-access file (engine/next_access.h): one pass over
// the trace, the index of each request's next request to the same key, its size and operation.
//
// Belady's MIN and PFOO-L (policies/belady.h, policies/pfoo_l.h) read it while a cell replays
// the trace. The pass keeps the last index of every key in an ObjectTable (engine/object_table.h:
// 28 B per distinct key, the trace's summary already counts them) and writes the file through a
// shared mapping: next[] is filled at each key's previous index when the key recurs, sizes and
// operations in order. Memory: the table of keys; the file's pages are the page cache's.
#pragma once

#include <cstdint>
#include <string>

#include "traces/trace_reader.h"
#include "traces/trace_summary.h"

namespace flashpq {

/// Writes the next-access file of every request `reader` yields to `path` (through a temporary
/// name beside it, renamed at the end), tagged with `tag` (engine/next_access.h: the header's
/// hash). `requests` is the number the reader yields (its summary's). Throws TraceError as the
/// reader does, std::runtime_error naming the file when it cannot be written or when the reader
/// yields another number of requests.
void write_next_access_file(TraceReader& reader, uint64_t requests, uint64_t tag,
                            const std::string& path);

/// The next-access file of the trace `config`, whose summary is `summary`: the one stored beside
/// the trace's summary in the user cache directory (traces/summary_cache.h: NAME.HASH
/// .flashpq-next-access) when its header matches the trace (request count and a hash of the
/// trace's identity and content hash), else computed by one pass over the trace and stored
/// there. Without a user cache directory, in the system's temporary directory. Calls within one
/// process compute a trace's file once (the others wait). Returns the file's absolute path.
/// Throws as write_next_access_file().
std::string next_access_file(const TraceConfig& config, const TraceSummary& summary);

}  // namespace flashpq
