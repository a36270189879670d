"""Tests for plots/timeseries.py (CLI and Python API).

Run from the repository root:  /usr/bin/python3 -m pytest tests/python -q
"""

import csv
import math
import os
import subprocess
import sys

import pytest

from flashpq.plots.timeseries import ResultsError, load, main, parse_cells

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(REPO_ROOT, "plots", "timeseries.py")


def write_csv(path, header, rows):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)
    return str(path)


SERIES_HEADER = ["interval", "time_s", "warmup", "throughput_rps", "object_hit_ratio"]


def results_dir(tmp_path):
    """A results file of three cells (0 and 1 with series, 2 without) and a failed one."""
    write_csv(str(tmp_path / "r.stats" / "cell-0.csv"), SERIES_HEADER,
              [[0, 0.5, 1, 100, 0.25], [1, 1.0, 1, 120, ""], [2, 1.5, 0, 130, 0.5]])
    write_csv(str(tmp_path / "r.stats" / "cell-1.csv"), SERIES_HEADER,
              [[0, 0.5, 1, 90, 0.2], [1, 1.0, 0, 95, 0.3]])
    return write_csv(str(tmp_path / "r.csv"),
                     ["experiment", "cell", "tiers.flash_admission", "timing.rate",
                      "stats.interval_s", "stats_file", "error"],
                     [["e", 0, "all", 8000, 0.5, "r.stats/cell-0.csv", ""],
                      ["e", 1, "rate_limited", 8000, 0.5, "r.stats/cell-1.csv", ""],
                      ["e", 2, "all", 8000, 0, "", ""],
                      ["e", 3, "all", 8000, 0.5, "", "trace: cannot open"]])


def test_parse_cells():
    assert parse_cells("0,3-5") == {0, 3, 4, 5}
    with pytest.raises(ResultsError, match="--cells: expected .* found '5-3'"):
        parse_cells("5-3")


def test_load_reads_each_cells_series_beside_the_results(tmp_path):
    path = results_dir(tmp_path)
    s = load(path, ["throughput_rps", "object_hit_ratio"], None)
    assert [x[0] for x in s] == ["cell 0, flash_admission all", "cell 1, flash_admission rate_limited"]
    label, data, time, warm_end, _style, experiment = s[0]
    assert experiment == "e"
    assert time == [0.5, 1.0, 1.5]
    assert data["throughput_rps"] == [100, 120, 130]
    assert data["object_hit_ratio"][0] == 0.25 and math.isnan(data["object_hit_ratio"][1])
    assert warm_end == 1.0  # the last interval that issued warm-up requests ends at 1.0 s
    assert [x[0] for x in load(path, ["throughput_rps"], {1})] == ["cell 1"]


def test_errors_name_what_is_missing(tmp_path):
    path = results_dir(tmp_path)
    with pytest.raises(ResultsError, match=r"cell-0.csv: no column 'p99' \(it has: interval, "
                                           r"time_s"):
        load(path, ["p99"], None)
    with pytest.raises(ResultsError, match="cell 2 has no series"):
        load(path, ["throughput_rps"], {0, 2})
    with pytest.raises(ResultsError, match="no row for cell 7"):
        load(path, ["throughput_rps"], {0, 7})
    os.remove(str(tmp_path / "r.stats" / "cell-1.csv"))
    with pytest.raises(ResultsError, match="cell-1.csv: cannot read the series"):
        load(path, ["throughput_rps"], None)


def test_cli_writes_a_png_and_exits_2_on_a_bad_column(tmp_path):
    path = results_dir(tmp_path)
    out = tmp_path / "f.png"
    r = subprocess.run([sys.executable, SCRIPT, path, "-o", str(out), "--columns",
                        "throughput_rps,object_hit_ratio"], capture_output=True, text=True,
                       cwd=REPO_ROOT)
    assert r.returncode == 0, r.stderr
    assert "skipping failed cell" in r.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    r = subprocess.run([sys.executable, SCRIPT, path, "-o", str(out), "--columns", "nope"],
                       capture_output=True, text=True, cwd=REPO_ROOT)
    assert r.returncode == 2
    assert "timeseries.py: error:" in r.stderr and "no column 'nope'" in r.stderr


def test_cells_differing_by_framework_take_its_style_and_name(tmp_path):
    from matplotlib.colors import to_hex

    import importlib

    from flashpq.plots import style
    timeseries = importlib.import_module("flashpq.plots.timeseries")  # the module, not the function
    for i in range(2):
        write_csv(str(tmp_path / "s" / f"cell-{i}.csv"), SERIES_HEADER,
                  [[0, 0.5, 0, 100 + i, 0.2], [1, 1.0, 0, 110 + i, 0.3]])
    rows = [["e", i, "lru", fw, 0.5, f"s/cell-{i}.csv", ""]
            for i, fw in enumerate(("sipq", "exact"))]
    path = write_csv(str(tmp_path / "r.csv"), ["experiment", "cell", "policy.name",
                                               "framework.name", "stats.interval_s",
                                               "stats_file", "error"], rows)
    series = load(path, ["throughput_rps"], None)
    assert [s[0] for s in series] == ["cell 0, framework sipq", "cell 1, framework exact"]
    fig = timeseries.plot(series, ["throughput_rps"], str(tmp_path / "f.png"))
    lines = {ln.get_label(): ln for ln in fig.axes[0].get_lines()}
    sipq = lines["cell 0, framework sipq"]
    assert to_hex(sipq.get_color()) == style.FRAMEWORK_STYLES["sipq"].color
    assert sipq.get_linestyle() == style.FRAMEWORK_STYLES["sipq"].dash
    assert to_hex(lines["cell 1, framework exact"].get_color()) == \
        style.FRAMEWORK_STYLES["exact"].color
    assert lines["cell 1, framework exact"].get_linewidth() > 2 * sipq.get_linewidth()


def test_the_function_on_a_dataframe_draws_the_scripts_figure(tmp_path):
    pytest.importorskip("pandas")
    import flashpq.plots as fp
    path = results_dir(tmp_path)
    script = tmp_path / "script.png"
    assert main([path, "-o", str(script), "--columns", "throughput_rps,object_hit_ratio"]) == 0
    fig = fp.timeseries(fp.read_results(path), ["throughput_rps", "object_hit_ratio"],
                        base_dir=str(tmp_path))
    fp.save(fig, str(tmp_path / "function.png"))
    assert (tmp_path / "function.png").read_bytes() == script.read_bytes()
    one = fp.timeseries(fp.read_results(path), ["throughput_rps"], cells={1},
                        base_dir=str(tmp_path))
    assert [ln.get_label() for ln in one.axes[0].get_lines()] == ["cell 1"]
    with pytest.raises(fp.ResultsError, match="cell 2 has no series"):
        fp.timeseries(fp.read_results(path), ["throughput_rps"], cells={2},
                      base_dir=str(tmp_path))
