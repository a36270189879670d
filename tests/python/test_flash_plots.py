"""Tests for plots/flash.py (CLI and Python API).

Run from the repository root:  /usr/bin/python3 -m pytest tests/python -q
"""

import csv
import json
import math
import os
import random
import struct
import subprocess
import sys

import pytest

from flashpq.plots.flash import (
    ResultsError,
    format_size,
    histogram_cdf,
    histogram_percentile_ns,
    histogram_tail,
    latency_series,
    load_rows,
    parse_histogram,
    parse_size,
    plot_latency,
    plot_sim_vs_real,
    plot_wa,
    sim_vs_real_cells,
    sim_vs_real_errors,
    varying_keys,
    wa_series,
)

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(REPO_ROOT, "plots", "flash.py")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
KIB, MIB = 2 ** 10, 2 ** 20


def _write_csv(path, rows, columns):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    return str(path)


def _run(*args):
    return subprocess.run([sys.executable, SCRIPT, *map(str, args)],
                          capture_output=True, text=True, cwd=REPO_ROOT)


def _png_dpi(path):
    """Pixels per inch from the PNG's pHYs chunk (None if absent)."""
    data = path.read_bytes()
    pos = 8
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"pHYs":
            ppu_x, _ppu_y, unit = struct.unpack(">IIB", data[pos + 8:pos + 17])
            return ppu_x * 0.0254 if unit == 1 else None
        pos += 12 + length
    return None


def _check_png(path):
    data = path.read_bytes()
    assert data.startswith(PNG_SIGNATURE)
    assert len(data) > 10 * 1024
    assert _png_dpi(path) == pytest.approx(150, abs=0.5)


def _check_legend_outside(fig):
    """Every legend lies outside every axes' data area."""
    renderer = fig.canvas.get_renderer()
    legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend()]
    assert legends
    for leg in legends:
        box = leg.get_window_extent(renderer)
        for ax in fig.axes:
            assert not box.overlaps(ax.get_window_extent(renderer)), leg


def _data_lines(ax):
    return [ln for ln in ax.get_lines() if not ln.get_label().startswith("_")]


# ---------------------------------------------------------------- sizes


@pytest.mark.parametrize("text,expected", [
    ("4096", 4096), ("4KiB", 4 * KIB), ("16MiB", 16 * MIB), ("1GiB", 2 ** 30),
    ("2TiB", 2 * 2 ** 40), ("512B", 512), ("8 KiB", 8 * KIB), ("1GB", 10 ** 9),
    ("3kB", 3000), ("3KB", 3000), ("5MB", 5 * 10 ** 6), ("1TB", 10 ** 12),
])
def test_parse_size(text, expected):
    assert parse_size(text) == expected


@pytest.mark.parametrize("text", ["", "KiB", "4kib", "1.5MiB", "-4KiB", "4 XB", "0", "0MiB"])
def test_parse_size_rejects(text):
    with pytest.raises(ResultsError, match="size"):
        parse_size(text)


def test_format_size():
    assert format_size(4 * KIB) == "4 KiB"
    assert format_size(256 * KIB) == "256 KiB"
    assert format_size(16 * MIB) == "16 MiB"
    assert format_size(512) == "512 B"
    assert format_size(1536) == "1.5 KiB"


# ---------------------------------------------------------------- varying keys


def test_varying_keys_drops_columns_fixed_by_earlier_ones():
    rows = []
    for size, reqs in (("4KiB", 1024), ("1MiB", 4)):        # zipped: requests follow size
        for util in ("0.8", "0.9"):
            rows.append({"trace.io_size": size, "trace.requests": reqs,
                         "device.utilization": util, "device.name": "simflash",
                         "wa_ftl": 2.0, "cell": len(rows)})
    assert varying_keys(rows) == ["trace.io_size", "device.utilization"]
    assert varying_keys(rows, given=("trace.io_size",)) == ["device.utilization"]
    # With trace.requests first in column order it is the one kept.
    reordered = [{"trace.requests": r["trace.requests"], **r} for r in rows]
    assert varying_keys(reordered) == ["trace.requests", "device.utilization"]
    assert varying_keys(rows, exclude=lambda k: k.startswith("device.")) == ["trace.io_size"]


# ---------------------------------------------------------------- wa

WA_COLUMNS = ["experiment", "cell", "trace.generator", "trace.pattern", "trace.op",
              "trace.io_size", "trace.requests", "seed", "framework.name", "device.name",
              "device.profile", "device.utilization", "wa_ftl", "throughput_mib_s",
              "wall_seconds", "error"]
UTILS = [0.95, 0.8, 0.9]                    # deliberately unsorted
SIZES = [("16MiB", 16 * MIB), ("1MiB", MIB), ("262144", 256 * KIB), ("4KiB", 4 * KIB)]


def _wa(util, size):
    """A made-up WA, decreasing in size and increasing in utilization, ≥ 1."""
    return round(1 + (util / (1 - util)) / 4 * (1 - math.log2(size / KIB) / 14), 6)


def _thr(util, size):
    return round(600 / _wa(util, size), 3)


def _wa_rows(throughput=True):
    rows = []
    for util in UTILS:
        for text, size in SIZES:          # largest first: the plot must sort
            rows.append({
                "experiment": "fig2", "cell": len(rows), "trace.generator": "device_io",
                "trace.pattern": "uniform_random", "trace.op": "write", "trace.io_size": text,
                "trace.requests": 4 * 2 ** 30 // size, "seed": 1, "framework.name": "direct",
                "device.name": "simflash", "device.profile": "tiny",
                "device.utilization": util, "wa_ftl": _wa(util, size),
                "throughput_mib_s": _thr(util, size) if throughput else "",
                "wall_seconds": 0.1, "error": ""})
    # A second seed of one point (averaged), a cache row (ignored), a failed cell (skipped).
    extra = dict(rows[0], cell=len(rows), seed=2, wa_ftl=rows[0]["wa_ftl"] + 0.2,
                 throughput_mib_s=rows[0]["throughput_mib_s"] if throughput else "")
    rows.append(extra)
    rows.append(dict(rows[1], cell=len(rows), **{"framework.name": "ripq"}, wa_ftl=9.9))
    rows.append(dict(rows[2], cell=len(rows), wa_ftl="", throughput_mib_s="",
                     error="device: out of space"))
    return rows


@pytest.fixture
def wa_csv(tmp_path):
    return _write_csv(tmp_path / "fig2.csv", _wa_rows(), WA_COLUMNS)


def test_cli_wa_writes_png(wa_csv, tmp_path):
    out = tmp_path / "out" / "wa.png"
    proc = _run("wa", wa_csv, "-o", out)
    assert proc.returncode == 0, proc.stderr
    _check_png(out)
    assert "out of space" in proc.stderr                # failed cell: warning
    assert "framework.name is not 'direct' (ripq)" in proc.stderr
    assert "averaging 2 cells" in proc.stderr
    assert "Traceback" not in proc.stderr
    out2 = tmp_path / "wa_u.png"
    proc = _run("wa", wa_csv, "-o", out2, "--x", "utilization")
    assert proc.returncode == 0, proc.stderr
    _check_png(out2)


def test_cli_wa_jsonl_and_pdf(tmp_path):
    path = tmp_path / "fig2.jsonl"
    with open(path, "w") as f:
        for r in _wa_rows(throughput=False):
            r = dict(r)
            r["throughput_mib_s"] = None            # the JSON writer's "no value"
            if r["wa_ftl"] == "":
                r["wa_ftl"] = None
            f.write(json.dumps(r) + "\n")
    out = tmp_path / "wa.pdf"
    proc = _run("wa", path, "-o", out)
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes().startswith(b"%PDF")


def test_api_wa_series_sorted_by_size_grouped_by_utilization(wa_csv):
    series, meta = wa_series(load_rows(wa_csv))
    assert meta["throughput"] is True
    assert [s.label for s in series] == ["80 % utilization", "90 % utilization",
                                         "95 % utilization"]
    sizes = sorted(size for _, size in SIZES)
    for s, util in zip(series, sorted(UTILS)):
        assert s.line_value == util
        assert s.xs == sizes
        want = [_wa(util, size) for size in sizes]
        thr = [_thr(util, size) for size in sizes]
        if util == 0.95:                 # seed 2 of (95 %, 16 MiB) has WA + 0.2: the mean
            want[-1] += 0.1
        assert s.wa_ftl == pytest.approx(want)
        assert s.throughput_mib_s == pytest.approx(thr)
        assert all(a > b for a, b in zip(want, want[1:]))   # falls as writes grow


def test_api_wa_series_by_utilization():
    series, _ = wa_series(_wa_rows(), x="utilization")
    sizes = sorted(size for _, size in SIZES)
    assert [s.label for s in series] == [f"{format_size(z)} writes" for z in sizes]
    for s, size in zip(series, sizes):
        assert s.xs == sorted(UTILS)
        want = [_wa(u, size) + (0.1 if (u, size) == (0.95, 16 * MIB) else 0)
                for u in sorted(UTILS)]
        assert s.wa_ftl == pytest.approx(want)


def test_api_plot_wa_two_panels(wa_csv, tmp_path):
    fig = plot_wa(load_rows(wa_csv), str(tmp_path / "wa.png"))
    ax_wa, ax_thr = fig.axes
    assert ax_wa.get_ylabel() == "FTL write amplification (×)"
    assert ax_thr.get_ylabel() == "throughput (MiB/s)"
    for ax in (ax_wa, ax_thr):
        assert ax.get_xscale() == "log"
        assert ax.get_xlabel() == "write size (log₂ scale)"
        assert [t.get_text() for t in ax.get_xticklabels()] == \
            ["4 KiB", "256 KiB", "1 MiB", "16 MiB"]
    lines = _data_lines(ax_wa)
    ref = [ln for ln in lines if ln.get_label() == "WA = 1"]
    assert len(ref) == 1 and list(ref[0].get_ydata()) == [1, 1]
    curves = [ln for ln in lines if ln.get_label() != "WA = 1"]
    assert [ln.get_label() for ln in curves] == ["80 % utilization", "90 % utilization",
                                                 "95 % utilization"]
    assert list(curves[0].get_xdata()) == sorted(size for _, size in SIZES)
    assert list(curves[1].get_ydata()) == pytest.approx(
        [_wa(0.9, size) for size in sorted(size for _, size in SIZES)])
    assert list(_data_lines(ax_thr)[2].get_ydata()) == pytest.approx(
        [_thr(0.95, size) for size in sorted(size for _, size in SIZES)])
    assert ax_wa.get_ylim()[0] == 0.0 and ax_wa.get_ylim()[1] > _wa(0.95, 4 * KIB)
    _check_legend_outside(fig)


def test_api_plot_wa_one_panel_without_throughput(tmp_path):
    rows = [r for r in _wa_rows(throughput=False)]
    fig = plot_wa(rows, str(tmp_path / "wa.png"))
    assert len(fig.axes) == 1
    rows = [{k: v for k, v in r.items() if k != "throughput_mib_s"} for r in rows]
    assert len(plot_wa(rows, str(tmp_path / "wa2.png")).axes) == 1


def test_api_plot_wa_utilization_axis(tmp_path):
    fig = plot_wa(_wa_rows(), str(tmp_path / "wa.png"), x="utilization")
    ax = fig.axes[0]
    assert ax.get_xlabel() == "device utilization (%)"
    assert [t.get_text() for t in ax.get_xticklabels()] == ["80", "90", "95"]
    assert list(_data_lines(ax)[0].get_xdata()) == pytest.approx([80, 90, 95])


def test_api_wa_extra_parameter_splits_lines(tmp_path):
    rows = _wa_rows()[:len(UTILS) * len(SIZES)]
    rows += [dict(r, **{"device.gc_policy": "fifo"}, wa_ftl=r["wa_ftl"] + 1) for r in rows]
    for r in rows:
        r.setdefault("device.gc_policy", "greedy")
    series, _ = wa_series(rows)
    assert [s.label for s in series][:2] == ["80 % utilization, gc_policy=greedy",
                                             "80 % utilization, gc_policy=fifo"]
    assert series[1].wa_ftl == pytest.approx([w + 1 for w in series[0].wa_ftl])


@pytest.mark.parametrize("column", ["trace.io_size", "device.utilization", "wa_ftl"])
def test_cli_wa_missing_column(tmp_path, column):
    path = _write_csv(tmp_path / "nocol.csv", _wa_rows(),
                      [c for c in WA_COLUMNS if c != column])
    out = tmp_path / "x.png"
    proc = _run("wa", path, "-o", out)
    assert proc.returncode == 2
    assert column in proc.stderr and "nocol.csv" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not out.exists()


def test_cli_wa_bad_size_names_line(tmp_path):
    rows = _wa_rows()
    rows[3]["trace.io_size"] = "4kb"
    path = _write_csv(tmp_path / "bad.csv", rows, WA_COLUMNS)
    proc = _run("wa", path, "-o", tmp_path / "x.png")
    assert proc.returncode == 2
    assert "line 5" in proc.stderr and "'4kb'" in proc.stderr and "trace.io_size" in proc.stderr


def test_cli_wa_nothing_to_plot(tmp_path):
    rows = [dict(r, **{"framework.name": "ripq"}) for r in _wa_rows()]
    path = _write_csv(tmp_path / "ripq.csv", rows, WA_COLUMNS)
    proc = _run("wa", path, "-o", tmp_path / "x.png")
    assert proc.returncode == 2 and "nothing to plot" in proc.stderr


# ---------------------------------------------------------------- latency

HIST = "1000:1 2000:2 4000:1"


def test_parse_histogram_and_cdf():
    pairs = parse_histogram(HIST)
    assert pairs == [(1000, 1), (2000, 2), (4000, 1)]
    xs, fs = histogram_cdf(pairs)
    assert xs == [1.0, 2.0, 4.0]                  # µs
    assert fs == [0.25, 0.75, 1.0]
    assert fs[-1] == 1.0
    xs, ts = histogram_tail(pairs)
    assert ts == [0.75, 0.25, 0.0]
    # Nearest rank: ceil(q · 4)-th request.
    assert histogram_percentile_ns(pairs, 0.25) == 1000
    assert histogram_percentile_ns(pairs, 0.26) == 2000
    assert histogram_percentile_ns(pairs, 0.5) == 2000
    assert histogram_percentile_ns(pairs, 0.75) == 2000
    assert histogram_percentile_ns(pairs, 0.99) == 4000
    assert histogram_percentile_ns(pairs, 1.0) == 4000


def test_histogram_percentile_matches_sorted_samples():
    rng = random.Random(7)
    samples = [int(rng.lognormvariate(10, 1.2)) for _ in range(5000)]
    counts = {}
    for s in samples:
        counts[s] = counts.get(s, 0) + 1
    text = " ".join(f"{v}:{c}" for v, c in sorted(counts.items()))
    pairs = parse_histogram(text)
    ordered = sorted(samples)
    for q in (0.001, 0.1, 0.5, 0.9, 0.99, 0.999, 0.9999, 1.0):
        assert histogram_percentile_ns(pairs, q) == ordered[math.ceil(q * len(samples)) - 1]
    xs, fs = histogram_cdf(pairs)
    for x, f in zip(xs[::97], fs[::97]):
        assert f == pytest.approx(sum(s <= x * 1000 for s in samples) / len(samples))


@pytest.mark.parametrize("text,fragment", [
    ("1000:1 2000", "pair 2 is '2000'"),
    ("1000:1 abc:2", "pair 2 is 'abc:2'"),
    ("1000:1,2000:2", "pair 1"),
    ("1000:-1", "pair 1"),
    ("1.5:3", "pair 1"),
    ("2000:1 1000:1", "does not ascend"),
    ("1000:1 1000:2", "does not ascend"),
    ("1000:0", "count 0"),
    ("   ", "empty"),
])
def test_parse_histogram_rejects(text, fragment):
    with pytest.raises(ResultsError) as e:
        parse_histogram(text, "line 7")
    assert fragment in str(e.value) and "line 7" in str(e.value)


LAT_COLUMNS = ["experiment", "cell", "trace.generator", "trace.io_size", "trace.requests",
               "timing.mode", "timing.clients", "device.name", "device.profile",
               "latency_p50_us", "latency_p99_us", "latency_p999_us", "latency_histogram",
               "error"]


def _hist(base_ns, n=1000):
    """A histogram of n requests: bucket k (value base·(1 + k/8)) holds n/2^(k+1) of them."""
    pairs, left = [], n
    k = 0
    while left > 0:
        c = max(1, left // 2) if k < 12 else left
        pairs.append((int(base_ns * (1 + k / 8)), c))
        left -= c
        k += 1
    return pairs


def _lat_rows():
    rows = []
    for size, reqs, base in (("4KiB", 4096, 80_000), ("1MiB", 16, 2_000_000)):
        for clients in (1, 8):
            pairs = _hist(base * clients ** 0.5)
            text = " ".join(f"{v}:{c}" for v, c in pairs)
            p = {q: histogram_percentile_ns(pairs, q) / 1000 for q in (0.5, 0.99, 0.999)}
            rows.append({"experiment": "lat", "cell": len(rows),
                         "trace.generator": "device_io", "trace.io_size": size,
                         "trace.requests": reqs, "timing.mode": "simulated",
                         "timing.clients": clients, "device.name": "simflash",
                         "device.profile": "tiny", "latency_p50_us": p[0.5],
                         "latency_p99_us": p[0.99], "latency_p999_us": p[0.999],
                         "latency_histogram": text, "error": ""})
    rows.append(dict(rows[0], cell=len(rows), latency_histogram="", latency_p50_us="",
                     latency_p99_us="", latency_p999_us="", **{"timing.mode": "none"}))
    return rows


LAT_LABELS = ["io_size=4KiB, clients=1", "io_size=4KiB, clients=8",
              "io_size=1MiB, clients=1", "io_size=1MiB, clients=8"]


@pytest.mark.parametrize("tail", [False, True])
def test_cli_latency_writes_png(tmp_path, tail):
    path = _write_csv(tmp_path / "lat.csv", _lat_rows(), LAT_COLUMNS)
    out = tmp_path / "lat.png"
    proc = _run("latency", path, "-o", out, *(["--tail"] if tail else []))
    assert proc.returncode == 0, proc.stderr
    _check_png(out)
    assert "line 6: empty latency_histogram" in proc.stderr   # the untimed row


def test_api_latency_series_labels_and_percentiles():
    series, _ = latency_series(_lat_rows()[:4])
    # timing.mode is constant among the timed rows; trace.requests follows io_size.
    assert [s.label for s in series] == LAT_LABELS
    assert series[0].pairs == _hist(80_000)
    assert set(series[0].percentiles_us) == {"p50", "p99", "p99.9"}


def test_api_plot_latency_cdf(tmp_path):
    rows = _lat_rows()
    fig = plot_latency(rows, str(tmp_path / "lat.png"))
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "linear"
    assert ax.get_xlabel() == "latency (µs, log scale)"
    assert ax.get_ylabel() == "fraction of requests ≤ latency"
    lines = _data_lines(ax)
    assert [ln.get_label() for ln in lines] == LAT_LABELS
    pairs = _hist(80_000)
    xs, fs = histogram_cdf(pairs)
    assert list(lines[0].get_xdata()) == pytest.approx([xs[0]] + xs)
    assert list(lines[0].get_ydata()) == pytest.approx([0.0] + fs)
    assert lines[0].get_ydata()[-1] == 1.0
    assert lines[0].get_drawstyle() == "steps-post"
    markers = {ln.get_label(): ln for ln in ax.get_lines() if ln.get_label().startswith("_p")}
    assert set(markers) == {"_p50", "_p99", "_p99.9"}
    p99 = [ln for ln in ax.get_lines() if ln.get_label() == "_p99"]
    assert len(p99) == 4
    assert p99[0].get_xdata()[0] == pytest.approx(rows[0]["latency_p99_us"])
    assert p99[0].get_ydata()[0] == 0.99
    _check_legend_outside(fig)


def test_api_plot_latency_tail(tmp_path):
    fig = plot_latency(_lat_rows(), str(tmp_path / "lat.png"), tail=True)
    ax = fig.axes[0]
    assert ax.get_yscale() == "log"
    assert ax.get_ylabel() == "fraction of requests > latency"
    line = _data_lines(ax)[2]
    xs, ts = histogram_tail(_hist(2_000_000))
    assert list(line.get_xdata()) == pytest.approx(xs)
    assert list(line.get_ydata()) == pytest.approx(ts[:-1] + [ts[-2]])
    # The smallest tail (1 request of 1000) is inside the y range.
    assert ax.get_ylim()[0] <= 1e-3
    p999 = [ln for ln in ax.get_lines() if ln.get_label() == "_p99.9"]
    assert p999[0].get_ydata()[0] == pytest.approx(0.001)
    _check_legend_outside(fig)


def test_latency_single_bucket(tmp_path, capsys):
    rows = _lat_rows()[:2]
    rows[1].update(latency_histogram="5000:10", latency_p50_us=5, latency_p99_us=5,
                   latency_p999_us=5)
    fig = plot_latency(rows, str(tmp_path / "cdf.png"))
    line = _data_lines(fig.axes[0])[1]
    assert list(line.get_xdata()) == [5.0, 5.0] and list(line.get_ydata()) == [0.0, 1.0]
    fig = plot_latency(rows, str(tmp_path / "tail.png"), tail=True)
    assert len(_data_lines(fig.axes[0])) == 1
    assert "row 2 (clients=8): one bucket only" in capsys.readouterr().err
    with pytest.raises(ResultsError, match="no row has a latency tail"):
        plot_latency(rows[1:], str(tmp_path / "none.png"), tail=True)


def test_latency_percentile_column_mismatch_warns(tmp_path, capsys):
    rows = _lat_rows()[:2]
    rows[1]["latency_p99_us"] = rows[1]["latency_p99_us"] * 1000   # ns written as µs
    plot_latency(rows, str(tmp_path / "lat.png"))
    err = capsys.readouterr().err
    assert "row 2: latency_p99_us" in err and "2 % apart" in err
    assert "row 1" not in err


def test_cli_latency_malformed_histogram(tmp_path):
    rows = _lat_rows()
    rows[2]["latency_histogram"] = "1000:1 2000:x"
    path = _write_csv(tmp_path / "bad.csv", rows, LAT_COLUMNS)
    out = tmp_path / "x.png"
    proc = _run("latency", path, "-o", out)
    assert proc.returncode == 2
    assert "bad.csv: line 4: malformed latency_histogram: pair 2 is '2000:x'" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not out.exists()


def test_cli_latency_missing_column_and_no_timed_rows(tmp_path):
    path = _write_csv(tmp_path / "nocol.csv", _lat_rows(),
                      [c for c in LAT_COLUMNS if c != "latency_histogram"])
    proc = _run("latency", path, "-o", tmp_path / "x.png")
    assert proc.returncode == 2
    assert "latency_histogram" in proc.stderr and "nocol.csv" in proc.stderr
    path = _write_csv(tmp_path / "untimed.csv", _lat_rows()[-1:], LAT_COLUMNS)
    proc = _run("latency", path, "-o", tmp_path / "x.png")
    assert proc.returncode == 2 and "nothing to plot" in proc.stderr


# ---------------------------------------------------------------- sim-vs-real

SVR_COLUMNS = ["experiment", "cell", "trace.pattern", "trace.io_size", "trace.requests",
               "framework.name", "timing.mode", "device.name", "device.profile",
               "device.path", "device.utilization", "throughput_mib_s", "latency_p50_us",
               "latency_p99_us", "latency_p999_us", "object_hit_ratio", "error"]
CONFIGS = [("uniform_random", "4KiB", 262144), ("uniform_random", "1MiB", 1024),
           ("sequential", "4KiB", 262144), ("sequential", "1MiB", 1024)]
CONFIG_LABELS = ["pattern=uniform_random, io_size=4KiB", "pattern=uniform_random, io_size=1MiB",
                 "pattern=sequential, io_size=4KiB", "pattern=sequential, io_size=1MiB"]
METRICS = ["throughput_mib_s", "latency_p50_us", "latency_p99_us", "latency_p999_us"]


def _metrics(i, real):
    f = 1.3 if real else 1.0
    return {"throughput_mib_s": round((100 + 50 * i) / f, 3),
            "latency_p50_us": round((20 + 5 * i) * f, 3),
            "latency_p99_us": round((80 + 9 * i) * f, 3),
            "latency_p999_us": round((300 + 11 * i) * f, 3)}


def _svr_rows(utils=(0.9,)):
    rows = []
    for i, (pattern, size, reqs) in enumerate(CONFIGS):
        for util in utils:
            rows.append({"experiment": "svr", "cell": len(rows), "trace.pattern": pattern,
                         "trace.io_size": size, "trace.requests": reqs,
                         "framework.name": "direct", "timing.mode": "simulated",
                         "device.name": "simflash", "device.profile": "tiny",
                         "device.path": "", "device.utilization": util,
                         "object_hit_ratio": "", "error": "",
                         **_metrics(i + (util - 0.9) * 10, real=False)})
        if i == 3:
            continue                          # no real run of the last configuration
        real = {"experiment": "svr", "cell": len(rows), "trace.pattern": pattern,
                "trace.io_size": size, "trace.requests": reqs, "framework.name": "direct",
                "timing.mode": "wall", "device.name": "block", "device.profile": "",
                "device.path": "/dev/nvme0n1", "device.utilization": "",
                "object_hit_ratio": "", "error": "", **_metrics(i, real=True)}
        if i == 1:
            real["latency_p999_us"] = ""      # a metric the real run lacks
        rows.append(real)
    rows.append(dict(rows[0], cell=len(rows), **{"device.name": "null"}))   # ignored
    return rows


def test_api_sim_vs_real_cells():
    d = sim_vs_real_cells(_svr_rows())
    assert d.configs == CONFIG_LABELS
    assert d.variants == ["simflash", "block"]
    assert [c for c, _ in d.metrics] == METRICS          # no hit ratios: four panels
    for i, config in enumerate(CONFIG_LABELS):
        for col in METRICS:
            assert d.values[(col, config, "simflash")] == _metrics(i, False)[col]
            if i < 3 and not (i == 1 and col == "latency_p999_us"):
                assert d.values[(col, config, "block")] == _metrics(i, True)[col]
    missing = {(col, config, variant) for col, config, variant, _ in d.missing}
    assert missing == {("latency_p999_us", CONFIG_LABELS[1], "block")} | {
        (col, CONFIG_LABELS[3], "block") for col in METRICS}


def test_api_sim_vs_real_errors():
    # Real throughput is 1/1.3 of the simulated one, real latencies 1.3 times: the simulation's
    # error is +30 % on throughput and 1/1.3 − 1 = −23.08 % on latency, hand-computed.
    err = sim_vs_real_errors(sim_vs_real_cells(_svr_rows()))
    for i, config in enumerate(CONFIG_LABELS[:3]):
        sim, real = _metrics(i, False), _metrics(i, True)
        assert err[("throughput_mib_s", config)] == pytest.approx(
            (sim["throughput_mib_s"] - real["throughput_mib_s"]) / real["throughput_mib_s"])
        assert err[("throughput_mib_s", config)] == pytest.approx(0.3, abs=2e-4)
        assert err[("latency_p50_us", config)] == pytest.approx(1 / 1.3 - 1, abs=1e-6)
    # No real value, no error: the last configuration, and p99.9 of the second.
    assert ("throughput_mib_s", CONFIG_LABELS[3]) not in err
    assert ("latency_p999_us", CONFIG_LABELS[1]) not in err


def test_api_sim_vs_real_device_variants():
    d = sim_vs_real_cells(_svr_rows(utils=(0.8, 0.9)))
    assert d.variants == ["simflash (utilization=0.8)", "simflash (utilization=0.9)", "block"]
    assert d.configs == CONFIG_LABELS
    assert d.values[("throughput_mib_s", CONFIG_LABELS[2], "simflash (utilization=0.8)")] == \
        _metrics(2 - 1, False)["throughput_mib_s"]
    assert d.values[("throughput_mib_s", CONFIG_LABELS[2], "simflash (utilization=0.9)")] == \
        _metrics(2, False)["throughput_mib_s"]


def test_api_sim_vs_real_hit_ratio_panel_for_cache_cells(tmp_path, capsys):
    rows = _svr_rows()
    cache = []
    for i, (dev, ohr) in enumerate((("simflash", 0.42), ("block", 0.41), ("simflash", ""))):
        cache.append(dict(rows[0 if dev == "simflash" else 1], **{"framework.name": "ripq"},
                          **{"trace.pattern": "zipf", "trace.io_size": ["4KiB", "4KiB",
                                                                         "1MiB"][i]},
                          object_hit_ratio=ohr))
    d = sim_vs_real_cells(rows + cache)
    assert [c for c, _ in d.metrics] == METRICS + ["object_hit_ratio"]
    # framework.name is fixed by the pattern here, so it is left out of the labels.
    zipf4k, zipf1m = "pattern=zipf, io_size=4KiB", "pattern=zipf, io_size=1MiB"
    assert d.configs == CONFIG_LABELS + [zipf4k, zipf1m]
    assert d.values[("object_hit_ratio", zipf4k, "simflash")] == 0.42
    assert d.values[("object_hit_ratio", zipf4k, "block")] == 0.41
    # Direct cells have no hit ratio by design: no gap is reported for them; the ripq cell
    # without one is.
    hr_gaps = {(c, v, w) for col, c, v, w in d.missing if col == "object_hit_ratio"}
    assert hr_gaps == {(zipf1m, "simflash", "row 11"), (zipf1m, "block", None),
                       (CONFIG_LABELS[3], "block", None)}
    fig = plot_sim_vs_real(rows + cache, str(tmp_path / "svr.png"))
    assert fig.axes[-1].get_ylabel() == "object-wise hit ratio"
    assert [p.get_height() for p in fig.axes[-1].containers[0]] == [0.42]
    assert len([t for t in fig.axes[-1].texts if t.get_text() == "n/a"]) == 3
    assert "row 11 (" + zipf1m + " / simflash): no value for object_hit_ratio" in \
        capsys.readouterr().err


def test_api_plot_sim_vs_real(tmp_path, capsys):
    fig = plot_sim_vs_real(_svr_rows(), str(tmp_path / "svr.png"))
    axes = fig.axes
    assert [ax.get_ylabel() for ax in axes] == ["throughput (MiB/s)", "p50 latency (µs)",
                                                "p99 latency (µs)", "p99.9 latency (µs)"]
    # One parameter per line under each group.
    assert [t.get_text() for t in axes[-1].get_xticklabels()] == \
        [c.replace(", ", "\n") for c in CONFIG_LABELS]
    for ax, col in zip(axes, METRICS):
        assert [c.get_label() for c in ax.containers] == ["simflash", "block"]
        sim, real = ax.containers
        assert [p.get_height() for p in sim] == [_metrics(i, False)[col] for i in range(4)]
        want = [_metrics(i, True)[col] for i in range(3)
                if not (i == 1 and col == "latency_p999_us")]
        assert [p.get_height() for p in real] == want
        notes = [t for t in ax.texts if t.get_text() == "n/a"]
        assert len(notes) == (2 if col == "latency_p999_us" else 1)
    err = capsys.readouterr().err
    assert "neither simflash nor block: 1 × null" in err
    assert f"{CONFIG_LABELS[3]}: no block row; its bars are left out (n/a)" in err
    assert f"row 4 ({CONFIG_LABELS[1]} / block): no value for latency_p999_us" in err
    _check_legend_outside(fig)


def test_cli_sim_vs_real_writes_png(tmp_path):
    path = _write_csv(tmp_path / "svr.csv", _svr_rows(utils=(0.8, 0.9)), SVR_COLUMNS)
    out = tmp_path / "svr.png"
    proc = _run("sim-vs-real", path, "-o", out)
    assert proc.returncode == 0, proc.stderr
    _check_png(out)


@pytest.mark.parametrize("column", ["device.name", "throughput_mib_s", "latency_p99_us"])
def test_cli_sim_vs_real_missing_column(tmp_path, column):
    path = _write_csv(tmp_path / "nocol.csv", _svr_rows(),
                      [c for c in SVR_COLUMNS if c != column])
    out = tmp_path / "x.png"
    proc = _run("sim-vs-real", path, "-o", out)
    assert proc.returncode == 2
    assert column in proc.stderr and "nocol.csv" in proc.stderr
    assert not out.exists()


def test_cli_sim_vs_real_needs_both_devices(tmp_path):
    rows = [r for r in _svr_rows() if r["device.name"] != "block"]
    path = _write_csv(tmp_path / "simonly.csv", rows, SVR_COLUMNS)
    proc = _run("sim-vs-real", path, "-o", tmp_path / "x.png")
    assert proc.returncode == 2
    assert "no row with device.name = block" in proc.stderr


# ---------------------------------------------------------------- loading


def test_cli_unreadable_inputs(tmp_path):
    proc = _run("wa", tmp_path / "nope.csv", "-o", tmp_path / "x.png")
    assert proc.returncode == 2 and "nope.csv" in proc.stderr
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"a": 1}\n[1, 2]\n')
    proc = _run("latency", bad, "-o", tmp_path / "x.png")
    assert proc.returncode == 2 and "line 2" in proc.stderr and "JSON object" in proc.stderr
    short = tmp_path / "short.csv"
    short.write_text("a,b\n1\n")
    proc = _run("wa", short, "-o", tmp_path / "x.png")
    assert proc.returncode == 2 and "line 2 has 1 fields" in proc.stderr
    proc = _run("wa", tmp_path / "nope.csv", "-o", tmp_path / "x.png", "--x", "time")
    assert proc.returncode == 2  # argparse usage error


def test_cli_unwritable_output(wa_csv, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    proc = _run("wa", wa_csv, "-o", blocker / "x.png")
    assert proc.returncode == 2 and "cannot write figure" in proc.stderr


def test_load_rows_jsonl_null_is_empty(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text('{"device.name": "simflash", "wa_ftl": 2.5, "x": null, "ok": true}\n\n'
                    '{"device.name": "block", "error": "boom"}\n')
    rows = load_rows(str(path))
    assert len(rows) == 1
    assert rows[0] == {"device.name": "simflash", "wa_ftl": "2.5", "x": "", "ok": "true",
                       "error": ""}
    assert rows[0].where == "line 1"
