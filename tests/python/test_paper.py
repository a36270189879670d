"""plots/paper.py: the facts the paper README states, on hand-made rows."""

import math

import pytest

from flashpq.plots import paper


def row(**kw):
    base = {"policy.name": "slru", "policy.segments": "3", "framework.name": "ripq",
            "framework.occupancy": "0.5", "error": ""}
    base.update({k.replace("__", "."): str(v) for k, v in kw.items()})
    return base


def test_labels_and_sizes():
    assert paper.algorithm(row(policy__name="fifo")) == "fifo"
    assert paper.algorithm(row(policy__name="lru", policy__segments=3)) == "slru-1"
    assert paper.algorithm(row(policy__name="gdsf", policy__segments=2)) == "gdsf-2"
    assert paper.framework(row(framework__name="sipq", framework__occupancy=0.9)) == "sipq-0.9"
    assert paper.framework(row(framework__name="exact")) == "exact"
    assert paper.size_bytes("4KiB") == 4096
    assert paper.size_bytes("16MiB") == 16 << 20
    assert paper.size_bytes("512") == 512


def test_fig9_saturation_is_the_smallest_k_within_two_tenths_of_a_point_of_the_best():
    rows = [row(framework__name="exact", framework__insertion_points=2, object_hit_ratio=0.50)]
    for k, y in ((2, 0.40), (4, 0.480), (8, 0.4985), (16, 0.500), (32, 0.4990)):
        rows.append(row(framework__insertion_points=k, object_hit_ratio=y))
    f = paper.fig9_facts(rows)
    assert f["exact"] == {"slru-3": 0.50}
    assert f["per_k"]["slru-3"][4] == 0.480
    assert f["saturation"]["slru-3"] == 8  # 0.500 - 0.4985 = 0.0015 <= 0.002; K = 4 is 0.02 off


def test_fig2_smallest_write_and_first_size_at_wa_one():
    rows = []
    for size, wa, mib in (("1MiB", 1.8, 40), ("4KiB", 2.8, 26), ("4MiB", 1.0, 71),
                          ("16MiB", 1.0, 66)):
        rows.append({"device.utilization": "0.8", "trace.io_size": size, "wa_ftl": str(wa),
                     "throughput_mib_s": str(mib), "error": ""})
    f = paper.fig2_facts(rows)
    assert f["peak_mib_s"] == 71
    u = f["per_util"][0]
    assert (u["small_size"], u["small_wa"], u["small_mib_s"], u["wa1_size"]) == \
        ("4KiB", 2.8, 26, "4MiB")


def test_block_size_figure_and_errors(tmp_path):
    rows = [row(framework__name="exact", framework__block_size=0.00390625, object_hit_ratio=0.44,
                wa_implementation="")]
    for fw in ("ripq", "sipq"):
        for frac, y, wa in ((0.015625, 0.43, 1.15), (0.00390625, 0.436, 1.18)):
            rows.append(row(framework__name=fw, framework__block_size=frac, object_hit_ratio=y,
                            wa_implementation=wa))
    out = tmp_path / "b.png"
    paper.plot_block_size(rows, str(out))
    assert out.stat().st_size > 1000
    with pytest.raises(paper.UserError):
        paper.plot_block_size(rows[:1], str(tmp_path / "none.png"))
    assert paper.main(["readme", str(tmp_path / "missing"), "-o", str(tmp_path / "r.md")]) == 2
    assert math.isclose(paper.num({"x": "1.5"}, "x"), 1.5)
