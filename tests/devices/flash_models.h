// tests/devices/flash_models.h — what the flash tests share: the greedy mean-field model of
// write amplification under uniform random single-page writes (Van Houdt, "A mean field model
// for a class of garbage collection algorithms in flash-based solid state drives",
// SIGMETRICS'13, as d → ∞), and a seeded workload generator. Used by test_simflash.cpp (the
// FTL's GC) and test_host_ftl.cpp (the host FTL's collection over zones).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

namespace flashpq::flash_models {

/// Greedy victims with b pages per block, uniform random single-page writes, N → ∞: the
/// fixed point of Van Houdt's mean-field model as d → ∞ (greedy).
///
/// A block leaves the write frontier with b valid pages; each of its i valid pages is
/// overwritten at rate 1/U per host write, so it spends U/i host writes at level i. Greedy
/// always collects the lowest level present; in the fixed point blocks reaching level j are
/// collected at once, and a rate λ_{j+1} of blocks is taken at level j+1 (the rest, λ_j, decays
/// to j). With λ = λ_j + λ_{j+1} blocks collected per host write:
///   host pages:    λ_j (b − j) + λ_{j+1} (b − j − 1) = 1    ⇔ λ_j = 1 − λ (b − j − 1)
///   blocks (N):    N = λ U (H_b − H_{j+1}) + λ_j U / (j + 1)   (Little's law per level)
/// and N b = U / ρ gives λ; j is the level with 0 ≤ λ_j ≤ λ. WA = b λ (every collected block's
/// b pages are rewritten). For b = 1 a block is all valid or all invalid: WA = 1.
inline double wa_greedy_meanfield(double rho, uint32_t b) {
  if (b == 1) return 1.0;
  std::vector<double> h(b + 1, 0.0);  // harmonic numbers
  for (uint32_t i = 1; i <= b; ++i) h[i] = h[i - 1] + 1.0 / i;
  for (uint32_t j = 0; j < b; ++j) {
    const double den = (h[b] - h[j + 1]) - double(b - j - 1) / (j + 1);
    const double lambda = (1.0 / (rho * b) - 1.0 / (j + 1)) / den;
    const double lambda_j = 1.0 - lambda * (b - j - 1);
    if (lambda > 0 && lambda_j >= -1e-12 && lambda_j <= lambda * (1 + 1e-12)) return b * lambda;
  }
  throw std::logic_error("wa_greedy_meanfield: no fixed point");
}

/// splitmix64: a fast, seeded generator for workloads.
struct Mix {
  uint64_t x;
  uint64_t next() {
    uint64_t z = (x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint64_t below(uint64_t n) {
    return uint64_t((static_cast<unsigned __int128>(next()) * n) >> 64);
  }
};

}  // namespace flashpq::flash_models
