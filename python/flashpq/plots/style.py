"""How FlashPQ's figures look: sizes, fonts, colours, markers, dashes, and how they are saved.

The figure modules draw; what they share of appearance is here, so the figures of a paper match:
9-point text, no top or right spine, 150 dpi, colour *and* marker (or hatch) *and* dash telling
series apart so that a figure printed in grey still reads.

**One style per framework and per policy, in every figure.**  :data:`FRAMEWORK_STYLES` and
:data:`POLICY_STYLES` give each framework (exact, ripq, sipq, direct) and each policy (fifo, lru,
slru, gdsf, wtinylfu) one colour and one marker; a framework also has one dash (line style) and
one bar hatch.  A name in neither table gets :func:`fallback_style`: a stable hash of the name
into spare palettes, the same in every figure and every run (never the order series are met).
The rule every figure module applies (:func:`line_style`, :func:`bar_style`):

* **colour and marker** are the *policy's* when the series of a figure differ by policy (lines
  per policy, with or without several frameworks), and the *framework's* when they differ by
  framework only (one panel per policy, or bars per framework);
* **dash and hatch** are always the *framework's*: exact solid, ripq dashed, sipq dotted,
  direct dash-dotted; and hit_ratio_wa's WA panels tell combined from implementation WA by the
  marker's fill instead (filled: combined, hollow: implementation);
* **the reference style** (a thick, half-transparent line beneath the others, so that it shows
  where the others coincide with it) is the exact queue's alone, where it is drawn beside other
  frameworks: another framework never takes it, whatever the rows of a results file hold (and
  a figure of the exact queue alone draws it as any other line).

Variants of one policy or framework (slru-1, slru-2, slru-3; sipq-0.5, sipq-0.9) share its
colour, marker, dash and hatch, in tones (:data:`TONES`: the base colour, then lighter, darker,
...): a policy's segment count L takes tone L - 1, a framework's variants their rank in
ascending parameter order.

To add a framework or a policy, add its line to the table; until then it is drawn in its
fallback style.
"""

from __future__ import annotations

import os
import zlib
from typing import NamedTuple

import matplotlib

matplotlib.use("Agg")  # headless rendering; must precede any pyplot import

from matplotlib.colors import to_hex, to_rgb  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from .results import ResultsError  # noqa: E402

MIB = 2 ** 20
DPI = 150


class SeriesStyle(NamedTuple):
    """The appearance of one named series: *color* (hex), *marker* (matplotlib marker),
    *dash* (matplotlib line style) and *hatch* (matplotlib bar hatch)."""
    color: str
    marker: str
    dash: str
    hatch: str


# Frameworks: colours apart from the policies' (a reader who learnt "blue is fifo" is not told
# "blue is ripq" by the next figure).  The exact queue, the hit-ratio reference, is near-black
# and solid; it alone is drawn in the REFERENCE style.
FRAMEWORK_STYLES: dict[str, SeriesStyle] = {
    "exact": SeriesStyle("#222222", "o", "-", ""),
    "ripq": SeriesStyle("#e7298a", "s", "--", "///"),
    "sipq": SeriesStyle("#8c564b", "^", ":", "..."),
    "direct": SeriesStyle("#7f7f7f", "D", "-.", "xx"),
    # A new framework: its line here (a colour, marker, dash and hatch no other one has).
}

# Policies: colour and marker (dash and hatch are the framework's).
POLICY_STYLES: dict[str, SeriesStyle] = {
    "fifo": SeriesStyle("#1f77b4", "o", "-", ""),
    "lru": SeriesStyle("#d62728", "s", "-", ""),
    "slru": SeriesStyle("#2ca02c", "^", "-", ""),
    "gdsf": SeriesStyle("#ff7f0e", "D", "-", ""),
    "wtinylfu": SeriesStyle("#9467bd", "v", "-", ""),
    # A new policy: its line here.
}

# Cache modes of a hierarchy (tiers.mode, engine/tiers.cpp) and the two configurations of the
# KV comparison (plots/kv_compare.py): named series too, so each keeps its style.  They never
# share a figure with policies or frameworks; their colours are distinct within each table.
TIER_MODE_STYLES: dict[str, SeriesStyle] = {
    "none": SeriesStyle("#7f7f7f", "o", "-", ""),
    "wt": SeriesStyle("#1f77b4", "s", "-", ""),
    "wb": SeriesStyle("#2ca02c", "^", "--", "///"),
    "wa": SeriesStyle("#d62728", "D", "-", ""),
    "wo": SeriesStyle("#9467bd", "v", ":", "..."),
    "pt": SeriesStyle("#8c564b", "P", "-.", "xx"),
    "nhc_wa": SeriesStyle("#ff7f0e", "X", "--", "///"),
    "nhc_wb": SeriesStyle("#17becf", "*", ":", "\\\\\\"),
}
CONFIGURATION_STYLES: dict[str, SeriesStyle] = {
    "DRAM only": SeriesStyle("#4d4d4d", "o", "-", ""),
    "DRAM + flash": SeriesStyle("#1b9e77", "s", "--", "///"),
}

# The spare palettes of fallback_style: none of the framework, policy or configuration colours.
SPARE_COLORS = ("#17becf", "#bcbd22", "#7570b3", "#a6761d", "#e6ab02", "#66a61e", "#b15928",
                "#fb9a99")
SPARE_MARKERS = ("P", "X", "*", "<", ">", "h", "p", "d")
SPARE_DASHES = ("-", "--", ":", "-.")
SPARE_HATCHES = ("\\\\\\", "oo", "++", "--")

# Series that are neither frameworks nor policies nor named (utilizations, write sizes, cells),
# in their figure's order (sorted by value, or by cell number): grayscale-distinguishable as
# colour + marker + dash.
COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
          "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">")
DASHES = ("-", "--", "-.", ":")

# Tone of a variant (0 = the base colour; > 0 mixed with white, < 0 with black), by index.
TONES = (0.0, 0.45, -0.35, 0.7, -0.6)

# The parameters (results columns) that name a policy or a framework: a figure whose series
# differ by these alone styles them by this module's rule.
NAMED_PARAMETERS = {"policy.name": "policy", "policy.segments": "policy",
                    "framework.name": "framework"}

# The framework drawn in the reference style, and that style (Line2D keyword arguments).
REFERENCE_FRAMEWORK = "exact"
REFERENCE = {"linewidth": 3.0, "alpha": 0.55, "zorder": 1, "markersize": 6}
# Every other line.
LINE = {"linewidth": 1.4, "alpha": 1.0, "zorder": 2, "markersize": 4.5}

# matplotlib rcParams of every figure (use as ``with matplotlib.rc_context(RC):``).
RC = {
    "font.size": 9, "axes.labelsize": 9, "axes.titlesize": 9,
    "xtick.labelsize": 8, "ytick.labelsize": 8, "legend.fontsize": 8,
    "axes.spines.top": False, "axes.spines.right": False,
    "savefig.dpi": DPI,
}


def fallback_style(name: str) -> SeriesStyle:
    """The style of a name no table holds: CRC-32 of its UTF-8 bytes (zlib, stable across
    runs and machines, unlike Python's ``hash``) picks the colour, marker, dash and hatch from
    the SPARE_ palettes.  Two unknown names may share a colour; they are unlikely to share all
    four."""
    h = zlib.crc32(name.encode("utf-8"))
    n_c, n_m, n_d = len(SPARE_COLORS), len(SPARE_MARKERS), len(SPARE_DASHES)
    return SeriesStyle(SPARE_COLORS[h % n_c], SPARE_MARKERS[(h // n_c) % n_m],
                       SPARE_DASHES[(h // (n_c * n_m)) % n_d],
                       SPARE_HATCHES[(h // (n_c * n_m * n_d)) % len(SPARE_HATCHES)])


def toned(color: str, tone: float) -> str:
    """*color* mixed with white (*tone* in (0, 1]) or black (*tone* in [-1, 0)), as hex."""
    r, g, b = to_rgb(color)
    if tone >= 0:
        return to_hex(tuple(c + (1 - c) * tone for c in (r, g, b)))
    return to_hex(tuple(c * (1 + tone) for c in (r, g, b)))


def tone(index: int) -> float:
    """The tone of the *index*-th variant (0: the base colour): :data:`TONES`, cycled."""
    return TONES[index % len(TONES)]


def named_style(name: str, table: dict[str, SeriesStyle]) -> SeriesStyle:
    """*table*'s style of *name* (also tried lower-case), else :func:`fallback_style`."""
    return table.get(name) or table.get(name.lower()) or fallback_style(name)


def framework_style(name: str) -> SeriesStyle:
    """The style of framework *name* ("ripq"), or of a variant label ("sipq-0.5", "ripq-K4":
    the framework's before the first "-"), case-insensitive; the fallback for another name."""
    key = name.strip().lower()
    if key in FRAMEWORK_STYLES:
        return FRAMEWORK_STYLES[key]
    base = key.split("-", 1)[0]
    return FRAMEWORK_STYLES.get(base) or fallback_style(key)


def policy_style(label: str) -> SeriesStyle:
    """The style of a policy label: "fifo", "lru", or "slru-L" / "gdsf-L" (the policy's colour
    in tone L - 1, :func:`tone`); case-insensitive; the fallback for another name."""
    key = label.strip().lower()
    if key in POLICY_STYLES:
        return POLICY_STYLES[key]
    base, _, segments = key.partition("-")
    style = POLICY_STYLES.get(base) or fallback_style(base)
    if segments.isdigit() and int(segments) >= 1:
        style = style._replace(color=toned(style.color, tone(int(segments) - 1)))
    return style


def is_reference(framework: str | None) -> bool:
    """True for the exact queue (:data:`REFERENCE_FRAMEWORK`), the only reference line."""
    return framework is not None and framework.strip().lower() == REFERENCE_FRAMEWORK


def line_style(policy: str | None = None, framework: str | None = None,
               framework_tone: float = 0.0, alone: bool = False) -> dict:
    """Line2D keyword arguments (color, marker, linestyle, linewidth, alpha, zorder,
    markersize) of a series, by the module's rule: pass *policy* when the figure's series differ
    by policy (colour and marker: the policy's), *framework* when the series have one (dash: the
    framework's, and the reference style for the exact queue unless *alone*, i.e. the figure
    draws no other framework); with *framework* alone, colour and marker are the framework's (in
    *framework_tone*, :func:`toned`).  Raises ValueError when both are None."""
    if policy is None and framework is None:
        raise ValueError("line_style needs a policy or a framework")
    fw = framework_style(framework) if framework is not None else None
    if policy is not None:
        p = policy_style(policy)
        color, marker = p.color, p.marker
    else:
        color, marker = toned(fw.color, framework_tone), fw.marker
    out = {"color": color, "marker": marker, "linestyle": fw.dash if fw else "-"}
    out.update(REFERENCE if is_reference(framework) and not alone else LINE)
    return out


def bar_style(policy: str | None = None, framework: str | None = None,
              framework_tone: float = 0.0) -> dict:
    """Bar keyword arguments (color, hatch, edgecolor, linewidth) by the rule of
    :func:`line_style`: colour the policy's when given, else the framework's (in
    *framework_tone*); hatch the framework's.  Raises ValueError when both are None."""
    if policy is None and framework is None:
        raise ValueError("bar_style needs a policy or a framework")
    fw = framework_style(framework) if framework is not None else None
    color = policy_style(policy).color if policy is not None else toned(fw.color, framework_tone)
    return {"color": color, "hatch": fw.hatch if fw else "", "edgecolor": "black",
            "linewidth": 0.4}


def figure_title(title: str | None, experiment: str, kind: str, *context: str) -> str:
    """A figure's title: *title* when given (``--title``, even ""), else "EXPERIMENT: KIND"
    followed by the non-empty *context* parts (" — " between them); KIND alone without an
    experiment name."""
    if title is not None:
        return title
    head = f"{experiment}: {kind}" if experiment else kind
    return " — ".join(p for p in (head, *context) if p)


def save(fig: Figure, out_path: str) -> None:
    """Writes *fig* to *out_path* at :data:`DPI` (PNG, or any format matplotlib knows by the
    name), creating its folder. Raises :class:`ResultsError` naming the path when it cannot."""
    out_dir = os.path.dirname(os.path.abspath(out_path))
    try:
        os.makedirs(out_dir, exist_ok=True)
        fig.savefig(out_path, dpi=DPI, bbox_inches="tight", pad_inches=0.05)
    except (OSError, ValueError) as e:
        raise ResultsError(f"{out_path}: cannot write figure: {e}") from None
