#!/usr/bin/python3
"""What a policy earns in hit ratio and costs in write amplification on flash, per framework.

The command line of :mod:`flashpq.plots.hit_ratio_wa` (python/flashpq/plots/hit_ratio_wa.py, where
its usage, columns and output are documented); the figure is also a function of
:mod:`flashpq.plots` taking a pandas DataFrame.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "python"))

from flashpq.plots.hit_ratio_wa import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
