// tests/main.cpp — Catch2's runner, in a user cache directory of its own: trace summaries go to
// $XDG_CACHE_HOME/flashpq by default (traces/summary_cache.h), so the tests, and the flashpq
// processes they start (which inherit the variable), write theirs in a scratch directory
// removed at the end, never in the user's cache.
#define CATCH_CONFIG_RUNNER
#include <stdlib.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <string>

int main(int argc, char* argv[]) {
  std::string dir =
      (std::filesystem::temp_directory_path() / "flashpq_tests_cache.XXXXXX").string();
  if (::mkdtemp(dir.data()) == nullptr) {
    std::perror("flashpq_tests: cannot create a scratch cache directory");
    return 2;
  }
  ::setenv("XDG_CACHE_HOME", dir.c_str(), 1);
  const int status = Catch::Session().run(argc, argv);
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return status;
}
