// traces/fpq.h — FlashPQ's native trace format (`.fpq`, format "fpq") and the trace writers of
// `flashpq trace convert`.
//
// A .fpq file is a 4096-byte header and fixed-size little-endian records, read through mmap
// (sequentially advised; `trace.preload: true` faults the whole file in first), so a replay
// reads requests at memory speed (CacheBench's binary-replay generator is the model: CacheLib,
// github.com/facebook/CacheLib, cachelib/cachebench/workload/BinaryKVReplayGenerator.h, which
// replays fixed-size requests from a file mapped into memory).
//
// Header, little-endian:
//   offset 0   char[8]  magic "FPQTRACE"
//   offset 8   u32      version, 1
//   offset 12  u32      flags: bit 0 some request has a time ≠ 0; bit 1 some op is not a get
//   offset 16  u64      record count N
//   offset 24  u64      working-set bytes (first-seen sizes of gets and sets, as libCacheSim)
//   offset 32  u64      distinct objects (keys of gets and sets)
//   offset 40  u64      XXH3-64 of the N records' bytes
//   offset 48  u32      record bytes, 24
//   offset 52  u32      description bytes D ≤ 4032
//   offset 56  u64      0 (reserved)
//   offset 64  D bytes  description: the source and transforms it was converted from, UTF-8
//   (zero bytes to 4096)
// Record i at byte 4096 + 24 i:
//   offset 0   u64 time_ns, offset 8 u64 key, offset 16 u32 size_bytes (≥ 1), offset 20 u8 op
//   (0 get, 1 set, 2 delete), offset 21 three zero bytes.
// A file shorter or longer than 4096 + 24 N bytes, a bad magic, version or record size, an op
// above 2 or a size of 0 is a TraceError naming the file and the record and byte offset.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "traces/trace_reader.h"

namespace flashpq {

/// The header of a .fpq file, as read or written.
struct FpqHeader {
  /// The magic number, the file's first 8 bytes.
  static constexpr std::string_view kMagic = "FPQTRACE";
  static constexpr uint32_t kVersion = 1;
  static constexpr uint64_t kHeaderBytes = 4096;
  static constexpr uint32_t kRecordBytes = 24;
  static constexpr uint32_t kMaxDescriptionBytes = 4096 - 64;

  uint32_t flags = 0;
  uint64_t records = 0;
  uint64_t working_set_bytes = 0;
  uint64_t objects = 0;
  uint64_t records_hash = 0;
  std::string description;
};

/// Reads the header of the .fpq file at `path` and checks it against the file's size. Throws
/// TraceError naming the file and what is wrong.
FpqHeader read_fpq_header(const std::string& path);

/// Writes every request of `in` to `path` as .fpq (through `path`.tmp, renamed when complete:
/// an existing file is replaced only by a whole one), `description` cut to
/// kMaxDescriptionBytes. Returns the header written. Throws TraceError if the file cannot be
/// written, and what `in` throws.
FpqHeader write_fpq(TraceReader& in, const std::string& path, const std::string& description);

/// Writes every request of `in` to `path` in libCacheSim's oracleGeneral format
/// (traces/oracle_general_reader.cpp), zstd-compressed when `path` ends in ".zst" (level 3):
/// clock_time = ⌊time_ns / 1e9⌋ (seconds, must fit u32), obj_id = key, obj_size = size,
/// next_access_vtime = the 1-based index of the next request to the key or −1, computed by a
/// backward pass over a temporary .fpq beside `path` (memory: 8 bytes per request and a map of
/// the keys).
/// oracleGeneral holds neither ops nor sub-second times: a request that is not a get, or a time
/// that is not whole seconds, is refused (TraceError) rather than silently changed. Through
/// `path`.tmp, as write_fpq. Returns the number of records.
uint64_t write_oracle_general(TraceReader& in, const std::string& path);

}  // namespace flashpq
