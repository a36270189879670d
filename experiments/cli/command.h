// experiments/cli/command.h — a `flashpq` subcommand declared as plain data.
//
// Each subcommand's file (run.inc, plan.inc, collect.inc, trace.inc, device.inc, bench.inc,
// keys.inc) declares its options — name, placeholder, description, the variable that receives
// the value, allowed values or range, whether it is required — and the function that runs it,
// as constant data; main.cpp alone turns the declarations into CLI11 options, parses the
// command line, prints help and calls the chosen command.
//
// Build cost: the command is one translation unit. main.cpp includes the subcommands' files
// (.inc: the build compiles experiments/cli/*.cpp, so they are not compiled apart). CLI11 is
// header-only and costs most of the command's compile time wherever it is used; compiled apart,
// the subcommands' files would each parse the experiment headers again and cost more CPU in
// all than the one file they were split from (the commit that split it measured both).
#pragma once

#include <cstdint>
#include <exception>
#include <span>
#include <string>
#include <vector>

namespace flashpq {
struct Override;
}

namespace flashpq::cli {

/// One option or positional argument of a command: constant data (constexpr), pointing at the
/// variable that receives its value.
struct Option {
  /// What receives the value.
  enum class Kind { kString, kStrings, kFlag, kInt, kUint32, kUint64, kDouble };

  /// CLI11's name: "file" (a positional), "-o,--output", "--resume", "!--buffered" (a flag that
  /// stores false).
  const char* names = "";
  /// The value's placeholder in help ("FILE", "N", "KEY=VALUE"); "" for a flag or a positional.
  const char* metavar = "";
  /// One or more sentences; help wraps them.
  const char* help = "";
  Kind kind = Kind::kString;
  void* target = nullptr;
  bool is_required = false;
  /// Help shows the variable's value before parsing as the default.
  bool show_default = false;
  /// kString: the values allowed, comma-separated ("error,rerun,keep"); nullptr: any.
  const char* allowed = nullptr;
  /// Numbers: the inclusive range, when has_range.
  bool has_range = false;
  double min = 0, max = 0;
  /// kStrings: also splits each value at this character (0: no).
  char delimiter = 0;
  /// Set to true when the option is given (nullptr: not recorded).
  bool* given = nullptr;

  constexpr Option required() const {
    Option o = *this;
    o.is_required = true;
    return o;
  }
  constexpr Option defaulted() const {
    Option o = *this;
    o.show_default = true;
    return o;
  }
  constexpr Option one_of(const char* values) const {
    Option o = *this;
    o.allowed = values;
    return o;
  }
  constexpr Option range(double lo, double hi) const {
    Option o = *this;
    o.has_range = true;
    o.min = lo;
    o.max = hi;
    return o;
  }
  constexpr Option split_at(char c) const {
    Option o = *this;
    o.delimiter = c;
    return o;
  }
  constexpr Option record_given(bool* flag) const {
    Option o = *this;
    o.given = flag;
    return o;
  }
};

/// An option (or positional) storing into `v`.
constexpr Option opt(const char* names, std::string* v, const char* metavar, const char* help) {
  return {names, metavar, help, Option::Kind::kString, v};
}
constexpr Option opt(const char* names, std::vector<std::string>* v, const char* metavar,
                     const char* help) {
  return {names, metavar, help, Option::Kind::kStrings, v};
}
constexpr Option opt(const char* names, int* v, const char* metavar, const char* help) {
  return {names, metavar, help, Option::Kind::kInt, v};
}
constexpr Option opt(const char* names, uint32_t* v, const char* metavar, const char* help) {
  return {names, metavar, help, Option::Kind::kUint32, v};
}
constexpr Option opt(const char* names, uint64_t* v, const char* metavar, const char* help) {
  return {names, metavar, help, Option::Kind::kUint64, v};
}
constexpr Option opt(const char* names, double* v, const char* metavar, const char* help) {
  return {names, metavar, help, Option::Kind::kDouble, v};
}
/// A flag: `v` becomes true when given (false for a name starting with '!').
constexpr Option flag(const char* names, bool* v, const char* help) {
  return {names, "", help, Option::Kind::kFlag, v};
}

/// A command: a leaf with a function to run, or a group of subcommands (trace, device).
struct Command {
  const char* name = "";
  /// One line of at most 70 characters: the parent's list of subcommands shows it.
  const char* summary = "";
  /// More, for the command's own --help (wrapped; may be "").
  const char* details = "";
  std::span<const Option> options;
  std::span<const Command> subcommands;
  /// Runs the command once the command line is parsed into the options' variables; returns the
  /// exit status. Throws on a configuration error (main.cpp prints it, exit status 2). nullptr
  /// for a group.
  int (*run)() = nullptr;
};

/// The subcommands, in the order `flashpq --help` lists them. Each sets the defaults that are
/// known only at run time (the cores) into its variables, which live as long as the program.
const Command& run_command();
const Command& plan_command();
const Command& collect_command();
const Command& trace_command();
const Command& device_command();
const Command& bench_device_command();
const Command& bench_command();
const Command& mrc_command();
const Command& keys_command();
const Command& import_command();

/// `flashpq run CONFIG.json`: the CacheBench config imported to an experiment in a temporary
/// directory, whose path is returned (import.inc).
std::string import_for_run(const std::string& json_path);

// Shared by the subcommands (defined in run.inc).

/// --set KEY=VALUE texts as overrides; false (after a message naming the text) if one has no
/// KEY= part.
bool parse_sets(const std::vector<std::string>& texts, std::vector<Override>& overrides);
/// The message main.cpp prints for an exception a command threw: "flashpq: FILE:LINE: …" for a
/// configuration error, "flashpq: error: …" for any other.
std::string error_message(const std::exception& e);
/// Workers by default: the cores (at least 1).
uint32_t default_jobs();
/// The help of --force-destroy, shared by every command that may write a block device.
inline constexpr const char* kForceDestroyHelp =
    "Block devices: write one that carries a filesystem or partition-table signature; SERIAL is "
    "its identity as `flashpq device check` prints it. A mounted, swap or held device is "
    "refused regardless.";

}  // namespace flashpq::cli
