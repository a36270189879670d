#!/usr/bin/env bash
# scripts/bench-vs-cachesim.sh CACHESIM [PAIRS] [POLICIES] — FlashPQ against libCacheSim's
# cachesim, whole process, on w106 at 10 % of its working set (docs/guide/policies.md "Speed").
#
# For each policy (default: s3fifo sieve arc lirs) it times, in alternating pairs so that the
# machine's drift hits both, `flashpq run experiments/bench/single_read.yaml --set
# policy.name=P` (one cell, exact framework, null device, the trace's summary stored by a first
# run) and `CACHESIM w106.oracleGeneral.zst oracleGeneral P 0.1 --ignore-obj-size 1
# --num-thread 1` (libCacheSim's single-cache path; CACHESIM: a cachesim binary, e.g. built as
# scripts/libcachesim/reference.sh builds it), checks that both print the same miss ratio (6
# decimals), and prints each pair's ratio cachesim / flashpq and their median. Each process
# decodes the trace: cachesim twice (its working-set pass, then the simulation), FlashPQ once
# (on a second core, its summary stored). Needs ../shared/traces/converted/w106.oracleGeneral.zst.
set -euo pipefail
cd "$(dirname "$0")/.."
CACHESIM=${1:?usage: bench-vs-cachesim.sh CACHESIM [PAIRS] [POLICIES]}
PAIRS=${2:-5}
POLICIES=${3:-s3fifo sieve arc lirs}
F=build/flashpq
TRACE=../shared/traces/converted/w106.oracleGeneral.zst
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
now() { date +%s%N; }
for p in $POLICIES; do
  $F run experiments/bench/single_read.yaml --set policy.name="$p" -o "$OUT/warm.csv" \
    --progress 0 2>/dev/null
  ours=$(python3 -c "import csv; r = next(csv.DictReader(open('$OUT/warm.csv'))); \
print('%.6f' % (1 - float(r['object_hit_ratio'])))")
  # cachesim writes result files into its working directory: the temporary one.
  theirs=$(cd "$OUT" && "$CACHESIM" "$OLDPWD/$TRACE" oracleGeneral "$p" 0.1 --ignore-obj-size 1 \
    --num-thread 1 2>/dev/null | sed -n 's/.*miss ratio \([0-9.]*\).*/\1/p' | tail -1)
  echo "$p: miss ratio flashpq $ours, cachesim $theirs"
  ratios=()
  for i in $(seq 1 "$PAIRS"); do
    s=$(now); $F run experiments/bench/single_read.yaml --set policy.name="$p" \
      -o "$OUT/run.csv" --progress 0 2>/dev/null; e=$(now)
    (cd "$OUT" && "$CACHESIM" "$OLDPWD/$TRACE" oracleGeneral "$p" 0.1 --ignore-obj-size 1 \
      --num-thread 1 > /dev/null 2>&1); c=$(now)
    ratio=$(awk -v a="$s" -v b="$e" -v c="$c" 'BEGIN { printf "%.2f", (c - b) / (b - a) }')
    echo "  pair $i: flashpq $(( (e - s) / 1000000 )) ms, cachesim $(( (c - e) / 1000000 )) ms, ratio $ratio"
    ratios+=("$ratio")
  done
  printf '%s\n' "${ratios[@]}" | sort -n | awk -v p="$p" '{ a[NR] = $1 } END {
    m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2;
    printf "%s: cachesim / flashpq median %.2f over %d pairs (min %.2f, max %.2f); target >= 3\n",
           p, m, NR, a[1], a[NR] }'
done
