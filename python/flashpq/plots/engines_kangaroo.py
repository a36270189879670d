"""Kangaroo's claim in shape: the best miss ratio of each flash design under one DRAM budget and
one write-rate budget (Kangaroo, SOSP'21, the headline result and its miss ratio against DRAM).

Usage::

    /usr/bin/python3 plots/engines_kangaroo.py select RESULTS.csv [RESULTS.csv ...] -o FIG.png \\
        [--table PREFIX] [--write-dwpd 3] [--budgets 4.625,9.25,18.5,37,74] [--headline 18.5] \\
        [--ls-index-bits 30] [--title T]
    plots/engines_kangaroo.py plan --flash 32MiB --mean-object-bytes 226.53   # prints YAML

The experiments are experiments/engines/kangaroo_*.yaml and their README says what they show.
Three designs share one flash of F bytes behind a DRAM LRU (a hierarchy, tiers.mode wt):

* **Kangaroo** (framework kangaroo), **SA** the set-associative design (bighash: navy's BigHash)
  and **LS** the log-structured one (blockcache: navy's BlockCache with its full DRAM index);
* a DRAM budget of b bits per flash object: D = b x F / s / 8 bytes, s the trace's mean object
  size (working-set bytes / objects), as the paper counts "bits per object";
* each design is charged its index, ``dram_index_bytes_per_object`` x ``cached_objects`` (the
  paper's accounting: SA its Bloom filters, Kangaroo 48 b per KLog object, 1 b per KSet object,
  a chain head and a Bloom filter per set; LS 12 B per object), plus the DRAM tier
  (``tiers.dram_capacity``); the rest of D is the DRAM LRU, as the authors' simulator gives it;
* one write budget, ``--write-dwpd`` (3, the paper's DWPD) drive writes of F per day, applied
  to ``flash_write_rate_mib_s`` (host writes over the trace's measured seconds).

``plan`` prints the ``zip:`` block of such an experiment: for each DRAM budget, each design's
configuration (flash it may use, DRAM tier) so that its DRAM fits, from the accounting above
(LS: the capacity whose objects' index takes a share ``--ls-splits`` of D, the rest the DRAM
LRU; Kangaroo: the accounting at a full cache, an upper bound; SA: 8 B per 4 KiB bucket).

``select`` keeps, for each results file (one workload), design and DRAM budget, the cell of the
lowest miss ratio (1 - ``object_hit_ratio``) among those whose DRAM (tier + index) fits the
budget and whose write rate is within the write budget, the post-hoc selection of the authors'
simulator (graph-scripts/dram_perc_vs_mr.py).  It prints a Markdown table, writes it with
``--table PREFIX`` as PREFIX.md and every selected cell as PREFIX.csv, and draws the figure: miss
ratio against the DRAM budget, one panel per workload, one line per design, the paper's three
headline miss ratios (Facebook trace, 16 GB = 18.5 bits per object) as hollow markers.  It also
prints the best miss ratios at the headline budget for write budgets of 1/4 to 4 times the one
chosen, and none.  ``--ls-index-bits`` charges LS that many bits per object instead of its
measured 12 B (the simulator's "generous" 30 bits).

Exit status 0, or 2 with ``engines_kangaroo.py: error: MESSAGE`` on a bad file.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys


import matplotlib  # noqa: E402

matplotlib.use("Agg")  # headless rendering; must precede any pyplot import

from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

from .results import ResultsError  # noqa: E402
from .style import RC, SeriesStyle, figure_title, save  # noqa: E402

PROG = "engines_kangaroo.py"

# The designs, by framework: their label and style (the paper's colours, graph-scripts/
# parameters.py: Kangaroo orange, SA navy, LS cyan; marker and dash apart for grey print).
DESIGNS = {"kangaroo": "Kangaroo", "bighash": "SA (BigHash)", "blockcache": "LS (BlockCache)"}
DESIGN_STYLES = {
    "Kangaroo": SeriesStyle("#ff7f0e", "o", "-", ""),
    "SA (BigHash)": SeriesStyle("#000080", "s", "--", ""),
    "LS (BlockCache)": SeriesStyle("#00d4ff", "^", ":", ""),
}
# The paper's headline (docs/reference/kangaroo-spec.md §4.2: graph-scripts/
# miss_ratio_kangaroo_params.py:23-26): 16 GB of DRAM, 1.9 TiB of flash, 62.5 MB/s, FB trace.
PAPER = {"Kangaroo": 0.20435, "SA (BigHash)": 0.28970, "LS (BlockCache)": 0.46148}
PAPER_BITS = 18.5          # 16 GiB x 8 / (6666 MiB x 300 / 291 B): bits per flash object
PAPER_GB_PER_BIT = 16 / PAPER_BITS   # the paper's DRAM in GB for b bits per object
DEFAULT_BUDGETS = (4.625, 9.25, 18.5, 37.0, 74.0)   # 18.5 x 1/4 .. 4
SENSITIVITY = (0.25, 0.5, 1.0, 2.0, 4.0, math.inf)
MIB = 2 ** 20
UNITS = {"": 1, "B": 1, "KIB": 2 ** 10, "MIB": 2 ** 20, "GIB": 2 ** 30, "KB": 1000,
         "MB": 1000 ** 2, "GB": 1000 ** 3}


def parse_bytes(text) -> float:
    """Bytes from an integer or a size with a unit (256KiB, 1.5MiB)."""
    if isinstance(text, (int, float)) and not (isinstance(text, float) and math.isnan(text)):
        return float(text)
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([KMG]i?B|B)?\s*", str(text), re.I)
    if not m:
        raise ResultsError(f"not a size in bytes: {text!r}")
    return float(m.group(1)) * UNITS[(m.group(2) or "").upper()]


def floats(text: str) -> list[float]:
    return [float(x) for x in text.split(",") if x.strip()]


# --------------------------------------------------------------------------------------------
# plan
# --------------------------------------------------------------------------------------------

def kangaroo_dram_bytes(flash: float, mean: float, log_pct: float = 5.0,
                        segment: float = 256 * 1024, page: float = 4096, set_bytes: float = 4096,
                        bloom_bits: int = 64) -> float:
    """Kangaroo's index DRAM (engine/kangaroo/kangaroo_queue.h modelled_dram_index_bytes) at a
    full cache of *flash* bytes and objects of *mean* bytes: 48 b per KLog object, 1 b per KSet
    object, 16 + bloom bits per set.  Log: log_pct of the flash in whole segments; pages and sets
    of 24-byte headers, entries of size + 6 (log) and size + 14 (set) bytes."""
    log = math.floor(flash * log_pct / 100 / segment) * segment
    log_objects = log / page * math.floor((page - 24) / (mean + 6))
    sets = math.floor((flash - log) / set_bytes)
    set_objects = sets * (set_bytes - 24) / (mean + 14)
    return (48 * log_objects + set_objects + (16 + bloom_bits) * sets) / 8


def plan(flash: float, mean: float, budgets, splits, ls_bytes_per_object: float,
         ls_index_bytes: float, region: float, margin: float, extra_ls_bits, headline: float,
         segment: float = 64 * 1024):
    """[(comment, framework, capacity bytes, DRAM tier bytes)] of the experiment's zip."""
    objects = flash / mean
    sa_index = flash / 4096 * 8
    k_index = kangaroo_dram_bytes(flash, mean, segment=segment) * (1 + margin)
    out = []
    for b in budgets:
        dram = b * objects / 8 * (1 - 5e-4)   # slack for the mean's rounding
        if dram - sa_index >= 1:
            out.append((f"{b:g} b/obj: SA, index {sa_index:.0f} B", "bighash", int(flash),
                        int(dram - sa_index)))
        if dram - k_index >= 1:
            out.append((f"{b:g} b/obj: Kangaroo, index <= {k_index:.0f} B", "kangaroo",
                        int(flash), int(dram - k_index)))
        seen = set()
        for s in splits:
            n = s * dram / ls_index_bytes / (1 + margin)
            cap = min(flash, math.floor(n * ls_bytes_per_object / region) * region)
            if cap < 3 * region or cap in seen:
                continue
            seen.add(cap)
            index = cap / ls_bytes_per_object * ls_index_bytes * (1 + margin)
            if dram - index >= 1:
                out.append((f"{b:g} b/obj: LS, {cap / flash:.3f} of the flash, index <= "
                            f"{index:.0f} B", "blockcache", int(cap), int(dram - index)))
    for bits in extra_ls_bits:   # LS on all the flash under a cheaper index, at the headline
        dram = headline * objects / 8 * (1 - 5e-4)
        index = flash / ls_bytes_per_object * bits / 8 * (1 + margin)
        if dram - index >= 1:
            out.append((f"{headline:g} b/obj: LS on all the flash at {bits:g} index bits/object",
                        "blockcache", int(flash), int(dram - index)))
    return out


def print_plan(rows) -> str:
    lines = ["zip:   # " + f"{len(rows)} configurations (plots/engines_kangaroo.py plan)"]
    for key, i in (("framework.name", 1), ("cache.capacity", 2), ("tiers.dram_capacity", 3)):
        lines.append(f"  {key}:")
        for r in rows:
            lines.append(f"    - {str(r[i]).ljust(10)}   # {r[0]}")
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# select
# --------------------------------------------------------------------------------------------

def load(path: str):
    """The successful rows of *path* with the columns the selection derives.  Raises
    ResultsError on a missing file or column."""
    import pandas as pd
    try:
        df = pd.read_json(path, lines=True) if path.endswith((".jsonl", ".json")) \
            else pd.read_csv(path)
    except (OSError, ValueError) as e:
        raise ResultsError(f"{path}: cannot read results: {e}") from None
    need = ["experiment", "framework.name", "cache_capacity_bytes", "object_hit_ratio",
            "cached_objects", "dram_index_bytes_per_object", "flash_write_rate_mib_s",
            "trace_working_set_bytes", "trace_unique_objects"]
    missing = [c for c in need if c not in df.columns]
    if missing:
        raise ResultsError(f"{path}: missing column(s) {', '.join(missing)}")
    if "error" in df.columns:
        failed = df["error"].fillna("").astype(str).str.len() > 0
        for _, r in df[failed].iterrows():
            print(f"{PROG}: warning: {path}: skipping failed cell {r.get('cell', '?')}: "
                  f"{r['error']}", file=sys.stderr)
        df = df[~failed]
    df = df[df["framework.name"].isin(list(DESIGNS))].copy()
    if df.empty:
        raise ResultsError(f"{path}: no successful kangaroo, bighash or blockcache cells")
    return df


def _column(df, name, default):
    """*name* of *df*, or a column of *default* when the file has none (an absent column reads
    as an empty one)."""
    import pandas as pd
    return df[name] if name in df.columns else pd.Series(default, index=df.index)


def derive(df, flash: float | None, ls_index_bits: float | None):
    """Adds design, miss_ratio, dram_tier_bytes, index_bytes, dram_bytes, admit (the product of
    the tier's random admission and Kangaroo's pre-log one) and write_dwpd; returns (df, flash
    bytes, mean object bytes)."""
    if flash is None:
        sets = df[df["framework.name"].isin(["kangaroo", "bighash"])]
        flash = float((sets if not sets.empty else df)["cache_capacity_bytes"].max())
    mean = float(df["trace_working_set_bytes"].iloc[0]) / float(df["trace_unique_objects"].iloc[0])
    fw = df["framework.name"]
    df["design"] = fw.map(DESIGNS)
    df["miss_ratio"] = 1.0 - df["object_hit_ratio"]
    # The DRAM tier: a hierarchy (tiers.mode not none) with its DRAM tier on.
    has_tier = (_column(df, "tiers.mode", "none").fillna("none").astype(str) != "none") & \
        (_column(df, "tiers.dram", "true").astype(str).str.lower() != "false")
    capacity = _column(df, "tiers.dram_capacity", 0)
    df["dram_tier_bytes"] = [parse_bytes(c) if on else 0.0 for c, on in zip(capacity, has_tier)]
    per_object = df["dram_index_bytes_per_object"].fillna(0.0)
    if ls_index_bits is not None:
        per_object = per_object.where(fw != "blockcache", ls_index_bits / 8)
    df["index_bytes"] = per_object * df["cached_objects"].fillna(0)
    df["dram_bytes"] = df["dram_tier_bytes"] + df["index_bytes"]
    random = _column(df, "tiers.flash_admission", "").astype(str) == "random"
    tier_p = _column(df, "tiers.admit_probability", 1.0).astype(float).where(random, 1.0)
    own_p = _column(df, "framework.kangaroo_admission_probability", 1.0).astype(float) \
        .where(fw == "kangaroo", 1.0).fillna(1.0)
    df["admit"] = tier_p * own_p
    df["write_dwpd"] = df["flash_write_rate_mib_s"] * MIB * 86400 / flash
    return df, flash, mean


def best(df, dram_budget: float, write_budget: float):
    """The row of the lowest miss ratio whose DRAM and write rate fit, or None."""
    ok = df[(df["dram_bytes"] <= dram_budget) & (df["flash_write_rate_mib_s"] <= write_budget)]
    if ok.empty:
        return None, 0
    return ok.sort_values(["miss_ratio", "flash_write_rate_mib_s"]).iloc[0], len(ok)


def select(paths, budgets, write_dwpd, flash_override, ls_index_bits):
    """[(workload, flash, mean, write budget MiB/s, df)] and the selected rows as dicts."""
    workloads, chosen = [], []
    for path in paths:
        df = load(path)
        df, flash, mean = derive(df, flash_override, ls_index_bits)
        name = str(df["experiment"].iloc[0])
        write_budget = write_dwpd * flash / 86400 / MIB
        workloads.append((name, flash, mean, write_budget, df))
        for design in DESIGNS.values():
            d = df[df["design"] == design]
            for b in budgets:
                dram = b * flash / mean / 8
                row, n = best(d, dram, write_budget)
                rec = {"workload": name, "design": design, "dram_bits_per_object": b,
                       "dram_budget_bytes": round(dram), "write_budget_mib_s": write_budget,
                       "feasible_cells": n, "cells": len(d)}
                if row is not None:
                    rec.update({
                        "miss_ratio": row["miss_ratio"], "cell": int(row["cell"]),
                        "admit_probability": row["admit"],
                        "flash_bytes_used": int(row["cache_capacity_bytes"]),
                        "dram_tier_bytes": int(row["dram_tier_bytes"]),
                        "index_bytes": round(row["index_bytes"]),
                        "dram_used_bytes": round(row["dram_bytes"]),
                        "flash_write_rate_mib_s": row["flash_write_rate_mib_s"],
                        "write_dwpd": row["write_dwpd"],
                        "dram_hit_ratio": row.get("dram_hit_ratio", math.nan),
                        "flash_hit_ratio": row.get("flash_hit_ratio", math.nan),
                        "wa_implementation": row.get("wa_implementation", math.nan)})
                chosen.append(rec)
    return workloads, chosen


def _f(v, fmt="{:.4f}") -> str:
    return "—" if v is None or (isinstance(v, float) and math.isnan(v)) else fmt.format(v)


def markdown(chosen, budgets, headline) -> str:
    out = []
    for w in dict.fromkeys(r["workload"] for r in chosen):
        rows = [r for r in chosen if r["workload"] == w]
        out.append(f"**{w}** (miss ratio; in brackets: admission probability, share of the flash "
                   "used, DRAM LRU KiB)\n")
        out.append("| DRAM (bits/object) | paper scale | " + " | ".join(DESIGNS.values()) +
                   " | Kangaroo vs SA | Kangaroo vs LS |")
        out.append("|---:|---:|" + "---|" * len(DESIGNS) + "---:|---:|")
        for b in budgets:
            by = {r["design"]: r for r in rows if r["dram_bits_per_object"] == b}
            cells = []
            for d in DESIGNS.values():
                r = by.get(d, {})
                if "miss_ratio" not in r:
                    cells.append("no configuration fits")
                    continue
                cells.append(f"{r['miss_ratio']:.4f} ({r['admit_probability']:.2g}, "
                             f"{r['flash_share']:.2f}, {r['dram_tier_bytes'] / 1024:.0f})")
            k = by.get("Kangaroo", {}).get("miss_ratio")
            red = []
            for other in ("SA (BigHash)", "LS (BlockCache)"):
                o = by.get(other, {}).get("miss_ratio")
                red.append(reduction(k, o) if k is not None and o else "—")
            mark = " (headline)" if b == headline else ""
            out.append(f"| {b:g}{mark} | {b * PAPER_GB_PER_BIT:.1f} GB | " + " | ".join(cells) +
                       " | " + " | ".join(red) + " |")
        out.append("")
    return "\n".join(out)


def reduction(k: float, o: float) -> str:
    """Kangaroo's misses relative to another design's: "29.5 % fewer" or "12.0 % more"."""
    r = 1 - k / o
    return f"{100 * r:.1f} % fewer" if r >= 0 else f"{-100 * r:.1f} % more"


def sensitivity(workloads, headline) -> str:
    out = ["Best miss ratio at the headline DRAM budget for other write budgets "
           "(multiples of the one chosen):", ""]
    out.append("| workload | write budget | " + " | ".join(DESIGNS.values()) + " |")
    out.append("|---|---:|" + "---:|" * len(DESIGNS))
    for name, flash, mean, wb, df in workloads:
        dram = headline * flash / mean / 8
        for m in SENSITIVITY:
            cells = []
            for d in DESIGNS.values():
                row, _ = best(df[df["design"] == d], dram, wb * m)
                cells.append(_f(None if row is None else row["miss_ratio"]) +
                             ("" if row is None else f" (p {row['admit']:.2g})"))
            label = "none" if math.isinf(m) else f"{m:g}x = {wb * m * MIB * 86400 / flash:.3g} DWPD"
            out.append(f"| {name} | {label} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def draw(workloads, chosen, budgets, out_path, title, write_dwpd):
    names = [w[0] for w in workloads]
    subtitle = {w[0]: f"{w[0]}\nflash {w[1] / MIB:g} MiB, objects of {w[2]:.0f} B on average"
                for w in workloads}
    with matplotlib.rc_context(RC):
        fig = Figure(figsize=(3.4 * len(names) + 0.4, 3.4))
        FigureCanvasAgg(fig)
        axes = fig.subplots(1, len(names), squeeze=False)[0]
        handles = {}
        for ax, name in zip(axes, names):
            rows = [r for r in chosen if r["workload"] == name and "miss_ratio" in r]
            for design in DESIGNS.values():
                pts = sorted((r["dram_bits_per_object"], r["miss_ratio"]) for r in rows
                             if r["design"] == design)
                st = DESIGN_STYLES[design]
                if pts:
                    (line,) = ax.plot(*zip(*pts), color=st.color, marker=st.marker,
                                      linestyle=st.dash, linewidth=1.4, markersize=4.5,
                                      label=design)
                    handles.setdefault(design, line)
                ax.plot([PAPER_BITS], [PAPER[design]], linestyle="none", marker=st.marker,
                        markersize=7, markerfacecolor="none", markeredgecolor=st.color,
                        markeredgewidth=1.2)
            ax.set_xscale("log", base=2)
            ax.set_xticks(budgets)
            ax.set_xticklabels([f"{b:g}" for b in budgets])
            ax.minorticks_off()
            ax.set_xlabel("DRAM budget (bits per flash object)")
            ax.set_title(subtitle[name])
            ax.set_ylim(0, max(0.6, ax.get_ylim()[1]))
            top = ax.secondary_xaxis("top", functions=(lambda b: b * PAPER_GB_PER_BIT,
                                                       lambda g: g / PAPER_GB_PER_BIT))
            top.set_xticks([b * PAPER_GB_PER_BIT for b in budgets])
            top.set_xticklabels([f"{b * PAPER_GB_PER_BIT:.0f}" for b in budgets])
            top.minorticks_off()
            top.set_xlabel("DRAM at the paper's scale (GB, 1.9 TiB flash)")
        axes[0].set_ylabel("miss ratio")
        legend = list(handles.values()) + [
            Line2D([], [], linestyle="none", marker="o", markerfacecolor="none",
                   markeredgecolor="0.3", markersize=7)]
        labels = list(handles) + ["paper (FB trace, 16 GB, 62.5 MB/s)"]
        fig.legend(legend, labels, loc="upper center", ncol=len(legend), frameon=False,
                   bbox_to_anchor=(0.5, 1.0))
        fig.suptitle(figure_title(title, "", f"miss ratio against DRAM, writes <= {write_dwpd:g} "
                                             "drive writes/day"), y=1.08)
        fig.tight_layout()
        if out_path is not None:  # None: the caller saves (flashpq.plots.save)
            save(fig, out_path)
    return fig


def write_table(chosen, prefix: str, md: str) -> None:
    import pandas as pd
    os.makedirs(os.path.dirname(os.path.abspath(prefix)), exist_ok=True)
    pd.DataFrame(chosen).to_csv(prefix + ".csv", index=False)
    with open(prefix + ".md", "w", encoding="utf-8") as f:
        f.write(md + "\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("plan", help="print an experiment's zip block")
    p.add_argument("--flash", required=True, help="flash bytes F (32MiB)")
    p.add_argument("--mean-object-bytes", type=float, required=True)
    p.add_argument("--budgets", default=",".join(f"{b:g}" for b in DEFAULT_BUDGETS))
    p.add_argument("--headline", type=float, default=PAPER_BITS)
    p.add_argument("--ls-splits", default="0.5,0.9",
                   help="LS: shares of the DRAM budget its index may take")
    p.add_argument("--ls-bytes-per-object", type=float, default=537.0,
                   help="LS: flash bytes per cached object (512-B slots; measured)")
    p.add_argument("--ls-index-bytes", type=float, default=12.0)
    p.add_argument("--ls-extra-index-bits", default="30",
                   help="LS on all the flash at the headline under these index bits ('' none)")
    p.add_argument("--region", default="64KiB", help="LS region (blockcache_region_size)")
    p.add_argument("--segment", default="64KiB", help="KLog segment (kangaroo_segment_size)")
    p.add_argument("--margin", type=float, default=0.03)
    s = sub.add_parser("select", help="select, tabulate and draw")
    s.add_argument("results", nargs="+")
    s.add_argument("-o", "--output", required=True)
    s.add_argument("--table", default=None, help="write PREFIX.csv and PREFIX.md")
    s.add_argument("--budgets", default=",".join(f"{b:g}" for b in DEFAULT_BUDGETS))
    s.add_argument("--headline", type=float, default=PAPER_BITS)
    s.add_argument("--write-dwpd", type=float, default=3.0)
    s.add_argument("--flash", default=None, help="flash bytes (default: the largest SA/Kangaroo "
                                                 "cache of each file)")
    s.add_argument("--ls-index-bits", type=float, default=None)
    s.add_argument("--title", default=None)
    a = ap.parse_args(argv)
    try:
        if a.command == "plan":
            rows = plan(parse_bytes(a.flash), a.mean_object_bytes, floats(a.budgets),
                        floats(a.ls_splits), a.ls_bytes_per_object, a.ls_index_bytes,
                        parse_bytes(a.region), a.margin, floats(a.ls_extra_index_bits),
                        a.headline, parse_bytes(a.segment))
            print(print_plan(rows))
            return 0
        budgets = floats(a.budgets)
        workloads, chosen = select(a.results, budgets, a.write_dwpd,
                                   None if a.flash is None else parse_bytes(a.flash),
                                   a.ls_index_bits)
        flash_of = {w[0]: w[1] for w in workloads}
        for r in chosen:
            if "flash_bytes_used" in r:
                r["flash_share"] = r["flash_bytes_used"] / flash_of[r["workload"]]
        md = markdown(chosen, budgets, a.headline)
        sens = sensitivity(workloads, a.headline)
        print(md)
        print(sens)
        if a.table:
            write_table(chosen, a.table, md + "\n" + sens)
        draw(workloads, chosen, budgets, a.output, a.title, a.write_dwpd)
        print(f"figure: {a.output}")
    except ResultsError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
