"""DRAM-only against DRAM + flash under YCSB: p95 latency per operation and throughput.

Usage::

    /usr/bin/python3 plots/kv_compare.py RESULTS.csv -o FIG.png [--title T]

The figure of ``experiments/kv_compare.yaml`` (docs/guide/hierarchies.md "DRAM only against DRAM + flash"), in the layout of the
KV-store comparison's tables (github.com/KKKZOZ/kv-cache-research, ``Final Report.md``): one
row of panels per data-set size ``trace.record_count``; in each, grouped bars per workload
(``trace.workload`` with ``trace.request_distribution``: "b-uniform"), one bar per
configuration — ``tiers.admit_probability`` 0 is "DRAM only", 1 "DRAM + flash" — for read p95
(``read_latency_p95_us``), write p95 (``write_latency_p95_us``: updates and inserts) on a log
axis from 1 µs, throughput (``throughput_rps``) and the object-wise hit ratio
(``object_hit_ratio``: DRAM alone misses what it cannot hold).  An empty value (a workload without writes) draws
no bar.

Each configuration keeps its colour and hatch (style.py ``CONFIGURATION_STYLES``); one
legend above the panels names the configurations drawn.  The default title is "EXPERIMENT: p95
latency and throughput, DRAM only against DRAM + flash" (the ``experiment`` column); ``--title``
replaces it.

Input: a FlashPQ results file (CSV, or JSON Lines when the name ends in .jsonl or .json).  Rows
with a non-empty ``error`` are skipped with a warning; a column absent from the file reads as an
empty one.  Two rows of one (size, workload,
configuration) are an error naming the row.  Exit status 2 with ``kv_compare.py: error:
RESULTS: MESSAGE`` on a bad file.
"""

from __future__ import annotations

import math
import os
import sys


from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from . import results  # noqa: E402
from .results import ResultsError  # noqa: E402
from .style import CONFIGURATION_STYLES, RC, figure_title, named_style, save  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

import matplotlib  # noqa: E402

PROG = "kv_compare.py"
COLUMNS = ("trace.record_count", "trace.workload", "trace.request_distribution",
           "tiers.admit_probability", "read_latency_p95_us", "write_latency_p95_us",
           "throughput_rps", "object_hit_ratio")
METRICS = (("read_latency_p95_us", "read p95 (µs)", True),
           ("write_latency_p95_us", "write p95 (µs)", True),
           ("throughput_rps", "throughput (requests/s)", False),
           ("object_hit_ratio", "object-wise hit ratio", False))


def configuration(row, where: str = "row") -> str:
    """"DRAM only" for admit probability 0, "DRAM + flash" otherwise.  Raises
    :class:`ResultsError` naming *where* when tiers.admit_probability is empty or no number."""
    return "DRAM only" if results.num(row, "tiers.admit_probability", where) == 0 else \
        "DRAM + flash"


def workload(row) -> str:
    """The workload letter, with the distribution when it is not the workload's own."""
    w = results.text(row, "trace.workload")
    d = results.text(row, "trace.request_distribution")
    own = "latest" if w == "d" else "zipfian"
    return w if d in ("", own) else f"{w}-{d}"


def table(rows) -> dict:
    """{records: {workload: {configuration: {metric: value or None}}}}, in first-seen order.
    Raises :class:`ResultsError` for two rows of one cell."""
    out: dict = {}
    for where, row in results.located(rows, PROG):
        records = int(results.num(row, "trace.record_count", where))
        cell = out.setdefault(records, {}).setdefault(workload(row), {})
        conf = configuration(row, where)
        if conf in cell:
            raise ResultsError(f"{where}: a second row of {records} records, workload "
                               f"{workload(row)}, {conf}")
        cell[conf] = {m: (None if results.blank(row, m) else results.num(row, m, where))
                      for m, _, _ in METRICS}
    return out


def log_floor(rows_by_conf, metric: str) -> float:
    """1, or the largest power of ten at or below the smallest positive *metric* (µs)."""
    values = [row[metric] for confs in rows_by_conf for row in confs.values()
              if row.get(metric) is not None and row[metric] > 0]
    return min(1.0, 10 ** math.floor(math.log10(min(values)))) if values else 1.0


def plot(rows, out_path: str, title: str | None = None) -> Figure:
    """Draws the figure of *rows* to *out_path* (see the module docstring) and returns it;
    *title* None: the default title, "" none."""
    data = table(rows)
    drawn: dict[str, dict] = {}
    with matplotlib.rc_context(RC):
        fig = Figure(figsize=(13, 2.6 * len(data)))
        FigureCanvasAgg(fig)
        axes = fig.subplots(len(data), len(METRICS), squeeze=False)
        for r, (records, by_workload) in enumerate(data.items()):
            names = list(by_workload)
            confs = sorted({c for w in by_workload.values() for c in w},
                           key=lambda c: c != "DRAM only")
            width = 0.8 / max(1, len(confs))
            for c, (metric, label, log) in enumerate(METRICS):
                ax = axes[r][c]
                for k, conf in enumerate(confs):
                    xs, ys = [], []
                    for i, w in enumerate(names):
                        v = by_workload[w].get(conf, {}).get(metric)
                        if v is not None:
                            xs.append(i + (k - (len(confs) - 1) / 2) * width)
                            ys.append(v)
                    st = named_style(conf, CONFIGURATION_STYLES)
                    style = {"color": st.color, "hatch": st.hatch, "edgecolor": "black",
                             "linewidth": 0.4}
                    if xs:
                        drawn.setdefault(conf, style)
                    ax.bar(xs, ys, width, label=conf, **style)
                ax.set_xticks(range(len(names)))
                ax.set_xticklabels(names)
                if log:  # from 1 µs (or the power of ten under a smaller value: a DRAM hit on
                    # the wall clock takes well under 1 µs), so that bars a histogram bucket
                    # apart look alike
                    ax.set_yscale("log")
                    ax.set_ylim(bottom=log_floor(by_workload.values(), metric))
                ax.set_ylabel(label)
                ax.set_title(f"{records:,} records")
        # One legend for the figure, of the configurations that have a bar somewhere.
        order = sorted(drawn, key=lambda c: c != "DRAM only")
        title = figure_title(title, results.experiment_name(rows),
                             "p95 latency and throughput, " + " against ".join(order))
        fig.tight_layout(rect=(0, 0, 1, 1 - 0.5 / fig.get_figheight()))
        if title:
            fig.suptitle(title, y=1 - 0.05 / fig.get_figheight(), va="top")
        fig.legend(handles=[Patch(label=c, facecolor=drawn[c]["color"], hatch=drawn[c]["hatch"],
                                  edgecolor="black", linewidth=0.4) for c in order],
                   loc="upper center",
                   ncol=len(order), frameon=False,
                   bbox_to_anchor=(0.5, 1 - 0.25 / fig.get_figheight()))
        if out_path is not None:  # None: the caller saves (flashpq.plots.save)
            save(fig, out_path)
    return fig


def main(argv=None) -> int:
    return results.figure_main(PROG, __doc__.split("\n\n")[0], COLUMNS, plot, argv)


if __name__ == "__main__":
    sys.exit(main())
