#!/usr/bin/env bash
# scripts/libcachesim/reference.sh — a maintainer's step, never part of the build or the tests:
# rewrite tests/data/libcachesim/reference.csv, libCacheSim's miss ratios for every policy
# FlashPQ shares with it, on the shared traces.
#
#   scripts/libcachesim/reference.sh LIBCACHESIM_GIT_DIR [OUT_CSV]
#
# LIBCACHESIM_GIT_DIR: a clone of github.com/1a1a11a/libCacheSim (a bare one will do) holding
# commit aa0fc40914b2b786f4b9f4dafb099f8f332b216a. Its tree at that commit is extracted into a
# temporary directory (less data/twitter_cluster52*, whose blobs public snapshots lack),
# precision.patch applied (cachesim prints the miss ratios to 6 decimals instead of 4) and
# cachesim built (cmake, Release; needs libglib2.0-dev, libzstd-dev, cmake, ninja-build). Then
#   cachesim TRACE oracleGeneral POLICY 0.01,0.05,0.1,0.2 [--ignore-obj-size 1] --num-thread 1
# runs for each trace (cloudPhysicsIO sized and unit, w106 unit, adaptsize sized and unit) and
# policy, two at a time, and parse_results.py turns the logs into the CSV (cache sizes
# recomputed as cachesim computes them and checked against the ones it prints). LFUDA on w106
# runs one size per process (cachesim's single-cache path prints no byte ratio: with unit sizes
# it equals the object ratio). About an hour of CPU, most of it LFUDA on w106.
#
# tests/policies/test_libcachesim.cpp compares FlashPQ with the CSV and checks the table of
# docs/guide/policies.md; after rewriting the CSV run
# `FLASHPQ_UPDATE_DOCS=1 build/flashpq_tests "[libcachesim]"` and commit both.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
git_dir="${1:?usage: reference.sh LIBCACHESIM_GIT_DIR [OUT_CSV]}"
out="${2:-$repo/tests/data/libcachesim/reference.csv}"
commit=aa0fc40914b2b786f4b9f4dafb099f8f332b216a
traces="${FLASHPQ_SHARED_TRACES:-$repo/../shared/traces}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

git --git-dir="$git_dir" archive "$commit" -- . ':(exclude)data/twitter_cluster52.csv' \
  ':(exclude)data/twitter_cluster52_10m.csv.zst' | tar -x -C "$work"
(cd "$work" && patch -p1 < "$here/precision.patch")
cmake -S "$work" -B "$work/_build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DENABLE_TESTS=OFF \
  -DENABLE_GLCACHE=OFF -DENABLE_LRB=OFF -DOPT_SUPPORT_ZSTD_TRACE=ON > "$work/cmake.log"
ninja -C "$work/_build" cachesim > "$work/ninja.log"
bin="$work/_build/bin/cachesim"

mkdir -p "$work/logs" "$work/runs"
cmds="$work/commands.txt"
: > "$cmds"
for t in "cloudPhysicsIO|$traces/libcachesim/cloudPhysicsIO.oracleGeneral.bin|" \
         "cloudPhysicsIO|$traces/libcachesim/cloudPhysicsIO.oracleGeneral.bin|--ignore-obj-size 1" \
         "w106|$traces/converted/w106.oracleGeneral.zst|--ignore-obj-size 1" \
         "adaptsize|$traces/converted/adaptsize-request.oracleGeneral.zst|" \
         "adaptsize|$traces/converted/adaptsize-request.oracleGeneral.zst|--ignore-obj-size 1"; do
  IFS='|' read -r name path flags <<< "$t"
  unit=0; [[ -n "$flags" ]] && unit=1
  for p in fifo lru s3fifo sieve arc twoq lirs lfu lfuda clock belady; do
    if [[ $name == w106 && $p == lfuda ]]; then
      for s in 0.01 0.05 0.1 0.2; do
        echo "cd $work/runs && $bin $path oracleGeneral $p $s $flags --num-thread 1 > $work/logs/${name}_unit${unit}_${p}_${s}.log 2>&1" >> "$cmds"
      done
      continue
    fi
    echo "cd $work/runs && $bin $path oracleGeneral $p 0.01,0.05,0.1,0.2 $flags --num-thread 1 > $work/logs/${name}_unit${unit}_${p}.log 2>&1" >> "$cmds"
  done
  # GDSF with unit sizes is LFU-DA as Arlitt et al. define it (FlashPQ's lfuda, aging paper).
  if [[ $unit == 1 ]]; then
    echo "cd $work/runs && $bin $path oracleGeneral gdsf 0.01,0.05,0.1,0.2 $flags --num-thread 1 > $work/logs/${name}_unit${unit}_gdsf.log 2>&1" >> "$cmds"
  fi
done
xargs -P 2 -I{} -d '\n' bash -c '{}' < "$cmds"
{
  echo "# libCacheSim's cachesim, commit $commit with scripts/libcachesim/precision.patch:"
  echo "# cachesim TRACE oracleGeneral POLICY 0.01,0.05,0.1,0.2 [--ignore-obj-size 1] --num-thread 1"
  echo "# (scripts/libcachesim/reference.sh). unit_size 1: --ignore-obj-size 1."
  python3 "$here/parse_results.py" "$work/logs" | grep -v DNF  # runs that did not finish
} > "$out"
echo "wrote $out ($(grep -vc '^#' "$out") lines)"
