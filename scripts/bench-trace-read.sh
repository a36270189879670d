#!/usr/bin/env bash
# scripts/bench-trace-read.sh [SCRATCH] — how fast each trace source yields requests
# (`flashpq trace bench`: the reader alone on one thread, best of 5 full reads), against the
# targets of docs/DESIGN.md "Traces": .fpq ≥ 150 M requests/s, oracleGeneral.zst ≥ 40 M/s,
# Twitter CSV ≥ 5 M rows/s, the zipf generator ≥ 50 M/s, ycsb ≥ 20 M/s; and trace info on a
# 100 M-request .fpq in under 30 s. Writes its inputs (about 2.7 GB) under SCRATCH (default: a
# temporary directory, removed at the end). Needs ../shared/traces/converted/w106.oracleGeneral.zst.
set -euo pipefail
cd "$(dirname "$0")/.."
F=build/flashpq
W106=../shared/traces/converted/w106.oracleGeneral.zst
D=${1:-$(mktemp -d)}
[ -n "${1:-}" ] || trap 'rm -rf "$D"' EXIT
mkdir -p "$D"
rate() { "$F" trace bench "$@" --repeat 5 | awk '/^requests_per_s/ { printf "%.1f M/s", $2 / 1e6 }'; }

"$F" trace convert "$W106" "$D/w106.fpq" > /dev/null
"$F" trace convert "$D/w106.fpq" "$D/w106.oracleGeneral.zst" --format fpq > /dev/null
# 5 M Twitter rows: keys of 20 bytes over 200,000 objects, the README's seven fields.
awk 'BEGIN { srand(1); split("get get get get get get get get set delete", ops, " ");
             for (i = 0; i < 5000000; i++) { k = int(rand() * 200000);
               printf "%d,q:q:1:%08xabc,20,%d,%d,%s,0\n", i / 1000, k, 100 + k % 900, k % 50,
                      ops[1 + k % 10] } }' > "$D/twitter.csv"
"$F" trace convert generator:ycsb "$D/ycsb_100m.fpq" --set trace.workload=b \
  --set trace.record_count=10000000 --set trace.operation_count=100000000 > /dev/null

echo "fpq (w106, 5.3 M requests)              $(rate "$D/w106.fpq" --format fpq)   target >= 150"
echo "oracleGeneral.zst (w106 as written here) $(rate "$D/w106.oracleGeneral.zst")   target >= 40"
echo "oracleGeneral.zst (w106 as shipped)      $(rate "$W106")"
echo "twitter CSV (5 M rows)                   $(rate "$D/twitter.csv" --format twitter)   target >= 5"
echo "zipf generator (50 M requests)           $(rate --format generator --set trace.generator=zipf \
  --set trace.requests=50000000)   target >= 50"
echo "ycsb generator, workload b (30 M)        $(rate --format generator --set trace.generator=ycsb \
  --set trace.workload=b --set trace.record_count=10000000 --set trace.operation_count=30000000)   target >= 20"
s=$(date +%s%N)
"$F" trace info "$D/ycsb_100m.fpq" --format fpq --summary-cache "$D/cache" > /dev/null
e=$(date +%s%N)
awk -v a="$s" -v b="$e" 'BEGIN { printf "trace info, 100 M-request .fpq           %.1f s   target < 30\n", (b - a) / 1e9 }'
