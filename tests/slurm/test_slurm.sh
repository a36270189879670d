#!/usr/bin/env bash
# tests/slurm/test_slurm.sh FLASHPQ — `flashpq run --executor slurm` on a real single-node Slurm.
#
# Starts munged, slurmctld and slurmd on localhost (Debian's munge and slurm-wlm, a generated
# slurm.conf, free ports, everything under a temporary directory), submits an 8-cell sweep as a
# job array of 3 tasks, waits for the collect job, and checks that the rows equal a local run's
# (wall_seconds aside); then deletes two rows and checks that --resume submits exactly those
# two cells. The daemons are stopped by their process ids. Where Slurm cannot start (not root,
# a package missing, a daemon that does not come up), it says why and exits 77: ctest reports
# the test skipped, never passed.
set -uo pipefail
FLASHPQ=$(readlink -f "$1")
SRC=$(cd "$(dirname "$0")/../.." && pwd)
TRACE="$SRC/traces/data/adaptsize-request.oracleGeneral.zst"
start=$(date +%s)

skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAILED: $*"; exit 1; }

[ "$(id -u)" -eq 0 ] || skip "slurmd must run as root to start jobs, and this is uid $(id -u)"
for c in munged mungekey slurmctld slurmd sbatch squeue sinfo scontrol python3; do
  command -v "$c" >/dev/null || skip "$c not found (Debian packages munge and slurm-wlm)"
done

W=$(mktemp -d /tmp/flashpq-slurm.XXXXXX)
chmod 755 "$W"
# Trace summaries go to the user cache directory (traces/summary_cache.h): this test's, and its
# jobs' (sbatch passes the environment on), in the scratch directory, not in the user's.
export XDG_CACHE_HOME="$W/cache"
cleanup() {
  for f in "$W/slurmd.pid" "$W/slurmctld.pid" "$W/munge/munged.pid"; do
    [ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null
  done
  sleep 1
  for f in "$W/slurmd.pid" "$W/slurmctld.pid" "$W/munge/munged.pid"; do
    [ -s "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null
  done
  rm -rf "$W"
}
trap cleanup EXIT
mkdir -p "$W/munge" "$W/state" "$W/spool" "$W/logs" "$W/run"
chmod 700 "$W/munge"

mungekey -c -k "$W/munge/munge.key" -f >/dev/null 2>&1 || skip "mungekey could not create a key"
chmod 600 "$W/munge/munge.key"
munged -f -S "$W/munge/sock" --key-file="$W/munge/munge.key" --log-file="$W/munge/log" \
  --pid-file="$W/munge/munged.pid" --seed-file="$W/munge/seed" >/dev/null 2>&1 ||
  skip "munged did not start: $(tail -2 "$W/munge/log" 2>/dev/null)"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
CTLD_PORT=$(free_port)
SLURMD_PORT=$(free_port)
HOST=$(hostname -s)
export SLURM_CONF="$W/slurm.conf"
cat >"$SLURM_CONF" <<CONF
ClusterName=flashpqtest
SlurmctldHost=$HOST(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
AuthType=auth/munge
AuthInfo=socket=$W/munge/sock
CredType=cred/munge
StateSaveLocation=$W/state
SlurmdSpoolDir=$W/spool
SlurmctldPidFile=$W/slurmctld.pid
SlurmdPidFile=$W/slurmd.pid
SlurmctldLogFile=$W/logs/slurmctld.log
SlurmdLogFile=$W/logs/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SlurmUser=root
SlurmdUser=root
ReturnToService=2
MpiDefault=none
MaxArraySize=1001
NodeName=$HOST NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=flashpq Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
slurmctld -f "$SLURM_CONF" >/dev/null 2>&1 || skip "slurmctld did not start: $(tail -3 "$W/logs/slurmctld.log" 2>/dev/null)"
slurmd -f "$SLURM_CONF" >/dev/null 2>&1 || skip "slurmd did not start: $(tail -3 "$W/logs/slurmd.log" 2>/dev/null)"
# The waits below poll until what they wait for has happened; their bounds only decide how
# long a real failure takes to report, far above what a loaded machine needs (the whole script
# takes about 15 s on a 2-core machine under a load of 10) and than Slurm's own periodic
# scheduling pass (SchedulerParameters sched_interval, 60 s by default), within ctest's 600 s.
for _ in $(seq 1 120); do
  sinfo -h -o %t 2>/dev/null | grep -q idle && break
  sleep 0.5
done
sinfo -h -o %t 2>/dev/null | grep -q idle ||
  skip "the Slurm node did not become idle in 60 s: $(tail -3 "$W/logs/slurmctld.log" "$W/logs/slurmd.log" 2>/dev/null)"
echo "slurm up after $(($(date +%s) - start)) s (slurmctld :$CTLD_PORT, slurmd :$SLURMD_PORT)"

cd "$W/run"
cat >x.yaml <<YAML
name: slurmed
trace:
  path: $TRACE
warmup: 0.2
framework: {block_size: 0.00390625}
device: {name: simflash, profile: tiny, utilization: 0.9, size_to_cache: true}
matrix:
  cache.capacity: [0.1, 0.2]
  framework.name: [exact, ripq]
  policy.name: [fifo, lru]
YAML
"$FLASHPQ" run x.yaml -o local.csv --jobs 1 --progress 0 2>local.log || fail "the local run: $(tail -3 local.log)"

# Waits for a job to leave the queue (200 s at most). A squeue that fails (a controller slow
# to answer on a busy machine) is asked again, unless the job is no longer known at all.
wait_job() {
  local out
  for _ in $(seq 1 400); do
    if out=$(squeue -h -j "$1" 2>&1); then
      [ -z "$out" ] && return 0
    elif grep -q "Invalid job id" <<<"$out"; then
      return 0
    fi
    sleep 0.5
  done
  fail "job $1 still queued after 200 s: $(squeue 2>&1)"
}
# Compares two results files, wall_seconds aside.
same_rows() {
  python3 - "$1" "$2" <<'PY' || fail "$1 and $2 differ"
import csv, sys
def rows(p):
    r = list(csv.reader(open(p, newline="")))
    w = r[0].index("wall_seconds")
    return [x[:w] + x[w + 1:] for x in r]
a, b = rows(sys.argv[1]), rows(sys.argv[2])
if a != b:
    print(f"{len(a)} and {len(b)} rows; first difference at row",
          next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b))))
    sys.exit(1)
PY
}

dry=$("$FLASHPQ" run x.yaml --executor slurm --cells-per-task 3 --dry-run -o s.csv 2>/dev/null) ||
  fail "--dry-run"
grep -q -- "--array=0-2" <<<"$dry" || fail "--dry-run shows no --array=0-2: $dry"
[ ! -e s.csv.slurm ] || fail "--dry-run wrote s.csv.slurm"

out=$("$FLASHPQ" run x.yaml --executor slurm --cells-per-task 3 -o s.csv 2>submit.log) ||
  fail "submit: $(cat submit.log)"
echo "$out"
collect_job=$(sed -n 's/.*; job \([0-9]*\) collects.*/\1/p' <<<"$out")
[ -n "$collect_job" ] || fail "no collect job in: $out"
wait_job "$collect_job"
[ -s s.csv ] || fail "no s.csv after the collect job: $(cat s.csv.slurm/logs/* 2>&1 | tail -20)"
same_rows local.csv s.csv
echo "the job array's rows equal the local run's"

# Resume: two rows lost (and the shards, already merged, removed), two cells submitted.
rm -rf s.csv.slurm/shards
python3 - <<'PY'
lines = open("s.csv").read().splitlines(True)
open("s.csv", "w").write("".join(lines[:3] + lines[4:7] + lines[8:]))  # cells 2 and 6 gone
PY
out=$("$FLASHPQ" run x.yaml --executor slurm --resume --cells-per-task 1 -o s.csv 2>resume.log) ||
  fail "resume: $(cat resume.log)"
echo "$out"
grep -q "2 cells in 2 array tasks" <<<"$out" || fail "--resume did not submit exactly 2 cells: $out"
grep -q "^0	2$" s.csv.slurm/manifest.tsv && grep -q "^1	6$" s.csv.slurm/manifest.tsv ||
  fail "manifest: $(cat s.csv.slurm/manifest.tsv)"
collect_job=$(sed -n 's/.*; job \([0-9]*\) collects.*/\1/p' <<<"$out")
wait_job "$collect_job"
same_rows local.csv s.csv
echo "--resume submitted the 2 missing cells; the rows equal the local run's"
echo "passed in $(($(date +%s) - start)) s"
