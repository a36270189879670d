// experiments/import/cachebench.h — `flashpq import cachebench CONFIG.json -o EXP.yaml`: a
// CacheBench test config (CacheLib's cachebench JSON, {"cache_config": {...}, "test_config":
// {...}}) as a FlashPQ experiment file.
//
// Source: CacheLib at commit 278ffc74e3015608e385a87caba9f65f9d1113dd as docs/reference/
// navy-spec.md summarizes it ("§" below is that file's section): §6.1 how CacheBench reads the
// file, §6.2 and §6.3 every key with its default, §1.2 navy's layout, §2 BlockCache, §3 BigHash,
// §4 the hybrid and admission, §5 the DRAM↔NVM protocol. CacheBench reads the file with its `//`
// and `/* */` comments stripped (folly::json::stripComments); so does this importer, keeping
// every line where it was so that errors name the line of the file. The JSON is parsed with
// yaml-cpp (JSON is YAML's flow style). CacheBench silently ignores a key it does not know
// (§6.1); the importer instead lists every key of the file that the experiment does not carry,
// with the reason, in CachebenchImport::unmapped and in the comment block that opens the YAML.
// Nothing is dropped silently: a key is mapped (the table below), listed as unmapped, or refused.
//
// The hierarchy. With nvmCacheSizeMB > 0 CacheBench runs CacheLib's DRAM cache in front of navy.
// FlashPQ models that as a hierarchy (docs/guide/hierarchies.md): the DRAM tier (tiers.dram_*)
// over the flash tier (the cell's cache: navy's engines on the device). tiers.mode is wb, because
// it is the mode whose rules are CacheLib's NvmCache protocol (§5):
//   * a set writes DRAM only and drops the flash copy (CacheLib's insertOrReplace enqueues an NVM
//     delete; wb's set writes the cache only and invalidates flash). wt would also write a
//     backing store on every set, which CacheLib does not have;
//   * a DRAM victim is offered to flash through tiers.flash_admission (CacheLib writes DRAM
//     evictions to navy through its admission policy);
//   * a flash hit is copied into DRAM and the flash copy stays, so evicting the DRAM copy again
//     writes nothing (CacheLib's NvmClean items). wo does not copy flash hits into DRAM;
//   * a get that misses both inserts into DRAM: CacheBench's enableLookaside: true (a miss is
//     followed by a set). CacheBench without it inserts nothing on a miss; every FlashPQ cache
//     is read-through, so that case is listed (false) or noted (absent, CachebenchImport::notes).
// The backing store's counters have no CacheBench counterpart (CacheBench has no backing store).
//
// Mapping (JSON key -> experiment key; "=" the same value; §: navy-spec section):
//
//   cache_config (§6.2)
//   cacheSizeMB              nvm: tiers.dram_capacity = cacheSizeMB MiB (tiers.mode wb, above);
//                            DRAM only: cache.capacity = cacheSizeMB MiB, framework exact
//   allocator                LRU, LRU5B (MMLru) -> lru; LRU2Q, LRU5B2Q (MM2Q) -> twoq (listed:
//                            MM2Q is not the 2Q paper); as tiers.dram_policy (nvm) or
//                            policy.name (DRAM only); anything else refused, as CacheBench does
//   nvmCacheSizeMB           0: DRAM only (§6.2, Cache.h:310). > 0: the flash tier, D = the
//                            value MiB (× the number of nvmCachePaths when there are several,
//                            RAID-0): hybrid: cache.capacity = D (the framework reserves navy's
//                            metadata itself, §1.2); blockcache: cache.capacity = D less navy's
//                            metadata, so the regions are navy's (§1.2: bc_fifo.json's 512 MiB
//                            make 31 regions, not 32)
//   nvmCacheMetadataSizeMB   blockcache: the metadata subtracted (0: 0.5 % of D, §1.2);
//                            hybrid: listed (FlashPQ's hybrid always reserves navy's 0.5 %)
//   navyBlockSize            listed: navy's I/O alignment is the device's logical block in
//                            FlashPQ (device null: none; simflash: device.page_size), and no key
//                            of device null sets it; with blockcache it also aligns the metadata
//                            subtracted from cache.capacity (§1.2)
//   navyBigHashSizePct       0: framework blockcache; 1..99: framework hybrid with
//                            framework.hybrid_small_pct = (§1.2, §4.1); 100 or more refused, and
//                            so is a split navy's layout refuses (feature_stress/navy/bh.json's
//                            99 % leaves no BlockCache region, §1.2 item 4)
//   navySmallItemMaxSize     framework.hybrid_small_item_max_size = (§4.1)
//   navyBigHashBucketSize    framework.bighash_bucket_size = (§3.1)
//   navyBloomFilterPerBucketSize  framework.bighash_bloom_filter_bits = value × 8 (§3.4)
//   navyRegionSizeMB         framework.blockcache_region_size = value MiB (§2.1)
//   navyCleanRegions         framework.blockcache_clean_regions = (§2.1, §2.4)
//   navySegmentedFifoSegmentRatio  [] -> blockcache_region_eviction lru; [x] -> fifo; [a, b, ...]
//                            -> sfifo with blockcache_sfifo_segment_ratio a,b,... and
//                            blockcache_sfifo_priorities false (CacheBench's one priority, §2.5)
//   navyHitsReinsertionThreshold  > 0: blockcache_reinsertion hits,
//                            blockcache_reinsertion_hits_threshold = (§2.7); 256 or more refused
//                            (CacheBench casts it to uint8_t)
//   navyProbabilityReinsertionThreshold  > 0: blockcache_reinsertion percentage,
//                            blockcache_reinsertion_pct = (§2.7); both set: refused, as navy;
//                            100 with navyCleanRegions >= 2 refused (FlashPQ's BlockCache would
//                            chain reclaims for ever: engine/blockcache/blockcache_config.cpp)
//   navyReinsertionHitsThreshold, navyReinsertionPctThreshold  the names navy-spec.md says
//                            differ from the real ones (no CacheLib commit ever read them): read
//                            as the two keys above, with a note that CacheBench would ignore them
//   navyAdmissionWriteRateMB > 0: tiers.flash_admission rate_limited,
//                            tiers.admission_write_rate_mib_s = (§4.4)
//   navyArenas               validated as CacheBench does; one engine pair whose BigHash share is
//                            the arenas' total (Σ sizePct × bigHashPct / 100, rounded) (§1.2
//                            "Multiple arenas"); listed
//   numPools, poolSizes      1, [1.0]: mapped (one pool, as FlashPQ); else listed; a mismatch is
//                            refused, as CacheBench (CacheConfig.cpp:156-161)
//   every other key          listed with the reason (slab allocator, rebalancing, LRU refresh,
//                            threads, async I/O, shared memory, persistence, event tracking, ...)
//
//   test_config (§6.3)
//   generator                "", workload, online -> trace.generator cachebench (the workload's
//                            distributions, §6.3 DistributionConfig); replay -> trace.format
//                            kvcache_csv; block-replay -> trace.format cachelib_block; the others
//                            (binary-replay, piecewise-replay, simple-flash-benchmark) refused:
//                            FlashPQ has no reader for them
//   numOps × numThreads      trace.requests (numOps is per thread; CacheBench's threads share
//                            the key space, FlashPQ replays one stream); replay: a transform
//                            limit (or repeat with repeatTraceReplay) of that many requests
//   numKeys                  trace.num_keys (online: clamped to FlashPQ's 2^40, noted; workload:
//                            above 2^32 refused, as CacheBench)
//   getRatio, setRatio, delRatio  trace.get_ratio, set_ratio, del_ratio (written even when
//                            absent: CacheBench's defaults are 0, FlashPQ's 0.8 and 0.2)
//   addChainedRatio, loneGetRatio, loneSetRatio, updateRatio, couldExistRatio  0: mapped;
//                            > 0: listed, and a note gives the share of CacheBench's operations
//                            FlashPQ's mix leaves out (it renormalizes get/set/delete)
//   keySizeRange(+Probability), valSizeRange(+Probability)  trace.key_size_range(_probability),
//                            trace.val_size_range(_probability); an edge of 0 becomes 1 (noted)
//   valSizeDistFile          read (relative: from configPath); its valSizeRange and
//                            valSizeRangeProbability become trace.val_size_range(_probability)
//   popDistFile, popularityBuckets, popularityWeights  listed: FlashPQ's cachebench generator has
//                            no discrete popularity; trace.popularity normal (CacheBench's
//                            popularity without buckets) is written
//   opRatePerSec             trace.rate (generators); opRateBurstSize listed (a functional
//                            cell's requests are evenly spaced; a timed cell can use
//                            timing.arrival token_bucket with timing.rate and timing.burst)
//   traceFileName(s)         trace.path, resolved against configPath (default: config_dir) and
//                            written absolute; a second file and beyond listed (FlashPQ's trace
//                            is one file: concatenate them)
//   timestampFactor          trace.time_unit (1: s, 1000: ms, 10^6: us, 10^9: ns; another value:
//                            s with a time_scale transform of 1/value)
//   repeatTraceReplay        true: transform repeat to numOps × numThreads requests
//   replayGeneratorConfig.ampFactor  > 1: transform amplify_keys factor =
//   replayGeneratorConfig.fastForwardCount  > 0: transform fast_forward requests =
//   enableLookaside          true: mapped (read-through); false: listed; absent: noted (above)
//   onlySetIfMiss, ignoreOpCount, checkConsistency, touchValue, ...  mapped when their value is
//                            FlashPQ's behaviour, else listed with the reason
//   poolDistributions        the first entry is the distribution; the others listed; the
//                            distribution keys of test_config itself are then ignored by
//                            CacheBench and listed as such
//   keyPoolDistribution, opPoolDistribution  one pool: mapped; several: listed (FlashPQ's
//                            generator has one pool)
//   every other key          listed with the reason
//
// A key CacheBench does not read at the commit is listed as "unknown to CacheBench at commit
// 278ffc74e301 (ignored by CacheBench too)"; navyNumInmemBuffers with the commit that removed
// it. The experiment's device is null (bytes counted, no time); its comment block shows the run on
// simulated flash sized to the cache, `--set device.name=simflash --set device.size_to_cache=true`
// (the loader refuses device.size_to_cache under device null, and simflash's default profile is
// far smaller than a CacheBench device). A DRAM-only import has no device section (framework
// exact writes nothing).
//
// Differences that no key carries (so they are stated here, not per config): CacheLib's DRAM
// items take an item header and a whole allocation class and values under 24 B are stored as
// 24 B (§5), where FlashPQ's DRAM tier counts key + value bytes; navy stores each item as an
// NvmItem of key + 26 B + the DRAM payload and routes it on that size (§4.1, §5), where FlashPQ's
// engines store key + value; CacheBench's replay pads each key to the trace's key_size column,
// where FlashPQ's kvcache_csv object is the size column (the value) alone; and CacheBench's
// threads run concurrently, where FlashPQ replays one stream.
//
// What the importer refuses (std::invalid_argument, "FILE:LINE: key 'K': expected ..., found
// 'V'"): malformed JSON (the line and column yaml-cpp gives), a value of the wrong type or out of
// the range CacheBench or FlashPQ accepts (the key, the value found and what was expected), the
// combinations CacheBench itself refuses (traceFileName with traceFileNames, both reinsertion
// keys, numPools against poolSizes, a pool distribution against numPools), a trace file or
// distribution file that does not exist, and duplicate keys (CacheBench would keep one).
#pragma once

#include <string>
#include <vector>

namespace flashpq {

/// The result of an import.
struct CachebenchImport {
  /// The experiment file: a comment block naming the source file and listing `unmapped` and
  /// `notes`, then the sections (name, trace, cache, policy, admission, framework, device,
  /// tiers).
  std::string yaml;
  /// One line per key of the JSON that the experiment does not carry: "SECTION.KEY (VALUE):
  /// why", in the order of the file.
  std::vector<std::string> unmapped;
  /// Mapped with a difference worth knowing (a value clamped, a default behaviour FlashPQ does
  /// not have, an alias name), one line each.
  std::vector<std::string> notes;
};

/// Converts the text of a CacheBench config (`json_text`, named `source_name` in messages and in
/// the YAML's header) to an experiment. Relative trace and distribution files resolve against
/// test_config.configPath, else `config_dir` (the JSON file's directory, as CacheBench's
/// default); paths are written absolute. Throws std::invalid_argument "SOURCE:LINE: ..." on
/// malformed JSON or a bad value (naming the key, the value and what was expected).
CachebenchImport import_cachebench(const std::string& json_text, const std::string& source_name,
                                   const std::string& config_dir);

}  // namespace flashpq
