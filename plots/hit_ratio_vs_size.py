#!/usr/bin/python3
"""Plot object-wise and byte-wise hit ratio against cache size.

The command line of :mod:`flashpq.plots.hit_ratio_vs_size`
(python/flashpq/plots/hit_ratio_vs_size.py, where its usage, columns and output are documented);
the figure is also a function of :mod:`flashpq.plots` taking a pandas DataFrame.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "python"))

from flashpq.plots.hit_ratio_vs_size import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
