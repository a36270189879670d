"""The front door holds what it claims: README.md at most 250 lines of at most 100 columns
(tables and links aside), every relative link of README.md and docs/ pointing at a file that
exists, and the README's own-trace example printing what the README shows.

Run from the repository root:  /usr/bin/python3 -m pytest tests/python -q
The example runs the ``flashpq`` binary of the build (``$FLASHPQ_BINARY``, default
``build/flashpq``) and is skipped without it.
"""

import glob
import os
import re
import subprocess

import pytest

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
README = os.path.join(REPO_ROOT, "README.md")
FLASHPQ = os.environ.get("FLASHPQ_BINARY", os.path.join(REPO_ROOT, "build", "flashpq"))


def _readme():
    with open(README, encoding="utf-8") as f:
        return f.read()


def test_readme_is_a_front_door():
    lines = _readme().splitlines()
    assert len(lines) <= 250, len(lines)
    long = [(i + 1, len(l)) for i, l in enumerate(lines)
            if len(l) > 100 and not l.startswith("|") and "](" not in l]
    assert not long, long


def _links(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    text = re.sub(r"```.*?```", "", text, flags=re.S)  # code blocks hold no links
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue  # a URL or an anchor of the same page
        yield target.split("#")[0]


def test_every_relative_link_of_the_docs_exists():
    pages = [README] + glob.glob(os.path.join(REPO_ROOT, "docs", "**", "*.md"), recursive=True)
    missing = []
    for page in pages:
        for target in _links(page):
            if not os.path.exists(os.path.join(os.path.dirname(page), target)):
                missing.append((os.path.relpath(page, REPO_ROOT), target))
    assert not missing, missing


@pytest.mark.skipif(not os.access(FLASHPQ, os.X_OK), reason="needs the flashpq binary (make build)")
def test_the_readmes_example_prints_what_the_readme_shows(tmp_path):
    # The expected output: the code block after "It prints one line per cell", its wrapped
    # lines joined per cell.
    text = _readme()
    block = text[text.index("It prints one line per cell"):]
    block = block[block.index("```") + 4:]
    block = block[:block.index("```")]
    expected = {}
    for cell, body in re.findall(r"\[cell (\d+) of [^\]]*\](.*?)(?=\[cell |\Z)", block, re.S):
        expected[int(cell)] = dict(re.findall(r"(\S+)=(\S+)", body))
    assert sorted(expected) == [0, 1, 2, 3]
    proc = subprocess.run([FLASHPQ, "run",
                           os.path.join(REPO_ROOT, "docs", "examples", "my_experiment.yaml"),
                           "-o", str(tmp_path / "my.csv")],
                          capture_output=True, text=True, cwd=tmp_path,
                          env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert proc.returncode == 0, proc.stderr
    got = {}
    for line in proc.stdout.splitlines() + proc.stderr.splitlines():
        m = re.match(r"\[cell (\d+) of [^\]]*\](.*)", line)
        if m:
            got[int(m.group(1))] = dict(re.findall(r"(\S+)=(\S+)", m.group(2)))
    assert got == expected
