// experiments/import/cachebench.cpp — a CacheBench config as a FlashPQ experiment
// (experiments/import/cachebench.h holds the mapping table and the reasons for it).
#include "experiments/import/cachebench.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "fmt/format.h"
#include "yaml-cpp/yaml.h"

namespace flashpq {

// A namespace of this file's own around the anonymous one: the experiments layer is compiled
// several sources to a unity translation unit (CMakeLists.txt, FLASHPQ_UNITY), where another
// file's anonymous-namespace kMiB (experiments/characterize.cpp) would otherwise meet this one.
namespace cachebench_import_detail {
namespace {

namespace fs = std::filesystem;

constexpr const char* kCommit = "278ffc74e3015608e385a87caba9f65f9d1113dd";
constexpr const char* kUnknown =
    "unknown to CacheBench at commit 278ffc74e301 (ignored by CacheBench too)";
constexpr uint64_t kMiB = uint64_t{1} << 20;
// FlashPQ's ranges (the keys' declarations: traces/generator.h, traces/cachebench.cpp,
// traces/transforms.cpp, engine/{bighash,blockcache,hybrid}/*_config.cpp).
constexpr uint64_t kMaxRequests = uint64_t{1} << 50;
constexpr uint64_t kMaxNumKeys = uint64_t{1} << 40;
constexpr double kMaxSizeEdge = 4294967296.0;
// A MiB count whose bytes stay well inside uint64 (and FlashPQ's size parser).
constexpr uint64_t kMaxMiB = uint64_t{1} << 36;

// ---------------------------------------------------------------------------------------------
// Text helpers.

// CacheBench's folly::json::stripComments: `//` to the end of the line and `/* ... */` outside
// strings. Comment characters become spaces (newlines stay), so every line and column is where
// it was in the file.
std::string strip_comments(const std::string& in) {
  std::string out = in;
  enum { kCode, kString, kLine, kBlock } state = kCode;
  for (size_t i = 0; i < out.size(); ++i) {
    const char c = in[i];
    switch (state) {
      case kCode:
        if (c == '"') {
          state = kString;
        } else if (c == '/' && i + 1 < in.size() && in[i + 1] == '/') {
          state = kLine;
          out[i] = ' ';
        } else if (c == '/' && i + 1 < in.size() && in[i + 1] == '*') {
          state = kBlock;
          out[i] = out[i + 1] = ' ';
          ++i;
        }
        break;
      case kString:
        if (c == '\\') {
          ++i;  // the escaped character stays
        } else if (c == '"') {
          state = kCode;
        }
        break;
      case kLine:
        if (c == '\n') {
          state = kCode;
        } else {
          out[i] = ' ';
        }
        break;
      case kBlock:
        if (c == '*' && i + 1 < in.size() && in[i + 1] == '/') {
          out[i] = out[i + 1] = ' ';
          ++i;
          state = kCode;
        } else if (c != '\n') {
          out[i] = ' ';
        }
        break;
    }
  }
  return out;
}

// Printable ASCII, everything else as \xNN: text from the file that goes into messages, YAML
// comments and the unmapped lines.
std::string printable(const std::string& s, size_t max = 200) {
  std::string out;
  for (const unsigned char c : s) {
    if (out.size() >= max) {
      out += "...";
      break;
    }
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("\\x{:02x}", c);
    }
  }
  return out;
}

// A YAML double-quoted scalar (JSON escapes, which YAML reads the same).
std::string yaml_quote(const std::string& s) {
  std::string out = "\"";
  for (const unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          out += fmt::format("\\x{:02x}", c);
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

// A number for YAML: integers as integers, others in the shortest form that reads back equal.
std::string num_text(double v) {
  if (std::floor(v) == v && std::fabs(v) < 9.007199254740992e15) {
    return fmt::format("{}", static_cast<int64_t>(v));
  }
  return fmt::format("{}", v);
}

// Bytes as FlashPQ's size text: MiB when whole (CacheBench's unit), else plain bytes.
std::string size_text(uint64_t bytes) {
  if (bytes != 0 && bytes % kMiB == 0) return fmt::format("{}MiB", bytes / kMiB);
  return fmt::format("{}", bytes);
}

// "[a, b, c]", broken over lines of at most ~100 columns after `indent` spaces.
std::string flow_list(const std::vector<std::string>& items, size_t indent) {
  std::string out = "[";
  size_t col = indent + 1;
  for (size_t i = 0; i < items.size(); ++i) {
    std::string piece = items[i] + (i + 1 < items.size() ? "," : "");
    if (i != 0) {
      if (col + 1 + piece.size() > 100) {
        out += "\n" + std::string(indent + 1, ' ');
        col = indent + 1;
      } else {
        out += " ";
        ++col;
      }
    }
    out += piece;
    col += piece.size();
  }
  return out + "]";
}

std::vector<std::string> num_texts(const std::vector<double>& v) {
  std::vector<std::string> out;
  out.reserve(v.size());
  for (const double x : v) out.push_back(num_text(x));
  return out;
}

// A JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
bool json_number_syntax(const std::string& s, bool* integral) {
  size_t i = 0;
  const size_t n = s.size();
  if (i < n && s[i] == '-') ++i;
  if (i >= n || !std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  if (s[i] == '0') {
    ++i;
  } else {
    while (i < n && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  }
  *integral = true;
  if (i < n && s[i] == '.') {
    *integral = false;
    ++i;
    if (i >= n || !std::isdigit(static_cast<unsigned char>(s[i]))) return false;
    while (i < n && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  }
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    *integral = false;
    ++i;
    if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
    if (i >= n || !std::isdigit(static_cast<unsigned char>(s[i]))) return false;
    while (i < n && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  }
  return i == n;
}

// ---------------------------------------------------------------------------------------------
// The JSON as read: sections of entries, each taken by the mapping or listed.

struct Entry {
  std::string key;   // as written
  std::string path;  // dotted: "cache_config.navyRegionSizeMB"
  int line = 0;      // 1-based line of the key
  YAML::Node value;
  bool taken = false;
};

class Section {
 public:
  Section() = default;
  Section(std::string path, int line) : path_(std::move(path)), line_(line) {}

  const std::string& path() const { return path_; }
  int line() const { return line_; }
  std::vector<Entry>& entries() { return entries_; }

  void add(Entry e) { entries_.push_back(std::move(e)); }
  /// The entry of `key` (marked taken), or nullptr.
  Entry* take(const std::string& key) {
    for (Entry& e : entries_) {
      if (e.key == key) {
        e.taken = true;
        return &e;
      }
    }
    return nullptr;
  }
  bool has(const std::string& key) const {
    return std::any_of(entries_.begin(), entries_.end(),
                       [&](const Entry& e) { return e.key == key; });
  }

 private:
  std::string path_;
  int line_ = 0;
  std::vector<Entry> entries_;
};

int line_of(const YAML::Node& n, int fallback) {
  if (!n.IsDefined()) return fallback;
  const YAML::Mark m = n.Mark();
  return m.line >= 0 ? m.line + 1 : fallback;
}

// The reasons of the keys that are never mapped (navy-spec §6.2, §6.3).
const std::map<std::string, std::string>& cache_config_reasons() {
  static const std::map<std::string, std::string> m = {
      {"cacheDir",
       "persists the cache across runs (shared memory); every FlashPQ cell starts empty"},
      {"poolRebalanceIntervalSec",
       "slab rebalancing between pools and allocation classes: FlashPQ's DRAM has no slabs"},
      {"rebalanceStrategy",
       "slab rebalancing between pools and allocation classes: FlashPQ's DRAM has no slabs"},
      {"rebalanceMinSlabs",
       "slab rebalancing between pools and allocation classes: FlashPQ's DRAM has no slabs"},
      {"rebalanceDiffRatio",
       "slab rebalancing between pools and allocation classes: FlashPQ's DRAM has no slabs"},
      {"moveOnSlabRelease",
       "slab rebalancing between pools and allocation classes: FlashPQ's DRAM has no slabs"},
      {"htBucketPower",
       "CacheLib's DRAM hash table size: FlashPQ's index is exact, the size changes nothing "
       "cached"},
      {"htLockPower", "CacheLib's DRAM hash table locks: FlashPQ is single-threaded"},
      {"mmReconfigureIntervalSecs",
       "CacheLib's periodic reconfiguration of the LRU refresh time: FlashPQ's LRU promotes "
       "every hit"},
      {"lruRefreshSec",
       "MMLru promotes a hit only if its item was last promoted more than this many seconds "
       "ago: FlashPQ's LRU promotes every hit"},
      {"lruRefreshRatio",
       "MMLru's refresh time as a share of the tail age: FlashPQ's LRU promotes every hit"},
      {"lruUpdateOnWrite",
       "MMLru's promotion of items found for writing: FlashPQ's sets replace the object"},
      {"tryLockUpdate", "CacheLib's try-lock on promotion: FlashPQ is single-threaded"},
      {"useCombinedLockForIterators", "CacheLib's locking of iterators: no effect on caching"},
      {"lru2qHotPct",
       "MM2Q's hot queue share: FlashPQ's twoq runs at its keys' defaults (or the allocator is "
       "not 2Q)"},
      {"lru2qColdPct",
       "MM2Q's cold queue share: FlashPQ's twoq runs at its keys' defaults (or the allocator is "
       "not 2Q)"},
      {"allocFactor",
       "DRAM slab allocation classes: FlashPQ's DRAM counts each object's key + value bytes "
       "exactly, with no class rounding or item header"},
      {"maxAllocSize",
       "DRAM slab allocation classes: FlashPQ's DRAM counts each object's key + value bytes "
       "exactly, with no class rounding or item header"},
      {"minAllocSize",
       "DRAM slab allocation classes: FlashPQ's DRAM counts each object's key + value bytes "
       "exactly, with no class rounding or item header"},
      {"allocSizes",
       "DRAM slab allocation classes: FlashPQ's DRAM counts each object's key + value bytes "
       "exactly, with no class rounding or item header"},
      {"writeAmpDeviceList",
       "the NVMe drives CacheBench reads NAND writes from for 'dev WA': FlashPQ's device WA "
       "comes from simflash's FTL, or device.nvme_counters on device block"},
      {"navyReqOrderShardsPower",
       "navy's request-ordering shards (concurrency): FlashPQ's engines are synchronous "
       "(navy-spec's deterministic model)"},
      {"navyParcelMemoryMB",
       "navy's in-flight insert memory limit: never binds in a synchronous model (navy-spec "
       "§4.2)"},
      {"navyEnableItemHistoryTracking",
       "SparseMapIndex item history instead of hit counts: FlashPQ's index keeps hit counts "
       "(navy-spec §2.8)"},
      {"navyReaderThreads", "navy's reader threads: FlashPQ's engines are synchronous"},
      {"navyWriterThreads", "navy's writer threads: FlashPQ's engines are synchronous"},
      {"navyMaxNumReads",
       "navy's asynchronous I/O: FlashPQ's engines are synchronous (I/O concurrency is the "
       "device's: simflash timed, device.queue_depth on block)"},
      {"navyMaxNumWrites",
       "navy's asynchronous I/O: FlashPQ's engines are synchronous (I/O concurrency is the "
       "device's: simflash timed, device.queue_depth on block)"},
      {"navyStackSizeKB", "navy's fiber stacks (asynchronous I/O): FlashPQ is synchronous"},
      {"navyQDepth",
       "navy's asynchronous I/O queue depth: FlashPQ's engines are synchronous (device.queue_depth "
       "on device block)"},
      {"navyEnableIoUring", "navy's I/O engine: FlashPQ's I/O engine is device.engine on block"},
      {"navyCleanRegionThreads",
       "threads that reclaim regions: FlashPQ completes each reclaim before the next request"},
      {"navyMaxConcurrentInserts",
       "navy's in-flight insert limit: never binds in a synchronous model (navy-spec §4.2)"},
      {"navyDataChecksum", "checksums cost CPU, not bytes (navy-spec §2.1)"},
      {"truncateItemToOriginalAllocSizeInNvm",
       "the NVM item is the requested size instead of the DRAM allocation's (navy-spec §5): "
       "FlashPQ's flash objects are key + value bytes either way"},
      {"navyEncryption", "navy's encryption (a C++ encryptor): no effect on bytes"},
      {"deviceMaxWriteSize",
       "the split of large writes on file devices: FlashPQ writes regions whole "
       "(device.max_io_size splits I/Os on device block)"},
      {"deviceEnableFDP", "NVMe flexible data placement: not modelled"},
      {"navyEnableAccessTimeMap", "navy's access-time map (a DRAM side table): not modelled"},
      {"navyAccessTimeMapMaxSize", "navy's access-time map (a DRAM side table): not modelled"},
      {"memoryOnlyTTL", "TTLs: FlashPQ's requests carry none"},
      {"usePosixShm", "the DRAM cache's backing memory: no effect on what is cached"},
      {"shmType", "the DRAM cache's backing memory: no effect on what is cached"},
      {"hugePageSize", "the DRAM cache's backing memory: no effect on what is cached"},
      {"hugePageMountDir", "the DRAM cache's backing memory: no effect on what is cached"},
      {"lockMemory", "the DRAM cache's backing memory: no effect on what is cached"},
      {"memoryTiers", "CacheLib's DRAM memory tiers (NUMA nodes): FlashPQ's DRAM tier is one"},
      {"useTraceTimeStamp", "the cache's clock from trace timestamps (TTLs): no TTLs in FlashPQ"},
      {"printNvmCounters",
       "what CacheBench prints: FlashPQ's columns are docs/reference/columns.md"},
      {"tickerSynchingSeconds", "the clock of CacheBench's statistics: not modelled"},
      {"enableItemDestructorCheck", "item destructor callbacks: FlashPQ keeps no values"},
      {"enableItemDestructor", "item destructor callbacks: FlashPQ keeps no values"},
      {"nvmAdmissionRetentionTimeThreshold",
       "RetentionAP rejects DRAM victims older than this many seconds; FlashPQ's "
       "tiers.flash_admission retention counts the age in requests (tiers.retention_requests): "
       "convert it with the request rate"},
      {"eventTrackerFilePath", "event tracking (a log): not modelled"},
      {"eventTrackerSamplingRate", "event tracking (a log): not modelled"},
      {"eventTrackerQueueSize", "event tracking (a log): not modelled"},
      {"fccCoroFiberAdapterNumThreads", "the cache_component stressor only"},
      {"fccCoroFiberAdapterFibersPerThread", "the cache_component stressor only"},
      {"fccCoroFiberAdapterStackSizeKB", "the cache_component stressor only"},
      {"customConfigJson", "free-form input to C++ hooks: not modelled"},
      {"navyNumInmemBuffers",
       "deleted from CacheBench in commit 59fd36be2 (ignored by CacheBench too): navy keeps 2 x "
       "navyCleanRegions in-memory buffers (navy-spec §2.1), as FlashPQ"},
  };
  return m;
}

const std::map<std::string, std::string>& test_config_reasons() {
  static const std::map<std::string, std::string> m = {
      {"samplingIntervalMs",
       "CacheBench's progress line: FlashPQ writes interval statistics of timed cells with "
       "stats.interval_s"},
      {"maxInconsistencyCount", "consistency checking of values: FlashPQ keeps no values"},
      {"cachePieceSize", "piecewise caching (generator piecewise-replay): not modelled"},
      {"maxCachePieces", "piecewise caching (generator piecewise-replay): not modelled"},
      {"missTraceFile", "CacheBench writes its misses to this file: not modelled"},
      {"maxInvalidDestructorCount", "item destructor checks: FlashPQ keeps no values"},
      {"checkNvmCacheWarmUp",
       "CacheBench's check that NVM is warm before measuring: FlashPQ's warm-up is the "
       "experiment's warmup (a fraction of the requests)"},
      {"nvmCacheWarmupCheckPolicy",
       "CacheBench's check that NVM is warm before measuring: FlashPQ's warm-up is the "
       "experiment's warmup (a fraction of the requests)"},
      {"useCombinedLockForIterators", "CacheLib's locking of iterators: no effect on caching"},
      {"dramIteratorMode", "DRAM iterator sweeps (background scans of DRAM): not modelled"},
      {"dramIteratorIntervalMs", "DRAM iterator sweeps (background scans of DRAM): not modelled"},
      {"dramIteratorSleepMs", "DRAM iterator sweeps (background scans of DRAM): not modelled"},
      {"dramIteratorWorkMs", "DRAM iterator sweeps (background scans of DRAM): not modelled"},
      {"populateItem",
       "CacheBench writes the value bytes: FlashPQ keeps no values (no effect on caching)"},
  };
  return m;
}

const std::map<std::string, std::string>& replay_config_reasons() {
  static const std::map<std::string, std::string> m = {
      {"ampSizeFactor",
       "scales value sizes only when CacheBench writes a binary trace "
       "(binaryFileName): no effect on the replay"},
      {"binaryFileName", "CacheBench writes a binary trace to this file: not modelled"},
      {"preLoadReqs", "requests queued before the replay starts: no effect on their order"},
      {"replaySerializationMode",
       "how CacheBench's replay threads order requests of one key: FlashPQ replays one stream in "
       "order"},
      {"relaxedSerialIntervalMs",
       "how CacheBench's replay threads order requests of one key: FlashPQ replays one stream in "
       "order"},
      {"numAggregationFields", "per-field statistics of the trace's extra columns: not modelled"},
      {"numExtraFields", "per-field statistics of the trace's extra columns: not modelled"},
      {"statsPerAggField", "per-field statistics of the trace's extra columns: not modelled"},
      {"mlAdmissionConfig", "an ML admission model: not modelled"},
      {"blockSizeKB",
       "block-replay's block size: FlashPQ's cachelib_block reader keeps each "
       "request whole (the split_blocks transform splits them)"},
      {"chunkSizeKB",
       "block-replay's chunk size: FlashPQ's cachelib_block reader keeps each "
       "request whole (the split_blocks transform splits them)"},
  };
  return m;
}

// The DistributionConfig keys (Config.cpp:223-281).
const std::vector<std::string>& distribution_keys() {
  static const std::vector<std::string> k = {"keySizeRange",
                                             "keySizeRangeProbability",
                                             "valSizeRange",
                                             "valSizeRangeProbability",
                                             "valSizeDistFile",
                                             "chainedItemLengthRange",
                                             "chainedItemLengthRangeProbability",
                                             "chainedItemValSizeRange",
                                             "chainedItemValSizeRangeProbability",
                                             "ttlSecsRange",
                                             "ttlSecsRangeProbability",
                                             "popularityBuckets",
                                             "popularityWeights",
                                             "popDistFile",
                                             "getRatio",
                                             "setRatio",
                                             "delRatio",
                                             "addChainedRatio",
                                             "loneGetRatio",
                                             "loneSetRatio",
                                             "updateRatio",
                                             "couldExistRatio",
                                             "useLegacyKeyGen"};
  return k;
}
bool is_distribution_key(const std::string& k) {
  const auto& d = distribution_keys();
  return std::find(d.begin(), d.end(), k) != d.end();
}

// The cache_config keys that configure NVM: no effect when nvmCacheSizeMB is 0.
bool is_nvm_key(const std::string& k) {
  return (k.rfind("navy", 0) == 0 || k.rfind("nvm", 0) == 0 || k.rfind("device", 0) == 0 ||
          k == "truncateItemToOriginalAllocSizeInNvm" || k == "writeAmpDeviceList") &&
         k != "nvmCacheSizeMB";
}

// ---------------------------------------------------------------------------------------------
// The importer.

struct Output {
  // Lines of the YAML body, in order: "KEY: VALUE" within each section, with an optional
  // comment.
  struct Line {
    std::string key, value, comment;
  };
  std::vector<std::pair<std::string, std::vector<Line>>> sections;

  std::vector<Line>& section(const std::string& name) {
    for (auto& s : sections) {
      if (s.first == name) return s.second;
    }
    sections.push_back({name, {}});
    return sections.back().second;
  }
  void set(const std::string& sec, const std::string& key, const std::string& value,
           const std::string& comment = "") {
    section(sec).push_back({key, value, comment});
  }
};

class Importer {
 public:
  Importer(std::string source, std::string config_dir)
      : source_(std::move(source)), config_dir_(std::move(config_dir)) {
    if (config_dir_.empty()) config_dir_ = ".";
  }

  CachebenchImport run(const std::string& text) {
    YAML::Node root = parse(text, source_);
    if (root.IsSequence()) {
      if (root.size() == 0) {
        fail_at(line_of(root, 1), "",
                "expected a JSON object {\"cache_config\": {...}, \"test_config\": {...}}, or "
                "an array of them, found an empty array");
      }
      for (size_t i = 1; i < root.size(); ++i) {
        unmapped_.push_back({line_of(root[i], 1), order_++,
                             fmt::format("[{}] (instance {} of {}): CacheBench runs the "
                                         "instances side by side; FlashPQ imports the first "
                                         "(import each instance from a file of its own)",
                                         i, i + 1, root.size())});
      }
    }
    // A new handle (yaml-cpp's operator= would overwrite the node it refers to).
    const YAML::Node config = root.IsSequence() ? root[0] : root;
    if (!config.IsMap()) {
      fail_at(line_of(config, 1), "",
              "expected a JSON object {\"cache_config\": {...}, \"test_config\": {...}}");
    }
    Section top = section_of(config, "", line_of(config, 1));
    Entry* cc_entry = top.take("cache_config");
    Entry* tc_entry = top.take("test_config");
    for (Entry& e : top.entries()) {
      if (!e.taken) list(e, kUnknown);
    }
    if (tc_entry == nullptr) {
      fail_at(top.line(), "test_config",
              "expected an object (CacheBench reads configJson[\"test_config\"], "
              "Config.cpp:188), found none");
    }
    if (!tc_entry->value.IsMap()) fail(*tc_entry, "an object");
    if (cc_entry != nullptr && !cc_entry->value.IsMap()) fail(*cc_entry, "an object");
    Section cc = cc_entry != nullptr ? section_of(cc_entry->value, "cache_config", cc_entry->line)
                                     : Section("cache_config", top.line());
    Section tc = section_of(tc_entry->value, "test_config", tc_entry->line);

    test_config(tc);  // first: the base directory and the generator
    cache_config(cc);
    finish(cc, cache_config_reasons());
    finish(tc, test_config_reasons());
    return render();
  }

 private:
  struct Listed {
    int line;
    size_t order;
    std::string text;
  };

  // ----- reading ------------------------------------------------------------------------------

  YAML::Node parse(const std::string& text, const std::string& name) {
    try {
      return YAML::Load(strip_comments(text));
    } catch (const YAML::Exception& e) {
      const int line = e.mark.line >= 0 ? e.mark.line + 1 : 1;
      const int col = e.mark.column >= 0 ? e.mark.column + 1 : 1;
      throw std::invalid_argument(
          fmt::format("{}:{}:{}: malformed JSON: {}", name, line, col, printable(e.msg)));
    }
  }

  [[noreturn]] void fail_at(int line, const std::string& key, const std::string& what) const {
    if (key.empty()) throw std::invalid_argument(fmt::format("{}:{}: {}", source_, line, what));
    throw std::invalid_argument(
        fmt::format("{}:{}: key '{}': {}", source_, line, printable(key), what));
  }
  // "expected WHAT, found 'VALUE'"
  [[noreturn]] void fail(const Entry& e, const std::string& expected) const {
    fail_at(line_of(e.value, e.line), e.path,
            fmt::format("expected {}, found {}", expected, shown(e.value)));
  }
  [[noreturn]] void fail_note(const Entry& e, const std::string& what) const {
    fail_at(line_of(e.value, e.line), e.path, what);
  }

  // The value as found, for messages: 'text', an array or an object in short.
  static std::string shown(const YAML::Node& n) { return "'" + compact(n, 60) + "'"; }
  static std::string compact(const YAML::Node& n, size_t max, int depth = 0) {
    std::string out;
    if (!n.IsDefined() || n.IsNull()) {
      out = "null";
    } else if (n.IsScalar()) {
      out = n.Tag() == "!" ? "\"" + n.Scalar() + "\"" : n.Scalar();
    } else if (n.IsSequence()) {
      out = "[";
      for (size_t i = 0; i < n.size(); ++i) {
        if (out.size() > max || depth >= 2) {
          out += "...";
          break;
        }
        if (i) out += ", ";
        out += compact(n[i], max, depth + 1);
      }
      out += "]";
    } else if (n.IsMap()) {
      out = "{";
      bool first = true;
      for (const auto& kv : n) {
        if (out.size() > max || depth >= 2) {
          out += "...";
          break;
        }
        if (!first) out += ", ";
        first = false;
        out += (kv.first.IsScalar() ? kv.first.Scalar() : std::string("?")) + ": " +
               compact(kv.second, max, depth + 1);
      }
      out += "}";
    }
    return printable(out, max);
  }

  Section section_of(const YAML::Node& map, const std::string& path, int line) {
    Section s(path, line);
    std::map<std::string, int> seen;
    for (const auto& kv : map) {
      const int kline = line_of(kv.first, line);
      if (!kv.first.IsScalar()) {
        fail_at(kline, path, "expected string keys (JSON object), found a key that is not");
      }
      const std::string key = kv.first.Scalar();
      const std::string full = path.empty() ? key : path + "." + key;
      if (const auto it = seen.find(key); it != seen.end()) {
        fail_at(kline, full,
                fmt::format("written twice (also on line {}): CacheBench would keep one of "
                            "them silently; remove the other",
                            it->second));
      }
      seen[key] = kline;
      s.add(Entry{key, full, kline, kv.second, false});
    }
    return s;
  }

  bool is_null(const YAML::Node& n) const { return !n.IsDefined() || n.IsNull(); }

  // A number (JSON syntax).
  double number(const Entry& e, const YAML::Node& n, const std::string& what) const {
    bool integral = false;
    if (!n.IsScalar() || n.Tag() == "!" || !json_number_syntax(n.Scalar(), &integral)) {
      fail_at(line_of(n, e.line), e.path, fmt::format("expected {}, found {}", what, shown(n)));
    }
    const double v = std::strtod(n.Scalar().c_str(), nullptr);
    if (!std::isfinite(v)) {
      fail_at(line_of(n, e.line), e.path, fmt::format("expected {}, found {}", what, shown(n)));
    }
    return v;
  }
  double to_double(const Entry& e, double lo = 0, double hi = 1e300) const {
    const std::string what = hi >= 1e300
                                 ? fmt::format("a number >= {}", num_text(lo))
                                 : fmt::format("a number in [{}, {}]", num_text(lo), num_text(hi));
    const double v = number(e, e.value, what);
    if (!(v >= lo && v <= hi)) fail(e, what);
    return v;
  }
  // A non-negative integer (CacheBench's uint fields read with folly's asInt: an integral
  // double is accepted, as folly converts it).
  uint64_t uint_of(const Entry& e, const YAML::Node& n, uint64_t hi,
                   const std::string& what) const {
    bool integral = false;
    if (!n.IsScalar() || n.Tag() == "!" || !json_number_syntax(n.Scalar(), &integral)) {
      fail_at(line_of(n, e.line), e.path, fmt::format("expected {}, found {}", what, shown(n)));
    }
    const std::string& s = n.Scalar();
    uint64_t v = 0;
    if (integral) {
      if (s[0] == '-') {
        fail_at(line_of(n, e.line), e.path, fmt::format("expected {}, found {}", what, shown(n)));
      }
      const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
      if (r.ec != std::errc()) {
        fail_at(line_of(n, e.line), e.path, fmt::format("expected {}, found {}", what, shown(n)));
      }
    } else {
      const double d = std::strtod(s.c_str(), nullptr);
      if (!(d >= 0 && d < 1.8e19 && std::floor(d) == d)) {
        fail_at(line_of(n, e.line), e.path, fmt::format("expected {}, found {}", what, shown(n)));
      }
      v = static_cast<uint64_t>(d);
    }
    if (v > hi) {
      fail_at(line_of(n, e.line), e.path, fmt::format("expected {}, found {}", what, shown(n)));
    }
    return v;
  }
  uint64_t to_uint(const Entry& e, uint64_t lo = 0, uint64_t hi = UINT64_MAX) const {
    const std::string what = hi == UINT64_MAX ? (lo == 0 ? std::string("a non-negative integer")
                                                         : fmt::format("an integer >= {}", lo))
                                              : fmt::format("an integer in [{}, {}]", lo, hi);
    const uint64_t v = uint_of(e, e.value, hi, what);
    if (v < lo) fail(e, what);
    return v;
  }
  bool to_bool(const Entry& e) const {
    if (e.value.IsScalar() && e.value.Tag() != "!") {
      const std::string& s = e.value.Scalar();
      if (s == "true") return true;
      if (s == "false") return false;
      bool integral = false;
      // folly's asBool converts numbers: 0 is false, any other true.
      if (json_number_syntax(s, &integral)) return std::strtod(s.c_str(), nullptr) != 0;
    }
    fail(e, "true or false");
  }
  std::string to_string(const Entry& e) const {
    if (!e.value.IsScalar() || is_null(e.value)) fail(e, "a string");
    return e.value.Scalar();
  }
  std::vector<double> to_numbers(const Entry& e) const {
    if (!e.value.IsSequence()) fail(e, "an array of numbers");
    std::vector<double> out;
    for (size_t i = 0; i < e.value.size(); ++i) {
      out.push_back(number(e, e.value[i], "an array of numbers"));
    }
    return out;
  }
  std::vector<uint64_t> to_uints(const Entry& e, uint64_t hi) const {
    if (!e.value.IsSequence()) fail(e, "an array of non-negative integers");
    std::vector<uint64_t> out;
    for (size_t i = 0; i < e.value.size(); ++i) {
      out.push_back(uint_of(e, e.value[i], hi, fmt::format("an array of integers in [0, {}]", hi)));
    }
    return out;
  }
  std::vector<std::string> to_strings(const Entry& e) const {
    if (!e.value.IsSequence()) fail(e, "an array of strings");
    std::vector<std::string> out;
    for (size_t i = 0; i < e.value.size(); ++i) {
      const YAML::Node n = e.value[i];
      if (!n.IsScalar() || is_null(n)) {
        fail_at(line_of(n, e.line), e.path,
                fmt::format("expected an array of strings, found {}", shown(e.value)));
      }
      out.push_back(n.Scalar());
    }
    return out;
  }

  // ----- listing ------------------------------------------------------------------------------

  void list(const Entry& e, const std::string& why) {
    unmapped_.push_back({e.line, order_++,
                         fmt::format("{} ({}): {}", printable(e.path), compact(e.value, 40), why)});
  }
  void note(const std::string& text) { notes_.push_back(text); }

  // Lists every key of `s` not taken: its reason from `reasons`, else unknown.
  void finish(Section& s, const std::map<std::string, std::string>& reasons) {
    for (Entry& e : s.entries()) {
      if (e.taken) continue;
      e.taken = true;
      const auto it = reasons.find(e.key);
      list(e, it != reasons.end() ? it->second : kUnknown);
    }
  }

  // ----- files --------------------------------------------------------------------------------

  // `name` against the base directory (configPath, else config_dir), absolute.
  std::string resolve(const std::string& name) const {
    fs::path p(name);
    if (p.is_relative()) p = fs::path(base_dir_) / p;
    std::error_code ec;
    fs::path abs = fs::absolute(p, ec);
    if (ec) abs = p;
    return abs.lexically_normal().string();
  }
  void require_file(const Entry& e, const std::string& name, const std::string& path) const {
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) {
      fail_note(
          e, fmt::format("'{}' resolves to {} (from {}), which is not a readable file",
                         printable(name), printable(path),
                         configpath_given_ ? "test_config.configPath" : "the config's directory"));
    }
  }
  std::string read_file(const Entry& e, const std::string& name, const std::string& path) const {
    require_file(e, name, path);
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    if (!in.good() && !in.eof()) fail_note(e, fmt::format("cannot read {}", printable(path)));
    std::string text = ss.str();
    if (text.size() > (size_t{64} << 20)) {
      fail_note(e,
                fmt::format("{} is larger than 64 MiB: not a distribution file", printable(path)));
    }
    return text;
  }

  // ----- test_config --------------------------------------------------------------------------

  void test_config(Section& tc) {
    // configPath: the base of relative files (Config.cpp:188-199).
    base_dir_ = config_dir_;
    if (Entry* e = tc.take("configPath")) {
      const std::string p = to_string(*e);
      if (!p.empty()) {
        configpath_given_ = true;
        fs::path path(p);
        base_dir_ = path.is_absolute() ? p : (fs::path(config_dir_) / path).string();
        if (path.is_relative()) {
          note(
              fmt::format("test_config.configPath '{}' is relative: resolved against the "
                          "config's directory (CacheBench takes it from its working directory)",
                          printable(p)));
        }
      }
    }
    if (Entry* e = tc.take("name")) {
      const std::string n = to_string(*e);
      if (n == "async") {
        list(*e,
             "CacheBench's asynchronous API stressor: the same workload, which FlashPQ "
             "replays synchronously");
      } else if (!n.empty()) {
        fail(*e,
             "'' or 'async' (the special stressors high_refcount, cachelib_map, "
             "cachelib_range_map, fast_shutdown, object_cache and cache_component test "
             "CacheLib's internals, not a workload FlashPQ can replay)");
      }
    }
    generator_ = "workload";
    if (Entry* e = tc.take("generator")) {
      const std::string g = to_string(*e);
      if (g.empty() || g == "workload" || g == "online") {
        generator_ = g.empty() ? "workload" : g;
      } else if (g == "replay" || g == "block-replay") {
        generator_ = g;
      } else if (g == "binary-replay" || g == "piecewise-replay" || g == "simple-flash-benchmark") {
        fail(*e, "workload, online, replay or block-replay (FlashPQ has no reader for " + g +
                     "'s input)");
      } else {
        fail(*e,
             "one of workload, online, replay, block-replay, binary-replay, "
             "piecewise-replay, simple-flash-benchmark (runner/Stressor.cpp:148-167)");
      }
    }
    const bool replay = generator_ == "replay" || generator_ == "block-replay";

    // numOps × numThreads.
    Entry* ops = tc.take("numOps");
    Entry* threads = tc.take("numThreads");
    if (ops == nullptr)
      fail_at(tc.line(), "test_config.numOps",
              "expected operations per "
              "thread (CacheBench's default 0 runs nothing), found none");
    if (threads == nullptr)
      fail_at(tc.line(), "test_config.numThreads",
              "expected the number "
              "of threads (CacheBench's default 0 runs nothing), found none");
    num_ops_ = to_uint(*ops, 1);
    num_threads_ = to_uint(*threads, 1);
    if (num_ops_ > kMaxRequests / num_threads_) {
      fail_note(*ops, fmt::format("numOps {} x numThreads {} exceeds FlashPQ's largest "
                                  "trace.requests, 2^50",
                                  num_ops_, num_threads_));
    }
    requests_ = num_ops_ * num_threads_;

    // Pools of the workload (checked against numPools in cache_config()).
    if (Entry* e = tc.take("keyPoolDistribution")) {
      key_pools_ = to_numbers(*e).size();
      if (key_pools_ > 1) {
        list(*e,
             "CacheBench splits the key space among the DRAM pools, each key range with "
             "its own popularity; FlashPQ's generator has one pool over all keys");
      }
    }
    if (Entry* e = tc.take("opPoolDistribution")) {
      op_pools_ = to_numbers(*e).size();
      if (op_pools_ > 1) {
        list(*e,
             "CacheBench sends each operation to a pool drawn from these shares; FlashPQ's "
             "generator has one pool");
      }
    }

    // Booleans whose false is FlashPQ's behaviour.
    if (Entry* e = tc.take("enableLookaside")) {
      if (!to_bool(*e)) {
        list(*e,
             "without it a get that misses inserts nothing; every FlashPQ cache is "
             "read-through (a get miss inserts the object, as enableLookaside: true)");
      }
    }
    if (!tc.has("enableLookaside")) {
      note(
          "test_config.enableLookaside is absent (CacheBench's default false: a get that misses "
          "inserts nothing); FlashPQ's caches are read-through: a get miss inserts the object, "
          "as enableLookaside: true");
    }
    struct Flag {
      const char* key;
      const char* why;
    };
    for (const Flag& f : {
             Flag{"onlySetIfMiss",
                  "a set first looks the key up and is skipped when it is "
                  "cached (the lookup counts as a get); FlashPQ's sets always "
                  "write"},
             Flag{"checkConsistency", "consistency checking of values: FlashPQ keeps no values"},
             Flag{"touchValue",
                  "CacheBench reads the value bytes of every hit: FlashPQ keeps "
                  "no values (no effect on caching)"},
         }) {
      if (Entry* e = tc.take(f.key)) {
        if (to_bool(*e)) list(*e, f.why);
      }
    }
    if (Entry* e = tc.take("ignoreOpCount")) {
      if (to_bool(*e)) {
        list(*e, replay ? "CacheBench replays each row once; FlashPQ's reader repeats a row "
                          "op_count times"
                        : "no effect with generator " + generator_ +
                              " (op counts are a "
                              "replay's)");
      }
    }

    // Delays and rates.
    Entry* delay_ns = tc.take("opDelayNs");
    Entry* delay_batch = tc.take("opDelayBatch");
    const uint64_t dns = delay_ns ? to_uint(*delay_ns) : 0;
    const uint64_t dbatch = delay_batch ? to_uint(*delay_batch) : 0;
    if (dns != 0 && dbatch != 0) {
      const double ceiling = static_cast<double>(num_threads_) * static_cast<double>(dbatch) * 1e9 /
                             static_cast<double>(dns);
      const std::string why = fmt::format(
          "each thread sleeps opDelayNs ({} ns) after every opDelayBatch ({}) operations: at "
          "most {} requests/s over {} threads, a closed-loop pause rather than a rate; FlashPQ's "
          "request times come from trace.rate",
          dns, dbatch, num_text(std::round(ceiling)), num_threads_);
      list(*delay_ns, why);
      list(*delay_batch, why);
    } else {
      const std::string why =
          "no effect: CacheBench pauses only when opDelayNs and opDelayBatch "
          "are both non-zero";
      if (delay_ns && dns != 0) list(*delay_ns, why);
      if (delay_batch && dbatch != 0) list(*delay_batch, why);
    }
    if (Entry* e = tc.take("opRatePerSec")) {
      rate_ = to_uint(*e);
      if (rate_ > 1000000000000ull) fail(*e, "an integer in [0, 10^12] (FlashPQ's trace.rate)");
      if (rate_ != 0 && replay) {
        list(*e,
             "CacheBench throttles the replay to this rate; FlashPQ's trace file gives the "
             "request times (op_time; a timed cell can set timing.arrival: token_bucket, "
             "timing.rate)");
        rate_ = 0;
      }
    }
    if (Entry* e = tc.take("opRateBurstSize")) {
      const uint64_t burst = to_uint(*e);
      if (burst != 0) {
        list(*e, rate_ == 0 ? "no effect without opRatePerSec"
                            : "the token bucket's burst: FlashPQ's trace.rate spaces requests "
                              "evenly; a timed cell (timing.mode simulated on simflash) can use "
                              "timing.arrival: token_bucket with timing.rate and timing.burst");
      }
    }

    // The workload: a generator or a trace.
    if (replay) {
      trace_replay(tc);
    } else {
      trace_generator(tc);
    }
  }

  // A distribution section: test_config itself, or poolDistributions[0].
  void trace_generator(Section& tc) {
    Section* dist = &tc;
    std::optional<Section> first;
    if (Entry* e = tc.take("poolDistributions")) {
      if (!e->value.IsSequence() || e->value.size() == 0) {
        fail(*e, "a non-empty array of distribution objects");
      }
      for (size_t i = 0; i < e->value.size(); ++i) {
        const YAML::Node d = e->value[i];
        if (!d.IsMap()) {
          fail_at(line_of(d, e->line), e->path + fmt::format("[{}]", i),
                  fmt::format("expected an object, found {}", shown(d)));
        }
        if (i > 0) {
          unmapped_.push_back(
              {line_of(d, e->line), order_++,
               fmt::format("{}[{}] ({}): the distribution of pool {}: FlashPQ's generator has "
                           "one pool (the first distribution)",
                           e->path, i, compact(d, 40), i)});
        }
      }
      first.emplace(section_of(e->value[0], e->path + "[0]", line_of(e->value[0], e->line)));
      dist = &*first;
      for (Entry& k : tc.entries()) {
        if (!k.taken && is_distribution_key(k.key)) {
          k.taken = true;
          list(k,
               "ignored by CacheBench too: poolDistributions is given, and CacheBench reads "
               "the distributions from it (Config.cpp:112-118)");
        }
      }
    }

    // numKeys.
    Entry* keys = tc.take("numKeys");
    if (keys == nullptr) {
      fail_at(tc.line(), "test_config.numKeys",
              "expected the number of keys (CacheBench's default 0 has no key to request), "
              "found none");
    }
    uint64_t num_keys = to_uint(*keys, 1);
    if (generator_ == "workload" && num_keys > std::numeric_limits<uint32_t>::max()) {
      fail(*keys, "at most 2^32 - 1 keys (WorkloadGenerator.cpp:39-43 refuses more)");
    }
    std::string keys_comment = "numKeys";
    if (num_keys > kMaxNumKeys) {
      note(
          fmt::format("test_config.numKeys {} exceeds FlashPQ's largest trace.num_keys: "
                      "clamped to 2^40 = {}",
                      num_keys, kMaxNumKeys));
      keys_comment = fmt::format("numKeys {}, clamped to FlashPQ's 2^40", num_keys);
      num_keys = kMaxNumKeys;
    }

    out_.set("trace", "format", "generator");
    out_.set("trace", "generator", "cachebench",
             generator_ == "online" ? "generator online: the same distributions, drawn per "
                                      "request"
                                    : "CacheBench's workload generator");
    out_.set("trace", "requests", fmt::format("{}", requests_),
             fmt::format("numOps {} x numThreads {}", num_ops_, num_threads_));
    out_.set("trace", "num_keys", fmt::format("{}", num_keys), keys_comment);
    num_keys_ = num_keys;
    distribution(*dist);
    out_.set("trace", "popularity", "normal", "CacheBench's popularity without popularityBuckets");
    if (rate_ != 0) {
      out_.set("trace", "rate", fmt::format("{}", rate_), "opRatePerSec");
      out_.set("trace", "arrival", "constant");
    }
    if (first) finish(*first, {});

    // The replay's keys have no effect on a generator.
    for (const char* k : {"traceFileName", "traceFileNames", "repeatTraceReplay", "timestampFactor",
                          "replayGeneratorConfig"}) {
      if (Entry* e = tc.take(k)) {
        list(*e, "no effect with generator " + generator_ + " (a replay's key)");
      }
    }
  }

  // Sizes: FlashPQ's edges are in [1, 2^32]; CacheBench's may start at 0 (an empty key or value),
  // which becomes 1.
  std::vector<double> size_edges(const Entry& e, std::vector<double> v, bool discrete) {
    for (double& x : v) {
      if (!(x >= 0 && x <= kMaxSizeEdge)) {
        fail(e, "sizes in [0, 2^32] bytes (FlashPQ's sizes are 32-bit)");
      }
    }
    bool raised = false;
    for (size_t i = 0; i < v.size(); ++i) {
      if (v[i] < 1 && (discrete || i == 0)) {
        v[i] = 1;
        raised = true;
      }
    }
    if (!discrete) {
      for (size_t i = 0; i + 1 < v.size(); ++i) {
        if (!(v[i] < v[i + 1])) {
          fail(e, raised ? "increasing sizes, the first above 1 (FlashPQ's smallest size is 1 "
                           "byte)"
                         : "increasing sizes (interval edges)");
        }
      }
    }
    if (raised) {
      note(fmt::format("{}: a size of 0 bytes becomes 1 (FlashPQ's smallest size)", e.path));
    }
    return v;
  }
  void check_probabilities(const Entry& e, const std::vector<double>& p, size_t expected,
                           const std::string& of) {
    if (p.size() != expected) {
      fail_note(e, fmt::format("expected {} probabilities ({}), found {}", expected, of, p.size()));
    }
    double total = 0;
    for (const double x : p) {
      if (!(x >= 0)) fail(e, "probabilities >= 0");
      total += x;
    }
    if (!(total > 0)) fail(e, "probabilities with a positive sum");
  }

  void distribution(Section& d) {
    // Key sizes: CacheBench requires as many probabilities as intervals
    // (WorkloadGenerator.cpp:31-35).
    Entry* kr = d.take("keySizeRange");
    Entry* kp = d.take("keySizeRangeProbability");
    if (kr == nullptr || kp == nullptr) {
      fail_at(d.line(), d.path() + (kr ? ".keySizeRangeProbability" : ".keySizeRange"),
              "expected key size intervals and their probabilities (CacheBench refuses a "
              "workload without them: WorkloadGenerator.cpp:31-35), found none");
    }
    std::vector<double> krange = to_numbers(*kr);
    if (krange.size() < 2) fail(*kr, "at least two interval edges");
    krange = size_edges(*kr, krange, false);
    const std::vector<double> kprob = to_numbers(*kp);
    check_probabilities(*kp, kprob, krange.size() - 1,
                        fmt::format("one per interval of keySizeRange: {}", krange.size() - 1));

    // Value sizes, from the file when valSizeDistFile names one (Config.cpp:268-272).
    Entry* vr = d.take("valSizeRange");
    Entry* vp = d.take("valSizeRangeProbability");
    std::vector<double> vrange, vprob;
    const Entry* vr_at = vr;
    const Entry* vp_at = vp;
    if (vr) vrange = to_numbers(*vr);
    if (vp) vprob = to_numbers(*vp);
    std::string val_comment = "valSizeRange";
    if (Entry* f = d.take("valSizeDistFile")) {
      const std::string name = to_string(*f);
      if (!name.empty()) {
        const std::string path = resolve(name);
        const std::string text = read_file(*f, name, path);
        const YAML::Node file = parse(text, path);
        if (!file.IsMap()) {
          throw std::invalid_argument(fmt::format(
              "{}:{}: expected a JSON object with valSizeRange and valSizeRangeProbability "
              "(test_config.valSizeDistFile)",
              printable(path), line_of(file, 1)));
        }
        // The file's arrays replace the config's (JSONSetVal: when present).
        Importer sub(path, config_dir_);
        Section fs_ = sub.section_of(file, "", 1);
        if (Entry* e = fs_.take("valSizeRange")) {
          vrange = sub.to_numbers(*e);
          vr_at = f;
          if (vr) list(*vr, "replaced by valSizeDistFile's valSizeRange (as CacheBench does)");
        }
        if (Entry* e = fs_.take("valSizeRangeProbability")) {
          vprob = sub.to_numbers(*e);
          vp_at = f;
          if (vp) {
            list(*vp,
                 "replaced by valSizeDistFile's valSizeRangeProbability (as CacheBench "
                 "does)");
          }
        }
        val_comment = "valSizeDistFile " + printable(name);
      }
    }
    if (vr_at == nullptr || vp_at == nullptr) {
      fail_at(d.line(), d.path() + (vr_at ? ".valSizeRangeProbability" : ".valSizeRange"),
              "expected value sizes and their probabilities (or valSizeDistFile), found none");
    }
    const bool discrete = vrange.size() == vprob.size();
    if (!discrete && vrange.size() < 2) {
      fail_note(*vr_at, fmt::format("expected at least two interval edges in valSizeRange, or "
                                    "as many sizes as probabilities, found {} sizes and {} "
                                    "probabilities",
                                    vrange.size(), vprob.size()));
    }
    vrange = size_edges(*vr_at, vrange, discrete);
    check_probabilities(*vp_at, vprob, discrete ? vrange.size() : vrange.size() - 1,
                        discrete ? "one per size" : "one per interval of valSizeRange");

    out_.set("trace", "key_size_range", flow_list(num_texts(krange), 18), "keySizeRange");
    out_.set("trace", "key_size_range_probability", flow_list(num_texts(kprob), 30));
    out_.set("trace", "val_size_range", flow_list(num_texts(vrange), 18),
             val_comment + (discrete ? " (discrete: one probability per size)" : ""));
    out_.set("trace", "val_size_range_probability", flow_list(num_texts(vprob), 30));

    // The operation mix: the three FlashPQ models, written even when absent (CacheBench's
    // defaults are 0, FlashPQ's 0.8 / 0.2 / 0).
    double ratio[3] = {0, 0, 0};
    const char* names[3] = {"getRatio", "setRatio", "delRatio"};
    const char* ours[3] = {"get_ratio", "set_ratio", "del_ratio"};
    for (int i = 0; i < 3; ++i) {
      if (Entry* e = d.take(names[i])) ratio[i] = to_double(*e, 0, 1e9);
    }
    double dropped = 0;
    std::vector<std::string> dropped_names;
    struct Other {
      const char* key;
      const char* why;
    };
    for (const Other& o : {
             Other{"addChainedRatio",
                   "chained items (a parent and its chain of children): not "
                   "modelled"},
             Other{"loneGetRatio",
                   "gets of fresh unique keys, always misses (with "
                   "enableLookaside each then inserts its one-time key): not "
                   "modelled"},
             Other{"loneSetRatio",
                   "sets of fresh unique keys (one-time keys inserted): not "
                   "modelled"},
             Other{"updateRatio", "in-place updates of cached items: not modelled"},
             Other{"couldExistRatio", "couldExist probes: not modelled"},
         }) {
      if (Entry* e = d.take(o.key)) {
        const double r = to_double(*e, 0, 1e9);
        if (r > 0) {
          dropped += r;
          dropped_names.push_back(o.key);
          list(*e, std::string(o.why) +
                       "; FlashPQ's mix is the get, set and delete weights "
                       "alone (this share of the operations is left out)");
        }
      }
    }
    if (!(ratio[0] + ratio[1] + ratio[2] > 0)) {
      fail_at(d.line(), d.path() + ".getRatio",
              "expected a positive getRatio, setRatio or delRatio (FlashPQ's generator makes "
              "gets, sets and deletes), found all 0");
    }
    for (int i = 0; i < 3; ++i) {
      out_.set(
          "trace", ours[i], num_text(ratio[i]),
          d.has(names[i]) ? names[i] : fmt::format("{} absent: CacheBench's default 0", names[i]));
    }
    if (dropped > 0) {
      const double total = ratio[0] + ratio[1] + ratio[2] + dropped;
      note(
          fmt::format("{} of the operations are {} in CacheBench, which FlashPQ does not "
                      "make: its mix is get/set/delete {}/{}/{} renormalized",
                      fmt::format("{:.1f} %", 100 * dropped / total),
                      fmt::format("{}", fmt::join(dropped_names, ", ")), num_text(ratio[0]),
                      num_text(ratio[1]), num_text(ratio[2])));
    }

    // Popularity, chained items, TTLs.
    const bool chained = d.has("addChainedRatio") && !dropped_names.empty() &&
                         std::find(dropped_names.begin(), dropped_names.end(),
                                   std::string("addChainedRatio")) != dropped_names.end();
    for (const char* k : {"chainedItemLengthRange", "chainedItemLengthRangeProbability",
                          "chainedItemValSizeRange", "chainedItemValSizeRangeProbability"}) {
      if (Entry* e = d.take(k)) {
        list(*e, chained ? "chained items: not modelled"
                         : "no effect: addChainedRatio is 0 (chained items are not modelled "
                           "either)");
      }
    }
    for (const char* k : {"ttlSecsRange", "ttlSecsRangeProbability"}) {
      if (Entry* e = d.take(k)) list(*e, "TTLs: FlashPQ's requests carry none");
    }
    bool discrete_pop = false;
    for (const char* k : {"popularityBuckets", "popularityWeights"}) {
      if (Entry* e = d.take(k)) {
        discrete_pop = discrete_pop || (e->value.IsSequence() && e->value.size() > 0);
        list(*e,
             "discrete popularity (FastDiscreteDistribution): FlashPQ's cachebench "
             "generator draws CacheBench's normal popularity over the key indexes instead");
      }
    }
    if (Entry* e = d.take("popDistFile")) {
      const std::string name = to_string(*e);
      if (!name.empty()) {
        const std::string path = resolve(name);
        require_file(*e, name, path);  // CacheBench reads it (Config.cpp:274-278)
        discrete_pop = true;
        list(*e,
             "discrete popularity (its popularityBuckets and popularityWeights, "
             "FastDiscreteDistribution): FlashPQ's cachebench generator draws CacheBench's "
             "normal popularity over the key indexes instead (trace.popularity: normal)");
      }
    }
    if (discrete_pop) {
      note(
          fmt::format("the popularity is CacheBench's normal over the {} keys (standard "
                      "deviation {} keys) instead of the config's discrete popularity, so the "
                      "reuse of keys, and every hit ratio, differ from CacheBench's",
                      num_keys_, num_text(std::floor(static_cast<double>(num_keys_ - 1) / 4))));
    }
    if (Entry* e = d.take("useLegacyKeyGen")) {
      list(*e, "how CacheBench makes key strings: FlashPQ's keys are integers");
    }
  }

  void trace_replay(Section& tc) {
    const bool kv = generator_ == "replay";
    Entry* one = tc.take("traceFileName");
    Entry* many = tc.take("traceFileNames");
    std::vector<std::string> files;
    if (one != nullptr) {
      const std::string f = to_string(*one);
      if (!f.empty()) files.push_back(f);
    }
    if (many != nullptr) {
      const std::vector<std::string> f = to_strings(*many);
      if (!f.empty() && !files.empty()) {
        fail_note(*many,
                  "set only one of traceFileName or traceFileNames (CacheBench refuses "
                  "both, Config.cpp:130-133)");
      }
      for (const std::string& s : f) {
        if (s.empty()) fail(*many, "non-empty file names");
      }
      if (!f.empty()) files = f;
    }
    if (files.empty()) {
      fail_at(tc.line(), "test_config.traceFileName",
              "expected the trace file of generator " + generator_ + ", found none");
    }
    Entry* at = (many != nullptr && !to_strings(*many).empty()) ? many : one;
    const std::string path = resolve(files[0]);
    require_file(*at, files[0], path);
    for (size_t i = 1; i < files.size(); ++i) {
      unmapped_.push_back(
          {line_of(many->value[i], many->line), order_++,
           fmt::format("{}[{}] ({}): CacheBench replays the files one after another; FlashPQ's "
                       "trace.path is one file: concatenate them (each after the first without "
                       "its header line) and point trace.path at the result",
                       many->path, i, yaml_quote(printable(files[i])))});
    }
    out_.set("trace", "format", kv ? "kvcache_csv" : "cachelib_block", "generator " + generator_);
    out_.set("trace", "path", yaml_quote(path),
             fmt::format("{} {}", at->path + (at == many ? "[0]" : ""), printable(files[0])));

    // timestampFactor: op_time units per second (KVReplayGenerator.h:331).
    Entry* ts = tc.take("timestampFactor");
    const uint64_t factor = ts != nullptr ? to_uint(*ts, 1) : 1000;
    std::vector<std::string> transforms;
    if (kv) {
      const char* unit = factor == 1            ? "s"
                         : factor == 1000       ? "ms"
                         : factor == 1000000    ? "us"
                         : factor == 1000000000 ? "ns"
                                                : nullptr;
      if (unit != nullptr) {
        out_.set("trace", "time_unit", unit,
                 fmt::format("timestampFactor {}{}", factor,
                             tc.has("timestampFactor") ? "" : " (absent: CacheBench's default)"));
      } else {
        if (factor > 1000000000) {
          fail(*ts,
               "1, 1000, 10^6, 10^9 or another integer in [1, 10^9] (op_time units per "
               "second; FlashPQ's time_scale factor is at least 10^-9)");
        }
        out_.set("trace", "time_unit", "s", fmt::format("timestampFactor {}", factor));
        transforms.push_back(
            fmt::format("{{name: time_scale, factor: {}}}", num_text(1.0 / factor)));
      }
    } else if (ts != nullptr) {
      list(*ts,
           "FlashPQ's cachelib_block reader takes op_time in its own unit (trace.time_unit "
           "is not read for it)");
    }

    // replayGeneratorConfig: amplification and fast-forward.
    uint64_t amp = 1, forward = 0;
    if (Entry* e = tc.take("replayGeneratorConfig")) {
      if (!e->value.IsMap()) fail(*e, "an object");
      Section r = section_of(e->value, e->path, e->line);
      if (Entry* a = r.take("ampFactor")) {
        amp = to_uint(*a, 1, 1000000);
        if (!kv && amp > 1) {
          list(*a, "no effect with generator block-replay (a key-value replay's)");
          amp = 1;
        }
      }
      if (Entry* f = r.take("fastForwardCount")) {
        forward = to_uint(*f, 0, kMaxRequests);
        if (forward != 0) {
          note(
              fmt::format("{}: CacheBench skips {} trace lines; FlashPQ's fast_forward skips "
                          "{} requests (a line of op_count n is n requests)",
                          f->path, forward, forward));
        }
      }
      if (Entry* m = r.take("replaySerializationMode")) {
        const std::string mode = to_string(*m);
        if (mode != "strict" && mode != "relaxed" && mode != "none") {
          fail(*m, "strict, relaxed or none (Config.cpp:302-307)");
        }
        list(*m, replay_config_reasons().at("replaySerializationMode"));
      }
      finish(r, replay_config_reasons());
    }
    if (forward != 0) {
      transforms.push_back(fmt::format("{{name: fast_forward, requests: {}}}", forward));
    }
    if (amp > 1) transforms.push_back(fmt::format("{{name: amplify_keys, factor: {}}}", amp));
    bool repeat = false;
    if (Entry* e = tc.take("repeatTraceReplay")) repeat = to_bool(*e);
    transforms.push_back(
        fmt::format("{{name: {}, requests: {}}}", repeat ? "repeat" : "limit", requests_));
    std::string comment =
        fmt::format("numOps {} x numThreads {} requests{}", num_ops_, num_threads_,
                    repeat ? ", the trace repeated (repeatTraceReplay)" : "");
    if (amp > 1) comment += fmt::format("; ampFactor {}", amp);
    out_.set("trace", "transforms", flow_list(transforms, 14), comment);

    // The workload generator's keys have no effect on a replay, nor do pool distributions.
    for (Entry& e : tc.entries()) {
      if (!e.taken &&
          (is_distribution_key(e.key) || e.key == "numKeys" || e.key == "poolDistributions")) {
        e.taken = true;
        if (e.key == "valSizeDistFile" || e.key == "popDistFile") {
          // CacheBench reads them whatever the generator (Config.cpp:268-278).
          const std::string name = to_string(e);
          if (!name.empty()) require_file(e, name, resolve(name));
        }
        list(e, "no effect with generator " + generator_ +
                    " (the trace gives the keys, sizes "
                    "and operations)");
      }
    }
  }

  // ----- cache_config -------------------------------------------------------------------------

  void cache_config(Section& cc) {
    // DRAM.
    Entry* size = cc.take("cacheSizeMB");
    if (size == nullptr) {
      fail_at(cc.line(), "cache_config.cacheSizeMB",
              "expected the DRAM cache's size in MB (CacheBench's default 0 is no cache), "
              "found none");
    }
    const uint64_t dram_mb = to_uint(*size, 1, kMaxMiB);
    std::string dram_policy = "lru", policy_comment =
                                         "allocator LRU (absent: CacheBench's "
                                         "default): CacheLib's MMLru";
    if (Entry* e = cc.take("allocator")) {
      const std::string a = to_string(*e);
      if (a == "LRU" || a == "LRU5B") {
        policy_comment = "allocator " + a + ": CacheLib's MMLru";
      } else if (a == "LRU2Q" || a == "LRU5B2Q") {
        dram_policy = "twoq";
        policy_comment = "allocator " + a + ": CacheLib's MM2Q";
        list(*e,
             "CacheLib's MM2Q (hot, warm and cold LRU queues, lru2qHotPct and lru2qColdPct) "
             "is not the 2Q of the VLDB'94 paper; FlashPQ's closest, twoq, is used");
        e->taken = true;
      } else {
        fail(*e, "LRU, LRU2Q, LRU5B or LRU5B2Q (runner/Stressor.cpp:234-246)");
      }
    }
    if (Entry* e = cc.take("lruUpdateOnRead")) {
      if (!to_bool(*e)) {
        list(*e, "MMLru does not promote on reads: FlashPQ's LRU promotes every hit");
      }
    }
    if (Entry* e = cc.take("lruIpSpec")) {
      if (to_uint(*e) != 0) {
        list(*e, "MMLru's insertion point below the head: FlashPQ's LRU inserts at the head");
      }
    }
    // Pools: CacheBench requires numPools == poolSizes.size() (CacheConfig.cpp:156-161) and as
    // many key pools (CacheStressor.h:111-122).
    Entry* pools = cc.take("numPools");
    Entry* pool_sizes = cc.take("poolSizes");
    uint64_t num_pools = pools ? to_uint(*pools, 1, 64) : 1;
    const size_t sizes = pool_sizes ? to_numbers(*pool_sizes).size() : 1;
    if (sizes != num_pools) {
      fail_note(pool_sizes ? *pool_sizes : *pools,
                fmt::format("expected as many poolSizes as numPools ({}), found {} "
                            "(CacheConfig.cpp:156-161)",
                            num_pools, sizes));
    }
    if (key_pools_ != num_pools) {
      fail_at(pools ? pools->line : cc.line(), "test_config.keyPoolDistribution",
              fmt::format("expected one share per pool of the cache ({}), found {} "
                          "(CacheStressor.h:117-122)",
                          num_pools, key_pools_));
    }
    if (op_pools_ > num_pools) {
      fail_at(pools ? pools->line : cc.line(), "test_config.opPoolDistribution",
              fmt::format("expected at most one share per pool of the cache ({}), found {} "
                          "(CacheStressor.h:111-116)",
                          num_pools, op_pools_));
    }
    if (num_pools > 1) {
      const std::string why =
          "CacheLib's DRAM pools (the slabs split by poolSizes): FlashPQ's "
          "DRAM is one pool";
      list(*pools, why);
      list(*pool_sizes, why);
    }

    // NVM.
    uint64_t nvm_mb = 0;
    Entry* nvm = cc.take("nvmCacheSizeMB");
    if (nvm != nullptr) nvm_mb = to_uint(*nvm, 0, kMaxMiB);
    if (nvm_mb == 0) {
      for (Entry& e : cc.entries()) {
        if (!e.taken && is_nvm_key(e.key)) {
          e.taken = true;
          list(e,
               "no effect: no NVM cache (nvmCacheSizeMB is 0: CacheBench runs DRAM only, "
               "Cache.h:310)");
        }
      }
      // The DRAM-only cache: the cell's cache alone.
      out_.set("cache", "capacity", size_text(dram_mb * kMiB), "cacheSizeMB: DRAM only");
      out_.set("policy", "name", dram_policy, policy_comment);
      out_.set("framework", "name", "exact", "CacheLib's DRAM cache: an exact cache in memory");
      return;
    }
    out_.set("tiers", "mode", "wb",
             "CacheLib's NvmCache protocol (experiments/import/cachebench.h)");
    out_.set("tiers", "dram_capacity", size_text(dram_mb * kMiB), "cacheSizeMB");
    out_.set("tiers", "dram_policy", dram_policy, policy_comment);
    flash(cc, *nvm, nvm_mb);
  }

  void flash(Section& cc, Entry& nvm, uint64_t nvm_mb) {
    // The device: RAID-0 over several paths multiplies the size (Cache.h:726-731).
    uint64_t paths = 0;
    if (Entry* e = cc.take("nvmCachePaths")) {
      paths = to_strings(*e).size();
      list(*e, paths > 1
                   ? fmt::format("CacheBench's RAID-0 over {} files or devices, each "
                                 "nvmCacheSizeMB: the capacity is their sum; FlashPQ's device is "
                                 "device.name (null here; device.name: block, device.path for a "
                                 "real one)",
                                 paths)
                   : "the file or block device navy uses: FlashPQ's device is device.name (null "
                     "here; device.name: block, device.path for a real one)");
    }
    if (paths > 1 && nvm_mb > kMaxMiB / paths) fail(nvm, "a smaller size (bytes overflow)");
    const uint64_t device = nvm_mb * kMiB * std::max<uint64_t>(1, paths);

    uint64_t block = 512;
    Entry* block_entry = cc.take("navyBlockSize");
    if (block_entry != nullptr) {
      block = to_uint(*block_entry, 1, uint64_t{1} << 30);
      if (!std::has_single_bit(block)) fail(*block_entry, "a power of two (navy's I/O alignment)");
    }
    uint64_t region_mb = 16;
    if (Entry* e = cc.take("navyRegionSizeMB")) region_mb = to_uint(*e, 1, 1024);
    uint64_t clean = 1;
    if (Entry* e = cc.take("navyCleanRegions")) clean = to_uint(*e, 1, 65536);
    if (Entry* e = cc.take("navyCleanRegionThreads")) {
      const uint64_t t = to_uint(*e);
      if (t < 1 || t > clean + 1) {
        fail(*e, fmt::format("an integer in [1, navyCleanRegions + 1 = {}] "
                             "(NavyConfig.cpp:171-175)",
                             clean + 1));
      }
      list(*e, cache_config_reasons().at("navyCleanRegionThreads"));
    }

    // The BigHash share; arenas replace it (Cache.h:784-790).
    uint64_t pct = 50;
    Entry* pct_entry = cc.take("navyBigHashSizePct");
    if (pct_entry != nullptr) pct = to_uint(*pct_entry, 0, 99);
    if (Entry* e = cc.take("navyArenas")) {
      pct = arenas(*e);
      if (pct_entry != nullptr) {
        list(*pct_entry, "ignored by CacheBench too: navyArenas is given (Cache.h:784-790)");
      }
      if (pct > 99) fail(*e, "arenas whose BigHash shares total at most 99 % of the device");
    }
    const bool hybrid = pct > 0;

    // BigHash's keys.
    uint64_t bucket = 4096, bloom = 8, small_max = 2048;
    Entry* bucket_e = cc.take("navyBigHashBucketSize");
    Entry* bloom_e = cc.take("navyBloomFilterPerBucketSize");
    Entry* small_e = cc.take("navySmallItemMaxSize");
    if (hybrid) {
      if (bucket_e) {
        bucket = to_uint(*bucket_e, 64, uint64_t{1} << 30);
        if (!std::has_single_bit(bucket))
          fail(*bucket_e, "a power of two (navy BigHash.cpp:41-44)");
        if (bucket % block != 0) {
          fail(*bucket_e,
               fmt::format("a multiple of navyBlockSize {} (NavySetup.cpp:111-115)", block));
        }
      }
      if (bloom_e) bloom = to_uint(*bloom_e, 0, 8192);
      if (small_e) small_max = to_uint(*small_e, 1, uint64_t{1} << 30);
      if (small_max > bucket - 44) {
        const Entry& at = small_e != nullptr ? *small_e : *bucket_e;
        fail_note(at, fmt::format("navySmallItemMaxSize {} exceeds BigHash's largest item, the "
                                  "bucket ({} B) less 44 B of headers = {} B (navy "
                                  "EnginePair.cpp:323-334)",
                                  small_max, bucket, bucket - 44));
      }
    } else {
      for (Entry* e : {bucket_e, bloom_e, small_e}) {
        if (e) list(*e, "no effect: no BigHash (navyBigHashSizePct is 0)");
      }
    }

    // BlockCache's eviction and reinsertion.
    std::string eviction = "lru",
                eviction_comment = "navySegmentedFifoSegmentRatio absent: navy's LRU";
    std::string segments;
    if (Entry* e = cc.take("navySegmentedFifoSegmentRatio")) {
      const std::vector<uint64_t> r = to_uints(*e, 1000000);
      if (r.empty()) {
        eviction_comment = "navySegmentedFifoSegmentRatio []: navy's LRU";
      } else if (r.size() == 1) {
        eviction = "fifo";
        eviction_comment = "navySegmentedFifoSegmentRatio with one segment: FIFO";
      } else {
        if (r.size() > 16) fail(*e, "at most 16 segments (FlashPQ's sfifo)");
        for (const uint64_t x : r) {
          if (x == 0) fail(*e, "positive segment ratios (navy FifoPolicy.cpp:25-34)");
        }
        eviction = "sfifo";
        std::vector<std::string> t;
        for (const uint64_t x : r) t.push_back(fmt::format("{}", x));
        segments = flow_list(t, 35);
        eviction_comment = "navySegmentedFifoSegmentRatio: segmented FIFO";
      }
    }
    uint64_t hits = 0, prob = 0;
    Entry* hits_e = nullptr;
    Entry* prob_e = nullptr;
    for (const auto& [name, alias] :
         {std::pair{"navyHitsReinsertionThreshold", "navyReinsertionHitsThreshold"},
          std::pair{"navyProbabilityReinsertionThreshold", "navyReinsertionPctThreshold"}}) {
      Entry* e = cc.take(name);
      Entry* a = cc.take(alias);
      if (e && a) {
        fail_note(*a, fmt::format("written with {} (line {}): the two names are one key here", name,
                                  e->line));
      }
      if (a) {
        note(
            fmt::format("cache_config.{} is read as {}; CacheBench at commit {} does not know "
                        "this name and would ignore it",
                        alias, name, std::string(kCommit).substr(0, 12)));
        e = a;
      }
      if (std::string(name) == "navyHitsReinsertionThreshold") {
        hits_e = e;
      } else {
        prob_e = e;
      }
    }
    if (hits_e) {
      hits = to_uint(*hits_e);
      if (hits > 255) {
        fail(*hits_e, fmt::format("an integer in [0, 255] (CacheBench casts it to uint8_t: {} "
                                  "would be {}, Cache.h:774-777)",
                                  hits, hits % 256));
      }
    }
    if (prob_e) prob = to_uint(*prob_e, 0, 100);
    if (hits > 0 && prob > 0) {
      fail_note(*prob_e,
                "set with navyHitsReinsertionThreshold: navy refuses both "
                "(NavyConfig.h:362-367)");
    }
    if (prob == 100 && clean >= 2) {
      fail_note(*prob_e,
                fmt::format("100 with navyCleanRegions {} reinserts every live entry, and "
                            "FlashPQ's BlockCache, which completes each reclaim before the next "
                            "request, would chain reclaims for ever (navy runs them in the "
                            "background): use 99 or less, or navyCleanRegions 1",
                            clean));
    }

    // Admission.
    uint64_t write_rate = 0;
    if (Entry* e = cc.take("navyAdmissionWriteRateMB")) write_rate = to_uint(*e, 0, 1000000000);

    // Metadata and the capacity.
    uint64_t meta_mb = 0;
    Entry* meta_e = cc.take("nvmCacheMetadataSizeMB");
    if (meta_e) meta_mb = to_uint(*meta_e, 0, kMaxMiB);
    // navy's metadata (NavySetup.cpp:74-90): nvmCacheMetadataSizeMB, else 0.5 % of the device
    // aligned down to the block, then aligned up.
    const uint64_t raw_meta = meta_mb != 0 ? meta_mb * kMiB : (device / 200) & ~(block - 1);
    const uint64_t meta = (raw_meta + block - 1) / block * block;
    if (meta >= device) fail(meta_e ? *meta_e : nvm, "metadata smaller than the device");
    const uint64_t region = region_mb * kMiB;
    uint64_t capacity = device;
    std::string capacity_comment;
    if (hybrid) {
      // navy's layout, refused where navy refuses it (NavySetup.cpp:117-120, 145-147, 294-307;
      // Factory.cpp:45-51): BigHash in whole buckets at the end, BlockCache in whole regions
      // from the metadata's end.
      const uint64_t reserved = device * pct / 100;
      const uint64_t bh_offset = (device - reserved + bucket - 1) / bucket * bucket;
      const uint64_t bh_bytes = bh_offset < device ? (device - bh_offset) / bucket * bucket : 0;
      Entry& at = pct_entry != nullptr ? *pct_entry : nvm;
      if (bh_bytes == 0) {
        fail_note(at, fmt::format("BigHash's {} % of the device's {} B holds no bucket of {} B",
                                  pct, device, bucket));
      }
      if (bh_offset <= meta) {
        fail_note(at, fmt::format("BigHash's {} % of the device's {} B reaches into navy's "
                                  "metadata ({} B; NavySetup.cpp:145-147)",
                                  pct, device, meta));
      }
      if ((bh_offset - meta) / region == 0) {
        fail_note(at, fmt::format("BigHash's {} % of the device's {} B leaves {} B for the "
                                  "BlockCache after navy's metadata, less than one region of "
                                  "{} MiB (navy's \"Invalid layout\", Factory.cpp:45-51)",
                                  pct, device, bh_offset - meta, region_mb));
      }
      capacity_comment = fmt::format(
          "nvmCacheSizeMB {}{}: navy's device (the hybrid reserves "
          "navy's metadata itself)",
          nvm_mb, paths > 1 ? fmt::format(" x {} paths", paths) : "");
      if (meta_e && meta_mb != 0) {
        list(*meta_e,
             "FlashPQ's hybrid always reserves navy's default metadata, 0.5 % of the "
             "device (navy-spec §1.2)");
      }
      if (block_entry) {
        list(*block_entry,
             "navy's I/O alignment (reads widened to it, buckets aligned to it): "
             "FlashPQ takes it from the device's logical block (device null: none; "
             "simflash: device.page_size); no key of device null sets it");
      }
    } else {
      capacity = device - meta;
      capacity_comment = fmt::format(
          "nvmCacheSizeMB {}{} less navy's metadata ({} B, {}), as navy's BlockCache gets it "
          "(navy-spec §1.2)",
          nvm_mb, paths > 1 ? fmt::format(" x {} paths", paths) : "", meta,
          meta_mb != 0 ? "nvmCacheMetadataSizeMB" : "0.5 % aligned to navyBlockSize");
      if (block_entry) {
        list(*block_entry,
             "navy's I/O alignment: it aligns the metadata here (mapped into "
             "cache.capacity); FlashPQ widens reads to the device's logical block "
             "(device null: none; simflash: device.page_size)");
      }
      if (capacity < region) {
        fail_note(nvm, fmt::format("a device of {} B less navy's metadata ({} B) holds no "
                                   "BlockCache region of {} MiB (navy's \"Invalid layout\")",
                                   device, meta, region_mb));
      }
    }

    out_.set("cache", "capacity", size_text(capacity), capacity_comment);
    out_.set("policy", "name", "fifo",
             "navy's engines take insertions only (docs/guide/frameworks.md \"Flash engines\")");
    out_.set("admission", "name", "none");
    if (hybrid) {
      out_.set("framework", "name", "hybrid",
               fmt::format("navyBigHashSizePct {} > 0: BigHash and BlockCache", pct));
      out_.set("framework", "hybrid_small_pct", fmt::format("{}", pct),
               cc.has("navyArenas") ? "the arenas' BigHash shares"
               : pct_entry          ? "navyBigHashSizePct"
                                    : "navyBigHashSizePct absent: CacheBench's default");
      out_.set(
          "framework", "hybrid_small_item_max_size", fmt::format("{}", small_max),
          small_e ? "navySmallItemMaxSize" : "navySmallItemMaxSize absent: CacheBench's default");
      out_.set("framework", "bighash_bucket_size", fmt::format("{}", bucket),
               bucket_e ? "navyBigHashBucketSize"
                        : "navyBigHashBucketSize absent: CacheBench's default");
      out_.set("framework", "bighash_bloom_filter_bits", fmt::format("{}", bloom * 8),
               fmt::format("navyBloomFilterPerBucketSize {} B x 8{}", bloom,
                           bloom_e ? "" : " (absent: CacheBench's default)"));
    } else {
      out_.set("framework", "name", "blockcache", "navyBigHashSizePct 0: BlockCache only");
    }
    out_.set("framework", "blockcache_region_size", size_text(region_mb * kMiB),
             cc.has("navyRegionSizeMB") ? "navyRegionSizeMB"
                                        : "navyRegionSizeMB absent: CacheBench's default");
    out_.set("framework", "blockcache_clean_regions", fmt::format("{}", clean),
             cc.has("navyCleanRegions") ? "navyCleanRegions"
                                        : "navyCleanRegions absent: CacheBench's default");
    out_.set("framework", "blockcache_region_eviction", eviction, eviction_comment);
    if (eviction == "sfifo") {
      out_.set("framework", "blockcache_sfifo_segment_ratio", segments,
               "navySegmentedFifoSegmentRatio");
      out_.set("framework", "blockcache_sfifo_priorities", "false",
               "CacheBench's one priority: evicts as FIFO (navy-spec §2.5)");
    }
    if (hits > 0) {
      out_.set("framework", "blockcache_reinsertion", "hits", "navy's hits reinsertion");
      out_.set("framework", "blockcache_reinsertion_hits_threshold", fmt::format("{}", hits),
               hits_e->key);
    } else if (prob > 0) {
      out_.set("framework", "blockcache_reinsertion", "percentage",
               "navy's percentage reinsertion");
      out_.set("framework", "blockcache_reinsertion_pct", fmt::format("{}", prob), prob_e->key);
    } else {
      out_.set("framework", "blockcache_reinsertion", "none",
               "no navyHitsReinsertionThreshold or navyProbabilityReinsertionThreshold");
    }
    out_.set("device", "name", "null", "bytes counted, no time (simflash: see the header)");
    if (write_rate > 0) {
      out_.set("tiers", "flash_admission", "rate_limited",
               "navyAdmissionWriteRateMB: navy's dynamic random admission");
      out_.set("tiers", "admission_write_rate_mib_s", fmt::format("{}", write_rate),
               "navyAdmissionWriteRateMB");
      note(
          "tiers.flash_admission rate_limited steers FlashPQ's flash writes before the "
          "device's write amplification (navy counts physical device bytes, navy-spec §4.4), "
          "on the requests' time: " +
          std::string(rate_ != 0 ? "trace.rate (opRatePerSec) gives it"
                                 : "without opRatePerSec every request's time is 0 in a "
                                   "functional cell, so set trace.rate or run a timed cell"));
    } else {
      out_.set("tiers", "flash_admission", "all", "navy admits every DRAM eviction");
    }
  }

  // navyArenas: validated as CacheConfig.cpp:66-92 and NavyArenaConfig; returns the BigHash share
  // of the device, Σ sizePct × bigHashPct / 100 rounded.
  uint64_t arenas(Entry& e) {
    if (!e.value.IsSequence()) fail(e, "an array of arenas");
    if (e.value.size() < 2) fail(e, "at least two arenas (CacheConfig.cpp:70-73)");
    uint64_t total = 0, bh = 0;
    std::set<std::string> names;
    for (size_t i = 0; i < e.value.size(); ++i) {
      const YAML::Node a = e.value[i];
      const std::string path = e.path + fmt::format("[{}]", i);
      if (!a.IsMap()) {
        fail_at(line_of(a, e.line), path, fmt::format("expected an object, found {}", shown(a)));
      }
      Section s = section_of(a, path, line_of(a, e.line));
      std::string name;
      uint64_t size_pct = 0, bh_pct = 0;
      if (Entry* n = s.take("name")) name = to_string(*n);
      if (Entry* n = s.take("sizePct")) size_pct = to_uint(*n, 1, 100);
      if (Entry* n = s.take("bigHashPct")) bh_pct = to_uint(*n, 0, 99);
      if (name.empty()) fail_at(s.line(), path + ".name", "expected a non-empty name");
      if (size_pct == 0) fail_at(s.line(), path + ".sizePct", "expected an integer in [1, 100]");
      if (!names.insert(name).second) {
        fail_at(s.line(), path + ".name",
                fmt::format("the arena name '{}' is given twice", printable(name)));
      }
      total += size_pct;
      bh += size_pct * bh_pct;
      finish(s, {});
    }
    if (total != 100) {
      fail_note(e, fmt::format("expected arena sizePct values totalling 100, found {}", total));
    }
    const uint64_t pct = (bh + 50) / 100;
    list(e, fmt::format("navy's arenas (an engine pair each, keys split by hash): FlashPQ's "
                        "hybrid is one pair, here with the arenas' BigHash share, {} % of the "
                        "device",
                        pct));
    return pct;
  }

  // ----- the YAML -----------------------------------------------------------------------------

  CachebenchImport render() {
    std::stable_sort(unmapped_.begin(), unmapped_.end(), [](const Listed& a, const Listed& b) {
      return a.line != b.line ? a.line < b.line : a.order < b.order;
    });
    CachebenchImport r;
    for (const Listed& l : unmapped_) r.unmapped.push_back(l.text);
    r.notes = notes_;

    std::string y;
    y += fmt::format("# FlashPQ experiment imported from the CacheBench config {}\n",
                     printable(source_));
    y += "# by `flashpq import cachebench` (experiments/import/cachebench.h holds the mapping "
         "and its\n";
    y += fmt::format("# reasons); CacheBench's keys as at CacheLib commit {}\n", kCommit);
    y += "# (docs/reference/navy-spec.md §6).\n#\n";
    if (r.unmapped.empty()) {
      y += "# Not mapped: none (every key of the config is mapped).\n";
    } else {
      y += fmt::format(
          "# Not mapped ({} key{}; CacheBench reads them, FlashPQ does not model "
          "them here):\n",
          r.unmapped.size(), r.unmapped.size() == 1 ? "" : "s");
      for (const std::string& u : r.unmapped) y += comment_lines(u);
    }
    if (!r.notes.empty()) {
      y += "#\n# Mapped with a difference:\n";
      for (const std::string& n : r.notes) y += comment_lines(n);
    }
    const bool flash = !out_.section("device").empty();
    y += "#\n";
    if (flash) {
      y += "# The device is null: bytes are counted, nothing is timed. On simulated flash sized to "
           "the\n";
      y += "# cache (simflash's own profile is far smaller than a CacheBench device; "
           "device.size_to_cache\n";
      y += "# may not be written for device null):\n";
      y += "#   flashpq run THIS.yaml --set device.name=simflash --set device.size_to_cache=true\n";
    } else {
      y += "# DRAM only (no nvmCacheSizeMB): the cache is an exact cache in memory, with no "
           "device.\n";
    }
    y += fmt::format("name: {}\n", yaml_quote(experiment_name()));
    for (const char* s :
         {"trace", "cache", "policy", "admission", "framework", "device", "tiers"}) {
      const auto& lines = out_.section(s);
      if (lines.empty()) continue;
      y += std::string(s) + ":\n";
      for (const Output::Line& l : lines) {
        std::string line = "  " + l.key + ": " + l.value;
        if (!l.comment.empty()) {
          // Comments after a one-line value; before a value broken over lines.
          if (line.find('\n') == std::string::npos) {
            const size_t pad = line.size() < 44 ? 44 - line.size() : 1;
            line += std::string(pad, ' ') + "# " + l.comment;
          } else {
            line = "  # " + l.comment + "\n" + line;
          }
        }
        y += line + "\n";
      }
    }
    r.yaml = std::move(y);
    return r;
  }

  static std::string comment_lines(const std::string& text) {
    // "#   text", wrapped at ~100 columns with a hanging indent.
    std::string out;
    std::string line = "#   ";
    // The file's own text in `text` (keys, values, names) went through printable(): no newline.
    std::istringstream words(text);
    std::string w;
    bool first = true;
    while (words >> w) {
      if (!first && line.size() + 1 + w.size() > 100) {
        out += line + "\n";
        line = "#       ";
        first = true;
      }
      if (!first) line += " ";
      line += w;
      first = false;
    }
    return out + line + "\n";
  }

  // The source file's stem; a generic "config" (ssd_perf/NAME/config.json) takes its folder's
  // name.
  std::string experiment_name() const {
    const fs::path src(source_);
    std::string stem = src.stem().string();
    if (stem == "config" && !src.parent_path().filename().empty()) {
      stem = src.parent_path().filename().string();
    }
    std::string out;
    for (const char c : stem) {
      out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')
                 ? c
                 : '_';
    }
    return out.empty() ? "cachebench" : out;
  }

  std::string source_, config_dir_, base_dir_;
  bool configpath_given_ = false;
  std::string generator_ = "workload";
  uint64_t num_ops_ = 0, num_threads_ = 0, requests_ = 0, rate_ = 0, num_keys_ = 0;
  size_t key_pools_ = 1, op_pools_ = 1;
  std::vector<Listed> unmapped_;
  std::vector<std::string> notes_;
  size_t order_ = 0;
  Output out_;
};

}  // namespace
}  // namespace cachebench_import_detail

CachebenchImport import_cachebench(const std::string& json_text, const std::string& source_name,
                                   const std::string& config_dir) {
  cachebench_import_detail::Importer importer(source_name, config_dir);
  try {
    return importer.run(json_text);
  } catch (const YAML::Exception& e) {
    // yaml-cpp's own errors past parsing (a node of an unexpected shape): still the file's.
    const int line = e.mark.line >= 0 ? e.mark.line + 1 : 1;
    throw std::invalid_argument(fmt::format("{}:{}: malformed JSON: {}",
                                            cachebench_import_detail::printable(source_name), line,
                                            cachebench_import_detail::printable(e.msg)));
  }
}

}  // namespace flashpq
