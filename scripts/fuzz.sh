#!/usr/bin/env bash
# Runs flashpq_fuzz on each target for a set time and reports executions and findings
# (docs/DESIGN.md "Fuzzing"). `make fuzz` calls it.
#
#   scripts/fuzz.sh BINARY SECONDS JOBS TARGET...
#
# Each target starts from its checked-in seeds (fuzz/corpus/TARGET, never written) and keeps
# what it learns in results/fuzz/corpus/TARGET (the next run starts from there too); a finding
# (crash, sanitizer report, undocumented exception, timeout, out of memory) is saved as
# results/fuzz/findings/TARGET-KIND-HASH with the log in results/fuzz/TARGET.log. Up to JOBS
# targets run at once. Exit status 1 if any target found something, 2 on bad arguments.
set -uo pipefail
if [ $# -lt 4 ]; then
  echo "usage: $0 BINARY SECONDS JOBS TARGET..." >&2
  exit 2
fi
BIN=$1 SECONDS_EACH=$2 JOBS=$3
shift 3
OUT=results/fuzz
mkdir -p "$OUT/findings"

run_one() {
  local t=$1
  mkdir -p "$OUT/corpus/$t"
  rm -f "$OUT/findings/$t"-*
  # -max_len: the largest seed is 9 KiB (a characterization); -timeout: seconds per input.
  FLASHPQ_FUZZ_TARGET=$t "$BIN" -max_total_time="$SECONDS_EACH" -max_len=16384 -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$OUT/findings/$t-" \
    "$OUT/corpus/$t" "fuzz/corpus/$t" > "$OUT/$t.log" 2>&1
  echo "$?" > "$OUT/$t.rc"
}
export -f run_one
export BIN SECONDS_EACH OUT
printf '%s\n' "$@" | xargs -P "$JOBS" -I{} bash -c 'run_one {}'

status=0
printf '%-22s %12s %10s %8s %8s  %s\n' target executions exec/s cov corpus findings
for t in "$@"; do
  log=$OUT/$t.log
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | cut -d' ' -f2)
  corpus=$(find "$OUT/corpus/$t" -type f | wc -l)
  found=$(find "$OUT/findings" -name "$t-*" -type f | wc -l)
  rc=$(cat "$OUT/$t.rc")
  note=$found
  if [ "$found" -gt 0 ] || [ "$rc" -ne 0 ]; then
    status=1
    note="$found (exit $rc; see $log and $OUT/findings/$t-*)"
  fi
  printf '%-22s %12s %10s %8s %8s  %s\n' "$t" "${execs:-?}" "${rate:-?}" "${cov:-?}" "$corpus" "$note"
done
exit $status
