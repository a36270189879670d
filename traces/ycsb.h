// traces/ycsb.h — the `ycsb` request generator: the transaction phase of YCSB's CoreWorkload
// (Cooper et al., "Benchmarking cloud serving systems with YCSB", SoCC 2010), turned into cache
// requests. The reference is YCSB 0.17.0 as released (site.ycsb:core:0.17.0 on Maven Central,
// its workload files at the git tag 0.17.0 of github.com/brianfrankcooper/YCSB): every constant
// and rule below was read from that jar's classes (`javap -c -constants`), cited by class, and
// the generator is tested against tables the jar itself produced (tests/data/ycsb/, written by
// scripts/ycsb-reference.sh; docs/guide/traces.md, "YCSB: the reference").
//
// Operations (CoreWorkload.createOperationGenerator and doTransaction*): each operation is drawn
// from the proportions read, update, insert, scan, read-modify-write, in that order, by a
// DiscreteGenerator (one uniform variate u; for each operation of positive weight in that order,
// the operation if u < its share, else u minus its share). `trace.workload` a..f sets the
// proportions, the request distribution and the scan length of YCSB 0.17.0's
// workloads/workload[a-f]; each `*_proportion`, `request_distribution` and `max_scan_length`
// written overrides it.
//   read             a get of one key;
//   update           a set of one key;
//   insert           a set of a new key: key numbers record_count, record_count + 1, ...
//                    (AcknowledgedCounterGenerator(recordcount), whose lastValue() is the newest
//                    key inserted), so inserts grow the key space the `latest` and `zipfian`
//                    choosers draw from;
//   scan             gets of `len` consecutive key numbers from the chosen one, in order, those
//                    past the newest key omitted (a scan returns the records that exist), len a
//                    UniformLongGenerator(minscanlength, maxscanlength) (scanlengthdistribution
//                    uniform) or a ZipfianGenerator(minscanlength, maxscanlength), θ 0.99;
//   read-modify-write  a get then a set of the same key (doTransactionReadModifyWrite).
// Keys (CoreWorkload.nextKeynum: a key number past the newest inserted one is drawn again):
//   uniform   UniformLongGenerator(0, record_count − 1): the loaded records only;
//   zipfian   ScrambledZipfianGenerator(0, record_count + expectednewkeys), expectednewkeys =
//             (int)(operationcount × insertproportion × 2.0) with the insert proportion as
//             written (CoreWorkload.init): a value v of ZipfianGenerator(0, ITEM_COUNT = 10^10)
//             (10^10 + 1 items; Gray et al., "Quickly generating billion-record synthetic
//             databases", SIGMOD 1994), then key fnvhash64(v) mod (record_count +
//             expectednewkeys + 1), so hot keys are scattered over the key space. At θ = 0.99
//             ζ(n) is the class's constant ZETAN = 26.46902820178302 (ζ(10^10, 0.99)); another
//             θ sums ζ(10^10 + 1, θ) (here by Euler–Maclaurin, not YCSB's 10^10-term loop);
//   latest    SkewedLatestGenerator: the newest key number minus a ZipfianGenerator value over
//             the newest key number's count of items, ζ grown incrementally as keys are
//             inserted, η kept from the initial count (record_count − 1 items), as YCSB;
//   hotspot   HotspotIntegerGenerator(0, record_count − 1, hotspotdatafraction,
//             hotspotopnfraction): with probability hotspot_opn_fraction uniform over the first
//             (int)(record_count × hotspot_data_fraction) keys, else uniform over the others.
// `trace.zipfian_constant` (θ of `zipfian` and `latest`) is FlashPQ's: YCSB 0.17.0's
// CoreWorkload reads no such property and both choosers use 0.99; with another θ the zipfian
// is ScrambledZipfianGenerator's three-argument constructor, the latest a ZipfianGenerator of
// that θ.
// Sizes: an object's size is fixed per key (traces/object_sizes.h); by default constant,
// field_count × field_length bytes (YCSB's record of fieldcount fields of fieldlength bytes),
// the size (or lognormal median) trace.size when it is written.
// With `load: true` the stream first sets the record_count records in order (YCSB's load
// phase); otherwise a read of a record not yet cached misses (a cold cache).
//
// Differences from YCSB, all deliberate: variates come from the cell seed's stream
// RngStream::kYcsbStream, not ThreadLocalRandom (the same distributions, not the same keys:
// the tests compare them statistically, and exactly where YCSB is deterministic given its
// variates); uniform integers are RngStream::below, not Math.abs(nextLong()) mod n; counts are
// 64-bit where YCSB's Java casts stop at 2^31 − 1; a scan reads consecutive key numbers, where
// YCSB with insertorder=hashed scans in the order of hashed key names.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "sim/rng.h"
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

/// YCSB's ZipfianGenerator (Gray et al. 1994) less its base: values in [0, itemcount) for a
/// count that may grow: 0 if uζ(n) < 1, 1 if uζ(n) < 1 + 0.5^θ, else
/// (long)(itemcount × (ηu − η + 1)^α), α = 1/(1 − θ), η = (1 − (2/items)^(1−θ)) /
/// (1 − ζ(2)/ζ(n)) with `items` the constructor's count.
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

/// YCSB's ScrambledZipfianGenerator(min, max, θ): values in [min, max], fnvhash64 of a
/// ZipfianGenerator(0, ITEM_COUNT = 10^10) value, mod max − min + 1, plus min; ζ is the class's
/// ZETAN at θ = 0.99 (exactly, as YCSB compares), ζ(10^10 + 1, θ) otherwise.
class YcsbScrambledZipfian {
 public:
  /// REQUIRES: min ≤ max, θ in (0, 1).
  YcsbScrambledZipfian(uint64_t min, uint64_t max, double theta);
  /// The next value for a uniform variate `u` in [0, 1) (YCSB nextValue).
  uint64_t next(double u);

 private:
  uint64_t min_, itemcount_;
  YcsbZipfian zipfian_;
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

  /// The key numbers the scrambled zipfian spreads its values over: record_count +
  /// (int)(operation_count × insert_proportion × 2.0) + 1, the insert proportion as written
  /// (CoreWorkload.init's expectednewkeys, not normalized).
  uint64_t zipfian_item_count() const;
  /// A stable text of every field (the random stream and the YCSB version followed included),
  /// hashed as the content hash.
  std::string identity() const;
  /// Throws std::invalid_argument quoting the bad value.
  void validate() const;
  /// Decodes the generator's keys of `config`, the workload's values for keys not written.
  /// Throws std::invalid_argument for a bad value (as Params::get).
  static YcsbConfig from(const TraceConfig& config);
};

/// One operation of CoreWorkload's transaction phase, as its DB sees it.
enum class YcsbOperation : uint8_t { kRead, kUpdate, kInsert, kScan, kReadModifyWrite };
struct YcsbOp {
  YcsbOperation type;
  /// The chosen key number (the scan's start), or the inserted one.
  uint64_t key;
  /// Records a scan asks for (DB.scan's recordcount), before the newest key cuts it; else 0.
  uint64_t scan_length;
};

/// The operations of CoreWorkload's transaction phase for `config`, without end: the request
/// distribution, the operation chooser and the scan lengths (traces/ycsb.h). The `ycsb`
/// generator turns each into its requests; tests compare them with YCSB's own.
class YcsbWorkload {
 public:
  /// REQUIRES: config.validate() passes.
  explicit YcsbWorkload(const YcsbConfig& config);
  YcsbOp next();
  /// The newest key number (record_count − 1 before any insert).
  uint64_t newest_key() const { return last_key_; }

 private:
  YcsbOperation choose();
  uint64_t key_number();
  uint64_t scan_length();

  YcsbConfig c_;
  RngStream rng_;
  double share_[5] = {};
  YcsbOperation last_positive_ = YcsbOperation::kRead;
  uint64_t last_key_;
  uint64_t hot_keys_;
  std::optional<YcsbScrambledZipfian> scrambled_;
  std::optional<YcsbZipfian> latest_;
  std::optional<YcsbZipfian> scan_zipfian_;
};

}  // namespace flashpq
