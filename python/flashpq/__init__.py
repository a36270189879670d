"""FlashPQ in Python: experiments as DataFrames, a cache driven request by request, policies
written in Python, and the figures of ``plots/`` as functions.

    import flashpq
    df = flashpq.run("experiments/quickstart.yaml")      # the rows `flashpq run` writes
    cache = flashpq.Cache(policy="lru", framework="ripq", capacity="64MiB")
    hits = cache.access_many(keys, sizes)                # numpy arrays in, booleans out
    fig = flashpq.plots.hit_ratio_wa(df)

The guide is docs/guide/python.md; the tutorial docs/tutorial.ipynb. Every function takes the
names the command line takes (docs/reference/keys.md) and raises with the message the command
prints: ``flashpq.ConfigError`` (a ValueError) for a bad experiment, naming the file or
``<string>``, the line and the key; ValueError for another bad value; RuntimeError otherwise.

The native module (``flashpq._flashpq``) is installed beside this file by ``pip install .``; in
a build tree (``make test``) the directory named by $FLASHPQ_EXTENSION_DIR holds it.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import tempfile
import warnings
from typing import Any, Callable, Iterable, Mapping

__version__ = "0.2.0"

__all__ = [
    "Cache",
    "ConfigError",
    "PriorityPolicy",
    "plan",
    "plots",
    "read_results",
    "read_trace",
    "register_policy",
    "run",
    "trace_info",
]

if os.environ.get("FLASHPQ_EXTENSION_DIR"):
    # A build tree's module (CMakeLists.txt, FLASHPQ_BUILD_PYTHON) beside these sources.
    __path__.append(os.path.join(os.environ["FLASHPQ_EXTENSION_DIR"], "flashpq"))  # noqa: F821


def _native():
    """The native module, imported on first use (the figures need only matplotlib)."""
    try:
        return importlib.import_module("flashpq._flashpq")
    except ImportError as e:
        raise ImportError(
            "flashpq: the native module flashpq._flashpq is not built: install the package with "
            "`pip install .` from the repository (README, 'Python'), or build it with `make test` "
            f"and set FLASHPQ_EXTENSION_DIR to the build directory's python/ ({e})") from e


def __getattr__(name: str):
    if name == "ConfigError":
        return _native().ConfigError
    if name == "plots":
        return importlib.import_module("flashpq.plots")
    raise AttributeError(f"module 'flashpq' has no attribute '{name}'")


# ---- Experiments ------------------------------------------------------------------------------

def _yaml_value(v: Any) -> str:
    """A --set value as YAML text: a list becomes a flow list (a matrix axis)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_yaml_value(x) for x in v) + "]"
    return str(v)


def _sets(set: Mapping[str, Any] | Iterable[str] | None) -> list[tuple[str, str]]:
    """`set` as (KEY, VALUE) pairs: a mapping of dotted keys, or "KEY=VALUE" strings."""
    if set is None:
        return []
    if isinstance(set, Mapping):
        return [(str(k), _yaml_value(v)) for k, v in set.items()]
    out = []
    for s in set:
        key, eq, value = str(s).partition("=")
        if not eq or not key:
            raise ValueError(f"flashpq: set expects KEY=VALUE, found '{s}'")
        out.append((key, value))
    return out


def _source(experiment: Any) -> tuple[str, bool]:
    """(path or YAML text, is_text) of an experiment given as a path, a YAML string or a dict."""
    if isinstance(experiment, Mapping):
        return json.dumps(experiment), True  # JSON is YAML
    if isinstance(experiment, os.PathLike):
        return os.fspath(experiment), False
    if isinstance(experiment, str):
        if os.path.exists(experiment) or ("\n" not in experiment and ":" not in experiment):
            return experiment, False
        return experiment, True
    raise TypeError("flashpq: experiment: expected a path, a YAML string or a dict, found "
                    f"{type(experiment).__name__}")


def _memory_budget() -> int:
    """80 % of the machine's RAM, as `flashpq run` (0: no bound when it cannot be read)."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 5 * 4
    except (ValueError, OSError, AttributeError):
        return 0


class _Progress:
    """The progress of a sweep: a tqdm bar (in notebooks its widget) when tqdm is installed,
    else a line on stderr redrawn in place."""

    def __init__(self):
        self.bar = None
        self.last = None
        try:
            try:  # a widget in Jupyter when ipywidgets is installed, else text
                import ipywidgets  # noqa: F401
                from tqdm.auto import tqdm
            except ImportError:
                from tqdm import tqdm
            self.tqdm = tqdm
        except ImportError:
            self.tqdm = None

    def __call__(self, cells_done, cells_total, requests_done, requests_total, finished):
        if cells_total == 0:
            return
        if self.tqdm is not None:
            if self.bar is None:
                self.bar = self.tqdm(total=cells_total, unit="cell", desc="flashpq")
            self.bar.set_postfix_str(f"{requests_done:,} of {requests_total:,} requests",
                                     refresh=False)
            self.bar.update(cells_done - self.bar.n)
            if finished:
                self.bar.close()
            return
        line = f"flashpq: {cells_done} of {cells_total} cells done"
        if line != self.last or finished:
            sys.stderr.write("\r" + line + ("\n" if finished else ""))
            sys.stderr.flush()
            self.last = line


def run(experiment: Any, set: Mapping[str, Any] | Iterable[str] | None = None,
        jobs: int | None = None, progress: bool | Callable = True, output: str | None = None,
        memory: int | None = None, log: bool = False):
    """Runs every cell of an experiment, as `flashpq run` does, and returns its rows.

    Args:
      experiment: a path to an experiment file (relative paths in it are taken from its
        directory), a YAML string or a dict of the same content (relative paths taken from the
        working directory; the experiment is called "experiment" unless it has `name:`).
      set: overrides, as `--set`: a dict of dotted keys to values ({"cache.capacity": [0.1,
        0.2]}: a list makes a matrix axis) or "KEY=VALUE" strings.
      jobs: worker threads (default: every core).
      progress: True draws a progress bar (tqdm's, a widget in notebooks, when tqdm is
        installed), False none; a callable gets (cells_done, cells_total, requests_done,
        requests_total, finished) every 0.1 s.
      output: the results file to write and keep (.csv, or .jsonl for JSON Lines); default a
        temporary file, removed (the experiment's `output:` is not written). Cells with
        `stats.interval_s` need it: their series go beside it, to OUTPUT_STEM.stats/cell-N.csv
        (flashpq.plots.timeseries draws them).
      memory: bound on the running cells' estimated memory, bytes (default 80 % of RAM).
      log: True writes the sweep's log (a line per cell, warnings) to stderr.

    Returns:
      A pandas.DataFrame of one row per cell, in cell order: the rows and dtypes
      ``read_results(output)`` gives, i.e. those of the file `flashpq run` writes. A cell that
      failed has its message in the `error` column (and a warning is issued). An experiment
      with a `curve:` section returns its curves.

    Raises:
      ConfigError: a bad experiment (file or "<string>", line, key, what is allowed).
      ValueError: another bad value.  KeyboardInterrupt: Ctrl-C (SIGINT) stopped the sweep:
        with `output`, the rows of the cells that finished are in it (`flashpq run --resume`
        runs the rest).
    """
    native = _native()
    source, is_text = _source(experiment)
    if not is_text and source.endswith(".json"):
        raise ValueError("flashpq: a CacheBench test config (.json) is imported by `flashpq run`"
                         " or `flashpq import cachebench`: run the YAML it gives")
    jobs = (os.cpu_count() or 1) if jobs is None else int(jobs)
    on_progress = progress if callable(progress) else (_Progress() if progress else None)
    tmpdir = None
    if output is None:
        tmpdir = tempfile.TemporaryDirectory(prefix="flashpq-")
        path = os.path.join(tmpdir.name, "results.csv")
    else:
        path = os.path.abspath(os.fspath(output))
    try:
        outcome = native.run_experiment(source, is_text, _sets(set), jobs, path,
                                        output is not None,
                                        _memory_budget() if memory is None else int(memory),
                                        on_progress)
        if log:
            sys.stderr.write(outcome.log)
        if outcome.failed:
            warnings.warn(f"flashpq: {outcome.failed} of {outcome.cells} cells failed: their "
                          "rows carry the message in the error column", stacklevel=2)
        return read_results(path)
    finally:
        if tmpdir is not None:
            tmpdir.cleanup()


def read_results(path: str):
    """A results file as a pandas.DataFrame: CSV (``pd.read_csv``) or JSON Lines (.jsonl or .json,
    ``pd.read_json(lines=True)``), numeric columns numeric and empty numeric cells NaN, floats
    exactly as written, as the figures read them (flashpq.plots). Raises FileNotFoundError for
    a missing file."""
    import pandas as pd
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"flashpq: {path}: no such results file")
    # Floats read back to the bits written: before pandas 3 the default parsers may differ in
    # the last digit ("0.31699944019406606" read as 0.316999440194066).
    if os.path.splitext(path)[1].lower() in (".jsonl", ".json"):  # as the C++ writer decides
        return pd.read_json(path, lines=True, precise_float=True)
    if int(pd.__version__.split(".")[0]) >= 3:
        return pd.read_csv(path)  # round-trip parsing is pandas 3's default
    return pd.read_csv(path, float_precision="round_trip")


def plan(experiment: Any, set: Mapping[str, Any] | Iterable[str] | None = None,
         jobs: int | None = None, sample_requests: int = 100000) -> dict:
    """What `flashpq plan` says of an experiment before it runs (experiments/plan.h).

    Returns a dict: "cells", a pandas.DataFrame of one row per cell (cell, the parameters its
    row will carry, requests, memory_bytes estimated, seconds on one core from a timed sample of
    `sample_requests` requests of its class, or NaN with not_sampled saying why); "failures"
    and "warnings", lists of (message, [cells]); "duplicates", groups of cells that compute the
    same thing; "requests" and "seconds" summed; "text", the command's report. Raises as run().
    """
    import pandas as pd
    source, is_text = _source(experiment)
    jobs = (os.cpu_count() or 1) if jobs is None else int(jobs)
    p = _native().plan(source, is_text, _sets(set), jobs, int(sample_requests))
    p["cells"] = pd.DataFrame(p["cells"])
    return p


def trace_info(path: str, format: str = "", set: Mapping[str, Any] | None = None,
               seed: int = 1) -> dict:
    """A trace's summary, as `flashpq trace info` gives it: requests, objects,
    working_set_bytes, gets, sets, deletes, size_p50/p90/p99_bytes, max_object_bytes,
    one_hit_wonders and their ratio, time_span_s, zipf_alpha, content_hash. `path` is a file
    (its format from its content, else `format`, else its extension) or "generator:NAME" with
    the generator's keys in `set` ({"trace.objects": 1000}). Read through the summary cache
    `flashpq run` shares. Raises ValueError for an unreadable trace (file, record, offset)."""
    return _native().trace_info(os.fspath(path), format, _sets(set), int(seed))


_OPS = ("get", "set", "delete")


def read_trace(path: str, format: str = "", set: Mapping[str, Any] | None = None,
               seed: int = 1, limit: int | None = None):
    """The requests of a trace as a pandas.DataFrame: time_ns (uint64), key (uint64),
    size_bytes (uint32), op (uint8: 0 get, 1 set, 2 delete), at most `limit` (default all),
    in trace order. Arguments as trace_info(). Memory: 21 bytes per request."""
    import pandas as pd
    t, k, s, o = _native().read_trace(os.fspath(path), format, _sets(set), int(seed),
                                      int(limit or 0))
    return pd.DataFrame({"time_ns": t, "key": k, "size_bytes": s, "op": o})


# ---- Caches, request by request ----------------------------------------------------------------

class PriorityPolicy:
    """A policy written in Python on the priority-queue interface of the RIPQ paper (§4.1,
    Table 2; engine/policy.h): the framework keeps the queue, the policy says where objects go.

    Subclass it and define
      kind = "relative" or "absolute"   relative priorities lie in (0, 1], 1 the queue's head
                                        (the SLRU family); absolute ones are any finite numbers,
                                        the smallest evicted first (the GDSF family);
      grid = L                          relative policies: the k/L grid of their priorities
                                        (the exact framework keeps one list per level);
      on_insert(self, key, size) -> priority         a miss is inserted there;
      on_hit(self, key, size, priority) -> priority or None   a hit moves up to it (None:
                                        it stays);
      on_evict(self, key, size, priority)            optional: the victim, before it leaves.
    key is the request's 64-bit key, size its bytes, priority the object's current one.

    Every hook is a call into the interpreter, with the GIL held (about 0.1 µs each, plus what
    the hook does): an LRU written this way runs 2-3 times slower than the built-in one. For
    exploring an idea before writing it in C++ (docs/guide/extending.md), which sweeps need.
    """

    kind = "relative"
    grid = 1

    def on_insert(self, key: int, size: int) -> float:
        raise NotImplementedError

    def on_hit(self, key: int, size: int, priority: float) -> float | None:
        raise NotImplementedError


_POLICIES: dict[str, type] = {}


def register_policy(name: str, policy: type) -> None:
    """Makes `name` select the PriorityPolicy subclass `policy` in Cache(policy=name), in this
    interpreter. Raises ValueError if `name` is a built-in policy's, TypeError if `policy` is
    not a PriorityPolicy subclass."""
    if not (isinstance(policy, type) and issubclass(policy, PriorityPolicy)):
        raise TypeError(f"flashpq: register_policy: expected a PriorityPolicy subclass, found "
                        f"{policy!r}")
    if name in _native().policy_names():
        raise ValueError(f"flashpq: register_policy: '{name}' is a built-in policy")
    _POLICIES[name] = policy


def _section(value: Any, what: str) -> dict:
    """A section given as a name or a dict of its keys."""
    if value is None:
        return {}
    if isinstance(value, str):
        return {"name": value}
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"flashpq: {what}: expected a name or a dict of keys, found "
                    f"{type(value).__name__}")


class Cache:
    """One cache driven request by request (experiments/session.h): a policy on a framework
    on a device, as a cell of `flashpq run` builds it, without a trace.

    Args:
      policy: a built-in policy's name ("lru"), a dict of the policy section ({"name": "slru",
        "segments": 3}), the name given to register_policy(), or a PriorityPolicy instance.
      framework, device, admission: a name or a dict of the section's keys
        ({"name": "ripq", "insertion_points": 8}); defaults exact, null, none.
      capacity: bytes (an int) or a size with a unit ("64MiB"); never a fraction.
      seed: the cell's seed.
      max_object_size: the largest object it will see (bytes or a size): frameworks size their
        blocks by it (a cell reads it from its trace). Default 1 MiB.
      expected_objects: objects a full cache holds (index reserve, TinyLFU's sketch); default
        capacity / 4 KiB.
      set: more keys, dotted ({"framework.block_size": "256KiB"}).

    One thread at a time: batches of several threads run one after another; a cache whose
    policy is written in Python raises RuntimeError for a second thread's request.

    The keys, defaults and checks are those of docs/reference/keys.md. Raises ConfigError or
    ValueError as run() does: for a fraction as capacity, a framework without a cache (direct),
    a policy that reads the trace's future (belady, pfoo_l), a device timed on the wall clock.
    """

    def __init__(self, policy: Any = "lru", framework: Any = "exact", device: Any = "null",
                 capacity: int | str = "64MiB", admission: Any = "none", seed: int = 1,
                 max_object_size: int | str = "1MiB", expected_objects: int | None = None,
                 set: Mapping[str, Any] | None = None):
        native = _native()
        policy_object = None
        if isinstance(policy, str) and policy in _POLICIES:
            policy = _POLICIES[policy]()
        if isinstance(policy, PriorityPolicy):
            policy_object = policy
            policy = "lru"  # the schema's stand-in: the cache is built from policy_object
        doc: dict[str, Any] = {
            "seed": int(seed),
            "cache": {"capacity": str(capacity)},
            "policy": _section(policy, "policy"),
            "framework": _section(framework, "framework"),
            "device": _section(device, "device"),
            "admission": _section(admission, "admission"),
        }
        for key, value in _sets(set):
            section, dot, rest = key.partition(".")
            if not dot:
                doc[key] = value
            else:
                doc.setdefault(section, {})[rest] = value
        kind = getattr(policy_object, "kind", "relative")
        grid = int(getattr(policy_object, "grid", 1))
        self._session = native.Session(json.dumps(doc), str(max_object_size),
                                       int(expected_objects or 0), policy_object, str(kind), grid)

    @property
    def config(self) -> dict:
        """The cache's keys as resolved (the parameters a results row would carry) and
        cache_capacity_bytes."""
        return self._session.config()

    def access(self, key: int, size: int = 1, op: str = "get") -> bool:
        """One request: `op` "get" (a miss inserts the object, read-through), "set" or
        "delete"; `size` in bytes (>= 1). Returns True for a hit (a get of a cached object)."""
        try:
            code = _OPS.index(op)
        except ValueError:
            raise ValueError(f"flashpq: op: expected get, set or delete, found '{op}'") from None
        return self._session.access(int(key), int(size), code)

    def access_many(self, keys, sizes=None, ops=None):
        """Requests from arrays: keys (uint64), sizes (bytes, uint32; default 1 each), ops
        (0 get, 1 set, 2 delete, or their names; default all gets), of one length. Returns a
        numpy bool array, True where a get hit. The GIL is released while a built-in policy
        runs (at least 10 M requests/s on one core: docs/guide/python.md)."""
        import numpy as np
        keys = np.asarray(keys)
        if keys.dtype.kind == "i":
            keys = keys.astype(np.uint64, copy=False)
        sizes = np.ones(len(keys), dtype=np.uint32) if sizes is None else np.asarray(sizes)
        if ops is not None:
            ops = np.asarray(ops)
            if ops.dtype.kind in "US O":
                table = {name: i for i, name in enumerate(_OPS)}
                try:
                    ops = np.array([table[str(x)] for x in ops], dtype=np.uint8)
                except KeyError as e:
                    raise ValueError(f"flashpq: ops: expected get, set or delete, found {e}") \
                        from None
        return self._session.access_many(keys, sizes, ops)

    def stats(self) -> dict:
        """The counts so far, named as a results row names them (docs/reference/columns.md):
        requests, get_requests, hits, object_hit_ratio, byte_hit_ratio, evictions,
        host_write_bytes, wa_implementation, objects, index_bytes, ..., and the device's own
        columns (simflash: wa_ftl, ...). Ratios are NaN while their denominator is 0."""
        return self._session.stats()
