"""Flash-device figures: FTL write amplification (RIPQ paper, FAST'15, Figure 2), latency
CDFs, and simulated (simflash) against real (block) runs.

Usage::

    /usr/bin/python3 plots/flash.py wa RESULTS.csv -o FIG.png [--x size|utilization]
    /usr/bin/python3 plots/flash.py latency RESULTS.csv -o FIG.png [--tail]
    /usr/bin/python3 plots/flash.py sim-vs-real RESULTS.csv -o FIG.png

Subcommands (all take ``--title T``; figures are written at 150 dpi, PNG unless the output
name asks for another format matplotlib knows, e.g. .pdf):

``wa``           Figure 2a/2b (§3): panel (a) FTL write amplification ``wa_ftl`` against the
                 write size (log2 axis, ticks in KiB/MiB), one line per device utilization
                 ("90 % utilization"), a dashed reference line at WA = 1; panel (b) throughput
                 ``throughput_mib_s`` against the write size, drawn only when that column has
                 values (timed runs).  ``--x utilization`` puts the utilization (%) on x and
                 draws one line per write size instead.
``latency``      Latency CDF per row from ``latency_histogram``: x = latency (µs, log scale),
                 y = fraction of requests ≤ x; with ``--tail`` the complementary CDF 1 − F on a
                 log y axis (p99 … p99.99 visible).  One line per row, labelled by the
                 parameters that differ between the rows; markers at p50/p99/p999 from the
                 ``latency_p50_us``/``_p99_us``/``_p999_us`` columns when present.
``sim-vs-real``  Rows with ``device.name`` simflash against rows with ``device.name`` block,
                 matched on the other parameters that vary (``trace.io_size``,
                 ``policy.name``, ...): grouped bars, one panel per metric (throughput, p50,
                 p99, p999 latency, and object-wise hit ratio when the rows have it), each
                 configuration topped by the simulation's relative error (sim − real) / real.

Input: a FlashPQ results file, one row per experiment cell: CSV, or JSON Lines when the name
ends in .jsonl or .json (as ``flashpq run -o`` writes them).  Columns may come in any order;
extra columns are ignored.  Rows with a non-empty ``error`` are skipped with a warning.

"Parameters" are the columns with a dotted name (``device.utilization``, ``trace.io_size``);
a parameter *varies* when it takes several values among the rows plotted.  Of the varying
parameters, one that is fixed by the ones before it (in column order) is left out of labels:
``trace.requests`` zipped with ``trace.io_size`` adds nothing to "io_size=4KiB".

``wa`` columns:

=======================  ========  ===========================================================
column                   needed    meaning / unit
=======================  ========  ===========================================================
trace.io_size            yes       write size: bytes with an optional unit, as in the YAML
                                   (``4KiB``, ``16MiB``, ``1GB``, ``4096``)
device.utilization       yes       exported ÷ physical capacity, fraction in (0, 1]
wa_ftl                   yes       NAND ÷ host bytes written (×); an empty cell is skipped
throughput_mib_s         no        host write throughput, MiB/s (panel (b) when non-empty)
framework.name           no        rows of another framework than ``direct`` are ignored
                                   with a warning; empty (or absent): a device run
seed                     no        cells differing only in seed are averaged
=======================  ========  ===========================================================

Other parameters that vary within one (size, utilization) point split the lines further and
are appended to their labels (e.g. ", gc_policy=fifo").

``latency`` columns:

=======================  ========  ===========================================================
column                   needed    meaning / unit
=======================  ========  ===========================================================
latency_histogram        yes       space-separated ``value_ns:count`` pairs, ascending by
                                   value, one per non-empty bucket of the log-linear histogram
                                   of every request of the cell (value = the bucket's
                                   representative latency, integer ns; count = requests, > 0).
                                   Empty = untimed cell: skipped with a warning.
latency_p50_us           no        nearest-rank percentiles (µs), drawn as markers; a warning
latency_p99_us                     is printed when one is more than 2 % away from the
latency_p999_us                    percentile of the histogram (a unit mix-up, ns vs. µs)
=======================  ========  ===========================================================

``sim-vs-real`` columns:

=======================  ========  ===========================================================
column                   needed    meaning / unit
=======================  ========  ===========================================================
device.name              yes       ``simflash`` (simulated) or ``block`` (real); others are
                                   ignored with a warning
throughput_mib_s         yes       payload MiB/s over the measured interval
latency_p50_us           yes       request latency percentiles, µs
latency_p99_us           yes
latency_p999_us          yes
object_hit_ratio         no        cache cells: a fifth panel when any row has a value
=======================  ========  ===========================================================

Rows are matched on the varying parameters other than ``device.*`` and ``timing.mode``
(which differ between a simulated and a real device by nature).  ``device.*`` parameters that
vary within one device's rows (e.g. two utilizations) make separate bars, labelled
"simflash (utilization=0.9)".  A cell missing a metric, or a configuration without a row for
one device, leaves that bar out; "n/a" marks the gap and a warning says which.

A column absent from the file reads as an empty one (results.py).  Default titles are
"EXPERIMENT: WHAT — CONTEXT" (the ``experiment`` column, the figure's kind, and what the rows
share: pattern, trace, device); ``--title`` replaces them.  Latency lines told apart by policy
and/or framework only take their styles from style.py (colour the policy's, or the
framework's when only frameworks differ; dash the framework's); other lines, and the ``wa``
lines (one per utilization or write size, in ascending order), a colour, marker and dash each.

Exit status: 0 on success, 2 on a user error (unreadable or malformed file, missing column,
malformed histogram, nothing to plot, unwritable output), with a one-line message on stderr.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
from typing import NamedTuple


import matplotlib  # noqa: E402

matplotlib.use("Agg")  # headless rendering; must precede any pyplot import

from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402
from matplotlib.ticker import (  # noqa: E402
    FixedLocator,
    FuncFormatter,
    NullFormatter,
    NullLocator,
)

from . import results  # noqa: E402
from .results import ResultsError, format_size, parse_size  # noqa: E402
from .results import blank as _blank  # noqa: E402
from .results import num as _num  # noqa: E402
from .results import require as _require  # noqa: E402
from .results import text as _str  # noqa: E402
from .results import value as _value  # noqa: E402
from .style import COLORS as _COLORS  # noqa: E402
from .style import DASHES as _DASHES  # noqa: E402
from .style import MARKERS as _MARKERS  # noqa: E402
from .style import RC as _RC  # noqa: E402
from .style import NAMED_PARAMETERS, figure_title, line_style  # noqa: E402
from .style import save as _save  # noqa: E402

PROG = "flash"

IO_SIZE = "trace.io_size"
UTILIZATION = "device.utilization"
FRAMEWORK = "framework.name"
DEVICE = "device.name"
WA = "wa_ftl"
THROUGHPUT = "throughput_mib_s"
HISTOGRAM = "latency_histogram"
# (column, quantile, legend label, marker)
PERCENTILES = (
    ("latency_p50_us", 0.5, "p50", "o"),
    ("latency_p99_us", 0.99, "p99", "s"),
    ("latency_p999_us", 0.999, "p99.9", "^"),
)
SIM_DEVICE, REAL_DEVICE = "simflash", "block"
# sim-vs-real panels: (column, y label, required).
SVR_METRICS = (
    (THROUGHPUT, "throughput (MiB/s)", True),
    ("latency_p50_us", "p50 latency (µs)", True),
    ("latency_p99_us", "p99 latency (µs)", True),
    ("latency_p999_us", "p99.9 latency (µs)", True),
    ("object_hit_ratio", "object-wise hit ratio", False),
)
# Largest relative gap tolerated between a percentile column and the histogram's percentile:
# a bucket spans 1/64 of its power of two and reports its midpoint (sim/latency_histogram.h),
# and the C++ side clamps the extreme ranks to the exact min/max.
PERCENTILE_TOLERANCE = 0.02

_PAIR_RE = re.compile(r"([0-9]+):([0-9]+)")

_SIM_COLORS = ("#1f77b4", "#6baed6", "#08519c", "#9ecae1")
_REAL_COLORS = ("#ff7f0e", "#fdae6b", "#a63603", "#fdd0a2")


def _warn(msg: str) -> None:
    results.warn(PROG, msg)


# --------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------

def load_rows(path: str) -> list[dict]:
    """Read a results file (CSV, or JSON Lines for .jsonl/.json) into a list of row dicts.

    Values are strings (JSON null = ""), keyed by column name; every row has every column.
    Rows with a non-empty ``error`` are dropped with a warning on stderr.  Each row carries
    ``row.where`` ("line N") for messages.  Raises :class:`ResultsError` naming *path* when the
    file cannot be read, is empty or malformed, has no data rows, or every row failed.
    Which columns are needed is checked by the subcommands.  (results.py)
    """
    return results.load_results(path, (), PROG)


def _located(rows) -> list[tuple[str, dict]]:
    return results.located(rows, PROG)


def _parameter_columns(rows) -> list[str]:
    cols: dict = {}
    for r in rows:
        for k in r:
            if "." in k:
                cols.setdefault(k, None)
    return list(cols)


def varying_keys(rows, exclude=lambda key: False, given=()) -> list[str]:
    """The dotted parameter columns that tell *rows* apart, in column order.

    A column is kept when it takes several values among rows that agree on *given* and on
    the columns kept before it; so a column fixed by earlier ones (``trace.requests`` zipped
    with ``trace.io_size``) is left out.  Columns for which *exclude(key)* is true, and the
    *given* ones, are never returned.
    """
    chosen: list[str] = []
    for key in _parameter_columns(rows):
        if key in given or exclude(key):
            continue
        groups: dict = {}
        for r in rows:
            group = tuple(_str(r, c) for c in (*given, *chosen))
            groups.setdefault(group, set()).add(_str(r, key))
        if any(len(vals) > 1 for vals in groups.values()):
            chosen.append(key)
    return chosen


def _short_names(keys) -> dict:
    """Display names: the last component, the first for ``X.name``; the full key on clashes."""
    short = {k: (k.split(".")[0] if k.split(".")[-1] == "name" else k.split(".")[-1])
             for k in keys}
    clash = {s for s in short.values() if list(short.values()).count(s) > 1}
    return {k: (k if s in clash else s) for k, s in short.items()}


def _display(key: str, value: str) -> str:
    if key == "trace.path":
        return os.path.basename(value.rstrip("/")) or value
    return value


def _params_label(row: dict, keys, names) -> str:
    return ", ".join(f"{names[k]}={_display(k, _str(row, k)) or '?'}" for k in keys)


def _constant(rows, col: str) -> str:
    vals = {_str(r, col) for r in rows}
    return vals.pop() if len(vals) == 1 else ""


def _context(rows) -> str:
    """What the rows share, for titles: "uniform_random writes, simflash (tiny)"."""
    parts = []
    pattern, op = _constant(rows, "trace.pattern"), _constant(rows, "trace.op")
    if pattern and _constant(rows, "trace.generator") == "device_io":
        parts.append(f"{pattern} {op}s" if op else pattern)
    trace = _constant(rows, "trace.path")
    if trace:
        parts.append(_display("trace.path", trace))
    device = _constant(rows, DEVICE)
    if device:
        profile = _constant(rows, "device.profile")
        parts.append(f"{device} ({profile})" if profile and device == SIM_DEVICE else device)
    return ", ".join(parts)


def _title(title, what: str, context: str, width_in: float, experiment: str = "") -> str:
    """*title*, or "experiment: what — context" (style.py figure_title), broken before
    the context when wider than *width_in* inches at 10 pt."""
    if title is not None:
        return title
    what = figure_title(None, experiment, what)
    if context and (len(what) + len(context) + 3) * 0.075 > width_in:
        return f"{what}\n{context}"
    return " — ".join(p for p in (what, context) if p)


def _legend_cols(labels, avail_in: float) -> int:
    longest = max(len(s) for s in labels)
    entry_in = 0.29 + 0.11 + 0.062 * longest + 0.18
    max_cols = max(1, min(len(labels), int(avail_in // entry_in)))
    rows = math.ceil(len(labels) / max_cols)
    return math.ceil(len(labels) / rows)


def _by_row(handles, ncol):
    """matplotlib fills legends column by column; permute so it reads row by row."""
    n = len(handles)
    return [handles[k] for c in range(ncol) for k in range(c, n, ncol)]


# --------------------------------------------------------------------------
# wa: FTL write amplification and throughput vs. write size (Figure 2)
# --------------------------------------------------------------------------

class WaSeries(NamedTuple):
    """One line of the ``wa`` figure.

    *xs* ascending: write sizes in bytes (``x="size"``) or utilizations as fractions
    (``x="utilization"``); *wa_ftl* and *throughput_mib_s* aligned with *xs* (a point without
    a throughput holds None there).  *line_value* is the utilization (fraction) or the write
    size (bytes) the line stands for.
    """
    label: str
    line_value: float
    xs: list
    wa_ftl: list
    throughput_mib_s: list


def wa_series(rows, x: str = "size"):
    """Group rows into the lines of the ``wa`` figure: ``(series, meta)``.

    *series* is a list of :class:`WaSeries` ordered by utilization (``x="size"``) or write
    size (``x="utilization"``), then by first appearance; *meta* holds ``throughput`` (True
    when panel (b) is drawn) and ``context`` (for the title).  Cells at the same point of the
    same line (e.g. several seeds) are averaged, with a warning when their values differ.
    Raises :class:`ResultsError` on bad input.
    """
    if x not in ("size", "utilization"):
        raise ResultsError(f"unknown x axis {x!r} (size or utilization)")
    located = _located(rows)
    _require(located, (IO_SIZE, UTILIZATION, WA), "for the write-amplification plot")
    # Rows of another framework than direct are left out; a row without framework.name (empty,
    # or the column absent from the file) is taken for a device run.
    if any(not _blank(r, FRAMEWORK) for _, r in located):
        others = [(w, r) for w, r in located
                  if not _blank(r, FRAMEWORK) and _str(r, FRAMEWORK).lower() != "direct"]
        if others:
            names = sorted({_str(r, FRAMEWORK) for _, r in others})
            _warn(f"ignoring {len(others)} row{'s' if len(others) > 1 else ''} whose "
                  f"{FRAMEWORK} is not 'direct' ({', '.join(names)}): device runs only")
            located = [(w, r) for w, r in located
                       if _blank(r, FRAMEWORK) or _str(r, FRAMEWORK).lower() == "direct"]
        if not located:
            raise ResultsError(f"no row has {FRAMEWORK} = direct; nothing to plot")

    cells = []
    for where, r in located:
        if _blank(r, IO_SIZE):
            raise ResultsError(f"{where}: empty value in column {IO_SIZE!r}")
        try:
            size = parse_size(_str(r, IO_SIZE))
        except ResultsError as e:
            raise ResultsError(f"{where}: column {IO_SIZE!r}: {e}") from None
        if _blank(r, UTILIZATION):
            raise ResultsError(f"{where}: empty value in column {UTILIZATION!r}")
        util = _num(r, UTILIZATION, where)
        if not 0 < util <= 1:
            raise ResultsError(f"{where}: {UTILIZATION} = {util:g} is outside (0, 1]")
        wa = _value(r, WA, where)
        if wa is None:
            _warn(f"{where} ({format_size(size)}, {util * 100:g} % utilization): "
                  f"no value for {WA}; point skipped")
            continue
        cells.append((where, r, size, util, wa, _value(r, THROUGHPUT, where)))
    if not cells:
        raise ResultsError(f"no row has a value for {WA}; nothing to plot")

    x_key, line_key = (IO_SIZE, UTILIZATION) if x == "size" else (UTILIZATION, IO_SIZE)
    extra = varying_keys([r for _, r, *_ in cells],
                         exclude=lambda k: k in (IO_SIZE, UTILIZATION, "seed"),
                         given=(x_key, line_key))
    names = _short_names(extra)
    has_thr = any(c[5] is not None for c in cells)

    groups: dict = {}
    for where, r, size, util, wa, thr in cells:
        xv, lv = (size, util) if x == "size" else (util, size)
        label = f"{util * 100:g} % utilization" if x == "size" else f"{format_size(size)} writes"
        if extra:
            label += ", " + _params_label(r, extra, names)
        line = groups.setdefault(label, {"value": lv, "points": {}})
        line["points"].setdefault(xv, []).append((wa, thr, where))

    series = []
    for label, line in groups.items():
        xs, was, thrs = [], [], []
        for xv in sorted(line["points"]):
            pts = line["points"][xv]
            at = format_size(xv) if x == "size" else f"{xv * 100:g} %"
            if len(pts) > 1 and any(abs(p[0] - pts[0][0]) > 1e-12 for p in pts):
                _warn(f"{label} at {at}: averaging {len(pts)} cells with different "
                      f"{WA} ({', '.join(p[2] for p in pts)})")
            with_thr = [p[1] for p in pts if p[1] is not None]
            if has_thr and not with_thr:
                _warn(f"{label} at {at}: no value for {THROUGHPUT}; point left out of "
                      f"the throughput panel")
            xs.append(xv)
            was.append(sum(p[0] for p in pts) / len(pts))
            thrs.append(sum(with_thr) / len(with_thr) if with_thr else None)
        series.append(WaSeries(label, line["value"], xs, was, thrs))
    series.sort(key=lambda s: s.line_value)  # stable: first appearance within a value
    context = _context([r for _, r, *_ in cells])
    return series, {"throughput": has_thr, "context": context}


def _size_axis(ax, sizes) -> None:
    """log2 x axis over byte sizes, ticks at the sizes present labelled in KiB/MiB."""
    ax.set_xscale("log", base=2)
    distinct = sorted(set(sizes))
    ticks = distinct
    while len(ticks) > 7:
        ticks = ticks[::2]
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_minor_locator(FixedLocator([s for s in distinct if s not in ticks]))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _p: format_size(v)))
    ax.xaxis.set_minor_formatter(NullFormatter())
    lo, hi = distinct[0], distinct[-1]
    pad = 2 ** (0.06 * max(math.log2(hi / lo), 2.0))
    ax.set_xlim(lo / pad, hi * pad)


def _utilization_axis(ax, utils) -> None:
    distinct = sorted(set(u * 100 for u in utils))
    if len(distinct) <= 10:
        ax.xaxis.set_major_locator(FixedLocator(distinct))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:g}"))
    span = distinct[-1] - distinct[0]
    pad = 0.06 * span if span > 0 else 2.0
    ax.set_xlim(distinct[0] - pad, distinct[-1] + pad)


def plot_wa(rows, out_path: str, x: str = "size", title: str | None = None) -> Figure:
    """Figure 2a (and 2b when throughputs are present): FTL WA against write size.

    Panel (a): ``wa_ftl`` with a dashed line at WA = 1; panel (b): ``throughput_mib_s``.
    One line per :class:`WaSeries` of :func:`wa_series` (label = the series label).  Written
    to *out_path* at 150 dpi and returned.  Raises :class:`ResultsError` on bad input.
    """
    series, meta = wa_series(rows, x)
    panels = [("wa_ftl", "FTL write amplification (×)", "(a) FTL write amplification")]
    if meta["throughput"]:
        panels.append(("throughput_mib_s", "throughput (MiB/s)", "(b) throughput"))
    xlabel = "write size (log₂ scale)" if x == "size" else "device utilization (%)"
    what = "FTL write amplification" + (" and throughput" if meta["throughput"] else "")
    what += " vs. write size" if x == "size" else " vs. utilization"

    with matplotlib.rc_context(_RC):
        width = 3.7 * len(panels) + 0.8
        full_title = _title(title, what, meta["context"], width, results.experiment_name(rows))
        labels = [s.label for s in series] + ["WA = 1"]
        ncol = _legend_cols(labels, width - 0.2)
        top_h = 0.2 + 0.17 * (full_title.count("\n") + 1) + 0.19 * math.ceil(len(labels) / ncol)
        panel_h = 2.7
        height = panel_h + top_h
        fig = Figure(figsize=(width, height))
        FigureCanvasAgg(fig)
        axes = fig.subplots(1, len(panels), squeeze=False)[0]
        handles = []
        for ax, (col, ylabel, panel_title) in zip(axes, panels):
            top = 0.0
            for i, s in enumerate(series):
                pts = [(xv, y) for xv, y in zip(s.xs, getattr(s, col)) if y is not None]
                if not pts:
                    continue
                xs = [p[0] * (100 if x == "utilization" else 1) for p in pts]
                ys = [p[1] for p in pts]
                top = max(top, max(ys))
                color = _COLORS[i % len(_COLORS)]
                (line,) = ax.plot(xs, ys, label=s.label, color=color,
                                  marker=_MARKERS[i % len(_MARKERS)],
                                  linestyle=_DASHES[(i // len(_COLORS)) % len(_DASHES)],
                                  linewidth=1.4, markersize=4.5, zorder=3, clip_on=False)
                if ax is axes[0]:
                    handles.append(line)
            if col == "wa_ftl":
                ref = ax.axhline(1.0, color="black", linestyle="--", linewidth=0.9,
                                 label="WA = 1", zorder=2)
                handles.append(ref)
                top = max(top, 1.0)
            ax.set_ylim(0.0, top * 1.1 if top > 0 else 1.0)
            if x == "size":
                _size_axis(ax, [xv for s in series for xv in s.xs])
            else:
                _utilization_axis(ax, [xv for s in series for xv in s.xs])
            ax.set_xlabel(xlabel)
            ax.set_ylabel(ylabel)
            if len(panels) > 1:
                ax.set_title(panel_title, loc="left")
            ax.grid(True, which="major", linewidth=0.5, alpha=0.4)
        fig.tight_layout(rect=(0, 0, 1, 1 - top_h / height), w_pad=2.0)
        fig.suptitle(full_title, y=1 - 0.06 / height, va="top", fontsize=10)
        fig.legend(handles=_by_row(handles, ncol), loc="upper center", ncol=ncol,
                   bbox_to_anchor=(0.5, 1 - (0.13 + 0.17 * (full_title.count("\n") + 1)) / height),
                   frameon=False, handlelength=2.4, columnspacing=1.4)
        if out_path is not None:  # None: the caller saves (flashpq.plots.save)
            _save(fig, out_path)
    return fig


# --------------------------------------------------------------------------
# latency: CDFs from the log-linear histograms
# --------------------------------------------------------------------------

def parse_histogram(text: str, where: str = HISTOGRAM) -> list[tuple[int, int]]:
    """Parse a ``latency_histogram`` cell: ``"value_ns:count value_ns:count ..."``.

    Returns the ``(value_ns, count)`` pairs.  Raises :class:`ResultsError` naming *where*
    and the offending pair when the text is empty, a pair is not two non-negative integers
    joined by ':', a count is 0 (only non-empty buckets are listed) or the values do not
    strictly ascend.
    """
    tokens = str(text).split()
    if not tokens:
        raise ResultsError(f"{where}: empty {HISTOGRAM}")
    pairs: list[tuple[int, int]] = []
    for i, tok in enumerate(tokens, start=1):
        m = _PAIR_RE.fullmatch(tok)
        if not m:
            raise ResultsError(
                f"{where}: malformed {HISTOGRAM}: pair {i} is {tok!r}, expected "
                f"value_ns:count (two non-negative integers, e.g. '1500:3')")
        value, count = int(m.group(1)), int(m.group(2))
        if count == 0:
            raise ResultsError(f"{where}: malformed {HISTOGRAM}: pair {i} {tok!r} has count 0 "
                               f"(only non-empty buckets are listed)")
        if pairs and value <= pairs[-1][0]:
            raise ResultsError(
                f"{where}: malformed {HISTOGRAM}: pair {i} {tok!r} does not ascend "
                f"(previous value {pairs[-1][0]} ns)")
        pairs.append((value, count))
    return pairs


def histogram_cdf(pairs) -> tuple[list[float], list[float]]:
    """The CDF of a parsed histogram: ``(values_us, fractions)``.

    ``fractions[i]`` = requests with latency ≤ ``values_us[i]`` ÷ all requests, so the last is
    exactly 1.0.
    """
    total = sum(c for _, c in pairs)
    xs, fs, seen = [], [], 0
    for value, count in pairs:
        seen += count
        xs.append(value / 1000.0)
        fs.append(seen / total)
    return xs, fs


def histogram_tail(pairs) -> tuple[list[float], list[float]]:
    """The complementary CDF: ``(values_us, 1 − F)``, computed from integer counts (exact
    down to 1/total; the last fraction is 0)."""
    total = sum(c for _, c in pairs)
    xs, ts, seen = [], [], 0
    for value, count in pairs:
        seen += count
        xs.append(value / 1000.0)
        ts.append((total - seen) / total)
    return xs, ts


def histogram_percentile_ns(pairs, q: float) -> int:
    """Nearest-rank percentile (as sim/latency_histogram.h defines it): the smallest listed
    value v with at least ceil(q · total) requests ≤ v.  *q* in (0, 1]."""
    if not 0 < q <= 1:
        raise ValueError(f"q must be in (0, 1], got {q}")
    total = sum(c for _, c in pairs)
    rank = max(1, math.ceil(q * total))
    seen = 0
    for value, count in pairs:
        seen += count
        if seen >= rank:
            return value
    return pairs[-1][0]


class LatencySeries(NamedTuple):
    """One line of the ``latency`` figure: the parsed histogram of one row, its label, the
    percentile columns present (``{"p50": µs, ...}``, by :data:`PERCENTILES` label), and the
    row's policy label ("slru-3") and framework name ("" when empty)."""
    label: str
    pairs: list
    percentiles_us: dict
    where: str
    policy: str = ""
    framework: str = ""




def latency_series(rows):
    """One :class:`LatencySeries` per row with a histogram: ``(series, meta)``.

    Labels name the parameters that vary between those rows (:func:`varying_keys`); with no
    varying parameter, the device name.  Rows with an empty histogram are skipped with a
    warning; a malformed one is a :class:`ResultsError`.  *meta* holds ``context`` and
    ``styled_by``: the subset of {"policy", "framework"} that tells the lines apart when the
    varying parameters are policy.name, policy.segments and framework.name alone (else empty:
    the lines take a colour each in row order).
    """
    located = _located(rows)
    _require(located, (HISTOGRAM,), "for the latency CDF")
    kept = []
    for where, r in located:
        if _blank(r, HISTOGRAM):
            _warn(f"{where}: empty {HISTOGRAM} (untimed run?); row skipped")
            continue
        pairs = parse_histogram(_str(r, HISTOGRAM), where)
        pcts = {}
        for col, q, name, _m in PERCENTILES:
            v = _value(r, col, where)
            if v is None:
                continue
            pcts[name] = v
            ref = histogram_percentile_ns(pairs, q) / 1000.0
            if abs(v - ref) > PERCENTILE_TOLERANCE * ref + 1e-3:
                _warn(f"{where}: {col} = {v:g} µs but the histogram's {name} is {ref:g} µs "
                      f"(more than {PERCENTILE_TOLERANCE * 100:g} % apart; histogram values must "
                      f"be in ns)")
        kept.append((where, r, pairs, pcts))
    if not kept:
        raise ResultsError(f"no row has a {HISTOGRAM} (timed runs write it); nothing to plot")
    keys = varying_keys([r for _, r, *_ in kept])
    names = _short_names(keys)
    labels = [_params_label(r, keys, names) if keys else (_str(r, DEVICE) or "all requests")
              for _, r, *_ in kept]
    series = []
    for (where, r, pairs, pcts), label in zip(kept, labels):
        if labels.count(label) > 1:
            label = f"{label} ({where})"
        series.append(LatencySeries(label, pairs, pcts, where, results.policy_label(r),
                                    _str(r, FRAMEWORK)))
    styled_by = set()
    if keys and all(k in NAMED_PARAMETERS for k in keys) and \
            len({(s.policy, s.framework) for s in series}) == len(series):
        styled_by = {NAMED_PARAMETERS[k] for k in keys}
    return series, {"context": _context([r for _, r, *_ in kept]), "styled_by": styled_by}


def plot_latency(rows, out_path: str, tail: bool = False, title: str | None = None) -> Figure:
    """Latency CDF (or, with *tail*, 1 − CDF on a log y axis) per row, and save it.

    One step line per :class:`LatencySeries` (label = series label), drawn with
    ``drawstyle="steps-post"``; percentile markers are separate lines labelled
    ``"_p50"`` etc. (hidden from the legend; a grey key explains them).  A latency of 0 ns is
    drawn at 1 ns (log axis).  Written to *out_path* at 150 dpi and returned.
    """
    series, meta = latency_series(rows)
    what = "request latency tail (1 − CDF)" if tail else "request latency CDF"
    with matplotlib.rc_context(_RC):
        fig = Figure(figsize=(5.2, 3.4))
        FigureCanvasAgg(fig)
        ax = fig.add_subplot()
        handles = []
        all_x, min_tail = [], 1.0
        styled_by = meta["styled_by"]
        for i, s in enumerate(series):
            if styled_by:  # style.py: colour the policy's, dash the framework's
                st = line_style(policy=s.policy if "policy" in styled_by else None,
                                framework=(s.framework or "?") if "framework" in styled_by
                                else (s.framework or None),
                                alone="framework" not in styled_by)
                color, dash, width, alpha = (st["color"], st["linestyle"], st["linewidth"],
                                             st["alpha"])
            else:
                color = _COLORS[i % len(_COLORS)]
                dash = _DASHES[(i // len(_COLORS)) % len(_DASHES)]
                width, alpha = 1.3, 1.0
            if tail:
                xs, ys = histogram_tail(s.pairs)
                if len(xs) < 2:
                    _warn(f"{s.where} ({s.label}): one bucket only, no tail to draw")
                    continue
                # Level 1 − F(v_i) holds on [v_i, v_{i+1}); the last level (0) is not
                # drawable on a log axis, so the line ends at the maximum, one level up.
                ys = ys[:-1] + [ys[-2]]
                min_tail = min(min_tail, ys[-1])
            else:
                xs, ys = histogram_cdf(s.pairs)
                xs, ys = [xs[0]] + xs, [0.0] + ys
            xs = [max(v, 1e-3) for v in xs]
            all_x += xs
            (line,) = ax.plot(xs, ys, drawstyle="steps-post", color=color, linestyle=dash,
                              linewidth=width, alpha=alpha, label=s.label, zorder=3)
            handles.append(line)
            for _col, q, name, marker in PERCENTILES:
                if name in s.percentiles_us:
                    ax.plot([max(s.percentiles_us[name], 1e-3)], [1 - q if tail else q],
                            linestyle="none", marker=marker, markersize=5, color=color,
                            markerfacecolor="white", markeredgewidth=1.2, zorder=4,
                            label=f"_{name}")
        if not handles:
            raise ResultsError("no row has a latency tail to draw (one bucket each)")
        shown = [p for p in PERCENTILES if any(p[2] in s.percentiles_us for s in series)]
        for _col, _q, name, marker in shown:
            handles.append(Line2D([], [], linestyle="none", marker=marker, markersize=5,
                                  color="0.35", markerfacecolor="white", label=f"{name} (column)"))

        ax.set_xscale("log")
        lo, hi = min(all_x), max(all_x)
        ax.set_xlim(lo / 1.4, hi * 1.4)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:g}"))
        ax.set_xlabel("latency (µs, log scale)")
        if tail:
            ax.set_yscale("log")
            bottom = 10 ** math.floor(math.log10(min_tail) + 1e-9)  # the decade of the max
            ax.set_ylim(bottom / 2, 1.0)
            ax.set_ylabel("fraction of requests > latency")
            ax.yaxis.set_minor_formatter(NullFormatter())
            # Right-hand key: 1 − F = 10^-k is the p(100 − 10^(2−k)) latency.
            decades = [10.0 ** -k for k in range(1, 7) if 10.0 ** -k >= bottom * 0.999]
            sec = ax.secondary_yaxis("right")
            sec.yaxis.set_major_locator(FixedLocator(decades))
            sec.yaxis.set_minor_locator(NullLocator())
            sec.yaxis.set_major_formatter(FuncFormatter(
                lambda v, _p: f"p{100 - 100 * v:.{max(0, round(-math.log10(v)) - 2)}f}"))
        else:
            ax.set_ylim(0.0, 1.02)
            ax.set_ylabel("fraction of requests ≤ latency")
        ax.grid(True, which="major", linewidth=0.5, alpha=0.4)
        ax.set_title(_title(title, what, meta["context"], 3.6, results.experiment_name(rows)),
                     fontsize=10)
        ax.legend(handles=handles, loc="upper left", frameon=False,
                  bbox_to_anchor=(1.15 if tail else 1.02, 1.0), borderaxespad=0.0)
        fig.tight_layout()
        if out_path is not None:  # None: the caller saves (flashpq.plots.save)
            _save(fig, out_path)
    return fig


# --------------------------------------------------------------------------
# sim-vs-real: simflash rows against block rows
# --------------------------------------------------------------------------

class SimVsReal(NamedTuple):
    """The bars of the ``sim-vs-real`` figure.

    *configs*: group labels (x), first-appearance order; *variants*: bar labels, simflash
    ones first; *metrics*: ``(column, y label)`` per panel; *values*: ``{(column, config,
    variant): value}`` for the bars drawn; *missing*: ``(column, config, variant, where)``
    for the bars left out, *where* locating the row without a value, or None when the
    configuration has no row for that variant.
    """
    configs: list
    variants: list
    metrics: list
    values: dict
    missing: list
    context: str


def sim_vs_real_cells(rows) -> SimVsReal:
    """Match simflash and block rows on the other varying parameters (see module doc).

    Cells mapping to the same (configuration, variant) keep the first row, with a warning
    when their values differ.  Raises :class:`ResultsError` on bad input or when one of the
    two devices has no row.
    """
    located = _located(rows)
    _require(located, [DEVICE] + [c for c, _, req in SVR_METRICS if req],
             "for the simulated-vs-real comparison")
    kept, ignored = [], {}
    for where, r in located:
        dev = _str(r, DEVICE).lower()
        if dev in (SIM_DEVICE, REAL_DEVICE):
            kept.append((where, r, dev))
        else:
            ignored[dev or "(empty)"] = ignored.get(dev or "(empty)", 0) + 1
    if ignored:
        _warn(f"ignoring rows whose {DEVICE} is neither {SIM_DEVICE} nor {REAL_DEVICE}: "
              + ", ".join(f"{n} × {d}" for d, n in ignored.items()))
    for dev in (SIM_DEVICE, REAL_DEVICE):
        if not any(d == dev for *_, d in kept):
            raise ResultsError(f"no row with {DEVICE} = {dev}; nothing to compare")

    all_rows = [r for _, r, _ in kept]
    config_keys = varying_keys(
        all_rows, exclude=lambda k: k.startswith("device.") or k == "timing.mode")
    names = _short_names(config_keys)
    variant_keys = {
        dev: varying_keys([r for _, r, d in kept if d == dev],
                          exclude=lambda k: not k.startswith("device.") or k == DEVICE,
                          given=tuple(config_keys))
        for dev in (SIM_DEVICE, REAL_DEVICE)}
    metrics = [(c, label) for c, label, req in SVR_METRICS
               if req or any(_value(r, c, w) is not None for w, r, _ in kept)]

    configs: list = []
    variants = {SIM_DEVICE: [], REAL_DEVICE: []}
    cells: dict = {}
    for where, r, dev in kept:
        config = _params_label(r, config_keys, names) if config_keys else "single configuration"
        vkeys = variant_keys[dev]
        variant = dev
        if vkeys:
            variant += f" ({_params_label(r, vkeys, _short_names(vkeys))})"
        if config not in configs:
            configs.append(config)
        if variant not in variants[dev]:
            variants[dev].append(variant)
        vals = {}
        for col, _label in metrics:
            lo, hi = (0.0, 1.0) if col == "object_hit_ratio" else (0.0, None)
            vals[col] = _value(r, col, where, lo=lo, hi=hi)
        key = (config, variant)
        if key in cells:
            first_vals, first_where, _ = cells[key]
            if any((a is None) != (b is None) or (a is not None and abs(a - b) > 1e-12)
                   for a, b in ((first_vals[c], vals[c]) for c, _ in metrics)):
                _warn(f"{where} ({config} / {variant}): duplicate cell differs from "
                      f"{first_where}; keeping the first")
            continue
        # A direct cell has no cache, hence no hit ratio: not a gap worth a note.
        cells[key] = (vals, where, _str(r, FRAMEWORK).lower() == "direct")

    variant_list = variants[SIM_DEVICE] + variants[REAL_DEVICE]
    values, missing = {}, []
    for config in configs:
        for variant in variant_list:
            cell = cells.get((config, variant))
            for col, _label in metrics:
                if cell is None:
                    missing.append((col, config, variant, None))
                elif cell[0][col] is not None:
                    values[(col, config, variant)] = cell[0][col]
                elif not (col == "object_hit_ratio" and cell[2]):
                    missing.append((col, config, variant, cell[1]))
    return SimVsReal(configs, variant_list, metrics, values, missing, _svr_context(kept))


def sim_vs_real_errors(d: SimVsReal) -> dict:
    """Relative error of the simulation per (metric column, configuration):
    ``(simflash − block) / block``, from the first simflash and the first block variant of
    each configuration that has both values (and a block value ≠ 0)."""
    sims = [v for v in d.variants if v.startswith(SIM_DEVICE)]
    reals = [v for v in d.variants if v.startswith(REAL_DEVICE)]
    out = {}
    if not sims or not reals:
        return out
    for col, _label in d.metrics:
        for config in d.configs:
            sim = d.values.get((col, config, sims[0]))
            real = d.values.get((col, config, reals[0]))
            if sim is not None and real:
                out[(col, config)] = (sim - real) / real
    return out


def _svr_context(kept) -> str:
    """"uniform_random writes, simflash tiny vs. block /dev/nvme0n1": what the rows share."""
    parts = [_context([r for _, r, _ in kept])]
    sim = [r for _, r, d in kept if d == SIM_DEVICE]
    real = [r for _, r, d in kept if d == REAL_DEVICE]
    profile, path = _constant(sim, "device.profile"), _constant(real, "device.path")
    parts.append(f"{SIM_DEVICE} {profile}".strip() + " vs. " + f"{REAL_DEVICE} {path}".strip())
    return ", ".join(p for p in parts if p)


def plot_sim_vs_real(rows, out_path: str, title: str | None = None) -> Figure:
    """Grouped bars, one panel per metric, simflash beside block for each configuration.

    Each panel holds one :class:`~matplotlib.container.BarContainer` per variant (label =
    variant) and an "n/a" text per bar left out.  Written to *out_path* at 150 dpi and
    returned.  Raises :class:`ResultsError` on bad input.
    """
    d = sim_vs_real_cells(rows)
    errors = sim_vs_real_errors(d)
    gaps: dict = {}
    gap_bars = {(col, config, variant) for col, config, variant, _ in d.missing}
    for col, config, variant, where in d.missing:
        gaps.setdefault((config, variant, where), []).append(col)
    for (config, variant, where), cols in gaps.items():
        if where is None:
            _warn(f"{config}: no {variant} row; its bars are left out (n/a)")
        else:
            _warn(f"{where} ({config} / {variant}): no value for {', '.join(cols)}; "
                  f"bar{'s' if len(cols) > 1 else ''} left out (n/a)")
    n_var, n_cfg = len(d.variants), len(d.configs)
    sims = [v for v in d.variants if v.startswith(SIM_DEVICE)]
    colors, hatches = {}, {}
    for j, v in enumerate(d.variants):
        if v in sims:
            colors[v], hatches[v] = _SIM_COLORS[j % len(_SIM_COLORS)], ""
        else:
            k = j - len(sims)
            colors[v], hatches[v] = _REAL_COLORS[k % len(_REAL_COLORS)], "///"

    with matplotlib.rc_context(_RC):
        ticks = [c.replace(", ", "\n") for c in d.configs]  # one parameter per line
        longest = max(len(line) for t in ticks for line in t.split("\n"))
        n_lines = max(t.count("\n") + 1 for t in ticks)
        # Each group is as wide as its bars or its label (~0.065 in per character at 8 pt),
        # up to an 11 in figure; labels that still do not fit are slanted.
        group_in = max(0.5 + 0.3 * n_var, 0.065 * longest + 0.15)
        width = max(4.5, min(11.0, 1.3 + n_cfg * group_in))
        rotate = n_cfg > 1 and 1.3 + n_cfg * group_in > 11.0
        panel_h = 1.55
        ncol = _legend_cols(d.variants, width - 0.2)
        what = "simulated vs. real device"
        full_title = _title(title, what, d.context, width, results.experiment_name(rows))
        title_h = 0.13 + 0.17 * (full_title.count("\n") + 1)
        top_h = title_h + 0.06 + 0.19 * math.ceil(n_var / ncol)
        bottom_h = 0.3 + 0.15 * n_lines + (0.055 * longest * 0.5 if rotate else 0.0)
        height = panel_h * len(d.metrics) + top_h + bottom_h
        fig = Figure(figsize=(width, height))
        FigureCanvasAgg(fig)
        axes = fig.subplots(len(d.metrics), 1, sharex=True, squeeze=False)[:, 0]
        bar_w = 0.8 / n_var
        for ax, (col, ylabel) in zip(axes, d.metrics):
            heights = []
            for j, v in enumerate(d.variants):
                offset = (j - (n_var - 1) / 2) * bar_w
                xs = [i + offset for i, c in enumerate(d.configs) if (col, c, v) in d.values]
                ys = [d.values[(col, c, v)] for c in d.configs if (col, c, v) in d.values]
                heights += ys
                ax.bar(xs, ys, width=bar_w * 0.92, label=v, color=colors[v],
                       hatch=hatches[v], edgecolor="black", linewidth=0.4, zorder=3)
                for i, c in enumerate(d.configs):
                    if (col, c, v) in gap_bars:
                        ax.text(i + offset, 0.03, "n/a", transform=ax.get_xaxis_transform(),
                                ha="center", va="bottom", rotation=90, fontsize=7,
                                color="0.3")
            positive = [h for h in heights if h > 0]
            if col != "object_hit_ratio" and positive and max(positive) / min(positive) > 100:
                ax.set_yscale("log")
                ax.set_ylim(10 ** math.floor(math.log10(min(positive))),
                            10 ** (math.log10(max(positive)) + 0.15))
            else:
                top = max(heights) if heights else 1.0
                ax.set_ylim(0.0, (top if top > 0 else 1.0) * 1.3)  # room for the errors
            ax.set_ylabel(ylabel)
            ax.grid(True, axis="y", linewidth=0.5, alpha=0.4, zorder=0)
            # The simulation's relative error, above each configuration's bars.
            for i, c in enumerate(d.configs):
                if (col, c) in errors:
                    ax.text(i, 0.98, f"{100 * errors[(col, c)]:+.0f}%",
                            transform=ax.get_xaxis_transform(), ha="center", va="top",
                            fontsize=7, color="0.15")
        axes[-1].set_xticks(range(n_cfg))
        axes[-1].set_xticklabels(ticks, rotation=25 if rotate else 0,
                                 ha="right" if rotate else "center")
        axes[-1].set_xlim(-0.6, n_cfg - 0.4)
        axes[-1].set_xlabel("configuration")
        fig.tight_layout(rect=(0, 0, 1, 1 - top_h / height), h_pad=0.6)
        fig.align_ylabels(axes)
        fig.suptitle(full_title, y=1 - 0.06 / height, va="top", fontsize=10)
        handles = [Patch(facecolor=colors[v], hatch=hatches[v], edgecolor="black",
                         linewidth=0.4, label=v) for v in d.variants]
        fig.legend(handles=_by_row(handles, ncol), loc="upper center", ncol=ncol,
                   bbox_to_anchor=(0.5, 1 - title_h / height), frameon=False,
                   columnspacing=1.6)
        if out_path is not None:  # None: the caller saves (flashpq.plots.save)
            _save(fig, out_path)
    return fig


# --------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog=PROG,
        description="Flash-device figures from a FlashPQ results file (CSV or JSON Lines): "
                    "FTL write amplification vs. write size (RIPQ paper, FAST'15, Fig. 2), "
                    "latency CDFs, simulated vs. real.")
    sub = ap.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def common(p):
        p.add_argument("results", help="results file, .csv or .jsonl (one row per cell)")
        p.add_argument("-o", "--output", required=True,
                       help="output figure path (PNG at 150 dpi, or .pdf/.svg ...)")
        p.add_argument("--title", default=None, help="figure title")

    p = sub.add_parser("wa", help="FTL write amplification (and throughput) vs. write size "
                                  "(Fig. 2); needs trace.io_size, device.utilization, wa_ftl")
    common(p)
    p.add_argument("--x", choices=("size", "utilization"), default="size",
                   help="x axis: write size (default; one line per utilization) or "
                        "utilization (one line per write size)")
    p = sub.add_parser("latency", help="latency CDF per row from latency_histogram")
    common(p)
    p.add_argument("--tail", action="store_true",
                   help="draw 1 − CDF on a log axis (p99 ... p99.99)")
    common(sub.add_parser("sim-vs-real",
                          help="simflash vs. block rows: throughput, latency percentiles"))
    args = ap.parse_args(argv)

    def draw(rows):
        if args.command == "wa":
            plot_wa(rows, args.output, args.x, args.title)
        elif args.command == "latency":
            plot_latency(rows, args.output, args.tail, args.title)
        else:
            plot_sim_vs_real(rows, args.output, args.title)

    return results.run_figure_command(PROG, args.results, args.output, load_rows, draw)

if __name__ == "__main__":
    sys.exit(main())
