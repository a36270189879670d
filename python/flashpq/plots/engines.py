"""The flash engines side by side: hit ratio, write amplification and DRAM per object against
cache size, one column per workload (``experiments/engines.yaml``).

Usage::

    /usr/bin/python3 plots/engines.py RESULTS -o FIGURE.png [--title T] [--no-table]

Input: a FlashPQ results file, CSV or JSON Lines (results.py), of cells that differ by
``framework.name`` (ripq, blockcache, bighash, kangaroo, hybrid, or any other), cache size and
workload.  The workloads are the distinct values of the ``trace.*`` parameters that vary between
the rows (engines.yaml: the object sizes); a column per workload, in the order met.  Rows:

1. object-wise hit ratio (``object_hit_ratio``);
2. write amplification on a log axis: combined (``wa_combined``: NAND bytes per missed byte,
   filled markers) and implementation (``wa_implementation``: host bytes per missed byte,
   hollow markers); the gap is the FTL's;
3. DRAM of the design's index per cached object (``dram_index_bytes_per_object``), log axis.

x is the cache size in % of the working set (``cache_capacity_bytes`` over
``trace_working_set_bytes``).  Each framework keeps one colour, marker and dash
(:data:`ENGINE_STYLES`; RIPQ's is style.py's).  Unless --no-table, the numbers are printed
as a table.  Failed cells are skipped with a warning.  Exit status 0, or 2 with a one-line
message on a bad file.
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

from . import results  # noqa: E402
from .results import ResultsError  # noqa: E402
from .style import RC, SeriesStyle, figure_title, framework_style, save  # noqa: E402

PROG = "engines.py"
REQUIRED = ("framework.name", "cache_capacity_bytes", "trace_working_set_bytes",
            "object_hit_ratio")
ORDER = ("ripq", "blockcache", "hybrid", "kangaroo", "bighash")
# The engines' styles (candidates for style.py FRAMEWORK_STYLES): colours apart from the
# policies' and the other frameworks'; log designs dashed, set designs solid.
ENGINE_STYLES = {
    "blockcache": SeriesStyle("#17becf", "v", "--", "\\\\\\"),
    "bighash": SeriesStyle("#000080", "D", "-", "xx"),
    "kangaroo": SeriesStyle("#ff7f0e", "o", "-", "oo"),
    "hybrid": SeriesStyle("#66a61e", "P", "-.", "++"),
}
ROWS = (("object_hit_ratio", "object-wise hit ratio", False),
        ("wa", "write amplification\n(filled: combined, hollow: impl.)", True),
        ("dram_index_bytes_per_object", "DRAM index\n(bytes per cached object)", True))


def style(framework: str) -> SeriesStyle:
    return ENGINE_STYLES.get(framework.lower()) or framework_style(framework)


def _opt(row, col, where):
    return None if results.blank(row, col) else results.num(row, col, where)


def workload_label(row, varying) -> str:
    """A workload's name from the trace parameters that vary: the object size and key count
    when they do ("~8KiB objects, 20,000 keys"), else every varying trace key."""
    parts = []
    if "trace.size" in varying:
        v = results.text(row, "trace.size")
        parts.append(f"~{v}{' B' if v.isdigit() else ''} objects")
    if "trace.objects" in varying:
        parts.append(f"{int(float(results.text(row, 'trace.objects'))):,} keys")
    if "trace.path" in varying:
        parts.append(os.path.basename(results.text(row, "trace.path")))
    if not parts:
        parts = [f"{k[len('trace.'):]} {results.text(row, k)}" for k in varying]
    return ", ".join(parts) or "workload"


def records(rows) -> list[dict]:
    """One dict per row: framework, workload label, x (% of the working set) and the metrics."""
    varying = sorted(k for k in rows[0] if k.startswith("trace.") and
                     len({r.get(k, "") for r in rows}) > 1)
    out = []
    for where, row in results.located(rows, PROG):
        ws = results.num(row, "trace_working_set_bytes", where)
        out.append({
            "framework": results.text(row, "framework.name"),
            "workload": workload_label(row, varying),
            "x": 100.0 * results.num(row, "cache_capacity_bytes", where) / ws,
            "object_hit_ratio": results.value(row, "object_hit_ratio", where, lo=0.0, hi=1.0),
            "wa_combined": _opt(row, "wa_combined", where),
            "wa_implementation": _opt(row, "wa_implementation", where),
            "dram_index_bytes_per_object": _opt(row, "dram_index_bytes_per_object", where),
        })
    return out


def _frameworks(recs):
    met = list(dict.fromkeys(r["framework"] for r in recs))
    return [f for f in ORDER if f in met] + [f for f in met if f not in ORDER]


def draw(recs, out_path: str, title: str | None, experiment: str) -> Figure:
    if not recs:
        raise ResultsError("no rows to plot")
    workloads = list(dict.fromkeys(r["workload"] for r in recs))
    frameworks = _frameworks(recs)
    with matplotlib.rc_context(RC):
        fig = Figure(figsize=(3.6 * len(workloads) + 0.6, 7.2))
        FigureCanvasAgg(fig)
        axes = fig.subplots(len(ROWS), len(workloads), sharex="col", squeeze=False)
        for j, w in enumerate(workloads):
            axes[0][j].set_title(w)
            for f in frameworks:
                pts = sorted((r for r in recs if r["workload"] == w and r["framework"] == f),
                             key=lambda r: r["x"])
                if not pts:
                    continue
                st = style(f)
                kw = {"color": st.color, "marker": st.marker, "linestyle": st.dash,
                      "linewidth": 1.4, "markersize": 4.5}
                xs = [r["x"] for r in pts]
                for i, (key, _, _) in enumerate(ROWS):
                    ax = axes[i][j]
                    if key == "wa":
                        for col, face in (("wa_combined", st.color),
                                          ("wa_implementation", "white")):
                            p = [(x, r[col]) for x, r in zip(xs, pts) if r[col] is not None]
                            if p:
                                ax.plot(*zip(*p), markerfacecolor=face,
                                        **(kw if face != "white" else {**kw, "linewidth": 0.8}))
                        continue
                    p = [(x, r[key]) for x, r in zip(xs, pts) if r[key] is not None]
                    if p:
                        ax.plot(*zip(*p), **kw)
            for i, (_, label, log) in enumerate(ROWS):
                if log:
                    axes[i][j].set_yscale("log")
                if j == 0:
                    axes[i][0].set_ylabel(label)
            axes[1][j].axhline(1.0, color="0.5", linestyle=":", linewidth=0.8)
            axes[-1][j].set_xlabel("cache size (% of the working set)")
        for i in range(len(ROWS)):  # one y scale per row
            lo = min(ax.get_ylim()[0] for ax in axes[i])
            hi = max(ax.get_ylim()[1] for ax in axes[i])
            for ax in axes[i]:
                ax.set_ylim(lo, hi)
        handles = [Line2D([], [], color=style(f).color, marker=style(f).marker,
                          linestyle=style(f).dash) for f in frameworks]
        fig.legend(handles, frameworks, loc="upper center", ncol=len(frameworks),
                   frameon=False, bbox_to_anchor=(0.5, 1.0))
        fig.suptitle(figure_title(title, experiment, "hit ratio, write amplification and "
                                  "DRAM per object of each flash engine"), y=1.04)
        fig.tight_layout()
        if out_path is not None:  # None: the caller saves (flashpq.plots.save)
            save(fig, out_path)
    return fig


def table(recs) -> str:
    def f(v, d):
        return "—" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.{d}f}"
    lines = ["workload | cache % | framework | hit ratio | WA combined | WA impl. | DRAM B/obj"]
    for w in dict.fromkeys(r["workload"] for r in recs):
        for r in sorted((r for r in recs if r["workload"] == w),
                        key=lambda r: (r["x"], _frameworks(recs).index(r["framework"]))):
            lines.append(f"{w} | {r['x']:.3g} | {r['framework']} | {f(r['object_hit_ratio'], 4)}"
                         f" | {f(r['wa_combined'], 2)} | {f(r['wa_implementation'], 2)} | "
                         f"{f(r['dram_index_bytes_per_object'], 2)}")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    ap.add_argument("results")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--title", default=None)
    ap.add_argument("--no-table", action="store_true")
    a = ap.parse_args(argv)
    out: list[dict] = []

    def load(path):
        rows = results.load_results(path, REQUIRED, PROG)
        out.extend(records(rows))
        return rows

    rc = results.run_figure_command(
        PROG, a.results, a.output, load,
        lambda rows: draw(out, a.output, a.title, results.experiment_name(rows)))
    if rc == 0 and not a.no_table:
        print(table(out))
    return rc


if __name__ == "__main__":
    sys.exit(main())
