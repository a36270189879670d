#!/usr/bin/python3
"""The flash engines side by side: hit ratio, write amplification and DRAM per object against

The command line of :mod:`flashpq.plots.engines` (python/flashpq/plots/engines.py, where its usage,
columns and output are documented); the figure is also a function of :mod:`flashpq.plots` taking a
pandas DataFrame.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "python"))

from flashpq.plots.engines import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
