// engine/frequency_sketch.h — TinyLFU's frequency sketch: a count-min sketch of 4-bit counters
// with periodic halving, and the doorkeeper Bloom filter in front of it.
//
// Used by TinyLFU admission and W-TinyLFU (policies/tinylfu.h, policies/wtinylfu.h) and by a
// hierarchy's tinylfu flash admission (engine/tiers.h).
//
// Sources:
//   [TinyLFU] G. Einziger, R. Friedman, B. Manes, "TinyLFU: A Highly Efficient Cache Admission
//             Policy", ACM Transactions on Storage 13(4), 2017 (arXiv:1512.00727): the frequency
//             histogram is an approximate counting sketch over a sample of W accesses; the
//             reset halves every counter after W additions; small counters (a count need not
//             exceed W/C); the doorkeeper, a Bloom filter in front of the counters that absorbs
//             first occurrences and is cleared at each reset; a candidate is admitted iff its
//             estimated frequency exceeds the victim's.
//   [CF]      Caffeine's FrequencySketch (caffeine/src/main/java/.../cache/FrequencySketch.java):
//             depth 4, 16 counters packed in each 64-bit word, the table sized to the cache's
//             maximum number of entries rounded up to a power of two (at least 8 words), a
//             key's four counters confined to one 64-byte block (one cache line), sample size
//             10 × maximum, reset = halve every counter and subtract (number of odd counters)/4
//             from the addition count before halving it; an addition counts toward the sample
//             only if at least one of the key's counters was below 15.
//   [CFSIM]   Caffeine's simulator (simulator/src/main/resources/reference.conf, admission
//             TinyLfu.java, countmin4/PeriodicResetCountMin4.java, membership/bloom/
//             BloomFilter.java): sketch count-min-4 with periodic reset, counters-multiplier
//             1.0, periodic.doorkeeper.enabled = false; the doorkeeper is the membership filter
//             sized for expected-insertions-multiplier 3.0 × maximum size at fpp 0.01, probed
//             with 4 hashes; record(): if put() into the doorkeeper changed it (a first
//             occurrence) the sketch is not incremented; frequency() = sketch + 1 if the
//             doorkeeper might contain the key, at most 15; admit(candidate, victim) iff
//             frequency(candidate) > frequency(victim).
//
// What is ours (the code is written from the descriptions above, not translated): hashing is
// the fmix64 finaliser of engine/key_hash.h applied once to the key xor a fixed seed, its 64
// bits cut into independent fields. Bits 20–63 pick the key's 64-byte block of 8 words, as in
// [CF]. Within the block a key touches two words, not four: rows 0 and 1 share one of words 0–3
// (bits 0–1), rows 2 and 3 one of words 4–7 (bits 2–3); row 0 takes one of the low 8 nibbles of
// its word, row 1 one of the high 8, and so on (3 bits each, bits 4–15). Every row thus still
// chooses among 32 counters per block, width = 4 × words counters per row, and rows never share
// a counter. Halving the read-modify-writes halves what TinyLFU adds to an LRU request (w106,
// 10 % of the working set, CPU time: +24 % instead of +57 %); hit ratios stay within seed noise
// of the four-word layout (W-TinyLFU on w106: equal to 4 decimals at 1–20 %; on adaptsize: ±0.1 pp,
// mean of 6 seeds). Deterministic: no random seed, no global state.
//
// The per-request path: the cache calls record() on every get and set and admit() on every
// miss that would evict, so both are inlined into it (out of line, each call also saved and
// restored five registers); increment() handles the key's two words as one 2 × 64-bit
// vector and counts down to the reset; estimate() lifts the four counters with SSE2 products.
// None of this changes a counter, an addition or a reset (tests/policies/test_tinylfu.cpp checks
// them in lockstep against a per-counter reference). On w106 at 10 % of its working set
// (`flashpq bench --policies fifo,lru --admission none,tinylfu`; callgrind, replay loop only):
// exact LRU takes 168 instructions per request with TinyLFU and 96 without, exact FIFO 161 and
// 78. Most of it is the sketch's own: with every decision computed but ignored (the workload
// of plain FIFO) FIFO takes 153. record() alone is ~55 (the fmix64 hash 12, the word
// addresses, units and loads ~20, the saturating add and stores 10, the sample count 8, the
// op, doorkeeper and reset tests 6); the estimates on misses take most of the rest. Cutting it
// further means a weaker hash or another counter layout, which changes which counters collide
// and so TinyLFU's results.
//
// Memory is sized by an object count, never by bytes of capacity: 8 bytes per expected object
// (rounded up to a power of two) for the sketch, plus ~3.6–7.2 bytes per expected object for
// the doorkeeper when enabled. (libCacheSim sizes its W-TinyLFU sketch from the byte capacity,
// which gives multi-GB sketches for TB caches.)
#pragma once

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/key_hash.h"

namespace flashpq {

/// ceil(factor × n) as an integer, at least 1, saturating at 2^62 (far above every limit that
/// callers check): the sketch's and doorkeeper's sizes scaled from an object count.
uint64_t scaled_count(double factor, uint64_t n);

/// A count-min sketch of depth 4 with 4-bit counters and periodic halving ([CF], [TinyLFU]).
/// Not thread-safe.
class FrequencySketch {
 public:
  static constexpr unsigned kDepth = 4;
  static constexpr unsigned kCounterBits = 4;
  static constexpr uint32_t kMaxCount = 15;
  /// Largest table: 2^40 words (8 TiB). Larger requests throw std::invalid_argument.
  static constexpr uint64_t kMaxWords = uint64_t{1} << 40;

  /// Sizes the sketch for `expected_objects` cached objects (0 counts as 1):
  ///   words       = max(8, next power of two >= ceil(counters_multiplier × expected_objects));
  ///   width       = 4 × words counters per row (depth 4, 16 counters per word);
  ///   sample size = sample_factor × expected_objects additions between halvings.
  /// REQUIRES: counters_multiplier > 0, sample_factor >= 1 (TinyLfuConfig::from checks the
  /// ranges). Throws std::invalid_argument if the table would exceed kMaxWords.
  FrequencySketch(uint64_t expected_objects, double counters_multiplier, uint32_t sample_factor);

  /// Number of 64-bit words the sketch would take for these parameters (no allocation).
  static uint64_t words_for(uint64_t expected_objects, double counters_multiplier);

  /// Adds one occurrence of `key`: each of its 4 counters below 15 is incremented. If any was,
  /// the addition counts toward the sample; when the count reaches the sample size, reset()
  /// runs. Returns true if and only if this call ran reset().
  /// Inlined into every caller: it runs on every request (an out-of-line call here costs a
  /// register save and restore per request, a tenth of an LRU request).
  [[gnu::always_inline]] bool increment(uint64_t key) {
    const uint64_t h = hash(key);
    uint64_t* const block = words_.data() + block_of(h);
    // Branch-free and without variable shifts (2–3 µops each on baseline x86-64): the units
    // come from a table, saturated() masks counters already at 15. A branch on the loaded
    // counters would mispredict for hot (saturated) keys. The two words are handled as one
    // 2 × 64-bit vector (GCC/Clang vector extension: SSE2 on x86-64, NEON on AArch64), which
    // halves the instructions of the saturation test and the add: this runs on every request.
    uint64_t* const a = &block[h & 3];               // rows 0 and 1
    uint64_t* const b = &block[4 + ((h >> 2) & 3)];  // rows 2 and 3
    U64x2 w = {*a, *b};
    const U64x2 units = {kUnits[(h >> 4) & 63], kUnits[(h >> 10) & 63]};
    const U64x2 add = units & ~saturated(w);
    w += add;
    *a = w[0];
    *b = w[1];
    until_reset_ -= (add[0] | add[1]) != 0;
    if (until_reset_ == 0) [[unlikely]] {
      reset();
      return true;
    }
    return false;
  }

  /// The estimated count of `key`: the minimum of its 4 counters, in [0, 15]. Before any reset
  /// it is never below min(true count, 15) (the count-min property).
  [[gnu::always_inline]] uint32_t estimate(uint64_t key) const {
    const uint64_t h = hash(key);
    const uint64_t* const block = words_.data() + block_of(h);
    const uint64_t wa = block[h & 3];               // rows 0 and 1
    const uint64_t wb = block[4 + ((h >> 2) & 3)];  // rows 2 and 3
#if defined(__SSE2__)
    // Row r's counter is nibble n_r = nibble_of(h, r) of its word: rows 0 and 2 in the low 32
    // bits (n < 8), rows 1 and 3 in the high 32 (n ≥ 8). SSE2 has no per-lane variable shift,
    // so each counter is lifted instead: the 32 × 32-bit product x × 2^(28 − 4 (n mod 8))
    // (pmuludq) holds nibble n mod 8 of x in bits 28–31. The four counters end up in the low
    // bytes of two vectors; two byte minimums give the smallest: 23 instructions after the
    // loads instead of 30 for four variable shifts (2–3 µops each) and three compare-and-moves.
    const __m128i w = _mm_set_epi64x(static_cast<long long>(wb), static_cast<long long>(wa));
    const __m128i lift = _mm_set_epi64x(static_cast<long long>(kLifts[(h >> 10) & 63]),
                                        static_cast<long long>(kLifts[(h >> 4) & 63]));
    const __m128i nibble = _mm_set1_epi64x(0xF);
    const __m128i rows02 = _mm_and_si128(_mm_srli_epi64(_mm_mul_epu32(w, lift), 28), nibble);
    const __m128i rows13 = _mm_and_si128(
        _mm_srli_epi64(_mm_mul_epu32(_mm_srli_epi64(w, 32), _mm_srli_epi64(lift, 32)), 28), nibble);
    __m128i m = _mm_min_epu8(rows02, rows13);
    m = _mm_min_epu8(m, _mm_shuffle_epi32(m, 0x4E));  // swap the 64-bit halves
    return static_cast<uint32_t>(_mm_cvtsi128_si32(m));
#else
    // Each counter shifted out by 4 × nibble_of(h, row); the minimum is branch-free.
    const uint32_t c0 = static_cast<uint32_t>(wa >> ((h >> 2) & 28)) & 0xF;
    const uint32_t c1 = static_cast<uint32_t>(wa >> (32 + ((h >> 5) & 28))) & 0xF;
    const uint32_t c2 = static_cast<uint32_t>(wb >> ((h >> 8) & 28)) & 0xF;
    const uint32_t c3 = static_cast<uint32_t>(wb >> (32 + ((h >> 11) & 28))) & 0xF;
    const uint32_t m01 = c0 < c1 ? c0 : c1;
    const uint32_t m23 = c2 < c3 ? c2 : c3;
    return m01 < m23 ? m01 : m23;
#endif
  }

  /// Halves every counter (floor) and sets additions = (additions − odd/4) / 2, where odd is the
  /// number of counters that were odd ([CF]: the truncation correction).
  void reset();

  /// Where row `row` (< 4) keeps `key`'s counter: a word index and a nibble (0–15) in it.
  struct Slot {
    size_t word;
    unsigned nibble;
  };
  Slot slot(uint64_t key, unsigned row) const {
    const uint64_t h = hash(key);
    return Slot{block_of(h) + word_in_block(h, row), nibble_of(h, row)};
  }
  /// The counter of `key` in row `row`.
  uint32_t counter(uint64_t key, unsigned row) const {
    return nibble(slot(key, row));
  }
  uint32_t nibble(Slot s) const {
    return static_cast<uint32_t>(words_[s.word] >> (s.nibble * 4)) & 0xF;
  }

  /// Counters per row.
  uint64_t width() const {
    return words_.size() * 4;
  }
  uint64_t sample_size() const {
    return sample_size_;
  }
  /// Additions counted since the last reset (after a reset: the corrected, halved count).
  uint64_t additions() const {
    return sample_size_ - until_reset_;
  }
  uint64_t resets() const {
    return resets_;
  }
  const std::vector<uint64_t>& words() const {
    return words_;
  }
  /// Bytes of DRAM: depth × width × 4 bits = 8 bytes per word.
  size_t memory_bytes() const {
    return words_.capacity() * sizeof(uint64_t);
  }

 private:
  static constexpr uint64_t kSeed = 0x9E3779B97F4A7C15ULL;  // the golden-ratio constant
  // kUnits[s] adds 1 to nibble (s & 7) and to nibble 8 + (s >> 3): the counters of a word's two
  // rows (see the file comment).
  static constexpr std::array<uint64_t, 64> kUnits = [] {
    std::array<uint64_t, 64> t{};
    for (unsigned s = 0; s < 64; ++s) {
      t[s] = (uint64_t{1} << (4 * (s & 7))) | (uint64_t{1} << (4 * (8 + (s >> 3))));
    }
    return t;
  }();

  // kLifts[s]: in its low 32 bits 2^(28 − 4 (s & 7)), in its high 32 bits 2^(28 − 4 (s >> 3)):
  // the multipliers that lift the counters kUnits[s] adds to (nibbles s & 7 and 8 + (s >> 3))
  // to bits 28–31 of the products in estimate().
  static constexpr std::array<uint64_t, 64> kLifts = [] {
    std::array<uint64_t, 64> t{};
    for (unsigned s = 0; s < 64; ++s) {
      t[s] = (uint64_t{1} << (28 - 4 * (s & 7))) | (uint64_t{1} << (32 + 28 - 4 * (s >> 3)));
    }
    return t;
  }();

  static uint64_t hash(uint64_t key) {
    return mix64(key ^ kSeed);
  }
  // The first word of h's block: ((h >> 20) & (blocks − 1)) × 8, in one shift and one mask.
  size_t block_of(uint64_t h) const {
    return static_cast<size_t>((h >> 17) & block_word_mask_);
  }
  static size_t word_in_block(uint64_t h, unsigned row) {
    return row < 2 ? (h & 3) : 4 + ((h >> 2) & 3);
  }
  static unsigned nibble_of(uint64_t h, unsigned row) {
    return 8 * (row & 1) + static_cast<unsigned>((h >> (4 + 3 * row)) & 7);
  }
  using U64x2 = uint64_t __attribute__((vector_size(16)));

  // Bit 4k of each lane is set iff nibble k of that lane is 15 (all four of its bits set); other
  // bits are noise that the callers mask off with a unit.
  static U64x2 saturated(U64x2 w) {
    const U64x2 t = w & (w >> 1);
    return t & (t >> 2);
  }

  std::vector<uint64_t> words_;
  uint64_t block_word_mask_ = 0;  // (blocks of 8 words − 1) × 8
  uint64_t sample_size_ = 0;
  uint64_t until_reset_ = 0;  // sample_size_ − additions: increment() tests it against 0
  uint64_t resets_ = 0;
};

/// The doorkeeper of [TinyLFU]: a Bloom filter with 4 probes ([CFSIM]) sized for
/// `expected_insertions` keys at false-positive probability `fpp`:
///   bits = max(128, next power of two >= expected_insertions × −ln(fpp) / ln²2).
/// Not thread-safe.
class Doorkeeper {
 public:
  static constexpr unsigned kProbes = 4;

  /// An empty filter of no bits (a disabled doorkeeper): contains() is false, put() is true.
  Doorkeeper() = default;
  /// REQUIRES: 0 < fpp < 1. Throws std::invalid_argument if the filter would exceed 2^46 bits.
  Doorkeeper(uint64_t expected_insertions, double fpp);

  /// Number of bits the filter would take (no allocation).
  static uint64_t bits_for(uint64_t expected_insertions, double fpp);

  /// Sets `key`'s bits. Returns true if and only if at least one bit was clear (the key was
  /// not, as far as the filter can tell, present: [CFSIM] "the membership changed").
  bool put(uint64_t key) {
    if (bits_.empty()) return true;
    uint64_t h1, h2;
    probes(key, h1, h2);
    bool changed = false;
    for (unsigned i = 0; i < kProbes; ++i) {
      const uint64_t b = (h1 + i * h2) & mask_;
      uint64_t& w = bits_[b >> 6];
      const uint64_t m = uint64_t{1} << (b & 63);
      changed |= (w & m) == 0;
      w |= m;
    }
    return changed;
  }

  /// True if all of `key`'s bits are set (it was put since the last clear, or a false positive).
  bool contains(uint64_t key) const {
    if (bits_.empty()) return false;
    uint64_t h1, h2;
    probes(key, h1, h2);
    for (unsigned i = 0; i < kProbes; ++i) {
      const uint64_t b = (h1 + i * h2) & mask_;
      if ((bits_[b >> 6] & (uint64_t{1} << (b & 63))) == 0) return false;
    }
    return true;
  }

  void clear();
  uint64_t bit_count() const { return bits_.size() * 64; }
  size_t memory_bytes() const { return bits_.capacity() * sizeof(uint64_t); }

 private:
  // Double hashing (Kirsch–Mitzenmacher): probe i is h1 + i·h2, with h2 odd so the 4 probes of
  // a key are distinct bits.
  static void probes(uint64_t key, uint64_t& h1, uint64_t& h2) {
    h1 = mix64(key ^ 0xD6E8FEB86659FD93ULL);
    h2 = mix64(h1) | 1;
  }

  std::vector<uint64_t> bits_;
  uint64_t mask_ = 0;
};

}  // namespace flashpq
