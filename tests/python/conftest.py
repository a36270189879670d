"""Make the figure library importable (``import flashpq.plots.hit_ratio_vs_size``, from
<repo>/python) and the repository root too."""

import os
import sys

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
for path in (REPO_ROOT, os.path.join(REPO_ROOT, "python")):
    if path not in sys.path:
        sys.path.insert(0, path)
