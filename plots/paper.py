#!/usr/bin/python3
"""The RIPQ paper (FAST'15) reproduced: the block-size figure and the README of experiments/paper/.

The command line of :mod:`flashpq.plots.paper` (python/flashpq/plots/paper.py, where its usage,
columns and output are documented); the figure is also a function of :mod:`flashpq.plots` taking a
pandas DataFrame.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "python"))

from flashpq.plots.paper import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
