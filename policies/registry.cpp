#include "policies/registry.h"

#include <algorithm>
#include <string>

namespace flashpq {

const std::vector<std::string>& policy_names() {
  static const std::vector<std::string> names = {"fifo", "lru", "slru", "gdsf", "wtinylfu"};
  return names;
}

void PolicyConfig::validate() const {
  const auto& names = policy_names();
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    std::string allowed;
    for (const std::string& n : names) allowed += (allowed.empty() ? "" : ", ") + n;
    throw std::invalid_argument("policy.name: unknown policy '" + name + "' (allowed: " + allowed +
                                ")");
  }
  if (segments < 1 || segments > 64) {
    throw std::invalid_argument("policy.segments: expected an integer in [1, 64], found " +
                                std::to_string(segments));
  }
}

}  // namespace flashpq
