// traces/object_sizes.h — object sizes for generated key-value traces: one size per key, drawn
// once from a distribution and kept for every request to that key (an object does not change
// size between requests unless a trace says so).
//
// A key's size is a function of the key and the cell's seed: its uniform variates are the
// splitmix64 finalizer (Steele, Lea & Flood, OOPSLA 2014) of the key mixed with the seed and a
// stream id, so no state is kept per key and the stream is reproducible bit for bit.
//   constant    every object `trace.size` bytes;
//   uniform     uniform integers in [trace.size_min, trace.size_max];
//   lognormal   round(exp(mu + sigma · Z)), Z standard normal by Box–Muller (Box & Muller, Ann.
//               Math. Statist. 29, 1958) from two of the key's variates, with mu = ln(trace.size)
//               (the median) and sigma = trace.size_sigma (natural-log scale), clamped to
//               [size_min, size_max];
//   pareto      size_min · U^(−1/shape) (inversion of the Pareto CDF 1 − (x_m/x)^shape), shape
//               = trace.size_shape, clamped to size_max;
//   empirical   the sizes of the objects of a trace file (trace.size_trace, read as
//               trace.size_trace_format, by default as its content says: traces/trace_reader.h
//               trace_format_for(); each object's first-seen size, as the working set
//               counts it): the key's variate picks one of them, so the generated objects'
//               sizes follow that trace's object size distribution.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/params.h"

namespace flashpq {

enum class SizeDistribution : uint8_t { kConstant, kUniform, kLognormal, kPareto, kEmpirical };

/// The size keys of a generator's `trace:` section.
struct ObjectSizes {
  SizeDistribution distribution = SizeDistribution::kConstant;
  /// constant: the size; lognormal: the median. Bytes, ≥ 1. Default 4096 (the generator
  /// chooses it when trace.size is not written: ObjectSizes::from).
  uint64_t size = 4096;
  /// uniform, lognormal (clamp), pareto (scale x_m). Bytes. Default 1.
  uint64_t size_min = 1;
  /// uniform, lognormal and pareto (clamp). Bytes, ≤ 4 GiB − 1 (a request's size is 32-bit).
  /// Default 1 MiB.
  uint64_t size_max = 1 << 20;
  /// lognormal: sigma of ln(size). Default 1.
  double sigma = 1.0;
  /// pareto: the shape (tail index). Default 1.5.
  double shape = 1.5;
  /// The cell's seed.
  uint64_t seed = 1;
  /// empirical: the trace file and its format ("auto": by its content, trace_format_for()), and
  /// its objects' sizes, sorted (shared between copies; loaded by from()).
  std::string size_trace, size_trace_format = "auto";
  std::shared_ptr<const std::vector<uint32_t>> empirical;

  /// The size of `key`'s object, in bytes, in [1, 2^32 − 1]. Inline for the constant case (a
  /// generator's every request asks).
  uint32_t of(uint64_t key) const {
    return distribution == SizeDistribution::kConstant ? static_cast<uint32_t>(size) : drawn(key);
  }
  /// A stable text of every field, for the generator's identity.
  std::string identity() const;
  /// Throws std::invalid_argument quoting the bad value: min > max, a size out of [1, 2^32 − 1],
  /// sigma < 0, shape ≤ 0.
  void validate() const;
  /// Decodes the size keys of `params` with `seed`; `default_size` is the size (constant) or
  /// median (lognormal) when trace.size is not written. Not validated, but an empirical
  /// distribution's trace is read here (TraceError if it cannot be, std::invalid_argument if it
  /// holds no object).
  static ObjectSizes from(const Params& params, uint64_t seed, uint64_t default_size = 4096);

 private:
  uint32_t drawn(uint64_t key) const;
};

/// The size keys (trace.size_distribution, size, size_min, size_max, size_sigma, size_shape),
/// declared once and listed by every generator of key-value requests.
const std::vector<KeySpec>& object_size_keys();

}  // namespace flashpq
