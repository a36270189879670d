// engine/request.h — the unit of work every trace source yields and every cache consumes.
//
// Source: docs/DESIGN.md "Data flow": Request = {time_ns, key:u64, size_bytes:u32, op}.
#pragma once

#include <cstdint>
#include <string_view>

namespace flashpq {

/// The operation a request asks of the cache.
///  * kGet: a read. A miss is followed by an insertion of size_bytes (read-through cache),
///    as in the RIPQ paper's photo cache and CacheBench's replay.
///  * kSet: a write; inserts the object or replaces the cached copy.
///  * kDelete: removes the object if cached; otherwise does nothing.
enum class Op : uint8_t { kGet = 0, kSet = 1, kDelete = 2 };

/// Returns "get", "set" or "delete".
std::string_view op_name(Op op);

/// One cache request. 24 bytes, trivially copyable, so readers fill arrays of them.
///  * time_ns: arrival time in nanoseconds since the trace's origin (0 when the trace has none).
///  * key: the object's 64-bit identity (string keys are hashed once at read time).
///  * size_bytes: the object's size in bytes; readers never yield 0 (zero-size records are
///    skipped as libCacheSim does).
struct Request {
  uint64_t time_ns = 0;
  uint64_t key = 0;
  uint32_t size_bytes = 0;
  Op op = Op::kGet;
};
static_assert(sizeof(Request) == 24);

}  // namespace flashpq
