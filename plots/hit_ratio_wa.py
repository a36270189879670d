#!/usr/bin/python3
"""What a policy earns in hit ratio and costs in write amplification on flash, per framework.

The trade-off of the RIPQ paper's Figure 8 (FAST'15: 8a object-wise hit ratio of the exact
queue, RIPQ and SIPQ; 8b their combined write amplification = FTL WA x implementation WA),
drawn against cache size for each policy.  ``make demo`` draws the quickstart with it.

Usage::

    /usr/bin/python3 plots/hit_ratio_wa.py RESULTS -o FIGURE.png [--title T] [--no-table]

Input: a FlashPQ results file, CSV or JSON Lines (plots/results.py).  Columns used:

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
trace.path                optional: the default title is its base name
notes                     optional: a cell's configuration warnings, repeated on stderr
========================  ===============================================================

Output: a figure of two rows and one column per policy (in the order met).  Top: object-wise
hit ratio against cache size, one line per framework (colour and marker per framework, the same
in every panel).  Bottom: combined WA, solid, and implementation WA, dashed, in the framework's
colour: the gap between them is the FTL's factor; a dotted line marks WA = 1.  A framework
without WA (exact, objects in DRAM only) has no line there and "(DRAM only)" in the legend.
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

if __package__ in (None, ""):  # run as a script: make ``plots`` importable
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import matplotlib  # noqa: E402

matplotlib.use("Agg")  # headless rendering; must precede any pyplot import

from matplotlib.figure import Figure  # noqa: E402

from plots import results  # noqa: E402
from plots.results import ResultsError  # noqa: E402
from plots.style import COLORS, MARKERS, MIB, RC, save  # noqa: E402

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
    """One record per (policy label, framework, cache bytes), averaged over its cells: keys
    policy, framework, capacity_bytes, working_set_bytes (or None), hit_ratio, wa_impl, wa_ftl,
    wa_combined (None when empty), trace.  Raises :class:`ResultsError` as load_results."""
    rows = results.load_results(path, REQUIRED, prog=PROG)
    groups: dict[tuple, list[dict]] = {}
    for row in rows:
        where = f"{path}: {row.where}"
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
        }
        groups.setdefault((rec["policy"], rec["framework"], rec["capacity_bytes"]), []).append(rec)
    out = []
    for key, recs in groups.items():
        rec = dict(recs[0])
        for col in ("hit_ratio", "wa_impl", "wa_ftl", "wa_combined"):
            vals = [r[col] for r in recs if r[col] is not None]
            if len(set(vals)) > 1:
                results.warn(PROG, f"{path}: {col} differs between the {len(recs)} cells of "
                                   f"{key[0]} / {key[1]} at {key[2]} B; averaged")
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


def draw_tradeoff(records: list[dict], out_path: str, title: str | None = None) -> Figure:
    """Draws the figure (see the module docstring), writes it to *out_path* and returns it.
    Raises :class:`ResultsError` when there is nothing to draw or the file cannot be written."""
    if not records:
        raise ResultsError("no rows to plot")
    policies, frameworks = _order(records)
    percent = _x_is_percent(records)
    style = {f: (COLORS[i % len(COLORS)], MARKERS[i % len(MARKERS)])
             for i, f in enumerate(frameworks)}
    has_wa = {f: any(r["wa_combined"] is not None or r["wa_impl"] is not None
                     for r in records if r["framework"] == f) for f in frameworks}
    xs = [_x(r) for r in records]
    log_x = max(xs) > 10 * min(xs) > 0
    with matplotlib.rc_context(RC):
        fig = Figure(figsize=(2.6 * len(policies) + 0.6, 5.2))
        axes = fig.subplots(2, len(policies), sharex="col", squeeze=False)
        handles = {}
        for j, policy in enumerate(policies):
            top, bottom = axes[0][j], axes[1][j]
            top.set_title(policy)
            for f in frameworks:
                recs = sorted((r for r in records if r["policy"] == policy and r["framework"] == f),
                              key=_x)
                if not recs:
                    continue
                color, marker = style[f]
                x = [_x(r) for r in recs]
                # The reference (exact, first) drawn wide beneath the others, so it shows where
                # they coincide.
                wide = f == frameworks[0]
                (line,) = top.plot(x, [r["hit_ratio"] for r in recs], color=color, marker=marker,
                                   markersize=6 if wide else 4, linewidth=3.0 if wide else 1.4,
                                   alpha=0.55 if wide else 1.0, zorder=1 if wide else 2)
                handles.setdefault(f, line)
                combined = [(xi, r["wa_combined"]) for xi, r in zip(x, recs)
                            if r["wa_combined"] is not None]
                impl = [(xi, r["wa_impl"]) for xi, r in zip(x, recs) if r["wa_impl"] is not None]
                if combined:
                    bottom.plot(*zip(*combined), color=color, marker=marker, markersize=4,
                                linewidth=1.4)
                if impl:
                    bottom.plot(*zip(*impl), color=color, linestyle="--", linewidth=0.9)
            bottom.axhline(1.0, color="0.5", linestyle=":", linewidth=0.8)
            if log_x:
                top.set_xscale("log")
                bottom.set_xscale("log")
            bottom.set_xlabel("cache size (% of working set)" if percent else "cache size (MiB)")
        axes[0][0].set_ylabel("object-wise hit ratio")
        axes[1][0].set_ylabel("write amplification\n(solid: combined, dashed: implementation;\n"
                              "FTL WA = combined ÷ implementation)")
        for ax_row in axes:  # one y scale per row, so panels compare at a glance
            lo = min(ax.get_ylim()[0] for ax in ax_row)
            hi = max(ax.get_ylim()[1] for ax in ax_row)
            for ax in ax_row:
                ax.set_ylim(lo, hi)
        labels = [f if has_wa[f] else f"{f} (DRAM only)" for f in handles]
        fig.legend(list(handles.values()), labels, loc="upper center", ncol=len(handles),
                   frameon=False, bbox_to_anchor=(0.5, 1.0))
        trace = next((r["trace"] for r in records if r["trace"]), "")
        name = title if title is not None else (os.path.basename(trace) if trace else "")
        fig.suptitle(f"{name}: hit ratio and write amplification on flash" if name else
                     "hit ratio and write amplification on flash", y=1.05)
        fig.tight_layout()
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
