#!/usr/bin/python3
"""Print how far curves of ``flashpq mrc`` lie from a reference curve: the mean absolute error
and the largest error of the object- and byte-wise hit ratios, over the sizes they share.

The command line of :mod:`flashpq.plots.curve_error` (python/flashpq/plots/curve_error.py, where
its usage, columns and output are documented).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "python"))

from flashpq.plots.curve_error import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
