// experiments/cli/main.cpp — the `flashpq` command line: the subcommands' declarations
// (experiments/cli/command.h) turned into CLI11 options, parsed, and the chosen one run. The
// command's one translation unit: it includes each subcommand's file (command.h says why).
//
//   flashpq run FILE.yaml [--set KEY=VALUE]... [-o OUT] [--jobs N] [--resume] [--cells I-J] …
//   flashpq plan FILE.yaml [--set KEY=VALUE]... [--jobs N] [--sample N]
//   flashpq collect FILE.yaml [--set KEY=VALUE]... -o OUT SHARD...
//   flashpq trace info|convert|bench …
//   flashpq device check|characterize|verify|calibrate …
//   flashpq bench-device --path FILE --pattern seq_write|rand_read … [--json]
//   flashpq bench [--trace PATH] [--des] …
//   flashpq mrc TRACE --method exact_lru|shards|minisim --sizes S,S [--set KEY=VALUE]... [-o OUT]
//   flashpq keys [SECTION|SECTION.COMPONENT|KEY] [--markdown]
//
// Exit status: 0 success; 1 some cells failed (their rows carry the error), `collect` found
// cells missing or failed, `device check` found reasons to refuse the device, or `device
// calibrate`'s fit did not converge (no profile written); 2 bad command line or configuration
// (a simflash profile calibrated to another device than the block cells' included), a results
// file that cannot be resumed (nothing ran), or a results file that cannot be written (the rows
// written before stay); 128 + N `flashpq run` stopped by signal N (130 SIGINT, 143 SIGTERM): the
// finished cells' rows are written, the log names the cells that remain (docs/guide/errors.md "Exit
// statuses").
#include <CLI/CLI.hpp>
#include <iostream>

#include "experiments/cli/command.h"
#include "experiments/config/schema.h"

// The subcommands, one file each. A new one: its file here, its declaration in command.h, and
// its entry in main()'s list.
#include "experiments/cli/bench.inc"
#include "experiments/cli/collect.inc"
#include "experiments/cli/device.inc"
#include "experiments/cli/import.inc"
#include "experiments/cli/keys.inc"
#include "experiments/cli/mrc.inc"
#include "experiments/cli/plan.inc"
#include "experiments/cli/run.inc"
#include "experiments/cli/trace.inc"

using namespace flashpq;
using namespace flashpq::cli;

namespace {

constexpr size_t kWidth = 100;  // help lines, at most
constexpr size_t kColumn = 30;  // the names' column
constexpr size_t kText = kWidth - kColumn;

// Help within kWidth columns: option descriptions wrapped beside the names, the default said in
// words, a subcommand's list showing its one-line summary (the first line of its description).
class Formatter : public CLI::Formatter {
 public:
  Formatter() { column_width(kColumn); }

  std::string make_option_opts(const CLI::Option* o) const override {
    if (o->get_positional()) {
      return o->get_expected_max() == CLI::detail::expected_max_vector_size ? " ..." : "";
    }
    if (o->get_type_size() == 0) return "";  // a flag
    std::string s = " " + o->get_option_text();
    if (o->get_expected_max() == CLI::detail::expected_max_vector_size) s += " ...";
    if (o->get_required()) s += " (required)";
    return s;
  }
  std::string make_option_desc(const CLI::Option* o) const override {
    std::string d = o->get_description();
    if (!o->get_default_str().empty()) d += " (default: " + o->get_default_str() + ")";
    return trim_end(wrap_text(d, kText));
  }
  std::string make_subcommand(const CLI::App* sub) const override {
    const std::string& d = sub->get_description();
    std::stringstream out;
    CLI::detail::format_help(out, sub->get_name(), d.substr(0, d.find('\n')), kColumn);
    return out.str();
  }
  std::string make_description(const CLI::App* app) const override {
    return wrap_text(app->get_description(), kWidth);
  }
  std::string make_footer(const CLI::App* app) const override {
    return app->get_footer().empty() ? "" : wrap_text(app->get_footer(), kWidth);
  }

 private:
  static std::string trim_end(std::string s) {
    while (!s.empty() && s.back() == '\n') s.pop_back();
    return s;
  }
};

template <class T>
CLI::Option* add_number(CLI::App& app, const Option& o) {
  CLI::Option* c = app.add_option(o.names, *static_cast<T*>(o.target), o.help);
  if (o.has_range) c->check(CLI::Range(static_cast<T>(o.min), static_cast<T>(o.max)));
  return c;
}

// "a,b,c" as {"a", "b", "c"}.
std::vector<std::string> split_commas(const char* text) {
  std::vector<std::string> out;
  std::string item;
  for (const char* p = text;; ++p) {
    if (*p == ',' || *p == '\0') {
      out.push_back(item);
      item.clear();
      if (*p == '\0') return out;
    } else {
      item += *p;
    }
  }
}

// `o` as an option of `app`.
void add(CLI::App& app, const Option& o) {
  CLI::Option* c = nullptr;
  switch (o.kind) {
    case Option::Kind::kFlag:
      c = app.add_flag(o.names, *static_cast<bool*>(o.target), o.help);
      break;
    case Option::Kind::kString:
      c = app.add_option(o.names, *static_cast<std::string*>(o.target), o.help);
      if (o.allowed != nullptr) c->check(CLI::IsMember(split_commas(o.allowed)));
      break;
    case Option::Kind::kStrings:
      c = app.add_option(o.names, *static_cast<std::vector<std::string>*>(o.target), o.help);
      if (o.delimiter != 0) c->delimiter(o.delimiter);
      break;
    case Option::Kind::kInt:
      c = add_number<int>(app, o);
      break;
    case Option::Kind::kUint32:
      c = add_number<uint32_t>(app, o);
      break;
    case Option::Kind::kUint64:
      c = add_number<uint64_t>(app, o);
      break;
    case Option::Kind::kDouble:
      c = add_number<double>(app, o);
      break;
  }
  if (o.is_required) c->required();
  if (o.show_default) c->capture_default_str();
  if (*o.metavar != '\0') c->option_text(o.metavar);
  if (o.given != nullptr) {
    bool* given = o.given;
    c->each([given](const std::string&) { *given = true; });
  }
}

// The CLI11 subcommand of `cmd` under `parent`, and its own subcommands; `leaves` gets each
// runnable command with its CLI11 app.
void build(CLI::App& parent, const Command& cmd,
           std::vector<std::pair<CLI::App*, const Command*>>& leaves) {
  const std::string details = cmd.details;
  CLI::App* app = parent.add_subcommand(
      cmd.name, details.empty() ? cmd.summary : std::string(cmd.summary) + "\n" + details);
  for (const Option& o : cmd.options) add(*app, o);
  app->footer("");  // CLI11 gives a subcommand its parent's footer
  for (const Command& sub : cmd.subcommands) build(*app, sub, leaves);
  if (!cmd.subcommands.empty()) {
    app->require_subcommand(1);
    app->footer("`flashpq " + std::string(cmd.name) +
                " SUBCOMMAND --help` shows a subcommand's options.");
  }
  if (cmd.run != nullptr) leaves.emplace_back(app, &cmd);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"FlashPQ " FLASHPQ_VERSION
               ": what a caching policy earns in hit ratio and costs in write amplification on "
               "flash (exact, RIPQ and SIPQ priority queues; RIPQ paper, FAST'15)"};
  app.formatter(std::make_shared<Formatter>());
  app.require_subcommand(1);
  std::vector<std::pair<CLI::App*, const Command*>> leaves;
  for (const Command* c : {&run_command(), &plan_command(), &collect_command(), &trace_command(),
                           &device_command(), &bench_device_command(), &bench_command(),
                           &mrc_command(), &keys_command(), &import_command()}) {
    build(app, *c, leaves);
  }
  app.footer(
      "`flashpq SUBCOMMAND --help` shows a subcommand's options; `flashpq keys` the keys of an "
      "experiment file. Exit status: 0 done; 1 some cells failed (their rows carry the error); 2 "
      "a bad command line or configuration (nothing ran); 128+N stopped by signal N, the "
      "finished rows kept.");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help prints and exits 0; every other parse error is a bad command line: status 2.
    return app.exit(e) == 0 ? 0 : 2;
  }
  for (const auto& [sub, cmd] : leaves) {
    if (!sub->parsed()) continue;
    try {
      return cmd->run();
    } catch (const std::exception& e) {
      std::cerr << error_message(e) << "\n";
      return 2;
    }
  }
  return 0;
}
