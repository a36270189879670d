// tests/test_util.h — helpers shared by the test files: a scratch directory, a device that
// records its I/O, and config builders. Test code only.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "devices/device.h"
#include "engine/cache.h"
#include "engine/exact/exact_config.h"
#include "engine/ripq/ripq_config.h"
#include "engine/sipq/sipq_config.h"
#include "policies/policy.h"
#include "traces/trace_reader.h"

namespace flashpq::testing {

/// A fresh directory under `base` (default: the system temp directory), removed with
/// everything in it on destruction.
class TempDir {
 public:
  explicit TempDir(const std::filesystem::path& base = std::filesystem::temp_directory_path()) {
    std::random_device rd;  // test scaffolding only: names must not collide between runs
    const std::string name = "flashpq_test_" + std::to_string(::getpid()) + "_" +
                             std::to_string(rd()) + std::to_string(rd());
    path_ = base / name;
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  /// The path of NAME in this directory.
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }

  /// Writes `text` to NAME (creating its parent folders) and returns its path.
  std::string write(const std::string& name, const std::string& text) const {
    const std::string p = file(name);
    std::filesystem::create_directories(std::filesystem::path(p).parent_path());
    std::ofstream f(p, std::ios::binary | std::ios::trunc);
    f << text;
    REQUIRE(f.good());
    return p;
  }

 private:
  std::filesystem::path path_;
};

/// A byte-addressed device that records every operation (unbounded unless a capacity is given).
class RecordingDevice final : public Device {
 public:
  struct Io {
    char op;  // 'w', 'r', 't'
    uint64_t offset;
    uint64_t len;
    bool operator==(const Io&) const = default;
  };
  explicit RecordingDevice(uint64_t capacity = 0, uint32_t logical_block_bytes = 1)
      : Device(capacity, logical_block_bytes) {}
  std::vector<Io> log;

 private:
  void do_write(uint64_t o, uint64_t l) override { log.push_back({'w', o, l}); }
  void do_read(uint64_t o, uint64_t l) override { log.push_back({'r', o, l}); }
  void do_trim(uint64_t o, uint64_t l) override { log.push_back({'t', o, l}); }
};

/// The file descriptors this process holds (entries of /proc/self/fd): a parser that leaks one
/// per refused file shows here.
inline size_t open_descriptors() {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) ++n;
  return n;
}

inline std::ostream& operator<<(std::ostream& s, const RecordingDevice::Io& io) {
  return s << io.op << "(" << io.offset << ", " << io.len << ")";
}
inline RecordingDevice::Io W(uint64_t o, uint64_t l) {
  return {'w', o, l};
}
inline RecordingDevice::Io R(uint64_t o, uint64_t l) {
  return {'r', o, l};
}
inline RecordingDevice::Io T(uint64_t o, uint64_t l) {
  return {'t', o, l};
}

/// Replays `reqs` through `cache`, whose device is `device` with 512-byte logical blocks, and
/// checks each hit's I/O against a second computation made before the access: nothing when
/// `flash_offset(h)` (the object's device offset, or UINT64_MAX while it is in a RAM buffer)
/// says RAM, else exactly one read of its bytes widened to 512-byte blocks (none when
/// `read_hits` is false). Both kinds of hit must occur, so both branches are exercised.
template <class CacheT, class FlashOffset>
void check_hit_reads(CacheT& cache, RecordingDevice& device, const std::vector<Request>& reqs,
                     bool read_hits, FlashOffset&& flash_offset) {
  uint64_t flash_hits = 0, ram_hits = 0;
  for (const Request& r : reqs) {
    const Handle h = cache.table().find(r.key);
    std::vector<RecordingDevice::Io> expected;
    if (r.op == Op::kGet && h != kNoHandle) {
      const uint64_t at = flash_offset(h);
      const uint32_t size = cache.table()[h].size_bytes;
      if (at == UINT64_MAX) {
        ++ram_hits;
      } else {
        ++flash_hits;
        const uint64_t lo = at / 512 * 512, hi = (at + size + 511) / 512 * 512;
        if (read_hits && size > 0) expected.push_back(R(lo, hi - lo));
      }
    }
    device.log.clear();
    if (cache.access(r)) {
      INFO("request key " << r.key);
      REQUIRE(device.log == expected);
    }
  }
  CHECK(flash_hits > 1000);
  CHECK(ram_hits > 0);
}

inline CacheConfig cache_config(uint64_t capacity, bool unit_size = false,
                                SizeChange mode = SizeChange::kKeep) {
  CacheConfig c;
  c.capacity_bytes = capacity;
  c.unit_size = unit_size;
  c.on_size_change = mode;
  return c;
}

inline PolicyConfig policy_config(const std::string& name, uint32_t segments = 3) {
  PolicyConfig p;
  p.name = name;
  p.params.set(kSegmentsKey.name, segments);
  return p;
}

/// Framework ripq with device blocks of `block_bytes`, K = `k` insertion points, `reserved`
/// reserved blocks and the materialization threshold; the other fields at their defaults.
inline FrameworkConfig ripq_config(uint64_t block_bytes, uint32_t k, uint32_t reserved = 10,
                                   double materialize_threshold = 0.0) {
  FrameworkConfig f;
  f.name = "ripq";
  f.params.set(kBlockSizeKey.name, block_bytes);
  f.params.set(kInsertionPointsKey.name, k);
  f.params.set(kReservedBlocksKey.name, reserved);
  f.params.set(kMaterializeThresholdKey.name, materialize_threshold);
  return f;
}

/// Framework sipq with device blocks of `block_bytes` and occupancy θ; the other fields at
/// their defaults.
inline FrameworkConfig sipq_config(uint64_t block_bytes, double occupancy) {
  FrameworkConfig f;
  f.name = "sipq";
  f.params.set(kBlockSizeKey.name, block_bytes);
  f.params.set(kOccupancyKey.name, occupancy);
  return f;
}

/// Framework exact; with `naive`, objects placed on the device at `alignment`-aligned extents.
inline FrameworkConfig exact_config(bool naive = false, uint32_t alignment = 4096,
                                    bool read_hits = true) {
  FrameworkConfig f;
  f.name = "exact";
  f.params.set(kPlacementKey.name, naive ? "naive" : "none");
  f.params.set(kPlacementAlignmentKey.name, alignment);
  f.params.set(kReadHitsKey.name, read_hits);
  return f;
}

/// with_framework() (engine/framework.h) over the frameworks of `list` only: builds
/// Cache<P, F::Queue<P>, A> for the framework `framework.name` names and calls fn(cache). The
/// caller's code is instantiated for those frameworks alone, not for every registered one (a
/// test's compile time). Throws std::invalid_argument for a name outside the list.
template <class... F, Policy P, class A, class Fn>
void with_framework_among(TypeList<F...> list, const FrameworkConfig& framework,
                          const CacheConfig& cache, P policy, Device& device, A admission,
                          Fn&& fn) {
  with_type_named(list, framework.name, "framework.name", [&](auto type) {
    using Fw = typename decltype(type)::type;
    Cache<P, typename Fw::template Queue<P>, A> c(cache, framework, std::move(policy), device,
                                                  std::move(admission));
    fn(c);
  });
}

/// As above, admitting everything.
template <class... F, Policy P, class Fn>
void with_framework_among(TypeList<F...> list, const FrameworkConfig& framework,
                          const CacheConfig& cache, P policy, Device& device, Fn&& fn) {
  with_framework_among(list, framework, cache, std::move(policy), device,
                       NoAdmission(AdmissionConfig{}, 0), std::forward<Fn>(fn));
}

/// Policy P that also appends each delete-min victim's key to `evicted` (the queue calls
/// on_evict while the victim is still queued), and on RIPQ its data's device offset
/// (RipqQueue::data_offset) to `offsets` if given.
template <Policy P>
class EvictionRecording : public P {
 public:
  EvictionRecording(P policy, std::vector<uint64_t>* evicted,
                    std::vector<uint64_t>* offsets = nullptr)
      : P(std::move(policy)), evicted_(evicted), offsets_(offsets) {}
  template <class Q>
  void on_evict(Q& q, ObjectTable& t, Handle h) {
    evicted_->push_back(t[h].key);
    if constexpr (requires { q.data_offset(h); }) {
      if (offsets_) offsets_->push_back(q.data_offset(h));
    }
    P::on_evict(q, t, h);
  }

 private:
  std::vector<uint64_t>* evicted_;
  std::vector<uint64_t>* offsets_;
};

/// The first `limit` requests of an oracleGeneral trace (plain or zstd), read once per test run
/// and kept: several tests replay the same prefix.
inline const std::vector<Request>& load_trace(const std::string& path, size_t limit = SIZE_MAX) {
  static std::map<std::pair<std::string, size_t>, std::vector<Request>> cache;
  auto [it, fresh] = cache.try_emplace({path, limit});
  if (fresh) {
    auto reader = open_trace(trace_file(path));
    std::vector<Request> batch(4096);
    std::vector<Request>& out = it->second;
    while (out.size() < limit) {
      const size_t n = reader->read(batch);
      if (n == 0) break;
      const size_t take = std::min(n, limit - out.size());
      out.insert(out.end(), batch.begin(), batch.begin() + static_cast<std::ptrdiff_t>(take));
    }
  }
  return it->second;
}

/// The bytes of a file ("" if it cannot be read).
inline std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

/// Splits RFC 4180 CSV text into records of fields (quoted fields may hold commas, quotes and
/// line breaks).
inline std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false, any = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    any = true;
    if (quoted) {
      if (ch == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (ch == '"') {
        quoted = false;
      } else {
        field += ch;
      }
    } else if (ch == '"') {
      quoted = true;
    } else if (ch == ',') {
      row.push_back(std::move(field));
      field.clear();
    } else if (ch == '\n') {
      row.push_back(std::move(field));
      field.clear();
      rows.push_back(std::move(row));
      row.clear();
      any = false;
    } else {
      field += ch;
    }
  }
  if (any) {
    row.push_back(std::move(field));
    rows.push_back(std::move(row));
  }
  return rows;
}

/// A results row's fields by column name, as the tests read them: a column the row does not
/// carry reads as "" (no value), as the CSV field of a column its row lacks does
/// (docs/reference/columns.md: a row carries the columns of its cell's sections; `error` only
/// when the cell failed). count() says whether the row carries a column.
struct RowFields : std::map<std::string, std::string> {
  RowFields() = default;
  explicit RowFields(std::map<std::string, std::string> fields)
      : std::map<std::string, std::string>(std::move(fields)) {}
  const std::string& at(const std::string& name) const {
    static const std::string none;
    const auto it = find(name);
    return it == end() ? none : it->second;
  }
};

}  // namespace flashpq::testing
