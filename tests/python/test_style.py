"""One style per framework and per policy across every figure (flashpq/plots/style.py), legends that
describe what is drawn, and titles that name the experiment.

Run from the repository root:  /usr/bin/python3 -m pytest tests/python -q
"""

import importlib
import csv
import os
import subprocess
import sys

from matplotlib.colors import to_hex

import test_flash_plots as flash_fixtures
import test_frameworks_plots as fw_fixtures
import test_hit_ratio_wa as wa_fixtures
import test_plots as hr_fixtures
from flashpq.plots import flash, frameworks, paper, style

timeseries = importlib.import_module("flashpq.plots.timeseries")  # the module, not the function
hit_ratio_vs_size = importlib.import_module("flashpq.plots.hit_ratio_vs_size")
kv_compare = importlib.import_module("flashpq.plots.kv_compare")
nhc = importlib.import_module("flashpq.plots.nhc")
from flashpq.plots.hit_ratio_wa import draw_tradeoff, load_tradeoff
from flashpq.plots.results import load_results

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def write_csv(path, rows):
    """*rows* (dicts) as CSV, the columns the union of their keys in first-seen order."""
    cols = list(dict.fromkeys(k for r in rows for k in r))
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, restval="")
        w.writeheader()
        w.writerows(rows)
    return str(path)


def hexa(color):
    return to_hex(color, keep_alpha=False)


def lines_by_label(ax):
    return {ln.get_label(): ln for ln in ax.get_lines() if not ln.get_label().startswith("_")}


def bar_colors(ax):
    """{bar label: facecolor hex} of an axes' bar containers."""
    return {c.get_label(): hexa(c.patches[0].get_facecolor()) for c in ax.containers if c.patches}


def tradeoff_rows(frameworks_wanted=("exact", "ripq", "sipq"), reverse=False, **extra):
    rows = [dict(r, **extra) for r in wa_fixtures._rows()
            if r["framework.name"] in frameworks_wanted]
    return rows[::-1] if reverse else rows


def tradeoff_top_lines(tmp_path, rows, name):
    fig = draw_tradeoff(load_tradeoff(write_csv(tmp_path / f"{name}.csv", rows)),
                        str(tmp_path / f"{name}.png"))
    top = [ax for ax in fig.axes if ax.get_title()][0]
    return fig, lines_by_label(top)


def latency_rows(frameworks_wanted):
    base = flash_fixtures._lat_rows()[0]
    return [dict(base, cell=i, **{"framework.name": fw}) for i, fw in enumerate(frameworks_wanted)]


# --------------------------------------------------------------------------
# One colour, marker and dash per framework and per policy
# --------------------------------------------------------------------------

def test_tables_give_every_framework_and_policy_its_own_style():
    fws = list(style.FRAMEWORK_STYLES.values())
    pols = list(style.POLICY_STYLES.values())
    for table in (fws, pols):
        assert len({s.color for s in table}) == len(table)
        assert len({s.marker for s in table}) == len(table)
    assert len({s.dash for s in fws}) == len(fws) and len({s.hatch for s in fws}) == len(fws)
    # Apart: a colour never means a framework in one figure and a policy in another.
    assert not {s.color for s in fws} & {s.color for s in pols}
    assert style.framework_style("RIPQ") == style.FRAMEWORK_STYLES["ripq"]
    assert style.framework_style("sipq-0.9") == style.FRAMEWORK_STYLES["sipq"]
    assert style.policy_style("slru-1").color == style.POLICY_STYLES["slru"].color
    assert style.policy_style("slru-3").color != style.policy_style("slru-2").color
    assert style.policy_style("slru-3").marker == style.POLICY_STYLES["slru"].marker


def test_unknown_names_get_a_fallback_from_the_name_alone():
    code = ("from flashpq.plots import style; s = style.framework_style('cachelib'); "
            "print(s.color, s.marker, s.dash, s.hatch)")
    outs = set()
    for seed in ("1", "2"):  # Python's str hash differs between these; the style must not
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           cwd=REPO_ROOT, env={**os.environ, "PYTHONHASHSEED": seed,
                                                   "PYTHONPATH": os.path.join(REPO_ROOT, "python")})
        assert p.returncode == 0, p.stderr
        outs.add(p.stdout)
    assert len(outs) == 1
    fb = style.framework_style("cachelib")
    assert fb == style.fallback_style("cachelib") == style.policy_style("cachelib")
    table_colors = {s.color for t in (style.FRAMEWORK_STYLES, style.POLICY_STYLES)
                    for s in t.values()}
    assert fb.color in style.SPARE_COLORS and fb.color not in table_colors


def test_a_framework_keeps_its_colour_whatever_the_rows_and_the_figure(tmp_path):
    ripq = style.FRAMEWORK_STYLES["ripq"]
    sipq = style.FRAMEWORK_STYLES["sipq"]
    # hit_ratio_wa: all frameworks; reversed rows without exact (ripq met first).
    _, a = tradeoff_top_lines(tmp_path, tradeoff_rows(), "a")
    _, b = tradeoff_top_lines(tmp_path, tradeoff_rows(("ripq", "sipq"), reverse=True), "b")
    for lines in (a, b):
        assert hexa(lines["ripq"].get_color()) == ripq.color
        assert lines["ripq"].get_marker() == ripq.marker
        assert lines["ripq"].get_linestyle() == ripq.dash
        assert hexa(lines["sipq"].get_color()) == sipq.color
    # frameworks.py bars: the same colours, with and without exact, in any row order.
    for rows in (fw_fixtures._fig8_rows(),
                 [r for r in fw_fixtures._fig8_rows()[::-1] if r["framework.name"] != "exact"]):
        fig = frameworks.plot_fidelity(rows, str(tmp_path / "fid.png"))
        colors = bar_colors(fig.axes[0])
        assert colors["ripq"] == ripq.color and colors["sipq-0.5"] == sipq.color
        assert fig.axes[0].containers[0].patches[0].get_hatch() in (
            style.FRAMEWORK_STYLES["exact"].hatch, ripq.hatch)
    # flash.py latency lines told apart by framework alone.
    for fws in (("exact", "ripq", "sipq"), ("sipq", "ripq")):
        fig = flash.plot_latency(latency_rows(fws), str(tmp_path / "lat.png"))
        lines = lines_by_label(fig.axes[0])
        assert hexa(lines["framework=ripq"].get_color()) == ripq.color
        assert lines["framework=ripq"].get_linestyle() == ripq.dash
        assert hexa(lines["framework=sipq"].get_color()) == sipq.color


def test_variants_of_one_framework_share_its_hatch_in_tones(tmp_path):
    rows = fw_fixtures._fig8_rows()
    rows += [dict(r, **{"framework.occupancy": 0.9}) for r in rows
             if r["framework.name"] == "sipq"]
    fig = frameworks.plot_fidelity(rows, str(tmp_path / "fid.png"))
    ax = fig.axes[0]
    colors = bar_colors(ax)
    hatches = {c.get_label(): c.patches[0].get_hatch() for c in ax.containers}
    assert colors["sipq-0.5"] == style.FRAMEWORK_STYLES["sipq"].color
    assert colors["sipq-0.9"] == style.toned(style.FRAMEWORK_STYLES["sipq"].color,
                                             style.tone(1))
    assert hatches["sipq-0.5"] == hatches["sipq-0.9"] == style.FRAMEWORK_STYLES["sipq"].hatch


def test_a_policy_keeps_its_colour_whatever_the_rows_and_the_figure(tmp_path):
    slru3 = style.policy_style("slru-3")
    # hit_ratio_vs_size: all policies, then reversed rows of two (slru met first).
    rows = load_results(write_csv(tmp_path / "hr.csv", hr_fixtures._rows()))
    subset = [r for r in rows[::-1] if r["policy.name"] in ("slru", "lru")]
    for rs in (rows, subset):
        fig = hit_ratio_vs_size.plot_hit_ratio_vs_size(rs, str(tmp_path / "hr.png"))
        line = lines_by_label(fig.axes[0])["slru-3"]
        assert hexa(line.get_color()) == slru3.color and line.get_marker() == slru3.marker
    # paper.py block-size: colour and marker the algorithm's, dash the framework's.
    bs_rows = []
    for fw in ("ripq", "sipq"):
        for frac, y, wa in ((0.015625, 0.43, 1.15), (0.00390625, 0.436, 1.18)):
            bs_rows.append({"policy.name": "slru", "policy.segments": "3", "framework.name": fw,
                            "framework.occupancy": "0.5", "framework.block_size": str(frac),
                            "object_hit_ratio": str(y), "wa_implementation": str(wa)})
    for rs in (bs_rows, bs_rows[::-1]):
        fig = paper.plot_block_size(rs, str(tmp_path / "bs.png"))
        lines = lines_by_label(fig.axes[0])
        assert hexa(lines["slru-3 ripq"].get_color()) == slru3.color
        assert lines["slru-3 ripq"].get_linestyle() == style.FRAMEWORK_STYLES["ripq"].dash
        assert lines["slru-3 sipq-0.5"].get_linestyle() == style.FRAMEWORK_STYLES["sipq"].dash
    # frameworks.py k-sensitivity: gdsf-1 in its colour, with or without slru-2 drawn first.
    gdsf1 = style.policy_style("gdsf-1")
    k_rows = fw_fixtures._k_rows()
    for rs in (k_rows, [r for r in k_rows[::-1] if r["policy.name"] == "gdsf"]):
        fig = frameworks.plot_k_sensitivity(rs, str(tmp_path / "k.png"))
        line = lines_by_label(fig.axes[0])["gdsf-1"]
        assert hexa(line.get_color()) == gdsf1.color and line.get_marker() == gdsf1.marker


def test_policies_and_frameworks_together_colour_by_policy_dash_by_framework(tmp_path):
    rows = []
    for fw in ("sipq", "ripq"):
        for name in ("lru", "fifo"):
            for mib in (32, 64):
                rows.append({"policy.name": name, "framework.name": fw,
                             "cache_capacity_bytes": str(mib * 2 ** 20),
                             "object_hit_ratio": "0.5", "byte_hit_ratio": "0.4"})
    fig = hit_ratio_vs_size.plot_hit_ratio_vs_size(rows, str(tmp_path / "x.png"))
    lines = lines_by_label(fig.axes[0])
    for name in ("lru", "fifo"):
        for fw in ("sipq", "ripq"):
            ln = lines[f"{name} / {fw}"]
            assert hexa(ln.get_color()) == style.POLICY_STYLES[name].color
            assert ln.get_marker() == style.POLICY_STYLES[name].marker
            assert ln.get_linestyle() == style.FRAMEWORK_STYLES[fw].dash
    # One policy beside several frameworks: the frameworks' colours.
    one = [r for r in rows if r["policy.name"] == "fifo"]
    lines = lines_by_label(hit_ratio_vs_size.plot_hit_ratio_vs_size(
        one, str(tmp_path / "y.png")).axes[0])
    assert hexa(lines["fifo / ripq"].get_color()) == style.FRAMEWORK_STYLES["ripq"].color


# --------------------------------------------------------------------------
# The reference style is the exact queue's alone
# --------------------------------------------------------------------------

def test_only_the_exact_queue_is_drawn_as_the_reference(tmp_path):
    thick = style.REFERENCE["linewidth"]
    _, with_exact = tradeoff_top_lines(tmp_path, tradeoff_rows(), "a")
    assert with_exact["exact"].get_linewidth() == thick
    assert with_exact["ripq"].get_linewidth() == style.LINE["linewidth"]
    # Without an exact row, no framework stands in for it.
    fig, without = tradeoff_top_lines(tmp_path, tradeoff_rows(("ripq", "sipq")), "b")
    assert set(without) == {"ripq", "sipq"}
    for ax in fig.axes:
        for ln in ax.get_lines():
            assert ln.get_linewidth() < thick and ln.get_alpha() in (None, 1.0)
    # hit_ratio_vs_size and flash latency: the same.
    rows = []
    for fw in ("ripq", "sipq"):
        for mib in (32, 64):
            rows.append({"policy.name": "lru", "framework.name": fw,
                         "cache_capacity_bytes": str(mib * 2 ** 20),
                         "object_hit_ratio": "0.5", "byte_hit_ratio": "0.4"})
    fig = hit_ratio_vs_size.plot_hit_ratio_vs_size(rows, str(tmp_path / "h.png"))
    assert all(ln.get_linewidth() < thick for ln in fig.axes[0].get_lines())
    fig = hit_ratio_vs_size.plot_hit_ratio_vs_size(
        rows + [dict(r, **{"framework.name": "exact"}) for r in rows[:2]],
        str(tmp_path / "h2.png"))
    widths = {ln.get_label(): ln.get_linewidth() for ln in fig.axes[0].get_lines()}
    assert widths == {"lru / ripq": style.LINE["linewidth"], "lru / sipq": style.LINE["linewidth"],
                      "lru / exact": thick}
    fig = flash.plot_latency(latency_rows(("ripq", "sipq")), str(tmp_path / "l.png"))
    assert all(ln.get_linewidth() < thick for ln in fig.axes[0].get_lines())


# --------------------------------------------------------------------------
# Legends describe what is drawn
# --------------------------------------------------------------------------

def _legend(fig):
    return [t.get_text() for t in fig.legends[0].get_texts()]


def test_wa_legend_names_only_the_kinds_of_wa_drawn(tmp_path):
    # Implementation WA only (a device without an FTL model: wa_ftl and wa_combined empty).
    rows = [dict(r, wa_ftl="", wa_combined="") for r in tradeoff_rows()]
    fig, _ = tradeoff_top_lines(tmp_path, rows, "impl")
    assert _legend(fig) == ["exact (DRAM only)", "ripq", "sipq",
                            "implementation WA (hollow markers)"]
    bottom = [ax for ax in fig.axes if not ax.get_title()]
    assert bottom[0].get_ylabel() == "write amplification"
    for ax in bottom:
        drawn = [ln for ln in ax.get_lines() if ln.get_label() != "WA = 1"]
        assert drawn and all(ln.get_markerfacecolor() == "white" for ln in drawn)
    # Both kinds: both keys, and the axis says how they relate.
    fig, _ = tradeoff_top_lines(tmp_path, tradeoff_rows(), "both")
    assert _legend(fig)[-2:] == ["combined WA (filled markers)",
                                 "implementation WA (hollow markers)"]
    assert "FTL WA = combined ÷ implementation" in \
        [ax for ax in fig.axes if not ax.get_title()][0].get_ylabel()
    # No WA at all: no key.
    fig, _ = tradeoff_top_lines(tmp_path, tradeoff_rows(("exact",)), "none")
    assert _legend(fig) == ["exact (DRAM only)"]


def test_kv_compare_legend_lists_the_configurations_drawn_in_their_style(tmp_path):
    from test_kv_compare_plots import COLUMNS, ROWS
    rows = [dict(zip(COLUMNS, r)) for r in ROWS if r[3] == "1"]  # DRAM + flash only
    fig = kv_compare.plot(rows, str(tmp_path / "kv.png"))
    assert _legend(fig) == ["DRAM + flash"]
    want = style.CONFIGURATION_STYLES["DRAM + flash"]
    for ax in fig.axes:
        assert set(bar_colors(ax).values()) <= {want.color}
    fig = kv_compare.plot([dict(zip(COLUMNS, r)) for r in ROWS], str(tmp_path / "kv2.png"))
    assert _legend(fig) == ["DRAM only", "DRAM + flash"]


def test_nhc_legend_names_the_lines_drawn(tmp_path):
    from test_nhc_plots import COLUMNS, ROWS
    fig = nhc.plot([dict(zip(COLUMNS, r)) for r in ROWS if not r[-1]], str(tmp_path / "n.png"))
    first = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert first == ["cache device", "core device", "total served"]
    last = lines_by_label(fig.axes[-1])
    assert hexa(last["nhc_wa"].get_color()) == style.TIER_MODE_STYLES["nhc_wa"].color


# --------------------------------------------------------------------------
# Titles name the experiment (from the experiment column), not the file
# --------------------------------------------------------------------------

def _title_of(fig):
    if fig._suptitle is not None:
        return fig._suptitle.get_text()
    return fig.axes[0].get_title()


def test_titles_name_the_experiment_and_the_figure_kind(tmp_path):
    path = tmp_path / "results-file-name.csv"
    titles = {}
    recs = load_tradeoff(write_csv(path, tradeoff_rows(experiment="quickstart")))
    titles["hit_ratio_wa"] = (_title_of(draw_tradeoff(recs, str(tmp_path / "a.png"))),
                              "quickstart: hit ratio and write amplification on flash")
    rows = load_results(write_csv(path, [dict(r, experiment="sizes")
                                         for r in hr_fixtures._rows()]))
    titles["hit_ratio_vs_size"] = (_title_of(hit_ratio_vs_size.plot_hit_ratio_vs_size(
        rows, str(tmp_path / "b.png"))), "sizes: hit ratio vs. cache size")
    fig8 = [dict(r, experiment="fig8") for r in fw_fixtures._fig8_rows()]
    titles["fidelity"] = (_title_of(frameworks.plot_fidelity(fig8, str(tmp_path / "c.png"))),
                          "fig8: object-wise hit ratio")
    titles["fw wa"] = (_title_of(frameworks.plot_wa(fig8, str(tmp_path / "d.png"))),
                       "fig8: implementation write amplification")
    k_rows = [dict(r, experiment="fig9") for r in fw_fixtures._k_rows()]
    titles["k"] = (_title_of(frameworks.plot_k_sensitivity(k_rows, str(tmp_path / "e.png"))),
                   "fig9: RIPQ: hit ratio vs. insertion points")
    titles["flash wa"] = (_title_of(flash.plot_wa(flash_fixtures._wa_rows(),
                                                  str(tmp_path / "f.png"))), "fig2: FTL write")
    titles["latency"] = (_title_of(flash.plot_latency(flash_fixtures._lat_rows(),
                                                      str(tmp_path / "g.png"))),
                         "lat: request latency CDF")
    titles["sim-vs-real"] = (_title_of(flash.plot_sim_vs_real(flash_fixtures._svr_rows(),
                                                              str(tmp_path / "h.png"))),
                             "svr: simulated vs. real device")
    from test_kv_compare_plots import COLUMNS as KV_COLUMNS, ROWS as KV_ROWS
    kv = [dict(zip(KV_COLUMNS, r), experiment="kv_compare") for r in KV_ROWS]
    titles["kv"] = (_title_of(kv_compare.plot(kv, str(tmp_path / "i.png"))),
                    "kv_compare: p95 latency and throughput, DRAM only against DRAM + flash")
    from test_nhc_plots import COLUMNS as NHC_COLUMNS, ROWS as NHC_ROWS
    nh = [dict(zip(NHC_COLUMNS, r), experiment="nhc") for r in NHC_ROWS if not r[-1]]
    titles["nhc"] = (_title_of(nhc.plot(nh, str(tmp_path / "j.png"))),
                     "nhc: served throughput against offered rate")
    from test_timeseries_plots import results_dir
    series = timeseries.load(results_dir(tmp_path), ["throughput_rps"], None)
    titles["timeseries"] = (_title_of(timeseries.plot(series, ["throughput_rps"],
                                                      str(tmp_path / "k.png"))),
                            "e: statistics over time")
    bs = [{"experiment": "block_size", "policy.name": "fifo", "framework.name": "ripq",
           "cache.capacity": "0.4", "framework.block_size": str(f), "object_hit_ratio": "0.4",
           "wa_implementation": "1.1"} for f in (0.015625, 0.00390625)]
    titles["block-size"] = (_title_of(paper.plot_block_size(bs, str(tmp_path / "l.png"))),
                            "block_size: block-size sensitivity — ripq; cache 40 % of the "
                            "working set")
    for what, (title, want) in titles.items():
        assert title.startswith(want), (what, title)
        assert "results-file-name" not in title, what


def test_title_option_replaces_the_default(tmp_path, monkeypatch):
    hit_ratio_wa = importlib.import_module("flashpq.plots.hit_ratio_wa")
    saved = []
    monkeypatch.setattr(hit_ratio_wa, "save", lambda fig, out: saved.append(fig))
    path = write_csv(tmp_path / "r.csv", tradeoff_rows(experiment="quickstart"))
    out = str(tmp_path / "x.png")
    assert hit_ratio_wa.main([path, "-o", out, "--no-table", "--title", "Mine"]) == 0
    assert hit_ratio_wa.main([path, "-o", out, "--no-table"]) == 0
    assert hit_ratio_wa.main([path, "-o", out, "--no-table", "--title", ""]) == 0
    assert [f._suptitle.get_text() for f in saved] == [
        "Mine", "quickstart: hit ratio and write amplification on flash — x.zst", ""]
