#!/usr/bin/python3
"""Compare the flash frameworks (exact, RIPQ, SIPQ) as in the RIPQ paper (FAST'15).

The command line of :mod:`flashpq.plots.frameworks` (python/flashpq/plots/frameworks.py, where its
usage, columns and output are documented); the figure is also a function of :mod:`flashpq.plots`
taking a pandas DataFrame.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "python"))

from flashpq.plots.frameworks import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
