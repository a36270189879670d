#!/usr/bin/env bash
# Installs the Debian 12 packages FlashPQ needs, if any are missing: only what the asked-for
# target uses. Uses sudo when not root. Every library comes from Debian; nothing is downloaded
# otherwise.
#   scripts/install-deps.sh demo       what `make demo` needs: the compiler, the libraries the
#                                      `flashpq` command links, matplotlib and pandas
#   scripts/install-deps.sh            what `make test` needs: the above, and the test
#                                      libraries and tools, pybind11 and Python's headers
#   scripts/install-deps.sh python     what `make python` needs: the demo's, pybind11, Python's
#                                      headers and venv
#   scripts/install-deps.sh sanitize   and clang with its sanitizer and libFuzzer runtimes
#                                      (make test-sanitize, make fuzz)
set -euo pipefail
PACKAGES=(
  cmake ninja-build g++ pkg-config make ccache
  libcli11-dev libyaml-cpp-dev libzstd-dev zlib1g-dev libfmt-dev libxxhash-dev libeigen3-dev
  liburing-dev libblkid-dev
  python3 python3-matplotlib python3-numpy python3-pandas
)
if [ "${1:-}" = "python" ]; then
  # the Python package (pip install .): pybind11, Python's headers, venv
  PACKAGES+=(pybind11-dev python3-dev python3-venv)
elif [ "${1:-}" != "demo" ]; then
  PACKAGES+=(
    # the tests: Catch2, and Boost.Math for their analytic models
    catch2 libboost-dev python3-pytest python3-pytest-xdist
    # the Python package's native module (pybind11), and its notebook run by a test
    pybind11-dev python3-dev python3-yaml python3-tqdm python3-nbclient python3-nbformat
    python3-ipykernel
    # real block devices: loop-device tests (losetup, mkfs.ext4, mkswap), fio for the benchmark
    # comparison, nvme-cli for the drive's write counters
    util-linux e2fsprogs fio nvme-cli
    # the Slurm executor's test: a single-node Slurm on localhost (tests/slurm/test_slurm.sh)
    slurm-wlm munge
    # the checked-in .clang-format, checked by CI (make format-check)
    clang-format
  )
fi
if [ "${1:-}" = "sanitize" ]; then
  PACKAGES+=(clang-14 libclang-rt-14-dev)
fi
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
