"""Compare the flash frameworks (exact, RIPQ, SIPQ) as in the RIPQ paper (FAST'15).

Usage::

    /usr/bin/python3 plots/frameworks.py fidelity RESULTS.csv -o FIG.png [--metric object|byte]
    /usr/bin/python3 plots/frameworks.py wa RESULTS.csv -o FIG.png
    /usr/bin/python3 plots/frameworks.py k-sensitivity RESULTS.csv -o FIG.png

Subcommands (all take ``--title T``; figures are written at 150 dpi):

``fidelity``       Figure 8a/8d: grouped bars, x = algorithm, one bar per framework
                   variant, y = object-wise (default) or byte-wise hit ratio.
``wa``             Figure 8b/8e: the same grouping, y = implementation write
                   amplification (``wa_implementation``, host / miss bytes), with a
                   dashed reference line at 1.
``k-sensitivity``  Figure 9: x = RIPQ insertion points K (log2 axis), y = object-wise
                   hit ratio, one line per algorithm (ripq rows only: ripq's dash), plus
                   a thick horizontal line per algorithm at its exact-framework hit
                   ratio (the exact queue's reference style), in the algorithm's colour.

Styles follow style.py: bars take their framework's colour and hatch (variants
of one framework, e.g. sipq-0.5 and sipq-0.9, its colour in tones), lines their
algorithm's colour and marker and their framework's dash.  The default title is
"EXPERIMENT: WHAT — TRACE — CACHE SIZE" (``experiment`` column); ``--title`` replaces it.

Input: a FlashPQ results file, CSV or JSON Lines (one row per cell), loaded by
:func:`plots.results.load_results` (``policy.name``, ``cache_capacity_bytes``,
``object_hit_ratio`` and ``byte_hit_ratio`` are always required, and
``policy.segments`` for slru/gdsf rows; rows with a non-empty ``error`` are skipped
with a warning).  Further columns:

===========================  =====================================================
column                       needed
===========================  =====================================================
framework.name               always (exact | ripq | sipq)
framework.occupancy          when sipq rows are present (label "sipq-θ")
framework.insertion_points   k-sensitivity; otherwise only used to label ripq bars
                             "ripq-K<k>" when several K are present
wa_implementation            wa (cells with it empty are skipped with a warning)
experiment                   no: names the default title
===========================  =====================================================

A column absent from the file reads as an empty one.

Algorithm labels: "fifo"; "slru-L" for slru (lru is SLRU-1, whatever its
policy.segments); "gdsf-L"; other policies by name.  Cells that map to the same
(algorithm, variant) -- e.g. fifo or lru run once per policy.segments value of a
cartesian matrix, or exact cells repeated for every K -- are de-duplicated by
keeping the first (a warning is printed if their values differ).  When several
cache sizes are present, only the largest is plotted and the title says so.

Exit status: 0 on success, 2 on a user error (unreadable CSV, missing column,
nothing to plot, unwritable output), with a one-line message on stderr.
"""

from __future__ import annotations

import argparse
import math
import os
import sys


import matplotlib  # noqa: E402

matplotlib.use("Agg")  # headless rendering; must precede any pyplot import

from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator  # noqa: E402

from . import results  # noqa: E402
from .results import ResultsError  # noqa: E402
from .results import is_failed as _is_failed  # noqa: E402
from .results import num as _num  # noqa: E402
from .results import require as _require  # noqa: E402
from .results import text as _str  # noqa: E402
from .style import MIB, RC, bar_style, figure_title, line_style, tone  # noqa: E402
from .style import save as _save  # noqa: E402

PROG = "frameworks"

METRICS = {
    "object": ("object_hit_ratio", "object-wise hit ratio"),
    "byte": ("byte_hit_ratio", "byte-wise hit ratio"),
}
WA_COLUMN = "wa_implementation"
WA_LABEL = "implementation write amplification (×)"
K_LABEL = "insertion points K"

_POLICY_ORDER = {"fifo": 0, "lru": 1, "slru": 1, "gdsf": 2, "wtinylfu": 3}
_FRAMEWORK_ORDER = {"exact": 0, "ripq": 1, "sipq": 2}

# Columns every figure of this module needs.
REQUIRED_COLUMNS = ("policy.name", "cache_capacity_bytes", "object_hit_ratio", "byte_hit_ratio")


def _warn(msg: str) -> None:
    results.warn(PROG, msg)


# --------------------------------------------------------------------------
# Rows -> cells
# --------------------------------------------------------------------------

def _located(rows) -> list[tuple[str, dict]]:
    # Failed cells are dropped silently here: the loader has warned about them already.
    out = [(getattr(r, "where", None) or f"row {i}", r)
           for i, r in enumerate(rows, start=1) if not _is_failed(r)]
    if not out:
        raise ResultsError("no successful rows to plot")
    return out


def algorithm_label(row: dict, where: str = "row") -> str:
    """"fifo", "slru-L" (lru = slru-1), "gdsf-L", or the policy name."""
    name = _str(row, "policy.name").lower()
    if not name:
        raise ResultsError(f"{where}: empty value in column 'policy.name'")
    if name == "lru":
        return "slru-1"
    if name in ("slru", "gdsf"):
        if "policy.segments" not in row:
            raise ResultsError(f"missing column 'policy.segments' (needed to label {name})")
        return f"{name}-{_num(row, 'policy.segments', where, int)}"
    return name


def _algorithm_key(label: str):
    name, _, seg = label.partition("-")
    return (_POLICY_ORDER.get(name, 9), name, int(seg) if seg.isdigit() else 0)


def _framework(row: dict, where: str) -> str:
    fw = _str(row, "framework.name").lower()
    if not fw:
        raise ResultsError(f"{where}: empty value in column 'framework.name'")
    return fw


def _largest_size(located, what: str):
    """Keep the rows at the largest cache size; return (rows, size, n_sizes)."""
    if not located:
        raise ResultsError(f"no {what} rows to plot")
    sized = []
    for where, r in located:
        size = _num(r, "cache_capacity_bytes", where, int)
        if size <= 0:
            raise ResultsError(f"{where}: cache_capacity_bytes must be > 0, got {size}")
        sized.append((size, where, r))
    sizes = sorted({s for s, _, _ in sized})
    top = sizes[-1]
    return [(w, r) for s, w, r in sized if s == top], top, len(sizes)


def _value(row: dict, col: str, where: str, label: str, bounded: bool):
    """The numeric value of *col*, or None (with a warning) if it is empty."""
    v = _str(row, col)
    if v == "" or v.lower() == "nan":
        _warn(f"{where} ({label}): no value for {col}; cell skipped")
        return None
    y = _num(row, col, where)
    if bounded and not -1e-9 <= y <= 1 + 1e-9:
        raise ResultsError(f"{where}: {col} = {y} is outside [0, 1]")
    if not bounded and y < 0:
        raise ResultsError(f"{where}: {col} = {y} is negative")
    return y


def _dedup(cells: dict, key, value: float, where: str, label: str) -> None:
    if key not in cells:
        cells[key] = (value, where)
    elif abs(cells[key][0] - value) > 1e-12:
        _warn(f"{where} ({label}): duplicate cell differs from {cells[key][1]} "
              f"({value:.6g} vs {cells[key][0]:.6g}); keeping the first")


def _size_note(size: int, n_sizes: int) -> str:
    note = f"{size / MIB:g} MiB cache"
    if n_sizes > 1:
        note += f" (largest of {n_sizes} cache sizes)"
    return note


def _trace_name(located) -> str:
    names = list(dict.fromkeys(
        os.path.basename(_str(r, "trace.path").rstrip("/")) for _, r in located
        if _str(r, "trace.path")))
    if not names:
        return ""
    return ", ".join(names) if len(names) <= 2 else f"{len(names)} traces"


def grouped_cells(rows, column: str, bounded: bool = True):
    """Group rows into bars: ``(algorithms, variants, {(alg, variant): y}, note)``.

    *algorithms* and *variants* are ordered labels; *note* describes the cache
    size plotted (the largest present).  Raises :class:`ResultsError`.
    """
    located = _located(rows)
    _require(located, ("framework.name", column), f"for {column} bars")
    if any(_framework(r, w) == "sipq" for w, r in located):
        _require(located, ("framework.occupancy",), "to label sipq bars")
    located, size, n_sizes = _largest_size(located, "successful")

    ripq_ks = {_str(r, "framework.insertion_points") for w, r in located
               if _framework(r, w) == "ripq"}
    label_k = len(ripq_ks) > 1
    cells: dict = {}
    variant_keys: dict = {}
    for where, r in located:
        alg = algorithm_label(r, where)
        fw = _framework(r, where)
        vkey: tuple = (_FRAMEWORK_ORDER.get(fw, 9), fw)
        variant = fw
        if fw == "sipq":
            theta = _num(r, "framework.occupancy", where)
            variant, vkey = f"sipq-{theta:g}", vkey + (theta,)
        elif fw == "ripq" and label_k:
            k = _num(r, "framework.insertion_points", where, int)
            variant, vkey = f"ripq-K{k}", vkey + (k,)
        y = _value(r, column, where, f"{alg} / {variant}", bounded)
        if y is None:
            continue
        variant_keys.setdefault(variant, vkey)
        _dedup(cells, (alg, variant), y, where, f"{alg} / {variant}")
    if not cells:
        raise ResultsError(f"no cell has a value for {column}; nothing to plot")
    algs = sorted({a for a, _ in cells}, key=_algorithm_key)
    variants = sorted(variant_keys, key=variant_keys.get)
    values = {k: v for k, (v, _) in cells.items()}
    return algs, variants, values, _size_note(size, n_sizes), _trace_name(located)


def k_series(rows, column: str = "object_hit_ratio"):
    """RIPQ hit ratio per K: ``(algorithms, {alg: [(K, y)]}, {alg: exact_y}, note)``."""
    located = _located(rows)
    _require(located, ("framework.name", "framework.insertion_points"),
             "for the K-sensitivity plot")
    wanted = [(w, r) for w, r in located if _framework(r, w) in ("ripq", "exact")]
    if not any(_framework(r, w) == "ripq" for w, r in wanted):
        raise ResultsError("no ripq rows; nothing to plot against insertion points K")
    wanted, size, n_sizes = _largest_size(wanted, "ripq")
    ripq: dict = {}
    exact: dict = {}
    for where, r in wanted:
        alg = algorithm_label(r, where)
        if _framework(r, where) == "exact":
            y = _value(r, column, where, f"{alg} / exact", True)
            if y is not None:
                _dedup(exact, alg, y, where, f"{alg} / exact")
            continue
        k = _num(r, "framework.insertion_points", where, int)
        if k <= 0:
            raise ResultsError(f"{where}: framework.insertion_points must be > 0, got {k}")
        y = _value(r, column, where, f"{alg} / ripq K={k}", True)
        if y is not None:
            _dedup(ripq, (alg, k), y, where, f"{alg} / ripq K={k}")
    if not ripq:
        raise ResultsError(f"no ripq cell has a value for {column}; nothing to plot")
    algs = sorted({a for a, _ in ripq}, key=_algorithm_key)
    series = {a: sorted((k, v) for (a2, k), (v, _) in ripq.items() if a2 == a)
              for a in algs}
    exact_y = {a: exact[a][0] for a in algs if a in exact}
    return algs, series, exact_y, _size_note(size, n_sizes), _trace_name(wanted)


# --------------------------------------------------------------------------
# Drawing
# --------------------------------------------------------------------------

def _title(title, rows, what: str, trace: str, note: str) -> str:
    """*title*, or "EXPERIMENT: WHAT — TRACE — NOTE" (style.py figure_title)."""
    return figure_title(title, results.experiment_name(rows), what, trace, note)


def _zoomed_ylim(values, floor_at_zero: bool = False):
    """Round limits around the values, leaving room above the tallest bar."""
    lo, hi = min(values), max(values)
    span = max(hi - lo, 0.05 * max(hi, 1e-9), 1e-3)
    top = hi + 0.15 * span
    if floor_at_zero or lo - 0.5 * span <= 0:
        bottom = 0.0
    else:
        step = 10 ** math.floor(math.log10(span))
        bottom = math.floor((lo - 0.5 * span) / step) * step
    return max(0.0, bottom), top


def _bar_figure(algs, variants, values, ylabel, title, ylim, ref_line=None) -> Figure:
    n_var = len(variants)
    width = max(5.0, min(10.0, 1.2 + 0.28 * len(algs) * (n_var + 1)))
    axes_h = 2.6
    top_h = 0.55  # title + one-row legend band above the axes
    height = axes_h + top_h
    fig = Figure(figsize=(width, height))
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    bar_w = 0.8 / n_var
    handles = []
    # Bars per framework variant: the framework's colour and hatch (style.py); variants
    # of one framework (sipq-0.5, sipq-0.9) in its tones, in their (sorted) order.
    seen: dict[str, int] = {}
    for j, var in enumerate(variants):
        base = var.split("-", 1)[0]
        rank = seen[base] = seen.get(base, -1) + 1
        style = bar_style(framework=var, framework_tone=tone(rank))
        xs = [i + (j - (n_var - 1) / 2) * bar_w
              for i, a in enumerate(algs) if (a, var) in values]
        ys = [values[(a, var)] for a in algs if (a, var) in values]
        ax.bar(xs, ys, width=bar_w * 0.92, label=var, zorder=3, **style)
        handles.append(Patch(facecolor=style["color"], hatch=style["hatch"], label=var,
                             edgecolor=style["edgecolor"], linewidth=style["linewidth"]))
    if ref_line is not None:
        ax.axhline(ref_line, color="black", linestyle="--", linewidth=0.9, zorder=4)
    ax.set_xticks(range(len(algs)))
    ax.set_xticklabels(algs)
    ax.set_xlim(-0.6, len(algs) - 0.4)
    ax.set_ylim(*ylim)
    ax.set_xlabel("algorithm")
    ax.set_ylabel(ylabel)
    ax.grid(True, axis="y", linewidth=0.5, alpha=0.4, zorder=0)
    fig.tight_layout(rect=(0, 0, 1, 1 - top_h / height))
    fig.suptitle(title, y=1 - 0.06 / height, va="top", fontsize=10)
    fig.legend(handles=handles, loc="upper center", ncol=n_var,
               bbox_to_anchor=(0.5, 1 - 0.27 / height), frameon=False,
               columnspacing=1.6)
    return fig


def plot_fidelity(rows, out_path: str, metric: str = "object",
                  title: str | None = None) -> Figure:
    """Figure 8a/8d: hit ratio per algorithm and framework variant, as grouped bars.

    One :class:`~matplotlib.container.BarContainer` per variant (label = variant,
    in legend order); bar heights are the hit ratios.  Written to *out_path*
    at 150 dpi and returned.  Raises :class:`ResultsError` on bad input.
    """
    if metric not in METRICS:
        raise ResultsError(f"unknown metric {metric!r} (object or byte)")
    column, ylabel = METRICS[metric]
    algs, variants, values, note, trace = grouped_cells(rows, column)
    ylim = _zoomed_ylim(list(values.values()))
    with matplotlib.rc_context(RC):
        fig = _bar_figure(algs, variants, values, ylabel,
                          _title(title, rows, ylabel, trace, note), ylim)
        if out_path is not None:  # None: the caller saves (flashpq.plots.save)
            _save(fig, out_path)
    return fig


def plot_wa(rows, out_path: str, title: str | None = None) -> Figure:
    """Figure 8b/8e: implementation write amplification as grouped bars.

    Exact cells without a value are left out silently: without a placement the
    exact framework writes nothing to a device, so it has no implementation WA
    (the paper's Figure 8b/8e shows RIPQ and SIPQ).  Other cells with an empty
    ``wa_implementation`` are skipped with a warning; a dashed line marks
    WA = 1.  Written to *out_path* at 150 dpi and returned.
    """
    rows = [r for r in rows
            if not (_str(r, "framework.name").lower() == "exact" and not _str(r, WA_COLUMN))]
    algs, variants, values, note, trace = grouped_cells(rows, WA_COLUMN, bounded=False)
    hi = max(max(values.values()), 1.0)
    ylim = (0.0, 1.0 + 1.15 * (hi - 1.0) if hi > 1.05 else 1.15)
    with matplotlib.rc_context(RC):
        fig = _bar_figure(algs, variants, values, WA_LABEL,
                          _title(title, rows, "implementation write amplification", trace,
                                 note),
                          ylim, ref_line=1.0)
        if out_path is not None:  # None: the caller saves (flashpq.plots.save)
            _save(fig, out_path)
    return fig


def plot_k_sensitivity(rows, out_path: str, title: str | None = None) -> Figure:
    """Figure 9: RIPQ object-wise hit ratio against insertion points K.

    Lines in ripq's dash (label = algorithm) for the ripq cells; thick horizontal
    lines in the exact queue's reference style (label = "<algorithm> exact") at the
    exact framework's hit ratio, in the algorithm's colour (style.py).  The
    legend lists the algorithms, and a key of the exact lines when any is drawn.
    Written to *out_path* at 150 dpi and returned.
    """
    column, ylabel = METRICS["object"]
    algs, series, exact_y, note, trace = k_series(rows, column)
    ks = sorted({k for pts in series.values() for k, _ in pts})
    all_y = [y for pts in series.values() for _, y in pts] + list(exact_y.values())
    lo, hi = min(all_y), max(all_y)
    pad = max(0.08 * (hi - lo), 0.01)
    with matplotlib.rc_context(RC):
        n_leg = len(algs) + (1 if exact_y else 0)
        ncol = min(n_leg, 7)
        top_h = 0.34 + 0.2 * math.ceil(n_leg / ncol)
        height = 3.0 + top_h
        fig = Figure(figsize=(6.0, height))
        FigureCanvasAgg(fig)
        ax = fig.subplots()
        handles = []
        for alg in algs:
            # Lines per algorithm: its colour and marker; ripq's dash; exact the reference.
            style = line_style(policy=alg, framework="ripq")
            xs = [k for k, _ in series[alg]]
            ys = [y for _, y in series[alg]]
            (line,) = ax.plot(xs, ys, label=alg, clip_on=False, **style)
            handles.append(line)
            if alg in exact_y:
                ref = line_style(policy=alg, framework="exact")
                ax.axhline(exact_y[alg], color=ref["color"], linestyle=ref["linestyle"],
                           linewidth=ref["linewidth"], alpha=ref["alpha"], zorder=ref["zorder"],
                           label=f"{alg} exact")
        if exact_y:
            ref = line_style(framework="exact")
            handles.append(Line2D([], [], color="0.3", linestyle=ref["linestyle"],
                                  linewidth=ref["linewidth"], alpha=ref["alpha"],
                                  label="exact (thick, same colour)"))
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_locator(FixedLocator(ks))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:.0f}"))
        if len(ks) > 1:
            ax.set_xlim(ks[0] / 2 ** 0.25, ks[-1] * 2 ** 0.25)
        else:
            ax.set_xlim(ks[0] / 2, ks[0] * 2)
        ax.set_ylim(max(0.0, lo - pad), min(1.0, hi + pad))
        ax.set_xlabel(K_LABEL)
        ax.set_ylabel(ylabel)
        ax.grid(True, linewidth=0.5, alpha=0.4)
        fig.tight_layout(rect=(0, 0, 1, 1 - top_h / height))
        fig.suptitle(_title(title, rows, "RIPQ: hit ratio vs. insertion points", trace, note),
                     y=1 - 0.06 / height, va="top", fontsize=10)
        fig.legend(handles=handles, loc="upper center", ncol=ncol,
                   bbox_to_anchor=(0.5, 1 - 0.3 / height), frameon=False,
                   handlelength=2.4, columnspacing=1.2)
        if out_path is not None:  # None: the caller saves (flashpq.plots.save)
            _save(fig, out_path)
    return fig


# --------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog=PROG,
        description="Framework comparison figures (RIPQ paper, FAST'15, Fig. 8 and 9) "
                    "from a FlashPQ results file (CSV or JSON Lines).")
    sub = ap.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def common(p):
        p.add_argument("results", help="results file, .csv or .jsonl (one row per cell)")
        p.add_argument("-o", "--output", required=True,
                       help="output figure path (PNG, 150 dpi)")
        p.add_argument("--title", default=None, help="figure title")

    p = sub.add_parser("fidelity", help="hit ratio per algorithm and framework (Fig. 8a/8d)")
    common(p)
    p.add_argument("--metric", choices=sorted(METRICS), default="object",
                   help="object-wise (default) or byte-wise hit ratio")
    common(sub.add_parser("wa", help="implementation write amplification (Fig. 8b/8e)"))
    common(sub.add_parser("k-sensitivity",
                          help="RIPQ hit ratio vs. insertion points K (Fig. 9)"))
    args = ap.parse_args(argv)

    def draw(rows):
        if args.command == "fidelity":
            plot_fidelity(rows, args.output, args.metric, args.title)
        elif args.command == "wa":
            plot_wa(rows, args.output, args.title)
        else:
            plot_k_sensitivity(rows, args.output, args.title)

    return results.run_figure_command(
        PROG, args.results, args.output,
        lambda path: results.load_results(path, REQUIRED_COLUMNS, PROG), draw)

if __name__ == "__main__":
    sys.exit(main())
