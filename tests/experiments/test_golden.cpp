// tests/experiments/test_golden.cpp — golden results rows: every cell of tests/data/golden/*.yaml
// run through the `flashpq` command line gives, column by column, the row recorded in
// NAME.csv (tests/data/golden/README.md says which FlashPQ wrote each one). Only wall_seconds
// may differ. A row that changes is a change users see: it needs a commit that says why.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "tests/test_util.h"

namespace flashpq::test_golden {
namespace {

using namespace flashpq::testing;  // tests/test_util.h
namespace fs = std::filesystem;

const std::string kGolden = FLASHPQ_SOURCE_DIR "/tests/data/golden";

// Single-quotes for the shell.
std::string quoted(const std::string& s) {
  std::string out = "'";
  for (const char ch : s) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

// What identifies a row in a message: its cell and the keys that tell cells apart.
std::string row_label(const std::vector<std::string>& header, const std::vector<std::string>& row) {
  std::string out;
  for (size_t j = 0; j < header.size() && j < row.size(); ++j) {
    for (const char* key : {"cell", "policy.name", "policy.segments", "admission.name",
                            "framework.name", "framework.insertion_points", "cache.capacity",
                            "device.name", "trace.pattern", "trace.io_size", "timing.arrival"}) {
      if (header[j] == key && !row[j].empty())
        out += std::string(out.empty() ? "" : " ") + key + "=" + row[j];
    }
  }
  return out;
}

// Runs NAME.yaml and compares its results with NAME.csv. Returns the number of rows compared.
size_t check_golden(const std::string& name) {
  TempDir dir;
  const std::string out = dir.file(name + ".csv");
  const std::string cmd = quoted(FLASHPQ_BINARY) + " run " +
                          quoted(kGolden + "/" + name + ".yaml") + " -o " + quoted(out) + " > " +
                          quoted(dir.file("log")) + " 2>&1";
  const int rc = std::system(cmd.c_str());
  INFO("flashpq's output:\n" << slurp(dir.file("log")));
  REQUIRE(rc == 0);
  const auto expected = parse_csv(slurp(kGolden + "/" + name + ".csv"));
  const auto found = parse_csv(slurp(out));
  REQUIRE(expected.size() >= 2);
  REQUIRE(found.size() >= 1);
  // The same columns in the same order (a results file's header is also what --resume checks).
  REQUIRE(found[0] == expected[0]);
  REQUIRE(found.size() == expected.size());
  const std::vector<std::string>& header = expected[0];
  for (size_t i = 1; i < expected.size(); ++i) {
    REQUIRE(found[i].size() == header.size());
    for (size_t j = 0; j < header.size(); ++j) {
      if (header[j] == "wall_seconds") continue;
      if (found[i][j] != expected[i][j]) {
        FAIL(name << ".csv row " << i - 1 << " (" << row_label(header, expected[i]) << "), column '"
                  << header[j] << "': expected '" << expected[i][j] << "', found '" << found[i][j]
                  << "'");
      }
    }
  }
  return expected.size() - 1;
}

TEST_CASE("golden rows: every bundled experiment's cells, bit for bit", "[golden]") {
  // Each file of tests/data/golden with a YAML experiment and its recorded results.
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(kGolden)) {
    if (entry.path().extension() == ".yaml") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  REQUIRE(names == std::vector<std::string>{"arrivals", "flash", "frameworks", "paths",
                                            "quickstart", "ripq_k", "sim_vs_real"});
  size_t rows = 0;
  for (const std::string& name : names) {
    INFO("golden " << name);
    rows += check_golden(name);
  }
  CHECK(rows == 3 + 5 + 12 + 7 + 16 + 6 + 4);
}

}  // namespace
}  // namespace flashpq::test_golden
