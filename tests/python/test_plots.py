"""Tests for plots/hit_ratio_vs_size.py (CLI and Python API).

Run from the repository root:  /usr/bin/python3 -m pytest tests/python -q
"""

import csv
import os
import subprocess
import sys

import pytest

from flashpq.plots.hit_ratio_vs_size import (
    ResultsError,
    load_results,
    plot_hit_ratio_vs_size,
)

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(REPO_ROOT, "plots", "hit_ratio_vs_size.py")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
MIB = 2 ** 20

SIZES_MIB = [16, 64, 256, 1024]
# policy name, segments, base object hit ratio
POLICIES = [("fifo", 1, 0.30), ("lru", 1, 0.36), ("slru", 3, 0.42)]
EXPECTED_LABELS = ["fifo", "lru", "slru-3"]

# Deliberately not in "natural" order, with extra columns and an error column.
COLUMNS = [
    "byte_hit_ratio", "trace.path", "policy.segments", "cache.capacity",
    "framework.name", "requests", "policy.name", "object_hit_ratio",
    "device.name", "get_requests", "hits", "cache_capacity_bytes", "error",
]


def _rows():
    rows = []
    # Emit sizes largest-first so the plot has to sort them.
    for name, segs, base in POLICIES:
        for k, mib in enumerate(reversed(SIZES_MIB)):
            step = len(SIZES_MIB) - 1 - k
            ohr = round(base + 0.12 * step, 4)
            bhr = round(ohr * 0.8, 4)
            rows.append({
                "policy.name": name, "policy.segments": segs,
                "cache.capacity": f"{mib}MiB",
                "cache_capacity_bytes": mib * MIB,
                "object_hit_ratio": ohr, "byte_hit_ratio": bhr,
                "framework.name": "flashpq", "device.name": "ssd0",
                "trace.path": "traces/data/adaptsize_sample.tr",
                "requests": 100000, "get_requests": 90000,
                "hits": int(ohr * 90000), "error": "",
            })
    # A failed cell: must be skipped with a warning.
    rows.append({
        "policy.name": "gdsf", "policy.segments": 2, "cache.capacity": "64MiB",
        "cache_capacity_bytes": 64 * MIB, "object_hit_ratio": "",
        "byte_hit_ratio": "", "framework.name": "flashpq",
        "device.name": "ssd0", "trace.path": "traces/data/adaptsize_sample.tr",
        "requests": "", "get_requests": "", "hits": "",
        "error": "simulator exited with status 134",
    })
    return rows


def _write_csv(path, rows, columns):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    return str(path)


@pytest.fixture
def results_csv(tmp_path):
    return _write_csv(tmp_path / "results.csv", _rows(), COLUMNS)


def _run(*args):
    return subprocess.run([sys.executable, SCRIPT, *map(str, args)],
                          capture_output=True, text=True, cwd=REPO_ROOT)


# ---------------------------------------------------------------- CLI


def test_cli_writes_png(results_csv, tmp_path):
    out = tmp_path / "fig" / "hit_ratio.png"
    proc = _run(results_csv, "-o", out)
    assert proc.returncode == 0, proc.stderr
    assert out.is_file()
    data = out.read_bytes()
    assert data.startswith(PNG_SIGNATURE)
    assert len(data) > 10 * 1024
    # The failed cell is reported, not plotted.
    assert "warning" in proc.stderr and "gdsf" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_cli_title_option(results_csv, tmp_path):
    out = tmp_path / "t.png"
    proc = _run(results_csv, "-o", out, "--title", "My trace")
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes().startswith(PNG_SIGNATURE)


def test_cli_missing_column(tmp_path):
    cols = [c for c in COLUMNS if c != "byte_hit_ratio"]
    path = _write_csv(tmp_path / "nobhr.csv", _rows(), cols)
    out = tmp_path / "x.png"
    proc = _run(path, "-o", out)
    assert proc.returncode == 2
    assert "byte_hit_ratio" in proc.stderr
    assert "nobhr.csv" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not out.exists()


def test_cli_empty_csv(tmp_path):
    path = tmp_path / "empty.csv"
    path.write_text("")
    proc = _run(path, "-o", tmp_path / "x.png")
    assert proc.returncode == 2
    assert "empty.csv" in proc.stderr and "empty" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_cli_header_only_csv(tmp_path):
    path = _write_csv(tmp_path / "header.csv", [], COLUMNS)
    proc = _run(path, "-o", tmp_path / "x.png")
    assert proc.returncode == 2
    assert "header.csv" in proc.stderr and "no data rows" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_cli_all_failed(tmp_path):
    rows = [r for r in _rows() if r["error"]]
    path = _write_csv(tmp_path / "failed.csv", rows, COLUMNS)
    proc = _run(path, "-o", tmp_path / "x.png")
    assert proc.returncode == 2
    assert "failed" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_cli_bad_value(tmp_path):
    rows = _rows()
    rows[0]["object_hit_ratio"] = "n/a"
    path = _write_csv(tmp_path / "bad.csv", rows, COLUMNS)
    proc = _run(path, "-o", tmp_path / "x.png")
    assert proc.returncode == 2
    assert "object_hit_ratio" in proc.stderr and "bad.csv" in proc.stderr
    assert "line 2" in proc.stderr  # first data row, counted as a CSV line
    assert "Traceback" not in proc.stderr


def test_cli_row_without_ratio_is_skipped(tmp_path):
    # The simulator writes an empty ratio when there is no denominator
    # (e.g. no GET requests): not a failure, just no point to draw.
    rows = _rows()
    rows[0]["object_hit_ratio"] = ""
    rows[0]["byte_hit_ratio"] = ""
    path = _write_csv(tmp_path / "novalue.csv", rows, COLUMNS)
    out = tmp_path / "nv.png"
    proc = _run(path, "-o", out)
    assert proc.returncode == 0, proc.stderr
    assert "no value" in proc.stderr
    assert out.read_bytes().startswith(PNG_SIGNATURE)


def test_cli_missing_file(tmp_path):
    proc = _run(tmp_path / "nope.csv", "-o", tmp_path / "x.png")
    assert proc.returncode == 2
    assert "nope.csv" in proc.stderr
    assert "Traceback" not in proc.stderr


# ---------------------------------------------------------------- API


def test_api_figure_structure(results_csv, tmp_path):
    rows = load_results(results_csv)
    assert len(rows) == len(POLICIES) * len(SIZES_MIB)  # failed row dropped
    out = tmp_path / "api.png"
    fig = plot_hit_ratio_vs_size(rows, str(out))
    assert out.read_bytes().startswith(PNG_SIGNATURE)

    axes = fig.get_axes()
    assert len(axes) == 2
    ylabels = ["object-wise hit ratio", "byte-wise hit ratio"]
    ycols = ["object_hit_ratio", "byte_hit_ratio"]
    for ax, ylabel, ycol in zip(axes, ylabels, ycols):
        assert ax.get_xlabel() == "cache size (MiB)"
        assert ax.get_ylabel() == ylabel
        lines = ax.get_lines()
        assert len(lines) == len(POLICIES)
        assert [ln.get_label() for ln in lines] == EXPECTED_LABELS
        lo, hi = ax.get_ylim()
        assert 0.0 <= lo < hi <= 1.0
        assert ax.get_xscale() == "log"  # 16..1024 MiB spans > 10x
        for ln, (name, _, _) in zip(lines, POLICIES):
            xs = [float(x) for x in ln.get_xdata()]
            ys = [float(y) for y in ln.get_ydata()]
            assert xs == sorted(xs)
            expected = sorted(
                (int(r["cache_capacity_bytes"]) / MIB, float(r[ycol]))
                for r in rows if r["policy.name"] == name)
            assert xs == pytest.approx([x for x, _ in expected])
            assert xs == pytest.approx([float(s) for s in SIZES_MIB])
            assert ys == pytest.approx([y for _, y in expected])
            assert ln.get_marker() not in (None, "", "None")
    # Shared legend lists every policy once; without an experiment column the title is the
    # figure's kind and the trace's name.
    legend_texts = [t.get_text() for t in fig.legends[0].get_texts()]
    assert legend_texts == EXPECTED_LABELS
    assert fig._suptitle.get_text() == "hit ratio vs. cache size — adaptsize_sample.tr"


def test_api_labels_segments_and_frameworks(tmp_path):
    rows = []
    for fw in ("flashpq", "cachelib"):
        for name, segs in (("gdsf", 2), ("slru", 4), ("lru", 7)):
            for mib in (32, 48):
                rows.append({
                    "policy.name": name, "policy.segments": str(segs),
                    "cache_capacity_bytes": str(mib * MIB),
                    "object_hit_ratio": "0.5", "byte_hit_ratio": "0.4",
                    "framework.name": fw, "trace.path": "/a/b/t.csv",
                })
    fig = plot_hit_ratio_vs_size(rows, str(tmp_path / "fw.png"), title="T")
    labels = [ln.get_label() for ln in fig.axes[0].get_lines()]
    assert labels == ["gdsf-2 / flashpq", "slru-4 / flashpq", "lru / flashpq",
                      "gdsf-2 / cachelib", "slru-4 / cachelib", "lru / cachelib"]
    # 32..48 MiB spans < 10x: linear axis.
    assert fig.axes[0].get_xscale() == "linear"
    assert fig._suptitle.get_text() == "T"


def test_api_load_errors(tmp_path):
    empty = tmp_path / "e.csv"
    empty.write_text("")
    with pytest.raises(ResultsError, match="e.csv"):
        load_results(str(empty))
    cols = [c for c in COLUMNS if c != "byte_hit_ratio"]
    path = _write_csv(tmp_path / "m.csv", _rows(), cols)
    with pytest.raises(ResultsError, match="byte_hit_ratio"):
        load_results(path)
    with pytest.raises(ResultsError):
        plot_hit_ratio_vs_size([], str(tmp_path / "x.png"))
