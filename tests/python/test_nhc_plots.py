"""Tests for plots/nhc.py (CLI and Python API).

Run from the repository root:  /usr/bin/python3 -m pytest tests/python -q
"""

import csv
import os
import subprocess
import sys

import pytest

from flashpq.plots.nhc import ResultsError, series

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(REPO_ROOT, "plots", "nhc.py")
COLUMNS = ["tiers.mode", "timing.rate", "throughput_rps", "throughput_mib_s",
           "flash_throughput_mib_s", "backing_throughput_mib_s", "error"]


def write(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(COLUMNS)
        for r in rows:
            w.writerow(r)
    return str(path)


ROWS = [
    ["wa", "20000", "20000", "78.1", "78.9", "0.8", ""],
    ["wa", "10000", "10000", "39.1", "39.5", "0.4", ""],
    ["nhc_wa", "10000", "10000", "39.1", "36.1", "3.0", ""],
    ["nhc_wa", "20000", "20000", "78.1", "73.1", "5.3", ""],
    ["wa", "30000", "", "", "", "", "device simflash: write failed"],
]


def test_series_groups_by_mode_and_sorts_by_rate(tmp_path):
    from flashpq.plots.results import load_results
    rows = load_results(write(tmp_path / "r.csv", ROWS))
    s = series(rows)
    assert list(s) == ["wa", "nhc_wa"]
    assert [p[0] for p in s["wa"]] == [10000, 20000]  # the failed row is skipped
    assert s["nhc_wa"][1] == (20000, 20000, 78.1, 73.1, 5.3)


def test_two_rows_of_one_mode_and_rate_is_an_error(tmp_path):
    from flashpq.plots.results import load_results
    rows = load_results(write(tmp_path / "r.csv", ROWS[:2] + [ROWS[0]]))
    with pytest.raises(ResultsError, match="a second row of tiers.mode wa at timing.rate 20000"):
        series(rows)


def test_cli_writes_a_png_and_refuses_a_file_without_the_columns(tmp_path):
    out = tmp_path / "f.png"
    r = subprocess.run([sys.executable, SCRIPT, write(tmp_path / "r.csv", ROWS), "-o", str(out)],
                       capture_output=True, text=True, cwd=REPO_ROOT)
    assert r.returncode == 0, r.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    bad = tmp_path / "bad.csv"
    bad.write_text("tiers.mode,error\nwa,\n")
    r = subprocess.run([sys.executable, SCRIPT, str(bad), "-o", str(out)],
                       capture_output=True, text=True, cwd=REPO_ROOT)
    assert r.returncode == 2
    assert "nhc.py: error:" in r.stderr and "timing.rate" in r.stderr
