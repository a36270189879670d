#!/usr/bin/python3
"""Simulated and real devices side by side: the same cells on simflash and on a block device.

Usage::

    /usr/bin/python3 plots/sim_vs_real.py RESULTS.csv [MORE.csv ...] -o FIG.png [--title T]

Input: one or more FlashPQ results CSVs (e.g. the outputs of
``experiments/sim_vs_real_simflash.yaml`` and ``experiments/sim_vs_real_block.yaml``),
concatenated.  Rows with a non-empty ``error`` are skipped with a warning.  Columns:

=====================  ========  ======================================================
column                 needed    meaning / unit
=====================  ========  ======================================================
device.name            yes       simflash | block | null: one bar colour per device
framework.name         yes       direct, or a cache framework (exact, ripq, sipq)
throughput_mib_s       yes       payload MiB per second of the measured interval
latency_p50_us         yes       median request latency, µs
latency_p99_us         yes       99th percentile, µs
latency_p999_us        yes       99.9th percentile, µs
object_hit_ratio       yes       hits / gets (empty for direct cells)
trace.op, trace.io_size,  no     direct cells are labelled "OP PATTERN IO_SIZE"
trace.pattern
policy.name,           no        cache cells are labelled "POLICY[-L] / FRAMEWORK"
policy.segments
error                  no        non-empty: the row is skipped
=====================  ========  ======================================================

An empty value (a device that does not measure it, e.g. latency without a timed mode)
is drawn as "n/a" instead of a bar.

Output: three panels sharing the cell axis -- (a) throughput, MiB/s; (b) latency
percentiles, µs on a log axis, one vertical bar per device from p50 to p99.9 with
markers at p50 (circle), p99 (triangle) and p99.9 (square); (c) object-wise hit ratio
(cache cells only).  Written at 150 dpi.

Exit status: 0 on success, 2 on a user error (unreadable CSV, missing column, nothing to
plot, unwritable output), with a one-line message on stderr.
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")  # headless; must precede pyplot
import matplotlib.pyplot as plt  # noqa: E402

REQUIRED = ["device.name", "framework.name", "throughput_mib_s", "latency_p50_us",
            "latency_p99_us", "latency_p999_us", "object_hit_ratio"]
DEVICE_ORDER = ["simflash", "block", "null"]
COLOURS = {"simflash": "#1f77b4", "block": "#d62728", "null": "#7f7f7f"}


class ResultsError(Exception):
    """A user error: bad input or output."""


def _number(text):
    if text is None or text.strip() == "":
        return math.nan
    try:
        return float(text)
    except ValueError:
        return math.nan


def cell_label(row):
    """The label of a row's cell, the same on every device."""
    if row.get("framework.name") == "direct":
        parts = [row.get("trace.op", ""), row.get("trace.pattern", "").replace("uniform_", ""),
                 row.get("trace.io_size", "")]
        return "direct " + " ".join(p for p in parts if p)
    policy = row.get("policy.name", "?")
    if policy in ("slru", "gdsf") and row.get("policy.segments"):
        policy += "-" + str(row["policy.segments"])
    return f"{policy} / {row.get('framework.name', '?')}"


def load(paths):
    """Rows of every CSV, failed ones skipped; raises ResultsError on bad input."""
    rows = []
    for path in paths:
        try:
            with open(path, newline="") as f:
                reader = csv.DictReader(f)
                missing = [c for c in REQUIRED if c not in (reader.fieldnames or [])]
                if missing:
                    raise ResultsError(f"{path}: missing column(s) {', '.join(missing)}")
                for line, row in enumerate(reader, start=2):
                    if row.get("error"):
                        print(f"sim_vs_real: {path}:{line}: skipping failed cell: "
                              f"{row['error']}", file=sys.stderr)
                        continue
                    rows.append(row)
        except OSError as e:
            raise ResultsError(f"{path}: {e.strerror}") from e
    if not rows:
        raise ResultsError("no successful cells to plot")
    return rows


def collect(rows):
    """(cells in first-seen order, devices in DEVICE_ORDER, {(cell, device): metrics})."""
    cells, devices, values = [], [], {}
    for row in rows:
        cell, dev = cell_label(row), row["device.name"]
        if cell not in cells:
            cells.append(cell)
        if dev not in devices:
            devices.append(dev)
        values[(cell, dev)] = {
            "throughput_mib_s": _number(row["throughput_mib_s"]),
            "p50": _number(row["latency_p50_us"]),
            "p99": _number(row["latency_p99_us"]),
            "p999": _number(row["latency_p999_us"]),
            "object_hit_ratio": _number(row["object_hit_ratio"]),
        }
    devices.sort(key=lambda d: (DEVICE_ORDER.index(d) if d in DEVICE_ORDER else 99, d))
    return cells, devices, values


def plot(rows, output, title=None):
    cells, devices, values = collect(rows)
    hit_cells = [c for c in cells
                 if any(not math.isnan(values.get((c, d), {}).get("object_hit_ratio", math.nan))
                        for d in devices)]
    fig, axes = plt.subplots(3, 1, figsize=(max(6.0, 1.6 * len(cells) + 2), 10.5))
    width = 0.8 / max(1, len(devices))

    def offset(i):
        return (i - (len(devices) - 1) / 2) * width

    def na(ax, x):
        # At the bottom of the panel whatever its scale (x in data, y in axes coordinates).
        ax.text(x, 0.02, "n/a", ha="center", va="bottom", fontsize=8, color="0.4",
                transform=ax.get_xaxis_transform())

    def frame(ax, n):
        ax.set_xlim(-0.75, n - 0.25)
        ax.grid(True, axis="y", linewidth=0.5, alpha=0.4)
        ax.set_axisbelow(True)

    # (a) throughput
    ax = axes[0]
    for i, d in enumerate(devices):
        for j, c in enumerate(cells):
            v = values.get((c, d), {}).get("throughput_mib_s", math.nan)
            if math.isnan(v):
                na(ax, j + offset(i))
            else:
                ax.bar(j + offset(i), v, width, color=COLOURS.get(d, "0.5"))
                ax.annotate(f"{v:.4g}", (j + offset(i), v), ha="center", va="bottom",
                            fontsize=7, xytext=(0, 1), textcoords="offset points")
    frame(ax, len(cells))
    ax.set_ylabel("throughput (MiB/s)")
    ax.set_xticks(range(len(cells)), cells, rotation=15, ha="right")
    ax.set_title("(a) throughput")

    # (b) latency percentiles
    ax = axes[1]
    any_latency = False
    for i, d in enumerate(devices):
        for j, c in enumerate(cells):
            m = values.get((c, d), {})
            x = j + offset(i)
            p50, p99, p999 = m.get("p50", math.nan), m.get("p99", math.nan), m.get("p999", math.nan)
            if math.isnan(p50):
                na(ax, x)
                continue
            any_latency = True
            colour = COLOURS.get(d, "0.5")
            top = p999 if not math.isnan(p999) else p50
            ax.vlines(x, p50, top, color=colour, linewidth=3, alpha=0.5)
            ax.plot([x], [p50], "o", color=colour)
            if not math.isnan(p99):
                ax.plot([x], [p99], "^", color=colour)
            if not math.isnan(p999):
                ax.plot([x], [p999], "s", color=colour)
    if any_latency:
        ax.set_yscale("log")
        markers = [plt.Line2D([], [], color="0.3", marker=m, linestyle="", label=l)
                   for m, l in (("o", "p50"), ("^", "p99"), ("s", "p99.9"))]
        # Above the panel's right corner, beside its title: never over the data.
        ax.legend(handles=markers, loc="lower right", bbox_to_anchor=(1.0, 1.0), fontsize=8,
                  ncol=3, frameon=False, borderaxespad=0.1)
    frame(ax, len(cells))
    ax.set_ylabel("latency (µs)")
    ax.set_xticks(range(len(cells)), cells, rotation=15, ha="right")
    ax.set_title("(b) latency percentiles")

    # (c) hit ratio
    ax = axes[2]
    if hit_cells:
        for i, d in enumerate(devices):
            for j, c in enumerate(hit_cells):
                v = values.get((c, d), {}).get("object_hit_ratio", math.nan)
                if math.isnan(v):
                    na(ax, j + offset(i))
                else:
                    ax.bar(j + offset(i), v, width, color=COLOURS.get(d, "0.5"))
                    ax.annotate(f"{v:.4f}", (j + offset(i), v), ha="center", va="bottom",
                                fontsize=7, xytext=(0, 1), textcoords="offset points")
        frame(ax, len(hit_cells))
        ax.set_xticks(range(len(hit_cells)), hit_cells, rotation=15, ha="right")
        ax.set_ylim(0, 1.05)
    else:
        ax.text(0.5, 0.5, "no cache cells", ha="center", va="center", transform=ax.transAxes)
        ax.set_xticks([])
    ax.set_ylabel("object-wise hit ratio")
    ax.set_title("(c) hit ratio (cache cells)")

    handles = [plt.Rectangle((0, 0), 1, 1, color=COLOURS.get(d, "0.5")) for d in devices]
    fig.suptitle(title or "simulated vs real device: the same cells", y=0.995)
    # Title and legend above the panels, so they never cover data.
    fig.legend(handles=handles, labels=devices, loc="upper center", ncol=len(devices),
               bbox_to_anchor=(0.5, 0.97), frameon=False)
    fig.tight_layout(rect=(0, 0, 1, 0.94))
    try:
        fig.savefig(output, dpi=150)
    except OSError as e:
        raise ResultsError(f"{output}: {e.strerror}") from e
    finally:
        plt.close(fig)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("results", nargs="+", help="results CSV(s)")
    p.add_argument("-o", "--output", required=True, help="figure file (.png, .pdf, ...)")
    p.add_argument("--title", help="figure title")
    args = p.parse_args(argv)
    try:
        plot(load(args.results), args.output, args.title)
    except ResultsError as e:
        print(f"sim_vs_real: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
