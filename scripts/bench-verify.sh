#!/usr/bin/env bash
# Verify at scale: `flashpq device verify` writes SIZE bytes of FILE through io_uring (O_DIRECT)
# with a verify header on every logical block, reads them all back and checks each; then again
# with one byte flipped between the two passes, which must be reported with its block's offset.
# A benchmark, not a test: it prints both runs' figures.
#
#   scripts/bench-verify.sh [FILE] [SIZE] [FLIP_OFFSET]
#   (defaults: results/verify.img, 10GiB, 7 GiB + 123456789 bytes)
set -euo pipefail
cd "$(dirname "$0")/.."
FILE=${1:-results/verify.img}
SIZE=${2:-10GiB}
FLIP=${3:-$((7 * 1024 * 1024 * 1024 + 123456789))}
BIN=${FLASHPQ:-build/flashpq}
mkdir -p "$(dirname "$FILE")"
echo "== clean: $SIZE of $FILE"
"$BIN" device verify "$FILE" --size "$SIZE"
echo "== one byte flipped at offset $FLIP"
set +e
"$BIN" device verify "$FILE" --size "$SIZE" --flip-at "$FLIP"
rc=$?
set -e
if [ "$rc" -ne 1 ]; then
  echo "bench-verify: expected exit 1 (a corruption found), got $rc" >&2
  exit 1
fi
rm -f "$FILE"
