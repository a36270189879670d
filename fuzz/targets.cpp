// fuzz/targets.cpp — the fuzz targets (fuzz/targets.h). One function per parser; the table at
// the end lists them.
#include "fuzz/targets.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string_view>
#include <typeinfo>

#include "devices/block/nvme_log.h"
#include "devices/simflash/simflash_config.h"
#include "experiments/characterize.h"
#include "experiments/config/cell_config.h"
#include "experiments/experiment.h"
#include "experiments/results.h"
#include "experiments/sweep.h"
#include "fuzz/cachebench_import_fuzz.h"
#include "sim/params.h"
#include "traces/summary_cache.h"
#include "traces/trace_reader.h"
#include "traces/transforms.h"
#include "yaml-cpp/exceptions.h"

namespace flashpq::fuzz {

void report_finding(const char* target, const char* type, const char* what) {
  std::fprintf(stderr, "fuzz target %s: unexpected exception %s: %s\n", target, type, what);
  std::fflush(stderr);
  std::abort();
}

namespace {

// Runs `fn`; an exception of one of `Allowed` (or a type derived from one) is the parser's
// documented refusal, anything else a finding. A YAML::Exception is always a finding: the
// parsers that read YAML promise their own error types (it derives from std::runtime_error).
template <class... Allowed, class Fn>
void guarded(const char* target, Fn&& fn) {
  try {
    fn();
  } catch (const YAML::Exception& e) {
    report_finding(target, "YAML::Exception", e.what());
  } catch (const std::exception& e) {
    if (((dynamic_cast<const Allowed*>(&e) != nullptr) || ...)) return;
    report_finding(target, typeid(e).name(), e.what());
  } catch (...) {
    report_finding(target, "(not a std::exception)", "");
  }
}

// Writes `data` to scratch/NAME (truncating) and returns the path.
std::string write_input(std::span<const uint8_t> data, const std::string& scratch,
                        const std::string& name) {
  const std::string path = scratch + "/" + name;
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    // The harness's own directory: EMFILE here means a parser leaks descriptors.
    report_finding(name.c_str(), "(harness: cannot create its input file)", std::strerror(errno));
  }
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n <= 0) report_finding(name.c_str(), "(harness: cannot write its input file)", "");
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  return path;
}

std::string_view as_text(std::span<const uint8_t> data) {
  return {reinterpret_cast<const char*>(data.data()), data.size()};
}

// A trace file of `format` read to its end in batches of changing sizes (a reader's state
// across reads), at most 1 M requests (a small compressed input can expand a lot).
void read_trace(const char* target, const std::string& path, TraceConfig config) {
  config.params.set("trace.path", path);
  guarded<TraceError, std::invalid_argument>(target, [&] {
    auto reader = open_trace(config);
    std::vector<Request> batch(61);
    static constexpr size_t kSizes[] = {1, 7, 61, 2};
    uint64_t total = 0;
    for (size_t i = 0; total < (1u << 20); ++i) {
      const size_t n = reader->read(std::span<Request>(batch.data(), kSizes[i % 4]));
      if (n == 0) break;
      total += n;
    }
  });
}

template <const char* Format, const char* Name>
void trace_target(std::span<const uint8_t> data, const std::string& scratch) {
  read_trace(Name, write_input(data, scratch, Name), trace_file("", Format));
}

constexpr char kOracleGeneral[] = "oracleGeneral", kKvcacheCsv[] = "kvcache_csv",
               kTwitter[] = "twitter", kMsr[] = "msr", kFioIolog[] = "fio_iolog",
               kCachelibBlock[] = "cachelib_block", kFpq[] = "fpq", kLcs[] = "lcs";
constexpr char kTOracleGeneral[] = "trace_oracle_general", kTKvcacheCsv[] = "trace_kvcache_csv",
               kTTwitter[] = "trace_twitter", kTMsr[] = "trace_msr",
               kTFioIolog[] = "trace_fio_iolog", kTCachelibBlock[] = "trace_cachelib_block",
               kTFpq[] = "trace_fpq", kTLcs[] = "trace_lcs";

// The generic CSV reader: the first input byte picks the column mapping (header or not, which
// columns, key text hashed or numeric), the rest is the file.
void trace_csv(std::span<const uint8_t> data, const std::string& scratch) {
  const uint8_t mode = data.empty() ? 0 : data[0];
  if (!data.empty()) data = data.subspan(1);
  TraceConfig config = trace_file("", "csv");
  config.params.set("trace.time_col", (mode & 1) ? "1" : "0");
  config.params.set("trace.key_col", (mode & 1) ? "2" : "1");
  config.params.set("trace.size_col", (mode & 2) ? ((mode & 1) ? "3" : "2") : "0");
  config.params.set("trace.op_col", (mode & 4) ? "4" : "0");
  config.params.set("trace.header", (mode & 8) ? "true" : "false");
  config.params.set("trace.key_is_numeric", (mode & 16) ? "false" : "true");
  if (mode & 32) config.params.set("trace.delimiter", "\t");
  read_trace("trace_csv", write_input(data, scratch, "trace_csv"), config);
}

// An experiment file through the loader (matrix, zip, exclude, units, every section's keys);
// after a NUL byte, one `--set KEY=VALUE` per line.
void experiment_yaml(std::span<const uint8_t> data, const std::string& scratch) {
  const std::string_view all = as_text(data);
  const size_t nul = all.find('\0');
  std::vector<Override> overrides;
  if (nul != std::string_view::npos) {
    std::string_view rest = all.substr(nul + 1);
    while (!rest.empty()) {
      const size_t end = std::min(rest.find('\n'), rest.size());
      const std::string_view line = rest.substr(0, end);
      const size_t eq = line.find('=');
      if (eq != std::string_view::npos) {
        overrides.push_back({std::string(line.substr(0, eq)), std::string(line.substr(eq + 1))});
      }
      rest.remove_prefix(std::min(end + 1, rest.size()));
    }
  }
  const std::string path =
      write_input(data.first(std::min(nul, data.size())), scratch, "experiment.yaml");
  guarded<ConfigError>("experiment_yaml", [&] { load_experiment(path, overrides); });
}

// A results file as `--resume` reads it back: CSV, or JSON Lines when the first byte is odd.
void results(std::span<const uint8_t> data, const std::string& scratch) {
  const bool jsonl = !data.empty() && (data[0] & 1);
  if (!data.empty()) data = data.subspan(1);
  const std::string path = write_input(data, scratch, jsonl ? "results.jsonl" : "results.csv");
  guarded<std::runtime_error>("results", [&] { read_results(path); });
}

// nvme-cli's JSON output: the SMART, OCP and endurance log parsers.
void nvme_json(std::span<const uint8_t> data, const std::string&) {
  const std::string_view json = as_text(data);
  guarded<std::invalid_argument>("nvme_json",
                                 [&] { parse_smart_log_host_bytes(json, "smart-log"); });
  guarded<std::invalid_argument>("nvme_json", [&] { parse_ocp_media_bytes(json, "ocp"); });
  guarded<std::invalid_argument>("nvme_json", [&] { parse_endurance_log(json, "endurance"); });
}

// A device characterization (flashpq device characterize's CSV).
void characterization(std::span<const uint8_t> data, const std::string& scratch) {
  const std::string path = write_input(data, scratch, "characterization.csv");
  guarded<std::invalid_argument>("characterization", [&] { read_characterization(path); });
}

// A simflash profile file (flashpq device calibrate's YAML).
void simflash_profile(std::span<const uint8_t> data, const std::string& scratch) {
  const std::string path = write_input(data, scratch, "profile.yaml");
  guarded<std::invalid_argument>("simflash_profile", [&] { load_simflash_profile(path); });
}

// A stored trace summary (traces/summary_cache.h). Besides not crashing: a summary it accepts
// formats back to a text that parses to the same summary text.
void trace_summary(std::span<const uint8_t> data, const std::string&) {
  const std::string text(as_text(data));
  guarded<>("trace_summary", [&] {
    TraceSummary s;
    if (!parse_summary(text, "fuzz", s)) return;
    const std::string again = format_summary(s, "fuzz");
    TraceSummary t;
    if (!parse_summary(again, "fuzz", t) || format_summary(t, "fuzz") != again) {
      report_finding("trace_summary", "round trip", "an accepted summary does not format back");
    }
  });
}

// The small value grammars: sizes with units, numbers, booleans, cell ranges, transform lists;
// the first byte picks which.
void values(std::span<const uint8_t> data, const std::string&) {
  const uint8_t which = data.empty() ? 0 : data[0] % 5;
  const std::string text(as_text(data.empty() ? data : data.subspan(1)));
  guarded<std::invalid_argument>("values", [&] {
    switch (which) {
      case 0:
        parse_size(text);
        break;
      case 1: {
        double d;
        int64_t i;
        bool b;
        parse_double(text, &d);
        parse_int(text, &i);
        parse_bool(text, &b);
        break;
      }
      case 2:
        parse_cell_ranges(text);
        break;
      case 3:
        parse_transforms(text);
        break;
      default:
        parse_stale_rule(text);
        break;
    }
  });
}

}  // namespace

const std::vector<FuzzTarget>& fuzz_targets() {
  static const std::vector<FuzzTarget> targets = {
      {kTOracleGeneral, "oracleGeneral traces, plain, zstd or gzip (libCacheSim's binary format)",
       trace_target<kOracleGeneral, kTOracleGeneral>},
      {kTKvcacheCsv, "CacheBench kvcache CSV traces", trace_target<kKvcacheCsv, kTKvcacheCsv>},
      {"trace_csv", "generic CSV traces, column mapping from the first byte", trace_csv},
      {kTTwitter, "Twitter cache traces (CSV)", trace_target<kTwitter, kTTwitter>},
      {kTMsr, "MSR Cambridge block traces (CSV)", trace_target<kMsr, kTMsr>},
      {kTFioIolog, "fio iolog v2 and v3", trace_target<kFioIolog, kTFioIolog>},
      {kTCachelibBlock, "CacheLib block traces (CSV)",
       trace_target<kCachelibBlock, kTCachelibBlock>},
      {kTFpq, "FlashPQ's .fpq trace format", trace_target<kFpq, kTFpq>},
      {kTLcs, "libCacheSim lcs traces (v1-v8)", trace_target<kLcs, kTLcs>},
      {"experiment_yaml", "experiment files and --set overrides (matrix, zip, exclude, units)",
       experiment_yaml},
      {"results", "results files read back by --resume (CSV and JSON Lines)", results},
      {"nvme_json", "nvme-cli JSON (smart-log, OCP smart-add-log, endurance-log)", nvme_json},
      {"characterization", "device characterizations (flashpq device characterize)",
       characterization},
      {"simflash_profile", "simflash profile files (flashpq device calibrate)", simflash_profile},
      {"trace_summary", "stored trace summaries (the summary cache)", trace_summary},
      {"values", "sizes with units, numbers, cell ranges, transform lists, stale rules", values},
      {"cachebench_import",
       "CacheBench JSON configs (flashpq import cachebench) and the experiments they import to",
       cachebench_import_target},
  };
  return targets;
}

const FuzzTarget* find_fuzz_target(const std::string& name) {
  for (const FuzzTarget& t : fuzz_targets()) {
    if (name == t.name) return &t;
  }
  return nullptr;
}

}  // namespace flashpq::fuzz
