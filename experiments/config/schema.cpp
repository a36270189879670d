// experiments/config/schema.cpp — the experiment schema assembled from the registries
// (experiments/config/schema.h).
#include "experiments/config/schema.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "devices/backing.h"
#include "devices/device.h"
#include "engine/cache.h"
#include "engine/framework.h"
#include "experiments/run/runners.h"
#include "fmt/format.h"
#include "policies/registry.h"
#include "sim/timing.h"
#include "traces/trace_reader.h"

namespace flashpq {

namespace {

// The experiment's own keys: not a component's.
const SectionSpec& experiment_section() {
  static const SectionSpec section{
      "",
      {key("seed", ValueType::kInt)
           .def("1")
           .range(0, 9007199254740992.0)
           .desc("seed of every random stream of the cell"),
       key("warmup", ValueType::kFraction)
           .def("0")
           .units("fraction")
           .desc("fraction of requests excluded from the metrics, in [0, 1)")},
      "",
      {}};
  return section;
}

}  // namespace

const std::vector<const SectionSpec*>& schema_section_specs() {
  // The sections in results column order.
  static const std::vector<const SectionSpec*> all = {
      &trace_section(),     &experiment_section(), &cache_section(),  &policy_section(),
      &admission_section(), &framework_section(),  &device_section(), &timing_section(),
      &tiers_section(),     &backing_section(),    &stats_section()};
  return all;
}

namespace {

bool same_declaration(const KeySpec& a, const KeySpec& b) {
  return a.name == b.name && a.type == b.type && a.default_value == b.default_value &&
         a.unit == b.unit && a.description == b.description && a.allowed == b.allowed &&
         a.min == b.min && a.max == b.max && a.filled_by == b.filled_by && a.strict == b.strict &&
         a.input_file == b.input_file;
}

using Chain = std::vector<std::pair<std::string, std::string>>;

struct Builder {
  std::vector<SchemaKey> keys;
  std::map<std::string, size_t> index;  // name -> position in keys (once placed)
  std::map<std::string, KeySpec> declared;
  std::map<std::string, std::vector<Chain>> readers;
  std::vector<Requirement> requirements;

  void declare(const KeySpec& k) {
    const auto [it, fresh] = declared.try_emplace(k.name, k);
    if (!fresh && !same_declaration(it->second, k)) {
      throw std::logic_error("experiment schema: key '" + k.name +
                             "' is declared twice, differently");
    }
  }

  // Records component c (selected by `chain`) and its nested choices: their keys' readers,
  // their requirements, and their key orders (`chains`, for the column order).
  void walk(const ComponentSpec& c, const Chain& chain,
            std::vector<std::vector<std::string>>& orders) {
    std::vector<std::string> order;
    for (const KeySpec& k : c.keys) {
      declare(k);
      readers[k.name].push_back(chain);
      order.push_back(k.name);
    }
    orders.push_back(order);
    for (const Requirement& r : c.requirements) {
      Requirement held = r;
      for (const auto& [sel, value] : chain) held.when.push_back(Condition{sel, {value}, false});
      requirements.push_back(held);
    }
    for (const ComponentSpec& choice : c.choices) {
      Chain sub = chain;
      sub.emplace_back(c.selector, choice.name);
      std::vector<std::vector<std::string>> nested;
      walk(choice, sub, nested);
      for (auto& o : nested) {
        o.insert(o.begin(), c.selector);  // a nested choice's keys follow its selector
        orders.push_back(o);
      }
    }
  }

  void place(const std::string& name, const std::string& section) {
    if (index.count(name)) return;
    index[name] = keys.size();
    keys.push_back(SchemaKey{declared.at(name), section, {}, false});
  }

  void add_section(const SectionSpec& s) {
    for (const KeySpec& k : s.keys) {
      declare(k);
      place(k.name, s.name);
    }
    std::vector<std::vector<std::string>> orders;
    for (const ComponentSpec& c : s.components) {
      walk(c, Chain{{s.selector, c.name}}, orders);
    }
    // Merge the components' key orders: repeatedly place the first key (scanning the orders
    // in registration order) whose predecessors in every order are placed.
    for (;;) {
      bool placed_one = false, left = false;
      for (const auto& order : orders) {
        for (const std::string& name : order) {
          if (index.count(name)) continue;
          left = true;
          const bool ready = std::all_of(orders.begin(), orders.end(), [&](const auto& o) {
            const auto at = std::find(o.begin(), o.end(), name);
            return at == o.end() ||
                   std::all_of(o.begin(), at, [&](const std::string& p) { return index.count(p); });
          });
          if (ready) {
            place(name, s.name);
            placed_one = true;
          }
          break;  // only the first unplaced key of each order can be next
        }
        if (placed_one) break;
      }
      if (!left) break;
      if (!placed_one) {
        throw std::logic_error("experiment schema: the key orders of section '" + s.name +
                               "' contradict each other");
      }
    }
    if (!s.selector.empty()) keys[index.at(s.selector)].selector = true;
  }
};

const AssembledSchema& schema() {
  static const AssembledSchema s = assemble_schema(schema_section_specs(), runner_requirements());
  return s;
}

}  // namespace

AssembledSchema assemble_schema(const std::vector<const SectionSpec*>& sections,
                                const std::vector<Requirement>& extra_requirements) {
  Builder b;
  for (const SectionSpec* section : sections) b.add_section(*section);
  for (SchemaKey& k : b.keys) {
    const auto it = b.readers.find(k.spec.name);
    if (it != b.readers.end()) k.readers = it->second;
  }
  // Nested selectors (trace.generator, timing.arrival) select too.
  std::set<std::string> nested;
  for (const SectionSpec* section : sections) {
    std::vector<const ComponentSpec*> stack;
    for (const ComponentSpec& c : section->components) stack.push_back(&c);
    while (!stack.empty()) {
      const ComponentSpec* c = stack.back();
      stack.pop_back();
      if (!c->selector.empty()) nested.insert(c->selector);
      for (const ComponentSpec& choice : c->choices) stack.push_back(&choice);
    }
  }
  for (SchemaKey& k : b.keys) {
    if (nested.count(k.spec.name)) k.selector = true;
  }
  AssembledSchema out{std::move(b.keys), std::move(b.requirements)};
  for (const Requirement& r : extra_requirements) out.requirements.push_back(r);
  return out;
}

std::string SchemaKey::readers_text() const {
  if (readers.empty()) return "";
  // Grouped by the last selector of each chain: "trace.format oracleGeneral, kvcache_csv or csv".
  std::vector<std::string> selectors;
  std::map<std::string, std::vector<std::string>> values;
  for (const auto& chain : readers) {
    const auto& [sel, value] = chain.back();
    if (!values.count(sel)) selectors.push_back(sel);
    auto& v = values[sel];
    if (std::find(v.begin(), v.end(), value) == v.end()) v.push_back(value);
  }
  std::string out;
  for (const std::string& sel : selectors) {
    const auto& v = values[sel];
    std::string list;
    for (size_t i = 0; i < v.size(); ++i) {
      list += (i == 0 ? "" : i + 1 == v.size() ? " or " : ", ") + v[i];
    }
    out += (out.empty() ? "" : "; ") + sel + " " + list;
  }
  return out;
}

std::string SchemaKey::reader_names() const {
  std::vector<std::string> names;
  for (const auto& chain : readers) {
    const std::string& value = chain.back().second;
    if (std::find(names.begin(), names.end(), value) == names.end()) names.push_back(value);
  }
  return join_names(names);
}

const std::vector<SchemaKey>& experiment_schema() {
  return schema().keys;
}

const SchemaKey* find_key(std::string_view name) {
  for (const SchemaKey& k : experiment_schema()) {
    if (k.spec.name == name) return &k;
  }
  return nullptr;
}

const std::vector<std::string>& schema_sections() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const SectionSpec* s : schema_section_specs()) v.push_back(s->name);
    return v;
  }();
  return names;
}

const std::vector<Requirement>& schema_requirements() {
  return schema().requirements;
}

std::string schema_help() {
  std::string out =
      "Experiment keys (YAML, dotted paths; any of them may be a list under matrix: or zip:, "
      "be matched by exclude: entries, or be set with --set KEY=VALUE). A key prefixed by "
      "component names is read by those components only:\n";
  out += fmt::format("  {:<22} {:<15} {}\n", "name", "(file stem)", "experiment name");
  out += fmt::format("  {:<22} {:<15} {}\n", "output", "results/NAME.csv",
                     "results file (.csv or .jsonl)");
  for (const SchemaKey& k : experiment_schema()) {
    const KeySpec& s = k.spec;
    const std::string dflt = !s.default_value.empty() ? s.default_value
                             : !s.filled_by.empty()   ? "(from " + s.filled_by + ")"
                                                      : "(required)";
    std::string help = k.readers.empty() ? "" : k.reader_names() + ": ";
    help += s.description;
    if (!s.unit.empty()) help += " [" + s.unit + "]";
    if (s.type == ValueType::kEnum) help += " {" + join_names(s.allowed, "|") + "}";
    if (s.type == ValueType::kInt) help += fmt::format(" (range {}..{})", s.min, s.max);
    out += fmt::format("  {:<22} {:<15} {}\n", s.name, dflt, help);
  }
  return out;
}

}  // namespace flashpq
