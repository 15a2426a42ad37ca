"""Binder's configuration (binder/), checked against repo2docker's documented formats and
against the book's lock, since Binder itself cannot be run here."""

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BINDER = ROOT / "binder"


def pins(path):
    """{package name: version} for every `name==version` line of a requirements file."""
    found = {}
    for line in path.read_text().splitlines():
        match = re.fullmatch(r"([A-Za-z0-9_.\-]+)==(\S+)", line.strip())
        if match:
            found[match[1].lower().replace("_", "-")] = match[2]
    return found


def test_binder_pins_match_the_lock():
    lock, binder = pins(ROOT / "requirements.txt"), pins(BINDER / "requirements.txt")
    assert binder, "binder/requirements.txt pins nothing"
    assert {name: lock.get(name) for name in binder} == binder


def test_binder_takes_cpu_torch():
    text = (BINDER / "requirements.txt").read_text()
    assert "--extra-index-url https://download.pytorch.org/whl/cpu" in text.splitlines()
    assert pins(BINDER / "requirements.txt")["torch"].endswith("+cpu")


def test_binder_runs_python_311():
    # torchviz 0.0.3 imports distutils, gone in Python 3.12.
    assert (BINDER / "runtime.txt").read_text().strip() == "python-3.11"


def test_binder_installs_graphviz_from_apt():
    packages = [line.strip() for line in (BINDER / "apt.txt").read_text().splitlines()
                if line.strip() and not line.startswith("#")]
    assert "graphviz" in packages


def test_postbuild_installs_the_package_and_stops_on_errors():
    lines = (BINDER / "postBuild").read_text().splitlines()
    assert lines[0].startswith("#!/bin/bash")
    assert any(line.startswith("set -e") for line in lines)
    assert any("pip install" in line and "-e ." in line for line in lines)
    assert any("overrides.json" in line for line in lines)


def test_markdown_chapters_open_as_notebooks():
    settings = json.loads((BINDER / "overrides.json").read_text())
    viewers = settings["@jupyterlab/docmanager-extension:plugin"]["defaultViewers"]
    assert viewers == {"markdown": "Jupytext Notebook", "myst": "Jupytext Notebook"}
    assert "jupytext" in pins(BINDER / "requirements.txt")
