"""Tests for plots/frameworks.py (CLI and Python API).

Run from the repository root:  /usr/bin/python3 -m pytest tests/python -q
"""

import csv
import os
import subprocess
import sys

import pytest

from flashpq.plots.frameworks import (
    ResultsError,
    plot_fidelity,
    plot_k_sensitivity,
    plot_wa,
)
from flashpq.plots.hit_ratio_vs_size import load_results

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(REPO_ROOT, "plots", "frameworks.py")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
MIB = 2 ** 20

COLUMNS = [
    "framework.occupancy", "object_hit_ratio", "policy.name", "trace.path",
    "framework.name", "cache.capacity", "byte_hit_ratio", "policy.segments",
    "framework.insertion_points", "cache_capacity_bytes", "wa_implementation",
    "requests", "error",
]

BIG, SMALL = 64 * MIB, 16 * MIB
# (policy.name, policy.segments, plotted label)
POLICIES = [("fifo", 1, "fifo"), ("fifo", 2, "fifo"),   # duplicate fifo: one kept
            ("lru", 1, "slru-1"), ("slru", 2, "slru-2"),
            ("gdsf", 1, "gdsf-1"), ("gdsf", 3, "gdsf-3")]
ALGS = ["fifo", "slru-1", "slru-2", "gdsf-1", "gdsf-3"]
FRAMEWORKS = [("exact", "exact"), ("ripq", "ripq"), ("sipq", "sipq-0.5")]
VARIANTS = [v for _, v in FRAMEWORKS]


def _ohr(label, fw, size):
    a, f = ALGS.index(label), [x for x, _ in FRAMEWORKS].index(fw)
    return round(0.30 + 0.03 * a - 0.01 * f - (0.1 if size == SMALL else 0.0), 4)


def _wa(label, fw):
    if fw == "exact":  # as with naive placement: each object written once
        return 1.0
    return round(1.0 + 0.05 * ALGS.index(label) + (0.2 if fw == "sipq" else 0.0), 4)


def _row(name, segs, fw, size, ohr, bhr, wa="", k=8, theta=0.5, error=""):
    return {
        "policy.name": name, "policy.segments": segs, "framework.name": fw,
        "framework.insertion_points": k, "framework.occupancy": theta,
        "cache.capacity": f"{size // MIB}MiB", "cache_capacity_bytes": size,
        "object_hit_ratio": ohr, "byte_hit_ratio": bhr, "wa_implementation": wa,
        "trace.path": "../traces/data/sample.zst", "requests": 1000, "error": error,
    }


def _fig8_rows():
    rows = []
    for size in (SMALL, BIG):  # the plots must keep only the largest size
        for name, segs, label in POLICIES:
            for fw, _ in FRAMEWORKS:
                ohr = _ohr(label, fw, size)
                rows.append(_row(name, segs, fw, size, ohr, round(ohr * 0.8, 4),
                                 wa=_wa(label, fw)))
    # gdsf-3 without WA on exact (no placement: `wa` leaves it out silently) and on ripq
    # (skipped by `wa` with a warning), and a failed cell.
    rows[-len(FRAMEWORKS)]["wa_implementation"] = ""
    rows[-len(FRAMEWORKS) + 1]["wa_implementation"] = ""
    rows.append(_row("gdsf", 2, "ripq", BIG, "", "", error="simulator crashed"))
    return rows


K_VALUES = [2, 4, 8, 16]
K_ALGS = [("slru", 2, "slru-2"), ("gdsf", 1, "gdsf-1")]


def _k_ohr(i, k):
    return round(0.30 + 0.02 * i + 0.01 * K_VALUES.index(k), 4)


def _exact_ohr(i):
    return round(0.36 + 0.02 * i, 4)


def _k_rows(with_exact=True):
    rows = []
    for i, (name, segs, _) in enumerate(K_ALGS):
        for k in K_VALUES:
            rows.append(_row(name, segs, "ripq", BIG, _k_ohr(i, k), 0.2, wa=1.1, k=k))
            if with_exact:  # one exact cell per K, as a cartesian matrix gives
                rows.append(_row(name, segs, "exact", BIG, _exact_ohr(i), 0.2, wa=1, k=k))
    return rows


def _write_csv(path, rows, columns=COLUMNS):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    return str(path)


@pytest.fixture
def fig8_csv(tmp_path):
    return _write_csv(tmp_path / "fig8.csv", _fig8_rows())


@pytest.fixture
def k_csv(tmp_path):
    return _write_csv(tmp_path / "k.csv", _k_rows())


def _run(*args):
    return subprocess.run([sys.executable, SCRIPT, *map(str, args)],
                          capture_output=True, text=True, cwd=REPO_ROOT)


def _check_png(path):
    data = path.read_bytes()
    assert data.startswith(PNG_SIGNATURE)
    assert len(data) > 10 * 1024


def _bars(ax):
    """{variant: {algorithm: height}} from the axes' bar containers."""
    ticks = [t.get_text() for t in ax.get_xticklabels()]
    out = {}
    for c in ax.containers:
        out[c.get_label()] = {
            ticks[round(p.get_x() + p.get_width() / 2)]: p.get_height() for p in c}
    return out


# ---------------------------------------------------------------- CLI


@pytest.mark.parametrize("args", [["fidelity"], ["fidelity", "--metric", "byte"], ["wa"]])
def test_cli_fig8_writes_png(fig8_csv, tmp_path, args):
    out = tmp_path / "out" / "fig.png"
    proc = _run(args[0], fig8_csv, "-o", out, *args[1:])
    assert proc.returncode == 0, proc.stderr
    _check_png(out)
    assert "warning" in proc.stderr and "simulator crashed" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_cli_k_sensitivity_writes_png(k_csv, tmp_path):
    out = tmp_path / "k.png"
    proc = _run("k-sensitivity", k_csv, "-o", out)
    assert proc.returncode == 0, proc.stderr
    _check_png(out)


@pytest.mark.parametrize("command,column", [
    ("fidelity", "framework.name"),
    ("wa", "wa_implementation"),
    ("k-sensitivity", "framework.insertion_points"),
    ("fidelity", "object_hit_ratio"),
])
def test_cli_missing_column(tmp_path, command, column):
    rows = _k_rows() if command == "k-sensitivity" else _fig8_rows()
    path = _write_csv(tmp_path / "nocol.csv", rows, [c for c in COLUMNS if c != column])
    out = tmp_path / "x.png"
    proc = _run(command, path, "-o", out)
    assert proc.returncode == 2
    assert column in proc.stderr and "nocol.csv" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not out.exists()


def test_cli_sipq_needs_occupancy(tmp_path):
    cols = [c for c in COLUMNS if c != "framework.occupancy"]
    path = _write_csv(tmp_path / "noθ.csv", _fig8_rows(), cols)
    proc = _run("fidelity", path, "-o", tmp_path / "x.png")
    assert proc.returncode == 2
    assert "framework.occupancy" in proc.stderr


def test_cli_nothing_to_plot(tmp_path):
    # k-sensitivity without ripq rows; wa with every WA empty.
    path = _write_csv(tmp_path / "exact.csv",
                      [r for r in _k_rows() if r["framework.name"] == "exact"])
    proc = _run("k-sensitivity", path, "-o", tmp_path / "x.png")
    assert proc.returncode == 2
    assert "nothing to plot" in proc.stderr and "exact.csv" in proc.stderr
    rows = _fig8_rows()
    for r in rows:
        r["wa_implementation"] = ""
    path = _write_csv(tmp_path / "nowa.csv", rows)
    proc = _run("wa", path, "-o", tmp_path / "x.png")
    assert proc.returncode == 2
    assert "nothing to plot" in proc.stderr and "Traceback" not in proc.stderr


def test_cli_missing_file_and_bad_metric(tmp_path):
    proc = _run("wa", tmp_path / "nope.csv", "-o", tmp_path / "x.png")
    assert proc.returncode == 2 and "nope.csv" in proc.stderr
    proc = _run("fidelity", tmp_path / "nope.csv", "-o", tmp_path / "x.png",
                "--metric", "hits")
    assert proc.returncode == 2  # argparse usage error


# ---------------------------------------------------------------- API


@pytest.mark.parametrize("metric,col,ylabel", [
    ("object", "object_hit_ratio", "object-wise hit ratio"),
    ("byte", "byte_hit_ratio", "byte-wise hit ratio"),
])
def test_api_fidelity_bars(fig8_csv, tmp_path, metric, col, ylabel):
    rows = load_results(fig8_csv)
    fig = plot_fidelity(rows, str(tmp_path / "f.png"), metric=metric)
    (ax,) = fig.get_axes()
    assert ax.get_ylabel() == ylabel
    assert [t.get_text() for t in ax.get_xticklabels()] == ALGS
    assert [c.get_label() for c in ax.containers] == VARIANTS
    assert sum(len(c) for c in ax.containers) == len(ALGS) * len(VARIANTS)
    expected = {}
    for name, segs, label in POLICIES:
        for fw, var in FRAMEWORKS:
            ohr = _ohr(label, fw, BIG)
            expected.setdefault(var, {})[label] = ohr if col == "object_hit_ratio" \
                else round(ohr * 0.8, 4)
    bars = _bars(ax)
    for var in VARIANTS:
        assert bars[var] == pytest.approx(expected[var])
    # Every bar top is visible; the title says which of the sizes is shown.
    lo, hi = ax.get_ylim()
    assert lo <= min(min(v.values()) for v in expected.values())
    assert hi > max(max(v.values()) for v in expected.values())
    title = fig._suptitle.get_text()
    assert "64 MiB" in title and "largest" in title
    assert [t.get_text() for t in fig.legends[0].get_texts()] == VARIANTS


def test_api_wa_bars(fig8_csv, tmp_path, capsys):
    rows = load_results(fig8_csv)
    fig = plot_wa(rows, str(tmp_path / "wa.png"))
    (ax,) = fig.get_axes()
    assert ax.get_ylabel() == "implementation write amplification (×)"
    bars = _bars(ax)
    # gdsf-3 has no WA on exact (left out silently: an exact cell writes nothing without a
    # placement) nor on ripq (skipped with a warning).
    assert "gdsf-3" not in bars["exact"] and "gdsf-3" not in bars["ripq"]
    err = capsys.readouterr().err
    assert "(gdsf-3 / ripq): no value for wa_implementation" in err
    assert "gdsf-3 / exact" not in err
    assert sum(len(c) for c in ax.containers) == len(ALGS) * len(VARIANTS) - 2
    for fw, var in FRAMEWORKS:
        want = {label: _wa(label, fw) for _, _, label in POLICIES
                if not (fw in ("exact", "ripq") and label == "gdsf-3")}
        assert bars[var] == pytest.approx(want)
    refs = [ln for ln in ax.get_lines() if ln.get_linestyle() == "--"]
    assert len(refs) == 1 and list(refs[0].get_ydata()) == [1, 1]
    assert ax.get_ylim()[0] == 0.0


def test_api_k_sensitivity_lines(k_csv, tmp_path):
    rows = load_results(k_csv)
    fig = plot_k_sensitivity(rows, str(tmp_path / "k.png"))
    (ax,) = fig.get_axes()
    assert ax.get_xlabel() == "insertion points K"
    assert ax.get_ylabel() == "object-wise hit ratio"
    assert ax.get_xscale() == "log"
    assert [t.get_text() for t in ax.get_xticklabels()] == [str(k) for k in K_VALUES]
    lines = ax.get_lines()
    # ripq's dash for the K lines; the exact queue's solid reference line (thick) for exact.
    ripq = [ln for ln in lines if ln.get_linestyle() == "--"]
    exact = [ln for ln in lines if ln.get_linestyle() == "-"]
    assert len(lines) == 2 * len(K_ALGS)
    assert [ln.get_label() for ln in ripq] == [lab for _, _, lab in K_ALGS]
    assert [ln.get_label() for ln in exact] == [f"{lab} exact" for _, _, lab in K_ALGS]
    for i, ln in enumerate(ripq):
        assert [float(x) for x in ln.get_xdata()] == K_VALUES
        assert [float(y) for y in ln.get_ydata()] == pytest.approx(
            [_k_ohr(i, k) for k in K_VALUES])
        assert exact[i].get_color() == ln.get_color()
        assert exact[i].get_linewidth() > 2 * ln.get_linewidth()
        assert list(exact[i].get_ydata()) == pytest.approx([_exact_ohr(i)] * 2)
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert legend == [lab for _, _, lab in K_ALGS] + ["exact (thick, same colour)"]


def test_api_k_sensitivity_without_exact(tmp_path):
    fig = plot_k_sensitivity(_k_rows(with_exact=False), str(tmp_path / "k.png"))
    assert len(fig.axes[0].get_lines()) == len(K_ALGS)
    # No exact line drawn: the legend has no key for one.
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert legend == [lab for _, _, lab in K_ALGS]


def test_api_errors(tmp_path):
    with pytest.raises(ResultsError):
        plot_fidelity([], str(tmp_path / "x.png"))
    with pytest.raises(ResultsError, match="unknown metric"):
        plot_fidelity(_fig8_rows(), str(tmp_path / "x.png"), metric="hits")
    rows = [{k: v for k, v in r.items() if k != "wa_implementation"} for r in _fig8_rows()]
    with pytest.raises(ResultsError, match="wa_implementation"):
        plot_wa(rows, str(tmp_path / "x.png"))
