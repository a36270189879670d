#!/usr/bin/python3
"""Flash-device figures: FTL write amplification (RIPQ paper, FAST'15, Figure 2), latency

The command line of :mod:`flashpq.plots.flash` (python/flashpq/plots/flash.py, where its usage,
columns and output are documented); the figure is also a function of :mod:`flashpq.plots` taking a
pandas DataFrame.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "python"))

from flashpq.plots.flash import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
