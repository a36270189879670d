#include "traces/trace_summary.h"

#include <xxhash.h>

#include <array>
#include <cstdio>
#include <memory>
#include <vector>

#include "engine/key_set.h"
#include "fmt/format.h"
#include "traces/prefetch_reader.h"

namespace flashpq {

std::string file_content_hash(const std::string& path) {
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) throw TraceError(path + ": cannot open for hashing");
  std::unique_ptr<XXH3_state_t, XXH_errorcode (*)(XXH3_state_t*)> st(XXH3_createState(),
                                                                     &XXH3_freeState);
  XXH3_64bits_reset(st.get());
  std::vector<char> buf(1 << 20);
  for (size_t n; (n = std::fread(buf.data(), 1, buf.size(), f.get())) > 0;) {
    XXH3_64bits_update(st.get(), buf.data(), n);
  }
  if (std::ferror(f.get())) throw TraceError(path + ": read error while hashing");
  return fmt::format("{:016x}", XXH3_64bits_digest(st.get()));
}

TraceSummary summarize_trace(const TraceConfig& config) {
  TraceSummary s;
  PrefetchReader reader(open_trace(config));
  KeySet seen;
  std::array<Request, 4096> batch;
  for (size_t n; (n = reader.read(batch)) != 0;) {
    s.requests += n;
    for (size_t i = 0; i < n; ++i) {
      // A delete brings no data into the cache: only gets and sets make the working set.
      if (batch[i].op != Op::kDelete && seen.insert(batch[i].key)) {
        s.working_set_bytes += batch[i].size_bytes;
      }
    }
  }
  s.unique_objects = seen.size();
  // A generator has no file: its parameters are its content.
  s.content_hash = config.format == "generator"
                       ? fmt::format("{:016x}", XXH3_64bits(config.device_io.identity().data(),
                                                            config.device_io.identity().size()))
                       : file_content_hash(config.path);
  return s;
}

}  // namespace flashpq
