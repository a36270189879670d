"""Plot object-wise and byte-wise hit ratio against cache size.

Usage::

    /usr/bin/python3 plots/hit_ratio_vs_size.py RESULTS.csv -o FIGURE.png [--title T]

Input: a FlashPQ results file, CSV or JSON Lines (.jsonl), with one row per experiment cell
(read by results.py).  Columns may
appear in any order and extra columns are ignored.  Columns used:

=====================  ========  ==============================================
column                 needed    meaning / unit
=====================  ========  ==============================================
policy.name            yes       eviction policy (fifo, lru, slru, gdsf, ...)
cache_capacity_bytes   yes       cache capacity in bytes (integer > 0)
object_hit_ratio       yes       hits / GET requests, fraction in [0, 1]
byte_hit_ratio         yes       hit bytes / requested bytes, fraction in [0, 1]
policy.segments        for slru  number of segments L (integer); appended to
                       and gdsf  the label as "slru-L" / "gdsf-L"
framework.name         no        if it takes several values, lines are
                                 labelled "policy / framework"
device.name            no        likewise appended to the label if it varies
trace.path             no        base name ends the default title;
                                 appended to the label if it varies
experiment             no        default title "EXPERIMENT: hit ratio vs. cache
                                 size — TRACE"
error                  no        non-empty for failed cells; such rows are
                                 skipped with a warning on stderr
=====================  ========  ==============================================

Output: one figure with two side-by-side panels (object-wise and byte-wise
hit ratio), x = cache size in MiB (bytes / 2**20), log-scaled when the sizes
span more than a factor of 10, one line with markers per policy, points
sorted by size.  Styles follow style.py: colour + marker are the
policy's (the framework's when a single policy is drawn beside several
frameworks), dash is the framework's (the exact queue drawn thick beneath
the others when other frameworks are drawn too), and the marker's fill tells
device/trace variants apart (full, hollow, half...).  Missing optional
columns read as empty ones.  Title and a shared legend sit
above the panels so they never cover data.  Written at 150 dpi (PNG unless the output name asks for
another format matplotlib knows, e.g. .pdf).

Cells that share a label and a cache size (e.g. repeated runs) are averaged;
a warning is printed if their values differ.

Exit status: 0 on success, 2 on a user error (missing/empty/malformed CSV,
missing column, unwritable output), with a one-line message on stderr.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from typing import Iterable, NamedTuple


import matplotlib  # noqa: E402

matplotlib.use("Agg")  # headless rendering; must precede any pyplot import

from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import (  # noqa: E402
    FixedLocator,
    FuncFormatter,
    LogLocator,
    NullFormatter,
    NullLocator,
)

from . import results  # noqa: E402
from .results import ResultsError  # noqa: E402
from .results import is_failed as _is_failed  # noqa: E402
from .results import num as _num  # noqa: E402
from .results import text as _str  # noqa: E402
from .style import MIB, RC, figure_title, line_style, save  # noqa: E402

PROG = "hit_ratio_vs_size"

# Columns that must be present in every results file.
REQUIRED_COLUMNS = (
    "policy.name",
    "cache_capacity_bytes",
    "object_hit_ratio",
    "byte_hit_ratio",
)
# Policies whose label carries the segment count L from policy.segments.
SEGMENTED_POLICIES = ("slru", "gdsf")
# Optional columns appended to the line label when they take several values.
VARYING_LABEL_COLUMNS = ("framework.name", "device.name", "trace.path")

PANELS = (
    ("object_hit_ratio", "object-wise hit ratio"),
    ("byte_hit_ratio", "byte-wise hit ratio"),
)
XLABEL = "cache size (MiB)"
# Marker fills telling device/trace variants apart (in sorted order of the variant's text).
FILLS = ("full", "none", "top", "bottom", "left", "right")


class Series(NamedTuple):
    """One line: *label* = *policy* + *variant* (" / framework / device / trace" of the columns
    that vary); *framework* the row's ``framework.name`` (None when empty or absent); *other*
    the device/trace part of the variant; *xs* cache sizes in MiB, ascending; *cols*
    {ratio column: values}."""
    label: str
    policy: str
    variant: str
    framework: str | None
    other: str
    xs: list
    cols: dict


def _warn(msg: str) -> None:
    results.warn(PROG, msg)


# --------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------

def load_results(path: str) -> list[dict]:
    """Read a results file (CSV, or JSON Lines for .jsonl/.json) and return its successful rows.

    Values are strings keyed by column name (results.py).  Rows with a non-empty
    ``error`` column are dropped with a warning on stderr.  Raises :class:`ResultsError` (a
    ValueError) naming *path* when the file cannot be read, is empty, has no data rows, lacks
    one of :data:`REQUIRED_COLUMNS` (or ``policy.segments`` when slru or gdsf rows are
    present), holds a malformed value, or when every row failed.
    """
    rows = results.load_results(path, REQUIRED_COLUMNS, PROG)
    # Validate values early so messages name the file.
    try:
        _prepare(rows, quiet=True)
    except ResultsError as e:
        raise ResultsError(f"{path}: {e}") from None
    return rows


# --------------------------------------------------------------------------
# Preparing series
# --------------------------------------------------------------------------

def _prepare(rows: Iterable[dict], quiet: bool = False):
    """Validate rows and group them into series.

    Returns ``(series, meta)`` where series is a list of :class:`Series` in
    first-appearance order, x sorted ascending, and meta holds the distinct
    trace paths and experiment names.
    """
    # Locate rows in messages by CSV line (from load_results) or list index.
    located = [(getattr(r, "where", None) or f"row {i}", r)
               for i, r in enumerate(rows, start=1) if not _is_failed(r)]
    if not located:
        raise ResultsError("no successful rows to plot")
    rows = [r for _, r in located]
    present = set().union(*(r.keys() for r in rows))
    missing = [c for c in REQUIRED_COLUMNS if c not in present]
    if missing:
        raise ResultsError(f"missing required column {', '.join(repr(c) for c in missing)}")

    varying = [c for c in VARYING_LABEL_COLUMNS
               if len({_str(r, c) for r in rows}) > 1]

    groups: dict[str, dict[int, list[tuple[float, float]]]] = {}
    bases: dict[str, tuple[str, str, str | None, str]] = {}
    for where, r in located:
        name = _str(r, "policy.name")
        if not name:
            raise ResultsError(f"{where}: empty value in column 'policy.name'")
        base = name
        if name.lower() in SEGMENTED_POLICIES:
            if "policy.segments" not in r:
                raise ResultsError(
                    f"missing column 'policy.segments' (needed to label {name} lines)")
            base = f"{name}-{_num(r, 'policy.segments', where, int)}"
        variant, other = "", ""
        for c in varying:
            v = _str(r, c)
            if c == "trace.path":
                v = os.path.basename(v.rstrip("/")) or v
            variant += f" / {v or '?'}"
            if c != "framework.name":
                other += f" / {v or '?'}"
        label = base + variant
        bases.setdefault(label, (base, variant, _str(r, "framework.name") or None, other))

        size = _num(r, "cache_capacity_bytes", where, int)
        if size <= 0:
            raise ResultsError(f"{where}: cache_capacity_bytes must be > 0, got {size}")
        # The simulator leaves a ratio empty when it has no denominator (e.g.
        # no GET requests): such a cell has no point to draw, but is no error.
        novalue = [col for col, _ in PANELS
                   if _str(r, col) == "" or _str(r, col).lower() == "nan"]
        if novalue:
            if not quiet:
                _warn(f"{where} ({label}, {size / MIB:g} MiB): no value for "
                      f"{', '.join(novalue)}; point skipped")
            continue
        ys = []
        for col, _ in PANELS:
            y = _num(r, col, where)
            if not -1e-9 <= y <= 1 + 1e-9:
                raise ResultsError(f"{where}: {col} = {y} is outside [0, 1]")
            ys.append(y)
        groups.setdefault(label, {}).setdefault(size, []).append(tuple(ys))

    if not groups:
        raise ResultsError("no row has hit-ratio values to plot")
    series = []
    for label, by_size in groups.items():
        sizes = sorted(by_size)
        cols = {col: [] for col, _ in PANELS}
        for s in sizes:
            pts = by_size[s]
            if not quiet and len(pts) > 1 and any(abs(p[k] - pts[0][k]) > 1e-12
                                    for p in pts for k in range(len(PANELS))):
                _warn(f"{label} at {s / MIB:g} MiB: averaging {len(pts)} cells "
                      f"with different hit ratios")
            for k, (col, _) in enumerate(PANELS):
                cols[col].append(sum(p[k] for p in pts) / len(pts))
        base, variant, framework, other = bases[label]
        series.append(Series(label, base, variant, framework, other,
                             [s / MIB for s in sizes], cols))

    traces = []
    for r in rows:
        t = _str(r, "trace.path")
        if t and t not in traces:
            traces.append(t)
    return series, {"traces": traces, "experiment": results.experiment_name(rows)}


# --------------------------------------------------------------------------
# Plotting
# --------------------------------------------------------------------------

def _fmt_mib(v: float, _pos=None) -> str:
    if v <= 0:
        return "0"
    if v >= 100:
        return f"{v:.0f}"
    return f"{v:.3g}"


def _trace_names(traces: list[str]) -> str:
    names = [os.path.basename(t.rstrip("/")) or t for t in traces]
    if len(names) <= 3:
        return ", ".join(names)
    return f"{len(names)} traces"


def _set_xaxis(ax, all_x: list[float]) -> None:
    lo, hi = min(all_x), max(all_x)
    distinct = sorted(set(all_x))
    # Tick exactly the simulated sizes when their labels cannot collide:
    # neighbouring ticks must be at least one label width (~0.06 in per
    # character at 8 pt, plus padding) apart on a ~2.8 in wide panel.
    longest = max(len(_fmt_mib(x)) for x in distinct)
    min_gap = (0.06 * longest + 0.12) / 2.8
    if hi / lo > 10:
        ax.set_xscale("log")
        span = math.log10(hi / lo)
        logs = [math.log10(x) for x in distinct]
        gaps_ok = all(b - a >= min_gap * span for a, b in zip(logs, logs[1:]))
        if len(distinct) <= 10 and gaps_ok:
            ax.xaxis.set_major_locator(FixedLocator(distinct))
            ax.xaxis.set_minor_locator(NullLocator())
        else:
            subs = (1.0, 2.0, 5.0) if span <= 2.5 else (1.0,)
            ax.xaxis.set_major_locator(LogLocator(base=10, subs=subs))
            ax.xaxis.set_minor_locator(LogLocator(base=10, subs="auto"))
        ax.xaxis.set_major_formatter(FuncFormatter(_fmt_mib))
        ax.xaxis.set_minor_formatter(NullFormatter())
        pad = 10 ** (0.04 * max(span, 0.3))
        ax.set_xlim(lo / pad, hi * pad)
    else:
        span = hi - lo
        gaps_ok = all(b - a >= min_gap * span for a, b in zip(distinct, distinct[1:]))
        if len(distinct) <= 10 and gaps_ok:
            ax.xaxis.set_major_locator(FixedLocator(distinct))
        ax.xaxis.set_major_formatter(FuncFormatter(_fmt_mib))
        pad = 0.05 * span if span > 0 else 0.1 * hi
        ax.set_xlim(lo - pad, hi + pad)


def _ylimits(values: list[float]) -> tuple[float, float]:
    """Tight y range with a margin, at least 0.1 tall, clipped to [0, 1]."""
    lo, hi = min(values), max(values)
    if hi - lo < 0.1:
        mid = (lo + hi) / 2
        lo, hi = mid - 0.05, mid + 0.05
    margin = 0.08 * (hi - lo)
    ylo = max(0.0, lo - margin)
    yhi = min(1.0, hi + margin)
    if ylo < 0.1:  # near zero: anchor the axis at 0 rather than a tiny offset
        ylo = 0.0
    if yhi > 0.9:
        yhi = 1.0
    return ylo, yhi


def _legend_layout(series, avail_in: float) -> tuple[int, list[int]]:
    """Choose legend columns and a handle order that reads row by row.

    With variants (several frameworks/devices/traces) aim for one row per
    variant; otherwise as many columns as fit in *avail_in* inches.
    """
    n = len(series)
    longest = max(len(s.label) for s in series)
    entry_in = 0.29 + 0.11 + 0.062 * longest + 0.18  # handle+pad+text+spacing
    max_cols = max(1, min(n, int(avail_in // entry_in)))
    n_policies = len({s.policy for s in series})
    n_variants = len({s.variant for s in series})
    reading = list(range(n))
    if n_variants > 1 and n_policies <= max_cols:
        ncol = n_policies
        # One row per variant, one column per policy (both in order of appearance).
        policies = list(dict.fromkeys(s.policy for s in series))
        variants = list(dict.fromkeys(s.variant for s in series))
        reading.sort(key=lambda i: (variants.index(series[i].variant),
                                    policies.index(series[i].policy)))
    else:
        rows = math.ceil(n / max_cols)
        ncol = math.ceil(n / rows)
    # matplotlib fills legends column by column; permute so it reads by row.
    order = [reading[k] for c in range(ncol) for k in range(c, n, ncol)]
    return ncol, order


def plot_hit_ratio_vs_size(rows: list[dict], out_path: str,
                           title: str | None = None) -> Figure:
    """Draw object-/byte-wise hit ratio vs. cache size and save it.

    *rows* are result rows as returned by :func:`load_results` (values may be
    strings or numbers).  Needed keys: ``policy.name``,
    ``cache_capacity_bytes`` (bytes, plotted as MiB = bytes / 2**20),
    ``object_hit_ratio`` and ``byte_hit_ratio`` (fractions in [0, 1]), plus
    ``policy.segments`` for slru/gdsf rows.  Optional: ``framework.name``,
    ``device.name``, ``trace.path`` (label suffix when they vary; trace base
    name ends the default title), ``experiment`` (the default *title* is "EXPERIMENT: hit
    ratio vs. cache size — TRACE"), ``error`` (non-empty rows are ignored).

    The figure is written to *out_path* at 150 dpi and returned (not closed)
    so callers can inspect it.  Raises :class:`ResultsError` on bad input.
    """
    series, meta = _prepare(rows)
    title = figure_title(title, meta["experiment"], "hit ratio vs. cache size",
                         _trace_names(meta["traces"]))

    width = 7.0                       # full text width of a two-column paper
    panel_h = 2.6
    ncol, order = _legend_layout(series, width - 0.2)
    legend_rows = math.ceil(len(series) / ncol)
    top_h = 0.34 + 0.19 * legend_rows  # title + legend band, inches
    height = panel_h + top_h

    # The rule of style.py: colour + marker the policy's (the framework's when one
    # policy is drawn beside several frameworks), dash the framework's, and the marker's fill
    # the device/trace variant, so a figure printed in grey still works.
    by_policy = len({s.policy for s in series}) > 1 or len({s.framework for s in series}) == 1
    alone = len({s.framework for s in series}) == 1
    others = sorted({s.other for s in series})

    with matplotlib.rc_context(RC):
        fig = Figure(figsize=(width, height))
        FigureCanvasAgg(fig)
        axes = fig.subplots(1, 2)
        all_x = [x for s in series for x in s.xs]
        handles = []
        for ax, (col, ylabel) in zip(axes, PANELS):
            for s in series:
                if by_policy:
                    style = line_style(policy=s.policy, framework=s.framework, alone=alone)
                else:  # an empty framework.name is labelled "?"; styled so too
                    style = line_style(framework=s.framework or "?", alone=alone)
                (line,) = ax.plot(
                    s.xs, s.cols[col], label=s.label,
                    fillstyle=FILLS[others.index(s.other) % len(FILLS)],
                    clip_on=False, **style)
                if ax is axes[0]:
                    handles.append(line)
            _set_xaxis(ax, all_x)
            ax.set_ylim(*_ylimits([y for s in series for y in s.cols[col]]))
            ax.set_xlabel(XLABEL)
            ax.set_ylabel(ylabel)
            ax.grid(True, which="major", linewidth=0.5, alpha=0.4)

        fig.tight_layout(rect=(0, 0, 1, 1 - top_h / height), w_pad=2.0)
        # Title and a shared legend in a band above the panels: never over data.
        fig.suptitle(title, y=1 - 0.06 / height, va="top", fontsize=10)
        fig.legend(handles=[handles[k] for k in order], loc="upper center", ncol=ncol,
                   bbox_to_anchor=(0.5, 1 - 0.3 / height), frameon=False,
                   handlelength=2.6, columnspacing=1.6)

        if out_path is not None:  # None: the caller saves (flashpq.plots.save)
            save(fig, out_path)
    return fig


# --------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog=PROG,
        description="Plot object-wise and byte-wise hit ratio vs. cache size "
                    "(MiB), one line per policy, from a FlashPQ results file (CSV or JSON Lines). "
                    "Needed columns: " + ", ".join(REQUIRED_COLUMNS) +
                    " (+ policy.segments for slru/gdsf).")
    ap.add_argument("results", help="results file, .csv or .jsonl (one row per cell)")
    ap.add_argument("-o", "--output", required=True,
                    help="output figure path (PNG, 150 dpi)")
    ap.add_argument("--title", default=None,
                    help="figure title (default: the experiment's name, the figure's kind "
                         "and the trace's base name)")
    args = ap.parse_args(argv)
    return results.run_figure_command(
        PROG, args.results, args.output, load_results,
        lambda rows: plot_hit_ratio_vs_size(rows, args.output, args.title))

if __name__ == "__main__":
    sys.exit(main())
