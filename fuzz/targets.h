// fuzz/targets.h — the fuzz targets: every parser and decoder of FlashPQ, each a function of
// one input (docs/DESIGN.md "Fuzzing").
//
// A target feeds its input to one parser the way FlashPQ does (a trace file through
// open_trace() and TraceReader::read(), an experiment file through load_experiment(), ...)
// and catches the errors that parser documents for bad input (TraceError, ConfigError,
// std::invalid_argument, ...). Anything else is a finding: a crash or a sanitizer report, an
// exception of another type (std::bad_alloc, std::out_of_range, a YAML::Exception leaking past
// the loader), or an abort. The same functions run under libFuzzer (fuzz/fuzz_main.cpp, `make
// fuzz`) and, on every checked-in input, in the ordinary test suite
// (tests/fuzz/test_fuzz_regressions.cpp), so a finding fixed stays fixed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace flashpq::fuzz {

/// One fuzz target.
struct FuzzTarget {
  /// Name: the corpus folder fuzz/corpus/NAME and `make fuzz`'s FUZZ_TARGETS use it.
  const char* name;
  /// What it parses, one line.
  const char* summary;
  /// Runs one input. `scratch` is a directory the target may write its input file to (it
  /// reuses one file name, so a run leaves one file). Returns normally when the input is
  /// parsed or refused with a documented error; calls report_finding() (which aborts) on an
  /// exception of any other type.
  void (*run)(std::span<const uint8_t> data, const std::string& scratch);
};

/// The targets, in a fixed order.
const std::vector<FuzzTarget>& fuzz_targets();
/// The target named `name`, or nullptr.
const FuzzTarget* find_fuzz_target(const std::string& name);

/// Prints "fuzz target NAME: unexpected exception TYPE: WHAT" to stderr and aborts (libFuzzer
/// then saves the input as a crash).
[[noreturn]] void report_finding(const char* target, const char* type, const char* what);

}  // namespace flashpq::fuzz
