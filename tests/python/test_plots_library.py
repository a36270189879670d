"""flashpq.plots as a library: each figure function, on the DataFrame pandas reads of a results
file, draws the figure the command line plots/NAME.py draws of the file -- the same PNG bytes
with flashpq.plots.read_results (pandas' round-trip float parsers), the same plotted data with a
plain pd.read_csv -- and raises the ResultsError the command line prints.

Run from the repository root:  /usr/bin/python3 -m pytest tests/python -q
"""

import math
import os
import subprocess
import sys

import pytest

pd = pytest.importorskip("pandas")

import flashpq.plots as fp  # noqa: E402
from flashpq.plots import ResultsError  # noqa: E402
from test_frameworks_plots import _fig8_rows, _k_rows, _write_csv  # noqa: E402

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FLASHPQ = os.environ.get("FLASHPQ_BINARY", os.path.join(REPO_ROOT, "build", "flashpq"))


def _script(name, *args):
    return subprocess.run([sys.executable, os.path.join(REPO_ROOT, "plots", f"{name}.py"),
                           *map(str, args)], capture_output=True, text=True)


def _lines(fig):
    """The x and y data of every line of every axes, in drawing order."""
    return [[(list(map(float, ln.get_xdata())), list(map(float, ln.get_ydata())))
             for ln in ax.get_lines()] for ax in fig.axes]


def _bars(fig):
    return [[(p.get_x(), p.get_height()) for p in ax.patches] for ax in fig.axes]


def _close(a, b):
    """Nested lists of numbers equal within 1e-12 (relative), NaN equal to NaN."""
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15)


@pytest.fixture(scope="module")
def quickstart(tmp_path_factory):
    if not os.access(FLASHPQ, os.X_OK):
        pytest.skip("needs the flashpq binary (make build)")
    d = tmp_path_factory.mktemp("quickstart")
    paths = {}
    for ext in ("csv", "jsonl"):
        path = d / f"quickstart.{ext}"
        p = subprocess.run([FLASHPQ, "run", os.path.join(REPO_ROOT, "experiments",
                                                         "quickstart.yaml"), "-o", str(path)],
                           capture_output=True, text=True, cwd=d)
        assert p.returncode == 0, p.stderr
        paths[ext] = path
    return paths


@pytest.mark.parametrize("ext", ["csv", "jsonl"])
def test_hit_ratio_wa_of_the_frame_is_the_scripts_figure(quickstart, tmp_path, ext):
    path = quickstart[ext]
    p = _script("hit_ratio_wa", path, "-o", tmp_path / "script.png")
    assert p.returncode == 0, p.stderr
    fig = fp.hit_ratio_wa(fp.read_results(str(path)))
    fp.save(fig, str(tmp_path / "lib.png"))
    assert (tmp_path / "lib.png").read_bytes() == (tmp_path / "script.png").read_bytes()
    # A plain pd.read_csv / read_json frame: the same lines, to the last bits or so.
    plain = pd.read_csv(path) if ext == "csv" else pd.read_json(path, lines=True)
    assert _close(_lines(fp.hit_ratio_wa(plain)), _lines(fig))
    # Not trivially so: another frame draws other lines.
    assert not _close(_lines(fp.hit_ratio_wa(plain[plain["policy.name"] != "fifo"])),
                      _lines(fig))


def test_frameworks_figures_of_the_frame_are_the_scripts(tmp_path, capsys):
    # Failed cells, empty wa_implementation cells (NaN in pandas) and integer parameters
    # (policy.segments, framework.insertion_points) as the script reads them.
    fig8 = _write_csv(tmp_path / "fig8.csv", _fig8_rows())
    k = _write_csv(tmp_path / "k.csv", _k_rows())
    for command, path, draw in (
            ("fidelity", fig8, fp.frameworks_fidelity),
            ("wa", fig8, fp.frameworks_wa),
            ("k-sensitivity", k, fp.frameworks_k_sensitivity)):
        out = tmp_path / f"{command}.png"
        p = _script("frameworks", command, path, "-o", out)
        assert p.returncode == 0, p.stderr
        fig = draw(pd.read_csv(path))
        fp.save(fig, str(tmp_path / "lib.png"))
        assert (tmp_path / "lib.png").read_bytes() == out.read_bytes(), command
        assert _bars(fig) or _lines(fig)
    # The byte-wise fidelity figure differs from the object-wise one.
    frame = pd.read_csv(fig8)
    assert _bars(fp.frameworks_fidelity(frame, metric="byte")) != _bars(
        fp.frameworks_fidelity(frame))
    # The failed cell is warned about, as by the script.
    assert "skipping failed cell" in capsys.readouterr().err


@pytest.mark.parametrize("draw,script,column", [
    (fp.hit_ratio_wa, ("hit_ratio_wa",), "object_hit_ratio"),
    (fp.frameworks_fidelity, ("frameworks", "fidelity"), "byte_hit_ratio"),
    (fp.frameworks_k_sensitivity, ("frameworks", "k-sensitivity"), "cache_capacity_bytes"),
])
def test_a_missing_column_raises_the_scripts_message(tmp_path, draw, script, column):
    rows = [dict(r, **{"framework.name": "exact"}) for r in _k_rows()]
    frame = pd.DataFrame(rows).drop(columns=[column])
    path = tmp_path / "r.csv"
    frame.to_csv(path, index=False)
    p = _script(*script, path, "-o", tmp_path / "x.png")
    assert p.returncode == 2
    with pytest.raises(ResultsError) as e:
        draw(pd.read_csv(path))
    assert f"missing required column '{column}'" in str(e.value)
    prog = script[0]
    assert p.stderr.strip().splitlines()[-1] == f"{prog}: error: {path}: {e.value}"
    assert not (tmp_path / "x.png").exists()


def test_cells_read_as_the_file_reads_them():
    from flashpq.plots import results
    frame = pd.DataFrame({"policy.segments": [3.0, float("nan")], "cell": [1, 2],
                          "ratio": [0.1, 1e-7], "flag": [True, False], "note": ["a", None],
                          "clat_ns": [{"p": {"50": 12}}, None]})
    header, rows = results.frame_rows(frame)
    assert header == list(frame.columns)
    assert [r["policy.segments"] for r in rows] == ["3", ""]
    assert [r["cell"] for r in rows] == ["1", "2"]
    assert [r["ratio"] for r in rows] == ["0.1", "1e-07"]
    assert [r["flag"] for r in rows] == ["true", "false"]
    assert [r["note"] for r in rows] == ["a", ""]
    assert [r["clat_ns"] for r in rows] == ['{"p":{"50":12}}', ""]
    assert [r.where for r in rows] == ["row 0", "row 1"]
    with pytest.raises(ResultsError, match="all 1 cells failed"):
        results.load_frame(pd.DataFrame({"policy.name": ["lru"], "error": ["boom"]}))


def test_read_results_by_extension(tmp_path):
    (tmp_path / "r.csv").write_text("a,b\n1,x\n")
    (tmp_path / "r.jsonl").write_text('{"a": 1, "b": "x"}\n')
    for name in ("r.csv", "r.jsonl"):
        frame = fp.read_results(str(tmp_path / name))
        assert frame["a"].tolist() == [1] and frame["b"].tolist() == ["x"]


def test_the_package_imports_without_pandas_or_the_extension():
    code = ("import sys; sys.modules['pandas'] = None; sys.modules['flashpq._flashpq'] = None; "
            "import flashpq.plots.hit_ratio_wa, flashpq.plots as fp; "
            "assert callable(fp.hit_ratio_wa), fp.hit_ratio_wa")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": os.path.join(REPO_ROOT, "python")})
    assert p.returncode == 0, p.stderr
