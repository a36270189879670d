// tests/fuzz/test_fuzz_regressions.cpp — every checked-in fuzz input (fuzz/corpus/TARGET/: the
// seeds, and the inputs of findings, fixed, named finding-*) through its target, in the ordinary
// build: no crash, no sanitizer report under `make test-sanitize`, no exception but the
// parser's documented ones (fuzz/targets.h), no file descriptor left open.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "fuzz/targets.h"
#include "tests/test_util.h"

namespace flashpq::test_fuzz_regressions {

namespace fs = std::filesystem;

namespace {

const fs::path kCorpus = FLASHPQ_SOURCE_DIR "/fuzz/corpus";

std::vector<uint8_t> read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("fuzz: every target has a seed corpus and every checked-in input parses or is refused",
          "[fuzz]") {
  testing::TempDir dir;
  size_t inputs = 0;
  for (const fuzz::FuzzTarget& t : fuzz::fuzz_targets()) {
    const fs::path folder = kCorpus / t.name;
    INFO("target " << t.name);
    REQUIRE(fs::is_directory(folder));
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(folder)) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    CHECK(files.size() >= 2);
    const size_t descriptors = testing::open_descriptors();
    for (const fs::path& f : files) {
      INFO("input " << f.string());
      t.run(read_bytes(f), dir.path().string());
      ++inputs;
    }
    CHECK(testing::open_descriptors() == descriptors);  // refusals leak no file descriptor
  }
  // Every corpus folder is a target's (a renamed target leaves no orphaned corpus).
  for (const auto& e : fs::directory_iterator(kCorpus)) {
    INFO("folder " << e.path().string());
    CHECK(fuzz::find_fuzz_target(e.path().filename().string()) != nullptr);
  }
  CHECK(inputs >= 2 * fuzz::fuzz_targets().size());
}

}  // namespace flashpq::test_fuzz_regressions
