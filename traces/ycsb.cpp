// traces/ycsb.cpp — the ycsb generator (traces/ycsb.h).
#include "traces/ycsb.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "fmt/format.h"
#include "sim/rng.h"
#include "traces/generator.h"

namespace flashpq {

namespace {

// ScrambledZipfianGenerator's constants, as `javap -constants` prints them from YCSB 0.17.0's
// jar: ITEM_COUNT = 10000000000l, ZETAN = 26.46902820178302d (ζ(10^10, 0.99)),
// USED_ZIPFIAN_CONSTANT = 0.99d; ZipfianGenerator.ZIPFIAN_CONSTANT = 0.99d (the scan lengths').
constexpr uint64_t kScrambledItemCount = 10'000'000'000ull;
constexpr double kYcsbZetan = 26.46902820178302;
constexpr double kYcsbZipfianConstant = 0.99;

struct Workload {
  char name;
  double read, update, insert, scan, rmw;
  YcsbDistribution distribution;
  uint64_t max_scan_length;
};

// YCSB 0.17.0's workloads/workload[a-f] (git tag 0.17.0); max_scan_length 1000 is CoreWorkload's
// MAX_SCAN_LENGTH_PROPERTY_DEFAULT, workload e writes 100.
constexpr std::array<Workload, 6> kWorkloads{{
    {'a', 0.5, 0.5, 0, 0, 0, YcsbDistribution::kZipfian, 1000},
    {'b', 0.95, 0.05, 0, 0, 0, YcsbDistribution::kZipfian, 1000},
    {'c', 1, 0, 0, 0, 0, YcsbDistribution::kZipfian, 1000},
    {'d', 0.95, 0, 0.05, 0, 0, YcsbDistribution::kLatest, 1000},
    {'e', 0, 0, 0.05, 0.95, 0, YcsbDistribution::kZipfian, 100},
    {'f', 0.5, 0, 0, 0, 0.5, YcsbDistribution::kZipfian, 1000},
}};

const std::vector<std::string>& distribution_names() {
  static const std::vector<std::string> names{"uniform", "zipfian", "latest", "hotspot"};
  return names;
}

KeySpec proportion(const std::string& name, const std::string& op) {
  return key("trace." + name, ValueType::kFloat)
      .strict_to_readers()
      .from("trace.workload")
      .range(0, 1)
      .desc("share of " + op + " operations (YCSB " + name + ")");
}

const KeySpec kWorkload =
    key("trace.workload", ValueType::kEnum)
        .strict_to_readers()
        .def("a")
        .choices({"a", "b", "c", "d", "e", "f"})
        .desc("YCSB core workload: proportions, request distribution, scan length");
const KeySpec kRead = proportion("read_proportion", "read (get)");
const KeySpec kUpdate = proportion("update_proportion", "update (set)");
const KeySpec kInsert = proportion("insert_proportion", "insert (set of a new key)");
const KeySpec kScan = proportion("scan_proportion", "scan (gets of consecutive keys)");
const KeySpec kRmw = proportion("rmw_proportion", "read-modify-write (get then set)");
const KeySpec kDistribution = key("trace.request_distribution", ValueType::kEnum)
                                  .strict_to_readers()
                                  .from("trace.workload")
                                  .choices(distribution_names())
                                  .desc("key chooser (YCSB requestdistribution)");
const KeySpec kRecordCount = key("trace.record_count", ValueType::kInt)
                                 .strict_to_readers()
                                 .def("1000000")
                                 .units("records")
                                 .range(1, 1099511627776.0)
                                 .desc("records loaded before the run (YCSB recordcount)");
const KeySpec kOperationCount = key("trace.operation_count", ValueType::kInt)
                                    .strict_to_readers()
                                    .def("1000000")
                                    .units("operations")
                                    .range(1, 1125899906842624.0)
                                    .desc("operations of the run (YCSB operationcount)");
const KeySpec kZipfianConstant = key("trace.zipfian_constant", ValueType::kFloat)
                                     .strict_to_readers()
                                     .def("0.99")
                                     .range(0.01, 0.999)
                                     .desc("theta of the zipfian and latest key choosers");
const KeySpec kMinScan = key("trace.min_scan_length", ValueType::kInt)
                             .strict_to_readers()
                             .def("1")
                             .units("records")
                             .range(1, 1e9)
                             .desc("shortest scan (YCSB minscanlength)");
const KeySpec kMaxScan = key("trace.max_scan_length", ValueType::kInt)
                             .strict_to_readers()
                             .from("trace.workload")
                             .units("records")
                             .range(1, 1e9)
                             .desc("longest scan (YCSB maxscanlength; workload e: 100, else 1000)");
const KeySpec kScanDistribution = key("trace.scan_length_distribution", ValueType::kEnum)
                                      .strict_to_readers()
                                      .def("uniform")
                                      .choices({"uniform", "zipfian"})
                                      .desc("scan lengths (YCSB scanlengthdistribution)");
const KeySpec kHotData = key("trace.hotspot_data_fraction", ValueType::kFloat)
                             .strict_to_readers()
                             .def("0.2")
                             .range(0, 1)
                             .desc("hotspot: share of the records that are hot");
const KeySpec kHotOpn = key("trace.hotspot_opn_fraction", ValueType::kFloat)
                            .strict_to_readers()
                            .def("0.8")
                            .range(0, 1)
                            .desc("hotspot: share of the operations on hot records");
const KeySpec kFieldCount = key("trace.field_count", ValueType::kInt)
                                .strict_to_readers()
                                .def("10")
                                .units("fields")
                                .range(1, 1e6)
                                .desc(
                                    "fields per record (YCSB fieldcount): the constant size is "
                                    "field_count x field_length");
const KeySpec kFieldLength = key("trace.field_length", ValueType::kSize)
                                 .strict_to_readers()
                                 .def("100")
                                 .units("bytes")
                                 .range(1, 4294967295.0)
                                 .desc("bytes per field (YCSB fieldlength)");
const KeySpec kLoad = key("trace.load", ValueType::kBool)
                          .strict_to_readers()
                          .def("false")
                          .desc("first set every record in order (YCSB's load phase)");

const ComponentSpec& ycsb_spec() {
  static const ComponentSpec spec = [] {
    std::vector<KeySpec> keys{
        kWorkload,         kRead,        kUpdate,         kInsert,          kScan,        kRmw,
        kDistribution,     kRecordCount, kOperationCount, kZipfianConstant, kMinScan,     kMaxScan,
        kScanDistribution, kHotData,     kHotOpn,         kFieldCount,      kFieldLength, kLoad};
    for (const KeySpec& k : object_size_keys()) keys.push_back(k);
    for (const KeySpec& k : generator_time_keys()) keys.push_back(k);
    return ComponentSpec{"ycsb",
                         "YCSB CoreWorkload a-f as cache requests (scrambled zipfian, latest, "
                         "hotspot, uniform keys)",
                         keys,
                         {},
                         {},
                         {}};
  }();
  return spec;
}

class YcsbReader final : public TraceReader {
 public:
  explicit YcsbReader(const YcsbConfig& c)
      : c_(c), name_("ycsb:" + c.identity()), workload_(c), last_key_(c.record_count - 1) {}

  size_t read(std::span<Request> out) override {
    size_t i = 0;
    while (i < out.size()) {
      if (loaded_ < (c_.load ? c_.record_count : 0)) {
        out[i++] = request(loaded_++, Op::kSet);
      } else if (scan_left_ > 0) {
        out[i++] = request(scan_next_++, Op::kGet);
        --scan_left_;
      } else if (rmw_pending_) {
        out[i++] = request(rmw_key_, Op::kSet);
        rmw_pending_ = false;
      } else if (operations_ < c_.operation_count) {
        ++operations_;
        operation(out, i);
      } else {
        break;
      }
    }
    return i;
  }
  const std::string& path() const override { return name_; }
  // YCSB's load phase is not measured (YCSB reports its run phase apart): the runners start
  // the warm-up after it.
  uint64_t preconditioning_requests() const override { return c_.load ? c_.record_count : 0; }

 private:
  Request request(uint64_t key, Op op) const { return Request{0, key, c_.sizes.of(key), op}; }

  void operation(std::span<Request> out, size_t& i) {
    const YcsbOp op = workload_.next();
    switch (op.type) {
      case YcsbOperation::kRead:
        out[i++] = request(op.key, Op::kGet);
        break;
      case YcsbOperation::kUpdate:
        out[i++] = request(op.key, Op::kSet);
        break;
      case YcsbOperation::kInsert:
        last_key_ = op.key;
        out[i++] = request(op.key, Op::kSet);
        break;
      case YcsbOperation::kScan:
        scan_next_ = op.key;
        scan_left_ = std::min(op.scan_length, last_key_ - op.key + 1);
        break;
      case YcsbOperation::kReadModifyWrite:
        rmw_key_ = op.key;
        out[i++] = request(rmw_key_, Op::kGet);
        rmw_pending_ = true;
        break;
    }
  }

  YcsbConfig c_;
  std::string name_;
  YcsbWorkload workload_;
  uint64_t last_key_;
  uint64_t loaded_ = 0;
  uint64_t operations_ = 0;
  uint64_t scan_next_ = 0, scan_left_ = 0;
  uint64_t rmw_key_ = 0;
  bool rmw_pending_ = false;
};

double power(uint64_t i, double theta) {
  return std::exp(-theta * std::log(static_cast<double>(i)));
}

// ∫_1^x t^(−θ) dt = (x^(1−θ) − 1)/(1 − θ), or ln x at θ = 1, without cancellation near θ = 1.
double integral_from_1(double x, double theta) {
  const double log_x = std::log(x);
  const double t = (1.0 - theta) * log_x;
  return (std::abs(t) > 1e-8 ? std::expm1(t) / t : 1 + t * 0.5 * (1 + t / 3)) * log_x;
}

}  // namespace

double zipf_zeta(uint64_t n, double theta) {
  double sum = 0;
  if (n <= 4096) {
    for (uint64_t i = 1; i <= n; ++i) sum += power(i, theta);
    return sum;
  }
  // Σ_{i<M} f(i) + ∫_M^n f + (f(M) + f(n))/2 + Σ_k B_2k/(2k)! (f^(2k−1)(n) − f^(2k−1)(M)),
  // f(x) = x^(−θ), B2/2! = 1/12, B4/4! = −1/720, B6/6! = 1/30240.
  constexpr uint64_t m = 1024;
  for (uint64_t i = 1; i < m; ++i) sum += power(i, theta);
  const double xm = m, xn = static_cast<double>(n);
  sum += integral_from_1(xn, theta) - integral_from_1(xm, theta);
  sum += (power(m, theta) + power(n, theta)) / 2;
  auto d1 = [&](double x) { return -theta * std::pow(x, -theta - 1); };
  auto d3 = [&](double x) { return -theta * (theta + 1) * (theta + 2) * std::pow(x, -theta - 3); };
  auto d5 = [&](double x) {
    return -theta * (theta + 1) * (theta + 2) * (theta + 3) * (theta + 4) * std::pow(x, -theta - 5);
  };
  sum += (d1(xn) - d1(xm)) / 12 - (d3(xn) - d3(xm)) / 720 + (d5(xn) - d5(xm)) / 30240;
  return sum;
}

uint64_t ycsb_fnvhash64(uint64_t value) {
  // Utils.fnvhash64: FNV_OFFSET_BASIS_64 0xCBF29CE484222325, FNV_PRIME_64 1099511628211.
  uint64_t h = 0xCBF29CE484222325ull;
  for (int i = 0; i < 8; ++i) {
    h ^= value & 0xFF;
    value >>= 8;
    h *= 1099511628211ull;
  }
  // Math.abs on a Java long.
  return static_cast<int64_t>(h) < 0 ? ~h + 1 : h;
}

YcsbZipfian::YcsbZipfian(uint64_t items, double theta, double zetan)
    : items_(items),
      theta_(theta),
      alpha_(1.0 / (1.0 - theta)),
      zeta2theta_(zipf_zeta(2, theta)),
      zetan_(zetan),
      half_pow_theta_(std::pow(0.5, theta)),
      count_for_zeta_(items) {
  eta_ = (1 - std::pow(2.0 / static_cast<double>(items_), 1 - theta_)) / (1 - zeta2theta_ / zetan_);
}

uint64_t YcsbZipfian::next(double u, uint64_t itemcount) {
  if (itemcount > count_for_zeta_) {
    // ZipfianGenerator.nextLong: ζ grown incrementally; η from the constructor's item count.
    for (uint64_t i = count_for_zeta_; i < itemcount; ++i) zetan_ += power(i + 1, theta_);
    count_for_zeta_ = itemcount;
    eta_ =
        (1 - std::pow(2.0 / static_cast<double>(items_), 1 - theta_)) / (1 - zeta2theta_ / zetan_);
  }
  const double uz = u * zetan_;
  if (uz < 1.0) return 0;
  if (uz < 1.0 + half_pow_theta_) return 1;
  return static_cast<uint64_t>(static_cast<double>(itemcount) *
                               std::pow(eta_ * u - eta_ + 1, alpha_));
}

YcsbScrambledZipfian::YcsbScrambledZipfian(uint64_t min, uint64_t max, double theta)
    : min_(min),
      itemcount_(max - min + 1),
      // ScrambledZipfianGenerator(min, max, θ): ZipfianGenerator(0, ITEM_COUNT, θ, ZETAN) when
      // θ == USED_ZIPFIAN_CONSTANT, else ZipfianGenerator(0, ITEM_COUNT, θ), whose ζ is
      // zetastatic(ITEM_COUNT + 1, θ); either has ITEM_COUNT + 1 items.
      zipfian_(
          kScrambledItemCount + 1, theta,
          theta == kYcsbZipfianConstant ? kYcsbZetan : zipf_zeta(kScrambledItemCount + 1, theta)) {}

uint64_t YcsbScrambledZipfian::next(double u) {
  // nextValue: min + fnvhash64(gen.nextValue()) % itemcount, gen.nextValue() =
  // nextLong(items).
  return min_ + ycsb_fnvhash64(zipfian_.next(u, kScrambledItemCount + 1)) % itemcount_;
}

YcsbWorkload::YcsbWorkload(const YcsbConfig& c)
    : c_(c),
      rng_(c.seed, RngStream::kYcsbStream),
      last_key_(c.record_count - 1),
      // HotspotIntegerGenerator: hotInterval = (int)(interval × hotsetFraction).
      hot_keys_(
          static_cast<uint64_t>(static_cast<double>(c.record_count) * c.hotspot_data_fraction)) {
  const double total = c.read_proportion + c.update_proportion + c.insert_proportion +
                       c.scan_proportion + c.rmw_proportion;
  const double shares[] = {c.read_proportion, c.update_proportion, c.insert_proportion,
                           c.scan_proportion, c.rmw_proportion};
  for (size_t i = 0; i < 5; ++i) {
    share_[i] = shares[i] / total;
    if (shares[i] > 0) last_positive_ = static_cast<YcsbOperation>(i);
  }
  switch (c.distribution) {
    case YcsbDistribution::kZipfian:
      // CoreWorkload.init: ScrambledZipfianGenerator(insertstart, insertstart + insertcount +
      // expectednewkeys), insertstart 0, insertcount record_count.
      scrambled_.emplace(0, c.zipfian_item_count() - 1, c.zipfian_constant);
      break;
    case YcsbDistribution::kLatest:
      // SkewedLatestGenerator: ZipfianGenerator(basis.lastValue()), the one-argument
      // constructor: record_count − 1 items.
      latest_.emplace(c.record_count - 1, c.zipfian_constant,
                      zipf_zeta(c.record_count - 1, c.zipfian_constant));
      break;
    default:
      break;
  }
  if (!c.scan_length_uniform && c.max_scan_length > c.min_scan_length) {
    // ZipfianGenerator(minscanlength, maxscanlength): θ ZIPFIAN_CONSTANT, max − min + 1 items.
    const uint64_t n = c.max_scan_length - c.min_scan_length + 1;
    scan_zipfian_.emplace(n, kYcsbZipfianConstant, zipf_zeta(n, kYcsbZipfianConstant));
  }
}

// DiscreteGenerator.nextValue over the operations of positive weight, in CoreWorkload's order:
// the first whose share exceeds what is left of one uniform variate (past them all, which only
// rounding could reach and YCSB asserts against, the last).
YcsbOperation YcsbWorkload::choose() {
  double u = rng_.uniform();
  for (size_t k = 0; k < 5; ++k) {
    if (!(share_[k] > 0)) continue;
    if (u < share_[k]) return static_cast<YcsbOperation>(k);
    u -= share_[k];
  }
  return last_positive_;
}

// One key number of the request distribution (CoreWorkload.nextKeynum).
uint64_t YcsbWorkload::key_number() {
  for (;;) {
    uint64_t k = 0;
    switch (c_.distribution) {
      case YcsbDistribution::kUniform:
        k = rng_.below(c_.record_count);
        break;
      case YcsbDistribution::kZipfian:
        k = scrambled_->next(rng_.uniform());
        break;
      case YcsbDistribution::kLatest:
        // SkewedLatestGenerator.nextValue: max − zipfian.nextLong(max), max the newest key.
        k = last_key_ - latest_->next(rng_.uniform(), last_key_);
        break;
      case YcsbDistribution::kHotspot:
        k = rng_.uniform() < c_.hotspot_opn_fraction
                ? rng_.below(hot_keys_)
                : hot_keys_ + rng_.below(c_.record_count - hot_keys_);
        break;
    }
    if (k <= last_key_) return k;
  }
}

uint64_t YcsbWorkload::scan_length() {
  if (c_.max_scan_length <= c_.min_scan_length) return c_.min_scan_length;
  if (c_.scan_length_uniform) {
    return c_.min_scan_length + rng_.below(c_.max_scan_length - c_.min_scan_length + 1);
  }
  return c_.min_scan_length +
         scan_zipfian_->next(rng_.uniform(), c_.max_scan_length - c_.min_scan_length + 1);
}

YcsbOp YcsbWorkload::next() {
  const YcsbOperation op = choose();
  switch (op) {
    case YcsbOperation::kInsert:
      // transactioninsertkeysequence.nextValue(), then acknowledge: the newest key.
      return {op, ++last_key_, 0};
    case YcsbOperation::kScan: {
      const uint64_t start = key_number();
      return {op, start, scan_length()};
    }
    default:
      return {op, key_number(), 0};
  }
}

uint64_t YcsbConfig::zipfian_item_count() const {
  // CoreWorkload.init: ScrambledZipfianGenerator(insertstart, insertstart + insertcount +
  // expectednewkeys), both ends inclusive; expectednewkeys = (int)(operationcount ×
  // insertproportion × 2.0), the property as written (DiscreteGenerator normalizes the
  // proportions, this does not).
  const auto expected_new_keys =
      static_cast<uint64_t>(static_cast<double>(operation_count) * insert_proportion * 2.0);
  return record_count + expected_new_keys + 1;
}

std::string YcsbConfig::identity() const {
  // "as YCSB 0.17.0": the reference the stream follows (its scrambled zipfian over
  // ITEM_COUNT = 10^10), so a stream drawn by other rules has another identity and hash.
  return fmt::format(
      "ycsb as YCSB 0.17.0 workload={} read={} update={} insert={} scan={} rmw={} distribution={} "
      "records={} operations={} theta={} scan={}-{} scan_uniform={} hot={}/{} load={} {} "
      "seed={} stream={}",
      workload, read_proportion, update_proportion, insert_proportion, scan_proportion,
      rmw_proportion, distribution_names()[static_cast<size_t>(distribution)], record_count,
      operation_count, zipfian_constant, min_scan_length, max_scan_length, scan_length_uniform,
      hotspot_data_fraction, hotspot_opn_fraction, load ? "true (preconditioning)" : "false",
      sizes.identity(), seed, RngStream::kYcsbStream);
}

void YcsbConfig::validate() const {
  const double total =
      read_proportion + update_proportion + insert_proportion + scan_proportion + rmw_proportion;
  for (const double p :
       {read_proportion, update_proportion, insert_proportion, scan_proportion, rmw_proportion}) {
    if (!(p >= 0)) {
      throw std::invalid_argument(
          fmt::format("trace: expected operation proportions >= 0, found '{}'", p));
    }
  }
  if (!(total > 0)) {
    throw std::invalid_argument(
        "trace: expected at least one positive operation proportion (read, update, insert, "
        "scan, rmw), found all 0");
  }
  if (record_count < 1) {
    throw std::invalid_argument(
        fmt::format("key 'trace.record_count': expected >= 1, found '{}'", record_count));
  }
  if (distribution == YcsbDistribution::kLatest && record_count < 3) {
    throw std::invalid_argument(fmt::format(
        "key 'trace.record_count': expected >= 3 with request_distribution latest (YCSB's "
        "zipfian needs two items besides the newest), found '{}'",
        record_count));
  }
  if (!(zipfian_constant > 0 && zipfian_constant < 1)) {
    throw std::invalid_argument(fmt::format(
        "key 'trace.zipfian_constant': expected in (0, 1), found '{}'", zipfian_constant));
  }
  if (min_scan_length > max_scan_length) {
    throw std::invalid_argument(fmt::format(
        "key 'trace.min_scan_length': expected at most trace.max_scan_length ({}), found '{}'",
        max_scan_length, min_scan_length));
  }
  if (distribution == YcsbDistribution::kHotspot) {
    const auto hot =
        static_cast<uint64_t>(static_cast<double>(record_count) * hotspot_data_fraction);
    if (hot == 0 && hotspot_opn_fraction > 0) {
      throw std::invalid_argument(fmt::format(
          "key 'trace.hotspot_data_fraction': expected at least one hot record of {} with "
          "hotspot_opn_fraction {}, found '{}'",
          record_count, hotspot_opn_fraction, hotspot_data_fraction));
    }
    if (hot == record_count && hotspot_opn_fraction < 1) {
      throw std::invalid_argument(fmt::format(
          "key 'trace.hotspot_data_fraction': expected at least one cold record of {} with "
          "hotspot_opn_fraction {}, found '{}'",
          record_count, hotspot_opn_fraction, hotspot_data_fraction));
    }
  }
  sizes.validate();
}

YcsbConfig YcsbConfig::from(const TraceConfig& config) {
  const Params& p = config.params;
  YcsbConfig c;
  c.workload = p.get<std::string>(kWorkload).front();
  const Workload& w = kWorkloads[static_cast<size_t>(c.workload - 'a')];
  auto or_workload = [&](const KeySpec& k, double workload_value) {
    return p.has(k.name) ? p.get<double>(k) : workload_value;
  };
  c.read_proportion = or_workload(kRead, w.read);
  c.update_proportion = or_workload(kUpdate, w.update);
  c.insert_proportion = or_workload(kInsert, w.insert);
  c.scan_proportion = or_workload(kScan, w.scan);
  c.rmw_proportion = or_workload(kRmw, w.rmw);
  if (p.has(kDistribution.name)) {
    const std::string d = p.get<std::string>(kDistribution);
    const auto& names = distribution_names();
    c.distribution =
        static_cast<YcsbDistribution>(std::find(names.begin(), names.end(), d) - names.begin());
  } else {
    c.distribution = w.distribution;
  }
  c.record_count = p.get<uint64_t>(kRecordCount);
  c.operation_count = p.get<uint64_t>(kOperationCount);
  c.zipfian_constant = p.get<double>(kZipfianConstant);
  c.min_scan_length = p.get<uint64_t>(kMinScan);
  c.max_scan_length = p.has(kMaxScan.name) ? p.get<uint64_t>(kMaxScan) : w.max_scan_length;
  c.scan_length_uniform = p.get<std::string>(kScanDistribution) == "uniform";
  c.hotspot_data_fraction = p.get<double>(kHotData);
  c.hotspot_opn_fraction = p.get<double>(kHotOpn);
  c.load = p.get<bool>(kLoad);
  // YCSB's record: fieldcount fields of fieldlength bytes, unless trace.size is written.
  c.sizes = ObjectSizes::from(p, config.seed,
                              p.get<uint64_t>(kFieldCount) * p.get<uint64_t>(kFieldLength));
  c.seed = config.seed;
  return c;
}

extern const TraceGenerator kYcsbGenerator{
    &ycsb_spec,
    [](const TraceConfig& config) -> std::unique_ptr<TraceReader> {
      const YcsbConfig c = YcsbConfig::from(config);
      c.validate();
      return with_arrivals(std::make_unique<YcsbReader>(c), config);
    },
    [](const TraceConfig& config) {
      return YcsbConfig::from(config).identity() + arrivals_identity(config);
    },
    [](const TraceConfig& config) { YcsbConfig::from(config).validate(); }};

}  // namespace flashpq
