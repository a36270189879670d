// sim/rng.h — seeded random-number streams: the one random-number generator of FlashPQ.
//
// Every draw whose outcome can reach a results row comes from an RngStream seeded from the
// cell's seed and a stream id (docs/DESIGN.md "Reproducibility"): never a global generator,
// std::random_device, the wall clock, or a std::*_distribution (whose output the C++ standard
// leaves to each library). The conversions to uniform reals, bounded integers and exponential
// variates below are written out, so a seed gives the same numbers with every compiler and
// standard library.
#pragma once

#include <cmath>
#include <cstdint>

namespace flashpq {

/// The splitmix64 finalizer (Steele, Lea & Flood, OOPSLA 2014): a bijection on 64-bit words
/// that scatters its input's bits. Seeds the streams below; the generators scramble keys and
/// draw per-key sizes with it (engine/key_hash.h's mix64 is MurmurHash3's fmix64, another
/// function).
inline uint64_t splitmix64_mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// A seeded pseudo-random stream: xoshiro256** 1.0 (Blackman & Vigna, "Scrambled linear
/// pseudorandom number generators", ACM TOMS 47(4), 2021), its state filled by splitmix64 (Steele,
/// Lea & Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014) from the cell's
/// seed and a stream id, so every consumer of randomness has its own reproducible stream (the
/// Poisson arrivals use stream kArrivalStream). Never global; passed to whoever draws.
class RngStream {
 public:
  /// Stream ids in use (a new consumer takes a new id, so existing streams stay the same).
  /// Open-loop Poisson arrivals, simulated time and wall clock alike (sim/arrivals.h).
  static constexpr uint64_t kArrivalStream = 1;
  /// simflash's d_choices garbage collector: its candidate victims (devices/simflash/ftl.h).
  static constexpr uint64_t kGcStream = 2;
  /// The device_io generator's uniform_random offsets (traces/device_io.h).
  static constexpr uint64_t kDeviceIoStream = 3;
  /// `flashpq bench-device`'s random offsets (experiments/bench_device.h).
  static constexpr uint64_t kBenchDeviceStream = 4;
  /// The data a block device writes: its pattern, and with verify each block's payload
  /// (devices/block/block_device.h). No results row depends on it.
  static constexpr uint64_t kDataStream = 5;
  /// The zipf generator's ranks (traces/zipf.h).
  static constexpr uint64_t kZipfStream = 6;
  /// The ycsb generator's operations, keys and scan lengths (traces/ycsb.h).
  static constexpr uint64_t kYcsbStream = 7;
  /// The cachebench generator's operations and keys (traces/cachebench.cpp).
  static constexpr uint64_t kCachebenchStream = 8;
  /// The fault layer's injected errors (devices/fault.h).
  static constexpr uint64_t kFaultStream = 9;
  /// A hierarchy's random flash admission (engine/tiers.h).
  static constexpr uint64_t kTierAdmissionStream = 10;
  /// NHC's choice of the device that serves a flash hit (engine/tiers.h).
  static constexpr uint64_t kTierOffloadStream = 11;
  /// Navy BlockCache's percentage reinsertion (engine/blockcache/).
  static constexpr uint64_t kBlockCacheReinsertionStream = 12;
  /// Kangaroo's random admission before its log (engine/kangaroo/).
  static constexpr uint64_t kKangarooAdmissionStream = 13;
  /// simflash's misplaced FDP writes (device.fdp.misplaced_fraction).
  static constexpr uint64_t kFdpMisplacementStream = 14;

  RngStream(uint64_t seed, uint64_t stream) {
    // Distinct (seed, stream) pairs give distinct splitmix64 starting points: the stream id is
    // mixed in by one splitmix64 step of its own (an odd multiplier keeps it a bijection).
    uint64_t x = seed ^ splitmix64_mix(stream * 0x9E3779B97F4A7C15ull + 0xD1B54A32D192ED03ull);
    for (uint64_t& w : s_) w = splitmix64(x);
  }

  /// The next 64 uniformly distributed bits.
  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  /// Uniform in [0, 1): the top 53 bits (Vigna's recommended conversion).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  /// Uniform in [0, n) by multiply-high (bias < n / 2^64). REQUIRES: n > 0.
  uint64_t below(uint64_t n) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(next()) * n) >> 64);
  }
  /// Exponentially distributed with the given mean, by inversion: −mean · ln(1 − U), U uniform
  /// in [0, 1), so the argument of the logarithm is in (0, 1].
  double exponential(double mean) { return -mean * std::log1p(-uniform()); }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static uint64_t splitmix64(uint64_t& x) { return splitmix64_mix(x += 0x9E3779B97F4A7C15ull); }

  uint64_t s_[4];
};

}  // namespace flashpq
