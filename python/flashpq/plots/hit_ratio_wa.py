"""What a policy earns in hit ratio and costs in write amplification on flash, per framework.

The trade-off of the RIPQ paper's Figure 8 (FAST'15: 8a object-wise hit ratio of the exact
queue, RIPQ and SIPQ; 8b their combined write amplification = FTL WA x implementation WA),
drawn against cache size for each policy.  ``make demo`` draws the quickstart with it.

Usage::

    /usr/bin/python3 plots/hit_ratio_wa.py RESULTS -o FIGURE.png [--title T] [--no-table]

Input: a FlashPQ results file, CSV or JSON Lines (results.py).  Columns used:

========================  ===============================================================
column                    meaning / unit
========================  ===============================================================
policy.name               eviction policy; slru and gdsf are labelled "slru-L", "gdsf-L"
policy.segments           L, for slru and gdsf
framework.name            exact | ripq | sipq (any other name is drawn too)
cache_capacity_bytes      cache size, bytes
trace_working_set_bytes   optional: x is then the cache size in % of the working set
object_hit_ratio          hits / gets, fraction
wa_implementation         host bytes / miss bytes inserted (empty: objects stay in DRAM)
wa_ftl                    NAND pages / host pages (empty on devices without an FTL model)
wa_combined               wa_implementation x wa_ftl
experiment                optional: the default title is "EXPERIMENT: hit ratio and ..."
trace.path                optional: its base name ends the default title
notes                     optional: a cell's configuration warnings, repeated on stderr
========================  ===============================================================

Missing optional columns read as empty ones (results.py).

Output: a figure of two rows and one column per policy (in the order met).  Top: object-wise
hit ratio against cache size, one line per framework in the framework's colour, marker and dash
(style.py, the same in every figure; the exact queue, the reference, drawn thick beneath
the others).  Bottom: combined WA with filled markers and implementation WA with hollow ones, in
the framework's style: the gap between them is the FTL's factor; a dotted line marks WA = 1.
The legend names the frameworks, and the kinds of WA drawn; a framework without WA (objects in
DRAM only) has no line there and "(DRAM only)" in the legend.
Then, unless --no-table, a table of the same numbers on stdout (one line per policy and cache
size: each framework's hit ratio and combined WA), and the lines ``results: RESULTS`` and
``figure: FIGURE``.

Cells sharing (policy, framework, size) are averaged, with a warning if they differ.  Failed
cells are skipped with a warning.  Exit status: 0, or 2 on a user error (unreadable file,
missing column, nothing to plot, unwritable figure) with a one-line message on stderr.
"""

from __future__ import annotations

import argparse
import math
import os
import sys


import matplotlib  # noqa: E402

matplotlib.use("Agg")  # headless rendering; must precede any pyplot import

from matplotlib.figure import Figure  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

from . import results  # noqa: E402
from .results import ResultsError  # noqa: E402
from .style import MIB, RC, figure_title, line_style, save  # noqa: E402

PROG = "hit_ratio_wa"
REQUIRED = ("policy.name", "framework.name", "cache_capacity_bytes", "object_hit_ratio")
FRAMEWORK_ORDER = ("exact", "ripq", "sipq")


def _label(row) -> str:
    name = results.text(row, "policy.name")
    if name in ("slru", "gdsf"):
        return f"{name}-{results.text(row, 'policy.segments')}"
    return name


def _optional(row, col: str, where: str):
    return None if results.blank(row, col) else results.num(row, col, where)


def load_tradeoff(path: str) -> list[dict]:
    """:func:`tradeoff_records` of the successful rows of the results file *path*.  Raises
    :class:`ResultsError` as load_results."""
    return tradeoff_records(results.load_results(path, REQUIRED, prog=PROG), path)


def tradeoff_records(rows, source: str = "") -> list[dict]:
    """One record per (policy label, framework, cache bytes) of *rows* (successful rows with
    the :data:`REQUIRED` columns), averaged over its cells: keys policy, framework,
    capacity_bytes, working_set_bytes (or None), hit_ratio, wa_impl, wa_ftl, wa_combined (None
    when empty or absent), trace, experiment.  Messages name *source* (the file) when set.
    Raises :class:`ResultsError` on a malformed value."""
    groups: dict[tuple, list[dict]] = {}
    for row in rows:
        where = results.at(source, row.where)
        notes = results.text(row, "notes")
        if notes:
            results.warn(PROG, f"{where}: configuration note: {notes}")
        rec = {
            "policy": _label(row),
            "framework": results.text(row, "framework.name"),
            "capacity_bytes": results.num(row, "cache_capacity_bytes", where, int),
            "working_set_bytes": _optional(row, "trace_working_set_bytes", where),
            "hit_ratio": results.value(row, "object_hit_ratio", where, lo=0.0, hi=1.0),
            "wa_impl": _optional(row, "wa_implementation", where),
            "wa_ftl": _optional(row, "wa_ftl", where),
            "wa_combined": _optional(row, "wa_combined", where),
            "trace": results.text(row, "trace.path"),
            "experiment": results.text(row, "experiment"),
        }
        groups.setdefault((rec["policy"], rec["framework"], rec["capacity_bytes"]), []).append(rec)
    out = []
    for key, recs in groups.items():
        rec = dict(recs[0])
        for col in ("hit_ratio", "wa_impl", "wa_ftl", "wa_combined"):
            vals = [r[col] for r in recs if r[col] is not None]
            if len(set(vals)) > 1:
                results.warn(PROG, results.at(source, f"{col} differs between the {len(recs)} "
                                                      f"cells of {key[0]} / {key[1]} at "
                                                      f"{key[2]} B; averaged"))
            rec[col] = sum(vals) / len(vals) if vals else None
        out.append(rec)
    return out


def _order(records: list[dict]):
    policies = list(dict.fromkeys(r["policy"] for r in records))
    met = list(dict.fromkeys(r["framework"] for r in records))
    frameworks = [f for f in FRAMEWORK_ORDER if f in met] + [f for f in met
                                                             if f not in FRAMEWORK_ORDER]
    return policies, frameworks


def _x(rec) -> float:
    ws = rec["working_set_bytes"]
    return 100.0 * rec["capacity_bytes"] / ws if ws else rec["capacity_bytes"] / MIB


def _x_is_percent(records) -> bool:
    return all(r["working_set_bytes"] for r in records)


# The two kinds of WA in the bottom row: (record key, legend text, marker face "filled" or
# "hollow").  Both are drawn in the framework's colour, marker and dash (style.py).
WA_KINDS = (("wa_combined", "combined WA (filled markers)", "filled"),
            ("wa_impl", "implementation WA (hollow markers)", "hollow"))


def draw_tradeoff(records: list[dict], out_path: str | None,
                  title: str | None = None) -> Figure:
    """Draws the figure (see the module docstring), writes it to *out_path* (unless None) and
    returns it.

    The legend above the panels holds one line per framework drawn, then one key per kind of
    WA drawn (:data:`WA_KINDS`); the WA axis names the FTL factor only when both kinds are
    drawn.  *title* None: "EXPERIMENT: hit ratio and write amplification on flash — TRACE".
    Raises :class:`ResultsError` when there is nothing to draw or the file cannot be written."""
    if not records:
        raise ResultsError("no rows to plot")
    policies, frameworks = _order(records)
    percent = _x_is_percent(records)
    has_wa = {f: any(r["wa_combined"] is not None or r["wa_impl"] is not None
                     for r in records if r["framework"] == f) for f in frameworks}
    xs = [_x(r) for r in records]
    log_x = max(xs) > 10 * min(xs) > 0
    with matplotlib.rc_context(RC):
        fig = Figure(figsize=(2.6 * len(policies) + 0.6, 5.2))
        axes = fig.subplots(2, len(policies), sharex="col", squeeze=False)
        handles = {}
        kinds_drawn: set[str] = set()
        for j, policy in enumerate(policies):
            top, bottom = axes[0][j], axes[1][j]
            top.set_title(policy)
            for f in frameworks:
                recs = sorted((r for r in records if r["policy"] == policy and r["framework"] == f),
                              key=_x)
                if not recs:
                    continue
                # One panel per policy: the series differ by framework only, so colour, marker
                # and dash are the framework's; the exact queue alone in the reference style.
                style = line_style(framework=f, alone=len(frameworks) == 1)
                x = [_x(r) for r in recs]
                (line,) = top.plot(x, [r["hit_ratio"] for r in recs], label=f, **style)
                handles.setdefault(f, line)
                for key, _text, face in WA_KINDS:
                    pts = [(xi, r[key]) for xi, r in zip(x, recs) if r[key] is not None]
                    if not pts:
                        continue
                    kinds_drawn.add(key)
                    kw = dict(style)
                    if face == "hollow":  # on top of the combined line, small: both show
                        kw.update(markerfacecolor="white", linewidth=0.9, alpha=1.0,
                                  markersize=3.5, zorder=4)
                    else:
                        kw.update(markersize=5.5)
                    bottom.plot(*zip(*pts), label=f"{f} {key}", **kw)
            bottom.axhline(1.0, color="0.5", linestyle=":", linewidth=0.8, label="WA = 1")
            if log_x:
                top.set_xscale("log")
                bottom.set_xscale("log")
            bottom.set_xlabel("cache size (% of working set)" if percent else "cache size (MiB)")
        axes[0][0].set_ylabel("object-wise hit ratio")
        axes[1][0].set_ylabel(
            "write amplification\n(FTL WA = combined ÷ implementation)"
            if len(kinds_drawn) == 2 else "write amplification")
        for ax_row in axes:  # one y scale per row, so panels compare at a glance
            lo = min(ax.get_ylim()[0] for ax in ax_row)
            hi = max(ax.get_ylim()[1] for ax in ax_row)
            for ax in ax_row:
                ax.set_ylim(lo, hi)
        legend_handles = list(handles.values())
        labels = [f if has_wa[f] else f"{f} (DRAM only)" for f in handles]
        for key, text, face in WA_KINDS:
            if key in kinds_drawn:
                legend_handles.append(Line2D([], [], color="0.35", marker="o", linestyle="none",
                                             markersize=5,
                                             markerfacecolor="white" if face == "hollow"
                                             else "0.35"))
                labels.append(text)
        fig.legend(legend_handles, labels, loc="upper center", ncol=len(legend_handles),
                   frameon=False, bbox_to_anchor=(0.5, 1.0))
        trace = next((r["trace"] for r in records if r["trace"]), "")
        fig.suptitle(figure_title(title, results.experiment_name(records),
                                  "hit ratio and write amplification on flash",
                                  os.path.basename(trace)), y=1.05)
        fig.tight_layout()
        if out_path is not None:  # None: the caller saves (flashpq.plots.save)
            save(fig, out_path)
    return fig


def _fmt(v, digits: int) -> str:
    return "—" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.{digits}f}"


def format_table(records: list[dict]) -> str:
    """The figure's numbers as a fixed-width table, one line per (policy, cache size), sorted by
    policy (order met) then size: the object-wise hit ratio of each framework (``FW hit``, 4
    decimals) and, for frameworks with WA, the combined WA (``FW WA``, 2 decimals; "—" when a
    cell lacks it)."""
    policies, frameworks = _order(records)
    percent = _x_is_percent(records)
    with_wa = [f for f in frameworks if any(r["wa_combined"] is not None
                                            for r in records if r["framework"] == f)]
    header = ["policy", "cache"] + [f"{f} hit" for f in frameworks] + [f"{f} WA" for f in with_wa]
    by_key = {(r["policy"], r["capacity_bytes"], r["framework"]): r for r in records}
    lines = []
    for policy, cap in sorted({(r["policy"], r["capacity_bytes"]) for r in records},
                              key=lambda k: (policies.index(k[0]), k[1])):
        rep = next(r for r in records if r["policy"] == policy and r["capacity_bytes"] == cap)
        size = f"{cap / MIB:.1f} MiB"
        cells = [policy, f"{_x(rep):g} % ({size})" if percent else size]
        for f in frameworks:
            r = by_key.get((policy, cap, f))
            cells.append(_fmt(r["hit_ratio"] if r else None, 4))
        for f in with_wa:
            r = by_key.get((policy, cap, f))
            cells.append(_fmt(r["wa_combined"] if r else None, 2))
        lines.append(cells)
    widths = [max(len(h), *(len(l[i]) for l in lines)) for i, h in enumerate(header)]

    def fmt_line(cells):
        return "  ".join(c.ljust(w) if i < 2 else c.rjust(w)
                         for i, (c, w) in enumerate(zip(cells, widths))).rstrip()

    caption = "hit: object-wise hit ratio; WA: combined write amplification (FTL x implementation)"
    return "\n".join([caption, fmt_line(header)] + [fmt_line(l) for l in lines])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    ap.add_argument("results", help="FlashPQ results file (CSV or JSON Lines)")
    ap.add_argument("-o", "--output", required=True, help="figure to write (PNG, PDF, ...)")
    ap.add_argument("--title", default=None)
    ap.add_argument("--no-table", action="store_true", help="print no table")
    args = ap.parse_args(argv)
    records: list[dict] = []

    def load(path):
        records.extend(load_tradeoff(path))
        return records

    rc = results.run_figure_command(PROG, args.results, args.output, load,
                                    lambda recs: draw_tradeoff(recs, args.output, args.title))
    if rc == 0:
        if not args.no_table:
            print(format_table(records))
        print(f"results: {args.results}")
        print(f"figure: {args.output}")
    return rc


if __name__ == "__main__":
    sys.exit(main())
