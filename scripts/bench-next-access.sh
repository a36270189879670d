#!/usr/bin/env bash
# scripts/bench-next-access.sh [SCRATCH] — the offline bounds' pass over a trace
# (traces/next_access.h) on a 100 M-request .fpq (YCSB B, 10 M records): its time and memory.
#
# Stores the trace's summary first (flashpq trace info), then runs one belady cell twice with
# the user cache directory in SCRATCH: the first run makes the pass (and replays), the second
# reuses its file (and replays), so the difference is the pass (target: under 30 s). Each run's
# peak resident set is printed beside an LRU cell's on the same trace: the pass holds a table of
# the trace's keys (28 B each, as the summary's count), not of its requests (the file it writes,
# 13 B per request, is the page cache's). Writes about 3.7 GB under SCRATCH (default: a temporary
# directory, removed at the end). Needs /usr/bin/time.
set -euo pipefail
cd "$(dirname "$0")/.."
F=$(pwd)/build/flashpq
D=${1:-$(mktemp -d)}
[ -n "${1:-}" ] || trap 'rm -rf "$D"' EXIT
mkdir -p "$D"
export XDG_CACHE_HOME="$D/cache"
"$F" trace convert generator:ycsb "$D/ycsb_100m.fpq" --set trace.workload=b \
  --set trace.record_count=10000000 --set trace.operation_count=100000000 > /dev/null
"$F" trace info "$D/ycsb_100m.fpq" --format fpq > /dev/null
rm -f "$XDG_CACHE_HOME"/flashpq/*.flashpq-next-access  # a file of an earlier run would be reused
cat > "$D/bound.yaml" <<YAML
name: next_access_bench
trace: {path: ycsb_100m.fpq, format: fpq}
cache: {capacity: 0.01}
policy: {name: belady}
framework: {name: exact}
device: {name: null}
YAML
run() {  # run POLICY LABEL: seconds and peak RSS of one cell
  /usr/bin/time -f "%e %M" -o "$D/time" "$F" run "$D/bound.yaml" --set policy.name="$1" \
    -o "$D/$2.csv" --progress 0 > /dev/null 2>&1
  read -r secs kib < "$D/time"
  printf '%-34s %7.1f s  peak RSS %6.0f MiB\n' "$2" "$secs" "$((kib / 1024))"
}
run lru "lru cell (no pass)"
run belady "belady cell, computing the pass"
run belady "belady cell, the pass's file reused"
ls -l "$XDG_CACHE_HOME"/flashpq/*.flashpq-next-access | awk '{ printf "next-access file %.2f GB\n", $5 / 1e9 }'
