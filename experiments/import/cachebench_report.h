// experiments/import/cachebench_report.h — a results row as CacheBench prints its end-of-run
// report (`flashpq run --cachebench-summary`, on by default for a CacheBench config): the
// allocator stats of Stats::render and the throughput block, in CacheBench's formats, with what
// FlashPQ measures in place of CacheLib's counters.
//
// Source: docs/reference/navy-spec.md §8 (cachelib/cachebench/cache/CacheStats.h:341-676 and
// runner/Stressor.cpp:58-110 at the commit it cites): §8.2 the lines and their order, §8.3 the
// fmt strings of the NVM lines, §8.4 the percentages (pctFn(a, b) = b == 0 ? 0 : 100a/b,
// invertPctFn = 100 − pctFn), checked against CacheStats.h itself: counts are grouped by three
// with commas (folly's "{:,}", which navy-spec.md §8 leaves out).
//
// From the row (docs/reference/columns.md):
//   Items in NVM             cached_objects (the cell's cache: the flash tier of a hierarchy)
//   Cache Gets               get_requests
//   Hit Ratio                pctFn(hits, get_requests): a get served by any tier
//   RAM Hit Ratio            pctFn(dram_hits, get_requests); 0 without a DRAM tier
//   NVM Hit Ratio            pctFn(flash_hits, NVM gets); without a DRAM tier the cache is the
//                            NVM cache: pctFn(hits, get_requests)
//   NVM bytes written        physical = host_bytes_written, logical = miss_bytes_inserted (the
//                            object bytes the cache had to insert), nand = nand_bytes_written
//                            (simflash only), in GiB (CacheBench divides by 2^30 and says GB)
//   NVM app / dev WA         physical / logical (FlashPQ's wa_implementation), nand / physical
//                            (wa_ftl)
//   NVM Gets                 the gets the DRAM tier did not answer (get_requests − dram_hits);
//                            Coalesced 0 %: requests run one at a time, none is coalesced
//   NVM Puts                 flash_admission_accepts (a hierarchy); Success 100 % (no put
//                            fails in a model)
//   NVM Evicts               evictions
//   NVM Deletes              delete_requests
//   Total Ops, Total sets    requests, set_requests (the measured requests)
//   get/set/del per second   the op's requests / sim_seconds of a timed cell; a functional cell
//                            has no time of its own: "n/a"
//   get success              Hit Ratio; set success 100 %
// Printed "n/a": what FlashPQ does not model (items in RAM, DRAM allocation and eviction
// attempts, clean puts and evicts, aborted puts, deletes that found their key).
#pragma once

#include <string>

#include "experiments/results.h"

namespace flashpq {

/// The report of one results row, CacheBench's lines from "== Test Results ==" to the
/// throughput block, each ending in a line break. Missing or empty fields read as 0; a row
/// that carries `error` renders that error alone. Never throws on a row read_results() returned.
std::string render_cachebench_report(const StoredRow& row);

}  // namespace flashpq
