// traces/cachebench.cpp — the `cachebench` request generator: the distributions of CacheBench's
// stressor workload as CacheLib's source defines them (github.com/facebook/CacheLib,
// cachelib/cachebench/workload/WorkloadGenerator.{h,cpp}, WorkloadDistribution.h and
// FastDiscrete.h; runner/CacheStressor.h; util/Config.h; its keys as in
// test_configs/simple_test.json). tests/traces/test_cachebench.cpp checks each against a sampler
// written from those files on the C++ library distributions CacheBench uses.
//
//   num_keys           keys in the key space (numKeys); key index i's id is a bijective mix of i;
//   get_ratio, set_ratio, del_ratio
//                      operation weights (getRatio, setRatio, delRatio), normalized; one
//                      operation per request, drawn independently (WorkloadDistribution's
//                      opDist_, a std::discrete_distribution);
//   key_size_range, key_size_range_probability
//                      piecewise-uniform key sizes, as CacheBench's
//                      std::piecewise_constant_distribution: interval [r_j, r_{j+1}) with
//                      probability p_j, uniform within it, truncated to an integer;
//   val_size_range, val_size_range_probability
//                      value sizes the same way, or, when the two lists are as long
//                      (usesDiscreteValueSizes), value r_j with probability p_j (a
//                      std::discrete_distribution). Each key's sizes are drawn once (CacheBench
//                      sizes each key once when it generates its requests), here from a hash of
//                      the key and the seed, so no table is kept. The request's size is key size
//                      + value size, the bytes the item takes in the cache;
//   size_distribution and the other size keys of traces/object_sizes.h
//                      when size_distribution is not constant or trace.size is written: the
//                      value sizes come from them instead of val_size_range (lognormal, pareto,
//                      empirical values with CacheBench's key sizes);
//   popularity         normal (the default): CacheBench's popularity without popularityBuckets
//                      (WorkloadDistribution::getPopDist, FastDiscrete.h's NormalDistribution):
//                      over the key indexes [left, right] = [0, num_keys − 1], a normal of mean
//                      (left + right) / 2 and standard deviation (right − left) / 4, rounded
//                      to the nearest index (std::round) and drawn again outside the range.
//                      uniform or zipf (zipf_alpha, ranks scattered by the mix as the zipf
//                      generator's) are FlashPQ's, not CacheBench's;
//   requests           requests yielded (numOps × numThreads in CacheBench).
// Not modelled: CacheBench's pools (keyPoolDistribution, opPoolDistribution split the keys and
// the operations among pools, each with its own normal: simple_test.json's two pools make its
// popularity a mixture; FlashPQ models one pool), discrete popularity (popularityBuckets,
// popularityWeights: FastDiscreteDistribution), chained items, TTLs, lone gets and sets; the
// keys CacheBench drops as duplicates (its keys are random strings of the drawn length, so short
// lengths repeat and it keeps fewer than numKeys); its draw of each request from a
// pre-sampled array of numOps × numThreads key indexes (the same distribution per request).
// Variates come from the cell seed's stream RngStream::kCachebenchStream (not std::mt19937_64
// and std::*_distribution, whose outputs are implementation-defined); the distributions are
// CacheBench's, not its exact keys.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <optional>
#include <stdexcept>
#include <vector>

#include "fmt/format.h"
#include "sim/rng.h"
#include "traces/generator.h"
#include "traces/object_sizes.h"
#include "traces/zipf.h"

namespace flashpq {

namespace {

// Uniform in [0, 1) from a key, the seed and a salt: a key's sizes, fixed per key.
double key_variate(uint64_t key, uint64_t seed, uint64_t salt) {
  return static_cast<double>(
             splitmix64_mix(splitmix64_mix(key ^ splitmix64_mix(seed + salt)) + salt) >> 11) *
         0x1.0p-53;
}

// "1,8,64" -> {1, 8, 64}. Throws naming `key`.
std::vector<double> numbers(const std::string& text, const std::string& key) {
  std::vector<double> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    const std::string part = text.substr(start, end - start);
    size_t used = 0;
    double v = 0;
    try {
      v = std::stod(part, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != part.size() || !std::isfinite(v)) {
      throw std::invalid_argument(
          fmt::format("key '{}': expected a list of numbers, found '{}'", key, text));
    }
    out.push_back(v);
    start = end + 1;
  }
  return out;
}

// A piecewise-uniform distribution: interval j = [edges[j], edges[j+1]) with weight w[j]
// (std::piecewise_constant_distribution); or, `discrete_allowed` and one weight per edge, value
// edges[j] with weight w[j] (std::discrete_distribution over the values).
struct Piecewise {
  std::vector<double> edges, cumulative;  // cumulative[j]: P(interval ≤ j)
  bool discrete = false;

  Piecewise(const std::string& range_key, const std::string& range, const std::string& prob_key,
            const std::string& probs, bool discrete_allowed = false) {
    edges = numbers(range, range_key);
    const std::vector<double> w = numbers(probs, prob_key);
    discrete = discrete_allowed && w.size() == edges.size();
    if (!discrete && (edges.size() < 2 || w.size() != edges.size() - 1)) {
      throw std::invalid_argument(fmt::format(
          "key '{}': expected one probability per interval of {} ({} intervals{}), found {}",
          prob_key, range_key, edges.size() < 2 ? 0 : edges.size() - 1,
          discrete_allowed ? fmt::format(", or one per size: {}", edges.size()) : "", w.size()));
    }
    for (size_t j = 0; j < edges.size(); ++j) {
      const bool increasing = discrete || j + 1 == edges.size() || edges[j] < edges[j + 1];
      if (!(edges[j] >= 1 && increasing && edges[j] <= 4294967296.0)) {
        throw std::invalid_argument(fmt::format("key '{}': expected {} in [1, 2^32], found '{}'",
                                                range_key, discrete ? "sizes" : "increasing sizes",
                                                range));
      }
    }
    double total = 0;
    for (const double x : w) {
      if (!(x >= 0)) {
        throw std::invalid_argument(
            fmt::format("key '{}': expected probabilities >= 0, found '{}'", prob_key, probs));
      }
      total += x;
    }
    if (!(total > 0)) {
      throw std::invalid_argument(
          fmt::format("key '{}': expected a positive probability, found '{}'", prob_key, probs));
    }
    double c = 0;
    for (const double x : w) cumulative.push_back(c += x / total);
  }
  // A size from two uniform variates: the interval, then the place within it (truncated, as
  // CacheBench's narrow_cast of the double); discrete: the value.
  uint64_t operator()(double u_interval, double u_place) const {
    size_t j = 0;
    while (j + 1 < cumulative.size() && u_interval >= cumulative[j]) ++j;
    if (discrete) return static_cast<uint64_t>(edges[j]);
    return static_cast<uint64_t>(std::floor(edges[j] + u_place * (edges[j + 1] - edges[j])));
  }
};

const KeySpec kNumKeys = key("trace.num_keys", ValueType::kInt)
                             .strict_to_readers()
                             .def("1000000")
                             .units("keys")
                             .range(1, 1099511627776.0)
                             .desc("keys in the key space (CacheBench numKeys)");
KeySpec ratio(const std::string& name, const std::string& def, const std::string& cb) {
  return key("trace." + name, ValueType::kFloat)
      .strict_to_readers()
      .def(def)
      .range(0, 1e9)
      .desc("weight of the operation (CacheBench " + cb + ")");
}
const KeySpec kGet = ratio("get_ratio", "0.8", "getRatio");
const KeySpec kSet = ratio("set_ratio", "0.2", "setRatio");
const KeySpec kDel = ratio("del_ratio", "0", "delRatio");
KeySpec list(const std::string& name, const std::string& def, const std::string& what) {
  return key("trace." + name, ValueType::kString)
      .strict_to_readers()
      .def(def)
      .yaml_list()
      .desc(what);
}
const KeySpec kKeyRange =
    list("key_size_range", "8,16", "key sizes, interval edges in bytes (CacheBench keySizeRange)");
const KeySpec kKeyProb = list("key_size_range_probability", "1",
                              "probability of each key size interval (keySizeRangeProbability)");
const KeySpec kValRange =
    list("val_size_range", "100,1000",
         "value sizes, interval edges (or the sizes) in bytes (CacheBench valSizeRange)");
const KeySpec kValProb = list("val_size_range_probability", "1",
                              "probability of each value size interval, or of each size when as "
                              "many as val_size_range (valSizeRangeProbability)");
const KeySpec kPopularity = key("trace.popularity", ValueType::kEnum)
                                .strict_to_readers()
                                .def("normal")
                                .choices({"normal", "uniform", "zipf"})
                                .desc(
                                    "key popularity: normal (CacheBench's, over the key "
                                    "indexes), or FlashPQ's uniform or zipf");
const KeySpec kZipfAlpha = key("trace.zipf_alpha", ValueType::kFloat)
                               .strict_to_readers()
                               .def("0.9")
                               .range(0, 10)
                               .desc("popularity zipf: the exponent");

const ComponentSpec& cachebench_spec() {
  static const ComponentSpec spec = [] {
    // trace.requests and the size keys first: the column order of the keys the generators
    // share stays as it was.
    std::vector<KeySpec> keys{generator_requests_key()};
    for (const KeySpec& k : object_size_keys()) keys.push_back(k);
    for (const KeySpec& k : {kNumKeys, kGet, kSet, kDel, kKeyRange, kKeyProb, kValRange, kValProb,
                             kPopularity, kZipfAlpha}) {
      keys.push_back(k);
    }
    for (const KeySpec& k : generator_time_keys()) keys.push_back(k);
    return ComponentSpec{"cachebench",
                         "CacheBench's stressor shape: op ratios, piecewise-uniform key and "
                         "value sizes, normal (CacheBench's), uniform or zipf keys",
                         keys,
                         {},
                         {},
                         {}};
  }();
  return spec;
}

struct CachebenchConfig {
  uint64_t num_keys = 1'000'000, requests = 1'000'000, seed = 1;
  double get = 0.8, set = 0.2, del = 0;
  std::string key_range, key_prob, val_range, val_prob;
  enum class Popularity : uint8_t { kNormal, kUniform, kZipf } popularity = Popularity::kNormal;
  double alpha = 0.9;
  /// Value sizes from the object size keys instead of val_size_range.
  bool object_sizes = false;
  ObjectSizes sizes;

  static CachebenchConfig from(const TraceConfig& config) {
    const Params& p = config.params;
    CachebenchConfig c;
    c.num_keys = p.get<uint64_t>(kNumKeys);
    c.requests = p.get<uint64_t>(generator_requests_key());
    c.get = p.get<double>(kGet);
    c.set = p.get<double>(kSet);
    c.del = p.get<double>(kDel);
    c.key_range = p.get<std::string>(kKeyRange);
    c.key_prob = p.get<std::string>(kKeyProb);
    c.val_range = p.get<std::string>(kValRange);
    c.val_prob = p.get<std::string>(kValProb);
    const std::string popularity = p.get<std::string>(kPopularity);
    c.popularity = popularity == "zipf"      ? Popularity::kZipf
                   : popularity == "uniform" ? Popularity::kUniform
                                             : Popularity::kNormal;
    c.alpha = p.get<double>(kZipfAlpha);
    c.seed = config.seed;
    c.sizes = ObjectSizes::from(p, config.seed);
    c.object_sizes = c.sizes.distribution != SizeDistribution::kConstant ||
                     p.has(object_size_keys()[1].name);  // trace.size written
    return c;
  }
  void validate() const {
    if (!(get + set + del > 0)) {
      throw std::invalid_argument(
          "trace: expected a positive get_ratio, set_ratio or del_ratio, found all 0");
    }
    (void)Piecewise(kKeyRange.name, key_range, kKeyProb.name, key_prob);
    (void)Piecewise(kValRange.name, val_range, kValProb.name, val_prob, true);
    if (object_sizes) sizes.validate();
  }
  std::string identity() const {
    return fmt::format(
        "cachebench keys={} requests={} get={} set={} del={} key={}/{} val={}/{} popularity={} "
        "alpha={} seed={} stream={}{}",
        num_keys, requests, get, set, del, key_range, key_prob, val_range, val_prob,
        popularity == Popularity::kZipf      ? "zipf"
        : popularity == Popularity::kUniform ? "uniform"
                                             : "normal",
        alpha, seed, RngStream::kCachebenchStream,
        object_sizes ? " values " + sizes.identity() : "");
  }
};

class CachebenchReader final : public TraceReader {
 public:
  explicit CachebenchReader(const CachebenchConfig& c)
      : c_(c),
        keys_(kKeyRange.name, c.key_range, kKeyProb.name, c.key_prob),
        values_(kValRange.name, c.val_range, kValProb.name, c.val_prob, true),
        name_("cachebench:" + c.identity()),
        rng_(c.seed, RngStream::kCachebenchStream) {
    const double total = c.get + c.set + c.del;
    get_share_ = c.get / total;
    set_share_ = c.set / total;
    if (c.popularity == CachebenchConfig::Popularity::kZipf) sampler_.emplace(c.num_keys, c.alpha);
  }
  size_t read(std::span<Request> out) override {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(out.size(), c_.requests - done_));
    auto uniform = [this] { return rng_.uniform(); };
    for (size_t i = 0; i < n; ++i) {
      const double u = rng_.uniform();
      const Op op = u < get_share_                ? Op::kGet
                    : u < get_share_ + set_share_ ? Op::kSet
                                                  : Op::kDelete;
      const uint64_t index = key_index(uniform);
      const uint64_t k = splitmix64_mix(index);
      const uint64_t value = c_.object_sizes
                                 ? c_.sizes.of(k)
                                 : values_(key_variate(k, c_.seed, 3), key_variate(k, c_.seed, 4));
      const uint64_t size = keys_(key_variate(k, c_.seed, 1), key_variate(k, c_.seed, 2)) + value;
      out[i] = Request{0, k, static_cast<uint32_t>(std::min<uint64_t>(size, 0xFFFFFFFFull)), op};
    }
    done_ += n;
    return n;
  }
  const std::string& path() const override { return name_; }

 private:
  template <typename Uniform>
  uint64_t key_index(Uniform& uniform) {
    switch (c_.popularity) {
      case CachebenchConfig::Popularity::kZipf:
        return (*sampler_)(uniform)-1;
      case CachebenchConfig::Popularity::kUniform:
        return rng_.below(c_.num_keys);
      case CachebenchConfig::Popularity::kNormal:
        break;
    }
    // NormalDistribution(mean, stdDev, left, right): std::round of a normal variate, drawn
    // again until in [left, right]; mean (left + right) × 0.5, stdDev (right − left) × 0.5 / 2.
    // The normal variate by Box–Muller (one per pair of uniforms).
    const double left = 0, right = static_cast<double>(c_.num_keys - 1);
    const double mean = (left + right) * 0.5, sd = (right - left) * 0.5 / 2;
    for (;;) {
      const double u1 = 1.0 - rng_.uniform();  // (0, 1]
      const double u2 = rng_.uniform();
      const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
      const double v = std::round(mean + sd * z);
      if (v >= left && v <= right) return static_cast<uint64_t>(v);
    }
  }

  CachebenchConfig c_;
  Piecewise keys_, values_;
  std::string name_;
  RngStream rng_;
  double get_share_ = 0, set_share_ = 0;
  std::optional<ZipfSampler> sampler_;
  uint64_t done_ = 0;
};

}  // namespace

extern const TraceGenerator kCachebenchGenerator{
    &cachebench_spec,
    [](const TraceConfig& config) -> std::unique_ptr<TraceReader> {
      const CachebenchConfig c = CachebenchConfig::from(config);
      c.validate();
      return with_arrivals(std::make_unique<CachebenchReader>(c), config);
    },
    [](const TraceConfig& config) {
      return CachebenchConfig::from(config).identity() + arrivals_identity(config);
    },
    [](const TraceConfig& config) { CachebenchConfig::from(config).validate(); }};

}  // namespace flashpq
