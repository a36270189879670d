"""Plot the device's write amplification under Flexible Data Placement
(experiments/placement/README.md).

Usage::

    /usr/bin/python3 plots/placement.py CACHELIB.csv MISPLACED.csv -o FIGURE.png

Input: the results of ``experiments/placement/cachelib_fdp.yaml`` and of
``experiments/placement/misplaced.yaml`` (CSV or JSON Lines, read by results.py).
Columns used:

============================  ========================================================
column                        meaning / unit
============================  ========================================================
wa_ftl                        device-level WA: NAND pages / host pages, after warm-up
device.fdp.handles            reclaim unit handles (0: FDP off)
device.precondition           true: every page written once before the run
cache_capacity_bytes          the cache's bytes
device_exported_bytes         the device's exported bytes
device.fdp.misplaced_fraction share of writes sent through another handle (right panel)
============================  ========================================================

Output: two panels. Left: device WA against the cache's share of the device (%), one line per
FDP setting and device state (fresh or preconditioned). Right: device WA against the share of
misplaced writes. Written at 150 dpi.

Exit status: 0 on success, 2 on a user error (a missing file or column, an unwritable output),
with a one-line message on stderr.
"""

from __future__ import annotations

import argparse
import os
import sys


from .results import ResultsError, load_results  # noqa: E402
from .results import num as _num  # noqa: E402
from .results import text as _str  # noqa: E402

PROG = "plots/placement.py"
SHARE_COLUMNS = ("wa_ftl", "device.fdp.handles", "device.precondition", "cache_capacity_bytes",
                 "device_exported_bytes")
MISPLACED_COLUMNS = ("wa_ftl", "device.fdp.misplaced_fraction")


def share_lines(rows) -> dict:
    """{(FDP on, preconditioned): [(share %, WA), ...] sorted by share}."""
    lines: dict = {}
    for r in rows:
        fdp = _num(r, "device.fdp.handles", "device.fdp.handles") > 0
        pre = _str(r, "device.precondition") == "true"
        share = 100.0 * _num(r, "cache_capacity_bytes", "cache_capacity_bytes") / _num(
            r, "device_exported_bytes", "device_exported_bytes")
        lines.setdefault((fdp, pre), []).append((share, _num(r, "wa_ftl", "wa_ftl")))
    return {k: sorted(v) for k, v in lines.items()}


def misplaced_line(rows) -> list:
    """[(misplaced share %, WA), ...] sorted by share."""
    return sorted((100.0 * _num(r, "device.fdp.misplaced_fraction", "misplaced"),
                   _num(r, "wa_ftl", "wa_ftl")) for r in rows)


def draw(shares: dict, misplaced: list):
    """The figure of :func:`share_lines` and :func:`misplaced_line` (see the module comment),
    not saved; returns the Figure."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10, 4))
    FigureCanvasAgg(fig)
    left, right = fig.subplots(1, 2)
    for (fdp, pre), pts in sorted(shares.items()):
        label = ("FDP, 3 handles" if fdp else "no FDP") + (", preconditioned" if pre else ", fresh")
        left.plot([p[0] for p in pts], [p[1] for p in pts], marker="o" if fdp else "s",
                  linestyle="-" if pre else ":", color="tab:green" if fdp else "tab:red",
                  label=label)
    left.plot([50, 100], [1.22, 3.22], "x", color="tab:red", markersize=9,
              label="CacheLib, no FDP")
    left.plot([50, 100], [1.03, 1.03], "x", color="tab:green", markersize=9,
              label="CacheLib, FDP")
    left.set_xlabel("cache size, % of the device")
    left.set_ylabel("device-level WA")
    left.set_ylim(bottom=0.9)
    left.legend(fontsize=7)
    left.set_title("navy's hybrid on simflash")
    right.plot([p[0] for p in misplaced], [p[1] for p in misplaced], marker="o",
               color="tab:green")
    right.set_xlabel("misplaced writes, % (through another handle)")
    right.set_ylabel("device-level WA")
    right.set_ylim(bottom=0.9)
    right.set_title("FDP, 3 handles, cache = device, preconditioned")
    fig.tight_layout()
    return fig


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.strip().splitlines()[0])
    parser.add_argument("cachelib")
    parser.add_argument("misplaced")
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args(argv)
    try:
        shares = share_lines(load_results(args.cachelib, SHARE_COLUMNS, PROG))
        misplaced = misplaced_line(load_results(args.misplaced, MISPLACED_COLUMNS, PROG))
    except ResultsError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 2
    fig = draw(shares, misplaced)
    try:
        fig.savefig(args.output, dpi=150)
    except OSError as e:
        print(f"{PROG}: error: cannot write {args.output}: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
