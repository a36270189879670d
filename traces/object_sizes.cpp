// traces/object_sizes.cpp — sizes of generated objects (traces/object_sizes.h).
#include "traces/object_sizes.h"

#include <xxhash.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

#include "engine/key_set.h"
#include "fmt/format.h"
#include "sim/rng.h"
#include "traces/trace_reader.h"

namespace flashpq {

namespace {

constexpr uint64_t kMaxSize = 0xFFFFFFFFull;
constexpr uint64_t kSizeStream = 0x5172E5u;  // mixed into the key's variates

// The i-th uniform variate of `key` in (0, 1): never 0, so logarithms stay finite.
double variate(uint64_t key, uint64_t seed, uint64_t i) {
  const uint64_t bits = splitmix64_mix(splitmix64_mix(key ^ splitmix64_mix(seed + kSizeStream)) +
                                       i * 0x9E3779B97F4A7C15ull);
  return (static_cast<double>(bits >> 11) + 0.5) * 0x1.0p-53;
}

const std::vector<std::string>& distribution_names() {
  static const std::vector<std::string> names{"constant", "uniform", "lognormal", "pareto",
                                              "empirical"};
  return names;
}

const KeySpec kDistribution = key("trace.size_distribution", ValueType::kEnum)
                                  .strict_to_readers()
                                  .def("constant")
                                  .choices(distribution_names())
                                  .desc("object sizes, one per key (traces/object_sizes.h)");
const KeySpec kSize = key("trace.size", ValueType::kSize)
                          .strict_to_readers()
                          .from("trace.generator (zipf: 4KiB; ycsb: field_count x field_length)")
                          .units("bytes")
                          .range(1, 4294967295.0)
                          .desc("constant: every object's size; lognormal: the median");
const KeySpec kSizeMin = key("trace.size_min", ValueType::kSize)
                             .strict_to_readers()
                             .def("1")
                             .units("bytes")
                             .range(1, 4294967295.0)
                             .desc("uniform: the smallest size; lognormal: clamp; pareto: scale");
const KeySpec kSizeMax = key("trace.size_max", ValueType::kSize)
                             .strict_to_readers()
                             .def("1MiB")
                             .units("bytes")
                             .range(1, 4294967295.0)
                             .desc("uniform: the largest size; lognormal, pareto: clamp");
const KeySpec kSigma = key("trace.size_sigma", ValueType::kFloat)
                           .strict_to_readers()
                           .def("1")
                           .range(0, 10)
                           .desc("lognormal: sigma of the natural log of the size");
const KeySpec kSizeTrace = key("trace.size_trace", ValueType::kPath)
                               .strict_to_readers()
                               .existing_file()
                               .from("empirical sizes only")
                               .units("path")
                               .desc("empirical: the trace whose object sizes are drawn from");
const KeySpec kSizeTraceFormat = key("trace.size_trace_format", ValueType::kString)
                                     .strict_to_readers()
                                     .def("auto")
                                     .desc(
                                         "empirical: the format of trace.size_trace (auto: "
                                         "by its content, as trace.format)");
const KeySpec kShape = key("trace.size_shape", ValueType::kFloat)
                           .strict_to_readers()
                           .def("1.5")
                           .range(0.01, 100)
                           .desc("pareto: the shape (tail index)");

}  // namespace

const std::vector<KeySpec>& object_size_keys() {
  static const std::vector<KeySpec> keys{kDistribution, kSize,  kSizeMin,   kSizeMax,
                                         kSigma,        kShape, kSizeTrace, kSizeTraceFormat};
  return keys;
}

uint32_t ObjectSizes::drawn(uint64_t key) const {
  double s = 0;
  switch (distribution) {
    case SizeDistribution::kConstant:
      return static_cast<uint32_t>(size);
    case SizeDistribution::kUniform: {
      const uint64_t span = size_max - size_min + 1;
      const uint64_t bits =
          splitmix64_mix(splitmix64_mix(key ^ splitmix64_mix(seed + kSizeStream)));
      return static_cast<uint32_t>(
          size_min + static_cast<uint64_t>((static_cast<unsigned __int128>(bits) * span) >> 64));
    }
    case SizeDistribution::kLognormal: {
      const double u1 = variate(key, seed, 0), u2 = variate(key, seed, 1);
      const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
      s = std::round(std::exp(std::log(static_cast<double>(size)) + sigma * z));
      break;
    }
    case SizeDistribution::kPareto:
      s = std::floor(static_cast<double>(size_min) * std::pow(variate(key, seed, 0), -1.0 / shape));
      break;
    case SizeDistribution::kEmpirical: {
      const std::vector<uint32_t>& v = *empirical;
      const uint64_t bits =
          splitmix64_mix(splitmix64_mix(key ^ splitmix64_mix(seed + kSizeStream)));
      return v[static_cast<size_t>((static_cast<unsigned __int128>(bits) * v.size()) >> 64)];
    }
  }
  s = std::clamp(s, static_cast<double>(size_min), static_cast<double>(size_max));
  return static_cast<uint32_t>(s);
}

std::string ObjectSizes::identity() const {
  std::string id = fmt::format("sizes={} size={} min={} max={} sigma={} shape={}",
                               distribution_names()[static_cast<size_t>(distribution)], size,
                               size_min, size_max, sigma, shape);
  if (distribution == SizeDistribution::kEmpirical) {
    // The sizes themselves, not the path: the same distribution, the same identity.
    id += fmt::format(" empirical={}:{:016x}", empirical->size(),
                      XXH3_64bits(empirical->data(), empirical->size() * sizeof(uint32_t)));
  }
  return id;
}

void ObjectSizes::validate() const {
  for (const uint64_t v : {size, size_min, size_max}) {
    if (v < 1 || v > kMaxSize) {
      throw std::invalid_argument(
          fmt::format("trace sizes: expected sizes in [1, {}] bytes, found {}", kMaxSize, v));
    }
  }
  if (distribution != SizeDistribution::kConstant && size_min > size_max) {
    throw std::invalid_argument(
        fmt::format("key 'trace.size_min': expected at most trace.size_max ({}), found '{}'",
                    size_max, size_min));
  }
  if (!(sigma >= 0)) {
    throw std::invalid_argument(
        fmt::format("key 'trace.size_sigma': expected >= 0, found '{}'", sigma));
  }
  if (!(shape > 0)) {
    throw std::invalid_argument(
        fmt::format("key 'trace.size_shape': expected > 0, found '{}'", shape));
  }
}

ObjectSizes ObjectSizes::from(const Params& p, uint64_t seed, uint64_t default_size) {
  ObjectSizes s;
  const std::string d = p.get<std::string>(kDistribution);
  const auto& names = distribution_names();
  s.distribution =
      static_cast<SizeDistribution>(std::find(names.begin(), names.end(), d) - names.begin());
  s.size = p.has(kSize.name) ? p.get<uint64_t>(kSize) : default_size;
  s.size_min = p.get<uint64_t>(kSizeMin);
  s.size_max = p.get<uint64_t>(kSizeMax);
  s.sigma = p.get<double>(kSigma);
  s.shape = p.get<double>(kShape);
  s.seed = seed;
  if (s.distribution == SizeDistribution::kEmpirical) {
    if (!p.has(kSizeTrace.name)) {
      throw std::invalid_argument(
          "key 'trace.size_trace': expected the trace whose object sizes size_distribution "
          "empirical draws from, found none");
    }
    s.size_trace = p.get<std::string>(kSizeTrace);
    s.size_trace_format = p.get<std::string>(kSizeTraceFormat);
    auto reader = open_trace(trace_file(s.size_trace,
                                        s.size_trace_format == "auto" ? "" : s.size_trace_format,
                                        kSizeTraceFormat.name));
    KeySet seen;
    auto sizes = std::make_shared<std::vector<uint32_t>>();
    std::vector<Request> batch(4096);
    for (size_t n; (n = reader->read(batch)) != 0;) {
      for (size_t i = 0; i < n; ++i) {
        if (batch[i].op != Op::kDelete && seen.insert(batch[i].key)) {
          sizes->push_back(batch[i].size_bytes);
        }
      }
    }
    if (sizes->empty()) {
      throw std::invalid_argument("key 'trace.size_trace': expected a trace with objects, found '" +
                                  s.size_trace + "' empty");
    }
    std::sort(sizes->begin(), sizes->end());
    s.empirical = std::move(sizes);
  }
  return s;
}

}  // namespace flashpq
