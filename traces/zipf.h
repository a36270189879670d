// traces/zipf.h — the `zipf` request generator: gets of `objects` keys whose popularity follows
// Zipf's law, P(rank k) = k^(−alpha) / H(N, alpha) for k in 1..N (alpha = 0: uniform).
//
// Ranks are drawn by rejection-inversion (Hörmann & Derflinger, "Rejection-inversion to generate
// variates from monotone discrete distributions", ACM TOMACS 6(3), 1996; as in Apache Commons
// RNG's RejectionInversionZipfSampler): exact for every alpha ≥ 0 and N, O(1) expected time per
// draw, no table. Uniform variates come from the cell seed's stream RngStream::kZipfStream. With
// `scramble` (the default) rank k becomes key splitmix64_mix(k) (the splitmix64 finalizer,
// sim/rng.h, a bijection on 64-bit words), so the hot keys are scattered over the key space as in
// YCSB's scrambled zipfian; without it the key is the rank. Each request is a get (a miss inserts,
// read-through), its size the key's object size (traces/object_sizes.h), its time 0.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include "traces/object_sizes.h"
#include "traces/trace_reader.h"

namespace flashpq {

/// The generator's part of the `trace:` section (format: generator, generator: zipf).
struct ZipfConfig {
  /// Distinct keys N, [1, 2^40]. Default 1,000,000.
  uint64_t objects = 1'000'000;
  /// The exponent, [0, 10]; 0 = uniform. Default 0.99.
  double alpha = 0.99;
  /// Scatter ranks over the key space. Default true.
  bool scramble = true;
  /// Requests yielded. Default 1,000,000.
  uint64_t requests = 1'000'000;
  ObjectSizes sizes;
  uint64_t seed = 1;

  /// A stable text of every field (the random stream included), hashed as the content hash.
  std::string identity() const;
  /// Throws std::invalid_argument quoting the bad value.
  void validate() const;
  /// Decodes the generator's keys of `config` and its seed. Not validated.
  static ZipfConfig from(const TraceConfig& config);
};

/// Draws ranks in [1, n] with P(k) ∝ k^(−alpha) by rejection-inversion (see above).
class ZipfSampler {
 public:
  /// REQUIRES: n ≥ 1, alpha ≥ 0.
  ZipfSampler(uint64_t n, double alpha);
  /// A rank in [1, n], from uniform variates drawn with `uniform()` (values in [0, 1)).
  template <class Uniform>
  uint64_t operator()(Uniform&& uniform) const {
    for (;;) {
      const double u = h_integral_n_ + uniform() * (h_integral_x1_ - h_integral_n_);
      const double x = h_integral_inverse(u);
      double k = std::floor(x + 0.5);
      if (k < 1) k = 1;
      if (k > n_) k = n_;
      if (k - x <= s_ || u >= h_integral(k + 0.5) - h(k)) return static_cast<uint64_t>(k);
    }
  }

 private:
  double h(double x) const;
  double h_integral(double x) const;
  // H⁻¹(x) = exp(log1p(t)/t · x), t = x(1 − alpha) (Apache Commons RNG), written as
  // exp(log1p(t) / (1 − alpha)) when 1 − alpha is not tiny: the same value without the
  // division per draw; inline, as it runs once per request.
  double h_integral_inverse(double x) const {
    double t = x * one_minus_alpha_;
    if (t < -1.0) t = -1.0;  // limits the value for rounding errors
    if (direct_inverse_) return std::exp(std::log1p(t) * inv_one_minus_alpha_);
    return std::exp(helper1(t) * x);
  }
  static double helper1(double x);

  double n_;
  double alpha_;
  double one_minus_alpha_;
  double inv_one_minus_alpha_;
  bool direct_inverse_;
  double h_integral_x1_;
  double h_integral_n_;
  double s_;
};

}  // namespace flashpq
