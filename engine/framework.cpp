// engine/framework.cpp — the framework section, assembled from the registry.
#include "engine/framework.h"

namespace flashpq {

const std::vector<std::string>& framework_names() {
  static const std::vector<std::string> names = type_names(Frameworks{});
  return names;
}

bool framework_builds_cache(const std::string& name) {
  return with_type_named(Frameworks{}, name, "framework.name",
                         [](auto type) { return decltype(type)::type::kHasQueue; });
}

bool framework_is_engine(const std::string& name) {
  return with_type_named(Frameworks{}, name, "framework.name", [](auto type) {
    return is_engine_framework<typename decltype(type)::type>;
  });
}

void check_framework(const FrameworkConfig& config) {
  with_type_named(Frameworks{}, config.name, "framework.name", [&](auto type) {
    using F = typename decltype(type)::type;
    F::check(config.params);
  });
}

FrameworkLayout framework_layout(const FrameworkConfig& config, const CacheShape& shape) {
  return with_type_named(Frameworks{}, config.name, "framework.name", [&](auto type) {
    using F = typename decltype(type)::type;
    if constexpr (requires { F::layout(config.params, shape); }) {
      return F::layout(config.params, shape);
    } else {
      F::check(config.params);
      FrameworkLayout layout;
      layout.device_bytes = F::kHasQueue ? shape.capacity_bytes : 0;
      layout.places_objects = F::kHasQueue;
      return layout;
    }
  });
}

const SectionSpec& framework_section() {
  static const SectionSpec section = registry_section(
      "framework", {},
      key("framework.name", ValueType::kEnum).def("exact").desc("priority-queue framework"),
      type_specs(Frameworks{}));
  return section;
}

}  // namespace flashpq
