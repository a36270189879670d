// experiments/columns.cpp — the results columns as a whole (experiments/columns.h).
#include "experiments/columns.h"

#include <map>
#include <set>

#include "experiments/run/row.h"
#include "fmt/format.h"

namespace flashpq {

namespace {

// Text for a Markdown table cell: pipes escaped, no line break.
std::string cell_text(const std::string& s) {
  std::string out;
  for (const char ch : s) {
    if (ch == '|') {
      out += "\\|";
    } else if (ch == '\n') {
      out += ' ';
    } else {
      out += ch;
    }
  }
  return out;
}

}  // namespace

std::vector<std::string> merge_columns(const std::vector<std::vector<std::string>>& lists) {
  static const std::map<std::string, size_t> rank = [] {
    std::map<std::string, size_t> r;
    const std::vector<std::string>& order = result_column_order();
    for (size_t i = 0; i < order.size(); ++i) r.emplace(order[i], i);
    return r;
  }();
  std::set<size_t> known;
  std::vector<std::string> unknown;
  std::set<std::string> unknown_seen;
  for (const auto& list : lists) {
    for (const std::string& name : list) {
      if (const auto it = rank.find(name); it != rank.end()) {
        known.insert(it->second);
      } else if (unknown_seen.insert(name).second) {
        unknown.push_back(name);
      }
    }
  }
  std::vector<std::string> out;
  for (const size_t i : known) out.push_back(result_column_order()[i]);
  for (std::string& name : unknown) out.push_back(std::move(name));
  return out;
}

bool column_if_set(const std::string& name) {
  static const std::set<std::string> names = [] {
    std::set<std::string> v;
    for (const ColumnSection& s : result_column_sections()) {
      for (const ColumnSpec& c : s.columns) {
        if (c.if_set) v.insert(c.name);
      }
    }
    return v;
  }();
  return names.contains(name);
}

std::string columns_reference_markdown() {
  std::string out =
      "# Results columns\n"
      "\n"
      "<!-- Generated from the columns' declarations by columns_reference_markdown()\n"
      "     (experiments/columns.h); do not edit. tests/experiments/test_columns.cpp checks it;\n"
      "     to regenerate: FLASHPQ_WRITE_COLUMNS_REFERENCE=1 build/flashpq_tests "
      "\"[columns-reference]\" -->\n"
      "\n"
      "One row per cell, CSV or JSON Lines. A row carries the columns of the sections its cell "
      "uses, in this order; a results file's header is the union of its rows' columns (a CSV "
      "field a row does not carry is empty; a JSON Lines row leaves the key out). Each column "
      "is declared by the component that fills it; \"when\" says which rows of its section carry "
      "it. Numbers read back as written; an empty field (JSON null) is no value, e.g. a ratio "
      "with a zero denominator. docs/DESIGN.md \"Results\" gives the rules.\n";
  for (const ColumnSection& s : result_column_sections()) {
    out += fmt::format("\n## {}\n\nCarried by: {}.\n\n", s.title, s.when);
    if (s.name == "parameters") {
      out +=
          "Every experiment key, under its dotted name: the text written, or the default, or the "
          "value the component resolved (`flashpq run --help` lists ranges and defaults). "
          "\"Read by\" names the components that read it (none: every cell).\n\n"
          "| column | unit | definition | read by |\n|---|---|---|---|\n";
    } else {
      out += "| column | unit | definition | when |\n|---|---|---|---|\n";
    }
    for (const ColumnSpec& c : s.columns) {
      std::string when = c.when;
      if (c.if_set && !when.empty()) when += " (only where it has a value)";
      out += fmt::format("| `{}` | {} | {} | {} |\n", c.name, cell_text(c.unit),
                         cell_text(c.description), cell_text(when));
    }
  }
  return out;
}

}  // namespace flashpq
