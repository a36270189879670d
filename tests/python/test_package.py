"""The Python package flashpq (python/flashpq/, docs/guide/python.md) against the command line
and against itself: run() gives the rows `flashpq run` writes; errors carry the command's
messages; Ctrl-C stops a sweep as SIGINT does; trace_info() and read_trace() agree with
`flashpq trace info`; a Cache driven request by request gives a cell's hits; a policy written in
Python decides as the built-in one it imitates.

Needs the native module: `make test` builds it and sets FLASHPQ_EXTENSION_DIR (the module is
then required); without that variable the tests are skipped unless the package is installed.
"""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FLASHPQ = os.environ.get("FLASHPQ_BINARY", os.path.join(REPO_ROOT, "build", "flashpq"))
TRACE = os.path.join(REPO_ROOT, "traces", "data", "adaptsize-request.oracleGeneral.zst")
QUICKSTART = os.path.join(REPO_ROOT, "experiments", "quickstart.yaml")

if os.environ.get("FLASHPQ_EXTENSION_DIR"):
    import flashpq  # make test: the module must be there
    flashpq._native()
else:
    flashpq = pytest.importorskip("flashpq")
    try:
        flashpq._native()
    except ImportError:
        pytest.skip("the native module is not built", allow_module_level=True)

pd = pytest.importorskip("pandas")

# A small share of the quickstart: 2 policies x 2 sizes x 2 frameworks.
SETS = {"policy.name": ["lru", "gdsf"], "cache.capacity": [0.1, 0.3],
        "framework.name": ["exact", "ripq"]}
SET_ARGS = [a for k, v in SETS.items() for a in ("--set", f"{k}=[{', '.join(map(str, v))}]")]
# Columns that time the run on the host: the only ones two runs may differ in.
TIMING = ["wall_seconds"]


def cli(*args, check=True):
    return subprocess.run([FLASHPQ, *args], capture_output=True, text=True, check=check,
                          cwd=REPO_ROOT)


@pytest.fixture(scope="module")
def quickstart_csv(tmp_path_factory):
    out = tmp_path_factory.mktemp("cli") / "quickstart.csv"
    cli("run", QUICKSTART, *SET_ARGS, "-o", str(out), "--jobs", "2", "--no-summary-cache")
    return out


def same_rows(a, b):
    a, b = a.drop(columns=TIMING), b.drop(columns=TIMING)
    assert list(a.columns) == list(b.columns)
    assert list(a.dtypes) == list(b.dtypes)
    pd.testing.assert_frame_equal(a, b)


def test_run_returns_the_rows_the_command_writes(quickstart_csv):
    df = flashpq.run(QUICKSTART, set=SETS, jobs=2, progress=False)
    assert len(df) == 8
    same_rows(df, pd.read_csv(quickstart_csv, float_precision="round_trip"))
    assert set(df["framework.name"]) == {"exact", "ripq"}


def test_run_takes_a_yaml_string_and_a_dict_with_paths_from_the_working_directory(
        quickstart_csv, monkeypatch):
    monkeypatch.chdir(os.path.join(REPO_ROOT, "experiments"))
    text = open(QUICKSTART).read()  # its trace path is relative to experiments/
    from_text = flashpq.run(text, set=SETS, jobs=1, progress=False)
    expected = pd.read_csv(quickstart_csv, float_precision="round_trip")
    same_rows(from_text, expected)
    import yaml  # python3-yaml, matplotlib's dependency
    doc = yaml.safe_load(text)
    from_dict = flashpq.run(doc, set=[f"{k}=[{', '.join(map(str, v))}]" for k, v in SETS.items()],
                            jobs=1, progress=False)
    same_rows(from_dict, expected)


def test_run_keeps_output_and_reports_progress(tmp_path):
    calls = []
    out = tmp_path / "r.jsonl"
    df = flashpq.run(QUICKSTART, set={"policy.name": "lru", "cache.capacity": [0.1, 0.2],
                                      "framework.name": "exact"},
                     jobs=1, output=str(out), progress=lambda *a: calls.append(a))
    assert out.exists() and len(df) == 2
    pd.testing.assert_frame_equal(df, flashpq.read_results(str(out)))
    cells_done, cells_total, requests_done, requests_total, finished = calls[-1]
    assert (cells_done, cells_total, finished) == (2, 2, True)
    assert requests_done == requests_total == 2 * flashpq.trace_info(TRACE)["requests"]


def test_series_over_time_go_beside_the_kept_output(tmp_path):
    # Simulated time: RIPQ's writes on simflash advance the clock (about 22 s of it).
    sets = {"policy.name": "lru", "framework.name": "ripq", "cache.capacity": 0.1,
            "timing.mode": "simulated", "stats.interval_s": 0.5}
    with pytest.raises(ValueError, match="give output="):
        flashpq.run(QUICKSTART, set=sets, progress=False)
    out = tmp_path / "r.csv"
    df = flashpq.run(QUICKSTART, set=sets, progress=False, output=str(out))
    assert list(df["stats_file"]) == ["r.stats/cell-0.csv"]
    series = pd.read_csv(tmp_path / "r.stats" / "cell-0.csv")
    assert len(series) >= 20 and "object_hit_ratio" in series.columns
    # As `flashpq run` writes them.
    cli("run", QUICKSTART, *[a for k, v in sets.items() for a in ("--set", f"{k}={v}")],
        "-o", str(tmp_path / "c.csv"))
    pd.testing.assert_frame_equal(series, pd.read_csv(tmp_path / "c.stats" / "cell-0.csv"))
    fig = flashpq.plots.timeseries(df, ["object_hit_ratio"], base_dir=str(tmp_path))
    assert len(fig.axes[0].get_lines()) == 1


def test_a_bad_experiment_raises_the_commands_message(tmp_path):
    bad = "name: bad\ntrace:\n  path: x.oracleGeneral\npolicy:\n  name: lru\n  segmnets: 3\n"
    with pytest.raises(flashpq.ConfigError) as e:
        flashpq.run(bad, progress=False)
    path = tmp_path / "bad.yaml"
    path.write_text(bad)
    r = cli("run", str(path), "-o", str(tmp_path / "o.csv"), check=False)
    assert r.returncode == 2
    # The same message, naming the text as "<string>" and the file by its path.
    assert str(e.value) == r.stderr.strip().replace(str(path), "<string>")
    assert "<string>:6" in str(e.value) and "segmnets" in str(e.value)
    with pytest.raises(ValueError, match="cache.capacity"):
        flashpq.run(QUICKSTART, set={"cache.capacity": "lots"}, progress=False)


def test_ctrl_c_stops_the_sweep_as_sigint_does(tmp_path):
    # FLASHPQ_KILL_AFTER (experiments/sweep.h) sends SIGINT right after the first row is written:
    # the interpreter's handler raises KeyboardInterrupt in run(); the file keeps that row.
    out = tmp_path / "partial.csv"
    script = textwrap.dedent(f"""
        import flashpq
        try:
            flashpq.run({QUICKSTART!r}, set={{"policy.name": "lru", "framework.name": "exact",
                        "cache.capacity": [0.1, 0.15, 0.2, 0.3]}}, jobs=1, progress=False,
                        output={str(out)!r})
        except KeyboardInterrupt:
            print("KeyboardInterrupt")
    """)
    env = dict(os.environ, FLASHPQ_KILL_AFTER="rows:1:INT",
               PYTHONPATH=os.pathsep.join([os.path.join(REPO_ROOT, "python"),
                                           os.environ.get("PYTHONPATH", "")]))
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "KeyboardInterrupt"
    # SIGINT stops the sweep at once (no cell starts after it, the running one writes no row).
    rows = pd.read_csv(out)
    assert list(rows["cell"]) == [0]


def test_plan_lists_the_cells():
    p = flashpq.plan(QUICKSTART, set=SETS, jobs=2, sample_requests=2000)
    cells = p["cells"]
    assert list(cells["cell"]) == list(range(8))
    assert set(cells["policy.name"]) == {"lru", "gdsf"}
    assert (cells["requests"] == flashpq.trace_info(TRACE)["requests"]).all()
    assert p["failures"] == [] and "8 cells" in p["text"]


def test_trace_info_equals_the_commands():
    info = flashpq.trace_info(TRACE)
    r = json.loads(cli("trace", "info", TRACE, "--json").stdout)
    for key in ("requests", "objects", "working_set_bytes", "gets", "max_object_bytes",
                "one_hit_wonders", "content_hash", "size_p50_bytes", "size_p99_bytes"):
        assert info[key] == r[key], key
    assert info["zipf_alpha"] == pytest.approx(r["zipf_alpha"], abs=1e-4)


def test_read_trace_agrees_with_the_summary():
    info = flashpq.trace_info(TRACE)
    t = flashpq.read_trace(TRACE)
    assert len(t) == info["requests"]
    assert t["key"].nunique() == info["objects"]
    assert int(t.drop_duplicates("key")["size_bytes"].sum()) == info["working_set_bytes"]
    assert t["size_bytes"].max() == info["max_object_bytes"]
    assert list(t.dtypes) == [np.uint64, np.uint64, np.uint32, np.uint8]
    assert len(flashpq.read_trace(TRACE, limit=10)) == 10


def cell_row(policy, framework, capacity_bytes, block_bytes):
    """The row of one cell of `flashpq run`: the quickstart's trace and device, warm-up 0."""
    r = cli("run", QUICKSTART, "--set", f"policy.name={policy}", "--set",
            f"framework.name={framework}", "--set", f"cache.capacity={capacity_bytes}",
            "--set", "warmup=0", "--set", f"framework.block_size={block_bytes}",
            "-o", "/dev/stdout")
    from io import StringIO
    row = pd.read_csv(StringIO(r.stdout)).iloc[0]
    assert not isinstance(row.get("error"), str), row["error"]
    return row


@pytest.mark.parametrize("policy,framework", [("lru", "exact"), ("gdsf", "exact"),
                                              ("s3fifo", "exact"), ("fifo", "ripq"),
                                              ("slru", "sipq")])
def test_a_cache_request_by_request_gives_the_cells_row(policy, framework):
    # The quickstart's simflash device, sized to the cache, as the cell has it.
    info = flashpq.trace_info(TRACE)
    t = flashpq.read_trace(TRACE)
    capacity = info["working_set_bytes"] // 5
    block = capacity // 256 // 4096 * 4096
    cache = flashpq.Cache(policy=policy, framework={"name": framework, "block_size": block},
                          device={"name": "simflash", "profile": "tiny", "utilization": 0.9,
                                  "size_to_cache": True},
                          capacity=capacity, max_object_size=info["max_object_bytes"])
    hits = cache.access_many(t["key"].to_numpy(), t["size_bytes"].to_numpy())
    s = cache.stats()
    row = cell_row(policy, framework, capacity, block)
    assert int(hits.sum()) == s["hits"] == row["hits"]
    for k in ("get_requests", "bytes_hit", "evictions", "miss_bytes_inserted"):
        assert s[k] == row[k], k
    assert s["object_hit_ratio"] == pytest.approx(row["object_hit_ratio"], rel=1e-12)
    if framework != "exact":  # the flash frameworks write, and the FTL copies
        assert s["host_write_bytes"] > 0
        assert s["wa_implementation"] == pytest.approx(row["wa_implementation"], rel=1e-9)
        assert s["wa_ftl"] == pytest.approx(row["wa_ftl"], rel=1e-9)


def test_access_one_by_one_equals_access_many():
    t = flashpq.read_trace(TRACE, limit=5000)
    a = flashpq.Cache(policy="lru", capacity="4MiB")
    b = flashpq.Cache(policy="lru", capacity="4MiB")
    one = [a.access(int(k), int(s)) for k, s in zip(t["key"], t["size_bytes"])]
    many = b.access_many(t["key"].to_numpy(), t["size_bytes"].to_numpy())
    assert one == list(many)
    assert a.stats() == b.stats()


def test_sets_and_deletes():
    c = flashpq.Cache(policy="lru", capacity=1000)
    assert not c.access(1, 100)  # a miss inserts
    assert c.access(1, 100)
    assert not c.access(1, 100, op="delete")
    assert not c.access(1, 100)  # deleted: a miss again
    assert not c.access(2, 100, op="set")
    assert c.access(2, 100)
    hits = c.access_many(np.array([3, 3, 3], dtype=np.uint64), np.array([10, 10, 10]),
                         ops=["set", "get", "delete"])
    assert list(hits) == [False, True, False]
    s = c.stats()
    assert (s["get_requests"], s["set_requests"], s["delete_requests"]) == (5, 2, 2)


def test_cache_refuses_what_has_no_meaning_request_by_request():
    with pytest.raises(ValueError, match="fraction"):
        flashpq.Cache(capacity="0.1")
    with pytest.raises(ValueError, match="builds no cache"):
        flashpq.Cache(framework="direct")
    with pytest.raises(ValueError, match="future"):
        flashpq.Cache(policy="belady")
    with pytest.raises(flashpq.ConfigError, match="segmnets"):
        flashpq.Cache(policy={"name": "slru", "segmnets": 3})
    with pytest.raises(ValueError, match="op"):
        flashpq.Cache().access(1, 1, op="put")


class PythonLru(flashpq.PriorityPolicy):
    """LRU as SLRU-1 (RIPQ paper Table 2): insert at 1, a hit back to 1."""
    kind = "relative"
    grid = 1

    def on_insert(self, key, size):
        return 1.0

    def on_hit(self, key, size, priority):
        return 1.0


class PythonGdsf(flashpq.PriorityPolicy):
    """GDSF with frequency cap L (policies/gdsf.h, RIPQ paper Table 2): insert at clock + 1/s,
    a hit to clock + min(L, n)/s, n the accesses since insertion; the clock becomes the
    victim's priority."""
    kind = "absolute"

    def __init__(self, cap=3):
        self.cap = cap
        self.clock = 0.0
        self.freq = {}

    def on_insert(self, key, size):
        self.freq[key] = 1
        return self.clock + 1.0 / size

    def on_hit(self, key, size, priority):
        self.freq[key] += 1
        return self.clock + min(self.cap, self.freq[key]) / size

    def on_evict(self, key, size, priority):
        self.clock = priority
        del self.freq[key]


@pytest.mark.parametrize("framework", ["exact", "ripq", "sipq"])
def test_a_policy_written_in_python_decides_as_the_builtin_lru(framework):
    t = flashpq.read_trace(TRACE, limit=20000)
    keys, sizes = t["key"].to_numpy(), t["size_bytes"].to_numpy()
    fw = {"name": framework, "block_size": "64KiB"}
    builtin = flashpq.Cache(policy="lru", framework=fw, capacity="8MiB")
    flashpq.register_policy("python_lru", PythonLru)
    mine = flashpq.Cache(policy="python_lru", framework=fw, capacity="8MiB")
    a = builtin.access_many(keys, sizes)
    b = mine.access_many(keys, sizes)
    assert a.sum() > 1000
    assert (a == b).all()
    sa, sb = builtin.stats(), mine.stats()
    for k in ("hits", "evictions", "host_write_bytes", "objects"):
        assert sa[k] == sb[k], k


def test_a_policy_written_in_python_decides_as_the_builtin_gdsf():
    t = flashpq.read_trace(TRACE, limit=20000)
    keys, sizes = t["key"].to_numpy(), t["size_bytes"].to_numpy()
    builtin = flashpq.Cache(policy={"name": "gdsf", "segments": 3}, capacity="8MiB")
    mine = flashpq.Cache(policy=PythonGdsf(cap=3), capacity="8MiB")
    a = builtin.access_many(keys, sizes)
    b = mine.access_many(keys, sizes)
    assert a.sum() > 1000
    assert (a == b).all()


def test_a_policy_written_in_python_errors():
    class Bad(PythonLru):
        def on_insert(self, key, size):
            return 2.0

    c = flashpq.Cache(policy=Bad(), capacity=1000)
    with pytest.raises(ValueError, match=r"on_insert: a relative policy's priority lies in"):
        c.access(1, 10)
    with pytest.raises(RuntimeError, match="make a new one"):
        c.access(2, 10)
    with pytest.raises(TypeError):
        flashpq.register_policy("x", object)
    with pytest.raises(ValueError, match="built-in"):
        flashpq.register_policy("lru", PythonLru)


def test_one_cache_serves_threads_one_batch_at_a_time():
    import threading
    t = flashpq.read_trace(TRACE)
    keys, sizes = t["key"].to_numpy(), t["size_bytes"].to_numpy()
    shared = flashpq.Cache(policy="lru", capacity="16MiB")
    threads = [threading.Thread(target=shared.access_many, args=(keys, sizes)) for _ in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert shared.stats()["requests"] == 4 * len(keys)


def test_a_hook_that_calls_its_own_cache_is_refused():
    class Reentrant(PythonLru):
        cache = None

        def on_insert(self, key, size):
            self.cache.access(key + 1, size)
            return 1.0

    policy = Reentrant()
    c = flashpq.Cache(policy=policy, capacity=1000)
    policy.cache = c
    with pytest.raises(RuntimeError, match="one thread at a time"):
        c.access(1, 10)
