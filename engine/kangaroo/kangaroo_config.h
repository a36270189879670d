// engine/kangaroo/kangaroo_config.h — the keys of the `kangaroo` framework (Kangaroo, McAllister
// et al., SOSP'21: a small log, KLog, in front of a set-associative cache, KSet;
// engine/kangaroo/kangaroo_queue.h) and its geometry.
//
//   framework.kangaroo_log_pct                KLog's share of the cache C in percent (default 5,
//                                             the paper's §6.1 parameter table; [C] json
//                                             navyKangarooLogSizePct 5)
//   framework.kangaroo_log_partitions         independent circular logs P (default 1, the
//                                             simulator's single log; [C]'s json uses 16)
//   framework.kangaroo_segment_size           the log's write unit (default 256KiB, [C]
//                                             KangarooLog.h:23; [S] flushBlockSizeKB 256)
//   framework.kangaroo_page_size              the log's read unit (default 4KiB, [C]
//                                             KangarooLog.h:22 readSize)
//   framework.kangaroo_set_size               KSet's set size (default 4KiB, the paper; [C]
//                                             Kangaroo.h:46; [S] genConfigs.py:12)
//   framework.kangaroo_threshold              KLog→KSet admission threshold n (default 2, the
//                                             paper's parameter table; json navyKangarooLog-
//                                             Threshold 2; 1 = every group moves)
//   framework.kangaroo_rrip_bits              RRIParoo bits b (default 3, [S] headline; [C]
//                                             fixes 3)
//   framework.kangaroo_bloom_filter_bits      Bloom filter bits per set (default 64 = [C]'s 8
//                                             bytes, NavyConfig.h:395, 4 hash functions; 0 = no
//                                             filter)
//   framework.kangaroo_admission_probability  pre-log random admission p (default 0.9, the
//                                             paper's parameter table; [S]
//                                             randomAdmissionPreLog 0.9)
//   framework.kangaroo_readmit_hits           a log object hit at least this many times is
//                                             readmitted to the log when cleaning would drop it
//                                             (default 1 = [C]'s `if (hits)`; [S]'s readmit 1
//                                             means >= 2; 0 = no readmission)
// and framework.read_hits (engine/queue.h).
//
// Sources: docs/reference/kangaroo-spec.md, which cites [S] = saramcallister/Kangaroo at
// 48397846af0b838a0431977bc7a4a2e1493fe181 (the paper's simulator) and [C] =
// saramcallister/CacheLib-1 branch artifact-eval-kangaroo-upstream at
// a3706e08012780eac98d588d02de8977a43a2586 (cachelib/navy/kangaroo/). Rules the keys obey:
//   * the page is a power of two ([C] KangarooLog.cpp:107-110) and a multiple of the device's
//     logical block; the segment a multiple of the page (l.119-126); the set a multiple of the
//     logical block;
//   * each partition holds at least 2 segments (one is cleaned while the DRAM buffer fills the
//     slot after it, as the ring of [S] rotating_log.cpp:43-66 does);
//   * at least one set;
//   * the bloom filter is whole bytes, 4 hash functions of bits/4 each (as BigHash's,
//     [C] NavySetup.cpp:129-132), so its bits are a multiple of 8.
#pragma once

#include <cstdint>
#include <string>

#include "sim/params.h"
#include "sim/rng.h"

namespace flashpq {

/// What Kangaroo reads of the framework section.
struct KangarooConfig {
  /// KLog's share of C, in percent, in [0.01, 99]. Default 5.
  double log_pct = 5;
  /// Independent circular logs P, in [1, 4096]; a set's log objects all live in partition
  /// set mod P. Default 1.
  uint32_t log_partitions = 1;
  /// The log's write unit in bytes: a multiple of the page, in [64 B, 1 GiB]. Default 256 KiB.
  uint32_t segment_bytes = 256 * 1024;
  /// The log's read unit in bytes: a power of two in [64 B, 1 MiB]. Default 4096.
  uint32_t page_bytes = 4096;
  /// KSet's set size in bytes, in [64 B, 1 MiB]. Default 4096.
  uint32_t set_bytes = 4096;
  /// KLog→KSet threshold n, in [1, 1000]: a cleaned object's set is rewritten only when at least
  /// n log objects map to it. Default 2.
  uint32_t threshold = 2;
  /// RRIParoo bits b, in [1, 7]: RRPVs in [0, 2^b − 1]. Default 3.
  uint32_t rrip_bits = 3;
  /// Bloom filter bits per set: 0 (no filter: every get miss reads its set) or a multiple of 8
  /// in [8, 65536], split over 4 hash functions. Default 64.
  uint32_t bloom_filter_bits = 64;
  /// Pre-log random admission probability, in [0, 1]. Default 0.9.
  double admission_probability = 0.9;
  /// Readmission: a log object with at least this many KLog hits (its counter saturates at 7) is
  /// readmitted when cleaning would drop it; 0 = never. In [0, 7]. Default 1.
  uint32_t readmit_hits = 1;

  /// Decodes `params` (framework.* keys; unset keys take their defaults). Throws
  /// std::invalid_argument quoting the bad value and naming the key.
  static KangarooConfig from(const Params& params);
};

/// [C]'s on-flash formats (docs/reference/kangaroo-spec.md §1.2, §2.1).
/// A log page (LogBucket) and a set (RripBucket) start with a 24-byte header: checksum u32,
/// generationTime u64 and the storage's capacity, numAllocations and endOffset u32
/// (LogBucket.cpp:10, RripBucket.cpp:10).
inline constexpr uint32_t kKangarooHeaderBytes = 24;
/// Per log entry: the 2-byte slot {size u16} (KangarooBucketStorage.h:73-77) and the 4-byte
/// LogBucketEntry {keySize, valueSize u16} (LogBucket.cpp:15-50).
inline constexpr uint32_t kKangarooLogEntryOverheadBytes = 2 + 4;
/// Per set entry: the 2-byte slot {rrip:3, size:13} (RripBucketStorage.h:77-80) and the
/// 12-byte RripBucketEntry {keySize, valueSize u16, keyHash u64} (RripBucket.cpp:16-57).
inline constexpr uint32_t kKangarooSetEntryOverheadBytes = 2 + 12;
/// Hash functions of each set's filter (as BigHash's).
inline constexpr uint32_t kKangarooBloomHashes = 4;
/// The KLog hit counter's bits ([C] ChainedLogIndexEntry.h:42-46 hits_:3; saturates at 7).
inline constexpr uint32_t kKangarooLogHitMax = 7;
/// Most log pages the framework addresses (27 bits of a location; 512 GiB of 4 KiB pages).
inline constexpr uint64_t kKangarooMaxLogPages = (uint64_t{1} << 27) - 1;
/// Most sets (32-bit set numbers).
inline constexpr uint64_t kKangarooMaxSets = uint64_t{1} << 32;
/// The stream of the pre-log admission draws: RngStream(seed, kKangarooAdmissionStream)
/// (sim/rng.h; 12 is BlockCache's reinsertion stream).
inline constexpr uint64_t kKangarooAdmissionStream = RngStream::kKangarooAdmissionStream;

/// How a cache of C bytes is laid out: KLog at [0, log_bytes), P partitions of
/// segments_per_partition segments each; KSet after it, `sets` sets of set_bytes.
struct KangarooGeometry {
  uint32_t partitions = 1;
  uint64_t segments_per_partition = 0;
  uint32_t segment_bytes = 0;
  uint32_t page_bytes = 0;
  uint32_t pages_per_segment = 0;
  /// P × segments_per_partition × segment_bytes.
  uint64_t log_bytes = 0;
  uint64_t sets = 0;
  uint32_t set_bytes = 0;
  /// log_bytes + sets × set_bytes: the device bytes addressed.
  uint64_t device_bytes() const { return log_bytes + sets * set_bytes; }
};

/// The geometry of a cache of `capacity_bytes` on a device of logical block `granule` bytes
/// (>= 1): the log gets ⌊C·log_pct/100⌋ rounded down to whole segments in every partition, the
/// sets ⌊(C − log)/set_bytes⌋. Throws std::invalid_argument naming the key and a value that
/// works when the page or set is not a multiple of the granule, a partition holds fewer than 2
/// segments, no set fits, or the log has over 2^27 − 1 pages or the sets are over 2^32.
KangarooGeometry kangaroo_geometry(const KangarooConfig& config, uint64_t capacity_bytes,
                                   uint64_t granule);

extern const KeySpec kKangarooLogPctKey;
extern const KeySpec kKangarooLogPartitionsKey;
extern const KeySpec kKangarooSegmentSizeKey;
extern const KeySpec kKangarooPageSizeKey;
extern const KeySpec kKangarooSetSizeKey;
extern const KeySpec kKangarooThresholdKey;
extern const KeySpec kKangarooRripBitsKey;
extern const KeySpec kKangarooBloomFilterBitsKey;
extern const KeySpec kKangarooAdmissionProbabilityKey;
extern const KeySpec kKangarooReadmitHitsKey;

}  // namespace flashpq
