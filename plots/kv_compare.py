#!/usr/bin/python3
"""DRAM-only against DRAM + flash under YCSB: p95 latency per operation and throughput.

The command line of :mod:`flashpq.plots.kv_compare` (python/flashpq/plots/kv_compare.py, where its
usage, columns and output are documented); the figure is also a function of :mod:`flashpq.plots`
taking a pandas DataFrame.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "python"))

from flashpq.plots.kv_compare import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
