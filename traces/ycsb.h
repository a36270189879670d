// traces/ycsb.h — the `ycsb` request generator: the transaction phase of YCSB's CoreWorkload
// (Cooper et al., "Benchmarking cloud serving systems with YCSB", SoCC 2010; the source is
// github.com/brianfrankcooper/YCSB, core/src/main/java/site/ycsb/, cited below by file), turned
// into cache requests.
//
// Operations (workloads/CoreWorkload.java, createOperationGenerator and doTransaction*): each
// operation is drawn from the proportions read, update, insert, scan, read-modify-write, in that
// order, by a DiscreteGenerator (generator/DiscreteGenerator.java: one uniform variate, the
// first operation whose cumulative share exceeds it). `trace.workload` a..f sets the
// proportions, the request distribution and the scan length of YCSB's workloads/workload[a-f]
// files; each `*_proportion`, `request_distribution` and `max_scan_length` written overrides it.
//   read             a get of one key;
//   update           a set of one key;
//   insert           a set of a new key: key numbers record_count, record_count + 1, ...
//                    (AcknowledgedCounterGenerator(recordcount) in CoreWorkload.init), so
//                    inserts grow the key space the `latest` and `zipfian` choosers draw from;
//   scan             gets of `len` consecutive key numbers from the chosen one, in order, those
//                    past the last inserted key omitted (a scan returns the records that
//                    exist), len uniform in [min_scan_length, max_scan_length]
//                    (scanlengthdistribution=uniform) or YCSB's zipfian over that range;
//   read-modify-write  a get then a set of the same key (doTransactionReadModifyWrite).
// Keys (CoreWorkload.nextKeynum: a key number past the last inserted one is drawn again):
//   uniform   uniform over the loaded records [0, record_count) (UniformLongGenerator);
//   zipfian   YCSB's scrambled zipfian (generator/ScrambledZipfianGenerator.java): a value v of
//             a zipfian over 10^16 + 1 items (Gray et al., "Quickly generating billion-record
//             synthetic databases", SIGMOD 1994, as generator/ZipfianGenerator.java computes
//             it), then key fnvhash64(v) mod (record_count + expected new keys + 1), expected
//             new keys = operation_count × insert_proportion × 2 (CoreWorkload.init), so hot
//             keys are scattered over the key space. With zipfian_constant 0.99 ζ(n) is YCSB's
//             constant ZETAN = 26.46902820178302, which is ζ(10^10, 0.99) and not ζ(10^16 + 1):
//             kept, since it shapes every YCSB run; other constants use ζ(10^16 + 1, θ) as
//             YCSB's code would (computed here by Euler–Maclaurin, not by YCSB's 10^16-term sum);
//   latest    YCSB's skewed latest (generator/SkewedLatestGenerator.java): the last inserted
//             key number minus a zipfian value over the key numbers so far, ζ grown
//             incrementally as keys are inserted, η kept from the initial count (as YCSB);
//   hotspot   generator/HotspotIntegerGenerator.java: hotspot_opn_fraction of the operations
//             uniform over the first ⌊record_count × hotspot_data_fraction⌋ keys, the rest
//             uniform over the others.
// Sizes: an object's size is fixed per key (traces/object_sizes.h); by default constant,
// field_count × field_length bytes (YCSB's record of fieldcount fields of fieldlength bytes),
// the size (or lognormal median) trace.size when it is written.
// With `load: true` the stream first sets the record_count records in order (YCSB's load
// phase); otherwise a read of a record not yet cached misses (a cold cache).
//
// Differences from YCSB, all deliberate: variates come from the cell seed's stream
// RngStream::kYcsbStream, not java.util.Random (the same shapes, not the same keys); counts are
// 64-bit where YCSB's Java casts stop at 2^31 − 1; a scan reads consecutive key numbers, where
// YCSB with insertorder=hashed scans in the order of hashed key names.
#pragma once

#include <cstdint>
#include <string>

#include "traces/object_sizes.h"
#include "traces/trace_reader.h"

namespace flashpq {

/// ζ(n, θ) = Σ_{i=1..n} i^(−θ): summed for n ≤ 4096, else the first 1023 terms summed and the rest
/// by Euler–Maclaurin to the sixth derivative (relative error below 1e-13 for θ in [0, 10]).
/// REQUIRES: θ ≥ 0.
double zipf_zeta(uint64_t n, double theta);

/// YCSB's Utils.fnvhash64: 64-bit FNV-1a over the 8 little-endian bytes of `value`, then the
/// absolute value as a Java long (a hash of exactly −2^63 stays as its unsigned bits).
uint64_t ycsb_fnvhash64(uint64_t value);

/// YCSB's ZipfianGenerator (Gray et al. 1994): values in [0, itemcount] for a count that may
/// grow, P(0) = 1/ζ(n), P(1) = 2^(−θ)/ζ(n), larger values by Gray's approximation.
class YcsbZipfian {
 public:
  /// `items` ≥ 2 items (YCSB's constructor count, kept for η), θ in (0, 1), `zetan` = ζ(items)
  /// or YCSB's precomputed constant.
  YcsbZipfian(uint64_t items, double theta, double zetan);
  /// The next value for `itemcount` items (YCSB nextLong(itemcount)); a count larger than the
  /// last grows ζ incrementally (a smaller one keeps it, as YCSB's allowitemcountdecrease =
  /// false). `u` uniform in [0, 1).
  uint64_t next(double u, uint64_t itemcount);
  double zetan() const { return zetan_; }

 private:
  uint64_t items_;
  double theta_, alpha_, zeta2theta_, zetan_, eta_, half_pow_theta_;
  uint64_t count_for_zeta_;
};

enum class YcsbDistribution : uint8_t { kUniform, kZipfian, kLatest, kHotspot };

/// The generator's part of the `trace:` section (format: generator, generator: ycsb).
struct YcsbConfig {
  /// YCSB's workload letter, 'a'..'f'. Default 'a'.
  char workload = 'a';
  /// Operation proportions (any non-negative weights, at least one positive; normalized).
  double read_proportion = 0.5, update_proportion = 0.5, insert_proportion = 0, scan_proportion = 0,
         rmw_proportion = 0;
  YcsbDistribution distribution = YcsbDistribution::kZipfian;
  /// Records loaded before the run, [1, 2^40] (≥ 2 for latest). Default 1,000,000.
  uint64_t record_count = 1'000'000;
  /// Operations in the run (after the load phase when load is true), [1, 2^50].
  uint64_t operation_count = 1'000'000;
  /// θ of the zipfian and latest choosers, (0, 1). Default 0.99.
  double zipfian_constant = 0.99;
  uint64_t min_scan_length = 1, max_scan_length = 1000;
  /// Scan lengths: uniform (true, YCSB's default) or YCSB's zipfian over the range.
  bool scan_length_uniform = true;
  double hotspot_data_fraction = 0.2, hotspot_opn_fraction = 0.8;
  bool load = false;
  ObjectSizes sizes;
  uint64_t seed = 1;

  /// The key numbers the scrambled zipfian spreads its values over (record_count + expected
  /// new keys + 1).
  uint64_t zipfian_item_count() const;
  /// A stable text of every field (the random stream included), hashed as the content hash.
  std::string identity() const;
  /// Throws std::invalid_argument quoting the bad value.
  void validate() const;
  /// Decodes the generator's keys of `config`, the workload's values for keys not written.
  /// Throws std::invalid_argument for a bad value (as Params::get).
  static YcsbConfig from(const TraceConfig& config);
};

}  // namespace flashpq
