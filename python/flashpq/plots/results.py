"""The one loader of FlashPQ results files, and the helpers every figure reads rows with.

A results file holds one row per experiment cell (docs/DESIGN.md "Results"), as CSV (RFC 4180,
one header) or as JSON Lines (one JSON object per line, numeric columns unquoted, empty numeric
values as ``null``), chosen by the file's extension exactly as the writer chooses it
(experiments/results.cpp ``is_json_results``: ``.jsonl`` or ``.json`` is JSON Lines, anything
else CSV).  Every figure module reads both through :func:`load_results`.

Rows are dicts of column -> text, the same texts for both formats: a JSON ``null`` reads as
``""``, a number as Python's ``str`` of it, ``true``/``false`` as such, and a nested object (the
``clat_ns``/``lat_ns`` JSON of wall-clock rows) as its compact JSON text.  Each row carries
``row.where`` ("line N") for messages.

A column the file lacks reads exactly as an empty one: a results file carries only the columns
of the sections its cells use (one of exact-queue cells has no ``device.*`` column), so
``row[col]`` is ``""`` for an absent *col*, and the helpers below (:func:`text`, :func:`blank`,
:func:`num`, :func:`value`) treat absent and empty alike.  A figure that needs a column says so
with :func:`require` or ``load_results(required=...)``: "missing required column".

Rows whose ``error`` column is set are failed cells: they are dropped with a warning on stderr.

A pandas DataFrame of a results file (:func:`read_results`) reads as the file through
:func:`load_frame` (:func:`frame_rows`, :func:`frame_text`): the figure functions of
:mod:`flashpq.plots` take one; rows are located as "row LABEL" (the frame's index).

Errors are :class:`ResultsError` (a ``ValueError``): one line naming the file, the line or row,
the column, what was expected and what was found; the command lines turn them into exit status
2 without a traceback.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import re
import sys
from typing import Iterable


class ResultsError(ValueError):
    """A user-facing problem with a results file or its rows (no traceback)."""


class Row(dict):
    """A results row: column -> text; ``where`` locates it for messages.  ``row[col]`` of a
    column the file lacks is ``""``, as an empty cell (``col in row`` stays False)."""

    __slots__ = ("where",)

    def __missing__(self, key):
        return ""


def warn(prog: str, msg: str) -> None:
    """Prints ``PROG: warning: MSG`` on stderr."""
    print(f"{prog}: warning: {msg}", file=sys.stderr)


def is_json_results(path: str) -> bool:
    """True for ``.jsonl`` and ``.json`` (JSON Lines), as the C++ writer decides."""
    return os.path.splitext(path)[1].lower() in (".jsonl", ".json")


def is_failed(row: dict) -> bool:
    """True when the row's ``error`` column is set (a cell that failed)."""
    err = row.get("error")
    return err is not None and str(err).strip() != ""


def text(row: dict, col: str) -> str:
    """The stripped text of *col*, ``""`` when absent."""
    v = row.get(col)
    return "" if v is None else str(v).strip()


def blank(row: dict, col: str) -> bool:
    """True when *col* holds no value: empty, or ``nan``."""
    v = text(row, col)
    return v == "" or v.lower() == "nan"


def num(row: dict, col: str, where: str, kind=float):
    """The number in *col* (``int`` when *kind* is int and the value is integral).

    Raises :class:`ResultsError` naming *where* and *col* when the value is empty, not a number,
    not finite, or (for int) not integral.
    """
    v = row.get(col)
    if v is None or (isinstance(v, str) and v.strip() == ""):
        raise ResultsError(f"{where}: empty value in column {col!r}")
    try:
        if kind is int:
            f = float(v)
            if not f.is_integer():
                raise ValueError
            return int(f)
        f = float(v)
    except (TypeError, ValueError):
        raise ResultsError(f"{where}: column {col!r} has non-numeric value {v!r}") from None
    if not math.isfinite(f):
        raise ResultsError(f"{where}: column {col!r} is not finite ({v!r})")
    return f


def value(row: dict, col: str, where: str, *, lo: float | None = 0.0,
          hi: float | None = None) -> float | None:
    """The number in *col*, None when the cell is empty/NaN; ResultsError when malformed or
    outside [*lo*, *hi*] (a bound of None is no bound)."""
    if col not in row or blank(row, col):
        return None
    y = num(row, col, where)
    if lo is not None and y < lo:
        raise ResultsError(f"{where}: {col} = {y:g} is below {lo:g}")
    if hi is not None and y > hi:
        raise ResultsError(f"{where}: {col} = {y:g} is above {hi:g}")
    return y


def policy_label(row: dict) -> str:
    """The policy of a row as figures label it: ``policy.name``, with the segment count for
    slru and gdsf ("slru-3") when ``policy.segments`` is set."""
    name = text(row, "policy.name")
    if name.lower() in ("slru", "gdsf") and not blank(row, "policy.segments"):
        return f"{name}-{text(row, 'policy.segments')}"
    return name


def experiment_name(rows: Iterable[dict]) -> str:
    """The ``experiment`` column of *rows*, for titles: the one name, two joined by ", ", "N
    experiments" for more, "" when no row has one (a file without that column)."""
    names = list(dict.fromkeys(text(r, "experiment") for r in rows if text(r, "experiment")))
    if len(names) <= 2:
        return ", ".join(names)
    return f"{len(names)} experiments"


def located(rows: Iterable[dict], prog: str = "plots") -> list[tuple[str, dict]]:
    """(where, row) for every successful row (failed ones warned about and skipped).

    *where* is the row's ``where`` ("line N", from :func:`load_results`) or "row I" for rows
    built in code.  Raises :class:`ResultsError` when no row is left.
    """
    out = []
    for i, r in enumerate(rows, start=1):
        where = getattr(r, "where", None) or f"row {i}"
        if is_failed(r):
            warn(prog, f"{where}: skipping failed cell: {text(r, 'error')}")
            continue
        out.append((where, r))
    if not out:
        raise ResultsError("no successful rows to plot")
    return out


def require(located_rows, columns, why: str) -> None:
    """Raises :class:`ResultsError` naming the *columns* no row has (needed *why*)."""
    present = set().union(*(r.keys() for _, r in located_rows))
    missing = [c for c in columns if c not in present]
    if missing:
        raise ResultsError(
            f"missing required column{'s' if len(missing) > 1 else ''} "
            f"{', '.join(repr(c) for c in missing)} (needed {why})")


# Size units of the experiment files (sim/params.cpp, parse_size).
_SIZE_UNITS = {
    "": 1, "B": 1,
    "KiB": 2 ** 10, "MiB": 2 ** 20, "GiB": 2 ** 30, "TiB": 2 ** 40,
    "kB": 10 ** 3, "KB": 10 ** 3, "MB": 10 ** 6, "GB": 10 ** 9, "TB": 10 ** 12,
}
_SIZE_RE = re.compile(r"([0-9]+) *([A-Za-z]*)")


def parse_size(size_text: str) -> int:
    """Bytes of a size written as in the experiment files: ``4096``, ``4KiB``, ``16MiB``, ``1GB``.

    Binary units KiB..TiB = 2**10..2**40, decimal kB/KB..TB = 10**3..10**12, B = 1 (the
    rules of ``parse_size`` in sim/params.cpp).  Raises :class:`ResultsError` on
    anything else or on 0.
    """
    m = _SIZE_RE.fullmatch(str(size_text).strip())
    if not m or m.group(2) not in _SIZE_UNITS:
        raise ResultsError(
            f"expected a size (an integer number of bytes, optionally followed by B, KiB, MiB, "
            f"GiB, TiB or kB, MB, GB, TB), found {str(size_text)!r}")
    n = int(m.group(1)) * _SIZE_UNITS[m.group(2)]
    if n == 0:
        raise ResultsError(f"expected a size of at least 1 byte, found {str(size_text)!r}")
    return n


def format_size(n: float) -> str:
    """``4096`` → "4 KiB", ``16 * 2**20`` → "16 MiB", ``512`` → "512 B" (binary units)."""
    for unit, mult in (("TiB", 2 ** 40), ("GiB", 2 ** 30), ("MiB", 2 ** 20), ("KiB", 2 ** 10)):
        if n >= mult:
            return f"{n / mult:.4g} {unit}"
    return f"{n:.4g} B"


# --------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------

def _read_csv(path: str):
    with open(path, newline="", encoding="utf-8-sig") as f:
        reader = csv.reader(f)
        try:
            header = next(reader)
        except StopIteration:
            raise ResultsError(f"{path}: file is empty (no CSV header)") from None
        header = [h.strip() for h in header]
        if not any(header):
            raise ResultsError(f"{path}: first line is blank, expected a CSV header")
        raw = []
        for values in reader:
            if not any(c.strip() for c in values):
                continue
            if len(values) != len(header):
                raise ResultsError(f"{path}: line {reader.line_num} has {len(values)} fields, "
                                   f"header has {len(header)}")
            raw.append((reader.line_num, dict(zip(header, values))))
    return header, raw


def _json_text(v) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float, str)):
        return str(v)
    # A nested object (fio's clat_ns/lat_ns): compact, as the writer put it in the CSV field.
    return json.dumps(v, separators=(",", ":"))


def _read_jsonl(path: str):
    header: dict = {}
    raw = []
    with open(path, encoding="utf-8-sig") as f:
        for lineno, line in enumerate(f, start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as e:
                raise ResultsError(f"{path}: line {lineno}: not valid JSON ({e.msg})") from None
            if not isinstance(obj, dict):
                raise ResultsError(f"{path}: line {lineno}: expected a JSON object (one row), "
                                   f"found {type(obj).__name__}")
            for k in obj:
                header.setdefault(k.strip(), None)
            raw.append((lineno, {k.strip(): _json_text(v) for k, v in obj.items()}))
    if not header and not raw:
        raise ResultsError(f"{path}: file is empty (no JSON rows)")
    for _, values in raw:  # a key missing from a line reads as empty
        for k in header:
            values.setdefault(k, "")
    return list(header), raw


def read_rows(path: str) -> tuple[list[str], list[Row]]:
    """The columns and every row of a results file, failed cells included.

    Raises :class:`ResultsError` naming *path* when the file cannot be read, is empty or
    malformed (a CSV line with another number of fields than the header, a JSON line that is not
    one object), or has no data rows.
    """
    is_json = is_json_results(path)
    try:
        header, raw = _read_jsonl(path) if is_json else _read_csv(path)
    except OSError as e:
        raise ResultsError(f"{path}: cannot read results: {e.strerror or e}") from None
    except (csv.Error, UnicodeDecodeError) as e:
        raise ResultsError(f"{path}: not a readable {'JSON Lines' if is_json else 'CSV'} "
                           f"file: {e}") from None
    if not raw:
        raise ResultsError(f"{path}: no data rows (only a header)")
    rows = []
    for lineno, values in raw:
        row = Row(values)
        row.where = f"line {lineno}"
        rows.append(row)
    return header, rows


def _successful(header, rows, required, prog: str, source: str) -> list[Row]:
    """The rows of *rows* whose ``error`` is empty (the others warned about), after checking
    *header* holds every column of *required*; messages begin with *source* when it is set."""
    missing = [c for c in required if c not in header]
    if missing:
        raise ResultsError(at(source,
            f"missing required column{'s' if len(missing) > 1 else ''} "
            f"{', '.join(repr(c) for c in missing)} (header has: {', '.join(header)})"))
    out: list[Row] = []
    n_failed = 0
    for row in rows:
        if is_failed(row):
            n_failed += 1
            cell = text(row, "cell")
            what = ", ".join(f"{k} {text(row, k)}" for k in ("policy.name", "cache.capacity")
                             if text(row, k))
            warn(prog, at(source, f"skipping failed cell ({row.where}"
                                  f"{', cell ' + cell if cell else ''}"
                                  f"{': ' + what if what else ''}): {text(row, 'error')}"))
            continue
        out.append(row)
    if not out:
        raise ResultsError(at(source, f"all {n_failed} cells failed; nothing to plot"))
    return out


def load_results(path: str, required: Iterable[str] = (), prog: str = "plots") -> list[Row]:
    """The successful rows of a results file (CSV or JSON Lines), as :class:`Row` dicts.

    Every row has every column.  Failed cells (``error`` set) are dropped with a warning on
    stderr.  Raises :class:`ResultsError` naming *path* as :func:`read_rows` does, when a column
    of *required* is missing, or when every cell failed.
    """
    header, rows = read_rows(path)
    return _successful(header, rows, required, prog, path)


def at(source: str, msg: str) -> str:
    """*msg* located in *source*: "SOURCE: MSG", or *msg* alone when *source* is empty (rows of
    a DataFrame, whose messages name no file)."""
    return f"{source}: {msg}" if source else msg


# --------------------------------------------------------------------------
# DataFrames (pandas)
# --------------------------------------------------------------------------

def read_results(path: str):
    """A results file as a pandas DataFrame: ``pd.read_csv(path,
    float_precision="round_trip")``, or ``pd.read_json(path, lines=True, precise_float=True)``
    for JSON Lines (``.jsonl``/``.json``, as :func:`is_json_results`).  Numeric columns are numeric, empty
    cells NaN (pandas' rules; failed cells are kept).  The figure functions of
    :mod:`flashpq.plots` take such a frame.

    ``round_trip``, ``precise_float``: pandas' default float parsers may read a number one unit
    in the last place off ("0.31699944019406606" as 0.316999440194066), so a figure of a plain
    ``pd.read_csv`` frame can differ from the file's in the last bits (not visibly); with it
    the figure is the file's to the byte."""
    from .. import read_results as read  # one reader: the package's (python/flashpq/__init__.py)

    return read(path)


def frame_text(v) -> str:
    """A DataFrame cell as the text :func:`load_results` reads for it from the file: NaN, None
    and NA ``""``; a bool ``"true"``/``"false"``; an integer, or a float with an integral
    value (an int column with empty cells is float in pandas), as an integer (``3``, not
    ``3.0``: parameters such as ``policy.segments`` and ``cell`` are compared as text); another
    float as Python's shortest round-trip text (``0.1``); a dict or list (a nested JSON object,
    ``clat_ns``) as its compact JSON; anything else as ``str``."""
    if v is None:
        return ""
    if isinstance(v, str):
        return v
    if isinstance(v, (dict, list)):
        return json.dumps(v, separators=(",", ":"))
    try:
        import numpy as np
    except ImportError:  # pragma: no cover - pandas needs numpy
        np = None
    if isinstance(v, bool) or (np is not None and isinstance(v, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, int) or (np is not None and isinstance(v, np.integer)):
        return str(int(v))
    if isinstance(v, float) or (np is not None and isinstance(v, np.floating)):
        f = float(v)
        if math.isnan(f):
            return ""
        if math.isfinite(f) and f.is_integer():
            return str(int(f))
        return repr(f)
    try:
        import pandas as pd
        if pd.isna(v):
            return ""
    except (ImportError, TypeError, ValueError):
        pass
    return str(v)


def frame_rows(frame) -> tuple[list[str], list[Row]]:
    """The columns and every row of a DataFrame, failed cells included, as :func:`read_rows`
    gives them for a file: each value as :func:`frame_text`, column names stripped, each row's
    ``where`` "row LABEL" (its label in the frame's index).  Raises :class:`ResultsError` when
    the frame has no columns or no rows."""
    header = [str(c).strip() for c in frame.columns]
    if not any(header):
        raise ResultsError("the DataFrame has no columns")
    if len(frame) == 0:
        raise ResultsError("no data rows (the DataFrame is empty)")
    rows = []
    for label, values in zip(frame.index, frame.itertuples(index=False, name=None)):
        row = Row(zip(header, (frame_text(v) for v in values)))
        row.where = f"row {label}"
        rows.append(row)
    return header, rows


def load_frame(frame, required: Iterable[str] = (), prog: str = "plots") -> list[Row]:
    """:func:`load_results` of a DataFrame (as :func:`read_results` returns it): its successful
    rows as :class:`Row` dicts of text (:func:`frame_rows`), failed cells dropped with a
    warning on stderr.  Raises :class:`ResultsError` with the messages of :func:`load_results`
    without the file name ("missing required column 'x' (header has: ...)", "all N cells
    failed; nothing to plot")."""
    header, rows = frame_rows(frame)
    return _successful(header, rows, required, prog, "")


def run_figure_command(prog: str, results_path: str, output_path: str, load, draw) -> int:
    """The body of a figure command: load(results_path) the rows, draw(rows); a
    :class:`ResultsError` is printed as ``PROG: error: RESULTS: MESSAGE`` (the output path alone
    when the figure could not be written) and gives exit status 2, anything else 0."""
    try:
        rows = load(results_path)
        try:
            draw(rows)
        except ResultsError as e:
            msg = str(e)
            if not msg.startswith(output_path):
                msg = f"{results_path}: {msg}"
            raise ResultsError(msg) from None
    except ResultsError as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 2
    return 0


def figure_main(prog: str, description: str, columns, plot, argv=None) -> int:
    """The command line of a one-figure script: ``PROG RESULTS -o FIG [--title T]``; loads the
    successful rows of RESULTS requiring *columns* and calls ``plot(rows, FIG, T)`` (T None
    without --title: the figure's default title), with the errors and exit status of
    :func:`run_figure_command`."""
    ap = argparse.ArgumentParser(prog=prog, description=description)
    ap.add_argument("results")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--title", default=None,
                    help="figure title (default: the experiment's name and the figure's kind)")
    a = ap.parse_args(argv)
    return run_figure_command(
        prog, a.results, a.output,
        lambda path: load_results(path, columns, prog),
        lambda rows: plot(rows, a.output, a.title))
