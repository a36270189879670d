#!/usr/bin/python3
"""Non-hierarchical caching: served throughput against offered rate, per device and mode.

The command line of :mod:`flashpq.plots.nhc` (python/flashpq/plots/nhc.py, where its usage, columns
and output are documented); the figure is also a function of :mod:`flashpq.plots` taking a pandas
DataFrame.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "python"))

from flashpq.plots.nhc import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
