#include "engine/framework.h"

#include <algorithm>

namespace flashpq {

const std::vector<std::string>& queue_framework_names() {
  static const std::vector<std::string> names = {"exact", "ripq", "sipq"};
  return names;
}

const std::vector<std::string>& framework_names() {
  static const std::vector<std::string> names = {"exact", "ripq", "sipq", "direct"};
  return names;
}

void FrameworkConfig::validate() const {
  const auto& names = framework_names();
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    std::string allowed;
    for (const auto& n : names) allowed += (allowed.empty() ? "" : ", ") + n;
    throw std::invalid_argument("framework.name: unknown framework '" + name +
                                "' (allowed: " + allowed + ")");
  }
  auto bad = [](const std::string& key, const std::string& expected, const std::string& found) {
    throw std::invalid_argument("framework." + key + ": expected " + expected + ", found " + found);
  };
  if (placement != "none" && placement != "naive") {
    bad("placement", "none or naive", "'" + placement + "'");
  }
  if (placement_alignment_bytes == 0 ||
      (placement_alignment_bytes & (placement_alignment_bytes - 1)) != 0) {
    bad("placement_alignment", "a power of two", std::to_string(placement_alignment_bytes));
  }
  if (block_size_bytes < 1 || block_size_bytes >= (uint64_t{1} << 32)) {
    bad("block_size", "1 B to 4 GiB (exclusive)", std::to_string(block_size_bytes) + " bytes");
  }
  if (insertion_points < 1 || insertion_points > 64) {
    bad("insertion_points", "an integer in [1, 64]", std::to_string(insertion_points));
  }
  if (reserved_blocks < 1 || reserved_blocks > 1000) {
    bad("reserved_blocks", "an integer in [1, 1000]", std::to_string(reserved_blocks));
  }
  if (!(materialize_threshold >= 0 && materialize_threshold < 1)) {
    bad("materialize_threshold", "a number in [0, 1)", std::to_string(materialize_threshold));
  }
  if (histogram_bins < 2 || histogram_bins > 100000) {
    bad("histogram_bins", "an integer in [2, 100000]", std::to_string(histogram_bins));
  }
  if (!(occupancy >= 0 && occupancy <= 1)) {
    bad("occupancy", "a number in [0, 1]", std::to_string(occupancy));
  }
  if (offset_unit_bytes < 1 || offset_unit_bytes > (uint64_t{1} << 32)) {
    bad("offset_unit", "1 B to 4 GiB", std::to_string(offset_unit_bytes) + " bytes");
  }
}

}  // namespace flashpq
