// tests/experiments/test_results.cpp — the results writer: CSV (RFC 4180 quoting, one header) and
// JSON Lines (numbers unquoted, empty numbers null, strings escaped), column checks and file
// creation.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>

#include "experiments/results.h"
#include "tests/test_util.h"

namespace flashpq::test_results {
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

// Rows carry the columns of their cells' sections (experiments/run/row.h): a CSV header is the
// union, a field a row does not carry empty; a row with a column the header lacks widens it
// (the file rewritten once, every earlier row with an empty field); JSON Lines rows carry their
// own keys. A column named twice is a programming error.
TEST_CASE("rows of different columns: the CSV header widens, JSON Lines keeps each row's keys",
          "[results]") {
  TempDir dir;
  // Names the declared order does not know keep the order first met (merge_columns()).
  const std::string csv = dir.file("m.csv");
  {
    ResultsWriter w(csv, {"a", "b"});
    CHECK(slurp(csv) == "a,b\n");                   // The header before the first row.
    w.write({{"a", "1", true}});                    // Fewer: b empty.
    w.write({{"b", "2", true}, {"a", "3", true}});  // Another order: by name.
    CHECK(slurp(csv) == "a,b\n1,\n3,2\n");
    w.write({{"a", "4", true}, {"c", "x,y", false}});  // More: the header widens.
    CHECK(slurp(csv) == "a,b,c\n1,,\n3,2,\n4,,\"x,y\"\n");
    CHECK(w.columns() == std::vector<std::string>{"a", "b", "c"});
    CHECK(w.texts() == std::vector<std::string>{"1,,", "3,2,", "4,,\"x,y\""});
    CHECK_FALSE(fs::exists(csv + ".tmp"));
    const std::string before = slurp(csv);
    CHECK_THROWS_AS(w.write({{"a", "1", true}, {"a", "2", true}}), std::logic_error);
    CHECK(slurp(csv) == before);
    w.write({{"c", "5", true}});  // Still usable.
    CHECK(slurp(csv) == before + ",,5\n");
  }
  const StoredResults r = read_results(csv);
  CHECK(r.columns == std::vector<std::string>{"a", "b", "c"});
  REQUIRE(r.rows.size() == 4);
  CHECK(r.rows[3].field("c") == "5");
  CHECK(r.rows[0].field("b").empty());

  const std::string jsonl = dir.file("m.jsonl");
  {
    ResultsWriter w(jsonl);
    w.write({{"a", "1", true}, {"b", "", true}});
    w.write({{"a", "2", true}});
    w.write({{"c", "x", false}, {"a", "3", true}});
  }
  CHECK(slurp(jsonl) == "{\"a\":1,\"b\":null}\n{\"a\":2}\n{\"c\":\"x\",\"a\":3}\n");
  const StoredResults j = read_results(jsonl);
  CHECK(j.columns == std::vector<std::string>{"a", "b", "c"});  // The union, first met.
  REQUIRE(j.rows.size() == 3);
  CHECK(j.rows[1].fields.size() == 1);  // A key absent is a column absent.
  CHECK(j.rows[1].field("b").empty());
  CHECK(j.rows[2].field("c") == "x");
}

TEST_CASE("a resumed CSV file is rewritten under the wider header, JSON lines as they were",
          "[results]") {
  TempDir dir;
  const std::string csv = dir.write("k.csv", "a,c\n1,\"p,q\"\n2,\n");
  const StoredResults r = read_results(csv);
  {
    ResultsWriter w(csv, {"a", "b", "c"}, r.rows);
    w.write({{"b", "9", true}});
  }
  CHECK(slurp(csv) == "a,b,c\n1,,\"p,q\"\n2,,\n,9,\n");
  // A kept row's column the header lacks is the caller's error: nothing is lost silently.
  CHECK_THROWS_AS(ResultsWriter(csv, {"a"}, r.rows), std::logic_error);
  const std::string jsonl = dir.write("k.jsonl", "{\"a\":1}\n{\"c\":\"z\"}\n");
  const StoredResults j = read_results(jsonl);
  {
    ResultsWriter w(jsonl, {"a", "b", "c"}, j.rows);
    w.write({{"b", "9", true}});
  }
  CHECK(slurp(jsonl) == "{\"a\":1}\n{\"c\":\"z\"}\n{\"b\":9}\n");
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

// read_results is the resume path's reader: what the writer wrote, it reads back field for field
// (the writer is the reference), and each row's text is its record as written.
TEST_CASE("read_results reads back what the writer wrote, CSV and JSON Lines", "[results]") {
  TempDir dir;
  for (const char* name : {"rows.csv", "rows.jsonl"}) {
    INFO(name);
    const std::string path = dir.file(name);
    ResultRow tricky = awkward_row("slru");
    tricky.push_back({"control", std::string("a\tb\\c\x01"), false});
    std::vector<ResultRow> written = {awkward_row(), tricky, awkward_row("fifo")};
    for (auto& row : written) {
      if (row.size() < tricky.size()) row.push_back({"control", "", false});
    }
    {
      ResultsWriter w(path);
      for (const auto& row : written) w.write(row);
    }
    const StoredResults r = read_results(path);
    CHECK_FALSE(r.truncated_tail);
    REQUIRE(r.rows.size() == 3);
    REQUIRE(r.columns.size() == tricky.size());
    for (size_t i = 0; i < 3; ++i) {
      for (size_t c = 0; c < written[i].size(); ++c) {
        INFO(written[i][c].name);
        CHECK(r.columns[c] == written[i][c].name);
        CHECK(r.rows[i].fields.at(written[i][c].name) == written[i][c].text);
      }
    }
    // The texts, each followed by a line break, are the file after its header.
    std::string body;
    for (const auto& row : r.rows) body += row.text + "\n";
    const std::string file = slurp(path);
    CHECK(file.substr(file.size() - body.size()) == body);

    // An unfinished last record is reported and left out; a resumed writer keeps the rows.
    std::ofstream(path, std::ios::app)
        << (std::string(name) == "rows.csv" ? "plain,\"lr" : "{\"exp");
    const StoredResults cut = read_results(path);
    CHECK(cut.truncated_tail);
    CHECK(cut.rows.size() == 3);
    {
      ResultsWriter w(path, cut.columns, {cut.rows[0], cut.rows[2]});
      w.write(written[1]);
    }
    const StoredResults again = read_results(path);
    CHECK_FALSE(again.truncated_tail);
    REQUIRE(again.rows.size() == 3);
    CHECK(again.rows[0].text == r.rows[0].text);
    CHECK(again.rows[1].text == r.rows[2].text);
    CHECK(again.rows[2].text == r.rows[1].text);
    CHECK_FALSE(fs::exists(path + ".tmp"));
  }
  CHECK_THROWS_WITH(read_results(dir.file("absent.csv")), Catch::Contains("cannot open"));
  std::ofstream(dir.file("bad.csv")) << "a,b\n1,2\n3\n";
  CHECK_THROWS_WITH(read_results(dir.file("bad.csv")), Catch::Contains("bad.csv:3: 1 fields"));
  std::ofstream(dir.file("bad.jsonl")) << "{\"a\":1}\n[1, 2]\n";
  CHECK_THROWS_WITH(read_results(dir.file("bad.jsonl")), Catch::Contains("bad.jsonl:2"));
}

}  // namespace
}  // namespace flashpq::test_results
