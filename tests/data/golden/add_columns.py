#!/usr/bin/python3
"""Golden rows, regenerated when columns are added, and the proof that nothing else changed.

  add_columns.py --flashpq build/flashpq --added COL[,COL...] [--changed COL[,...]] [--write]

runs every NAME.yaml here through `flashpq run` and compares the result with NAME.csv: the new
header must be the old one with the --added columns inserted (the old columns in the old
order), and every old column of every row must hold exactly its old text (`wall_seconds`
aside: it measures the host). With --write, NAME.csv becomes the old rows with the added
columns' new values inserted (`wall_seconds` kept as it was). Prints per file the rows and the
added columns' distinct values, so that the commit can state them. Exit status 1 on any
difference outside the added columns. --changed names old columns whose text a commit changed
on purpose (a note's wording, say): their differences are printed, row by row, not counted,
and --write takes their new text.
"""

import argparse
import csv
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def read(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--flashpq", required=True)
    ap.add_argument("--added", required=True, help="comma-separated names of the new columns")
    ap.add_argument("--changed", default="", help="comma-separated old columns allowed to change")
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args()
    added = args.added.split(",")
    changed = [c for c in args.changed.split(",") if c]
    bad = 0
    for name in sorted(f[:-5] for f in os.listdir(HERE) if f.endswith(".yaml")):
        old_header, old_rows = read(os.path.join(HERE, name + ".csv"))
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "r.csv")
            subprocess.run([args.flashpq, "run", os.path.join(HERE, name + ".yaml"), "-o", out],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            new_header, new_rows = read(out)
        if [c for c in new_header if c not in added] != old_header:
            print(f"{name}: the header is not the old one plus {added}")
            bad += 1
            continue
        if len(new_rows) != len(old_rows):
            print(f"{name}: {len(old_rows)} rows before, {len(new_rows)} now")
            bad += 1
            continue
        merged, values = [], {c: set() for c in added if c in new_header}
        for i, (o, n) in enumerate(zip(old_rows, new_rows)):
            od, nd = dict(zip(old_header, o)), dict(zip(new_header, n))
            for c in old_header:
                if c != "wall_seconds" and od[c] != nd[c]:
                    print(f"{name}: row {i} column {c}: {od[c]!r} before, {nd[c]!r} now")
                    bad += c not in changed
            for c in values:
                values[c].add(nd[c])
            merged.append([nd[c] if c in added or c in changed else od[c] for c in new_header])
        print(f"{name}: {len(old_rows)} rows, columns {len(old_header)} -> {len(new_header)}; "
              + "; ".join(f"{c}: {sorted(v)}" for c, v in values.items()))
        if args.write and not bad:
            with open(os.path.join(HERE, name + ".csv"), "w", newline="") as f:
                csv.writer(f, lineterminator="\n").writerows([new_header] + merged)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
