// experiments/config/matrix.cpp — experiment files: YAML parsing, --set overrides, the
// matrix, zip and exclude expansion into cells (experiments/experiment.h).
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include "experiments/config/schema.h"
#include "experiments/experiment.h"
#include "fmt/format.h"

namespace flashpq {

namespace fs = std::filesystem;

namespace {

std::string join(const std::vector<std::string>& v, const char* sep = ", ") {
  return join_names(v, sep);
}

[[noreturn]] void fail_at(const std::string& where, const std::string& key,
                          const std::string& expected, const std::string& found) {
  throw ConfigError(
      fmt::format("{}: key '{}': expected {}, found '{}'", where, key, expected, found));
}

// Every schema key, for messages.
std::string all_keys() {
  std::vector<std::string> k;
  for (const auto& s : experiment_schema()) k.push_back(s.spec.name);
  return join(k);
}

// The keys allowed under a section (its part after the dot), or the top-level keys for "".
std::string allowed_keys_under(const std::string& section) {
  std::vector<std::string> keys;
  for (const auto& s : experiment_schema()) {
    const std::string& k = s.spec.name;
    if (section.empty() ? k.find('.') == std::string::npos : k.rfind(section + ".", 0) == 0) {
      keys.push_back(section.empty() ? k : k.substr(section.size() + 1));
    }
  }
  if (section.empty()) {
    keys.emplace_back("name");
    keys.emplace_back("output");
    keys.emplace_back("matrix");
    keys.emplace_back("zip");
    keys.emplace_back("exclude");
    keys.emplace_back("curve");
    for (const std::string& s : schema_sections()) {
      if (!s.empty()) keys.push_back(s);
    }
  }
  return join(keys);
}

// YAML reads `null` and `~` as a null node; `device: {name: null}` means the device "null".
bool is_scalar(const YAML::Node& n) {
  return n.IsScalar() || n.IsNull();
}
std::string scalar_text(const YAML::Node& n) {
  return n.IsNull() ? "null" : n.Scalar();
}

std::string where_of(const std::string& file, const YAML::Node& node) {
  return fmt::format("{}:{}", file, node.Mark().line + 1);
}

struct ParsedFile {
  std::string name;
  bool named = false;  // the file has name: (else the name is the file's stem)
  std::string output;
  bool output_from_command_line = false;  // --set output=PATH: from the working directory
  std::map<std::string, SourcedValue> base;
  std::vector<std::pair<std::string, std::vector<SourcedValue>>> matrix;  // in file order
  // zip: lists of one length that vary together, as one axis after the matrix's.
  std::vector<std::pair<std::string, std::vector<SourcedValue>>> zip;
  std::string zip_where;
  // exclude: each entry drops the cells whose value of every key it names is one of its values.
  struct Exclusion {
    std::string where;
    std::map<std::string, std::vector<SourcedValue>> values;  // key -> the values it matches
  };
  std::vector<Exclusion> exclude;
  // curve: its keys as written (method, rate, sample_keys), checked in read_curve().
  std::map<std::string, SourcedValue> curve;
};

// The curve: section's keys, after the dot.
const char* const kCurveKeys = "method, rate, sample_keys";

// Checks and reads the curve: section (docs/guide/curves.md).
ExperimentCurve read_curve(const std::map<std::string, SourcedValue>& given) {
  ExperimentCurve c;
  for (const auto& [k, v] : given) {
    const std::string key = "curve." + k;
    if (k == "method") {
      if (v.text != "exact_lru" && v.text != "shards" && v.text != "minisim") {
        fail_at(v.where, key, "exact_lru, shards or minisim", v.text);
      }
      c.method = v.text;
    } else if (k == "rate") {
      char* end = nullptr;
      c.rate = std::strtod(v.text.c_str(), &end);
      if (end == v.text.c_str() || *end != '\0' || !(c.rate > 0 && c.rate <= 1)) {
        fail_at(v.where, key, "a rate in (0, 1], e.g. 0.01", v.text);
      }
    } else if (k == "sample_keys") {
      char* end = nullptr;
      const long long n = std::strtoll(v.text.c_str(), &end, 10);
      if (end == v.text.c_str() || *end != '\0' || n < 0) {
        fail_at(v.where, key, "a count of keys >= 0 (0: a fixed rate), e.g. 8000", v.text);
      }
      c.sample_keys = static_cast<uint64_t>(n);
    } else {
      throw ConfigError(
          fmt::format("{}: unknown key '{}' (allowed under curve: {})", v.where, key, kCurveKeys));
    }
  }
  if (!given.empty() && c.method.empty()) {
    throw ConfigError(
        fmt::format("{}: curve: expected curve.method (exact_lru, shards or "
                    "minisim)",
                    given.begin()->second.where));
  }
  return c;
}

// exclude: a list of mappings from dotted keys to a value or a list of values.
std::vector<ParsedFile::Exclusion> parse_exclude(const std::string& where, const YAML::Node& val,
                                                 const std::string& file) {
  const char* expected = "a list of mappings from dotted keys to a value or a list of values";
  if (!val.IsSequence() || val.size() == 0) fail_at(where, "exclude", expected, YAML::Dump(val));
  std::vector<ParsedFile::Exclusion> out;
  for (const auto& entry : val) {
    const std::string ewhere = where_of(file, entry);
    if (!entry.IsMap() || entry.size() == 0)
      fail_at(ewhere, "exclude", expected, YAML::Dump(entry));
    ParsedFile::Exclusion e{ewhere, {}};
    for (const auto& kv : entry) {
      const std::string key = kv.first.Scalar();
      const std::string kwhere = where_of(file, kv.first);
      if (!find_key(key)) {
        throw ConfigError(
            fmt::format("{}: unknown exclude key '{}' (allowed: {})", kwhere, key, all_keys()));
      }
      if (e.values.count(key)) throw ConfigError(kwhere + ": key '" + key + "' given twice");
      auto& vals = e.values[key];
      if (is_scalar(kv.second)) {
        vals.push_back({scalar_text(kv.second), kwhere});
      } else if (kv.second.IsSequence() && kv.second.size() > 0) {
        for (const auto& item : kv.second) {
          if (!is_scalar(item))
            fail_at(where_of(file, item), key, "a scalar value", YAML::Dump(item));
          vals.push_back({scalar_text(item), where_of(file, item)});
        }
      } else {
        fail_at(kwhere, key, "a value or a non-empty list of values", YAML::Dump(kv.second));
      }
    }
    out.push_back(std::move(e));
  }
  return out;
}

// Whether `key` takes a YAML list of maps as one value (KeySpec::list_of_maps).
bool takes_list_of_maps(const std::string& key) {
  const auto* k = find_key(key);
  return k != nullptr && k->spec.list_of_maps;
}

// Whether `key` takes a YAML list of scalars as one value (KeySpec::list_of_scalars).
bool takes_list(const std::string& key) {
  const auto* k = find_key(key);
  return k != nullptr && k->spec.list_of_scalars;
}

// A YAML list of scalars as one value's text, "a,b,c". Throws ConfigError at `where`.
std::string list_text(const std::string& where, const std::string& key, const YAML::Node& seq) {
  std::string out;
  for (const auto& item : seq) {
    if (!is_scalar(item)) fail_at(where, key, "a list of scalars", YAML::Dump(seq));
    out += (out.empty() ? "" : ",") + scalar_text(item);
  }
  return out;
}

// A YAML list of maps as one value's text: "name KEY=VALUE ...; name ..." (each map's `name`
// first, then its other keys as written). Throws ConfigError at `where` for anything else.
std::string list_of_maps_text(const std::string& where, const std::string& key,
                              const YAML::Node& seq) {
  const std::string expected = "a list of maps, each with a name: [{name: NAME, KEY: VALUE}]";
  if (!seq.IsSequence()) fail_at(where, key, expected, YAML::Dump(seq));
  std::string out;
  for (const auto& item : seq) {
    if (!item.IsMap() || !item["name"] || !is_scalar(item["name"])) {
      fail_at(where, key, expected, YAML::Dump(item));
    }
    std::string part = scalar_text(item["name"]);
    for (const auto& kv : item) {
      const std::string k = kv.first.Scalar();
      if (k == "name") continue;
      if (!is_scalar(kv.second)) fail_at(where, key + " " + k, "a scalar", YAML::Dump(kv.second));
      std::string v = scalar_text(kv.second);
      if (v.find_first_of(" \t;=") != std::string::npos) {
        fail_at(where, key + " " + k, "a value without spaces, ';' or '='", v);
      }
      part += " " + k + "=" + v;
    }
    out += (out.empty() ? "" : "; ") + part;
  }
  return out;
}

std::vector<SourcedValue> list_values(const std::string& where_key, const std::string& key,
                                      const YAML::Node& seq, const std::string& file) {
  std::vector<SourcedValue> out;
  if (!seq.IsSequence() || seq.size() == 0) {
    fail_at(where_key, key, "a non-empty list of values under matrix:", YAML::Dump(seq));
  }
  for (const auto& item : seq) {
    if (takes_list_of_maps(key) && item.IsSequence()) {
      out.push_back({list_of_maps_text(where_of(file, item), key, item), where_of(file, item)});
      continue;
    }
    if (takes_list(key) && item.IsSequence()) {
      out.push_back({list_text(where_of(file, item), key, item), where_of(file, item)});
      continue;
    }
    if (!is_scalar(item)) fail_at(where_of(file, item), key, "a scalar value", YAML::Dump(item));
    out.push_back({scalar_text(item), where_of(file, item)});
  }
  return out;
}

// The experiment in `file`, or in `text` when given (then `file` only names it in messages, and
// its directory is the one relative paths are taken from).
ParsedFile parse_file(const std::string& file, const std::string* text = nullptr) {
  YAML::Node root;
  try {
    root = text != nullptr ? YAML::Load(*text) : YAML::LoadFile(file);
  } catch (const YAML::BadFile&) {
    throw ConfigError(file + ": cannot open the experiment file");
  } catch (const YAML::Exception& e) {
    throw ConfigError(fmt::format("{}:{}: YAML syntax error: {}", file, e.mark.line + 1, e.msg));
  }
  if (!root.IsMap()) throw ConfigError(file + ": expected a YAML mapping at the top level");
  ParsedFile pf;
  pf.name = fs::path(file).stem().string();
  std::set<std::string> top_keys;
  for (const auto& kv : root) {
    const std::string key = kv.first.Scalar();
    const YAML::Node& val = kv.second;
    const std::string where = where_of(file, kv.first);
    if (!top_keys.insert(key).second) throw ConfigError(where + ": key '" + key + "' given twice");
    if (key == "name" || key == "output") {
      if (!val.IsScalar()) fail_at(where, key, "a string", YAML::Dump(val));
      (key == "name" ? pf.name : pf.output) = val.Scalar();
      if (key == "name") pf.named = true;
    } else if (key == "matrix" || key == "zip") {
      if (!val.IsMap()) fail_at(where, key, "a mapping of dotted keys to lists", YAML::Dump(val));
      auto& axes = key == "matrix" ? pf.matrix : pf.zip;
      if (key == "zip") pf.zip_where = where;
      for (const auto& axis : val) {
        const std::string akey = axis.first.Scalar();
        const std::string awhere = where_of(file, axis.first);
        if (!find_key(akey)) {
          throw ConfigError(
              fmt::format("{}: unknown matrix key '{}' (allowed: {})", awhere, akey, all_keys()));
        }
        for (const auto* group : {&pf.matrix, &pf.zip}) {
          for (const auto& [k, _] : *group) {
            if (k == akey) {
              throw ConfigError(awhere + ": key '" + akey + "' given twice under matrix/zip");
            }
          }
        }
        axes.emplace_back(akey, list_values(awhere, akey, axis.second, file));
      }
    } else if (key == "exclude") {
      pf.exclude = parse_exclude(where, val, file);
    } else if (key == "curve") {
      if (!val.IsMap()) {
        fail_at(where, key, std::string("a mapping of ") + kCurveKeys, YAML::Dump(val));
      }
      for (const auto& sub : val) {
        if (!is_scalar(sub.second)) {
          fail_at(where_of(file, sub.first), "curve." + sub.first.Scalar(), "a scalar",
                  YAML::Dump(sub.second));
        }
        pf.curve[sub.first.Scalar()] = {scalar_text(sub.second), where_of(file, sub.first)};
      }
    } else if (!val.IsMap() && !find_key(key) && !allowed_keys_under(key).empty()) {
      fail_at(where, key, "a mapping of " + key + " keys (" + allowed_keys_under(key) + ")",
              is_scalar(val) ? scalar_text(val) : YAML::Dump(val));
    } else if (val.IsMap()) {
      const std::string allowed = allowed_keys_under(key);
      if (allowed.empty()) {
        throw ConfigError(
            fmt::format("{}: unknown key '{}' (allowed: {})", where, key, allowed_keys_under("")));
      }
      for (const auto& sub : val) {
        const std::string full = key + "." + sub.first.Scalar();
        const std::string swhere = where_of(file, sub.first);
        if (sub.second.IsMap() && !find_key(full) && !allowed_keys_under(full).empty()) {
          // A nested group of the section (device: {fdp: {handles: 2}}): its scalars.
          for (const auto& leaf : sub.second) {
            const std::string name = full + "." + leaf.first.Scalar();
            const std::string lwhere = where_of(file, leaf.first);
            if (!find_key(name)) {
              throw ConfigError(fmt::format("{}: unknown key '{}' (allowed under {}: {})", lwhere,
                                            name, full, allowed_keys_under(full)));
            }
            if (!is_scalar(leaf.second)) {
              fail_at(lwhere, name, "a scalar (lists belong under matrix:)",
                      YAML::Dump(leaf.second));
            }
            if (pf.base.count(name)) throw ConfigError(lwhere + ": key '" + name + "' given twice");
            pf.base[name] = {scalar_text(leaf.second), lwhere};
          }
          continue;
        }
        if (!find_key(full)) {
          throw ConfigError(fmt::format("{}: unknown key '{}' (allowed under {}: {})", swhere, full,
                                        key, allowed));
        }
        if (pf.base.count(full)) throw ConfigError(swhere + ": key '" + full + "' given twice");
        if (takes_list_of_maps(full) && sub.second.IsSequence()) {
          pf.base[full] = {list_of_maps_text(swhere, full, sub.second), swhere};
          continue;
        }
        if (takes_list(full) && sub.second.IsSequence()) {
          pf.base[full] = {list_text(swhere, full, sub.second), swhere};
          continue;
        }
        if (!is_scalar(sub.second)) {
          fail_at(swhere, full, "a scalar (lists belong under matrix:)", YAML::Dump(sub.second));
        }
        pf.base[full] = {scalar_text(sub.second), swhere};
      }
    } else if (find_key(key) && is_scalar(val)) {
      if (pf.base.count(key)) throw ConfigError(where + ": key '" + key + "' given twice");
      pf.base[key] = {scalar_text(val), where};
    } else if (find_key(key)) {
      fail_at(where, key, "a scalar (lists belong under matrix:)", YAML::Dump(val));
    } else {
      throw ConfigError(
          fmt::format("{}: unknown key '{}' (allowed: {})", where, key, allowed_keys_under("")));
    }
  }
  return pf;
}

void apply_override(ParsedFile& pf, const Override& o) {
  const std::string where = "--set " + o.key;
  if (o.key == "name") return void(pf.name = o.value);
  if (o.key.starts_with("curve.")) return void(pf.curve[o.key.substr(6)] = {o.value, where});
  if (o.key == "output") {
    pf.output = o.value;
    pf.output_from_command_line = true;
    return;
  }
  if (!find_key(o.key)) {
    throw ConfigError(
        fmt::format("{}: unknown key '{}' (allowed: name, output, {})", where, o.key, all_keys()));
  }
  auto axis = std::find_if(pf.matrix.begin(), pf.matrix.end(),
                           [&](const auto& a) { return a.first == o.key; });
  auto zipped =
      std::find_if(pf.zip.begin(), pf.zip.end(), [&](const auto& a) { return a.first == o.key; });
  pf.base.erase(o.key);
  YAML::Node n;
  try {
    n = YAML::Load(o.value);
  } catch (const YAML::Exception& e) {
    throw ConfigError(fmt::format("{}: cannot parse '{}': {}", where, o.value, e.msg));
  }
  if (n.IsSequence() && takes_list(o.key) && n.size() > 0 && is_scalar(n[0])) {
    // One list of scalars: one value (a list of such lists is a matrix axis, below).
    if (zipped != pf.zip.end()) pf.zip.erase(zipped);
    if (axis != pf.matrix.end()) pf.matrix.erase(axis);
    pf.base[o.key] = {list_text(where, o.key, n), where};
  } else if (n.IsSequence() && takes_list_of_maps(o.key) && n.size() > 0 && n[0].IsMap()) {
    // One list of maps: one value (a list of such lists is a matrix axis, below).
    if (zipped != pf.zip.end()) pf.zip.erase(zipped);
    if (axis != pf.matrix.end()) pf.matrix.erase(axis);
    pf.base[o.key] = {list_of_maps_text(where, o.key, n), where};
  } else if (n.IsSequence()) {
    std::vector<SourcedValue> vals;
    for (const auto& item : n) {
      if (takes_list_of_maps(o.key) && item.IsSequence()) {
        vals.push_back({list_of_maps_text(where, o.key, item), where});
        continue;
      }
      if (takes_list(o.key) && item.IsSequence()) {
        vals.push_back({list_text(where, o.key, item), where});
        continue;
      }
      if (!is_scalar(item)) fail_at(where, o.key, "a list of scalars", o.value);
      vals.push_back({scalar_text(item), where});
    }
    if (vals.empty()) fail_at(where, o.key, "a non-empty list", o.value);
    if (zipped != pf.zip.end())
      zipped->second = std::move(vals);  // lengths checked later
    else if (axis != pf.matrix.end())
      axis->second = std::move(vals);  // keeps its place
    else
      pf.matrix.emplace_back(o.key, std::move(vals));
  } else {
    if (zipped != pf.zip.end()) pf.zip.erase(zipped);  // pinned: the rest still zip
    if (axis != pf.matrix.end()) pf.matrix.erase(axis);
    pf.base[o.key] = {is_scalar(n) ? scalar_text(n) : o.value, where};
  }
}

}  // namespace

static Experiment expand_experiment(ParsedFile pf, const std::string& path,
                                    const std::vector<Override>& overrides) {
  for (const auto& o : overrides) apply_override(pf, o);

  // Defaults, then the file's values (already in pf.base).
  std::map<std::string, SourcedValue> base;
  for (const auto& s : experiment_schema()) {
    base[s.spec.name] = {s.spec.default_value, path + " (default)"};
  }
  for (const auto& [k, v] : pf.base) base[k] = v;

  Experiment ex;
  ex.name = pf.name;
  ex.curve = read_curve(pf.curve);
  // One rule for paths: written in the file, relative to the file; on the command line (and the
  // default), relative to the working directory. Absolute, so that the log names it whole.
  const fs::path output = pf.output.empty()             ? fs::path("results") / (pf.name + ".csv")
                          : pf.output_from_command_line ? fs::path(pf.output)
                                                        : fs::path(path).parent_path() / pf.output;
  ex.output = fs::absolute(output).lexically_normal().string();
  // zip: one axis whose lists advance together.
  const size_t zip_len = pf.zip.empty() ? 1 : pf.zip.front().second.size();
  for (const auto& [k, vals] : pf.zip) {
    if (vals.size() != zip_len) {
      throw ConfigError(
          fmt::format("{}: zip lists must have one length: '{}' has {} values, '{}' has {}",
                      pf.zip_where.empty() ? path : pf.zip_where, pf.zip.front().first, zip_len, k,
                      vals.size()));
    }
  }
  // exclude: a key that varies must be given values it takes (a typo would exclude nothing).
  for (const auto& e : pf.exclude) {
    for (const auto& [k, vals] : e.values) {
      const std::vector<SourcedValue>* axis = nullptr;
      for (const auto* group : {&pf.matrix, &pf.zip}) {
        for (const auto& [ak, avals] : *group) {
          if (ak == k) axis = &avals;
        }
      }
      if (!axis) continue;  // a fixed value: the entry matches it or not
      for (const auto& v : vals) {
        const bool taken = std::any_of(axis->begin(), axis->end(),
                                       [&](const SourcedValue& a) { return a.text == v.text; });
        if (!taken) {
          std::vector<std::string> texts;
          for (const auto& a : *axis) texts.push_back(a.text);
          throw ConfigError(fmt::format("{}: exclude: '{}' is not a value of {} (its values: {})",
                                        v.where, v.text, k, join(texts)));
        }
      }
    }
  }
  auto excluded = [&](const std::map<std::string, SourcedValue>& values) {
    return std::any_of(pf.exclude.begin(), pf.exclude.end(), [&](const auto& e) {
      return std::all_of(e.values.begin(), e.values.end(), [&](const auto& kv) {
        const std::string& text = values.at(kv.first).text;
        return std::any_of(kv.second.begin(), kv.second.end(),
                           [&](const SourcedValue& v) { return v.text == text; });
      });
    });
  };
  // Cartesian product, the first axis varying slowest, the zip axis fastest; excluded cells
  // are dropped and the others numbered in order.
  size_t total = zip_len;
  for (const auto& [k, vals] : pf.matrix) total *= vals.size();
  if (total > 10'000'000) throw ConfigError(path + ": the matrix has more than 10 million cells");
  for (size_t i = 0; i < total; ++i) {
    auto values = base;
    size_t rest = i;
    for (const auto& [k, vals] : pf.zip) values[k] = vals[rest % zip_len];
    rest /= zip_len;
    for (size_t a = pf.matrix.size(); a-- > 0;) {
      const auto& [k, vals] = pf.matrix[a];
      values[k] = vals[rest % vals.size()];
      rest /= vals.size();
    }
    if (!pf.exclude.empty() && excluded(values)) continue;
    ex.cells.push_back(make_cell(path, ex.name, ex.cells.size(), values));
  }
  if (ex.cells.empty()) throw ConfigError(path + ": exclude: drops every cell of the matrix");
  return ex;
}

Experiment load_experiment(const std::string& path, const std::vector<Override>& overrides) {
  return expand_experiment(parse_file(path), path, overrides);
}

Experiment load_experiment_text(const std::string& text, const std::string& name,
                                const std::vector<Override>& overrides) {
  ParsedFile pf = parse_file(name, &text);
  if (!pf.named) pf.name = "experiment";
  return expand_experiment(std::move(pf), name, overrides);
}

}  // namespace flashpq
