#!/usr/bin/env bash
# scripts/sim_vs_real.sh — the same cells on simflash and on a block device (issue 5, item 7):
# runs experiments/sim_vs_real/{cache,io}_{simflash,block}.yaml and draws
# results/sim_vs_real.png (throughput, latency percentiles, hit ratios side by side).
# Extra arguments go to every `flashpq run` (e.g. --set device.path=/dev/nvme1n1 would apply
# to the simflash files too and fail there: edit the *_block.yaml files instead).
set -euo pipefail
FLASHPQ=${FLASHPQ:-build/flashpq}
PY=/usr/bin/python3
mkdir -p results
outs=()
for kind in cache io; do
  for dev in simflash block; do
    out=results/sim_vs_real_${kind}_${dev}.csv
    "$FLASHPQ" run "experiments/sim_vs_real/${kind}_${dev}.yaml" -o "$out" "$@"
    outs+=("$out")
  done
done
$PY plots/sim_vs_real.py "${outs[@]}" -o results/sim_vs_real.png
echo "sim_vs_real: ${outs[*]} -> results/sim_vs_real.png"
