"""Non-hierarchical caching: served throughput against offered rate, per device and mode.

Usage::

    /usr/bin/python3 plots/nhc.py RESULTS.csv -o FIG.png [--title T]

The figure of ``experiments/nhc.yaml`` (docs/guide/hierarchies.md "Load-aware offload (NHC)"): the NHC demo's
throughput benchmark (github.com/josehu07/nhc-demo, README) as a sweep.  x = the offered
rate ``timing.rate`` (requests/s); one panel per cache mode ``tiers.mode`` (wa, nhc_wa, …),
with stacked areas for what each device served, ``flash_throughput_mib_s`` (the cache device)
and ``backing_throughput_mib_s`` (the core device), in MiB/s, and a line of the total served
``throughput_mib_s``; and a last panel overlays every mode's served requests/s
``throughput_rps`` against the offered rate (the dashed diagonal: everything offered served),
each mode in its own style (style.py ``TIER_MODE_STYLES``).  The default title is
"EXPERIMENT: served throughput against offered rate" (the ``experiment`` column); ``--title``
replaces it.

Input: a FlashPQ results file (CSV, or JSON Lines when the name ends in .jsonl or .json).
Rows with a non-empty ``error`` are skipped with a warning.  Needed columns: ``tiers.mode``,
``timing.rate``, ``throughput_rps``, ``throughput_mib_s``, ``flash_throughput_mib_s``,
``backing_throughput_mib_s``; rows of one mode and rate must be one each (another varying
parameter is an error naming it).  Exit status 2 with ``nhc.py: error: RESULTS: MESSAGE`` on a
bad file.
"""

from __future__ import annotations

import os
import sys


from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from . import results  # noqa: E402
from .results import ResultsError  # noqa: E402
from .style import COLORS, TIER_MODE_STYLES, RC, figure_title, named_style, save  # noqa: E402

import matplotlib  # noqa: E402

PROG = "nhc.py"
COLUMNS = ("tiers.mode", "timing.rate", "throughput_rps", "throughput_mib_s",
           "flash_throughput_mib_s", "backing_throughput_mib_s")


def series(rows) -> dict[str, list[tuple[float, float, float, float, float]]]:
    """Per mode, in the order first seen: (offered rps, served rps, served MiB/s, cache device
    MiB/s, core device MiB/s), sorted by offered rate.  Raises :class:`ResultsError` when a
    mode has two rows at one rate."""
    out: dict[str, dict[float, tuple]] = {}
    for where, row in results.located(rows, PROG):
        mode = results.text(row, "tiers.mode")
        rate = results.num(row, "timing.rate", where)
        point = (rate, results.num(row, "throughput_rps", where),
                 results.num(row, "throughput_mib_s", where),
                 results.num(row, "flash_throughput_mib_s", where),
                 results.num(row, "backing_throughput_mib_s", where))
        by_rate = out.setdefault(mode, {})
        if rate in by_rate:
            raise ResultsError(f"{where}: a second row of tiers.mode {mode} at timing.rate "
                               f"{results.text(row, 'timing.rate')}: another parameter varies")
        by_rate[rate] = point
    return {mode: [by_rate[r] for r in sorted(by_rate)] for mode, by_rate in out.items()}


def plot(rows, out_path: str, title: str | None = None) -> Figure:
    """Draws the figure of *rows* to *out_path* (see the module docstring) and returns it;
    *title* None: the default title, "" none."""
    data = series(rows)
    with matplotlib.rc_context(RC):
        fig = Figure(figsize=(3.2 * (len(data) + 1), 2.8))
        FigureCanvasAgg(fig)
        axes = fig.subplots(1, len(data) + 1, squeeze=False)[0]
        top = max(p[2] for pts in data.values() for p in pts) * 1.15
        for ax, (mode, pts) in zip(axes, data.items()):
            x = [p[0] for p in pts]
            cache = [p[3] for p in pts]
            core = [p[4] for p in pts]
            ax.stackplot(x, cache, core, colors=(COLORS[0], COLORS[2]), alpha=0.45,
                         labels=("cache device", "core device"))
            ax.plot(x, [p[2] for p in pts], color="black", marker="o", markersize=3,
                    label="total served")
            ax.set_title(mode)
            ax.set_xlabel("offered rate (requests/s)")
            ax.set_ylabel("MiB/s")
            ax.set_ylim(0, top)
            ax.legend(loc="upper left", frameon=False)
        ax = axes[-1]
        hi = 0.0
        for mode, pts in data.items():
            st = named_style(mode, TIER_MODE_STYLES)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], color=st.color, marker=st.marker,
                    linestyle=st.dash, markersize=3, label=mode)
            hi = max(hi, max(p[0] for p in pts))
        ax.plot([0, hi], [0, hi], color="grey", linestyle="--", linewidth=0.8,
                label="offered")
        ax.set_xlabel("offered rate (requests/s)")
        ax.set_ylabel("served requests/s")
        ax.set_title("served vs offered")
        ax.legend(loc="upper left", frameon=False)
        title = figure_title(title, results.experiment_name(rows),
                             "served throughput against offered rate")
        if title:
            fig.suptitle(title)
        fig.tight_layout()
        if out_path is not None:  # None: the caller saves (flashpq.plots.save)
            save(fig, out_path)
    return fig


def main(argv=None) -> int:
    return results.figure_main(PROG, __doc__.split("\n\n")[0], COLUMNS, plot, argv)


if __name__ == "__main__":
    sys.exit(main())
