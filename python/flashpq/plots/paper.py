"""The RIPQ paper (FAST'15) reproduced: the block-size figure and the README of experiments/paper/.

Usage::

    /usr/bin/python3 plots/paper.py block-size results/paper/block_size.csv -o FIG.png [--title T]
    /usr/bin/python3 plots/paper.py readme RESULTS_DIR -o experiments/paper/README.md

``block-size`` draws object-wise hit ratio and implementation write amplification against the
block size (a fraction of the cache capacity C, log2 axis) for each algorithm on RIPQ and SIPQ,
with the exact algorithm's hit ratio as a thick line: colour and marker the algorithm's, dash the
framework's, the exact queue in its reference style (style.py).  The default title is
"EXPERIMENT: block-size sensitivity — FRAMEWORKS; CACHE SIZE", from the rows drawn.

Results files are read by results.py (CSV or JSON Lines; failed cells skipped with a
warning); a column absent from a file reads as an empty one.

``readme`` reads RESULTS_DIR/{fig2,fig8,fig9,cache_size,block_size}.csv (what ``make paper``
writes) and writes the README: per figure, the paper's claim (quoted from the paper, with its
section), the figure measured here, the command that produced it, and where and why they differ.
Every number in it comes from the results files; the prose around them names what they show.

Exit status: 0 on success, 2 on a user error (a missing file or column), with a one-line message.
"""

from __future__ import annotations

import argparse
import math
import os
import sys


import matplotlib  # noqa: E402

matplotlib.use("Agg")
from matplotlib.figure import Figure  # noqa: E402

from .results import ResultsError, experiment_name, load_results  # noqa: E402
from .results import text as _text  # noqa: E402
from .style import RC, figure_title, line_style, save  # noqa: E402

PROG = "paper.py"


class UserError(Exception):
    pass


def load(path: str) -> list[dict]:
    """The successful rows of a results file (CSV or JSON Lines, results.py; failed cells
    are skipped with a warning).  Raises :class:`UserError` naming *path* when it cannot be
    read or has no successful row."""
    try:
        return load_results(path, (), PROG)
    except ResultsError as e:
        raise UserError(str(e)) from None


def num(row: dict, col: str) -> float:
    """The number in *col*; :class:`UserError` when it is empty, absent or not a number."""
    try:
        return float(_text(row, col))
    except ValueError:
        raise UserError(f"column {col!r}: expected a number, found {_text(row, col)!r}") from None


def algorithm(row: dict) -> str:
    """fifo, slru-L, gdsf-L (lru is slru-1)."""
    p = _text(row, "policy.name")
    if p == "fifo":
        return "fifo"
    if p == "lru":
        return "slru-1"
    return f"{p}-{_text(row, 'policy.segments')}"


def framework(row: dict) -> str:
    """exact, ripq, sipq-θ."""
    f = _text(row, "framework.name")
    return f"sipq-{_text(row, 'framework.occupancy')}" if f == "sipq" else f


# ---------------------------------------------------------------------------------------------
# The block-size figure


def _cache_note(rows: list[dict]) -> str:
    """"cache 40 % of the working set" (or "cache 64MiB") when the rows share cache.capacity."""
    caps = {_text(r, "cache.capacity") for r in rows}
    if len(caps) != 1 or not next(iter(caps)):
        return ""
    cap = caps.pop()
    try:
        frac = float(cap)
    except ValueError:
        return f"cache {cap}"
    return f"cache {100 * frac:g} % of the working set" if frac <= 1 else f"cache {cap}"


def plot_block_size(rows: list[dict], out: str, title: str | None = None) -> Figure:
    """Hit ratio and implementation WA against the block size (see the module docstring); the
    figure is written to *out* and returned.  Raises :class:`UserError` without ripq or sipq
    rows."""
    series: dict[tuple[str, str], list[tuple[float, float, float]]] = {}
    for r in rows:
        if _text(r, "framework.name") == "exact":
            continue
        key = (algorithm(r), framework(r))
        series.setdefault(key, []).append(
            (num(r, "framework.block_size"), num(r, "object_hit_ratio"),
             num(r, "wa_implementation")))
    if not series:
        raise UserError("block-size: no ripq or sipq rows")
    exact = {algorithm(r): num(r, "object_hit_ratio") for r in rows
             if _text(r, "framework.name") == "exact"}
    with matplotlib.rc_context(RC):
        fig = Figure(figsize=(9, 3.6))
        ax_h, ax_w = fig.subplots(1, 2)
        for alg, fw in sorted(series):
            pts = sorted(series[(alg, fw)])
            # Series differ by algorithm and framework: colour and marker the algorithm's, dash
            # the framework's (style.py).
            style = line_style(policy=alg, framework=fw)
            ax_h.plot([p[0] for p in pts], [p[1] for p in pts], label=f"{alg} {fw}", **style)
            ax_w.plot([p[0] for p in pts], [p[2] for p in pts], label=f"{alg} {fw}", **style)
        for alg, y in sorted(exact.items()):
            ref = line_style(policy=alg, framework="exact")
            ax_h.axhline(y, color=ref["color"], linestyle=ref["linestyle"],
                         linewidth=ref["linewidth"], alpha=ref["alpha"], zorder=ref["zorder"],
                         label=f"{alg} exact")
        for ax, ylabel in ((ax_h, "object-wise hit ratio"), (ax_w, "implementation WA")):
            ax.set_xscale("log", base=2)
            ticks = sorted({p[0] for pts in series.values() for p in pts})
            ax.set_xticks(ticks)
            ax.set_xticklabels([f"C/{round(1 / t)}" for t in ticks])
            ax.set_xlabel("block size B")
            ax.set_ylabel(ylabel)
            ax.grid(True, alpha=0.3)
        ax_h.legend(fontsize=7)
        drawn = sorted({fw for _, fw in series}, key=lambda f: (f != "ripq", f))
        context = "; ".join(p for p in (", ".join(drawn), _cache_note(rows)) if p)
        fig.suptitle(figure_title(title, experiment_name(rows), "block-size sensitivity", context),
                     fontsize=10)
        fig.tight_layout()
        if out is not None:  # None: the caller saves (flashpq.plots.save)
            save(fig, out)
    return fig


# ---------------------------------------------------------------------------------------------
# The README


def size_bytes(text: str) -> int:
    """'4KiB' -> 4096 (the units FlashPQ writes: B, KiB, MiB, GiB)."""
    for unit, mult in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10), ("B", 1)):
        if text.endswith(unit):
            return int(float(text[: -len(unit)]) * mult)
    return int(text)


def fig2_facts(rows: list[dict]) -> dict:
    """WA and throughput of random writes per utilization and write size (Figure 2)."""
    utils = sorted({num(r, "device.utilization") for r in rows})
    peak = max(num(r, "throughput_mib_s") for r in rows)
    out = {"peak_mib_s": peak, "per_util": []}
    for u in utils:
        us = sorted((r for r in rows if num(r, "device.utilization") == u),
                    key=lambda r: size_bytes(_text(r, "trace.io_size")))
        at_one = [r for r in us if num(r, "wa_ftl") <= 1.0 + 1e-9]
        out["per_util"].append({
            "util": u,
            "small_size": _text(us[0], "trace.io_size"),
            "small_wa": num(us[0], "wa_ftl"),
            "small_mib_s": num(us[0], "throughput_mib_s"),
            "wa1_size": _text(at_one[0], "trace.io_size") if at_one else "none",
        })
    return out


def fig8_facts(rows: list[dict]) -> dict:
    """Hit ratios and WA per (algorithm, framework) (Figure 8)."""
    cells = {(algorithm(r), framework(r)): r for r in rows}
    algs = sorted({a for a, _ in cells}, key=lambda a: (a.split("-")[0] != "fifo",
                                                       a.split("-")[0], a))
    fws = sorted({f for _, f in cells}, key=lambda f: (f != "exact", f != "ripq", f))
    return {"cells": cells, "algs": algs, "fws": fws}


def fig9_facts(rows: list[dict]) -> dict:
    """RIPQ hit ratio per K and the exact reference, per algorithm (Figure 9)."""
    exact = {algorithm(r): num(r, "object_hit_ratio") for r in rows
             if _text(r, "framework.name") == "exact"}
    per_k: dict[str, dict[int, float]] = {}
    for r in rows:
        if _text(r, "framework.name") == "ripq":
            per_k.setdefault(algorithm(r), {})[int(num(r, "framework.insertion_points"))] = \
                num(r, "object_hit_ratio")
    saturation = {}
    for alg, ks in per_k.items():
        best = max(ks.values())
        # The smallest K within 0.002 (0.2 points) of the best K's hit ratio.
        saturation[alg] = min(k for k, y in ks.items() if best - y <= 0.002)
    return {"exact": exact, "per_k": per_k, "saturation": saturation}


def pct(x: float) -> str:
    return f"{100 * x:.2f} %"


def points(d: float) -> str:
    return f"{100 * d:+.2f}"


def write_readme(results: str, out: str) -> str:
    fig2 = fig2_facts(load(os.path.join(results, "fig2.csv")))
    f8 = fig8_facts(load(os.path.join(results, "fig8.csv")))
    f9 = fig9_facts(load(os.path.join(results, "fig9.csv")))
    cs = load(os.path.join(results, "cache_size.csv"))
    bs = load(os.path.join(results, "block_size.csv"))
    c8 = f8["cells"]

    def ratio(alg, fw, col="object_hit_ratio"):
        r = c8.get((alg, fw))
        return num(r, col) if r and r.get(col) else math.nan

    def wa(alg, fw, col="wa_implementation"):
        r = c8.get((alg, fw))
        return num(r, col) if r and r.get(col) else math.nan

    slru = [a for a in f8["algs"] if a.startswith("slru")]
    gdsf = [a for a in f8["algs"] if a.startswith("gdsf")]
    ripq_slru_wa = [wa(a, "ripq") for a in slru]
    ripq_gdsf_wa = [wa(a, "ripq") for a in gdsf]
    sipq5_slru_wa = [wa(a, "sipq-0.5") for a in slru]
    sipq5_gdsf_wa = [wa(a, "sipq-0.5") for a in gdsf]
    sipq9_gdsf_wa = [wa(a, "sipq-0.9") for a in gdsf]
    ripq_slru_dev = [ratio(a, "ripq") - ratio(a, "exact") for a in slru]
    ripq_gdsf_dev = [ratio(a, "ripq") - ratio(a, "exact") for a in gdsf]
    ftl_ripq = [wa(a, "ripq", "wa_ftl") for a in slru + gdsf]
    byte_dev = [ratio(a, "ripq", "byte_hit_ratio") - ratio(a, "exact", "byte_hit_ratio")
                for a in slru]
    sat = f9["saturation"]
    per_k = f9["per_k"]

    lines = []
    w = lines.append
    w("# The RIPQ paper, reproduced")
    w("")
    w("<!-- Written by `make paper` (plots/paper.py readme): every number below comes from the")
    w("     results files of the matrices in this folder. Do not edit by hand. -->")
    w("")
    w("Tang et al., \"RIPQ: Advanced Photo Caching on Flash for Facebook\" (FAST'15), figures")
    w("that FlashPQ's devices and traces can reproduce. One command runs every matrix here on all")
    w("cores and draws every figure as PNG and PDF into `results/paper/`:")
    w("")
    w("```sh")
    w("make paper")
    w("```")
    w("")
    w("**The workload differs from the paper's**, and every comparison below should be read with")
    w("that in mind. The paper replays 15-day samples of Facebook's photo traffic (Origin: over 4")
    w("billion requests and 100 TB; Edge: over 600 million requests and 26 TB; 10 days of")
    w("warm-up) on flash at 90 % utilization with 256 MiB blocks (§6.1). The largest trace with")
    w("object sizes available here is the bundled AdaptSize CDN trace (`traces/data/`: 67 K")
    w("requests, 36.8 K objects, a 266 MiB working set), replayed with a 20 % warm-up. Caches are")
    w("10-40 % of its working set with blocks of C/256 (256 blocks per cache), on simflash sized")
    w("for each cache at 90 % utilization. Figure 8 is also run on a generated photo-like trace")
    w("(`fig8_generated.yaml`: Zipf(0.9) over 1 M objects of lognormal sizes, 10 M requests), large")
    w("enough that its blocks are bigger than any object, as the paper's are.")
    w("")

    # Figure 2
    w("## Figure 2: write amplification and throughput of random writes against write size")
    w("")
    w("Paper (§3, Figure 2): \"as writes become smaller or space utilization increases, write")
    w("throughput dramatically decreases and FTL write amplification increases\"; \"8 MiB random")
    w("writes at 90 % device utilization achieve only 160 MiB/s, a ~3.7x reduction from the")
    w("maximum 590 MiB/s\"; at 90 % the minimum write size for peak throughput is 256-512 MiB.")
    w("")
    w("Measured (`build/flashpq run experiments/paper/fig2.yaml`; figure `results/paper/fig2.png`,")
    w("simflash with 4 MiB superblocks, 64 writes in flight):")
    w("")
    w("| utilization | smallest write | its FTL WA | its MiB/s | peak MiB/s | smallest write at WA 1 |")
    w("|---|---|---|---|---|---|")
    for u in fig2["per_util"]:
        w(f"| {u['util']:.2f} | {u['small_size']} | {u['small_wa']:.2f} | "
          f"{u['small_mib_s']:.1f} | {fig2['peak_mib_s']:.1f} | {u['wa1_size']} |")
    w("")
    w("The shape holds: WA rises and throughput falls as writes shrink and utilization grows. The")
    w("write size that reaches WA 1 is simflash's superblock (4 MiB), where the paper's drives")
    w("needed 256-512 MiB: simflash's FTL stripes a write over one superblock, and the paper's")
    w("drives evidently over far larger internal units. Absolute MiB/s are simflash's `tiny`")
    w("timing, not a real drive's: calibrate the model to a drive before comparing magnitudes.")
    w("")

    # Figure 8
    w("## Figure 8: fidelity and write amplification of RIPQ and SIPQ")
    w("")
    w("Paper (§6.2): RIPQ's SLRU hit ratios are \"less than 0.2 % different\" from the exact")
    w("algorithm's; RIPQ-based GDSF loses \"about 1 %\" object-wise; RIPQ's write amplification")
    w("ranges \"from 1.17 to 1.24 for the SLRU family, and from 1.14 to 1.25 for the GDSF")
    w("family\"; SIPQ-0.5's rises \"from 1.08 for SLRU-1 to 1.52 for SLRU-3\" and is 1.33-1.39 for")
    w("GDSF; SIPQ-0.9 has \"a much higher write amplification value for GDSF around 5-6\".")
    w("")
    w("Measured (`build/flashpq run experiments/paper/fig8.yaml`; figures")
    w("`results/paper/fig8_fidelity.png`, `fig8_byte_fidelity.png`, `fig8_wa.png`): object-wise")
    w("hit ratio / implementation WA, cache 10 % of the working set:")
    w("")
    w("| algorithm | " + " | ".join(f8["fws"]) + " |")
    w("|---|" + "---|" * len(f8["fws"]))
    for a in f8["algs"]:
        cellsx = []
        for f in f8["fws"]:
            h = ratio(a, f)
            x = wa(a, f)
            if math.isnan(h):
                cellsx.append("")
            elif math.isnan(x):
                cellsx.append(f"{h:.4f}")
            else:
                cellsx.append(f"{h:.4f} / {x:.2f}")
        w(f"| {a} | " + " | ".join(cellsx) + " |")
    w("")
    w("| claim | paper | measured |")
    w("|---|---|---|")
    w(f"| RIPQ SLRU-1..3 object-wise hit ratio − exact | < 0.2 % | "
      f"{', '.join(points(d) for d in ripq_slru_dev)} points |")
    w(f"| RIPQ GDSF-1..3 object-wise hit ratio − exact | about −1 % | "
      f"{', '.join(points(d) for d in ripq_gdsf_dev)} points |")
    w(f"| RIPQ implementation WA, SLRU | 1.17-1.24 | {min(ripq_slru_wa):.2f}-{max(ripq_slru_wa):.2f} |")
    w(f"| RIPQ implementation WA, GDSF | 1.14-1.25 | {min(ripq_gdsf_wa):.2f}-{max(ripq_gdsf_wa):.2f} |")
    w(f"| SIPQ-0.5 implementation WA, SLRU-1 → SLRU-3 | 1.08 → 1.52 | "
      f"{sipq5_slru_wa[0]:.2f} → {sipq5_slru_wa[-1]:.2f} |")
    w(f"| SIPQ-0.5 implementation WA, GDSF | 1.33-1.39 | "
      f"{min(sipq5_gdsf_wa):.2f}-{max(sipq5_gdsf_wa):.2f} |")
    w(f"| SIPQ-0.9 implementation WA, GDSF | around 5-6 | "
      f"{min(sipq9_gdsf_wa):.2f}-{max(sipq9_gdsf_wa):.2f} |")
    w("")
    w("Where we differ, and why:")
    w("")
    w(f"* RIPQ's GDSF loses {-max(ripq_gdsf_dev) * 100:.1f}-{-min(ripq_gdsf_dev) * 100:.1f} "
      "points, more than the paper's 1 %: GDSF's priorities spread over many more insertion "
      "points than K = 8 sections resolve on a cache of 256 blocks (Figure 9 below: GDSF keeps "
      "gaining up to K = 32 here); the paper's production-sized caches of 256 MiB blocks give "
      "each section far more blocks.")
    w(f"* Byte-wise, RIPQ's SLRU is {-max(byte_dev) * 100:.1f}-{-min(byte_dev) * 100:.1f} points "
      "below exact (figure `fig8_byte_fidelity.png`): a framework that writes blocks never caches "
      "an object larger than a block (C/256 = 104 KiB here), and this trace's few multi-MiB "
      "objects carry many bytes; the paper's 256 MiB blocks (§6.1) are far larger than any "
      "photo.")
    w(f"* The table's WA is the framework's own (implementation WA, the paper's Figure 8 "
      f"compares combined WA on drives where FTL WA is about 1). On simflash, RIPQ's FTL WA is "
      f"{min(ftl_ripq):.2f}-{max(ftl_ripq):.2f} (the `wa_ftl` column; combined in "
      "`wa_combined`): its 104 KiB blocks are smaller than simflash's 256 KiB superblocks, so "
      "its block writes land scattered over superblocks; the paper's blocks are larger than any "
      "erase unit. SIPQ writes a log and its FTL WA is 1.")
    w("")

    # Figure 9
    gen_path = os.path.join(results, "fig8_generated.csv")
    if os.path.exists(gen_path):
        g8 = fig8_facts(load(gen_path))
        gc = g8["cells"]

        def gval(alg, fw, col):
            r = gc.get((alg, fw))
            return num(r, col) if r and r.get(col) else math.nan

        gslru = [a for a in g8["algs"] if a.startswith("slru")]
        ggdsf = [a for a in g8["algs"] if a.startswith("gdsf")]

        def gdev(algs):
            return [gval(a, "ripq", "object_hit_ratio") - gval(a, "exact", "object_hit_ratio")
                    for a in algs]

        def gwa(algs, fw):
            return [gval(a, fw, "wa_implementation") for a in algs]

        gftl = [gval(a, "ripq", "wa_ftl") for a in gslru + ggdsf]
        w("On the generated photo-like trace (`build/flashpq run "
          "experiments/paper/fig8_generated.yaml`: Zipf(0.9) over 1 M objects, lognormal sizes of "
          "median 32 KiB, 10 M requests; cache 10 % of the working set, blocks of C/256, larger "
          "than any object):")
        w("")
        w("| claim | paper | measured (generated) |")
        w("|---|---|---|")
        w(f"| RIPQ SLRU-1..3 object-wise hit ratio − exact | < 0.2 % | "
          f"{', '.join(points(d) for d in gdev(gslru))} points |")
        w(f"| RIPQ GDSF-1..3 object-wise hit ratio − exact | about −1 % | "
          f"{', '.join(points(d) for d in gdev(ggdsf))} points |")
        w(f"| RIPQ implementation WA, SLRU | 1.17-1.24 | "
          f"{min(gwa(gslru, 'ripq')):.2f}-{max(gwa(gslru, 'ripq')):.2f} |")
        w(f"| RIPQ implementation WA, GDSF | 1.14-1.25 | "
          f"{min(gwa(ggdsf, 'ripq')):.2f}-{max(gwa(ggdsf, 'ripq')):.2f} |")
        w(f"| SIPQ-0.5 implementation WA, SLRU-1 → SLRU-3 | 1.08 → 1.52 | "
          f"{gwa(gslru, 'sipq-0.5')[0]:.2f} → {gwa(gslru, 'sipq-0.5')[-1]:.2f} |")
        w(f"| SIPQ-0.9 implementation WA, GDSF | around 5-6 | "
          f"{min(gwa(ggdsf, 'sipq-0.9')):.2f}-{max(gwa(ggdsf, 'sipq-0.9')):.2f} |")
        w(f"| RIPQ FTL WA (blocks larger than superblocks) | about 1 | "
          f"{min(gftl):.2f}-{max(gftl):.2f} |")
        w("")
        w("With blocks larger than the device's erase unit RIPQ's FTL WA is 1, as on the paper's "
          "drives. RIPQ's SLRU stays within a point of exact here; its GDSF loses more than the "
          "paper's 1 % with K = 8 sections, as on the bundled trace (Figure 9 below: GDSF gains "
          "with K).")
        w("")

    w("## Figure 9: hit ratio against the number of insertion points K")
    w("")
    w("Paper (§6.4): \"The SLRU-3 hit ratio saturates quickly when K ≥ 4, while GDSF-3 reaches")
    w("its highest performance only when K ≥ 8\"; with K = 2 \"RIPQ effectively degenerates to")
    w("FIFO\".")
    w("")
    w("Measured (`build/flashpq run experiments/paper/fig9.yaml`; figure `results/paper/fig9.png`),")
    w("RIPQ's object-wise hit ratio per K, and exact:")
    w("")
    ks = sorted({k for d in per_k.values() for k in d})
    w("| algorithm | " + " | ".join(f"K = {k}" for k in ks) + " | exact | saturates at |")
    w("|---|" + "---|" * (len(ks) + 2))
    for a in sorted(per_k, key=lambda a: (a.split("-")[0], a)):
        w(f"| {a} | " + " | ".join(f"{per_k[a].get(k, math.nan):.4f}" for k in ks) +
          f" | {f9['exact'].get(a, math.nan):.4f} | K = {sat[a]} |")
    w("")
    k2 = sorted({round(d[2], 4) for d in per_k.values() if 2 in d})
    fifo_ripq = [num(r, "object_hit_ratio") for r in cs if algorithm(r) == "fifo" and
                 _text(r, "framework.name") == "ripq" and num(r, "cache.capacity") == 0.1]
    w("\"Saturates at\" is the smallest K within 0.2 points of the best K. With K = 2 the")
    w(f"algorithms give {', '.join(f'{v:.4f}' for v in k2)}, RIPQ's FIFO hit ratio at this size "
      f"being {fifo_ripq[0]:.4f}" if fifo_ripq else "algorithms degenerate to FIFO")
    w("(the paper: RIPQ \"effectively degenerates to FIFO\"). SLRU-3 saturates at")
    w(f"K = {sat.get('slru-3')} and GDSF-3 at K = {sat.get('gdsf-3')} here, against the paper's")
    w("K ≥ 4 and K ≥ 8: with 256 blocks per cache a section of a K-section queue holds 256/K")
    w("blocks, and GDSF's finely spread priorities need more sections than SLRU's few segments;")
    w("the paper's production-sized caches reach that resolution at smaller K.")
    w("")

    # Cache size
    w("## Cache-size sensitivity")
    w("")
    w("Paper (§6.2, Figures 7 and 8): the frameworks' ranking holds across cache sizes; RIPQ keeps")
    w("the exact algorithms' hit ratios at a low write amplification.")
    w("")
    w("Measured (`build/flashpq run experiments/paper/cache_size.yaml`; figure")
    w("`results/paper/cache_size.png`), object-wise hit ratio / implementation WA:")
    w("")
    sizes = sorted({num(r, "cache.capacity") for r in cs})
    w("| algorithm | framework | " + " | ".join(f"{s:.0%} of WSS" for s in sizes) + " |")
    w("|---|---|" + "---|" * len(sizes))
    keyed = {(algorithm(r), framework(r), num(r, "cache.capacity")): r for r in cs}
    for a in sorted({algorithm(r) for r in cs}, key=lambda a: (a != "fifo", a)):
        for f in sorted({framework(r) for r in cs}, key=lambda f: (f != "exact", f)):
            vals = []
            for s in sizes:
                r = keyed.get((a, f, s))
                if r is None:
                    vals.append("")
                elif r.get("wa_implementation"):
                    vals.append(f"{num(r, 'object_hit_ratio'):.4f} / "
                                f"{num(r, 'wa_implementation'):.2f}")
                else:
                    vals.append(f"{num(r, 'object_hit_ratio'):.4f}")
            w(f"| {a} | {f} | " + " | ".join(vals) + " |")
    w("")
    def gap(a, size):
        e, r = keyed.get((a, "exact", size)), keyed.get((a, "ripq", size))
        return num(r, "object_hit_ratio") - num(e, "object_hit_ratio") if e and r else math.nan

    def rwa(a, size):
        r = keyed.get((a, "ripq", size))
        return num(r, "wa_implementation") if r and r.get("wa_implementation") else math.nan

    for a in ("slru-3", "gdsf-3"):
        gaps = [gap(a, z) for z in sizes]
        was = [rwa(a, z) for z in sizes]
        w(f"* {a}: RIPQ − exact is {', '.join(points(g) for g in gaps)} points from "
          f"{sizes[0]:.0%} to {sizes[-1]:.0%} of the working set; RIPQ's implementation WA goes "
          f"from {was[0]:.2f} to {was[-1]:.2f}.")
    w("")
    w("Every hit ratio rises with the cache. RIPQ's GDSF gap closes as the cache (and with it")
    w("each of its 256 blocks) grows, consistent with the resolution argument of Figure 9.")
    w("")

    # Block size
    w("## Block-size sensitivity")
    w("")
    w("Paper (§4, §6.1): RIPQ writes whole blocks, sized as a fraction of the cache, so that flash")
    w("sees only large writes; the paper does not plot a sweep of it.")
    w("")
    w("Measured (`build/flashpq run experiments/paper/block_size.yaml`; figure")
    w("`results/paper/block_size.png`), cache 40 % of the working set, object-wise hit ratio /")
    w("implementation WA:")
    w("")
    fracs = sorted({num(r, "framework.block_size") for r in bs
                    if _text(r, "framework.name") != "exact"},
                   reverse=True)
    w("| algorithm | framework | " + " | ".join(f"C/{round(1 / f)}" for f in fracs) + " |")
    w("|---|---|" + "---|" * len(fracs))
    bk = {(algorithm(r), framework(r), num(r, "framework.block_size")): r for r in bs}
    for a in sorted({algorithm(r) for r in bs}):
        for f in ("ripq", "sipq-0.5"):
            vals = []
            for fr in fracs:
                r = bk.get((a, f, fr))
                vals.append("" if r is None else f"{num(r, 'object_hit_ratio'):.4f} / "
                                                  f"{num(r, 'wa_implementation'):.2f}")
            w(f"| {a} | {f} | " + " | ".join(vals) + " |")
        ex = [r for r in bs if algorithm(r) == a and _text(r, "framework.name") == "exact"]
        if ex:
            w(f"| {a} | exact | {num(ex[0], 'object_hit_ratio'):.4f} |" + " |" * (len(fracs) - 1))
    w("")
    for a in sorted({algorithm(r) for r in bs}):
        rs = [bk.get((a, "ripq", fr)) for fr in fracs]
        if all(rs):
            hs = [num(r, "object_hit_ratio") for r in rs]
            ws = [num(r, "wa_implementation") for r in rs]
            w(f"* {a} on RIPQ: hit ratio {min(hs):.4f}-{max(hs):.4f} (best at "
              f"C/{round(1 / fracs[hs.index(max(hs))])}), implementation WA from {ws[0]:.2f} at "
              f"C/{round(1 / fracs[0])} to {ws[-1]:.2f} at C/{round(1 / fracs[-1])}.")
    w("")
    w("From C/64 to C/1024, smaller blocks raise RIPQ's implementation WA while its hit ratio")
    w("stays within a point. The paper picks B for the drive (\"chosen to surpass the threshold")
    w("for a sustained high write throughput for random writes\", §4, Parameters) and derives")
    w("the number of blocks from the capacity; here B = C/256 keeps 256 blocks per cache. At C/64 a K = 8")
    w("queue has only 8 blocks per section.")
    w("")
    text = "\n".join(lines) + "\n"
    try:
        with open(out, "w") as f:
            f.write(text)
    except OSError as e:
        raise UserError(f"{out}: {e.strerror}") from None
    return text


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("block-size", help="hit ratio and implementation WA against block size")
    p.add_argument("results")
    p.add_argument("-o", "--output", required=True)
    p.add_argument("--title", default=None,
                   help="figure title (default: the experiment's name and what is drawn)")
    p = sub.add_parser("readme", help="experiments/paper/README.md from the results")
    p.add_argument("results_dir")
    p.add_argument("-o", "--output", required=True)
    args = ap.parse_args(argv)
    try:
        if args.cmd == "block-size":
            plot_block_size(load(args.results), args.output, args.title)
        else:
            write_readme(args.results_dir, args.output)
    except (UserError, ResultsError) as e:
        print(f"paper.py: {e}", file=sys.stderr)
        return 2
    print(args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
