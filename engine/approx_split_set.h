// engine/approx_split_set.h — CacheLib's ApproxSplitSet: the recently seen keys RejectFirst
// admission remembers (tiers.flash_admission: reject_first, engine/tiers.h).
//
// Source: github.com/facebook/CacheLib, cachelib/common/ApproxSplitSet.h (DropSet and
// ApproxSplitSet), docs/reference/navy-spec.md §4.5.
//
// DropSet<uint32_t> is a Robin Hood hash set of 32-bit keys with a probe limit (10 here, as
// ApproxSplitSet builds it) and `probe limit` extra slots past the end, so probing never wraps:
//   * a key's home slot is ⌊key · capacity / 2^32⌋ (Lemire's reduction); 0 marks an empty slot
//     (a key of 0 is stored as empty, as navy's is);
//   * insert: at size >= ⌊capacity · 9/10⌋ the table is rebuilt with capacity
//     max(⌊capacity · 3/2⌋, 16) by inserting the old keys of the first `capacity` slots in slot
//     order — the keys in the `probe limit` slots past the end are lost, as in CacheLib
//     (counted in drops()); then, from the home
//     slot, the key takes an empty slot, or swaps with a resident whose probe distance is <=
//     its own (Robin Hood) and carries that one on; a key still carried after `probe limit`
//     steps is dropped (counted in drops());
//   * lookup: from the home slot, at most `probe limit` slots, stopping at an empty slot or a
//     resident closer to its home than the probe is far from the key's.
//   * initial capacity 4; reset() empties the table and keeps its capacity.
// ApproxSplitSet(numEntries, numSplits) keeps up to numSplits DropSets of at most
// ⌊numEntries / numSplits⌋ keys each, newest last. insert(key): true if any split holds the low
// 32 bits of key; else the key goes into the newest split, after a new split is started when
// that one is full — once there are numSplits, the oldest is emptied and reused as the newest.
// A key is thus remembered for between (numSplits − 1)/numSplits × numEntries and numEntries
// later distinct keys.
//
// Not modelled: the mutex and the creation times (wall-clock statistics, no decision depends on
// them). Not thread-safe; no allocation per insert except when a split's table grows.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace flashpq {

/// CacheLib's DropSet<uint32_t> (see the file comment).
class DropSet32 {
 public:
  /// An empty set of `capacity` home slots (4 in CacheLib) and `probe_limit` >= 1.
  explicit DropSet32(uint32_t probe_limit, uint32_t capacity = kInitialCapacity)
      : probe_limit_(probe_limit), capacity_(capacity), table_(capacity + probe_limit, 0) {}

  /// Inserts `key` (possibly dropping it or another key: drops()). Keys already present are
  /// not looked for: ApproxSplitSet inserts only keys lookup() did not find.
  void insert(uint32_t key) {
    if (size_ >= capacity_ * 9 / 10) {
      DropSet32 bigger(probe_limit_, std::max(capacity_ * 3 / 2, 16u));
      for (uint32_t i = 0; i < capacity_; ++i) {
        if (table_[i] != kEmpty) bigger.insert_no_resize(table_[i]);
      }
      // CacheLib's rebuild reads the first capacity_ slots only: the overflow slots' keys go.
      for (uint32_t i = capacity_; i < capacity_ + probe_limit_; ++i) {
        if (table_[i] != kEmpty) ++bigger.drops_;
      }
      bigger.drops_ += drops_;
      *this = std::move(bigger);
    }
    insert_no_resize(key);
  }

  /// Whether `key` is in the set (a dropped key is not).
  bool lookup(uint32_t key) const {
    uint32_t distance = 0;
    uint32_t i = home(key);
    while (distance < probe_limit_) {
      if (table_[i] == key) return true;
      if (table_[i] == kEmpty || distance > probe_distance(i)) break;
      ++distance;
      ++i;
    }
    return false;
  }

  /// Whether some slot holds `key`: a scan of the whole table, for tests (lookup() must agree).
  bool holds(uint32_t key) const {
    for (uint32_t k : table_) {
      if (k == key) return true;
    }
    return false;
  }

  /// Empties the set; its capacity (and drops()) stay.
  void reset() {
    size_ = 0;
    std::fill(table_.begin(), table_.end(), kEmpty);
  }

  /// Keys counted in (a dropped key is counted: CacheLib's size_ counts placements).
  uint32_t size() const { return size_; }
  uint32_t capacity() const { return capacity_; }
  /// Keys lost since construction: carried past the probe limit, or left in the overflow slots
  /// at a rebuild.
  uint64_t drops() const { return drops_; }
  /// Bytes of the table.
  size_t memory_bytes() const { return table_.capacity() * sizeof(uint32_t); }

  static constexpr uint32_t kInitialCapacity = 4;

 private:
  static constexpr uint32_t kEmpty = 0;

  uint32_t home(uint32_t key) const {
    return static_cast<uint32_t>((uint64_t{key} * capacity_) >> 32);
  }
  uint32_t probe_distance(uint32_t pos) const { return pos - home(table_[pos]); }

  void insert_no_resize(uint32_t key) {
    uint32_t distance = 0;
    uint32_t i = home(key);
    while (distance < probe_limit_) {
      if (table_[i] == kEmpty) {
        table_[i] = key;
        ++size_;
        return;
      }
      const uint32_t resident = probe_distance(i);
      if (resident <= distance) {
        std::swap(key, table_[i]);
        distance = resident;
      }
      ++distance;
      ++i;
    }
    ++drops_;  // the key carried now is lost
  }

  uint32_t probe_limit_;
  uint32_t capacity_;
  uint32_t size_ = 0;
  uint64_t drops_ = 0;
  std::vector<uint32_t> table_;  // capacity + probe limit slots
};

/// CacheLib's ApproxSplitSet (see the file comment).
class ApproxSplitSet {
 public:
  /// CacheLib's probe limit for every split (ApproxSplitSet::kProbeLimit).
  static constexpr uint32_t kProbeLimit = 10;

  /// `entries` (numEntries) >= 1 keys tracked over `splits` (numSplits) >= 1 splits. Throws
  /// std::invalid_argument otherwise (CacheLib: "NumEntries for ApproxDropSplit is 0"), or when
  /// a split would hold no key (entries < splits).
  /// `probe_limit`: DropSet's (CacheLib's kProbeLimit, 10; a test may raise it to make drops
  /// impossible).
  ApproxSplitSet(uint64_t entries, uint32_t splits, uint32_t probe_limit = kProbeLimit)
      : splits_max_(splits),
        split_keys_(splits == 0 ? 0 : entries / splits),
        probe_limit_(probe_limit) {
    if (entries == 0 || splits == 0 || split_keys_ == 0 || split_keys_ > UINT32_MAX) {
      throw std::invalid_argument(
          "ApproxSplitSet: expected entries >= splits >= 1 and at most 2^32 entries a split, "
          "found " +
          std::to_string(entries) + " entries over " + std::to_string(splits) + " splits");
    }
    ring_.reserve(splits);
    ring_.emplace_back(probe_limit_);
  }

  /// Returns true if the low 32 bits of `key` were in the set; otherwise inserts them.
  bool insert(uint64_t key) {
    const auto k = static_cast<uint32_t>(key);
    for (const DropSet32& s : ring_) {
      if (s.lookup(k)) return true;
    }
    if (ring_[newest_].size() >= split_keys_) add_split();
    ring_[newest_].insert(k);
    return false;
  }

  uint32_t splits() const { return splits_max_; }
  uint64_t split_keys() const { return split_keys_; }
  /// Keys counted in over the splits (CacheLib's numKeysTracked).
  uint64_t keys_tracked() const {
    uint64_t n = 0;
    for (const DropSet32& s : ring_) n += s.size();
    return n;
  }
  /// Keys lost to the probe limit over all splits, the emptied ones included.
  uint64_t drops() const {
    uint64_t n = 0;
    for (const DropSet32& s : ring_) n += s.drops();
    return n;
  }
  size_t memory_bytes() const {
    size_t b = 0;
    for (const DropSet32& s : ring_) b += s.memory_bytes();
    return b;
  }

 private:
  // A new newest split: a fresh one while fewer than splits exist, else the oldest, emptied.
  // ring_ is a circular buffer: the oldest split is the one after the newest.
  void add_split() {
    if (ring_.size() < splits_max_) {
      ring_.emplace_back(probe_limit_);
      newest_ = static_cast<uint32_t>(ring_.size() - 1);
      return;
    }
    newest_ = (newest_ + 1) % splits_max_;
    ring_[newest_].reset();
  }

  uint32_t splits_max_;
  uint64_t split_keys_;
  uint32_t probe_limit_;
  std::vector<DropSet32> ring_;
  uint32_t newest_ = 0;
};

}  // namespace flashpq
