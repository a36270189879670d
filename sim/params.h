// sim/params.h — the vocabulary every component declares its parameters in.
//
// A component (a policy, an admission policy, a framework, a device, a trace format or
// generator) declares, in its own files, the keys it reads: name, type, default, unit, range
// and a one-line description (KeySpec, built ramulator2-style: key("framework.block_size",
// ValueType::kSize).def("1MiB").units("bytes").desc(...)), and registers itself by name in one
// table per kind. The application (experiments/) assembles the experiment schema from those
// tables: `flashpq run --help` prints it, unknown keys are errors, and every results row shows
// every key (docs/DESIGN.md "Parameters"). A component reads its values from a Params with
// get<T>(key), which checks them against the declaration and falls back to the default, so a
// component built directly in code (a test, the bench) reads the same values the experiment
// loader would give it.
//
// This header sits in sim/, the bottom layer, because every layer declares parameters; it
// includes nothing else of the project.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace flashpq {

/// The kinds of value a key takes, and how their text is read.
enum class ValueType {
  kString,        // any text
  kPath,          // a file or device path, non-empty
  kEnum,          // one of KeySpec::allowed
  kInt,           // a decimal integer in [min, max]
  kFloat,         // a finite number in [min, max]
  kBool,          // true/false (also True/False, yes/no)
  kFraction,      // a number in [0, 1)
  kUnitInterval,  // a number in [0, 1]
  kCapacity,      // bytes with a unit, or with a decimal point a fraction in (0, 1]
  kSize,          // bytes with a unit (parse_size), at least 1; [min, max] when max > 0
  kChar,          // exactly one character
};

/// One configurable key. Declared by the component that reads it, next to the code that reads
/// it; built by chaining: key("policy.segments", ValueType::kInt).def("3").range(1, 64)
/// .desc("L: SLRU segments, GDSF frequency cap").
struct KeySpec {
  /// Dotted path: the section, a dot, the key ("framework.insertion_points"); "seed" for the
  /// experiment's own keys.
  std::string name;
  ValueType type = ValueType::kString;
  /// The value when the key is not written, as YAML text; empty: none (see filled_by).
  std::string default_value;
  /// For help: "bytes", "fraction", "us", "" …
  std::string unit;
  /// One line, for `flashpq run --help`.
  std::string description;
  /// kEnum: the allowed values, in the order help lists them. kCapacity: words allowed besides
  /// sizes and fractions (framework.block_size: auto).
  std::vector<std::string> allowed;
  /// kInt, kFloat, kSize: the inclusive range (kSize: only when max > 0).
  double min = 0, max = 0;
  /// A key with no default that the component fills in when it is not written, from what this
  /// names ("device.profile", "the device"): help prints "(from …)" and the results row shows
  /// the value the component resolved. Empty with no default: the key is required whenever a
  /// component that reads it is selected.
  std::string filled_by;
  /// Set for a component that does not read it: an error, and its results column stays empty.
  /// Otherwise (the default) such a key is ignored but still checked and shown, so a matrix may
  /// cross a component's name with another component's key.
  bool strict = false;
  /// kPath: names an existing input file. kEnum: the value may also name such a file, ending in
  /// .yaml or .yml (device.profile: a calibrated profile). (Every path, input or not, is taken
  /// from the experiment file's directory when written there, from the working directory when
  /// given with --set: experiments/experiment.h.)
  bool input_file = false;
  /// The value may be written in YAML as a list of maps ({name: ..., KEY: VALUE}); the loader
  /// turns it into the text "name KEY=VALUE ...; name ..." (trace.transforms).
  bool list_of_maps = false;
  /// The value may be written in YAML as a list of scalars ([1, 8, 64]); the loader turns it into
  /// the text "1,8,64".
  bool list_of_scalars = false;

  KeySpec() = default;
  KeySpec(std::string key_name, ValueType value_type)
      : name(std::move(key_name)), type(value_type) {}

  KeySpec& def(std::string text) {
    default_value = std::move(text);
    return *this;
  }
  KeySpec& desc(std::string text) {
    description = std::move(text);
    return *this;
  }
  KeySpec& units(std::string u) {
    unit = std::move(u);
    return *this;
  }
  KeySpec& range(double lo, double hi) {
    min = lo;
    max = hi;
    return *this;
  }
  KeySpec& choices(std::vector<std::string> values) {
    allowed = std::move(values);
    return *this;
  }
  KeySpec& from(std::string source) {
    filled_by = std::move(source);
    return *this;
  }
  KeySpec& strict_to_readers() {
    strict = true;
    return *this;
  }
  KeySpec& existing_file() {
    input_file = true;
    return *this;
  }
  KeySpec& yaml_list_of_maps() {
    list_of_maps = true;
    return *this;
  }
  KeySpec& yaml_list() {
    list_of_scalars = true;
    return *this;
  }

  /// The part after the first dot ("insertion_points").
  std::string_view leaf() const;
  /// A value must be written (no default, nothing fills it in).
  bool required() const { return default_value.empty() && filled_by.empty(); }
  /// The values the key takes, in the words check_value()'s messages use, for help and the
  /// key reference: "one of exact, ripq, sipq", "an integer in [1, 64]", "true or false".
  std::string allowed_text() const;
};

/// Starts a key declaration (see KeySpec).
inline KeySpec key(std::string name, ValueType type) {
  return KeySpec(std::move(name), type);
}

/// True if `text` ends in ".yaml" or ".yml" after at least one character.
bool is_yaml_file_name(std::string_view text);

/// Checks `text` against `spec` (type, range, allowed values). Throws std::invalid_argument
/// reading "key 'K': expected …, found 'TEXT'" (the experiment loader prefixes where it was
/// written: "FILE:LINE: ").
void check_value(const KeySpec& spec, const std::string& text);

/// Parses "256MiB", "4KiB", "1GB", "4096" (bytes). Binary units KiB..TiB = 2^10..2^40, decimal
/// kB/KB..TB = 10^3..10^12, B = 1. Throws std::invalid_argument describing what is allowed.
uint64_t parse_size(const std::string& text);
/// true/True/yes or false/False/no; false if `text` is neither.
bool parse_bool(const std::string& text, bool* out);
/// A finite decimal number; false if `text` is not one.
bool parse_double(const std::string& text, double* out);
/// A decimal integer; false if `text` is not one.
bool parse_int(const std::string& text, int64_t* out);
/// Comma-separated decimal integers, each in [lo, hi], blanks around each allowed ("1, 2,3"):
/// the list of a key declared yaml_list(). False, `out` unspecified, if any item is not one
/// (an empty text or item included).
bool parse_int_list(const std::string& text, int64_t lo, int64_t hi, std::vector<int64_t>* out);

/// "WHAT: unknown 'FOUND' (allowed: a, b, c)": the one message for a name that is not in a
/// list (a registry, an enumeration).
std::string unknown_name_message(std::string_view what, std::string_view found,
                                 const std::vector<std::string>& allowed);
/// Throws std::invalid_argument(unknown_name_message(...)).
[[noreturn]] void throw_unknown_name(std::string_view what, std::string_view found,
                                     const std::vector<std::string>& allowed);
/// "a, b, c".
std::string join_names(const std::vector<std::string>& names, std::string_view separator = ", ");

/// The values of a component's keys, as text, by dotted key. The experiment loader fills in
/// every key of the section (checked, defaults included); code that builds a component directly
/// sets only what it needs, and get() supplies the declared default for the rest.
class Params {
 public:
  Params() = default;
  Params(std::initializer_list<std::pair<std::string, std::string>> values);

  /// Sets `key` to `text` (an empty text unsets it).
  void set(const std::string& key, std::string text);
  /// Sets a number or a flag, written as the loader would read it back.
  template <class T>
  requires(std::is_arithmetic_v<T>) void set(const std::string& key, T value) {
    set(key, format_value(value));
  }
  /// True if `key` holds a non-empty text.
  bool has(std::string_view key) const;
  /// The text of `key`, or "" when it has none.
  const std::string& text(std::string_view key) const;
  /// Every (key, text) held, in key order.
  const std::map<std::string, std::string, std::less<>>& values() const { return values_; }

  /// The value of `spec`: its text if set, else its default, read as spec.type says and
  /// converted to T (bool; an integer type, checked to fit; double; std::string; char).
  /// kSize reads bytes; kCapacity is not read here (engine/cache.h CapacitySpec). Throws
  /// std::invalid_argument naming the key when the value is missing (no default), does not
  /// pass check_value(), or does not fit T.
  template <class T>
  T get(const KeySpec& spec) const;

 private:
  static std::string format_value(bool v) { return v ? "true" : "false"; }
  static std::string format_value(double v);
  template <class T>
  static std::string format_value(T v) requires(std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    return std::to_string(v);
  }
  static std::string format_value(float v) { return format_value(static_cast<double>(v)); }

  // The checked text of `spec` (set, else default). Throws as get().
  const std::string& checked_text(const KeySpec& spec) const;
  // Integers: the value as int64 or uint64, checked against T's range.
  static void out_of_range(const KeySpec& spec, const std::string& text);

  std::map<std::string, std::string, std::less<>> values_;
};

/// A condition on a cell's values: `key` takes one of `values` (or none of them when negate).
/// Numbers compare by value ("01" is 1), other texts exactly.
struct Condition {
  std::string key;
  std::vector<std::string> values;
  bool negate = false;
};

/// A rule across components, declared as data: when every condition of `when` holds, `key`
/// must take one of `allowed` ("policy wtinylfu runs on framework exact only"). A component's
/// requirements hold when it is selected; the experiment loader checks them all in one place.
struct Requirement {
  std::vector<Condition> when;
  std::string key;
  std::vector<std::string> allowed;
  /// Why, for the error message ("a whole cache: it runs on framework exact only").
  std::string why;
};

/// A registered component: its name, what it is, the keys it reads and the requirements it
/// puts on other keys. `keys` lists, in order, every key the component reads: keys of its own
/// and keys it shares with other components or its section (declared once, as a KeySpec
/// constant, and listed by each reader). A component that selects among components of its own
/// (trace format "generator" among generators) names that key in `selector` and lists them in
/// `choices`.
struct ComponentSpec {
  std::string name;
  std::string summary;
  std::vector<KeySpec> keys;
  std::vector<Requirement> requirements;
  /// Nested selection: the key (also in `keys`) and the components it selects among.
  std::string selector;
  std::vector<ComponentSpec> choices;
};

/// A section of an experiment ("framework:"): its keys in column order — the selector among its
/// components and any keys of its own — then its components (in registration order), whose keys
/// follow in the results (docs/DESIGN.md "Parameters").
struct SectionSpec {
  std::string name;
  /// Section keys, in column order, the selector among them.
  std::vector<KeySpec> keys;
  /// The key that selects a component ("framework.name"); empty for a section without
  /// components (cache:).
  std::string selector;
  std::vector<ComponentSpec> components;
};

/// The section of a registry: `leading` keys, then `selector` (an enumeration whose choices are
/// the components' names, in order; give it its default and description), then the
/// components' keys. REQUIRES: selector's default is among the components.
SectionSpec registry_section(std::string name, std::vector<KeySpec> leading, KeySpec selector,
                             std::vector<ComponentSpec> components);

/// A registry of component types, one per line of its list: the frameworks
/// (engine/framework.h), the policies and admission policies (policies/registry.h). Each type
/// T has `static const ComponentSpec& spec()`; with_type_named() calls fn on the one whose
/// spec().name is `name`.
template <class... T>
struct TypeList {};

/// The names of the types of `List`, in order.
template <class... T>
std::vector<std::string> type_names(TypeList<T...>) {
  return {T::spec().name...};
}

/// The specs of the types of `List`, in order.
template <class... T>
std::vector<ComponentSpec> type_specs(TypeList<T...>) {
  return {T::spec()...};
}

namespace detail {
template <class All, class First, class... Rest, class Fn>
decltype(auto) with_type_named(All all, TypeList<First, Rest...>, std::string_view name,
                               std::string_view what, Fn& fn) {
  if (First::spec().name == name) return fn(std::type_identity<First>{});
  if constexpr (sizeof...(Rest) == 0) {
    throw_unknown_name(what, name, type_names(all));
  } else {
    return with_type_named(all, TypeList<Rest...>{}, name, what, fn);
  }
}
}  // namespace detail

/// Calls fn(std::type_identity<T>{}) for the type T of the list whose spec().name is `name`
/// and returns its result (fn must return the same type for every T). Throws
/// std::invalid_argument "WHAT: unknown 'NAME' (allowed: …)" when none is.
template <class... T, class Fn>
decltype(auto) with_type_named(TypeList<T...> list, std::string_view name, std::string_view what,
                               Fn&& fn) {
  return detail::with_type_named(list, list, name, what, fn);
}

/// A run-time registry: a table of descriptors, each with a `spec()` (the devices, trace
/// formats and generators: devices/device.cpp, traces/trace_reader.cpp, traces/generator.cpp).
/// The names of its entries, in table order.
template <class T>
std::vector<std::string> entry_names(const std::vector<const T*>& table) {
  std::vector<std::string> names;
  for (const T* t : table) names.push_back(t->spec().name);
  return names;
}

/// The specs of a run-time registry's entries, in table order.
template <class T>
std::vector<ComponentSpec> entry_specs(const std::vector<const T*>& table) {
  std::vector<ComponentSpec> specs;
  for (const T* t : table) specs.push_back(t->spec());
  return specs;
}

/// The entry of `table` whose spec().name is `name`. Throws std::invalid_argument
/// "WHAT: unknown 'NAME' (allowed: …)" when none is.
template <class T>
const T& entry_named(const std::vector<const T*>& table, std::string_view name,
                     std::string_view what) {
  for (const T* t : table) {
    if (t->spec().name == name) return *t;
  }
  throw_unknown_name(what, name, entry_names(table));
}

extern template int64_t Params::get<int64_t>(const KeySpec&) const;
extern template uint64_t Params::get<uint64_t>(const KeySpec&) const;
extern template int Params::get<int>(const KeySpec&) const;
extern template uint32_t Params::get<uint32_t>(const KeySpec&) const;
extern template double Params::get<double>(const KeySpec&) const;
extern template bool Params::get<bool>(const KeySpec&) const;
extern template std::string Params::get<std::string>(const KeySpec&) const;
extern template char Params::get<char>(const KeySpec&) const;

}  // namespace flashpq
