// engine/key_hash.h — the fixed, unseeded key hashes of FlashPQ's tables.
//
// hash_key places keys in the index buckets of ObjectTable (engine/object_table.h) and the
// slots of KeySet (engine/key_set.h); mix64 seeds the TinyLFU sketch's fields
// (engine/frequency_sketch.h). Both are fixed functions of the key, so nothing about a table varies
// between runs (and no table is ever iterated where its order could reach results).
#pragma once

#include <cstdint>

namespace flashpq {

/// Mixes a 64-bit key (the MurmurHash3 fmix64 finaliser): consecutive keys land far apart.
inline uint64_t mix64(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  k ^= k >> 33;
  return k;
}

/// Hashes a key for the tables (ObjectTable, KeySet): the 128-bit product of the key and a fixed
/// odd constant, folded to 64 bits (high half xor low half) — the mixing step of Abseil's hash
/// and of wyhash. Every key bit reaches the top bits the tables use, in one multiplication
/// instead of mix64's two plus three shifts. Fixed and unseeded, like mix64.
inline uint64_t hash_key(uint64_t k) {
  const unsigned __int128 p = static_cast<unsigned __int128>(k) * 0x9E3779B97F4A7C15ULL;
  return static_cast<uint64_t>(p) ^ static_cast<uint64_t>(p >> 64);
}

}  // namespace flashpq
