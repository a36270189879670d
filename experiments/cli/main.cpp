// experiments/cli/main.cpp — the `flashpq` command line (CLI11).
//
//   flashpq run FILE.yaml [--set KEY=VALUE]... [-o OUT] [--jobs N] [--memory BYTES] [--resume
//       [--stale error|rerun|keep]] [--cells I-J,...] [--progress S] [--summary-cache DIR]
//       [--executor slurm [--partition P] [--time T] [--cells-per-task N] [--array-limit M]
//       [--dry-run]] [--force-destroy=SERIAL] [--iolog FILE] [--stats-dir DIR]
//   flashpq plan FILE.yaml [--set KEY=VALUE]... [--jobs N] [--sample N]
//   flashpq collect FILE.yaml [--set KEY=VALUE]... -o OUT SHARD...
//   flashpq trace info PATH|generator:NAME [--format F] [--set trace.KEY=VALUE]... [--json]
//   flashpq trace convert IN|generator:NAME OUT.fpq|OUT.oracleGeneral[.zst] [--format F]
//       [--set trace.KEY=VALUE]... [--transform 'NAME KEY=VALUE']... [--seed S]
//   flashpq trace bench [PATH] [--format F] [--set trace.KEY=VALUE]... [--repeat N] [--seed S]
//   flashpq bench [--trace PATH] [--fraction F] [--policies a,b] [--admission none,tinylfu]
//       [--repeat N]
//   flashpq bench --des [--profile NAME] [--clients N] [--requests N] [--precondition F]
//   flashpq bench-device --path FILE --pattern seq_write|rand_read … [--json]
//   flashpq device check PATH
//   flashpq device characterize PATH [-o CHAR.csv] [--seconds S] [--repeats N] [--region BYTES]
//       [--force-destroy=SERIAL]
//   flashpq device verify PATH [--size BYTES] [--flip-at OFFSET] [--queue-depth N]
//   flashpq device calibrate CHAR.csv -o PROFILE.yaml [--base PROFILE] [--fit-patterns A,B]
//       [--geometries CxDxP,...]
//
// Exit status: 0 success; 1 some cells failed (their rows carry the error), `collect` found
// cells missing or failed, `device check` found reasons to refuse the device, or `device
// calibrate`'s fit did not converge (no profile written); 2 bad command line or configuration
// (a simflash profile calibrated to another device than the block cells' included), a results
// file that cannot be resumed (nothing ran), or a results file that cannot be written (the rows
// written before stay); 128 + N `flashpq run` stopped by signal N (130 SIGINT, 143 SIGTERM): the
// finished cells' rows are written, the log names the cells that remain (README "Errors").
#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <thread>

#include "devices/block/safety.h"
#include "experiments/bench.h"
#include "experiments/bench_device.h"
#include "experiments/calibrate.h"
#include "experiments/characterize.h"
#include "experiments/collect.h"
#include "experiments/experiment.h"
#include "experiments/plan.h"
#include "experiments/slurm.h"
#include "experiments/sweep.h"
#include "fmt/format.h"
#include "traces/fpq.h"
#include "traces/generator.h"
#include "traces/summary_cache.h"
#include "traces/trace_reader.h"
#include "traces/trace_summary.h"
#include "traces/transforms.h"

using namespace flashpq;

namespace {

// 80 % of the machine's RAM (sysconf), or 0 (no bound) when it cannot be read.
uint64_t default_memory_budget() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return 0;
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) / 5 * 4;
}

// `flashpq trace info`'s report of `s`: "key value" lines, or one JSON object.
std::string describe_trace(const std::string& path, const std::string& format,
                           const TraceSummary& s, bool json, const std::string& where) {
  const double seconds = static_cast<double>(s.last_time_ns - s.first_time_ns) / 1e9;
  const double one_hit =
      s.unique_objects == 0 ? 0 : static_cast<double>(s.one_hit_wonders) / s.unique_objects;
  const uint64_t q[] = {s.sizes.quantile(0.5), s.sizes.quantile(0.9), s.sizes.quantile(0.99)};
  std::string reuse;
  size_t last = 0;
  for (size_t b = 0; b < s.reuse_log2.size(); ++b) {
    if (s.reuse_log2[b] != 0) last = b + 1;
  }
  for (size_t b = 0; b < last; ++b) {
    const char* sep = b == 0 ? "" : json ? ", " : " ";
    reuse += json ? fmt::format("{}{{\"from\": {}, \"requests\": {}}}", sep, uint64_t{1} << b,
                                s.reuse_log2[b])
                  : fmt::format("{}{}:{}", sep, uint64_t{1} << b, s.reuse_log2[b]);
  }
  if (json) {
    return fmt::format(
        "{{\"trace\": \"{}\", \"format\": \"{}\", \"requests\": {}, \"objects\": {}, "
        "\"working_set_bytes\": {}, \"gets\": {}, \"sets\": {}, \"deletes\": {}, "
        "\"size_p50_bytes\": {}, \"size_p90_bytes\": {}, \"size_p99_bytes\": {}, "
        "\"max_object_bytes\": {}, \"one_hit_wonders\": {}, \"one_hit_wonder_ratio\": {:.6f}, "
        "\"time_span_s\": {:.9g}, \"zipf_alpha\": {:.4f}, \"reuse_distance_log2\": [{}], "
        "\"content_hash\": \"{}\"}}\n",
        path, format, s.requests, s.unique_objects, s.working_set_bytes, s.gets, s.sets, s.deletes,
        q[0], q[1], q[2], s.max_object_bytes, s.one_hit_wonders, one_hit, seconds, s.zipf_alpha,
        reuse, s.content_hash);
  }
  return fmt::format(
      "trace {}\nformat {}\nrequests {}\nunique_objects {}\nworking_set_bytes {}\n"
      "gets {}\nsets {}\ndeletes {}\nsize_p50_bytes {}\nsize_p90_bytes {}\nsize_p99_bytes {}\n"
      "max_object_bytes {}\none_hit_wonders {} ({:.1f} % of objects)\ntime_span_s {:.9g}\n"
      "zipf_alpha {:.4f} (fitted over the {} most requested objects)\n"
      "reuse_distance_log2 {} (from:requests; d requests since the key's last request)\n"
      "content_hash {}\nsummary {}\n",
      path, format, s.requests, s.unique_objects, s.working_set_bytes, s.gets, s.sets, s.deletes,
      q[0], q[1], q[2], s.max_object_bytes, s.one_hit_wonders, 100 * one_hit, seconds, s.zipf_alpha,
      TraceSummary::kZipfFitRanks, reuse.empty() ? "-" : reuse, s.content_hash, where);
}

// The trace a command names: "generator:NAME", or a file in `format` ("": by its content).
TraceConfig trace_source(const std::string& source, const std::string& format) {
  if (!source.starts_with("generator:")) return trace_file(source, format, "--format");
  TraceConfig t;
  t.format = "generator";
  t.params.set(generator_key().name, source.substr(10));
  return t;
}

// Sets each "trace.KEY=VALUE" of `sets` in `t`; false (after saying why) for another form.
bool set_trace_keys(const std::vector<std::string>& sets, const char* command, TraceConfig& t) {
  for (const auto& s : sets) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || !s.starts_with("trace.")) {
      std::cerr << command << ": --set expects trace.KEY=VALUE, found '" << s << "'\n";
      return false;
    }
    t.params.set(s.substr(0, eq), s.substr(eq + 1));
  }
  return true;
}

}  // namespace

// Writes `path` whole: write(out) into PATH.tmp, then check(PATH.tmp) (throws to keep the old
// file), then a rename, so an interrupted or failed run leaves no half file.
template <class Write, class Check = void (*)(const std::string&)>
void write_whole(
    const std::string& path, Write&& write, Check&& check = [](const std::string&) {}) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp);
    write(out);
    if (!out.flush()) throw std::runtime_error("cannot write " + tmp);
  }
  check(tmp);
  std::filesystem::rename(tmp, path);
}

// flashpq run's SIGINT and SIGTERM: the sweep stops cleanly (SweepOptions::interrupt). The
// handler only stores; SA_RESETHAND makes a second signal kill at once.
static std::atomic<bool> g_interrupt{false};
static std::atomic<int> g_signal{0};
static void on_stop_signal(int sig) {
  g_signal.store(sig, std::memory_order_relaxed);
  g_interrupt.store(true, std::memory_order_relaxed);
}
static void install_stop_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

int main(int argc, char** argv) {
  CLI::App app{"FlashPQ " FLASHPQ_VERSION
               ": what a caching policy earns in hit ratio and costs in write amplification on "
               "flash (exact, RIPQ and SIPQ priority queues; RIPQ paper, FAST'15)"};
  app.require_subcommand(1);
  app.footer("Run `flashpq run --help` for every experiment key with its default and unit.\n\n" +
             schema_help());

  auto* run = app.add_subcommand("run", "Run every cell of a YAML experiment matrix");
  std::string file, output;
  std::vector<std::string> sets;
  run->add_option("file", file, "Experiment YAML file")->required();
  run->add_option("--set", sets,
                  "KEY=VALUE: replace KEY everywhere, the matrix included; a list [a,b] makes "
                  "it a matrix axis (repeatable)");
  run->add_option("-o,--output", output, "Results file (.csv, or .jsonl for JSON Lines)");
  SweepOptions sweep;
  run->add_flag("--resume", sweep.resume,
                "Keep the finished rows of an existing results file and run only the cells "
                "without one (failed cells run again); a row counts only if its parameters, "
                "trace_hash and flashpq_version match; without it the file is replaced");
  std::string stale = "error";
  run->add_option("--stale", stale,
                  "--resume, for rows by another FlashPQ version or on other trace bytes: "
                  "error (refuse, the file untouched) | rerun (run their cells again) | keep")
      ->capture_default_str()
      ->check(CLI::IsMember({"error", "rerun", "keep"}));
  sweep.jobs = std::max(1u, std::thread::hardware_concurrency());
  run->add_option("-j,--jobs", sweep.jobs,
                  "Cells run at once, one thread each (each cell is single-threaded and "
                  "deterministic: the rows are the same for any N); default: the cores")
      ->capture_default_str()
      ->check(CLI::Range(1u, 4096u));
  std::string memory;
  run->add_option("--memory", memory,
                  "Bound on the estimated memory of the running cells (e.g. 12GiB; 0 = none); "
                  "default: 80 % of RAM");
  std::string cells;
  run->add_option("--cells", cells,
                  "Run only cells I to J (0-based, inclusive: I-J, or I), as a cluster task does");
  run->add_option("--progress", sweep.progress_seconds,
                  "Seconds between progress lines when the log is not a terminal (0 = none); "
                  "a terminal gets a live line")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1e6));
  run->add_option("--summary-cache", sweep.summaries.dir,
                  "Directory for trace summaries (default: $XDG_CACHE_HOME/flashpq, else "
                  "~/.cache/flashpq; never beside the traces)");
  bool no_summary_cache = false;
  run->add_flag("--no-summary-cache", no_summary_cache,
                "Summarise every trace afresh; read and write no stored summary");
  std::string force_destroy;
  const char* force_help =
      "Block devices: write the device even though it carries a filesystem or partition-table "
      "signature; SERIAL must be its identity (WWID, serial, or canonical path for loop "
      "devices and files), as `flashpq device check PATH` prints it. A mounted, swap or held "
      "device is refused regardless.";
  run->add_option("--force-destroy", force_destroy, force_help);
  bool allow_other_device = false;
  run->add_flag("--allow-other-device", allow_other_device,
                "Run simflash cells whose calibrated profile names another device than the block "
                "cells run on (by default an error: the comparison would compare two devices)");
  std::string iolog;
  run->add_option("--iolog", iolog,
                  "Write each cell's device I/O (offset, length, read/write/trim, issue time) as a "
                  "fio iolog (version 3) to this file; with several cells, to STEM.cellN.EXT. "
                  "Replay with fio --read_iolog=FILE [--replay_redirect=DEVICE]");
  std::string stats_dir;
  run->add_option("--stats-dir", stats_dir,
                  "Where cells with stats.interval_s write their series, DIR/cell-N.csv (default: "
                  "OUTPUT_STEM.stats beside the results; the row's stats_file names it as "
                  "DIR's name/cell-N.csv, relative to the results file's directory)");
  std::string executor = "local";
  run->add_option("--executor", executor,
                  "local: run here on --jobs workers; slurm: submit a Slurm job array (each task "
                  "runs `flashpq run FILE --cells I-J`) and a job that collects the shards")
      ->capture_default_str()
      ->check(CLI::IsMember({"local", "slurm"}));
  SlurmOptions slurm;
  run->add_option("--partition", slurm.partition, "slurm: sbatch --partition");
  run->add_option("--time", slurm.time, "slurm: sbatch --time per task (e.g. 30:00)");
  run->add_option("--cells-per-task", slurm.cells_per_task,
                  "slurm: cells per array task (default: about ten minutes of work per task, by "
                  "flashpq plan's estimate)")
      ->check(CLI::Range(size_t{1}, size_t{1} << 40));
  run->add_option("--array-limit", slurm.array_limit,
                  "slurm: array tasks running at once (--array=0-N%M)")
      ->check(CLI::Range(size_t{1}, size_t{1} << 40));
  run->add_flag("--dry-run", slurm.dry_run,
                "slurm: print the job script, the collect script and the manifest; write and "
                "submit nothing");
  run->footer(schema_help());

  auto* plan = app.add_subcommand(
      "plan",
      "What `flashpq run FILE` would run: cells, duplicates, work, memory per cell, and the "
      "time estimated from a timed sample of each kind of cell");
  std::string plan_file;
  std::vector<std::string> plan_sets;
  PlanOptions plan_options;
  plan_options.jobs = std::max(1u, std::thread::hardware_concurrency());
  plan->add_option("file", plan_file, "Experiment YAML file")->required();
  plan->add_option("--set", plan_sets, "KEY=VALUE, as for run");
  plan->add_option("-j,--jobs", plan_options.jobs, "Workers of the run to estimate")
      ->capture_default_str()
      ->check(CLI::Range(1u, 4096u));
  plan->add_option("--sample", plan_options.sample_requests,
                   "Requests of each timed sample (it runs this many, then twice as many)")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t{1000}, uint64_t{1} << 40));
  plan->add_option("--summary-cache", plan_options.summaries.dir, "As for run");

  auto* collect = app.add_subcommand(
      "collect",
      "Merge results files of one experiment (a cluster job's shards, an earlier results file) "
      "into one, in cell order; exit 1 if cells are missing or failed");
  std::string collect_file, collect_output;
  std::vector<std::string> collect_sets, collect_inputs;
  collect->add_option("file", collect_file, "Experiment YAML file")->required();
  collect->add_option("inputs", collect_inputs, "Results files to merge (absent ones are counted)");
  collect->add_option("--set", collect_sets, "KEY=VALUE, as for run");
  collect->add_option("-o,--output", collect_output, "Results file written (may be an input)")
      ->required();
  std::string collect_cache;
  collect->add_option("--summary-cache", collect_cache, "Accepted, as for run (not used)");

  auto* trace = app.add_subcommand("trace", "Inspect traces");
  const char* kFormatHelp =
      "Trace format (default: the file's content when it has a magic number - fpq, lcs, "
      "fio_iolog -, else its extension - .fpq, .lcs -, else oracleGeneral)";
  trace->require_subcommand(1);
  auto* trace_info = trace->add_subcommand(
      "info",
      "Requests, distinct objects, working set, largest object and content hash of a trace (one "
      "read, then from the summary cache that flashpq run shares)");
  std::string info_path, info_format;
  std::vector<std::string> info_sets;
  SummaryCacheOptions info_cache;
  bool info_json = false;
  uint64_t info_seed = 1;
  trace_info->add_option("path", info_path, "Trace file, or generator:NAME")->required();
  trace_info->add_option("--format", info_format, kFormatHelp);
  trace_info->add_option("--set", info_sets, "trace.KEY=VALUE: the format's keys (CSV columns)");
  trace_info->add_option("--summary-cache", info_cache.dir, "As for run");
  trace_info->add_flag("--json", info_json, "One JSON object, for scripts");
  trace_info->add_option("--seed", info_seed, "A generator's seed")->capture_default_str();
  auto* trace_convert = trace->add_subcommand(
      "convert",
      "Writes a trace file or a generator's requests, transformed, as .fpq (FlashPQ's native "
      "format) or oracleGeneral (.zst: compressed), chosen by OUT's name");
  std::string tc_in, tc_out, tc_format;
  std::vector<std::string> tc_sets, tc_transforms;
  uint64_t tc_seed = 1;
  trace_convert->add_option("in", tc_in, "Trace file, or generator:NAME")->required();
  trace_convert->add_option("out", tc_out, "OUT.fpq, or OUT.oracleGeneral[.zst] (also .bin)")
      ->required();
  trace_convert->add_option("--format", tc_format, kFormatHelp);
  trace_convert->add_option("--set", tc_sets, "trace.KEY=VALUE: the format's or generator's keys");
  trace_convert->add_option("--transform", tc_transforms,
                            "A transform, 'NAME KEY=VALUE ...' (traces/transforms.h), in order");
  trace_convert->add_option("--seed", tc_seed, "A generator's seed")->capture_default_str();
  auto* trace_bench = trace->add_subcommand(
      "bench",
      "Requests per second a trace file or generator yields (reader alone, one thread, best of "
      "--repeat)");
  std::string tb_path, tb_format;
  std::vector<std::string> tb_sets;
  int tb_repeat = 3;
  uint64_t tb_seed = 1;
  trace_bench->add_option("path", tb_path, "Trace file (none for --format generator)");
  trace_bench->add_option("--format", tb_format, kFormatHelp);
  trace_bench->add_option("--set", tb_sets, "trace.KEY=VALUE: the format's or generator's keys");
  trace_bench->add_option("--repeat", tb_repeat, "Full reads; the best is reported")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  trace_bench->add_option("--seed", tb_seed, "A generator's seed")->capture_default_str();

  auto* device = app.add_subcommand("device", "Inspect block devices and files");
  device->require_subcommand(1);
  auto* check = device->add_subcommand(
      "check",
      "Print a device's identity, geometry, partitions, mounts, swap, holders and "
      "signatures, and whether FlashPQ would write it; writes nothing (exit 1 if it "
      "would refuse)");
  std::string check_path;
  check->add_option("path", check_path, "Block device or file")->required();

  auto* characterize = device->add_subcommand(
      "characterize",
      "Measure a file or block device on the fixed plan of fio-like patterns (random 4 KiB "
      "reads at queue depth 1-32, sequential reads, random and sequential writes after a "
      "preconditioning pass, a 70/30 mix) and write IOPS, MiB/s and latency percentiles as CSV "
      "(docs/DESIGN.md \"Calibration\"). Overwrites the region it measures.");
  std::string char_path, char_out = "characterization.csv", char_region = "0",
                         char_engine = "io_uring";
  CharacterizeOptions char_opt;
  BlockConfig char_block;
  characterize
      ->add_option("path", char_path,
                   "Block device or file (created when missing), or simflash:PROFILE")
      ->required();
  characterize->add_option("-o,--output", char_out, "The CSV written")->capture_default_str();
  characterize->add_option("--seconds", char_opt.seconds, "Seconds per pattern and repeat")
      ->capture_default_str();
  characterize->add_option("--repeats", char_opt.repeats, "Runs of each pattern")
      ->capture_default_str();
  characterize
      ->add_option("--region", char_region,
                   "Bytes measured from offset 0 (0 = the device or file, at most 1 GiB; a "
                   "missing file is created with 1 GiB)")
      ->capture_default_str();
  characterize->add_option("--engine", char_engine, "io_uring | psync")->capture_default_str();
  characterize->add_option("--seed", char_opt.seed, "Seed of the random offsets")
      ->capture_default_str();
  characterize->add_option("--force-destroy", char_block.force_destroy, force_help);

  auto* verify_cmd = device->add_subcommand(
      "verify",
      "Write the region with verify headers (magic, offset, generation, CRC32C) through the "
      "I/O path, optionally corrupt one byte, read it all back and check every block: "
      "'0 corruptions' or the first corrupted block's offset (exit 1). Overwrites the region.");
  VerifyDeviceConfig ver;
  std::string ver_size = "0", ver_chunk = "64MiB", ver_engine = "io_uring";
  uint64_t ver_flip = 0;
  verify_cmd->add_option("path", ver.block.path, "Block device or file (created when missing)")
      ->required();
  verify_cmd
      ->add_option("--size", ver_size,
                   "Bytes verified from offset 0 (0 = the device or file; a missing file needs it)")
      ->capture_default_str();
  verify_cmd->add_option("--chunk", ver_chunk, "Bytes per write and read call")
      ->capture_default_str();
  verify_cmd->add_option("--queue-depth", ver.block.queue_depth, "I/Os in flight")
      ->capture_default_str();
  verify_cmd->add_option("--engine", ver_engine, "io_uring | psync")->capture_default_str();
  auto* ver_flip_opt = verify_cmd->add_option(
      "--flip-at", ver_flip, "Flip the byte at this offset between the write and the read pass");
  verify_cmd->add_option("--force-destroy", ver.block.force_destroy, force_help);

  auto* calibrate_cmd = device->add_subcommand(
      "calibrate",
      "Fit simflash's tR, tPROG, channel bandwidth, host overhead and geometry to a "
      "characterization (Levenberg-Marquardt over simulated runs of the plan) and write a "
      "profile for device.profile");
  std::string cal_in, cal_out, cal_base = "tiny", cal_fit, cal_geometries;
  uint32_t cal_refine = 3, cal_evals = 60;
  calibrate_cmd->add_option("characterization", cal_in, "CSV from `flashpq device characterize`")
      ->required();
  calibrate_cmd->add_option("-o,--output", cal_out, "The profile written (.yaml)")->required();
  calibrate_cmd
      ->add_option("--base", cal_base,
                   "Profile for what the fit leaves alone (page size, pages per block, "
                   "utilization, GC, tBERS)")
      ->capture_default_str();
  calibrate_cmd->add_option(
      "--fit-patterns", cal_fit,
      "Comma-separated pattern names to fit (default all); the others are held out and "
      "predicted");
  calibrate_cmd->add_option("--geometries", cal_geometries,
                            "Candidates as CxDxP (channels x dies per channel x planes), "
                            "comma-separated (default 1-16 x 1-8 x 1-4)");
  calibrate_cmd->add_option("--refine", cal_refine, "Best candidates fitted again at full length")
      ->capture_default_str();
  calibrate_cmd->add_option("--max-evaluations", cal_evals, "Simulated plans per fit")
      ->capture_default_str();

  auto* bench_device =
      app.add_subcommand("bench-device",
                         "Measure the block device's I/O path on one fio-like pattern (closed "
                         "loop, queue_depth in flight) and print IOPS, MiB/s and latency");
  BenchDeviceConfig bd;
  bench_device->add_option("--path", bd.block.path, "File or block device")->required();
  bench_device->add_option("--pattern", bd.pattern, "seq_write | seq_read | rand_read | rand_write")
      ->capture_default_str();
  std::string bd_io_size = "4KiB", bd_size = "0", bd_engine = "io_uring";
  bench_device->add_option("--io-size", bd_io_size, "Bytes per I/O (fio --bs)")
      ->capture_default_str();
  bench_device->add_option("--queue-depth", bd.block.queue_depth, "I/Os in flight (fio --iodepth)")
      ->capture_default_str()
      ->check(CLI::Range(1, 4096));
  bench_device->add_option("--seconds", bd.seconds, "Run time (fio --runtime, time_based)")
      ->capture_default_str();
  bench_device
      ->add_option("--size", bd_size,
                   "Bytes of the device to use (fio --size); 0 = all of it; a missing "
                   "file is created with this size")
      ->capture_default_str();
  bench_device->add_option("--engine", bd_engine, "io_uring | psync")->capture_default_str();
  bench_device->add_flag("!--buffered", bd.block.o_direct, "Without O_DIRECT");
  bench_device->add_flag("!--no-registered-buffers", bd.block.registered_buffers,
                         "Plain READ/WRITE instead of READ_FIXED/WRITE_FIXED");
  bench_device->add_option("--seed", bd.seed, "Seed of the random offsets")->capture_default_str();
  bench_device->add_flag("--json", bd.json, "One JSON object with fio's names");
  bench_device->add_option("--force-destroy", bd.block.force_destroy, force_help);

  auto* bench = app.add_subcommand(
      "bench",
      "Measure requests per second of each policy (--des: events per second of the timed mode)");
  BenchConfig bc;
  bc.trace_path = "../shared/traces/converted/w106.oracleGeneral.zst";
  bench->add_option("--trace", bc.trace_path, "oracleGeneral trace (plain or .zst)")
      ->capture_default_str();
  bench->add_option("--fraction", bc.capacity_fraction, "Cache size, fraction of working set")
      ->capture_default_str()
      ->check(CLI::Range(1e-9, 1.0));
  bench->add_option("--policies", bc.policies, "Policies to measure")
      ->delimiter(',')
      ->capture_default_str();
  bench->add_option("--frameworks", bc.frameworks, "Frameworks to measure")
      ->delimiter(',')
      ->capture_default_str();
  bench->add_option("--insertion-points", bc.insertion_points, "ripq: K")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  bench
      ->add_option("--block-fraction", bc.block_fraction,
                   "ripq, sipq: block size as a fraction of the capacity")
      ->capture_default_str()
      ->check(CLI::Range(1e-9, 1.0));
  bench->add_option("--segments", bc.segments, "L for slru and gdsf")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  bench
      ->add_option("--admission", bc.admissions,
                   "Admission policies to measure (none, tinylfu), taking turns in each "
                   "repetition; with none among them, the others also print their overhead")
      ->delimiter(',')
      ->capture_default_str();
  bench->add_option("--repeat", bc.repeat, "Repetitions; the best is reported")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  bench->add_flag("!--no-streamed", bc.streamed, "Skip the streamed-from-file measurement");
  bool des = false;
  DesBenchConfig dc;
  bench->add_flag("--des", des,
                  "Measure the discrete-event timed mode instead (events/s): random page writes "
                  "on a simflash profile from closed-loop clients");
  bench->add_option("--profile", dc.profile, "--des: simflash profile")->capture_default_str();
  bench->add_option("--clients", dc.clients, "--des: closed-loop clients")
      ->capture_default_str()
      ->check(CLI::Range(1, 65536));
  bench->add_option("--requests", dc.requests, "--des: timed random page writes")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 40));
  bench
      ->add_option("--precondition", dc.precondition,
                   "--des: functional random page writes before the run, in multiples of "
                   "the exported pages")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 100.0));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help prints and exits 0; every other parse error is a bad command line: status 2.
    return app.exit(e) == 0 ? 0 : 2;
  }

  // --set KEY=VALUE texts as overrides; nullopt (after a message) if one has no '='.
  auto parse_sets =
      [](const std::vector<std::string>& texts) -> std::optional<std::vector<Override>> {
    std::vector<Override> overrides;
    for (const auto& s : texts) {
      const auto eq = s.find('=');
      if (eq == std::string::npos || eq == 0) {
        std::cerr << "flashpq: --set expects KEY=VALUE, found '" << s << "'\n";
        return std::nullopt;
      }
      overrides.push_back({s.substr(0, eq), s.substr(eq + 1)});
    }
    return overrides;
  };

  try {
    if (*run) {
      const auto overrides = parse_sets(sets);
      if (!overrides) return 2;
      Experiment ex = load_experiment(file, *overrides);
      for (CellConfig& cell : ex.cells) cell.device.force_destroy = force_destroy;
      try {
        check_profile_devices(ex.cells, allow_other_device);
      } catch (const std::invalid_argument& e) {
        std::cerr << "flashpq: " << file << ": " << e.what() << "\n";
        return 2;
      }
      if (!iolog.empty()) {
        if (executor != "local") {
          std::cerr << "flashpq run: --iolog records cells run here: expected --executor local, "
                       "found '"
                    << executor << "'\n";
          return 2;
        }
        const std::filesystem::path p(iolog);
        for (CellConfig& cell : ex.cells) {
          cell.iolog_path =
              ex.cells.size() == 1
                  ? iolog
                  : (p.parent_path() / (p.stem().string() + ".cell" + std::to_string(cell.index) +
                                        p.extension().string()))
                        .string();
        }
      }
      const std::string out = output.empty() ? ex.output : output;
      // stats.interval_s: each cell's series beside the results (experiments/run/
      // interval_stats.h), named in its row relative to the results file's directory.
      bool any_series = false;
      {
        const std::filesystem::path o(out);
        const std::filesystem::path dir = stats_dir.empty()
                                              ? o.parent_path() / (o.stem().string() + ".stats")
                                              : std::filesystem::path(stats_dir);
        for (CellConfig& cell : ex.cells) {
          if (!cell.stats.enabled()) continue;
          any_series = true;
          const std::string name = "cell-" + std::to_string(cell.index) + ".csv";
          cell.stats_path = (dir / name).string();
          cell.stats_file = (dir.filename() / name).string();
        }
        if (any_series && stats_dir.empty()) stats_dir = std::filesystem::absolute(dir).string();
      }
      std::cerr << "flashpq: " << ex.name << ": " << ex.cells.size() << " cells -> " << out << "\n";
      sweep.stale = parse_stale_rule(stale);
      sweep.summaries.enabled = !no_summary_cache;
      if (!cells.empty()) sweep.cells = parse_cell_ranges(cells);
      sweep.memory_bytes = memory.empty() ? default_memory_budget() : parse_size(memory);
      sweep.live_progress = ::isatty(STDERR_FILENO) != 0;
      if (executor == "slurm") {
        slurm.flashpq = std::filesystem::canonical("/proc/self/exe").string();
        for (const auto& s : sets)
          slurm.pass_through.insert(slurm.pass_through.end(), {"--set", s});
        if (!sweep.summaries.dir.empty()) {
          slurm.pass_through.insert(
              slurm.pass_through.end(),
              {"--summary-cache", std::filesystem::absolute(sweep.summaries.dir).string()});
        }
        if (no_summary_cache) slurm.pass_through.push_back("--no-summary-cache");
        if (any_series) {
          slurm.pass_through.insert(slurm.pass_through.end(),
                                    {"--stats-dir", std::filesystem::absolute(stats_dir).string()});
        }
        if (!force_destroy.empty())
          slurm.pass_through.push_back("--force-destroy=" + force_destroy);
        submit_slurm(ex, file, out, sweep, slurm, std::cout, std::cerr);
        return 0;
      }
      static_assert(std::atomic<bool>::is_always_lock_free);  // safe in a signal handler
      sweep.interrupt = &g_interrupt;
      install_stop_handlers();
      size_t failed = 0;
      try {
        failed = run_experiment(ex, out, std::cerr, sweep);
      } catch (const SweepInterrupted& e) {
        const int sig = g_signal.load();
        std::cerr << "flashpq: interrupted by " << (sig == SIGINT ? "SIGINT" : "SIGTERM") << ": "
                  << e.remaining.size() << " of " << ex.cells.size()
                  << " cells remain without a row: " << format_cell_ranges(e.remaining) << "; `"
                  << "flashpq run " << file << " -o " << out << " --resume` runs them\n";
        return 128 + sig;
      }
      if (failed) {
        std::cerr << "flashpq: " << failed << " of " << ex.cells.size()
                  << " cells failed; their rows carry the error\n";
        return 1;
      }
      return 0;
    }
    if (*plan) {
      const auto overrides = parse_sets(plan_sets);
      if (!overrides) return 2;
      const Experiment ex = load_experiment(plan_file, *overrides);
      const SweepPlan p = plan_sweep(ex, plan_options, std::cerr);
      print_plan(ex, p, plan_options, std::cout);
      return p.failures.empty() ? 0 : 1;  // as flashpq run, whose rows would carry the errors
    }
    if (*collect) {
      const auto overrides = parse_sets(collect_sets);
      if (!overrides) return 2;
      const Experiment ex = load_experiment(collect_file, *overrides);
      const CollectReport r = collect_results(ex, collect_inputs, collect_output, std::cerr);
      return r.missing.empty() && r.failed.empty() ? 0 : 1;
    }
    if (*trace_convert) {
      TraceConfig t = trace_source(tc_in, tc_format);
      if (!set_trace_keys(tc_sets, "flashpq trace convert", t)) return 2;
      std::string transforms;
      for (const auto& x : tc_transforms) transforms += (transforms.empty() ? "" : "; ") + x;
      if (!transforms.empty()) t.params.set(transforms_key().name, transforms);
      t.seed = tc_seed;
      const bool to_fpq = tc_out.ends_with(".fpq");
      const bool to_oracle = tc_out.ends_with(".oracleGeneral") ||
                             tc_out.ends_with(".oracleGeneral.zst") || tc_out.ends_with(".bin") ||
                             tc_out.ends_with(".bin.zst");
      if (!to_fpq && !to_oracle) {
        std::cerr << "flashpq trace convert: OUT must end in .fpq, .oracleGeneral[.zst] or "
                     ".bin[.zst], found '"
                  << tc_out << "'\n";
        return 2;
      }
      (void)trace_transforms(t);  // a bad transform before anything is written
      auto reader = open_trace(t);
      const std::string description = fmt::format("source {} {}{}", t.format, tc_in,
                                                  transforms.empty() ? "" : "; " + transforms);
      if (to_fpq) {
        const FpqHeader h = write_fpq(*reader, tc_out, description);
        std::cout << fmt::format("{}: {} requests, {} objects, working set {} bytes (fpq)\n",
                                 tc_out, h.records, h.objects, h.working_set_bytes);
      } else {
        const uint64_t n = write_oracle_general(*reader, tc_out);
        std::cout << fmt::format("{}: {} requests (oracleGeneral)\n", tc_out, n);
      }
      return 0;
    }
    if (*trace_bench) {
      TraceConfig t;
      t.format = trace_format_for(tb_path, tb_format, "--format");
      if (!tb_path.empty()) t.params.set(kTracePathKey.name, tb_path);
      if (!set_trace_keys(tb_sets, "flashpq trace bench", t)) return 2;
      t.seed = tb_seed;
      const TraceReadMeasurement m = bench_trace_read(t, tb_repeat);
      std::cout << fmt::format(
          "source {}\nformat {}\nrequests {}\nbest_seconds {:.3f}\nrequests_per_s {:.0f}\n"
          "checksum {}\n",
          tb_path.empty() ? "(generator)" : tb_path, t.format, m.requests, m.seconds,
          static_cast<double>(m.requests) / m.seconds, m.checksum);
      return 0;
    }
    if (*trace_info) {
      TraceConfig t = trace_source(info_path, info_format);
      if (!set_trace_keys(info_sets, "flashpq trace info", t)) return 2;
      t.seed = info_seed;
      SummaryOrigin origin;
      const TraceSummary sum = cached_summary(t, info_cache, &origin);
      std::cout << describe_trace(info_path, t.format, sum, info_json, origin.text());
      return 0;
    }
    if (*bench) return des ? run_des_bench(dc, std::cout) : run_bench(bc, std::cout);
    if (*check) {
      const DeviceReport report = inspect_device(check_path);
      std::cout << describe_device(report);
      return safety_refusals(report, 0, "").empty() ? 0 : 1;
    }
    if (*characterize) {
      if (std::filesystem::exists(char_out) && std::filesystem::exists(char_path) &&
          std::filesystem::equivalent(char_out, char_path)) {
        std::cerr << "flashpq device characterize: -o names the device measured\n";
        return 2;
      }
      char_block.path = char_path;
      char_block.engine = parse_io_engine(char_engine);
      char_opt.region_bytes = parse_size(char_region);
      // simflash:PROFILE runs the plan on simflash in simulated time instead (what calibrate
      // compares a device with).
      const bool sim = char_path.rfind("simflash:", 0) == 0;
      SimulatedPlanOptions sim_opt;
      sim_opt.seed = char_opt.seed;
      const Characterization c =
          sim ? characterize_simflash(simflash_profile(char_path.substr(9)), sim_opt)
              : characterize_device(char_block, char_opt, std::cerr);
      // Written whole to a temporary file, then renamed: an interrupted run leaves no half file.
      write_whole(char_out, [&](std::ostream& out) { write_characterization(c, out); });
      std::cerr << "characterization of " << c.identity_text() << " written to " << char_out
                << "\n";
      return 0;
    }
    if (*calibrate_cmd) {
      if (!is_yaml_file_name(cal_out)) {
        std::cerr << "flashpq device calibrate: -o: expected a file name ending in .yaml or "
                     ".yml, found '"
                  << cal_out << "'\n";
        return 2;
      }
      const Characterization c = read_characterization(cal_in);
      CalibrateOptions opt;
      opt.base = simflash_profile(cal_base);
      opt.base_name = cal_base;
      opt.refine = cal_refine;
      opt.max_evaluations = cal_evals;
      auto split = [](const std::string& s) {
        std::vector<std::string> out;
        std::stringstream ss(s);
        std::string item;
        while (std::getline(ss, item, ',')) {
          if (!item.empty()) out.push_back(item);
        }
        return out;
      };
      opt.fit_patterns = split(cal_fit);
      for (const std::string& g : split(cal_geometries)) {
        CalibrateOptions::Geometry geo{};
        char x1 = 0, x2 = 0;
        std::istringstream gs(g);
        if (!(gs >> geo.channels >> x1 >> geo.dies_per_channel >> x2 >> geo.planes_per_die) ||
            x1 != 'x' || x2 != 'x' || !gs.eof() || geo.channels == 0 || geo.dies_per_channel == 0 ||
            geo.planes_per_die == 0) {
          std::cerr << "flashpq device calibrate: --geometries: expected CxDxP such as 4x2x1, "
                       "found '"
                    << g << "'\n";
          return 2;
        }
        opt.geometries.push_back(geo);
      }
      if (is_yaml_file_name(cal_base)) {
        std::cerr << "flashpq device calibrate: --base: expected a built-in profile ("
                  << fmt::format("{}", fmt::join(simflash_profile_names(), ", ")) << "), found '"
                  << cal_base << "'\n";
        return 2;
      }
      std::cerr << "calibrating simflash to " << c.identity_text() << " (" << cal_in << ")\n";
      const CalibrationResult r = calibrate(c, opt, std::cerr);
      std::cout << error_table(r);
      for (const FittedValue& v : r.fitted) {
        std::cout << fmt::format("{:<24} {:>12.4g} ± {:.2g}\n", v.name, v.value, v.standard_error);
      }
      std::cout << fmt::format(
          "geometry {} channels x {} dies x {} planes; loss {:.5f}, rms "
          "residual {:.4f}; {}; {} simulated plans\n",
          r.config.channels, r.config.dies_per_channel, r.config.planes_per_die, r.loss,
          r.rms_residual, r.status, r.evaluations);
      if (!r.converged) {
        std::cerr << "flashpq device calibrate: the fit did not converge (" << r.status
                  << "); no profile written. Residuals above; raise --max-evaluations or "
                     "narrow --geometries\n";
        return 1;
      }
      write_whole(
          cal_out, [&](std::ostream& out) { write_profile(r, c, cal_in, cal_base, out); },
          [](const std::string& tmp) { load_simflash_profile(tmp); });  // it reads back
      std::cout << "profile written to " << cal_out << "\n";
      return 0;
    }
    if (*verify_cmd) {
      ver.block.capacity_bytes = ver_size == "0" ? 0 : parse_size(ver_size);
      ver.chunk_bytes = parse_size(ver_chunk);
      ver.block.engine = parse_io_engine(ver_engine);
      ver.block.max_io_bytes = std::max<uint32_t>(ver.block.max_io_bytes, 1u << 20);
      if (*ver_flip_opt) ver.flip_at = ver_flip;
      const VerifyDeviceResult r = run_verify_device(ver, std::cout);
      return r.corrupt_offset ? 1 : 0;
    }
    if (*bench_device) {
      const uint64_t io_size = parse_size(bd_io_size);
      if (io_size == 0 || io_size > (64u << 20)) {
        std::cerr << "flashpq bench-device: --io-size must be in [1 B, 64 MiB], found '"
                  << bd_io_size << "'\n";
        return 2;
      }
      bd.io_size = static_cast<uint32_t>(io_size);
      bd.block.capacity_bytes = parse_size(bd_size);
      bd.block.engine = parse_io_engine(bd_engine);
      return run_bench_device(bd, std::cout);
    }
  } catch (const ConfigError& e) {
    std::cerr << "flashpq: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "flashpq: error: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
