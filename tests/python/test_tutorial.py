"""docs/tutorial.ipynb runs from top to bottom without an error (nbclient), in docs/ as Jupyter
would run it, so the tutorial cannot rot. Its own cells check what it claims (the LRU written in
Python decides as the built-in one).

Needs the native module, as tests/python/test_package.py; nbclient, nbformat and ipykernel
(scripts/install-deps.sh).
"""

import os

import pytest

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
NOTEBOOK = os.path.join(REPO_ROOT, "docs", "tutorial.ipynb")

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

if not os.environ.get("FLASHPQ_EXTENSION_DIR"):
    flashpq = pytest.importorskip("flashpq")
    try:
        flashpq._native()
    except ImportError:
        pytest.skip("the native module is not built", allow_module_level=True)


def test_the_tutorial_runs(monkeypatch):
    # The kernel inherits the environment: the package's sources and the build's module.
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        [os.path.join(REPO_ROOT, "python"), os.environ.get("PYTHONPATH", "")]))
    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": os.path.dirname(NOTEBOOK)}})
    client.execute()  # raises CellExecutionError, with the cell and its traceback, on an error
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    text = "".join(o.get("text", "") for o in outputs)
    assert "built-in LRU" in text and "LRU in Python" in text
    # The figure was drawn.
    assert any("image/png" in o.get("data", {}) for o in outputs)
