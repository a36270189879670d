"""Tests for plots/kv_compare.py (CLI and Python API).

Run from the repository root:  /usr/bin/python3 -m pytest tests/python -q
"""

import csv
import os
import subprocess
import sys

import pytest

from flashpq.plots.kv_compare import ResultsError, table, workload

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(REPO_ROOT, "plots", "kv_compare.py")
COLUMNS = ["trace.record_count", "trace.workload", "trace.request_distribution",
           "tiers.admit_probability", "read_latency_p95_us", "write_latency_p95_us",
           "throughput_rps", "object_hit_ratio", "error"]
ROWS = [
    ["2000", "a", "zipfian", "0", "10", "10", "400000", "1", ""],
    ["2000", "a", "zipfian", "1", "10", "10", "400000", "1", ""],
    ["2000", "c", "zipfian", "1", "10", "", "400000", "1", ""],
    ["32000", "b", "uniform", "1", "224", "10", "31748", "1", ""],
    ["32000", "d", "latest", "0", "10", "10", "400000", "0.74", ""],
]


def write(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(COLUMNS)
        w.writerows(rows)
    return str(path)


def test_table_names_configurations_and_workloads(tmp_path):
    from flashpq.plots.results import load_results
    t = table(load_results(write(tmp_path / "r.csv", ROWS)))
    assert list(t) == [2000, 32000]
    assert t[2000]["a"]["DRAM only"]["throughput_rps"] == 400000
    assert t[2000]["c"]["DRAM + flash"]["write_latency_p95_us"] is None  # no writes: no bar
    assert "b-uniform" in t[32000] and "d" in t[32000]  # latest is D's own distribution


def test_workload_label():
    assert workload({"trace.workload": "b", "trace.request_distribution": "uniform"}) == \
        "b-uniform"
    assert workload({"trace.workload": "d", "trace.request_distribution": "latest"}) == "d"


def test_a_repeated_cell_is_an_error(tmp_path):
    from flashpq.plots.results import load_results
    rows = load_results(write(tmp_path / "r.csv", ROWS + [ROWS[0]]))
    with pytest.raises(ResultsError, match="a second row of 2000 records, workload a, DRAM only"):
        table(rows)


def test_cli_writes_a_png(tmp_path):
    out = tmp_path / "f.png"
    r = subprocess.run([sys.executable, SCRIPT, write(tmp_path / "r.csv", ROWS), "-o", str(out)],
                       capture_output=True, text=True, cwd=REPO_ROOT)
    assert r.returncode == 0, r.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
