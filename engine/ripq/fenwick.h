// engine/ripq/fenwick.h — prefix sums of the blocks' logical bytes in list order, for RIPQ's
// relative priorities (engine/ripq/ripq_queue.h).
//
// A relative priority needs the logical bytes of every block below a given one (RIPQ paper
// §4.1: the fraction of the queue behind the object). Walking the blocks costs O(blocks) per
// hit; a Fenwick tree (binary indexed tree: P. M. Fenwick, "A new data structure for cumulative
// frequency tables", Software: Practice and Experience 24(3), 1994) over the blocks' positions
// answers it in O(log blocks), and a block's bytes change in O(log blocks). The values are
// unsigned and wrap modulo 2^64 in between, as long as every true prefix sum fits: a subtraction
// that leaves a partial sum "negative" for a moment is harmless.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace flashpq {

class FenwickTree {
 public:
  /// Starts a rebuild with room for `capacity` values: push() them in position order, then
  /// build(). The tree is empty until then.
  void start(size_t capacity) {
    tree_.reserve(capacity + 1);
    tree_.assign(1, 0);
  }
  /// Appends the value of the next position and returns that position (0-based).
  uint32_t push(uint64_t value) {
    tree_.push_back(value);
    return static_cast<uint32_t>(tree_.size() - 2);
  }
  /// Turns the pushed values into the tree, in O(n).
  void build() {
    for (size_t i = 1; i < tree_.size(); ++i) {
      const size_t parent = i + (i & (0 - i));
      if (parent < tree_.size()) tree_[parent] += tree_[i];
    }
  }

  /// The sum of the values at positions [0, pos).
  uint64_t sum_below(uint32_t pos) const {
    uint64_t sum = 0;
    for (uint32_t i = pos; i > 0; i &= i - 1) sum += tree_[i];
    return sum;
  }
  /// Adds `delta` to the value at `pos`.
  void add(uint32_t pos, uint64_t delta) {
    for (size_t i = size_t{pos} + 1; i < tree_.size(); i += i & (0 - i)) tree_[i] += delta;
  }
  /// Subtracts `delta` from the value at `pos` (modulo 2^64: every prefix sum stays the true one).
  void subtract(uint32_t pos, uint64_t delta) {
    for (size_t i = size_t{pos} + 1; i < tree_.size(); i += i & (0 - i)) tree_[i] -= delta;
  }

  /// DRAM of the tree, from its allocated capacity.
  size_t memory_bytes() const { return tree_.capacity() * sizeof(uint64_t); }

 private:
  std::vector<uint64_t> tree_;  // 1-based: tree_[0] is unused
};

}  // namespace flashpq
