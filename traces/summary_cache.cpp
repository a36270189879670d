// traces/summary_cache.cpp — stored trace summaries (traces/summary_cache.h).
#include "traces/summary_cache.h"

#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "fmt/format.h"

namespace flashpq {

namespace {

namespace fs = std::filesystem;

// The stored format's version; a summary of another version is recomputed. 3: YCSB's load phase
// counts as preconditioning requests (a stored summary of version 2 says 0).
constexpr const char* kSummaryMagic = "flashpq-summary 3";

std::string hex64(uint64_t v) {
  return fmt::format("{:016x}", v);
}

// The identity a stored summary must carry: trace_identity() and, for a file, its status.
std::string stored_identity(const TraceConfig& config) {
  std::string id = trace_identity(config);
  const std::string& path = config.path();
  if (path.empty()) return id;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return id + "\x1f(unreadable)";
  std::error_code ec;
  const fs::path canonical = fs::canonical(path, ec);
  return fmt::format("{}\x1f{}\x1f{}\x1f{}\x1f{}", id, ec ? path : canonical.string(),
                     static_cast<uint64_t>(st.st_size),
                     static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec,
                     static_cast<uint64_t>(st.st_ino));
}

// The user cache directory (XDG Base Directory Specification 0.8: $XDG_CACHE_HOME, "If
// $XDG_CACHE_HOME is either not set or empty, a default equal to $HOME/.cache should be used";
// a relative path in it is invalid and ignored), or "" when neither variable is usable.
std::string user_cache_dir() {
  if (const char* x = std::getenv("XDG_CACHE_HOME");
      x != nullptr && *x != '\0' && fs::path(x).is_absolute()) {
    return (fs::path(x) / "flashpq").lexically_normal().string();
  }
  if (const char* h = std::getenv("HOME"); h != nullptr && *h != '\0') {
    return fs::absolute(fs::path(h) / ".cache" / "flashpq").lexically_normal().string();
  }
  return "";
}

constexpr const char* kNoCacheDir =
    "neither XDG_CACHE_HOME nor HOME is set: kept in memory only; --summary-cache DIR stores "
    "summaries";

}  // namespace

std::string trace_identity(const TraceConfig& t) {
  std::string id = t.format;
  const std::string& path = t.path();
  if (!path.empty()) {
    // A file's requests depend on its bytes and the format's keys, not on the cell's seed or
    // device: the path is taken canonical, so "a/../t.zst" and "t.zst" are one trace.
    std::error_code ec;
    const fs::path canonical = fs::weakly_canonical(path, ec);
    for (const auto& [k, v] : t.params.values()) {
      id += '\x1f' + k + '=' + (k == kTracePathKey.name && !ec ? canonical.string() : v);
    }
    return id;
  }
  for (const auto& [k, v] : t.params.values()) id += '\x1f' + k + '=' + v;
  return fmt::format("{}\x1f{}\x1f{}\x1f{}", id, t.seed, t.device.capacity_bytes,
                     t.device.logical_block_bytes);
}

std::string summary_cache_dir(const SummaryCacheOptions& options) {
  if (options.dir.empty()) return user_cache_dir();
  std::error_code ec;
  const fs::path dir = fs::absolute(options.dir, ec);
  return (ec ? fs::path(options.dir) : dir).lexically_normal().string();
}

std::string summary_cache_path(const TraceConfig& config, const SummaryCacheOptions& options) {
  const std::string dir = summary_cache_dir(options);
  if (dir.empty()) return "";
  const std::string id = trace_identity(config);
  const std::string h = hex64(XXH3_64bits(id.data(), id.size()));
  const std::string& path = config.path();
  const std::string stem =
      path.empty() ? std::string("generator") : fs::path(path).filename().string();
  return (fs::path(dir) / fmt::format("{}.{}.flashpq-summary", stem, h)).string();
}

std::string SummaryOrigin::text() const {
  if (from_cache) return "read from the summary cache: " + file;
  if (stored) return "computed (one read of the trace), stored in " + file;
  return "computed (one read of the trace), not stored: " + not_stored;
}

std::string describe_summary_origins(const std::vector<SummaryOrigin>& origins, size_t failed) {
  size_t computed = 0, stored = 0, read = 0;
  std::string stored_dir, read_dir, why;
  for (const SummaryOrigin& o : origins) {
    if (o.from_cache) {
      ++read;
      read_dir = fs::path(o.file).parent_path().string();
    } else {
      ++computed;
      if (o.stored) {
        ++stored;
        stored_dir = fs::path(o.file).parent_path().string();
      } else if (why.empty()) {
        why = o.not_stored;
      }
    }
  }
  std::vector<std::string> parts;
  if (computed != 0) {
    if (stored == computed) {
      parts.push_back(fmt::format("{} summarised (stored in {})", computed, stored_dir));
    } else if (stored == 0) {
      parts.push_back(fmt::format("{} summarised (not stored: {})", computed, why));
    } else {
      parts.push_back(fmt::format("{} summarised ({} stored in {}, {} not: {})", computed, stored,
                                  stored_dir, computed - stored, why));
    }
  }
  if (read != 0) {
    parts.push_back(fmt::format("{} read from the summary cache ({})", read, read_dir));
  }
  if (failed != 0) {
    parts.push_back(fmt::format("{} could not be read (their cells fail with the error)", failed));
  }
  if (parts.empty()) return "traces: none";
  std::string out = "traces: " + parts[0];
  for (size_t i = 1; i < parts.size(); ++i) out += ", " + parts[i];
  return out;
}

std::string format_summary(const TraceSummary& s, const std::string& identity) {
  std::string out = fmt::format("{}\nidentity {}\n", kSummaryMagic,
                                hex64(XXH3_64bits(identity.data(), identity.size())));
  out += fmt::format("requests {}\nunique_objects {}\nworking_set_bytes {}\n", s.requests,
                     s.unique_objects, s.working_set_bytes);
  out += fmt::format("max_object_bytes {}\npreconditioning_requests {}\ncontent_hash {}\nsizes",
                     s.max_object_bytes, s.preconditioning_requests, s.content_hash);
  for (size_t b = 0; b < SizeHistogram::buckets(); ++b) {
    if (s.sizes.bucket_count(b) != 0) out += fmt::format(" {}:{}", b, s.sizes.bucket_count(b));
  }
  out += fmt::format("\nops {} {} {}\none_hit_wonders {}\ntime {} {}\nzipf_alpha {:.17g}\nreuse",
                     s.gets, s.sets, s.deletes, s.one_hit_wonders, s.first_time_ns, s.last_time_ns,
                     s.zipf_alpha);
  for (size_t b = 0; b < s.reuse_log2.size(); ++b) {
    if (s.reuse_log2[b] != 0) out += fmt::format(" {}:{}", b, s.reuse_log2[b]);
  }
  return out + "\nend\n";
}

bool parse_summary(const std::string& text, const std::string& identity, TraceSummary& out) {
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line) || line != kSummaryMagic) return false;
  TraceSummary s;
  // Each of the 13 keys exactly once: a repeated key (13 "reuse" lines) must not stand in for
  // a missing one.
  uint32_t seen = 0;
  int fields = 0;
  bool ended = false;
  try {
    while (std::getline(in, line)) {
      const size_t sp = line.find(' ');
      const std::string key = line.substr(0, sp);
      const std::string value = sp == std::string::npos ? "" : line.substr(sp + 1);
      static constexpr const char* kKeys[] = {"identity",
                                              "requests",
                                              "unique_objects",
                                              "working_set_bytes",
                                              "max_object_bytes",
                                              "preconditioning_requests",
                                              "content_hash",
                                              "sizes",
                                              "ops",
                                              "time",
                                              "one_hit_wonders",
                                              "zipf_alpha",
                                              "reuse"};
      for (uint32_t k = 0; k < std::size(kKeys); ++k) {
        if (key == kKeys[k]) {
          if ((seen & (1u << k)) != 0) return false;
          seen |= 1u << k;
        }
      }
      auto number = [&] {
        size_t used = 0;
        const uint64_t v = std::stoull(value, &used);
        if (used != value.size()) throw std::invalid_argument(value);
        ++fields;
        return v;
      };
      if (key == "identity") {
        if (value != hex64(XXH3_64bits(identity.data(), identity.size()))) return false;
        ++fields;
      } else if (key == "requests") {
        s.requests = number();
      } else if (key == "unique_objects") {
        s.unique_objects = number();
      } else if (key == "working_set_bytes") {
        s.working_set_bytes = number();
      } else if (key == "max_object_bytes") {
        s.max_object_bytes = number();
      } else if (key == "preconditioning_requests") {
        s.preconditioning_requests = number();
      } else if (key == "content_hash") {
        if (value.size() != 16) return false;
        s.content_hash = value;
        ++fields;
      } else if (key == "sizes") {
        std::istringstream pairs(value);
        for (std::string pair; pairs >> pair;) {
          const size_t colon = pair.find(':');
          if (colon == std::string::npos) return false;
          const uint64_t b = std::stoull(pair.substr(0, colon));
          if (b >= SizeHistogram::buckets()) return false;
          s.sizes.add_to_bucket(static_cast<size_t>(b), std::stoull(pair.substr(colon + 1)));
        }
        ++fields;
      } else if (key == "ops" || key == "time") {
        std::istringstream v(value);
        uint64_t a = 0, b = 0, c = 0;
        if (!(v >> a >> b)) return false;
        if (key == "ops") {
          if (!(v >> c)) return false;
          s.gets = a;
          s.sets = b;
          s.deletes = c;
        } else {
          s.first_time_ns = a;
          s.last_time_ns = b;
        }
        ++fields;
      } else if (key == "one_hit_wonders") {
        s.one_hit_wonders = number();
      } else if (key == "zipf_alpha") {
        size_t used = 0;
        s.zipf_alpha = std::stod(value, &used);
        if (used != value.size()) return false;
        ++fields;
      } else if (key == "reuse") {
        std::istringstream pairs(value);
        for (std::string pair; pairs >> pair;) {
          const size_t colon = pair.find(':');
          if (colon == std::string::npos) return false;
          const uint64_t b = std::stoull(pair.substr(0, colon));
          if (b >= s.reuse_log2.size()) return false;
          s.reuse_log2[static_cast<size_t>(b)] = std::stoull(pair.substr(colon + 1));
        }
        ++fields;
      } else if (key == "end") {
        ended = true;
        break;
      } else {
        return false;
      }
    }
  } catch (const std::exception&) {
    return false;
  }
  if (!ended || fields != 13) return false;
  out = std::move(s);
  return true;
}

TraceSummary cached_summary(const TraceConfig& config, const SummaryCacheOptions& options,
                            SummaryOrigin* origin) {
  SummaryOrigin local;
  SummaryOrigin& o = origin != nullptr ? *origin : local;
  o = SummaryOrigin{};
  if (!options.enabled) {
    o.not_stored = "the summary cache is disabled";
    return summarize_trace(config);
  }
  const std::string where = summary_cache_path(config, options);
  if (where.empty()) {
    o.not_stored = kNoCacheDir;
    return summarize_trace(config);
  }
  o.file = where;
  const std::string identity = stored_identity(config);
  {
    std::ifstream in(where, std::ios::binary);
    if (in) {
      std::ostringstream buf;
      buf << in.rdbuf();
      TraceSummary s;
      if (parse_summary(buf.str(), identity, s)) {
        o.from_cache = true;
        return s;
      }
    }
  }
  TraceSummary s = summarize_trace(config);
  // The file's status after the read: a trace written while it was read is not trusted later.
  if (stored_identity(config) != identity) {
    o.not_stored = "the trace changed while it was read";
    return s;
  }
  std::error_code ec;
  const fs::path dir = fs::path(where).parent_path();
  fs::create_directories(dir, ec);
  if (ec) {
    o.not_stored = fmt::format("cannot create {}: {}", dir.string(), ec.message());
    return s;
  }
  const std::string tmp = fmt::format("{}.{}.tmp", where, static_cast<long>(::getpid()));
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) {
      o.not_stored = fmt::format("cannot write {}: {}", tmp, std::strerror(errno));
      return s;
    }
    out << format_summary(s, identity);
    out.flush();
    if (!out) {
      o.not_stored = fmt::format("cannot write {}", tmp);
      fs::remove(tmp, ec);
      return s;
    }
  }
  fs::rename(tmp, where, ec);
  if (ec) {
    o.not_stored = fmt::format("cannot write {}: {}", where, ec.message());
    fs::remove(tmp, ec);
    return s;
  }
  o.stored = true;
  return s;
}

}  // namespace flashpq
