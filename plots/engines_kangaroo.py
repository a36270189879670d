#!/usr/bin/python3
"""Kangaroo's claim in shape: the best miss ratio of each flash design under one DRAM budget and
one write-rate budget (Kangaroo, SOSP'21, the headline result and its miss ratio against DRAM).

The command line of :mod:`flashpq.plots.engines_kangaroo`
(python/flashpq/plots/engines_kangaroo.py, where its usage, columns and output are documented); the
figure is also a function of :mod:`flashpq.plots` taking a pandas DataFrame.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "python"))

from flashpq.plots.engines_kangaroo import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
