// sim/direct.h — the `direct` framework: no cache; every request is block I/O sent straight to
// the device (DESIGN.md "framework": "This replays block traces and device workload generators
// (sequential/random writes at a given size) to characterise a device").
//
// A request maps to one device operation at byte offset key × offset_unit of size_bytes
// bytes: get → read, set → write, delete → trim. The device checks alignment to its logical
// block and the bounds: a request it refuses fails the run with the request's index, key, and
// the device's reason — never rounded or wrapped silently.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "devices/device.h"
#include "engine/request.h"
#include "experiments/run/stats.h"
#include "fmt/format.h"
#include "traces/trace_reader.h"

namespace flashpq {

/// Sends request `r` (the index-th of the trace) to `device`. Throws std::runtime_error naming
/// the request when the offset overflows or the device refuses the extent.
inline void direct_issue(Device& device, const Request& r, uint64_t offset_unit_bytes,
                         uint64_t index) {
  if (r.key > UINT64_MAX / offset_unit_bytes) {
    throw std::runtime_error(
        fmt::format("request {} (key {}): byte offset key x offset_unit ({} B) overflows 64 bits",
                    index, r.key, offset_unit_bytes));
  }
  const uint64_t offset = r.key * offset_unit_bytes;
  try {
    switch (r.op) {
      case Op::kGet:
        device.read(offset, r.size_bytes);
        break;
      case Op::kSet:
        device.write(offset, r.size_bytes);
        break;
      case Op::kDelete:
        device.trim(offset, r.size_bytes);
        break;
    }
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(fmt::format("request {} ({} of {} bytes at byte offset {}): {}", index,
                                         op_name(r.op), r.size_bytes, offset, e.what()));
  }
}

/// Replays the whole of `reader` onto `device`. Requests at index ≥ warmup_requests are
/// counted in `counted` (requests; get/set/delete_requests = reads/writes/trims;
/// bytes_requested = bytes of all three; hits stay 0). Calls on_warmup_end() once, just before
/// request warmup_requests. Returns the number of requests replayed.
template <class OnWarmupEnd>
uint64_t replay_direct(Device& device, TraceReader& reader, uint64_t offset_unit_bytes,
                       uint64_t warmup_requests, HitCounters& counted,
                       OnWarmupEnd&& on_warmup_end) {
  std::array<Request, 4096> batch;
  uint64_t i = 0;
  bool warm = false;
  for (size_t n; (n = reader.read(batch)) != 0;) {
    for (size_t j = 0; j < n; ++j, ++i) {
      if (i == warmup_requests && !warm) {
        on_warmup_end();
        warm = true;
      }
      const Request& r = batch[j];
      direct_issue(device, r, offset_unit_bytes, i);
      if (warm) {
        counted.requests++;
        (r.op == Op::kGet   ? counted.get_requests
         : r.op == Op::kSet ? counted.set_requests
                            : counted.delete_requests)++;
        counted.bytes_requested += r.size_bytes;
      }
    }
  }
  if (!warm) on_warmup_end();  // warm-up covered everything: the measured interval is empty
  return i;
}

}  // namespace flashpq
