"""Print how far curves of ``flashpq mrc`` lie from a reference curve: the mean absolute error
and the largest error of the object- and byte-wise hit ratios, over the sizes they share.

Usage::

    /usr/bin/python3 plots/curve_error.py REFERENCE.csv CURVE.csv [CURVE.csv ...]

Input: curve files (CSV or JSON Lines; docs/guide/curves.md), read by results.py; points
are matched by ``cache_capacity_bytes`` (the size each stands for), and a size the reference
lacks is left out.  Columns used: ``cache_capacity_bytes``, ``object_hit_ratio``,
``byte_hit_ratio``, ``curve_method`` and ``curve_sample_rate`` (for the label).

Output: one line per curve file, e.g.
``shards.csv (shards, R 0.01): 6 sizes, object MAE 0.0031 (max 0.0082), byte MAE 0.0031
(max 0.0082)``.  docs/guide/curves.md's accuracy tables are made with it.

Exit status: 0 on success, 2 on a user error (a missing file or column, no shared size), with a
one-line message on stderr.
"""

from __future__ import annotations

import os
import sys


from .results import ResultsError, load_results  # noqa: E402
from .results import num as _num  # noqa: E402
from .results import text as _str  # noqa: E402

PROG = "plots/curve_error.py"
COLUMNS = ("cache_capacity_bytes", "object_hit_ratio", "byte_hit_ratio")


def points(rows) -> dict:
    """{size: (object hit ratio, byte hit ratio)} of a curve's rows."""
    return {_num(r, "cache_capacity_bytes", "cache_capacity_bytes"):
            (_num(r, "object_hit_ratio", "object_hit_ratio"),
             _num(r, "byte_hit_ratio", "byte_hit_ratio")) for r in rows}


def errors(reference: dict, curve: dict) -> tuple[int, float, float, float, float]:
    """(sizes shared, object MAE, object max, byte MAE, byte max) of *curve* against
    *reference*.  Raises ResultsError when they share no size."""
    shared = sorted(set(reference) & set(curve))
    if not shared:
        raise ResultsError("no size in common with the reference")
    obj = [abs(curve[s][0] - reference[s][0]) for s in shared]
    byt = [abs(curve[s][1] - reference[s][1]) for s in shared]
    return len(shared), sum(obj) / len(obj), max(obj), sum(byt) / len(byt), max(byt)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) < 2 or argv[0] in ("-h", "--help"):
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        print(f"usage: {PROG} REFERENCE.csv CURVE.csv [CURVE.csv ...]", file=sys.stderr)
        return 2
    try:
        reference = points(load_results(argv[0], COLUMNS, PROG))
        for path in argv[1:]:
            rows = load_results(path, COLUMNS, PROG)
            try:
                n, om, ox, bm, bx = errors(reference, points(rows))
            except ResultsError as e:
                raise ResultsError(f"{path}: {e}") from None
            how = f"{_str(rows[0], 'curve_method')}, R {_str(rows[0], 'curve_sample_rate')}"
            print(f"{os.path.basename(path)} ({how}): {n} sizes, object MAE {om:.4f} "
                  f"(max {ox:.4f}), byte MAE {bm:.4f} (max {bx:.4f})")
    except ResultsError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
