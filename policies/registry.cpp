// policies/registry.cpp — the policy and admission sections, assembled from the registries.
#include "policies/registry.h"

#include <algorithm>
#include <type_traits>

namespace flashpq {

const std::vector<std::string>& policy_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v = type_names(Policies{});
    for (const std::string& n : type_names(OwningPolicies{})) v.push_back(n);
    for (const std::string& n : type_names(CachePolicies{})) v.push_back(n);
    return v;
  }();
  return names;
}

const std::vector<std::string>& admission_names() {
  static const std::vector<std::string> names = type_names(AdmissionPolicies{});
  return names;
}

bool is_cache_policy(const std::string& name) {
  static const std::vector<std::string> names = type_names(CachePolicies{});
  return std::find(names.begin(), names.end(), name) != names.end();
}

bool is_owning_policy(const std::string& name) {
  static const std::vector<std::string> names = type_names(OwningPolicies{});
  return std::find(names.begin(), names.end(), name) != names.end();
}

namespace {
// Calls fn(std::type_identity<P>{}) for every registered policy type P, in the three lists.
template <class Fn>
void for_each_policy_type(Fn&& fn) {
  auto visit = [&]<class... T>(TypeList<T...>) { (fn(std::type_identity<T>{}), ...); };
  visit(Policies{});
  visit(OwningPolicies{});
  visit(CachePolicies{});
}
}  // namespace

bool policy_reads_next_access(const std::string& name) {
  bool reads = false;
  for_each_policy_type([&]<class P>(std::type_identity<P>) {
    if constexpr (requires { P::kReadsNextAccess; }) {
      if (P::spec().name == name) reads = P::kReadsNextAccess;
    }
  });
  return reads;
}

bool policy_can_be_dram_tier(const std::string& name) {
  const std::vector<std::string>& names = policy_names();
  return std::find(names.begin(), names.end(), name) != names.end() && !is_cache_policy(name) &&
         !policy_reads_next_access(name);
}

uint64_t policy_bytes_per_trace_request(const std::string& name) {
  uint64_t bytes = 0;
  for_each_policy_type([&]<class P>(std::type_identity<P>) {
    if constexpr (requires { P::kBytesPerTraceRequest; }) {
      if (P::spec().name == name) bytes = P::kBytesPerTraceRequest;
    }
  });
  return bytes;
}

void check_policy(const PolicyConfig& config) {
  if (is_cache_policy(config.name)) return;  // no keys of its own
  if (is_owning_policy(config.name)) {
    with_owning_policy(config, [](auto) {});  // reads and checks its keys
    return;
  }
  with_policy(config, [](auto) {});  // a policy is cheap to build: build it
}

void check_admission(const AdmissionConfig& config) {
  with_type_named(AdmissionPolicies{}, config.name, "admission.name", [&](auto type) {
    using A = typename decltype(type)::type;
    if constexpr (requires { A::check(config.params); }) A::check(config.params);
  });
}

const SectionSpec& policy_section() {
  static const SectionSpec section = [] {
    std::vector<ComponentSpec> components = type_specs(Policies{});
    for (const ComponentSpec& c : type_specs(OwningPolicies{})) components.push_back(c);
    for (const ComponentSpec& c : type_specs(CachePolicies{})) components.push_back(c);
    return registry_section("policy", {},
                            key("policy.name", ValueType::kEnum).def("lru").desc("caching policy"),
                            std::move(components));
  }();
  return section;
}

const SectionSpec& admission_section() {
  static const SectionSpec section = registry_section(
      "admission", {}, key("admission.name", ValueType::kEnum).def("none").desc("admission policy"),
      type_specs(AdmissionPolicies{}));
  return section;
}

}  // namespace flashpq
