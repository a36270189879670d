"""Tests for plots/engines_kangaroo.py (plan, select) and plots/engines.py.

Run from the repository root:  /usr/bin/python3 -m pytest tests/python -q
"""

import csv
import math
import os
import subprocess
import sys

import pytest

pytest.importorskip("pandas")

from flashpq.plots import engines_kangaroo as ek  # noqa: E402

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MIB = 2 ** 20
FLASH = 32 * MIB
MEAN = 200.0          # working set 200,000 B over 1,000 objects
COLUMNS = ["experiment", "cell", "framework.name", "cache.capacity", "cache_capacity_bytes",
           "tiers.mode", "tiers.dram", "tiers.dram_capacity", "tiers.flash_admission",
           "tiers.admit_probability", "framework.kangaroo_admission_probability",
           "object_hit_ratio", "cached_objects", "dram_index_bytes_per_object",
           "flash_write_rate_mib_s", "trace_working_set_bytes", "trace_unique_objects",
           "dram_hit_ratio", "flash_hit_ratio", "wa_implementation", "error"]
BUDGET = 3 * FLASH / 86400 / MIB          # 3 DWPD in MiB/s
D18 = 18.5 * FLASH / MEAN / 8             # 18.5 bits per flash object, in bytes


def row(cell, fw, cap, dram, p, hit, objects, per_object, rate, error=""):
    return ["t", cell, fw, cap, cap, "wt", "true", dram, "random", p, 1, hit, objects,
            per_object, rate, 200000, 1000, 0.2, hit - 0.2, 5, error]


def write(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(COLUMNS)
        w.writerows(rows)
    return str(path)


ROWS = [
    # SA: p = 1 writes too much, p = 0.1 fits
    row(0, "bighash", FLASH, 100000, 1.0, 0.75, 150000, 0.437, 8 * BUDGET),
    row(1, "bighash", FLASH, 100000, 0.1, 0.70, 150000, 0.437, 0.8 * BUDGET),
    # Kangaroo: the better cell's DRAM does not fit 18.5 b/obj (its tier alone is over)
    row(2, "kangaroo", FLASH, int(D18), 0.4, 0.82, 150000, 0.9, 0.9 * BUDGET),
    row(3, "kangaroo", FLASH, 100000, 0.4, 0.78, 150000, 0.9, 0.9 * BUDGET),
    # LS: index-bound; a failed cell is skipped
    row(4, "blockcache", 8 * MIB, 10000, 1.0, 0.55, 16000, 12.0, 0.5 * BUDGET),
    row(5, "blockcache", FLASH, 10000, 1.0, 0.65, 62000, 12.0, 0.5 * BUDGET, "boom"),
]


def test_select_keeps_the_best_cell_that_fits(tmp_path):
    workloads, chosen = ek.select([write(tmp_path / "r.csv", ROWS)], [18.5], 3.0, None, None)
    (name, flash, mean, wb, _), = workloads
    assert (name, flash, mean) == ("t", FLASH, MEAN)
    assert math.isclose(wb, BUDGET)
    best = {r["design"]: r for r in chosen}
    assert best["SA (BigHash)"]["cell"] == 1            # p = 1 breaks the write budget
    assert best["Kangaroo"]["cell"] == 3                # cell 2 breaks the DRAM budget
    assert math.isclose(best["Kangaroo"]["miss_ratio"], 0.22)
    assert best["LS (BlockCache)"]["cell"] == 4         # cell 5 failed
    assert best["LS (BlockCache)"]["index_bytes"] == 16000 * 12


def test_a_cheaper_ls_index_admits_more_ls_flash(tmp_path):
    rows = ROWS[:5] + [row(5, "blockcache", FLASH, 10000, 1.0, 0.65, 62000, 12.0, 0.5 * BUDGET)]
    path = write(tmp_path / "r.csv", rows)
    _, chosen = ek.select([path], [18.5], 3.0, None, None)
    assert {r["design"]: r for r in chosen}["LS (BlockCache)"]["cell"] == 4   # 744 KB > D
    _, chosen = ek.select([path], [18.5], 3.0, None, 30)
    assert {r["design"]: r for r in chosen}["LS (BlockCache)"]["cell"] == 5


def test_plan_fits_every_configuration_in_its_budget():
    rows = ek.plan(FLASH, MEAN, [9.25, 18.5], [0.5, 0.9], 512.0, 12.0, 64 * 1024, 0.03, [30],
                   18.5)
    assert {r[1] for r in rows} == {"bighash", "kangaroo", "blockcache"}
    for comment, fw, cap, dram in rows:
        b = float(comment.split(" ")[0])
        budget = b * FLASH / MEAN / 8
        index = {"bighash": FLASH / 512, "kangaroo": ek.kangaroo_dram_bytes(FLASH, MEAN),
                 "blockcache": cap / 512 * (30 / 8 if "30 index" in comment else 12)}[fw]
        assert 0 < dram and dram + index <= budget, comment
        assert cap <= FLASH


def test_select_cli_writes_figure_and_tables(tmp_path):
    path = write(tmp_path / "r.csv", ROWS)
    out = tmp_path / "f.png"
    p = subprocess.run([sys.executable, os.path.join(REPO_ROOT, "plots", "engines_kangaroo.py"),
                        "select", path, "-o", str(out), "--table", str(tmp_path / "t")],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert out.stat().st_size > 0
    assert (tmp_path / "t.csv").exists() and "| 18.5 (headline) |" in (tmp_path / "t.md").read_text()
    assert "skipping failed cell 5" in p.stderr


def test_engines_cli_draws_a_column_per_workload(tmp_path):
    cols = ["experiment", "framework.name", "trace.size", "cache_capacity_bytes",
            "trace_working_set_bytes", "object_hit_ratio", "wa_combined", "wa_implementation",
            "dram_index_bytes_per_object", "error"]
    rows = [["e", fw, size, cap, 1000, 0.5, 2, 1.5, 12, ""]
            for fw in ("ripq", "kangaroo") for size in ("200", "8KiB") for cap in (100, 200)]
    path = tmp_path / "e.csv"
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        w.writerows(rows)
    p = subprocess.run([sys.executable, os.path.join(REPO_ROOT, "plots", "engines.py"), str(path),
                        "-o", str(tmp_path / "e.png")], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "~200 B objects | 10 | ripq | 0.5000" in p.stdout
    assert "~8KiB objects" in p.stdout
