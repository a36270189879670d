"""Plot curves over cache size from ``flashpq mrc``: hit ratio, and write amplification or the
byte-wise hit ratio, against cache size, one line per policy, framework and method.

Usage::

    /usr/bin/python3 plots/curves.py CURVE.csv [CURVE.csv ...] -o FIGURE.png [--title T]

Input: curve files of ``flashpq mrc`` (CSV or JSON Lines; docs/guide/curves.md), read by
results.py.  Columns used:

=====================  ========  ==============================================
column                 needed    meaning / unit
=====================  ========  ==============================================
curve_method           yes       exact_lru, shards or minisim
curve_sample_rate      yes       the sampling rate R of the point (1: none)
cache_capacity_bytes   yes       the size the point stands for (bytes, objects
                                 with cache.unit_size)
object_hit_ratio       yes       hits / get requests
byte_hit_ratio         yes       bytes hit / bytes requested (right panel
                                 without WA)
policy.name            no        the line's policy (lru when empty)
framework.name         no        the line's framework (exact when empty)
wa_combined            no        when any row has it, the right panel draws it
                                 (NAND bytes per byte of missed object)
=====================  ========  ==============================================

Output: two panels side by side, x = cache size (MiB, or objects in unit-size mode), log-scaled
when the sizes span more than a factor of 10.  Colour, marker and dash follow style.py
(the policy's colour and marker, the framework's dash); a sampled curve's markers are hollow
and its label says the method and rate ("shards 1%"), an exact one's are filled.  Written at
150 dpi.

Exit status: 0 on success, 2 on a user error (a missing file or column, an unwritable output),
with a one-line message on stderr.
"""

from __future__ import annotations

import argparse
import os
import sys


import matplotlib  # noqa: E402

matplotlib.use("Agg")  # headless rendering; must precede any pyplot import

from matplotlib.figure import Figure  # noqa: E402

from . import style  # noqa: E402
from .results import ResultsError, load_results  # noqa: E402
from .results import num as _num  # noqa: E402
from .results import text as _str  # noqa: E402

PROG = "plots/curves.py"
COLUMNS = ("curve_method", "curve_sample_rate", "cache_capacity_bytes", "object_hit_ratio",
           "byte_hit_ratio")


def series(rows) -> dict:
    """The points of each line: {(policy, framework, method, rate): [(size, hit, right)]},
    right being wa_combined when any row has it, else byte_hit_ratio; sorted by size."""
    with_wa = any(_str(r, "wa_combined") for r in rows)
    out: dict = {}
    for r in rows:
        key = (_str(r, "policy.name") or "lru", _str(r, "framework.name") or "exact",
               _str(r, "curve_method"), _num(r, "curve_sample_rate", "curve_sample_rate"))
        right = _str(r, "wa_combined") if with_wa else _str(r, "byte_hit_ratio")
        out.setdefault(key, []).append(
            (_num(r, "cache_capacity_bytes", "cache_capacity_bytes"),
             _num(r, "object_hit_ratio", "object_hit_ratio"),
             float(right) if right else float("nan")))
    for points in out.values():
        points.sort()
    return out


def label(key) -> str:
    policy, framework, method, rate = key
    how = method if rate >= 1 else f"{method} {rate * 100:.3g}%"
    return f"{policy} / {framework} ({how})"


def plot(rows, out_path: str | None, title: str | None) -> Figure:
    lines = series(rows)
    unit = all(_str(r, "cache.unit_size") == "true" for r in rows)
    with_wa = any(_str(r, "wa_combined") for r in rows)
    fig = Figure(figsize=(7.0, 2.8))
    left, right = fig.subplots(1, 2)
    sizes = [p[0] for pts in lines.values() for p in pts]
    frameworks = {k[1] for k in lines}
    for key, points in sorted(lines.items()):
        kw = style.line_style(policy=key[0], framework=key[1], alone=len(frameworks) == 1)
        if key[3] < 1:
            kw["markerfacecolor"] = "none"
        xs = [p[0] if unit else p[0] / style.MIB for p in points]
        left.plot(xs, [p[1] for p in points], label=label(key), **kw)
        right.plot(xs, [p[2] for p in points], **kw)
    for ax in (left, right):
        if sizes and max(sizes) > 10 * min(sizes):
            ax.set_xscale("log")
        ax.set_xlabel("cache size (objects)" if unit else "cache size (MiB)")
    left.set_ylabel("object hit ratio")
    right.set_ylabel("combined WA" if with_wa else "byte hit ratio")
    trace = os.path.basename(_str(rows[0], "trace.path"))
    fig.suptitle(style.figure_title(title, "", "curves over cache size", trace))
    fig.subplots_adjust(bottom=0.36, wspace=0.35)
    fig.legend(*left.get_legend_handles_labels(), loc="lower center",
               bbox_to_anchor=(0.5, 0.0), ncol=2, frameon=False)
    if out_path is not None:  # None: the caller saves (flashpq.plots.save)
        style.save(fig, out_path)
    return fig


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
    ap.add_argument("curves", nargs="+")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--title", default=None)
    a = ap.parse_args(argv)
    try:
        rows = [r for path in a.curves for r in load_results(path, COLUMNS, PROG)]
        plot(rows, a.output, a.title)
    except ResultsError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
