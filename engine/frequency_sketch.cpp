// engine/frequency_sketch.cpp — the cold paths of the frequency sketch and the doorkeeper:
// sizing, reset, construction. Sources: see engine/frequency_sketch.h.
#include "engine/frequency_sketch.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>

namespace flashpq {

namespace {

// The smallest power of two >= x, for x in [1, 2^62]; larger x is returned as 2^63 (callers
// compare against their own limits first).
uint64_t ceil_pow2(uint64_t x) {
  if (x <= 1) return 1;
  if (x > (uint64_t{1} << 62)) return uint64_t{1} << 63;
  return std::bit_ceil(x);
}

}  // namespace

uint64_t scaled_count(double factor, uint64_t n) {
  const double v = std::ceil(factor * static_cast<double>(n));
  return v >= 0x1p62 ? (uint64_t{1} << 62) : static_cast<uint64_t>(std::max(v, 1.0));
}

// ---------------------------------------------------------------------------------------------
// FrequencySketch

uint64_t FrequencySketch::words_for(uint64_t expected_objects, double counters_multiplier) {
  const uint64_t n = std::max<uint64_t>(expected_objects, 1);
  return std::max<uint64_t>(8, ceil_pow2(scaled_count(counters_multiplier, n)));
}

FrequencySketch::FrequencySketch(uint64_t expected_objects, double counters_multiplier,
                                 uint32_t sample_factor) {
  const uint64_t words = words_for(expected_objects, counters_multiplier);
  if (words > kMaxWords) {
    throw std::invalid_argument("TinyLFU sketch: " + std::to_string(expected_objects) +
                                " expected objects × counters multiplier " +
                                std::to_string(counters_multiplier) +
                                " needs more than 2^40 words (8 TiB)");
  }
  words_.assign(words, 0);
  block_word_mask_ = (words / 8 - 1) << 3;
  const uint64_t n = std::max<uint64_t>(expected_objects, 1);
  const uint64_t factor = std::max<uint32_t>(sample_factor, 1);
  sample_size_ = n > UINT64_MAX / factor ? UINT64_MAX : n * factor;
  until_reset_ = sample_size_;
}

void FrequencySketch::reset() {
  constexpr uint64_t kOneMask = 0x1111111111111111ULL;    // the low bit of every nibble
  constexpr uint64_t kResetMask = 0x7777777777777777ULL;  // clears what >> 1 shifts across
  constexpr uint64_t kByteLow = 0x0F0F0F0F0F0F0F0FULL;    // the low nibble of every byte
  constexpr uint64_t kByteSum = 0x0101010101010101ULL;    // × this sums the bytes into the top
  uint64_t odd = 0;
  for (uint64_t& w : words_) {
    // The number of odd counters of w: the popcount of its nibbles' low bits, added up within
    // each byte (at most 2) and then across the bytes (at most 16) by one multiplication.
    // std::popcount without -mpopcnt is a library call per word.
    uint64_t ones = w & kOneMask;
    ones = (ones + (ones >> 4)) & kByteLow;
    odd += (ones * kByteSum) >> 56;
    w = (w >> 1) & kResetMask;
  }
  const uint64_t correction = odd / 4;
  const uint64_t additions = sample_size_ - until_reset_;
  until_reset_ = sample_size_ - (additions > correction ? additions - correction : 0) / 2;
  ++resets_;
}

// ---------------------------------------------------------------------------------------------
// Doorkeeper

uint64_t Doorkeeper::bits_for(uint64_t expected_insertions, double fpp) {
  const double per_key = -std::log(fpp) / (std::log(2.0) * std::log(2.0));
  const uint64_t bits = scaled_count(per_key, std::max<uint64_t>(expected_insertions, 1));
  return std::max<uint64_t>(128, ceil_pow2(bits));
}

Doorkeeper::Doorkeeper(uint64_t expected_insertions, double fpp) {
  const uint64_t bits = bits_for(expected_insertions, fpp);
  if (bits > (uint64_t{1} << 46)) {
    throw std::invalid_argument("TinyLFU doorkeeper: " + std::to_string(expected_insertions) +
                                " expected insertions need more than 2^46 bits (8 TiB)");
  }
  bits_.assign(bits / 64, 0);
  mask_ = bits - 1;
}

void Doorkeeper::clear() {
  std::fill(bits_.begin(), bits_.end(), uint64_t{0});
}

}  // namespace flashpq
