"""Tests for plots/curves.py (the figure of ``flashpq mrc``'s curves).

Run from the repository root:  /usr/bin/python3 -m pytest tests/python -q
"""

import importlib
import csv
import os

curves = importlib.import_module("flashpq.plots.curves")

COLUMNS = ["curve_method", "curve_sample_rate", "curve_exact", "trace.path", "cache.unit_size",
           "policy.name", "framework.name", "cache_capacity_bytes", "object_hit_ratio",
           "byte_hit_ratio", "wa_combined"]


def _write(path, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        for r in rows:
            w.writerow(r)
    return str(path)


def _row(method, rate, policy, fw, size, hr, wa=""):
    return {"curve_method": method, "curve_sample_rate": rate, "curve_exact": "false",
            "trace.path": "/t/w106.oracleGeneral.zst", "cache.unit_size": "true",
            "policy.name": policy, "framework.name": fw, "cache_capacity_bytes": size,
            "object_hit_ratio": hr, "byte_hit_ratio": hr, "wa_combined": wa}


def test_series_by_policy_framework_and_method(tmp_path):
    rows = [_row("exact_lru", 1, "lru", "exact", 200, 0.9), _row("exact_lru", 1, "lru", "exact",
                                                                    100, 0.8),
            _row("minisim", 0.01, "slru", "ripq", 100, 0.7, 1.5)]
    path = _write(tmp_path / "c.csv", rows)
    loaded = curves.load_results(path, curves.COLUMNS)
    lines = curves.series(loaded)
    # Sorted by size; the right panel is WA once any row has it (empty elsewhere: NaN).
    exact = lines[("lru", "exact", "exact_lru", 1.0)]
    assert [p[:2] for p in exact] == [(100.0, 0.8), (200.0, 0.9)]
    assert lines[("slru", "ripq", "minisim", 0.01)][0][2] == 1.5
    assert curves.label(("slru", "ripq", "minisim", 0.01)) == "slru / ripq (minisim 1%)"
    assert curves.label(("lru", "exact", "exact_lru", 1.0)) == "lru / exact (exact_lru)"


def test_draws_a_figure_from_several_files(tmp_path):
    a = _write(tmp_path / "a.csv", [_row("exact_lru", 1, "lru", "exact", s, h)
                                    for s, h in ((10, 0.5), (100, 0.7), (1000, 0.8))])
    b = _write(tmp_path / "b.csv", [_row("shards", 0.01, "lru", "exact", s, h)
                                    for s, h in ((10, 0.52), (100, 0.69), (1000, 0.81))])
    out = tmp_path / "fig.png"
    assert curves.main([a, b, "-o", str(out)]) == 0
    assert os.path.getsize(out) > 1000


def test_a_missing_column_is_a_user_error(tmp_path, capsys):
    path = tmp_path / "bad.csv"
    path.write_text("cache_capacity_bytes,object_hit_ratio\n10,0.5\n", encoding="utf-8")
    assert curves.main([str(path), "-o", str(tmp_path / "f.png")]) == 2
    assert "curve_method" in capsys.readouterr().err


def test_curve_error_matches_sizes_and_reports_mae(tmp_path, capsys):
    from flashpq.plots import curve_error
    ref = _write(tmp_path / "ref.csv", [_row("exact_lru", 1, "lru", "exact", s, h)
                                        for s, h in ((10, 0.5), (100, 0.7), (1000, 0.8))])
    cur = _write(tmp_path / "cur.csv", [_row("shards", 0.01, "lru", "exact", s, h)
                                        for s, h in ((10, 0.52), (100, 0.69), (5000, 0.9))])
    assert curve_error.main([ref, cur]) == 0
    out = capsys.readouterr().out
    # Sizes 10 and 100 are shared: errors 0.02 and 0.01.
    assert "2 sizes, object MAE 0.0150 (max 0.0200)" in out
    other = _write(tmp_path / "other.csv", [_row("shards", 0.01, "lru", "exact", 7, 0.5)])
    assert curve_error.main([ref, other]) == 2
    assert "no size in common" in capsys.readouterr().err
