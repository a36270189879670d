// sim/params.cpp — reading and checking declared values (sim/params.h).
#include "sim/params.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <utility>

#include "fmt/format.h"

namespace flashpq {

namespace {

[[noreturn]] void fail(const KeySpec& s, const std::string& expected, const std::string& found) {
  throw std::invalid_argument("key '" + s.name + "': expected " + expected + ", found '" + found +
                              "'");
}

// Range bounds as the messages print them: {fmt}'s shortest text ("64", "1e-09",
// "1125899906842624").
std::string range_text(double v) {
  return fmt::format("{}", v);
}

}  // namespace

std::string_view KeySpec::leaf() const {
  const auto dot = name.find('.');
  return dot == std::string::npos ? std::string_view(name) : std::string_view(name).substr(dot + 1);
}

bool parse_bool(const std::string& t, bool* out) {
  if (t == "true" || t == "True" || t == "yes") return *out = true, true;
  if (t == "false" || t == "False" || t == "no") return *out = false, true;
  return false;
}

bool parse_double(const std::string& t, double* out) {
  const char* b = t.data();
  const char* e = b + t.size();
  auto [p, ec] = std::from_chars(b, e, *out);
  return ec == std::errc() && p == e && std::isfinite(*out);
}

bool parse_int(const std::string& t, int64_t* out) {
  const char* b = t.data();
  const char* e = b + t.size();
  auto [p, ec] = std::from_chars(b, e, *out);
  return ec == std::errc() && p == e;
}

bool parse_int_list(const std::string& text, int64_t lo, int64_t hi, std::vector<int64_t>* out) {
  out->clear();
  size_t at = 0;
  while (true) {
    const size_t comma = text.find(',', at);
    std::string item = text.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    const size_t b = item.find_first_not_of(" \t");
    const size_t e = item.find_last_not_of(" \t");
    item = b == std::string::npos ? "" : item.substr(b, e - b + 1);
    int64_t v = 0;
    if (!parse_int(item, &v) || v < lo || v > hi) return false;
    out->push_back(v);
    if (comma == std::string::npos) return true;
    at = comma + 1;
  }
}

uint64_t parse_size(const std::string& text) {
  const std::string expected =
      "a size: an integer number of bytes, optionally followed by B, KiB, MiB, GiB, TiB "
      "(powers of 2) or kB, MB, GB, TB (powers of 10)";
  uint64_t n = 0;
  const char* b = text.data();
  const char* e = b + text.size();
  auto [p, ec] = std::from_chars(b, e, n);
  if (ec != std::errc() || p == b) {
    throw std::invalid_argument("expected " + expected + ", found '" + text + "'");
  }
  std::string unit(p, e);
  while (!unit.empty() && unit.front() == ' ') unit.erase(unit.begin());
  static const std::pair<const char*, uint64_t> kUnits[] = {{"", 1},
                                                            {"B", 1},
                                                            {"KiB", 1ull << 10},
                                                            {"MiB", 1ull << 20},
                                                            {"GiB", 1ull << 30},
                                                            {"TiB", 1ull << 40},
                                                            {"kB", 1000},
                                                            {"KB", 1000},
                                                            {"MB", 1000000},
                                                            {"GB", 1000000000},
                                                            {"TB", 1000000000000ull}};
  for (const auto& [name, mult] : kUnits) {
    if (unit == name) {
      if (n > UINT64_MAX / mult) {
        throw std::invalid_argument("size '" + text + "' overflows 64 bits");
      }
      return n * mult;
    }
  }
  throw std::invalid_argument("expected " + expected + ", found '" + text + "'");
}

std::string join_names(const std::vector<std::string>& names, std::string_view separator) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i) out += separator;
    out += names[i];
  }
  return out;
}

std::string unknown_name_message(std::string_view what, std::string_view found,
                                 const std::vector<std::string>& allowed) {
  return std::string(what) + ": unknown '" + std::string(found) +
         "' (allowed: " + join_names(allowed) + ")";
}

void throw_unknown_name(std::string_view what, std::string_view found,
                        const std::vector<std::string>& allowed) {
  throw std::invalid_argument(unknown_name_message(what, found, allowed));
}

bool is_yaml_file_name(std::string_view text) {
  return (text.size() > 5 && text.ends_with(".yaml")) ||
         (text.size() > 4 && text.ends_with(".yml"));
}

std::string KeySpec::allowed_text() const {
  switch (type) {
    case ValueType::kString:
      return "any text";
    case ValueType::kPath:
      return "a path";
    case ValueType::kEnum:
      return "one of " + join_names(allowed) + (input_file ? ", or a .yaml file" : "");
    case ValueType::kInt:
      return "an integer in [" + range_text(min) + ", " + range_text(max) + "]";
    case ValueType::kFloat:
      return "a number in [" + range_text(min) + ", " + range_text(max) + "]";
    case ValueType::kBool:
      return "true or false";
    case ValueType::kFraction:
      return "a number in [0, 1)";
    case ValueType::kUnitInterval:
      return "a number in [0, 1]";
    case ValueType::kCapacity:
      return "a size with a unit (256MiB), or a fraction in (0, 1] with a decimal point (0.1)";
    case ValueType::kSize:
      return max > 0 ? "a size in [" + range_text(min) + ", " + range_text(max) + "] bytes"
                     : "a size with a unit (1MiB, 4KiB; a plain integer is bytes)";
    case ValueType::kChar:
      return "exactly one character";
  }
  return "";
}

void check_value(const KeySpec& s, const std::string& t) {
  switch (s.type) {
    case ValueType::kString:
      return;
    case ValueType::kPath:
      if (t.empty()) fail(s, "a file path", t);
      return;
    case ValueType::kEnum:
      if (std::find(s.allowed.begin(), s.allowed.end(), t) == s.allowed.end() &&
          !(s.input_file && is_yaml_file_name(t))) {
        fail(s, "one of " + join_names(s.allowed) + (s.input_file ? " or a .yaml file" : ""), t);
      }
      return;
    case ValueType::kInt: {
      int64_t x;
      if (!parse_int(t, &x) || x < s.min || x > s.max) {
        fail(s, "an integer in [" + range_text(s.min) + ", " + range_text(s.max) + "]", t);
      }
      return;
    }
    case ValueType::kFloat: {
      double x;
      if (!parse_double(t, &x) || x < s.min || x > s.max) {
        fail(s, "a number in [" + range_text(s.min) + ", " + range_text(s.max) + "]", t);
      }
      return;
    }
    case ValueType::kBool: {
      bool b;
      if (!parse_bool(t, &b)) fail(s, "true or false", t);
      return;
    }
    case ValueType::kFraction: {
      double x;
      if (!parse_double(t, &x) || x < 0 || x >= 1) fail(s, "a number in [0, 1)", t);
      return;
    }
    case ValueType::kUnitInterval: {
      double x;
      if (!parse_double(t, &x) || x < 0 || x > 1) fail(s, "a number in [0, 1]", t);
      return;
    }
    case ValueType::kSize: {
      uint64_t bytes = 0;
      try {
        bytes = parse_size(t);
      } catch (const std::invalid_argument&) {
        fail(s, "a size with a unit (1MiB, 4KiB; a plain integer is bytes)", t);
      }
      // 0 only where the key's range admits it (a size whose 0 means "off").
      if (bytes == 0 && !(s.max > 0 && s.min <= 0)) fail(s, "a size of at least 1 byte", t);
      if (s.max > 0 && (static_cast<double>(bytes) < s.min || static_cast<double>(bytes) > s.max)) {
        fail(s, "a size in [" + range_text(s.min) + ", " + range_text(s.max) + "] bytes", t);
      }
      return;
    }
    case ValueType::kChar:
      if (t.size() != 1) fail(s, "exactly one character", t);
      return;
    case ValueType::kCapacity: {
      if (std::find(s.allowed.begin(), s.allowed.end(), t) != s.allowed.end()) return;
      const std::string expected =
          (s.allowed.empty() ? std::string() : join_names(s.allowed) + ", ") +
          "a size with a unit (256MiB, 4KiB, 4096 = bytes) or a fraction in (0, 1] written "
          "with a decimal point (0.1)";
      if (t.find('.') != std::string::npos) {
        double x;
        if (!parse_double(t, &x) || !(x > 0 && x <= 1)) fail(s, expected, t);
      } else {
        uint64_t bytes = 0;
        try {
          bytes = parse_size(t);
        } catch (const std::invalid_argument&) {
          fail(s, expected, t);
        }
        if (bytes == 0 || bytes > (uint64_t{1} << 62)) {
          fail(s, expected + ", at least 1 byte and at most 4 EiB (2^62 bytes)", t);
        }
      }
      return;
    }
  }
}

Params::Params(std::initializer_list<std::pair<std::string, std::string>> values) {
  for (const auto& [k, v] : values) set(k, v);
}

void Params::set(const std::string& key, std::string text) {
  if (text.empty()) {
    values_.erase(key);
  } else {
    values_[key] = std::move(text);
  }
}

bool Params::has(std::string_view key) const {
  return values_.find(key) != values_.end();
}

const std::string& Params::text(std::string_view key) const {
  static const std::string kNone;
  const auto it = values_.find(key);
  return it == values_.end() ? kNone : it->second;
}

std::string Params::format_value(double v) {
  return fmt::format("{}", v);
}

const std::string& Params::checked_text(const KeySpec& spec) const {
  const auto it = values_.find(spec.name);
  const std::string& t = it != values_.end() ? it->second : spec.default_value;
  if (t.empty()) {
    throw std::invalid_argument("key '" + spec.name + "': expected a value (" + spec.description +
                                "), found none");
  }
  check_value(spec, t);
  return t;
}

void Params::out_of_range(const KeySpec& spec, const std::string& text) {
  throw std::invalid_argument("key '" + spec.name + "': the value '" + text +
                              "' does not fit its field");
}

template <class T>
T Params::get(const KeySpec& spec) const {
  const std::string& t = checked_text(spec);
  if constexpr (std::is_same_v<T, std::string>) {
    return t;
  } else if constexpr (std::is_same_v<T, char>) {
    return t.front();
  } else if constexpr (std::is_same_v<T, bool>) {
    bool b = false;
    if (!parse_bool(t, &b)) fail(spec, "true or false", t);
    return b;
  } else if constexpr (std::is_floating_point_v<T>) {
    double x = 0;
    if (!parse_double(t, &x)) fail(spec, "a number", t);
    return static_cast<T>(x);
  } else {
    static_assert(std::is_integral_v<T>);
    if (spec.type == ValueType::kSize) {
      const uint64_t v = parse_size(t);
      if (v > static_cast<uint64_t>(std::numeric_limits<T>::max())) out_of_range(spec, t);
      return static_cast<T>(v);
    }
    int64_t v = 0;
    if (!parse_int(t, &v)) fail(spec, "an integer", t);
    const bool fits =
        v < 0 ? std::is_signed_v<T> && v >= static_cast<int64_t>(std::numeric_limits<T>::min())
              : static_cast<uint64_t>(v) <= static_cast<uint64_t>(std::numeric_limits<T>::max());
    if (!fits) out_of_range(spec, t);
    return static_cast<T>(v);
  }
}

template int64_t Params::get<int64_t>(const KeySpec&) const;
template uint64_t Params::get<uint64_t>(const KeySpec&) const;
template int Params::get<int>(const KeySpec&) const;
template uint32_t Params::get<uint32_t>(const KeySpec&) const;
template double Params::get<double>(const KeySpec&) const;
template bool Params::get<bool>(const KeySpec&) const;
template std::string Params::get<std::string>(const KeySpec&) const;
template char Params::get<char>(const KeySpec&) const;

SectionSpec registry_section(std::string name, std::vector<KeySpec> leading, KeySpec selector,
                             std::vector<ComponentSpec> components) {
  std::vector<std::string> names;
  for (const ComponentSpec& c : components) names.push_back(c.name);
  selector.choices(std::move(names));
  const std::string selector_name = selector.name;
  leading.push_back(std::move(selector));
  return SectionSpec{std::move(name), std::move(leading), selector_name, std::move(components)};
}

}  // namespace flashpq
