"""pandas (python3-pandas) reads FlashPQ results files in one line each:
``pd.read_csv(path)`` and ``pd.read_json(path, lines=True)`` -- numeric columns numeric, empty
numeric cells NaN -- and agrees with python/flashpq/plots/results.py on every value.

Run from the repository root:  /usr/bin/python3 -m pytest tests/python -q
The test on real output runs the ``flashpq`` binary of the build (``$FLASHPQ_BINARY``, default
``build/flashpq``) on experiments/quickstart.yaml and is skipped without it.
"""

import math
import os
import subprocess

import pytest

from flashpq.plots import results

pd = pytest.importorskip("pandas")

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FLASHPQ = os.environ.get("FLASHPQ_BINARY", os.path.join(REPO_ROOT, "build", "flashpq"))

# Two rows as experiments/results.cpp writes them: CSV fields quoted when they hold a comma or a
# quote (quotes doubled), an empty numeric cell empty; in JSON Lines parameters are strings,
# metrics numbers or null, the fio latency objects (clat_ns) nested objects.
CSV_TEXT = (
    'experiment,cell,trace.delimiter,policy.name,policy.segments,cache.capacity,framework.name,'
    'device.path,cache_capacity_bytes,object_hit_ratio,wa_implementation,wa_ftl,'
    'latency_p50_us,clat_ns,notes,error\n'
    'quickstart,0,",",fifo,3,0.1,exact,,27885423,0.31699944019406606,,,,,,\n'
    'quickstart,1,",",slru,3,0.1,ripq,,27885423,0.3770,1.118084,1.0,12.5,'
    '"{""percentile"":{""50.000000"":12500}}","blocks smaller than objects, 1 %",\n')
JSONL_TEXT = (
    '{"experiment":"quickstart","cell":0,"trace.delimiter":",","policy.name":"fifo",'
    '"policy.segments":"3","cache.capacity":"0.1","framework.name":"exact","device.path":"",'
    '"cache_capacity_bytes":27885423,"object_hit_ratio":0.31699944019406606,'
    '"wa_implementation":null,"wa_ftl":null,"latency_p50_us":null,"clat_ns":null,'
    '"notes":"","error":""}\n'
    '{"experiment":"quickstart","cell":1,"trace.delimiter":",","policy.name":"slru",'
    '"policy.segments":"3","cache.capacity":"0.1","framework.name":"ripq","device.path":"",'
    '"cache_capacity_bytes":27885423,"object_hit_ratio":0.3770,"wa_implementation":1.118084,'
    '"wa_ftl":1.0,"latency_p50_us":12.5,"clat_ns":{"percentile":{"50.000000":12500}},'
    '"notes":"blocks smaller than objects, 1 %","error":""}\n')
METRICS = ("cell", "cache_capacity_bytes", "object_hit_ratio", "wa_implementation", "wa_ftl",
           "latency_p50_us")


def _numeric(series):
    return pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series)


def _same(a, b):
    """Two cell values equal as numbers, or both empty."""
    na = a is None or a == "" or (isinstance(a, float) and math.isnan(a))
    nb = b is None or b == "" or (isinstance(b, float) and math.isnan(b))
    if na or nb:
        return na and nb
    return math.isclose(float(a), float(b), rel_tol=1e-12, abs_tol=0.0)


def _check_against_loader(frame, path, columns):
    """Every *columns* value pandas read equals what python/flashpq/plots/results.py reads."""
    rows = results.load_results(path)
    assert len(rows) == len(frame)
    for col in columns:
        for i, row in enumerate(rows):
            assert _same(frame[col].iloc[i], row[col]), (path, col, i)


def test_pandas_reads_the_writers_csv_and_json_lines_in_one_line(tmp_path):
    csv_path, jsonl_path = tmp_path / "r.csv", tmp_path / "r.jsonl"
    csv_path.write_text(CSV_TEXT)
    jsonl_path.write_text(JSONL_TEXT)
    c = pd.read_csv(csv_path)
    j = pd.read_json(jsonl_path, lines=True)
    for frame in (c, j):
        assert len(frame) == 2
        for col in METRICS:
            assert _numeric(frame[col]), (col, frame[col].dtype)
        assert frame["cache_capacity_bytes"].tolist() == [27885423, 27885423]
        assert math.isnan(frame["wa_ftl"][0]) and frame["wa_ftl"][1] == 1.0
        assert math.isnan(frame["latency_p50_us"][0])
        assert frame["trace.delimiter"].tolist() == [",", ","]
        assert frame["notes"][1] == "blocks smaller than objects, 1 %"
        assert frame["policy.name"].tolist() == ["fifo", "slru"]
    assert c["cache.capacity"][0] == pytest.approx(0.1)
    assert c["clat_ns"][1] == '{"percentile":{"50.000000":12500}}'
    assert j["clat_ns"][1] == {"percentile": {"50.000000": 12500}}
    _check_against_loader(c, str(csv_path), METRICS)
    _check_against_loader(j, str(jsonl_path), METRICS)


@pytest.mark.skipif(not os.access(FLASHPQ, os.X_OK), reason="needs the flashpq binary (make build)")
def test_pandas_reads_the_quickstarts_results(tmp_path):
    frames, paths = {}, {}
    for ext in ("csv", "jsonl"):
        path = tmp_path / f"quickstart.{ext}"
        proc = subprocess.run([FLASHPQ, "run", os.path.join(REPO_ROOT, "experiments",
                                                            "quickstart.yaml"),
                               "-o", str(path)], capture_output=True, text=True, cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        paths[ext] = str(path)
    frames["csv"] = pd.read_csv(paths["csv"])
    frames["jsonl"] = pd.read_json(paths["jsonl"], lines=True)
    c, j = frames["csv"], frames["jsonl"]
    # Rows carry only their cells' columns: the CSV header is their union in declaration order,
    # pandas orders JSON Lines columns by first appearance. The same columns, either way.
    assert sorted(c.columns) == sorted(j.columns) and len(c) == len(j) == 60
    j = j[list(c.columns)]
    metrics = ("cell", "cache_capacity_bytes", "requests", "get_requests", "hits",
               "object_hit_ratio", "byte_hit_ratio", "wa_implementation", "wa_ftl",
               "wa_combined", "trace_working_set_bytes")
    for frame in (c, j):
        for col in metrics:
            assert _numeric(frame[col]), (col, frame[col].dtype)
        exact = frame[frame["framework.name"] == "exact"]
        ripq = frame[frame["framework.name"] == "ripq"]
        assert len(exact) == 20 and exact["wa_ftl"].isna().all()  # empty cells: NaN
        assert ripq["wa_ftl"].notna().all()
        assert "latency_p50_us" not in frame.columns  # untimed cells carry no timing columns
        assert ((frame["object_hit_ratio"] > 0) & (frame["object_hit_ratio"] < 1)).all()
    # The two formats hold the same numbers, and python/flashpq/plots/results.py reads the same.
    for col in c.columns:
        if _numeric(c[col]) and _numeric(j[col]) and col != "wall_seconds":
            assert all(_same(a, b) for a, b in zip(c[col], j[col])), col
    numeric = [col for col in c.columns if _numeric(c[col]) and col != "wall_seconds"]
    _check_against_loader(c, paths["csv"], numeric)
