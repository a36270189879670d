// experiments/slurm.cpp — a sweep as a Slurm job array (experiments/slurm.h).
#include "experiments/slurm.h"

#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>

#include "experiments/collect.h"
#include "experiments/plan.h"
#include "experiments/results.h"
#include "fmt/format.h"

namespace flashpq {

namespace {

namespace fs = std::filesystem;

// Single-quotes a word for bash.
std::string sh(const std::string& s) {
  std::string out = "'";
  for (const char ch : s) {
    if (ch == '\'')
      out += "'\\''";
    else
      out += ch;
  }
  return out + "'";
}

// Runs a shell command; returns its exit status and its output (stdout and stderr).
int run_command(const std::string& command, std::string& output) {
  FILE* p = ::popen((command + " 2>&1").c_str(), "r");
  if (p == nullptr) return -1;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) output.append(buf, n);
  const int rc = ::pclose(p);
  return rc != -1 && WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

// MaxArraySize from `scontrol show config`, or Slurm's default 1001.
size_t max_array_size(const std::string& scontrol) {
  std::string text;
  if (run_command(scontrol + " show config", text) != 0) return 1001;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("MaxArraySize", 0) != 0) continue;
    const size_t eq = line.find('=');
    if (eq == std::string::npos) break;
    try {
      return std::max<size_t>(1, std::stoull(line.substr(eq + 1)));
    } catch (const std::exception&) {
      break;
    }
  }
  return 1001;
}

// The job id `sbatch --parsable` printed ("ID" or "ID;CLUSTER").
std::string job_id(const std::string& printed) {
  std::string last;
  std::istringstream in(printed);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) last = line;
  }
  const std::string id = last.substr(0, last.find(';'));
  if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos) return "";
  return id;
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << text;
  if (!f) throw std::runtime_error(path + ": cannot write");
}

}  // namespace

SlurmJob submit_slurm(const Experiment& ex, const std::string& file, const std::string& output,
                      const SweepOptions& sweep, const SlurmOptions& o, std::ostream& out,
                      std::ostream& log) {
  SlurmJob job;
  const fs::path results = fs::absolute(output);
  const std::string ext = is_json_results(output) ? "jsonl" : "csv";
  const fs::path dir = results.string() + ".slurm";
  job.dir = dir.string();
  const std::string shard_glob = (dir / "shards").string() + "/task-*." + ext;

  // Resume: what the earlier shards and the results file hold, merged, decides what is left.
  std::vector<size_t> cells;
  if (sweep.resume) {
    std::vector<std::string> inputs{results.string()};
    if (fs::exists(dir / "shards")) {
      std::vector<std::string> shards;
      for (const auto& e : fs::directory_iterator(dir / "shards")) {
        if (e.path().extension() == "." + ext) shards.push_back(e.path().string());
      }
      std::sort(shards.begin(), shards.end());
      inputs.insert(inputs.end(), shards.begin(), shards.end());
    }
    if (inputs.size() > 1 || fs::exists(results)) {
      if (!o.dry_run) {
        collect_results(ex, inputs, results.string(), log);
        if (fs::exists(dir / "shards")) fs::remove_all(dir / "shards");
      }
    }
    cells = pending_cells(ex, results.string(), log, sweep);
  } else {
    for (const CellConfig& c : ex.cells) {
      if (sweep.cells.empty() ||
          std::any_of(sweep.cells.begin(), sweep.cells.end(),
                      [&](const auto& r) { return c.index >= r.first && c.index <= r.second; }))
        cells.push_back(c.index);
    }
  }
  job.cells = cells.size();
  if (cells.empty()) {
    out << fmt::format("flashpq: {}: every cell has its row in {}: nothing to submit\n", ex.name,
                       results.string());
    return job;
  }

  // Cells per task: about ten minutes each by the plan's estimate, within MaxArraySize.
  size_t per_task = o.cells_per_task;
  if (per_task == 0) {
    PlanOptions po;
    po.summaries = sweep.summaries;
    std::ostringstream quiet;
    const SweepPlan plan = plan_sweep(ex, po, quiet);
    double seconds = 0;
    for (size_t c : cells) seconds += plan.cells[c].seconds;
    const double per_cell = seconds / static_cast<double>(cells.size());
    per_task = per_cell > 0 ? static_cast<size_t>(std::ceil(600.0 / per_cell)) : cells.size();
    per_task = std::clamp<size_t>(per_task, 1, cells.size());
    log << fmt::format(
        "flashpq: {:.1f} s per cell estimated: {} cells per task (about {:.0f} s each)\n", per_cell,
        per_task, per_cell * static_cast<double>(per_task));
  }
  const size_t max_array = o.dry_run ? 1001 : max_array_size(o.scontrol);
  if ((cells.size() + per_task - 1) / per_task > max_array) {
    per_task = (cells.size() + max_array - 1) / max_array;
  }
  std::vector<std::string> task_cells;
  for (size_t i = 0; i < cells.size(); i += per_task) {
    task_cells.push_back(format_cell_ranges(std::vector<size_t>(
        cells.begin() + i, cells.begin() + std::min(cells.size(), i + per_task))));
  }
  job.tasks = task_cells.size();

  job.manifest = "# task\tcells (flashpq run --cells)\n";
  for (size_t t = 0; t < task_cells.size(); ++t)
    job.manifest += fmt::format("{}\t{}\n", t, task_cells[t]);

  const std::string cwd = fs::current_path().string();
  const std::string yaml = fs::absolute(file).string();
  std::string pass;
  for (const std::string& a : o.pass_through) {
    pass += ' ';
    pass += sh(a);
  }
  std::string head = "#!/bin/bash\n";
  head += fmt::format("# FlashPQ {}: experiment {}, {} cells in {} tasks; manifest {}\n",
                      FLASHPQ_VERSION, ex.name, cells.size(), job.tasks,
                      (dir / "manifest.tsv").string());
  std::string common;
  if (!o.partition.empty()) common += "#SBATCH --partition=" + o.partition + "\n";
  job.script = head;
  job.script += fmt::format("#SBATCH --job-name=flashpq-{}\n", ex.name);
  job.script += fmt::format("#SBATCH --array=0-{}{}\n", job.tasks - 1,
                            o.array_limit ? fmt::format("%{}", o.array_limit) : "");
  job.script += "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n";
  job.script += fmt::format("#SBATCH --output={}/logs/task-%a.log\n", dir.string());
  if (!o.time.empty()) job.script += "#SBATCH --time=" + o.time + "\n";
  job.script += common;
  job.script += "set -euo pipefail\n";
  job.script += "cd " + sh(cwd) + "\n";
  job.script += fmt::format(
      "cells=$(awk -F'\\t' -v t=\"$SLURM_ARRAY_TASK_ID\" '$1 == t {{ print $2 }}' {})\n",
      sh((dir / "manifest.tsv").string()));
  job.script += fmt::format(
      "exec {} run {}{} --cells \"$cells\" --jobs 1 --resume --stale rerun --progress 60 -o "
      "{}/shards/task-\"$SLURM_ARRAY_TASK_ID\".{}\n",
      sh(o.flashpq), sh(yaml), pass, sh(dir.string()), ext);

  job.collect_script = head;
  job.collect_script += fmt::format("#SBATCH --job-name=flashpq-{}-collect\n", ex.name);
  job.collect_script += "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n";
  job.collect_script += fmt::format("#SBATCH --output={}/logs/collect.log\n", dir.string());
  job.collect_script += common;
  job.collect_script += "set -uo pipefail\n";
  job.collect_script += "cd " + sh(cwd) + "\n";
  job.collect_script += "shopt -s nullglob\n";
  job.collect_script +=
      fmt::format("exec {} collect {}{} -o {} {}{}\n", sh(o.flashpq), sh(yaml), pass,
                  sh(results.string()), sweep.resume ? sh(results.string()) + " " : "",
                  sh((dir / "shards").string()) + "/task-*." + ext);

  if (o.dry_run) {
    out << "# " << (dir / "job.sbatch").string() << "\n" << job.script << "\n";
    out << "# " << (dir / "collect.sbatch").string() << "\n" << job.collect_script << "\n";
    out << "# " << (dir / "manifest.tsv").string() << "\n" << job.manifest;
    out << fmt::format("flashpq: dry run: {} cells in {} tasks; nothing written or submitted\n",
                       cells.size(), job.tasks);
    return job;
  }

  fs::create_directories(dir / "logs");
  fs::create_directories(dir / "shards");
  if (!sweep.resume) {  // a fresh sweep: shards of an earlier one must not be merged
    for (const auto& e : fs::directory_iterator(dir / "shards")) fs::remove(e.path());
  }
  write_file((dir / "manifest.tsv").string(), job.manifest);
  write_file((dir / "job.sbatch").string(), job.script);
  write_file((dir / "collect.sbatch").string(), job.collect_script);

  std::string printed;
  if (run_command(o.sbatch + " --parsable " + sh((dir / "job.sbatch").string()), printed) != 0 ||
      (job.array_job = job_id(printed)).empty()) {
    throw std::runtime_error("sbatch refused the job array: " + printed);
  }
  printed.clear();
  if (run_command(fmt::format("{} --parsable --dependency=afterany:{} {}", o.sbatch, job.array_job,
                              sh((dir / "collect.sbatch").string())),
                  printed) != 0 ||
      (job.collect_job = job_id(printed)).empty()) {
    throw std::runtime_error(fmt::format(
        "sbatch refused the collect job (the array {} is submitted; run `flashpq collect` when "
        "it ends): {}",
        job.array_job, printed));
  }
  out << fmt::format(
      "flashpq: {}: {} cells in {} array tasks, job {}; job {} collects them into {} when they "
      "end\n  squeue -j {},{}    # their state\n  tasks' logs and shards: {}\n",
      ex.name, cells.size(), job.tasks, job.array_job, job.collect_job, results.string(),
      job.array_job, job.collect_job, dir.string());
  return job;
}

}  // namespace flashpq
