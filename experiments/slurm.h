// experiments/slurm.h — `flashpq run FILE --executor slurm`: a sweep as a Slurm job array.
//
// Writes, in OUTPUT.slurm/ (OUTPUT the results file): manifest.tsv (one line per array task:
// its index and its cells, as `--cells` reads them), job.sbatch (the array: each task runs
// `flashpq run FILE --cells CELLS --jobs 1 --resume --stale rerun -o shards/task-I.EXT`, so a
// requeued task continues where it stopped) and collect.sbatch (`flashpq collect`, merging the
// shards into OUTPUT in cell order), and submits them: the array with `sbatch --parsable`, the
// collect job with `--dependency=afterany:ARRAY` (it runs even if tasks fail, and names the
// cells missing). Slurm's own documentation: sbatch(1) --array, --dependency, --parsable;
// slurm.conf(5) MaxArraySize.
//
// Task sizing: Slurm spends about a second per task, so a task should last minutes. With
// --cells-per-task unset, cells are grouped so a task lasts about ten minutes by `flashpq
// plan`'s timed estimate, and never more tasks than MaxArraySize allows (from `scontrol show
// config`, else 1001, Slurm's default).
//
// Resume: with --resume, the existing shards and OUTPUT are first collected into OUTPUT, and only
// the cells without a current row (sweep.h: same parameters, trace_hash and flashpq_version)
// are submitted; the collect job then merges OUTPUT with the new shards.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "experiments/experiment.h"
#include "experiments/sweep.h"

namespace flashpq {

struct SlurmOptions {
  std::string partition;      // sbatch --partition; "" = the cluster's default
  std::string time;           // sbatch --time per task; "" = the partition's default
  size_t cells_per_task = 0;  // 0 = about ten minutes of estimated work per task
  size_t array_limit = 0;     // tasks running at once (--array=0-N%M); 0 = no limit
  bool dry_run = false;       // print the scripts and the manifest; write and submit nothing
  /// The flashpq binary the tasks run (absolute), and the arguments every `flashpq run` and
  /// `flashpq collect` of the job repeats (--set KEY=VALUE ..., --summary-cache DIR).
  std::string flashpq;
  std::vector<std::string> pass_through;
  /// The commands run; tests and sites with wrappers may replace them.
  std::string sbatch = "sbatch";
  std::string scontrol = "scontrol";
};

/// What submit_slurm() prepared and submitted.
struct SlurmJob {
  std::string dir;          // OUTPUT.slurm
  size_t cells = 0;         // cells submitted
  size_t tasks = 0;         // array tasks
  std::string array_job;    // job id of the array ("" on a dry run or with nothing to run)
  std::string collect_job;  // job id of the collect job
  std::string script, collect_script, manifest;  // their texts
};

/// Prepares and submits the sweep of `ex` (loaded from `file`) as a Slurm job array, as the
/// header says. `sweep` gives resume, stale and the summary cache; `out` gets what a user
/// needs (job ids, paths, the next commands; on a dry run the scripts and the manifest);
/// `log` the sweep's lines. Throws std::runtime_error if sbatch fails (its message quoted) or
/// the files cannot be written, and as pending_cells().
SlurmJob submit_slurm(const Experiment& ex, const std::string& file, const std::string& output,
                      const SweepOptions& sweep, const SlurmOptions& options, std::ostream& out,
                      std::ostream& log);

}  // namespace flashpq
