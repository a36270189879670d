"""Tests for plots/sim_vs_real.py: the same cells on simflash and block, side by side.

Run from the repository root:  /usr/bin/python3 -m pytest tests/python -q
"""

import csv
import math
import os
import subprocess
import sys

import pytest

from plots.sim_vs_real import ResultsError, cell_label, collect, load, plot

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(REPO_ROOT, "plots", "sim_vs_real.py")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

COLUMNS = ["device.name", "framework.name", "trace.op", "trace.pattern", "trace.io_size",
           "policy.name", "policy.segments", "throughput_mib_s", "latency_p50_us",
           "latency_p99_us", "latency_p999_us", "object_hit_ratio", "error"]


def _row(device, framework, tput, p50, p99, p999, ohr="", op="write", policy="lru", segs=1,
         error=""):
    return {"device.name": device, "framework.name": framework, "trace.op": op,
            "trace.pattern": "uniform_random", "trace.io_size": "4KiB", "policy.name": policy,
            "policy.segments": segs, "throughput_mib_s": tput, "latency_p50_us": p50,
            "latency_p99_us": p99, "latency_p999_us": p999, "object_hit_ratio": ohr,
            "error": error}


def _write(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        w.writerows(rows)
    return str(path)


@pytest.fixture
def two_files(tmp_path):
    sim = _write(tmp_path / "sim.csv", [
        _row("simflash", "direct", 410.5, 95.0, 780.0, 3900.0),
        _row("simflash", "direct", 1200.0, 80.0, 160.0, 240.0, op="read"),
        _row("simflash", "ripq", "", "", "", "", ohr=0.41, policy="slru", segs=3),
    ])
    real = _write(tmp_path / "real.csv", [
        _row("block", "direct", 350.0, 120.0, 900.0, 5000.0),
        _row("block", "direct", 900.0, 60.0, 300.0, 800.0, op="read"),
        _row("block", "ripq", 55.0, 3.0, 40.0, 900.0, ohr=0.41, policy="slru", segs=3),
        _row("block", "ripq", "", "", "", "", error="device busy"),
    ])
    return sim, real


def test_labels_are_the_same_on_every_device():
    assert cell_label(_row("simflash", "direct", 1, 1, 1, 1)) == "direct write random 4KiB"
    assert cell_label(_row("block", "ripq", 1, 1, 1, 1, policy="slru", segs=3)) == "slru-3 / ripq"
    assert cell_label(_row("block", "exact", 1, 1, 1, 1, policy="lru")) == "lru / exact"


def test_collect_pairs_each_cell_with_both_devices(two_files, capsys):
    rows = load(list(two_files))
    assert "device busy" in capsys.readouterr().err  # the failed cell is skipped, said so
    cells, devices, values = collect(rows)
    assert cells == ["direct write random 4KiB", "direct read random 4KiB", "slru-3 / ripq"]
    assert devices == ["simflash", "block"]
    assert values[("direct write random 4KiB", "simflash")]["throughput_mib_s"] == 410.5
    assert values[("direct write random 4KiB", "block")]["p999"] == 5000.0
    assert values[("slru-3 / ripq", "block")]["object_hit_ratio"] == 0.41
    assert math.isnan(values[("slru-3 / ripq", "simflash")]["p50"])  # no timing: n/a


def test_figure_is_rendered(two_files, tmp_path):
    out = tmp_path / "fig.png"
    plot(load(list(two_files)), str(out), "test")
    with open(out, "rb") as f:
        assert f.read(8) == PNG_SIGNATURE
    assert out.stat().st_size > 10000


def test_cli_and_errors(two_files, tmp_path):
    out = tmp_path / "cli.png"
    r = subprocess.run([sys.executable, SCRIPT, *two_files, "-o", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert out.read_bytes()[:8] == PNG_SIGNATURE
    bad = tmp_path / "bad.csv"
    bad.write_text("device.name,framework.name\nblock,direct\n")
    r = subprocess.run([sys.executable, SCRIPT, str(bad), "-o", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 2
    assert "throughput_mib_s" in r.stderr
    r = subprocess.run([sys.executable, SCRIPT, str(tmp_path / "none.csv"), "-o", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 2
    with pytest.raises(ResultsError):
        load([_write(tmp_path / "failed.csv", [_row("block", "direct", 1, 1, 1, 1, error="x")])])
