// experiments/run/direct.h — the functional replay of framework direct: every request is block
// I/O sent straight to the device (the mapping and its checks: engine/direct/direct.h).
#pragma once

#include <array>
#include <cstdint>

#include "devices/device.h"
#include "engine/direct/direct.h"
#include "engine/request.h"
#include "experiments/run/measure.h"
#include "traces/trace_reader.h"

namespace flashpq {

/// Replays the whole of `reader` onto `device`. Requests at index ≥ warmup_requests are
/// counted in `counted` (count_direct). Calls on_warmup_end() once, just before request
/// warmup_requests (after the last request when the warm-up covers them all). Returns the number
/// of requests replayed. Throws as direct_issue() for a request the device refuses.
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
      if (warm) count_direct(counted, r);
    }
  }
  if (!warm) on_warmup_end();  // warm-up covered everything: the measured interval is empty
  return i;
}

}  // namespace flashpq
