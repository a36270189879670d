"""A column absent from a results file reads exactly as an empty one, in the loader and in
every figure (a results file carries only the columns of the sections its cells use: one of
exact-queue cells has no device columns at all).

Run from the repository root:  /usr/bin/python3 -m pytest tests/python -q
"""

import importlib
import csv
import json
import os
import subprocess
import sys

import pytest

import test_flash_plots as flash_fixtures
import test_frameworks_plots as fw_fixtures
import test_hit_ratio_wa as wa_fixtures
import test_plots as hr_fixtures
from flashpq.plots import flash, frameworks, paper, results
hit_ratio_vs_size = importlib.import_module("flashpq.plots.hit_ratio_vs_size")
kv_compare = importlib.import_module("flashpq.plots.kv_compare")
nhc = importlib.import_module("flashpq.plots.nhc")
from flashpq.plots.hit_ratio_wa import draw_tradeoff, load_tradeoff
from flashpq.plots.results import ResultsError

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def write_csv(path, rows, drop=()):
    """*rows* as CSV without the columns *drop*."""
    cols = [c for c in dict.fromkeys(k for r in rows for k in r) if c not in drop]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, restval="", extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    return str(path)


def write_jsonl(path, rows, drop=()):
    with open(path, "w") as f:
        for r in rows:
            f.write(json.dumps({k: v for k, v in r.items() if k not in drop}) + "\n")
    return str(path)


def absent_and_empty(tmp_path, rows, cols, name="r"):
    """Two files of *rows*: without the columns *cols*, and with them empty."""
    missing = write_csv(tmp_path / f"{name}-missing.csv", rows, drop=cols)
    empty = write_csv(tmp_path / f"{name}-empty.csv",
                      [dict(r, **{c: "" for c in cols}) for r in rows])
    with open(missing) as f:
        header = f.readline()
    assert not any(c in header.strip().split(",") for c in cols)
    return missing, empty


def strip_where(rows):
    return [dict(r) for r in rows]


# --------------------------------------------------------------------------
# The loader
# --------------------------------------------------------------------------

def test_an_absent_column_reads_as_an_empty_one(tmp_path):
    rows = [{"experiment": "e", "cell": 0, "policy.name": "lru", "framework.name": "exact",
             "object_hit_ratio": 0.5, "wa_ftl": "", "device.name": ""}]
    for path in (write_csv(tmp_path / "a.csv", rows, drop=("wa_ftl", "device.name")),
                 write_jsonl(tmp_path / "a.jsonl", rows, drop=("wa_ftl", "device.name"))):
        (row,) = results.load_results(path)
        assert "wa_ftl" not in row
        assert row["wa_ftl"] == "" and row["device.name"] == ""
        assert results.text(row, "wa_ftl") == "" and results.blank(row, "wa_ftl")
        assert results.value(row, "wa_ftl", "line 2") is None
        with pytest.raises(ResultsError, match="line 2: empty value in column 'wa_ftl'"):
            results.num(row, "wa_ftl", "line 2")
        # A column a figure needs is still named when absent.
        with pytest.raises(ResultsError, match="missing required column 'wa_ftl'"):
            results.load_results(path, ("wa_ftl",))
        with pytest.raises(ResultsError, match="missing required column 'wa_ftl'"):
            results.require(results.located([row]), ("wa_ftl",), "here")


def test_a_jsonl_line_without_a_key_reads_it_as_empty(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text('{"cell": 0, "wa_ftl": 1.5}\n{"cell": 1}\n')
    rows = results.load_results(str(path))
    assert [r["wa_ftl"] for r in rows] == ["1.5", ""]
    assert "wa_ftl" in rows[1]  # the file has the column: the line's value is empty


# --------------------------------------------------------------------------
# Every figure
# --------------------------------------------------------------------------

def test_hit_ratio_wa_without_device_columns(tmp_path):
    # Exact-queue cells only: no WA, no working set, no trace, no notes.
    rows = [r for r in wa_fixtures._rows() if r["framework.name"] == "exact"]
    cols = ("wa_implementation", "wa_ftl", "wa_combined", "trace_working_set_bytes",
            "trace.path", "notes", "error")
    missing, empty = absent_and_empty(tmp_path, rows, cols)
    assert load_tradeoff(missing) == load_tradeoff(empty)
    fig = draw_tradeoff(load_tradeoff(missing), str(tmp_path / "f.png"))
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["exact (DRAM only)"]
    p = subprocess.run([sys.executable, os.path.join(REPO_ROOT, "plots", "hit_ratio_wa.py"),
                        missing, "-o", str(tmp_path / "g.png")], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr


def test_hit_ratio_vs_size_without_framework_device_trace(tmp_path):
    cols = ("framework.name", "device.name", "trace.path", "error")
    rows = [r for r in hr_fixtures._rows() if not r["error"]]
    missing, empty = absent_and_empty(tmp_path, rows, cols)
    a = hit_ratio_vs_size.load_results(missing)
    b = hit_ratio_vs_size.load_results(empty)
    assert hit_ratio_vs_size._prepare(a, quiet=True) == hit_ratio_vs_size._prepare(b, quiet=True)
    hit_ratio_vs_size.plot_hit_ratio_vs_size(a, str(tmp_path / "f.png"))
    # policy.segments is needed for slru: named whether absent or empty.
    for path in absent_and_empty(tmp_path, rows, ("policy.segments",), "seg"):
        with pytest.raises(ResultsError, match="policy.segments"):
            hit_ratio_vs_size.load_results(path)


def test_frameworks_without_wa_or_occupancy(tmp_path):
    rows = [r for r in fw_fixtures._fig8_rows() if r["framework.name"] != "sipq"]
    missing, empty = absent_and_empty(tmp_path, rows,
                                      ("wa_implementation", "framework.occupancy", "trace.path"))
    a, b = results.load_results(missing), results.load_results(empty)
    assert frameworks.grouped_cells(a, "object_hit_ratio") == \
        frameworks.grouped_cells(b, "object_hit_ratio")
    frameworks.plot_fidelity(a, str(tmp_path / "f.png"))
    # The columns a figure needs: a clear error naming them, absent or empty.
    for path in (missing, empty):
        with pytest.raises(ResultsError, match="wa_implementation"):
            frameworks.plot_wa(results.load_results(path), str(tmp_path / "w.png"))
    sipq = fw_fixtures._fig8_rows()
    for path in absent_and_empty(tmp_path, sipq, ("framework.occupancy",), "occ"):
        with pytest.raises(ResultsError, match="framework.occupancy"):
            frameworks.grouped_cells(results.load_results(path), "object_hit_ratio")


def test_flash_wa_without_framework_throughput_seed(tmp_path):
    rows = [r for r in flash_fixtures._wa_rows()
            if not r["error"] and r["framework.name"] == "direct"]
    missing, empty = absent_and_empty(tmp_path, rows,
                                      ("framework.name", "throughput_mib_s", "seed", "error"))
    a, b = flash.load_rows(missing), flash.load_rows(empty)
    assert flash.wa_series(a) == flash.wa_series(b)
    assert not flash.wa_series(a)[1]["throughput"]
    flash.plot_wa(a, str(tmp_path / "f.png"))


def test_flash_latency_and_sim_vs_real_without_optional_columns(tmp_path):
    rows = flash_fixtures._lat_rows()
    cols = ("latency_p50_us", "latency_p99_us", "latency_p999_us", "device.profile")
    missing, empty = absent_and_empty(tmp_path, rows, cols, "lat")
    a, b = flash.load_rows(missing), flash.load_rows(empty)
    assert flash.latency_series(a) == flash.latency_series(b)
    flash.plot_latency(a, str(tmp_path / "l.png"))
    rows = flash_fixtures._svr_rows()
    missing, empty = absent_and_empty(tmp_path, rows, ("object_hit_ratio",), "svr")
    a, b = flash.load_rows(missing), flash.load_rows(empty)
    assert flash.sim_vs_real_cells(a) == flash.sim_vs_real_cells(b)
    flash.plot_sim_vs_real(a, str(tmp_path / "s.png"))


def _script(module) -> str:
    """plots/NAME.py, the command line of flashpq.plots.NAME."""
    return os.path.join(REPO_ROOT, "plots", module.__name__.rsplit(".", 1)[1] + ".py")


def test_kv_compare_and_nhc_name_a_needed_column_absent_or_empty(tmp_path):
    from test_kv_compare_plots import COLUMNS as KV, ROWS as KV_ROWS
    from test_nhc_plots import COLUMNS as NHC, ROWS as NHC_ROWS
    for module, cols, rows, col in ((kv_compare, KV, KV_ROWS, "tiers.admit_probability"),
                                    (nhc, NHC, NHC_ROWS, "backing_throughput_mib_s")):
        dicts = [dict(zip(cols, r)) for r in rows if not r[-1]]
        missing, empty = absent_and_empty(tmp_path, dicts, (col, "error"), module.PROG)
        for path in (missing, empty):
            p = subprocess.run([sys.executable, _script(module), path, "-o",
                                str(tmp_path / "x.png")], capture_output=True, text=True)
            assert p.returncode == 2 and col in p.stderr and "Traceback" not in p.stderr, \
                p.stderr
        # Without the optional experiment and error columns: drawn.
        path = write_csv(tmp_path / "ok.csv", dicts, drop=("error", "experiment"))
        p = subprocess.run([sys.executable, _script(module), path, "-o",
                            str(tmp_path / "ok.png")], capture_output=True, text=True)
        assert p.returncode == 0, p.stderr


def test_paper_reads_absent_columns_as_empty(tmp_path):
    full = {"policy.name": "sipq", "policy.segments": "", "framework.name": "sipq",
            "framework.occupancy": ""}
    bare = {"policy.name": "sipq", "framework.name": "sipq"}
    assert paper.framework(full) == paper.framework(bare) == "sipq-"
    assert paper.algorithm({"policy.name": "gdsf"}) == paper.algorithm(
        {"policy.name": "gdsf", "policy.segments": ""})
    for row in ({}, {"wa_ftl": ""}):
        with pytest.raises(paper.UserError, match="column 'wa_ftl': expected a number, found ''"):
            paper.num(row, "wa_ftl")
    # The readme's loader is that of flashpq/plots/results.py: JSON Lines too, absent = empty.
    rows = [{"policy.name": "slru", "policy.segments": 3, "framework.name": "ripq",
             "framework.insertion_points": k, "object_hit_ratio": 0.4 + k / 1000}
            for k in (2, 4, 8)]
    for path in (write_jsonl(tmp_path / "f9.jsonl", rows), write_csv(tmp_path / "f9.csv", rows)):
        facts = paper.fig9_facts(paper.load(path))
        assert facts["exact"] == {} and facts["per_k"]["slru-3"][8] == pytest.approx(0.408)
