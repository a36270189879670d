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
#include "engine/tiers.h"
#include "experiments/config/runner_requirements.h"
#include "experiments/config/stats_config.h"
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

std::string wrap_text(std::string_view text, size_t width, std::string_view indent) {
  std::string out;
  size_t at = 0;
  while (at <= text.size()) {
    const size_t nl = std::min(text.find('\n', at), text.size());
    const std::string_view para = text.substr(at, nl - at);
    std::string line(indent);
    bool empty = true;
    for (size_t w = 0; w < para.size();) {
      if (para[w] == ' ') {
        ++w;
        continue;
      }
      const size_t end = std::min(para.find(' ', w), para.size());
      const std::string_view word = para.substr(w, end - w);
      if (!empty && line.size() + 1 + word.size() > width) {
        out += line + "\n";
        line = std::string(indent);
        empty = true;
      }
      if (!empty) line += ' ';
      line += word;
      empty = false;
      w = end;
    }
    if (!empty || nl < text.size()) out += empty ? "\n" : line + "\n";
    at = nl + 1;
  }
  return out;
}

namespace {

constexpr size_t kWidth = 100;  // the reference's lines, at most

// The experiment's own keys that are not schema keys (experiments/config/matrix.cpp reads them).
const std::vector<KeySpec>& file_keys() {
  static const std::vector<KeySpec> keys = {
      key("name", ValueType::kString)
          .from("the file's name without .yaml")
          .desc("the experiment's name, its rows' experiment column"),
      key("output", ValueType::kPath)
          .def("results/NAME.csv")
          .desc("the results file (.csv, or .jsonl for JSON Lines); flashpq run -o replaces it; "
                "the default is from the working directory")};
  return keys;
}

// A key as the reference shows it.
struct KeyDoc {
  std::string name;
  std::string default_value;  // "" when none
  std::string filled_by;      // where the value comes from without a default; "": required
  std::string unit;
  std::string allowed;
  std::string readers;  // "framework.name ripq or sipq"; "" = every cell
  std::string description;
};

KeyDoc doc_of(const KeySpec& s, const SchemaKey* k) {
  KeyDoc d;
  d.name = s.name;
  d.default_value = s.default_value;
  d.filled_by = s.filled_by;
  d.unit = s.unit;
  d.allowed = s.allowed_text();
  if (s.type == ValueType::kPath || (s.input_file && s.type == ValueType::kEnum)) {
    d.allowed +=
        " (relative: from the experiment file's directory; with --set, from the "
        "working directory)";
  }
  d.description = s.description;
  if (k != nullptr && !k->readers.empty()) {
    d.readers = k->readers_text();
    // A description that begins with its readers' names ("fpq: fault the whole file…") says
    // who reads it once, in `readers`.
    const std::string prefix = k->reader_names() + ": ";
    if (d.description.starts_with(prefix)) d.description.erase(0, prefix.size());
  }
  return d;
}

// `label` padded to `column` characters, then `text` wrapped beside it (on the next line when
// the label is longer).
std::string hanging(const std::string& label, std::string_view text, size_t column) {
  const std::string pad(column, ' ');
  std::string body = wrap_text(text, kWidth - column);
  std::string out;
  size_t at = 0;
  bool first = true;
  if (label.size() >= column) {
    out += label + "\n";
    first = false;
  }
  while (at < body.size()) {
    const size_t nl = body.find('\n', at);
    out += (first ? label + std::string(column - label.size(), ' ') : pad) +
           body.substr(at, nl - at) + "\n";
    first = false;
    at = nl + 1;
  }
  return first ? label + "\n" : out;
}

std::string key_text(const KeyDoc& d) {
  const std::string value = !d.default_value.empty() ? "default " + d.default_value
                            : !d.filled_by.empty()   ? "from " + d.filled_by
                                                     : "required";
  const std::string head =
      "  " + d.name + "  " + value + (d.unit.empty() ? "" : " [" + d.unit + "]");
  std::string out = head.size() <= kWidth ? head + "\n" : wrap_text(head, kWidth, "  ");
  out += wrap_text(d.description, kWidth, "      ");
  out += wrap_text(d.allowed + (d.readers.empty() ? "" : "; read when " + d.readers), kWidth,
                   "      ");
  return out;
}

// The name `flashpq keys` gives a section: "experiment" for the experiment's own keys.
std::string section_label(const SectionSpec& s) {
  return s.name.empty() ? "experiment" : s.name;
}

// Every component of a section, nested choices included, with the selection that picks it.
struct ComponentRef {
  const ComponentSpec* spec;
  std::string selector;
};
void components_of(const ComponentSpec& c, const std::string& selector,
                   std::vector<ComponentRef>& out) {
  out.push_back({&c, selector});
  for (const ComponentSpec& choice : c.choices) components_of(choice, c.selector, out);
}
std::vector<ComponentRef> components_of(const SectionSpec& s) {
  std::vector<ComponentRef> out;
  for (const ComponentSpec& c : s.components) components_of(c, s.selector, out);
  return out;
}

// The keys of a section, in column order.
std::vector<const SchemaKey*> keys_of(const SectionSpec& s) {
  std::vector<const SchemaKey*> out;
  for (const SchemaKey& k : experiment_schema()) {
    if (k.section == s.name) out.push_back(&k);
  }
  return out;
}

// Whether component `c` (picked by `selector`) reads key k.
bool reads(const SchemaKey& k, const ComponentRef& c) {
  return std::any_of(k.readers.begin(), k.readers.end(), [&](const auto& chain) {
    return std::find(chain.begin(), chain.end(), std::make_pair(c.selector, c.spec->name)) !=
           chain.end();
  });
}

std::vector<KeyDoc> docs_of(const SectionSpec& s) {
  std::vector<KeyDoc> docs;
  if (s.name.empty()) {
    for (const KeySpec& k : file_keys()) docs.push_back(doc_of(k, nullptr));
  }
  for (const SchemaKey* k : keys_of(s)) docs.push_back(doc_of(k->spec, k));
  return docs;
}

// "trace.format picks one of: oracleGeneral (libCacheSim's …), …" lines for a section.
std::string components_text(const SectionSpec& s, const std::string& indent) {
  std::string out;
  std::string selector;
  for (const ComponentRef& c : components_of(s)) {
    if (c.selector != selector) {
      selector = c.selector;
      out += wrap_text(selector + " selects one of:", kWidth, indent);
    }
    out += hanging(indent + "  " + c.spec->name + ": ", c.spec->summary, indent.size() + 20);
  }
  return out;
}

std::string section_text(const SectionSpec& s) {
  const std::vector<KeyDoc> docs = docs_of(s);
  std::string out = fmt::format("{}: {} keys{}\n", section_label(s), docs.size(),
                                s.name.empty() ? " (written at the top level of the file)" : "");
  out += components_text(s, "  ");
  for (const KeyDoc& d : docs) out += key_text(d);
  return out;
}

std::string overview_text() {
  std::string out = wrap_text(
      "An experiment file (YAML) names each key by its dotted path (framework.name, or "
      "framework: {name: ripq}); any key may be a list under matrix: or zip:, be matched by "
      "exclude: entries, or be set with --set KEY=VALUE. A path written in the file is relative "
      "to the file; on the command line, to the working directory.",
      kWidth);
  out += "\nSections:\n";
  for (const SectionSpec* s : schema_section_specs()) {
    std::string what;
    if (s->name.empty()) {
      what = "name, output, seed, warmup; matrix:, zip:, exclude:";
    } else if (!s->selector.empty()) {
      std::vector<std::string> names;
      for (const ComponentSpec& c : s->components) names.push_back(c.name);
      what = s->selector + ": " + join_names(names, ", ");
    } else {
      std::vector<std::string> names;
      for (const SchemaKey* k : keys_of(*s)) names.push_back(k->spec.name);
      what = join_names(names, ", ");
    }
    out += hanging("  " + section_label(*s), what, 14);
  }
  out += "\n";
  out += wrap_text(
      "`flashpq keys SECTION` shows a section's keys (default, unit, values, who reads them), "
      "`flashpq keys SECTION.COMPONENT` one component's (framework.ripq), `flashpq keys KEY` one "
      "key; `flashpq keys --markdown` all of them (docs/reference/keys.md).",
      kWidth);
  return out;
}

[[noreturn]] void unknown_selection(std::string_view selection) {
  std::vector<std::string> sections;
  for (const SectionSpec* s : schema_section_specs()) sections.push_back(section_label(*s));
  std::string msg = unknown_name_message("keys", selection, sections);
  const std::string_view head = selection.substr(0, selection.find('.'));
  for (const SectionSpec* s : schema_section_specs()) {
    if (s->name.empty() || s->name != head) continue;
    std::vector<std::string> names;
    for (const ComponentRef& c : components_of(*s)) names.push_back(s->name + "." + c.spec->name);
    for (const SchemaKey* k : keys_of(*s)) names.push_back(k->spec.name);
    msg += "; under " + s->name + ": " + join_names(names);
  }
  throw std::invalid_argument(msg + "; or a key such as framework.name");
}

// Markdown: a table cell's text ('|' escaped, no line breaks).
std::string cell(std::string text) {
  std::string out;
  for (const char c : text) {
    if (c == '|') {
      out += "\\|";
    } else {
      out += c == '\n' ? ' ' : c;
    }
  }
  return out;
}

}  // namespace

std::string keys_reference(std::string_view selection) {
  if (selection.empty()) return overview_text();
  for (const SectionSpec* s : schema_section_specs()) {
    if (section_label(*s) == selection) return section_text(*s);
  }
  for (const SectionSpec* s : schema_section_specs()) {
    if (s->name.empty() || !selection.starts_with(s->name + ".")) continue;
    const std::string_view rest = selection.substr(s->name.size() + 1);
    for (const ComponentRef& c : components_of(*s)) {
      if (c.spec->name != rest) continue;
      std::string out = wrap_text(fmt::format("{}.{}: {} ({} {})", s->name, c.spec->name,
                                              c.spec->summary, c.selector, c.spec->name),
                                  kWidth);
      for (const SchemaKey* k : keys_of(*s)) {
        if (k->spec.name == c.selector || reads(*k, c)) out += key_text(doc_of(k->spec, k));
      }
      return out;
    }
  }
  for (const SectionSpec* s : schema_section_specs()) {
    for (const KeyDoc& d : docs_of(*s)) {
      if (d.name == selection) return key_text(d);
    }
  }
  unknown_selection(selection);
}

std::string keys_markdown() {
  std::string out =
      "<!-- Generated by `flashpq keys --markdown` from the components' declarations "
      "(experiments/config/schema.cpp); do not edit. Regenerate: build/flashpq keys --markdown "
      "> docs/reference/keys.md -->\n\n# Experiment keys\n\n";
  out += wrap_text(
      "Every key an experiment file may set, by section, in results column order. An "
      "experiment file (YAML) names each key by its dotted path (`framework.name`, or "
      "`framework: {name: ripq}`); any key may be a list under `matrix:` or `zip:`, be matched "
      "by `exclude:` entries, or be set with `--set KEY=VALUE`. A path written in the file is "
      "relative to the file; on the command line, to the working directory. A key read only "
      "when a component is selected says so under *Read when*; `flashpq keys` prints the same "
      "reference on a terminal.",
      kWidth);
  for (const SectionSpec* s : schema_section_specs()) {
    out += "\n## " + section_label(*s) + "\n\n";
    if (s->name.empty()) out += "Written at the top level of the file.\n\n";
    std::string selector;
    for (const ComponentRef& c : components_of(*s)) {
      if (c.selector != selector) {
        if (!selector.empty()) out += "\n";
        selector = c.selector;
        out += "`" + selector + "` selects one of:\n\n";
      }
      out += "- `" + c.spec->name + "`: " + c.spec->summary + "\n";
    }
    if (!selector.empty()) out += "\n";
    out += "| Key | Default | Unit | Values | Read when | Description |\n";
    out += "|---|---|---|---|---|---|\n";
    for (const KeyDoc& d : docs_of(*s)) {
      const std::string value = !d.default_value.empty() ? "`" + d.default_value + "`"
                                : !d.filled_by.empty()   ? "from " + d.filled_by
                                                         : "required";
      out += fmt::format("| `{}` | {} | {} | {} | {} | {} |\n", d.name, cell(value), cell(d.unit),
                         cell(d.allowed), d.readers.empty() ? "always" : cell(d.readers),
                         cell(d.description));
    }
  }
  return out;
}

}  // namespace flashpq
