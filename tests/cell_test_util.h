// tests/cell_test_util.h — one cell of an experiment body, run, as a map of its row's columns.
#pragma once

#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "experiments/experiment.h"
#include "experiments/run/cell_runner.h"
#include "tests/test_util.h"
#include "traces/trace_summary.h"

namespace flashpq::testing {

using RowMap = std::map<std::string, std::string>;

/// Loads `body` (an experiment's sections) with seed 1 and no warm-up, REQUIREs one cell, runs it
/// and returns its row: column name → text.
inline RowMap run_one(const std::string& body) {
  TempDir dir;
  const Experiment ex =
      load_experiment(dir.write("c.yaml", "name: c\nseed: 1\nwarmup: 0\n" + body), {});
  REQUIRE(ex.cells.size() == 1);
  RowMap m;
  for (const Column& c : run_cell(ex.cells[0], summarize_trace(ex.cells[0].trace))) {
    m[c.name] = c.text;
  }
  return m;
}

/// Column `k` of `row` as a number; REQUIREs the row to have it.
inline double num(const RowMap& row, const std::string& k) {
  INFO(k);
  REQUIRE(row.count(k) == 1);
  return std::stod(row.at(k));
}

}  // namespace flashpq::testing
