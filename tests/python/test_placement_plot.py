"""Tests for plots/placement.py (the figures of experiments/placement/).

Run from the repository root:  /usr/bin/python3 -m pytest tests/python -q
"""

import csv
import importlib

import pytest

# The module (flashpq.plots.placement is the figure function, taking DataFrames).
placement = importlib.import_module("flashpq.plots.placement")

COLUMNS = ["wa_ftl", "device.fdp.handles", "device.precondition", "cache_capacity_bytes",
           "device_exported_bytes", "device.fdp.misplaced_fraction"]


def _write(path, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        for r in rows:
            w.writerow(dict(zip(COLUMNS, r)))
    return str(path)


def test_lines_by_fdp_and_state_sorted_by_share(tmp_path):
    path = _write(tmp_path / "c.csv", [
        (2.1, 0, "true", 100, 100, 0), (1.4, 0, "true", 100, 200, 0),
        (1.07, 3, "true", 100, 100, 0), (1.0, 3, "false", 100, 200, 0)])
    lines = placement.share_lines(placement.load_results(path, placement.SHARE_COLUMNS, "t"))
    assert lines[(False, True)] == [(50.0, 1.4), (100.0, 2.1)]
    assert lines[(True, True)] == [(100.0, 1.07)]
    assert lines[(True, False)] == [(50.0, 1.0)]


def test_misplaced_line_and_figure(tmp_path):
    shares = _write(tmp_path / "c.csv", [(2.1, 0, "true", 100, 100, 0),
                                          (1.07, 3, "true", 100, 100, 0)])
    mis = _write(tmp_path / "m.csv", [(1.3, 3, "true", 100, 100, 0.1),
                                       (1.07, 3, "true", 100, 100, 0)])
    rows = placement.load_results(mis, placement.MISPLACED_COLUMNS, "t")
    assert placement.misplaced_line(rows) == [(0.0, 1.07), (10.0, 1.3)]
    out = tmp_path / "f.png"
    assert placement.main([shares, mis, "-o", str(out)]) == 0
    assert out.stat().st_size > 1000


def test_missing_column_is_a_user_error(tmp_path, capsys):
    bad = tmp_path / "b.csv"
    bad.write_text("wa_ftl\n1.0\n", encoding="utf-8")
    assert placement.main([str(bad), str(bad), "-o", str(tmp_path / "f.png")]) == 2
    assert "device.fdp.handles" in capsys.readouterr().err


def test_the_function_on_dataframes_draws_the_scripts_figure(tmp_path):
    pd = pytest.importorskip("pandas")
    import flashpq.plots as fp
    shares = _write(tmp_path / "c.csv", [(2.1, 0, "true", 100, 100, 0),
                                          (1.4, 0, "true", 100, 200, 0),
                                          (1.07, 3, "true", 100, 100, 0)])
    mis = _write(tmp_path / "m.csv", [(1.3, 3, "true", 100, 100, 0.1),
                                       (1.07, 3, "true", 100, 100, 0)])
    assert placement.main([shares, mis, "-o", str(tmp_path / "script.png")]) == 0
    fig = fp.placement(fp.read_results(shares), fp.read_results(mis))
    fig.savefig(tmp_path / "function.png", dpi=150)  # as the script saves it
    assert (tmp_path / "function.png").read_bytes() == (tmp_path / "script.png").read_bytes()
    with pytest.raises(fp.ResultsError, match="device.fdp.handles"):
        fp.placement(pd.DataFrame({"wa_ftl": [1.0]}), fp.read_results(mis))
