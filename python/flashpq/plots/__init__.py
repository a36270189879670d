"""FlashPQ's figures as functions of a pandas DataFrame.

Each function takes a results DataFrame -- as :func:`read_results` returns it (``pd.read_csv``
of a CSV results file, ``pd.read_json(..., lines=True)`` of a JSON Lines one), or one built or
filtered in code with the same columns -- draws the figure the command line ``plots/NAME.py``
draws of the file, and returns the :class:`matplotlib.figure.Figure` without saving it;
:func:`save` writes it as the command lines do (150 dpi, tight bounding box)::

    import flashpq.plots as fp
    df = fp.read_results("results/quickstart.csv")
    fig = fp.hit_ratio_wa(df[df["policy.name"] != "fifo"])
    fp.save(fig, "quickstart.png")

The cells of the frame are read as the command lines read the file (results.py
:func:`~flashpq.plots.results.frame_text`: NaN and None as empty cells, integral numbers as
integers, so ``policy.segments`` 3 reads "3" even in a float column).  Rows whose ``error`` is
set are skipped with a warning on stderr, as from a file.  A problem raises
:class:`ResultsError` (a ``ValueError``) with the message the command line prints after
``PROG: error: RESULTS:``, locating a row by its index label ("row 4") instead of a file line.

The modules (hit_ratio_wa, frameworks, flash, ...) keep their command lines (``main``) and the
functions on rows of text they are built of.  Importing this package needs only the standard
library and matplotlib; pandas is imported by :func:`read_results`, and a DataFrame is needed
only to call the figure functions.
"""

from __future__ import annotations

import importlib as _importlib

from . import results as _results
from . import style as _style
from .results import ResultsError, read_results

# The modules are imported here, before the functions named after them replace them as this
# package's attributes: ``flashpq.plots.hit_ratio_wa`` is the figure function; the module is
# ``importlib.import_module("flashpq.plots.hit_ratio_wa")`` (or ``from
# flashpq.plots.hit_ratio_wa import main``), and later imports of it leave the function alone.
_m = {name: _importlib.import_module(f"{__name__}.{name}")
      for name in ("curve_error", "curves", "engines", "engines_kangaroo", "flash", "frameworks",
                   "hit_ratio_vs_size", "hit_ratio_wa", "kv_compare", "nhc", "paper",
                   "placement", "timeseries")}

__all__ = ["ResultsError", "read_results", "save", "hit_ratio_wa", "hit_ratio_vs_size",
           "frameworks_fidelity", "frameworks_wa", "frameworks_k_sensitivity", "flash_wa",
           "flash_latency", "flash_sim_vs_real", "engines", "kv_compare", "nhc",
           "paper_block_size", "curves", "placement", "timeseries"]


def save(fig, path: str) -> None:
    """Writes *fig* (a figure function's result) to *path* as the command lines do: at 150 dpi,
    tight bounding box, format by the name (PNG, PDF, SVG ...), creating the folder.  Raises
    :class:`ResultsError` naming *path* when it cannot be written."""
    import matplotlib

    # A figure drawn under style.RC (most) is saved under it too, as the command lines save it
    # inside their drawing: matplotlib reads some rcParams (tick label sizes) at save time.
    with matplotlib.rc_context(getattr(fig, "_flashpq_rc", None) or {}):
        _style.save(fig, path)


def _drawn_under_rc(fig):
    """*fig*, marked as drawn under :data:`style.RC` for :func:`save`."""
    fig._flashpq_rc = _style.RC
    return fig


def hit_ratio_wa(df, title: str | None = None):
    """The quickstart's figure (``plots/hit_ratio_wa.py``): object-wise hit ratio (top) and
    write amplification (bottom) against cache size, one column per policy, one line per
    framework.

    Columns: ``policy.name``, ``framework.name``, ``cache_capacity_bytes`` (bytes) and
    ``object_hit_ratio`` (hits / gets, in [0, 1]) required; ``policy.segments`` (slru, gdsf),
    ``trace_working_set_bytes`` (bytes; x is then in % of it, else MiB),
    ``wa_implementation``, ``wa_ftl``, ``wa_combined`` (ratios, empty: none), ``experiment``,
    ``trace.path`` (the default title) and ``notes`` (warned on stderr) optional.
    *title* None: "EXPERIMENT: hit ratio and write amplification on flash — TRACE".

    Raises :class:`ResultsError`: "missing required column(s) 'c' (header has: ...)", "all N
    cells failed; nothing to plot", or "row L: ..." on a malformed value.  Returns the Figure.
    """
    m = _m["hit_ratio_wa"]
    rows = _results.load_frame(df, m.REQUIRED, m.PROG)
    return _drawn_under_rc(m.draw_tradeoff(m.tradeoff_records(rows), None, title))


def hit_ratio_vs_size(df, title: str | None = None):
    """``plots/hit_ratio_vs_size.py``: object-wise and byte-wise hit ratio against cache size
    (MiB), one line per policy (and framework).

    Columns: ``policy.name``, ``cache_capacity_bytes`` (bytes), ``object_hit_ratio`` and
    ``byte_hit_ratio`` (fractions in [0, 1]) required (the module's ``REQUIRED_COLUMNS``),
    ``policy.segments`` for slru/gdsf rows; ``framework.name``, ``trace.path``, ``experiment``
    optional.  Raises :class:`ResultsError` as the command line (without the file name).
    Returns the Figure."""
    m = _m["hit_ratio_vs_size"]
    rows = _results.load_frame(df, m.REQUIRED_COLUMNS, m.PROG)
    m._prepare(rows, quiet=True)  # the command line's early checks
    return _drawn_under_rc(m.plot_hit_ratio_vs_size(rows, None, title))


def _frameworks_rows(df):
    m = _m["frameworks"]
    return m, _results.load_frame(df, m.REQUIRED_COLUMNS, m.PROG)


def frameworks_fidelity(df, metric: str = "object", title: str | None = None):
    """``plots/frameworks.py fidelity`` (RIPQ paper Fig. 8a/8d): grouped bars, x = algorithm,
    one bar per framework variant, y = object-wise (*metric* "object") or byte-wise ("byte")
    hit ratio, at the largest cache size.

    Columns: ``policy.name``, ``cache_capacity_bytes`` (bytes), ``object_hit_ratio``,
    ``byte_hit_ratio`` (fractions) and ``framework.name`` required; ``policy.segments`` for
    slru/gdsf, ``framework.occupancy`` with sipq rows, ``framework.insertion_points`` (labels
    ripq-K), ``experiment``, ``trace.path`` optional.  Raises :class:`ResultsError` as the
    command line ("missing required column(s) ...", "no cell has a value for ...").  Returns
    the Figure."""
    m, rows = _frameworks_rows(df)
    return _drawn_under_rc(m.plot_fidelity(rows, None, metric, title))


def frameworks_wa(df, title: str | None = None):
    """``plots/frameworks.py wa`` (RIPQ paper Fig. 8b/8e): the bars of
    :func:`frameworks_fidelity` with y = implementation write amplification
    (``wa_implementation``, host bytes / miss bytes; empty cells skipped with a warning) and a
    dashed line at 1.  Columns and errors as :func:`frameworks_fidelity`, plus
    ``wa_implementation``.  Returns the Figure."""
    m, rows = _frameworks_rows(df)
    return _drawn_under_rc(m.plot_wa(rows, None, title))


def frameworks_k_sensitivity(df, title: str | None = None):
    """``plots/frameworks.py k-sensitivity`` (RIPQ paper Fig. 9): RIPQ's object-wise hit ratio
    against its insertion points K (log2 axis), one line per algorithm, with the exact queue's
    as a reference line.  Columns as :func:`frameworks_fidelity`, plus
    ``framework.insertion_points`` (K, an integer > 0).  Raises :class:`ResultsError` as the
    command line ("no ripq rows; nothing to plot against insertion points K", ...).  Returns
    the Figure."""
    m, rows = _frameworks_rows(df)
    return _drawn_under_rc(m.plot_k_sensitivity(rows, None, title))


def _flash_rows(df):
    m = _m["flash"]
    return m, _results.load_frame(df, (), m.PROG)


def flash_wa(df, x: str = "size", title: str | None = None):
    """``plots/flash.py wa`` (RIPQ paper Fig. 2): FTL write amplification (``wa_ftl``, NAND
    pages / host pages), and throughput when present, against the write size
    (``trace.io_size``, a size such as "64KiB"; *x* "size", one line per utilization) or
    against ``device.utilization`` (fraction; *x* "utilization", one line per write size).
    Raises :class:`ResultsError` as the command line ("missing required column(s) ...
    (needed ...)").  Returns the Figure."""
    m, rows = _flash_rows(df)
    return _drawn_under_rc(m.plot_wa(rows, None, x, title))


def flash_latency(df, tail: bool = False, title: str | None = None):
    """``plots/flash.py latency``: the latency CDF of each row from its ``latency_histogram``
    (pairs of nanoseconds and counts), or 1 − CDF on a log axis when *tail*.  Raises
    :class:`ResultsError` as the command line.  Returns the Figure."""
    m, rows = _flash_rows(df)
    return _drawn_under_rc(m.plot_latency(rows, None, tail, title))


def flash_sim_vs_real(df, title: str | None = None):
    """``plots/flash.py sim-vs-real``: simulated (simflash) against real (block) rows of each
    configuration: throughput and latency percentiles (see the module's docstring for the
    columns), with the simulation's relative error.  Raises :class:`ResultsError` as the
    command line.  Returns the Figure."""
    m, rows = _flash_rows(df)
    return _drawn_under_rc(m.plot_sim_vs_real(rows, None, title))


def engines(df, title: str | None = None):
    """``plots/engines.py``: the flash engines side by side -- object-wise hit ratio, write
    amplification (combined and implementation, log axis) and DRAM index bytes per object
    against cache size in % of the working set, one column per workload.

    Columns: ``framework.name``, ``cache_capacity_bytes``, ``trace_working_set_bytes`` (bytes)
    and ``object_hit_ratio`` required; ``wa_combined``, ``wa_implementation``,
    ``dram_index_bytes_per_object`` and the ``trace.*`` parameters optional.  Raises
    :class:`ResultsError` as the command line.  Returns the Figure."""
    m = _m["engines"]
    rows = _results.load_frame(df, m.REQUIRED, m.PROG)
    return _drawn_under_rc(m.draw(m.records(rows), None, title, _results.experiment_name(rows)))


def kv_compare(df, title: str | None = None):
    """``plots/kv_compare.py``: the DRAM-only and DRAM + flash configurations side by side per
    workload.  Columns: the module's ``COLUMNS`` (required).  Raises :class:`ResultsError` as
    the command line.  Returns the Figure."""
    m = _m["kv_compare"]
    return _drawn_under_rc(m.plot(_results.load_frame(df, m.COLUMNS, m.PROG), None, title))


def nhc(df, title: str | None = None):
    """``plots/nhc.py``: the tier modes' series of the NHC experiment.  Columns: the module's
    ``COLUMNS`` (required).  Raises :class:`ResultsError` as the command line.  Returns the
    Figure."""
    m = _m["nhc"]
    return _drawn_under_rc(m.plot(_results.load_frame(df, m.COLUMNS, m.PROG), None, title))


def paper_block_size(df, title: str | None = None):
    """``plots/paper.py block-size``: hit ratio and implementation WA against block size (the
    RIPQ paper reproduced).  Columns as the module's docstring lists.  Raises
    :class:`ResultsError` (no successful row) or the module's ``UserError`` as the command
    line.  Returns the Figure."""
    m = _m["paper"]
    return _drawn_under_rc(m.plot_block_size(_results.load_frame(df, (), m.PROG), None, title))


def curves(df, title: str | None = None):
    """``plots/curves.py``: the curves of ``flashpq mrc`` over cache size (object hit ratio,
    and combined WA or byte hit ratio), one line per (policy, framework, method, sample rate);
    several curve files: ``pd.concat`` their frames.  Columns: the module's ``COLUMNS``
    (required).  Raises :class:`ResultsError` as the command line.  Returns the Figure."""
    m = _m["curves"]
    return m.plot(_results.load_frame(df, m.COLUMNS, m.PROG), None, title)


def placement(cachelib, misplaced):
    """``plots/placement.py`` (experiments/placement/README.md): device-level WA under Flexible
    Data Placement. Left, from *cachelib* (the results of cachelib_fdp.yaml): WA against the
    cache's share of the device (%), a line per FDP setting and device state, beside CacheLib's
    published 1.03 / 1.22 / 3.22. Right, from *misplaced* (misplaced.yaml): WA against the share
    of writes sent through another handle (%).

    Columns: *cachelib* ``wa_ftl`` (ratio), ``device.fdp.handles``, ``device.precondition``,
    ``cache_capacity_bytes`` and ``device_exported_bytes`` (bytes); *misplaced* ``wa_ftl`` and
    ``device.fdp.misplaced_fraction`` (in [0, 1]). Raises :class:`ResultsError` as the command
    line. Returns the Figure (save it at 150 dpi, as the command line does)."""
    m = _m["placement"]
    shares = m.share_lines(_results.load_frame(cachelib, m.SHARE_COLUMNS, m.PROG))
    wrong = m.misplaced_line(_results.load_frame(misplaced, m.MISPLACED_COLUMNS, m.PROG))
    return m.draw(shares, wrong)


def timeseries(df, columns, cells=None, base_dir: str = ".", title: str | None = None):
    """``plots/timeseries.py``: statistics over time (``stats.interval_s``), one panel per
    column of *columns* (names of the series files' columns, e.g. ``["object_hit_ratio",
    "wa_ftl"]``), one line per cell (*cells*: a set of cell numbers, None: every cell with a
    series), the warm-up shaded.

    Columns of *df*: ``cell`` and ``stats_file`` (the series file, relative to *base_dir*: the
    results file's directory, i.e. ``os.path.dirname(output)`` of ``flashpq.run(...,
    output=...)``). Raises :class:`ResultsError` as the command line ("no cell has a series",
    "PATH: no column 'x'"). Returns the Figure."""
    m = _m["timeseries"]
    rows = _results.load_frame(df, ("cell", "stats_file"), m.PROG)
    series = m.series_of(rows, base_dir, list(columns), set(cells) if cells is not None else None)
    return _drawn_under_rc(m.plot(series, list(columns), None, title))
