// fuzz/fuzz_main.cpp — the libFuzzer entry points of flashpq_fuzz, one binary for every target
// of fuzz/targets.h: FLASHPQ_FUZZ_TARGET=NAME selects one (`make fuzz` sets it).
//
//   FLASHPQ_FUZZ_TARGET=trace_msr build-fuzz/flashpq_fuzz -max_total_time=60 fuzz/corpus/trace_msr
//
// Built with clang, -fsanitize=fuzzer,address,undefined (CMake option FLASHPQ_FUZZ).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "fuzz/targets.h"

namespace {

const flashpq::fuzz::FuzzTarget* g_target = nullptr;
std::string g_scratch;

void remove_scratch() {
  std::error_code ec;
  std::filesystem::remove_all(g_scratch, ec);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* name = std::getenv("FLASHPQ_FUZZ_TARGET");
  g_target = name != nullptr ? flashpq::fuzz::find_fuzz_target(name) : nullptr;
  if (g_target == nullptr) {
    std::fprintf(stderr, "flashpq_fuzz: set FLASHPQ_FUZZ_TARGET to one of:\n");
    for (const auto& t : flashpq::fuzz::fuzz_targets()) {
      std::fprintf(stderr, "  %-22s %s\n", t.name, t.summary);
    }
    std::exit(2);
  }
  const char* tmp = std::getenv("TMPDIR");
  g_scratch = std::string(tmp != nullptr ? tmp : "/tmp") + "/flashpq-fuzz-" + g_target->name + "-" +
              std::to_string(::getpid());
  std::filesystem::create_directories(g_scratch);
  std::atexit(remove_scratch);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  g_target->run({data, size}, g_scratch);
  return 0;
}
