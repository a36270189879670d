#!/usr/bin/env bash
# scripts/bench-single-read.sh [PAIRS] — the single-read benchmark (docs/DESIGN.md "Sweeps").
#
# Times the whole process of `flashpq run experiments/bench/single_read.yaml` (one exact-LRU cell
# of w106 at 10 % of its working set, its trace summary already stored) against the decode row of
# `flashpq bench` on the same trace (the seconds to decode every request, nothing else), in
# alternating pairs so that the machine's drift hits both, and prints each pair's ratio and the
# median. Target: at most 1.3. Needs ../shared/traces/converted/w106.oracleGeneral.zst.
set -euo pipefail
cd "$(dirname "$0")/.."
PAIRS=${1:-11}
F=build/flashpq
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
$F run experiments/bench/single_read.yaml -o "$OUT/warm.csv" --progress 0 2>/dev/null  # stores the summary
ratios=()
for i in $(seq 1 "$PAIRS"); do
  s=$(date +%s%N)
  $F run experiments/bench/single_read.yaml -o "$OUT/run.csv" --progress 0 2>/dev/null
  e=$(date +%s%N)
  run=$(awk -v a="$s" -v b="$e" 'BEGIN { printf "%.4f", (b - a) / 1e9 }')
  dec=$($F bench --policies lru --frameworks exact --repeat 1 | awk '$4 == "decode" { print $6 }')
  ratio=$(awk -v r="$run" -v d="$dec" 'BEGIN { printf "%.3f", r / d }')
  echo "pair $i: flashpq run $run s, decode row $dec s, ratio $ratio"
  ratios+=("$ratio")
done
printf '%s\n' "${ratios[@]}" | sort -n |
  awk '{ a[NR] = $1 } END { m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2;
         printf "median ratio %.3f over %d pairs (min %.3f, max %.3f); target <= 1.3\n", m, NR, a[1], a[NR] }'
