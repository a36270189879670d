// tests/experiments/test_keys_reference.cpp — the experiment-key reference (`flashpq keys`,
// experiments/config/schema.h): docs/reference/keys.md is what the code renders, the text wraps
// as written by hand, and every key is in it once.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>

#include "experiments/config/schema.h"

namespace flashpq::test_keys_reference {
namespace {

using Catch::Contains;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST_CASE("docs/reference/keys.md is what `flashpq keys --markdown` renders", "[schema][docs]") {
  const std::string path = FLASHPQ_SOURCE_DIR "/docs/reference/keys.md";
  const std::string in_tree = read_file(path);
  INFO(path << " differs from what the code renders (a key, a default or a description "
               "changed): regenerate it with `build/flashpq keys --markdown > "
               "docs/reference/keys.md` and commit it");
  REQUIRE_FALSE(in_tree.empty());
  CHECK(in_tree == keys_markdown());
}

TEST_CASE("wrap_text: words to lines of at most the width, by hand", "[schema]") {
  CHECK(wrap_text("", 10) == "");
  CHECK(wrap_text("one two three four", 9) == "one two\nthree\nfour\n");
  CHECK(wrap_text("one two three four", 9, "  ") == "  one two\n  three\n  four\n");
  // A word longer than a line gets a line of its own; a newline starts a new line.
  CHECK(wrap_text("a abcdefghijkl b", 5) == "a\nabcdefghijkl\nb\n");
  CHECK(wrap_text("a\n\nb c", 5) == "a\n\nb c\n");
  // Spaces between words collapse to one.
  CHECK(wrap_text("a   b", 10) == "a b\n");
}

TEST_CASE("keys reference: every key once in the Markdown, selections as documented", "[schema]") {
  const std::string md = keys_markdown();
  for (const SchemaKey& k : experiment_schema()) {
    INFO(k.spec.name);
    const std::string row = "\n| `" + k.spec.name + "` |";
    const size_t at = md.find(row);
    REQUIRE(at != std::string::npos);
    CHECK(md.find(row, at + 1) == std::string::npos);
  }
  CHECK_THAT(md, Contains("\n| `name` |") && Contains("\n| `output` |"));
  // A description that begins with its readers' names says them once.
  CHECK_THAT(md, Contains("| `trace.preload` | `false` |  | true or false | trace.format fpq | "
                          "fault the whole file"));
  // One key: three lines (name and default, description, values and readers).
  CHECK(keys_reference("framework.insertion_points") ==
        "  framework.insertion_points  default 8\n"
        "      insertion points K (alpha = 1/K)\n"
        "      an integer in [1, 64]; read when framework.name ripq\n");
  CHECK_THROWS_WITH(keys_reference("frame"),
                    Contains("keys: unknown 'frame'") && Contains("framework"));
  CHECK_THROWS_WITH(keys_reference("framework.ripqq"),
                    Contains("under framework: framework.exact, framework.ripq"));
}

}  // namespace
}  // namespace flashpq::test_keys_reference
