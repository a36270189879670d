// traces/zipf.cpp — the zipf generator (traces/zipf.h).
#include "traces/zipf.h"

#include <cmath>
#include <stdexcept>

#include "fmt/format.h"
#include "sim/rng.h"
#include "traces/generator.h"

namespace flashpq {

namespace {

// log1p(x)/x and expm1(x)/x, with their series near 0 (Apache Commons RNG's helper1, helper2).
double helper1_of(double x) {
  return std::abs(x) > 1e-8 ? std::log1p(x) / x : 1 - x * (0.5 - x * (1.0 / 3 - 0.25 * x));
}
double helper2(double x) {
  return std::abs(x) > 1e-8 ? std::expm1(x) / x : 1 + x * 0.5 * (1 + x / 3 * (1 + 0.25 * x));
}

const KeySpec kObjects = key("trace.objects", ValueType::kInt)
                             .strict_to_readers()
                             .def("1000000")
                             .units("keys")
                             .range(1, 1099511627776.0)
                             .desc("distinct keys N");
const KeySpec kAlpha = key("trace.alpha", ValueType::kFloat)
                           .strict_to_readers()
                           .def("0.99")
                           .range(0, 10)
                           .desc(
                               "the exponent (P(rank k) proportional to k^-alpha); 0 = "
                               "uniform");
const KeySpec kScramble = key("trace.scramble", ValueType::kBool)
                              .strict_to_readers()
                              .def("true")
                              .desc("scatter ranks over the key space (else key = rank)");

const ComponentSpec& zipf_spec() {
  static const ComponentSpec spec = [] {
    std::vector<KeySpec> keys{kObjects, kAlpha, kScramble, generator_requests_key()};
    for (const KeySpec& k : object_size_keys()) keys.push_back(k);
    for (const KeySpec& k : generator_time_keys()) keys.push_back(k);
    return ComponentSpec{"zipf",
                         "gets of N keys with Zipf(alpha) popularity (rejection-inversion), "
                         "sized per key",
                         keys,
                         {},
                         {},
                         {}};
  }();
  return spec;
}

class ZipfReader final : public TraceReader {
 public:
  explicit ZipfReader(const ZipfConfig& c)
      : c_(c),
        sampler_(c.objects, c.alpha),
        name_("zipf:" + c.identity()),
        rng_(c.seed, RngStream::kZipfStream) {}

  size_t read(std::span<Request> out) override {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(out.size(), c_.requests - done_));
    auto uniform = [this] { return rng_.uniform(); };
    for (size_t i = 0; i < n; ++i) {
      const uint64_t rank = c_.alpha == 0 ? 1 + rng_.below(c_.objects) : sampler_(uniform);
      const uint64_t k = c_.scramble ? splitmix64_mix(rank) : rank;
      out[i] = Request{0, k, c_.sizes.of(k), Op::kGet};
    }
    done_ += n;
    return n;
  }
  const std::string& path() const override { return name_; }

 private:
  ZipfConfig c_;
  ZipfSampler sampler_;
  std::string name_;
  RngStream rng_;
  uint64_t done_ = 0;
};

}  // namespace

ZipfSampler::ZipfSampler(uint64_t n, double alpha)
    : n_(static_cast<double>(n)),
      alpha_(alpha),
      one_minus_alpha_(1.0 - alpha),
      inv_one_minus_alpha_(1.0 / (1.0 - alpha)),
      direct_inverse_(std::abs(1.0 - alpha) > 1e-8) {
  h_integral_x1_ = h_integral(1.5) - 1.0;
  h_integral_n_ = h_integral(n_ + 0.5);
  s_ = 2.0 - h_integral_inverse(h_integral(2.5) - h(2.0));
}

// h(x) = x^(−alpha), the density the discrete weights are compared with.
double ZipfSampler::h(double x) const {
  return std::exp(-alpha_ * std::log(x));
}

// H(x) = ∫ h = (x^(1−alpha) − 1) / (1 − alpha), or ln x for alpha = 1.
double ZipfSampler::h_integral(double x) const {
  const double log_x = std::log(x);
  return helper2((1.0 - alpha_) * log_x) * log_x;
}

double ZipfSampler::helper1(double x) {
  return helper1_of(x);
}

std::string ZipfConfig::identity() const {
  return fmt::format("zipf objects={} alpha={} scramble={} requests={} {} seed={} stream={}",
                     objects, alpha, scramble, requests, sizes.identity(), seed,
                     RngStream::kZipfStream);
}

void ZipfConfig::validate() const {
  if (objects < 1) {
    throw std::invalid_argument(
        fmt::format("key 'trace.objects': expected >= 1, found '{}'", objects));
  }
  if (!(alpha >= 0)) {
    throw std::invalid_argument(fmt::format("key 'trace.alpha': expected >= 0, found '{}'", alpha));
  }
  sizes.validate();
}

ZipfConfig ZipfConfig::from(const TraceConfig& config) {
  const Params& p = config.params;
  ZipfConfig c;
  c.objects = p.get<uint64_t>(kObjects);
  c.alpha = p.get<double>(kAlpha);
  c.scramble = p.get<bool>(kScramble);
  c.requests = p.get<uint64_t>(generator_requests_key());
  c.sizes = ObjectSizes::from(p, config.seed);
  c.seed = config.seed;
  return c;
}

extern const TraceGenerator kZipfGenerator{
    &zipf_spec,
    [](const TraceConfig& config) -> std::unique_ptr<TraceReader> {
      const ZipfConfig c = ZipfConfig::from(config);
      c.validate();
      return with_arrivals(std::make_unique<ZipfReader>(c), config);
    },
    [](const TraceConfig& config) {
      return ZipfConfig::from(config).identity() + arrivals_identity(config);
    },
    [](const TraceConfig& config) { ZipfConfig::from(config).validate(); }};

}  // namespace flashpq
