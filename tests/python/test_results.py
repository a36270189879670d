"""Tests for flashpq/plots/results.py, the one loader of results files, and for every figure reading
JSON Lines as it reads CSV.

Run from the repository root:  /usr/bin/python3 -m pytest tests/python -q
The cross-format test runs the ``flashpq`` binary of the build (``$FLASHPQ_BINARY``, default
``build/flashpq``): ``make test`` builds it before running these.
"""

import importlib
import csv
import json
import os
import subprocess
import sys

import pytest

import test_flash_plots as flash_fixtures
import test_frameworks_plots as frameworks_fixtures
import test_plots as hit_ratio_fixtures
from flashpq.plots import flash, frameworks, results
hit_ratio_vs_size = importlib.import_module("flashpq.plots.hit_ratio_vs_size")
from flashpq.plots.results import ResultsError

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FLASHPQ = os.environ.get("FLASHPQ_BINARY", os.path.join(REPO_ROOT, "build", "flashpq"))
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _as_json_value(text):
    """A CSV field as the C++ writer puts it in JSON Lines: numbers unquoted, empty as null."""
    if text == "":
        return None
    try:
        float(text)
        return json.loads(text) if text.lower() not in ("nan", "inf", "-inf") else text
    except ValueError:
        return text


def _write_both(tmp_path, name, rows, columns):
    """The same rows as NAME.csv and NAME.jsonl; returns the two paths."""
    csv_path = tmp_path / f"{name}.csv"
    with open(csv_path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(columns)
        for r in rows:
            w.writerow([r.get(c, "") for c in columns])
    jsonl_path = tmp_path / f"{name}.jsonl"
    with open(jsonl_path, "w") as f:
        # A blank first line (skipped) puts row i on line i + 1 in both files, so the messages
        # and locations the figures derive from rows ("line N") agree too.
        f.write("\n")
        for r in rows:
            obj = {c: _as_json_value(str(r.get(c, ""))) for c in columns}
            f.write(json.dumps(obj) + "\n")
    return str(csv_path), str(jsonl_path)


def _plain(rows):
    return [dict(r) for r in rows]


# --------------------------------------------------------------------------
# The loader
# --------------------------------------------------------------------------

def test_format_follows_the_extension_as_the_writer_decides():
    assert results.is_json_results("x.jsonl") and results.is_json_results("x.JSON")
    assert not results.is_json_results("x.csv") and not results.is_json_results("x.txt")


def test_awkward_fields_read_the_same_from_csv_and_jsonl(tmp_path):
    rows = [
        {"cell": "0", "trace.path": "a,b.csv", "block_notes": 'said "no"; then, yes',
         "object_hit_ratio": "0.25", "error": ""},
        {"cell": "1", "trace.path": "line\nbreak", "block_notes": "",
         "object_hit_ratio": "", "error": ""},
    ]
    columns = ["cell", "trace.path", "block_notes", "object_hit_ratio", "error"]
    c, j = _write_both(tmp_path, "awkward", rows, columns)
    a, b = results.load_results(c), results.load_results(j)
    assert _plain(a) == _plain(b) == rows
    assert [r.where for r in a] == ["line 2", "line 4"]  # the CSV record's last line
    assert [r.where for r in b] == ["line 2", "line 3"]


def test_nested_json_objects_read_as_the_compact_text_the_csv_holds(tmp_path):
    obj = {"min": 100, "max": 9000, "mean": 2500.5, "N": 4,
           "percentile": {"50.000000": 2000, "99.000000": 9000}}
    compact = json.dumps(obj, separators=(",", ":"))
    (tmp_path / "n.csv").write_text("cell,clat_ns,iops\n0," + '"' + compact.replace('"', '""') +
                                    '"' + ",12.5\n")
    (tmp_path / "n.jsonl").write_text(json.dumps({"cell": 0, "clat_ns": obj, "iops": 12.5}) + "\n")
    a = results.load_results(str(tmp_path / "n.csv"))
    b = results.load_results(str(tmp_path / "n.jsonl"))
    assert _plain(a) == _plain(b) == [{"cell": "0", "clat_ns": compact, "iops": "12.5"}]


def test_json_null_true_false_and_missing_keys(tmp_path):
    p = tmp_path / "r.jsonl"
    p.write_text('{"a": null, "b": true, "c": false, "d": 3}\n{"a": 1}\n')
    rows = results.load_results(str(p))
    assert _plain(rows) == [{"a": "", "b": "true", "c": "false", "d": "3"},
                            {"a": "1", "b": "", "c": "", "d": ""}]


def test_malformed_json_line_names_file_and_line(tmp_path):
    p = tmp_path / "bad.jsonl"
    p.write_text('{"a": 1}\n{"a": \n')
    with pytest.raises(ResultsError, match=r"bad.jsonl: line 2: not valid JSON"):
        results.load_results(str(p))
    p.write_text('{"a": 1}\n[1, 2]\n')
    with pytest.raises(ResultsError, match=r"bad.jsonl: line 2: expected a JSON object"):
        results.load_results(str(p))


def test_failed_cells_are_dropped_with_a_warning_and_required_columns_checked(tmp_path, capsys):
    rows = [{"cell": "0", "policy.name": "lru", "error": ""},
            {"cell": "1", "policy.name": "lru", "error": "out of space"}]
    c, j = _write_both(tmp_path, "f", rows, ["cell", "policy.name", "error"])
    for path in (c, j):
        assert [r["cell"] for r in results.load_results(path, prog="t")] == ["0"]
        assert "t: warning:" in capsys.readouterr().err
        with pytest.raises(ResultsError, match="missing required column 'byte_hit_ratio'"):
            results.load_results(path, ("byte_hit_ratio",))


@pytest.mark.skipif(not os.access(FLASHPQ, os.X_OK), reason="needs the flashpq binary (make build)")
def test_csv_and_jsonl_written_by_flashpq_read_the_same(tmp_path):
    # Cells whose rows are deterministic (no wall clock): a cache on the exact framework and a
    # timed simflash cell with latency columns and a histogram.
    trace = os.path.join(REPO_ROOT, "traces", "data", "adaptsize-request.oracleGeneral.zst")
    yaml = tmp_path / "x.yaml"
    yaml.write_text(
        f"trace: {{path: {trace}}}\n"
        "cache: {capacity: 16MiB}\n"
        "framework: {name: ripq, block_size: 256KiB}\n"
        "device: {name: simflash, utilization: 0.8, blocks_per_plane: 512}\n"
        "timing: {mode: simulated}\n"
        "matrix:\n  policy.name: [fifo, gdsf]\n")
    out = {}
    for ext in ("csv", "jsonl"):
        path = tmp_path / f"out.{ext}"
        proc = subprocess.run([FLASHPQ, "run", str(yaml), "-o", str(path)],
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        out[ext] = results.load_results(str(path))
    assert len(out["csv"]) == 2
    for a, b in zip(out["csv"], out["jsonl"]):
        a.pop("wall_seconds"), b.pop("wall_seconds")
        # The same columns (a row carries its cell's: policy.segments only where the policy
        # reads it); a CSV lists them in the header's order, JSON Lines as first met.
        assert set(a) == set(b)
        assert dict(a) == dict(b)
    assert out["csv"][0]["latency_histogram"] != ""


# --------------------------------------------------------------------------
# Every figure reads JSON Lines as CSV
# --------------------------------------------------------------------------

def _run(script, *args):
    return subprocess.run([sys.executable, os.path.join(REPO_ROOT, "plots", script), *args],
                          capture_output=True, text=True)


def _check_png(path):
    with open(path, "rb") as f:
        assert f.read(8) == PNG_SIGNATURE


def test_hit_ratio_vs_size_reads_jsonl(tmp_path):
    c, j = _write_both(tmp_path, "hr", hit_ratio_fixtures._rows(), hit_ratio_fixtures.COLUMNS)
    rc, rj = hit_ratio_vs_size.load_results(c), hit_ratio_vs_size.load_results(j)
    assert hit_ratio_vs_size._prepare(rc, quiet=True) == hit_ratio_vs_size._prepare(rj, quiet=True)
    proc = _run("hit_ratio_vs_size.py", j, "-o", str(tmp_path / "hr.png"))
    assert proc.returncode == 0, proc.stderr
    _check_png(tmp_path / "hr.png")


@pytest.mark.parametrize("command", ["fidelity", "wa", "k-sensitivity"])
def test_frameworks_reads_jsonl(tmp_path, command):
    fixture = (frameworks_fixtures._k_rows() if command == "k-sensitivity"
               else frameworks_fixtures._fig8_rows())
    c, j = _write_both(tmp_path, "fw", fixture, frameworks_fixtures.COLUMNS)
    rc, rj = results.load_results(c), results.load_results(j)
    if command == "k-sensitivity":
        assert frameworks.k_series(rc) == frameworks.k_series(rj)
    else:
        column = "wa_implementation" if command == "wa" else "object_hit_ratio"
        bounded = command != "wa"  # a WA is not a fraction
        assert (frameworks.grouped_cells(rc, column, bounded) ==
                frameworks.grouped_cells(rj, column, bounded))
    proc = _run("frameworks.py", command, j, "-o", str(tmp_path / "fw.png"))
    assert proc.returncode == 0, proc.stderr
    _check_png(tmp_path / "fw.png")


@pytest.mark.parametrize("command", ["wa", "latency", "sim-vs-real"])
def test_flash_reads_jsonl(tmp_path, command):
    if command == "wa":
        rows, columns = flash_fixtures._wa_rows(), flash_fixtures.WA_COLUMNS
        series = flash.wa_series
    elif command == "latency":
        rows, columns = flash_fixtures._lat_rows(), flash_fixtures.LAT_COLUMNS
        series = flash.latency_series
    else:
        rows, columns = flash_fixtures._svr_rows(), flash_fixtures.SVR_COLUMNS
        series = flash.sim_vs_real_cells
    c, j = _write_both(tmp_path, "fl", rows, columns)
    assert series(flash.load_rows(c)) == series(flash.load_rows(j))
    proc = _run("flash.py", command, j, "-o", str(tmp_path / "fl.png"))
    assert proc.returncode == 0, proc.stderr
    _check_png(tmp_path / "fl.png")
