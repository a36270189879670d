#!/usr/bin/env bash
# scripts/bench_vs_fio.sh — FlashPQ's block-device I/O path against fio, same file, same
# patterns (docs/guide/real-devices.md "Against fio"):
#   seq_write   sequential 1 MiB writes, queue depth 32  (fio --rw=write --bs=1M --iodepth=32)
#   rand_read   random 4 KiB reads, queue depth 32       (fio --rw=randread --bs=4k --iodepth=32
#                                                          --norandommap: uniform, with replacement)
# both O_DIRECT through io_uring, time-based. The file is laid out first by one sequential
# pass of fio, so random reads read written blocks. Each round runs both tools on each pattern,
# in alternating order; the medians over the rounds and FlashPQ ÷ fio are printed, with the
# load average (wall-clock figures on a shared machine are noisy).
#
# Usage: scripts/bench_vs_fio.sh [FILE] [SIZE] [SECONDS] [ROUNDS]
#   FILE     a file on a real filesystem (not tmpfs) or an unused block device; default
#            build/bench-device.img (created). A block device is written: see
#            `flashpq device check` first.
#   SIZE     bytes of it to use, IEC suffixes allowed (1G = 1 GiB); default 1G
#   SECONDS  per run; default 10        ROUNDS  default 3
# Environment: FLASHPQ (default build/flashpq), FIO (default fio), FORCE_DESTROY (passed to
# flashpq --force-destroy for a device that carries a signature).
set -euo pipefail

FILE=${1:-build/bench-device.img}
SIZE=$(numfmt --from=iec "${2:-1G}")
RUNTIME=${3:-10}
ROUNDS=${4:-3}
FLASHPQ=${FLASHPQ:-build/flashpq}
FIO=${FIO:-fio}
PY=/usr/bin/python3

command -v "$FIO" >/dev/null || { echo "bench_vs_fio: fio not found (apt-get install fio)" >&2; exit 2; }
[ -x "$FLASHPQ" ] || { echo "bench_vs_fio: $FLASHPQ not built" >&2; exit 2; }
if [ "$(stat -f -c %T "$(dirname "$FILE")")" = "tmpfs" ]; then
  echo "bench_vs_fio: $FILE is on tmpfs: O_DIRECT there is not a device path; use a real filesystem" >&2
  exit 2
fi

echo "bench_vs_fio: $FILE, $SIZE bytes, ${RUNTIME} s per run, $ROUNDS rounds"
echo "  $($FIO --version), $("$FLASHPQ" --help | head -1 | cut -d: -f1), kernel $(uname -r), $(nproc) CPUs"
echo "  load before: $(cut -d' ' -f1-3 /proc/loadavg)"

# Lay the file out: one full sequential pass (fio's own layout would do the same).
"$FIO" --name=layout --filename="$FILE" --size="$SIZE" --rw=write --bs=1M --direct=1 \
  --ioengine=io_uring --iodepth=32 --output-format=terse >/dev/null

fio_bw() {  # PATTERN BS -> bytes/s
  local rw=$1 bs=$2
  "$FIO" --name=bench --filename="$FILE" --size="$SIZE" --rw="$rw" --bs="$bs" --direct=1 \
    --ioengine=io_uring --iodepth=32 --time_based --runtime="$RUNTIME" --norandommap \
    --group_reporting --output-format=json |
    $PY -c 'import json,sys; j=json.load(sys.stdin)["jobs"][0]; print(j["write"]["bw_bytes"]+j["read"]["bw_bytes"])'
}

flashpq_bw() {  # PATTERN IO_SIZE -> bytes/s
  local pattern=$1 io=$2
  local force=()
  [ -n "${FORCE_DESTROY:-}" ] && force=(--force-destroy "$FORCE_DESTROY")
  "$FLASHPQ" bench-device --path "$FILE" --size "$SIZE" --pattern "$pattern" --io-size "$io" \
    --queue-depth 32 --seconds "$RUNTIME" --json "${force[@]}" |
    $PY -c 'import json,sys; print(json.load(sys.stdin)["bw_bytes"])'
}

declare -A R
for round in $(seq 1 "$ROUNDS"); do
  # Odd rounds run fio first, even rounds FlashPQ first: drifts in the machine's load or the
  # device's state do not favour one tool.
  if [ $((round % 2)) -eq 1 ]; then
    R[fio_seq]+="$(fio_bw write 1M) "
    R[fpq_seq]+="$(flashpq_bw seq_write 1MiB) "
    R[fio_rand]+="$(fio_bw randread 4k) "
    R[fpq_rand]+="$(flashpq_bw rand_read 4KiB) "
  else
    R[fpq_seq]+="$(flashpq_bw seq_write 1MiB) "
    R[fio_seq]+="$(fio_bw write 1M) "
    R[fpq_rand]+="$(flashpq_bw rand_read 4KiB) "
    R[fio_rand]+="$(fio_bw randread 4k) "
  fi
  echo "  round $round done (load $(cut -d' ' -f1 /proc/loadavg))"
done

$PY - "${R[fio_seq]}" "${R[fpq_seq]}" "${R[fio_rand]}" "${R[fpq_rand]}" <<'EOF'
import statistics, sys
fio_seq, fpq_seq, fio_rand, fpq_rand = ([float(x) for x in a.split()] for a in sys.argv[1:5])
def line(name, f, q, unit, scale):
    mf, mq = statistics.median(f), statistics.median(q)
    print(f"  {name:<32} fio {mf/scale:10.1f} {unit}   FlashPQ {mq/scale:10.1f} {unit}   "
          f"FlashPQ/fio {mq/mf:6.3f}   (rounds: fio {' '.join(f'{x/scale:.0f}' for x in f)}; "
          f"FlashPQ {' '.join(f'{x/scale:.0f}' for x in q)})")
line("seq write 1 MiB, qd 32", fio_seq, fpq_seq, "MiB/s", 1 << 20)
line("rand read 4 KiB, qd 32", fio_rand, fpq_rand, "MiB/s", 1 << 20)
print(f"  (rand read IOPS: fio {statistics.median(fio_rand)/4096:.0f}, "
      f"FlashPQ {statistics.median(fpq_rand)/4096:.0f})")
EOF
echo "  load after: $(cut -d' ' -f1-3 /proc/loadavg)"
