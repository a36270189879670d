"""How FlashPQ's figures look: sizes, fonts, colours, markers, dashes, and how they are saved.

The figure modules draw; what they share of appearance is here, so the figures of a paper match:
9-point text, no top or right spine, 150 dpi, colour *and* marker (or hatch) *and* dash telling
series apart so that a figure printed in grey still reads.
"""

from __future__ import annotations

import os

import matplotlib

matplotlib.use("Agg")  # headless rendering; must precede any pyplot import

from matplotlib.figure import Figure  # noqa: E402

from plots.results import ResultsError  # noqa: E402

MIB = 2 ** 20
DPI = 150

# Series styles, in the order series are met: grayscale-distinguishable as colour + marker +
# dash.
COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
          "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">")
DASHES = ("-", "--", "-.", ":")

# matplotlib rcParams of every figure (use as ``with matplotlib.rc_context(RC):``).
RC = {
    "font.size": 9, "axes.labelsize": 9, "axes.titlesize": 9,
    "xtick.labelsize": 8, "ytick.labelsize": 8, "legend.fontsize": 8,
    "axes.spines.top": False, "axes.spines.right": False,
    "savefig.dpi": DPI,
}


def save(fig: Figure, out_path: str) -> None:
    """Writes *fig* to *out_path* at :data:`DPI` (PNG, or any format matplotlib knows by the
    name), creating its folder. Raises :class:`ResultsError` naming the path when it cannot."""
    out_dir = os.path.dirname(os.path.abspath(out_path))
    try:
        os.makedirs(out_dir, exist_ok=True)
        fig.savefig(out_path, dpi=DPI, bbox_inches="tight", pad_inches=0.05)
    except (OSError, ValueError) as e:
        raise ResultsError(f"{out_path}: cannot write figure: {e}") from None
