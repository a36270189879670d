#include "engine/framework.h"

#include <algorithm>

namespace flashpq {

const std::vector<std::string>& framework_names() {
  static const std::vector<std::string> names = {"exact"};
  return names;
}

void FrameworkConfig::validate() const {
  const auto& names = framework_names();
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    throw std::invalid_argument("framework.name: unknown framework '" + name +
                                "' (allowed: exact)");
  }
}

}  // namespace flashpq
