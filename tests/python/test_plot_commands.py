"""Every figure command the repository names -- in the comments of experiments/**/*.yaml, in the
docstrings of python/flashpq/plots/*.py (the library the plots/*.py commands run), in README.md
and experiments/paper/README.md -- names a script that exists, with a subcommand and options it
accepts.

Run from the repository root:  /usr/bin/python3 -m pytest tests/python -q
"""

import glob
import os
import re
import shlex
import subprocess
import sys

import pytest

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
COMMAND_RE = re.compile(r"python3?\s+(plots/[A-Za-z0-9_]+\.py\b[^`\n]*)")


def _sources():
    """(file, text) of the files that name figure commands; yaml files by their comments."""
    out = []
    for path in sorted(glob.glob(os.path.join(REPO_ROOT, "experiments", "**", "*.yaml"),
                                 recursive=True)):
        with open(path, encoding="utf-8") as f:
            comments = [line.split("#", 1)[1] for line in f if "#" in line]
        out.append((path, "".join(comments)))
    for path in sorted(glob.glob(os.path.join(REPO_ROOT, "python", "flashpq", "plots",
                                              "*.py"))) + [
            os.path.join(REPO_ROOT, "README.md"),
            os.path.join(REPO_ROOT, "experiments", "paper", "README.md")]:
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                out.append((path, f.read()))
    return out


def commands():
    """(where, argv after the interpreter) of every command named, continuation lines joined."""
    found = []
    for path, text in _sources():
        # Shell line continuations (in a docstring's source, the backslash is doubled).
        text = re.sub(r"\\{1,2}\n\s*", " ", text)
        for m in COMMAND_RE.finditer(text):
            line = text[:m.start()].count("\n") + 1
            found.append((f"{os.path.relpath(path, REPO_ROOT)}:{line}", m.group(1).strip()))
    return found


def test_the_commands_are_found():
    where = {w.split(":")[0] for w, _ in commands()}
    # The quickstart names its figure; every figure module documents its usage.
    assert os.path.join("experiments", "quickstart.yaml") in where
    for module in ("hit_ratio_wa", "hit_ratio_vs_size", "frameworks", "flash", "paper",
                   "kv_compare", "nhc", "timeseries"):
        assert os.path.join("python", "flashpq", "plots", f"{module}.py") in where, module


def _argv(command):
    """The argv of a command as documented: [optional] parts given, of alternatives a|b the
    first."""
    command = re.sub(r"([^\s|\[\]]+)(\|[^\s|\]]+)+", r"\1", command)
    return shlex.split(command.replace("[", "").replace("]", ""))


def _shapes():
    """One command per (script, subcommand, options) shape: running the others adds nothing."""
    seen, out = set(), []
    for where, command in commands():
        argv = _argv(command)
        shape = (argv[0], argv[1] if len(argv) > 1 and not argv[1].startswith("-") and
                 "." not in argv[1] and "/" not in argv[1] else "",
                 tuple(a for a in argv if a.startswith("-")))
        if shape not in seen:
            seen.add(shape)
            out.append((where, command))
    return out


def test_every_named_script_exists():
    for where, command in commands():
        script = _argv(command)[0]
        assert os.path.isfile(os.path.join(REPO_ROOT, script)), f"{where}: {script} does not exist"


@pytest.mark.parametrize("where,command", _shapes())
def test_named_figure_command_parses(tmp_path, where, command):
    argv = _argv(command)
    script = os.path.join(REPO_ROOT, argv[0])
    # Run it as written, from an empty folder: its results file is not there, so a command
    # that parses stops at reading it (exit 2 naming the file); a command whose subcommand
    # or options the script does not know stops in argparse ("usage:").  Placeholders in
    # capitals (RESULTS, FIG, T) are file names and titles like any other.
    proc = subprocess.run([sys.executable, script, *argv[1:]], capture_output=True, text=True,
                          cwd=tmp_path)
    assert "usage:" not in proc.stderr, f"{where}: {command}\n{proc.stderr}"
    assert "Traceback" not in proc.stderr, f"{where}: {command}\n{proc.stderr}"
    assert proc.returncode == 2, f"{where}: {command}\n{proc.stderr}"
    assert not any(tmp_path.iterdir()), f"{where}: wrote a figure without results"
