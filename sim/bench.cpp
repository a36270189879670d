#include "sim/bench.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <ostream>

#include "engine/framework.h"
#include "fmt/format.h"
#include "policies/registry.h"
#include "sim/replay.h"
#include "traces/prefetch_reader.h"
#include "traces/trace_summary.h"

namespace flashpq {

namespace {

struct Measurement {
  double seconds = 1e300;
  uint64_t requests = 0;
  double hit_ratio = 0;
};

template <class Body>
Measurement best_of(int repeat, Body&& body) {
  Measurement best;
  for (int i = 0; i < repeat; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    Measurement m = body();
    m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (m.seconds < best.seconds) best = m;
  }
  return best;
}

}  // namespace

int run_bench(const BenchConfig& config, std::ostream& out) {
  TraceConfig tc;
  tc.path = config.trace_path;
  tc.format = "oracleGeneral";
  const TraceSummary summary = summarize_trace(tc);
  std::vector<Request> requests;
  requests.reserve(summary.requests);
  {
    auto reader = open_trace(tc);
    std::array<Request, 4096> batch;
    for (size_t n; (n = reader->read(batch)) != 0;) {
      requests.insert(requests.end(), batch.begin(), batch.begin() + n);
    }
  }
  CacheConfig cc;
  cc.capacity_bytes =
      std::max<uint64_t>(1, static_cast<uint64_t>(config.capacity_fraction *
                                                  static_cast<double>(summary.working_set_bytes)));
  out << fmt::format("trace {}: {} requests, {} objects, working set {} B; cache {} B ({})\n",
                     config.trace_path, summary.requests, summary.unique_objects,
                     summary.working_set_bytes, cc.capacity_bytes, config.capacity_fraction);
  out << fmt::format("{:<6} {:<6} {:<10} {:>12} {:>10} {:>12} {:>10}\n", "frame", "policy", "mode",
                     "requests", "seconds", "Mreq/s", "hit_ratio");
  if (config.streamed) {
    // The ceiling of every streamed row: the reader alone on one thread (zstd decoding and
    // record parsing), no cache.
    const Measurement m = best_of(config.repeat, [&] {
      Measurement d;
      auto reader = open_trace(tc);
      std::array<Request, 4096> batch;
      for (size_t n; (n = reader->read(batch)) != 0;) d.requests += n;
      return d;
    });
    out << fmt::format("{:<6} {:<6} {:<10} {:>12} {:>10.3f} {:>12.2f} {:>10}\n", "-", "-",
                       "decode", m.requests, m.seconds, m.requests / m.seconds / 1e6, "-");
    out.flush();
  }
  for (const std::string& framework : config.frameworks) {
    FrameworkConfig fc;
    fc.name = framework;
    fc.insertion_points = config.insertion_points;
    fc.block_size_bytes = std::max<uint64_t>(
        1, static_cast<uint64_t>(config.block_fraction * static_cast<double>(cc.capacity_bytes)));
    fc.validate();
    for (const std::string& name : config.policies) {
      PolicyConfig pc;
      pc.name = name;
      pc.segments = config.segments;
      pc.validate();
      auto run = [&](bool streamed) {
        return best_of(config.repeat, [&] {
          Measurement m;
          with_policy(pc, [&](auto policy) {
            with_framework(fc, cc, std::move(policy), [&](auto& cache) {
              HitStats stats;
            stats.reserve(summary.unique_objects);
            if constexpr (requires { cache.reserve(size_t{}); }) {
              cache.reserve(cc.capacity_bytes * summary.unique_objects /
                            std::max<uint64_t>(1, summary.working_set_bytes));
            }
              if (streamed) {
                PrefetchReader reader(open_trace(tc));  // as run_cell streams
                m.requests = replay_stream(cache, reader, stats, 0);
              } else {
                m.requests = replay_span(cache, std::span<const Request>(requests), stats, 0, 0);
              }
              m.hit_ratio =
                  static_cast<double>(stats.counters().hits) /
                  static_cast<double>(std::max<uint64_t>(1, stats.counters().get_requests));
            });
          });
          return m;
        });
      };
      for (bool streamed : {false, true}) {
        if (streamed && !config.streamed) continue;
        const Measurement m = run(streamed);
        out << fmt::format("{:<6} {:<6} {:<10} {:>12} {:>10.3f} {:>12.2f} {:>10.4f}\n", framework,
                           name, streamed ? "streamed" : "in-memory", m.requests, m.seconds,
                           m.requests / m.seconds / 1e6, m.hit_ratio);
        out.flush();
      }
    }
  }
  return 0;
}

}  // namespace flashpq
