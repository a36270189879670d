"""Statistics over time: any columns of the cells' series files against simulated time.

Usage::

    /usr/bin/python3 plots/timeseries.py RESULTS.csv -o FIG.png \\
        --columns flash_write_mib_s,object_hit_ratio [--cells 0,3-5] [--title T]

A cell with ``stats.interval_s`` > 0 writes one row per interval of simulated time to a series
file beside the results; its results row names that file in ``stats_file``, relative to the
results file's directory (experiments/run/interval_stats.h lists the columns).  This draws one
panel per column of ``--columns`` (stacked, sharing the x axis ``time_s``, the end of each
interval in seconds) and in each one line per cell, labelled by its cell number and the
parameters that differ between the cells drawn; intervals that issued warm-up requests are
shaded.  Cells told apart by policy and/or framework alone take their styles from
style.py (colour the policy's, or the framework's when only frameworks differ; dash the
framework's); other cells a colour and dash each, in cell order.  The default title is
"EXPERIMENT: statistics over time" (the ``experiment`` column); ``--title`` replaces it.
Empty values (a ratio without a denominator, a percentile without a request) leave gaps.  The
way CacheBench users plot its progress statistics.

Input: a FlashPQ results file (CSV, or JSON Lines when the name ends in .jsonl or .json).  Rows
with a non-empty ``error`` are skipped with a warning; rows without a series are skipped unless
``--cells`` names them (then an error).  Exit status 2 with ``timeseries.py: error: MESSAGE`` on
a bad results file, a missing series file, or a column no series has (the message lists the
columns it has).
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import sys


from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from . import results  # noqa: E402
from .results import ResultsError  # noqa: E402
from .style import (  # noqa: E402
    COLORS,
    DASHES,
    NAMED_PARAMETERS,
    RC,
    figure_title,
    line_style,
    save,
)

import matplotlib  # noqa: E402

PROG = "timeseries.py"


def parse_cells(spec: str) -> set[int]:
    """``"0,3-5"`` → {0, 3, 4, 5}; ResultsError on anything else."""
    out: set[int] = set()
    for part in spec.split(","):
        part = part.strip()
        try:
            if "-" in part:
                lo, hi = (int(x) for x in part.split("-", 1))
                if lo > hi:
                    raise ValueError
                out.update(range(lo, hi + 1))
            else:
                out.add(int(part))
        except ValueError:
            raise ResultsError(f"--cells: expected cell numbers and ranges like 0,3-5, "
                               f"found '{part}'") from None
    return out


def read_series(path: str) -> tuple[list[str], list[dict[str, str]]]:
    """The header and rows of one series file; ResultsError naming it when unreadable."""
    try:
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            rows = list(reader)
            header = list(reader.fieldnames or [])
    except OSError as e:
        raise ResultsError(f"{path}: cannot read the series: {e.strerror or e}") from None
    except (csv.Error, UnicodeDecodeError) as e:
        raise ResultsError(f"{path}: not a readable CSV series: {e}") from None
    if "time_s" not in header:
        raise ResultsError(f"{path}: not a FlashPQ series (no time_s column)")
    return header, rows


def value(text: str, where: str) -> float:
    """The number in *text*, NaN when empty; ResultsError naming *where* when malformed."""
    if text.strip() == "":
        return math.nan
    try:
        return float(text)
    except ValueError:
        raise ResultsError(f"{where}: expected a number, found '{text}'") from None


def _short(key: str) -> str:
    """A parameter's name in a label: its last component, the first for ``X.name``
    ("framework.name" → "framework", "tiers.flash_admission" → "flash_admission")."""
    parts = key.split(".")
    return parts[0] if parts[-1] == "name" else parts[-1]


def _styles(chosen, varying) -> list[dict]:
    """Line2D keyword arguments per chosen cell: by policy/framework (style.py) when
    those alone vary and tell every cell apart; else a colour and dash per cell, in order."""
    named = {NAMED_PARAMETERS[k] for k in varying if k in NAMED_PARAMETERS}
    keys = [(results.policy_label(r), results.text(r, "framework.name")) for _, r in chosen]
    if varying and all(k in NAMED_PARAMETERS for k in varying) and len(set(keys)) == len(keys):
        out = []
        for policy, framework in keys:
            st = line_style(policy=policy if "policy" in named else None,
                            framework=(framework or "?") if "framework" in named
                            else (framework or None),
                            alone="framework" not in named)
            out.append({"color": st["color"], "linestyle": st["linestyle"],
                        "linewidth": st["linewidth"] * 0.7, "alpha": st["alpha"]})
        return out
    return [{"color": COLORS[i % len(COLORS)], "linestyle": DASHES[i % len(DASHES)],
             "linewidth": 1.0, "alpha": 1.0} for i in range(len(chosen))]


def load(results_path: str, columns: list[str], cells: set[int] | None):
    """[(label, {column: [values]}, time_s, warm-up end, style, experiment)] for the cells
    drawn: *style* the Line2D keyword arguments of the cell's line, *experiment* its
    ``experiment`` column."""
    rows = results.load_results(results_path, ("cell", "stats_file"), PROG)
    return series_of(rows, os.path.dirname(os.path.abspath(results_path)), columns, cells,
                     f"{results_path}: ")


def series_of(rows, base: str, columns: list[str], cells: set[int] | None, where: str = ""):
    """:func:`load` of rows already read (a file's, or a DataFrame's through
    results.load_frame): each row's ``stats_file`` is read from the directory *base*; *where*
    prefixes the messages that concern the rows (the results file's "PATH: ")."""
    chosen = []
    for row in rows:
        cell = int(results.num(row, "cell", row.where))
        if cells is not None and cell not in cells:
            continue
        if results.blank(row, "stats_file"):
            if cells is not None:
                raise ResultsError(f"{where}cell {cell} has no series (stats_file is "
                                   f"empty: its stats.interval_s is 0)")
            continue
        chosen.append((cell, row))
    if not chosen:
        raise ResultsError(f"{where}no cell has a series (stats_file): set "
                           f"stats.interval_s in the experiment")
    if cells is not None:
        missing = sorted(cells - {c for c, _ in chosen})
        if missing:
            raise ResultsError(f"{where}no row for cell{'s' if len(missing) > 1 else ''} "
                               f"{', '.join(map(str, missing))}")
    params = [k for k in chosen[0][1] if "." in k and k != "stats.interval_s"]
    varying = [k for k in params if len({results.text(r, k) for _, r in chosen}) > 1]
    out = []
    for (cell, row), style in zip(chosen, _styles(chosen, varying)):
        path = os.path.join(base, results.text(row, "stats_file"))
        header, series = read_series(path)
        absent = [c for c in columns if c not in header]
        if absent:
            raise ResultsError(f"{path}: no column {', '.join(repr(c) for c in absent)} "
                               f"(it has: {', '.join(header)})")
        time = [value(s["time_s"], f"{path}: interval {i}") for i, s in enumerate(series)]
        data = {c: [value(s[c], f"{path}: interval {i}, column {c}")
                    for i, s in enumerate(series)] for c in columns}
        warm_end = max((t for t, s in zip(time, series) if s.get("warmup") == "1"), default=0.0)
        label = f"cell {cell}" + "".join(f", {_short(k)} {results.text(row, k)}"
                                         for k in varying)
        out.append((label, data, time, warm_end, style, results.text(row, "experiment")))
    return out


def plot(series, columns: list[str], out_path: str, title: str | None = None) -> Figure:
    """Draws *series* (from :func:`load`) to *out_path*: one panel per column; returns the
    figure.  *title* None: "EXPERIMENT: statistics over time", "" none."""
    with matplotlib.rc_context(RC):
        fig = Figure(figsize=(6.4, 1.9 * len(columns) + 0.6))
        FigureCanvasAgg(fig)
        axes = fig.subplots(len(columns), 1, squeeze=False, sharex=True)[:, 0]
        warm = max(s[3] for s in series)
        for ax, column in zip(axes, columns):
            if warm > 0:
                ax.axvspan(0, warm, color="0.9", zorder=0,
                           label="warm-up" if ax is axes[0] else None)
            for label, data, time, _, style, _ in series:
                ax.plot(time, data[column], label=label if ax is axes[0] else None, **style)
            ax.set_ylabel(column)
        axes[-1].set_xlabel("time (s)")
        axes[0].legend(loc="best", frameon=False)
        title = figure_title(title, results.experiment_name({"experiment": s[5]} for s in series),
                             "statistics over time")
        if title:
            fig.suptitle(title)
        fig.tight_layout()
        if out_path is not None:  # None: the caller saves (flashpq.plots.save)
            save(fig, out_path)
    return fig


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    ap.add_argument("results")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--columns", required=True,
                    help="comma-separated series columns, one panel each")
    ap.add_argument("--cells", default=None, help="cells to draw, e.g. 0,3-5 (default: all)")
    ap.add_argument("--title", default=None,
                    help="figure title (default: the experiment's name and the figure's kind)")
    a = ap.parse_args(argv)
    columns = [c.strip() for c in a.columns.split(",") if c.strip()]
    try:
        if not columns:
            raise ResultsError("--columns: expected at least one column")
        cells = parse_cells(a.cells) if a.cells else None
    except ResultsError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 2
    return results.run_figure_command(
        PROG, a.results, a.output, lambda path: load(path, columns, cells),
        lambda series: plot(series, columns, a.output, a.title))


if __name__ == "__main__":
    sys.exit(main())
