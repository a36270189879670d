#include "traces/trace_summary.h"

#include <array>
#include <memory>
#include <vector>

#include "engine/key_set.h"
#include "fmt/format.h"
#include "traces/prefetch_reader.h"

namespace flashpq {

TraceSummary summarize_trace(const TraceConfig& config) {
  TraceSummary s;
  PrefetchReader reader(open_trace(config));
  s.preconditioning_requests = reader.preconditioning_requests();
  KeySet seen;
  std::array<Request, 4096> batch;
  for (size_t n; (n = reader.read(batch)) != 0;) {
    s.requests += n;
    for (size_t i = 0; i < n; ++i) {
      // A delete brings no data into the cache: only gets and sets make the working set.
      if (batch[i].op == Op::kDelete) continue;
      if (batch[i].size_bytes > s.max_object_bytes) s.max_object_bytes = batch[i].size_bytes;
      s.sizes.add(batch[i].size_bytes);
      if (seen.insert(batch[i].key)) s.working_set_bytes += batch[i].size_bytes;
    }
  }
  s.unique_objects = seen.size();
  s.content_hash = trace_format(config.format).content_hash(config);
  return s;
}

}  // namespace flashpq
