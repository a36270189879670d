// tests/test_results.cpp — the results writer: CSV (RFC 4180 quoting, one header) and JSON Lines
// (numbers unquoted, empty numbers null, strings escaped), column checks and file creation.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>

#include "experiments/results.h"
#include "tests/test_util.h"

namespace flashpq {
namespace {

using namespace flashpq::testing;  // tests/test_util.h

namespace fs = std::filesystem;

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  REQUIRE(f.good());
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

// A row with every kind of awkward field.
ResultRow awkward_row(const std::string& policy = "lru") {
  return {
      {"experiment", "plain", false},
      {"policy.name", policy, false},
      {"comma", "a,b", false},
      {"quote", "say \"hi\"", false},
      {"newline", "line1\nline2", false},
      {"cr", "x\ry", false},
      {"hits", "42", true},
      {"object_hit_ratio", "0.25", true},
      {"byte_hit_ratio", "", true},
      {"error", "", false},
  };
}

TEST_CASE("csv_field quotes per RFC 4180", "[results]") {
  CHECK(csv_field("plain") == "plain");
  CHECK(csv_field("") == "");
  CHECK(csv_field("with space") == "with space");
  CHECK(csv_field("a,b") == "\"a,b\"");
  CHECK(csv_field(",") == "\",\"");
  CHECK(csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(csv_field("\"") == "\"\"\"\"");
  CHECK(csv_field("l1\nl2") == "\"l1\nl2\"");
  CHECK(csv_field("l1\r\nl2") == "\"l1\r\nl2\"");
  CHECK(csv_field("x\ry") == "\"x\ry\"");
}

TEST_CASE("CSV: one header, then one quoted row per write", "[results]") {
  TempDir dir;
  const std::string path = dir.file("r.csv");
  {
    ResultsWriter w(path);
    CHECK(w.path() == path);
    w.write(awkward_row("lru"));
    // Flushed after each row: the file holds the header and row 1 already.
    CHECK(slurp(path) ==
          "experiment,policy.name,comma,quote,newline,cr,hits,object_hit_ratio,byte_hit_ratio,"
          "error\n"
          "plain,lru,\"a,b\",\"say \"\"hi\"\"\",\"line1\nline2\",\"x\ry\",42,0.25,,\n");
    w.write(awkward_row("gdsf"));
  }
  CHECK(slurp(path) ==
        "experiment,policy.name,comma,quote,newline,cr,hits,object_hit_ratio,byte_hit_ratio,"
        "error\n"
        "plain,lru,\"a,b\",\"say \"\"hi\"\"\",\"line1\nline2\",\"x\ry\",42,0.25,,\n"
        "plain,gdsf,\"a,b\",\"say \"\"hi\"\"\",\"line1\nline2\",\"x\ry\",42,0.25,,\n");
}

TEST_CASE("CSV: column names are quoted too", "[results]") {
  TempDir dir;
  const std::string path = dir.file("h.csv");
  {
    ResultsWriter w(path);
    w.write({{"a,b", "1", true}, {"c", "2", true}});
  }
  CHECK(slurp(path) == "\"a,b\",c\n1,2\n");
}

TEST_CASE("JSON Lines: numbers unquoted, empty numbers null, strings escaped", "[results]") {
  TempDir dir;
  const std::string path = dir.file("r.jsonl");
  {
    ResultsWriter w(path);
    w.write(awkward_row("lru"));
    w.write(awkward_row("gdsf"));
  }
  const std::string line1 =
      "{\"experiment\":\"plain\",\"policy.name\":\"lru\",\"comma\":\"a,b\","
      "\"quote\":\"say \\\"hi\\\"\",\"newline\":\"line1\\nline2\",\"cr\":\"x\\ry\","
      "\"hits\":42,\"object_hit_ratio\":0.25,\"byte_hit_ratio\":null,\"error\":\"\"}\n";
  std::string line2 = line1;
  line2.replace(line2.find("\"lru\""), 5, "\"gdsf\"");
  CHECK(slurp(path) == line1 + line2);  // No header line.
}

TEST_CASE("JSON Lines: backslash, tab and control characters are escaped, UTF-8 passes",
          "[results]") {
  TempDir dir;
  const std::string path = dir.file("e.jsonl");
  {
    ResultsWriter w(path);
    w.write({{"s",
              std::string("a\\b\tc\x01"
                          "d\x1f"
                          "e"),
              false},
             {"u", "caf\xc3\xa9", false},
             {"k\"ey", "v", false}});
  }
  CHECK(slurp(path) ==
        "{\"s\":\"a\\\\b\\tc\\u0001d\\u001fe\",\"u\":\"caf\xc3\xa9\",\"k\\\"ey\":\"v\"}\n");
}

TEST_CASE("a .json extension also selects JSON Lines", "[results]") {
  TempDir dir;
  const std::string path = dir.file("r.json");
  {
    ResultsWriter w(path);
    w.write({{"n", "1", true}});
  }
  CHECK(slurp(path) == "{\"n\":1}\n");
}

TEST_CASE("a row with different columns throws std::logic_error and writes nothing", "[results]") {
  TempDir dir;
  for (const char* name : {"m.csv", "m.jsonl"}) {
    INFO(name);
    const std::string path = dir.file(name);
    ResultsWriter w(path);
    w.write({{"a", "1", true}, {"b", "2", true}});
    const std::string before = slurp(path);
    CHECK_THROWS_AS(w.write({{"a", "1", true}}), std::logic_error);                    // Fewer.
    CHECK_THROWS_AS(w.write({{"a", "1", true}, {"c", "2", true}}), std::logic_error);  // Renamed.
    CHECK_THROWS_AS(w.write({{"b", "2", true}, {"a", "1", true}}), std::logic_error);  // Reordered.
    CHECK_THROWS_AS(w.write({{"a", "1", true}, {"b", "2", true}, {"c", "3", true}}),
                    std::logic_error);  // More.
    CHECK(slurp(path) == before);
    w.write({{"a", "3", true}, {"b", "4", true}});  // Still usable.
    CHECK(slurp(path).size() > before.size());
  }
}

TEST_CASE("the writer creates missing parent directories and truncates", "[results]") {
  TempDir dir;
  const std::string path = dir.file("x/y/z/out.csv");
  {
    ResultsWriter w(path);
    w.write({{"a", "1", true}});
  }
  CHECK(slurp(path) == "a\n1\n");
  {
    ResultsWriter w(path);  // Truncates the old file.
    CHECK(slurp(path).empty());
  }
}

TEST_CASE("a results file that cannot be created throws std::runtime_error", "[results]") {
  TempDir dir;
  {
    std::ofstream blocker(dir.file("file"));
    blocker << "x";
  }
  // The parent "directory" is a regular file.
  CHECK_THROWS_AS(ResultsWriter(dir.file("file/out.csv")), std::runtime_error);
  // The path is a directory.
  fs::create_directories(dir.file("adir"));
  CHECK_THROWS_AS(ResultsWriter(dir.file("adir")), std::runtime_error);
}

}  // namespace
}  // namespace flashpq
