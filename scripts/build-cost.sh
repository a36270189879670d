#!/usr/bin/env bash
# The clean-build cost of FlashPQ's targets, as the README's build figures are measured: each
# target built from nothing in a temporary directory (Release, ccache off), its user CPU seconds
# (every compiler and linker process, summed), wall seconds, and the costliest translation units.
#   scripts/build-cost.sh [TARGET...]     default: flashpq flashpq_tests (in that order; the
#                                         tests' figure excludes what flashpq built already)
#   JOBS=N (default: nproc), TOP=N units listed (default 12), CMAKE_ARGS="-D..." more options
# Compare two commits side by side on the same machine: run it in a clone of each, alternately.
set -euo pipefail
command -v /usr/bin/time > /dev/null || { echo "build-cost.sh: needs /usr/bin/time (Debian package time)" >&2; exit 2; }
src=$(cd "$(dirname "$0")/.." && pwd)
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(flashpq flashpq_tests)
jobs=${JOBS:-$(nproc)}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export FLASHPQ_TU_LOG=$dir/units.log
# The launcher records each compilation's user and system CPU seconds, wall seconds and source.
cat > "$dir/launch" <<'LAUNCH'
#!/usr/bin/env bash
src=""
prev=""
for a in "$@"; do
  [ "$prev" = "-c" ] && src=$a
  prev=$a
done
exec /usr/bin/time -a -o "$FLASHPQ_TU_LOG" -f "%U %S %e ${src:-link}" "$@"
LAUNCH
chmod +x "$dir/launch"
tests=OFF
for t in "${targets[@]}"; do [ "$t" != flashpq ] && tests=ON; done
cmake -S "$src" -B "$dir/b" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFLASHPQ_CCACHE=OFF \
  -DFLASHPQ_BUILD_TESTS=$tests -DCMAKE_CXX_COMPILER_LAUNCHER="$dir/launch" ${CMAKE_ARGS:-} > /dev/null
for t in "${targets[@]}"; do
  : > "$FLASHPQ_TU_LOG"
  t0=$(date +%s.%N)
  cmake --build "$dir/b" -j "$jobs" --target "$t" > "$dir/build.log" 2>&1 || {
    tail -30 "$dir/build.log"
    exit 1
  }
  t1=$(date +%s.%N)
  awk -v t="$t" -v t0="$t0" -v t1="$t1" -v jobs="$jobs" '
    { user += $1; sys += $2; n++ }
    END { printf "%s: %d compilations, user %.1f s, sys %.1f s, wall %.1f s (-j %s)\n",
                 t, n, user, sys, t1 - t0, jobs }' "$FLASHPQ_TU_LOG"
  awk '{ u[$4] += $1 } END { for (k in u) printf "  %7.1f s  %s\n", u[k], k }' "$FLASHPQ_TU_LOG" |
    sort -rn | head -n "${TOP:-12}" | sed "s|$src/||; s|$dir/b/||"
done
