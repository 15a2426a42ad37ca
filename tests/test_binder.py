"""Binder's configuration (binder/), checked against repo2docker's documented formats and
against the book's lock; the notebooks students open there (scripts/binder_notebooks.py);
and, marked ``binder``, every chapter executed as on Binder (scripts/binder_sim.py)."""

import ast
import importlib.metadata
import json
import re
import sys
import tomllib
from pathlib import Path
from types import SimpleNamespace

import jupytext
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
BINDER = ROOT / "binder"
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "_ext"))
import binder_launch  # noqa: E402
import binder_notebooks  # noqa: E402
import binder_sim  # noqa: E402
import passcache  # noqa: E402


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
    assert any("scripts/binder_notebooks.py" in line for line in lines)
    assert any("overrides.json" in line for line in lines)
    assert any("jupytext.toml" in line for line in lines)


def test_markdown_files_open_as_text():
    # README.md, CONTRIBUTING.md and the chapters' .md are text on Binder: rendered by
    # default, and jupytext treats only .ipynb as notebooks, so saving keeps the formatting.
    settings = json.loads((BINDER / "overrides.json").read_text())
    viewers = settings["@jupyterlab/docmanager-extension:plugin"]["defaultViewers"]
    assert viewers == {"markdown": "Markdown Preview"}
    config = tomllib.loads((BINDER / "jupytext.toml").read_text())
    assert config == {"notebook_extensions": ["ipynb"]}


# --- What the chapters import is what Binder installs --------------------------------

def base_env_names():
    names = set()
    for line in (ROOT / "scripts" / "binder-base-env.txt").read_text().splitlines():
        match = re.match(r"([A-Za-z0-9_.\-]+)==", line.strip())
        if match:
            names.add(match[1].lower().replace("_", "-"))
    return names


def with_dependencies(names):
    """names and everything they require (non-extra requirements), from installed metadata."""
    seen, todo = set(), list(names)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            requires = importlib.metadata.requires(name) or []
        except importlib.metadata.PackageNotFoundError:
            continue
        for requirement in requires:
            if "extra ==" in requirement:
                continue
            match = re.match(r"[A-Za-z0-9_.\-]+", requirement)
            todo.append(match[0].lower().replace("_", "-"))
    return seen


def chapter_imports():
    """{top-level module: first chapter importing it} over every chapter's code cells."""
    modules = {}
    for relpath, _ in binder_notebooks.toc_chapters(ROOT):
        for cell in jupytext.read(ROOT / relpath).cells:
            if cell.cell_type != "code":
                continue
            source = "\n".join(line for line in cell.source.splitlines()
                               if not line.lstrip().startswith(("%", "!")))
            for node in ast.walk(ast.parse(source)):
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0:
                    names = [node.module]
                else:
                    continue
                for name in names:
                    modules.setdefault(name.split(".")[0], relpath)
    return modules


def test_binder_installs_what_the_chapters_import():
    # Fast and static: the binder-marked run below is the real check.
    installed = with_dependencies(set(pins(BINDER / "requirements.txt")) | base_env_names())
    providers = importlib.metadata.packages_distributions()
    missing = {}
    for module, chapter in chapter_imports().items():
        if module in sys.stdlib_module_names or module == "toygrad":
            continue
        if any((ROOT / folder / f"{module}.py").exists()
               for folder in ("tests", "bench", "scripts")):
            continue  # the repository's own modules (the appendices import tests/optable.py
            # and scripts/grade.py)
        dists = {d.lower().replace("_", "-") for d in providers.get(module, [])}
        if not dists & installed:
            missing[module] = (chapter, sorted(dists))
    assert missing == {}, "imported by a chapter, not installed by binder/"


# --- The notebooks students open (scripts/binder_notebooks.py) ------------------------

@pytest.fixture(scope="module")
def student_notebooks(tmp_path_factory):
    out = tmp_path_factory.mktemp("notebooks")
    written, problems = binder_notebooks.build(ROOT, out)
    assert problems == [], "a {ref} or {glue:text} that the notebooks cannot resolve"
    return {path.stem: json.loads(path.read_text()) for path in written}


def test_a_notebook_for_every_chapter(student_notebooks):
    chapters = [Path(relpath).stem for relpath, _ in binder_notebooks.toc_chapters(ROOT)]
    assert sorted(student_notebooks) == sorted(chapters)


def test_no_myst_left_in_the_notebooks(student_notebooks):
    myst = re.compile(r"\{(literalinclude|glue:text|ref|solution-start|solution-end|exercise|"
                      r"admonition)\}|^\([\w-]+\)=$", re.M)
    for name, notebook in student_notebooks.items():
        for cell in notebook["cells"]:
            if cell["cell_type"] == "markdown":
                found = myst.search("".join(cell["source"]))
                assert found is None, f"{name}: {found[0]!r} left as MyST"


def test_included_code_is_shown_as_code(student_notebooks):
    # Every literalinclude of a chapter is written in, as Sphinx reads it for the website.
    from sphinx.directives.code import LiteralIncludeReader  # noqa: F401 (the reader used)

    engine = "".join("".join(cell["source"]) for cell in student_notebooks["ch04_backward"]["cells"])
    assert "```python\ndef execute(" in engine
    for relpath, _ in binder_notebooks.toc_chapters(ROOT):
        text = (ROOT / relpath).read_text()
        count = len(re.findall(r"^ *`{3,}\{literalinclude\}", text, re.M))
        shown = sum("".join(cell["source"]).count("*From `")
                    for cell in student_notebooks[Path(relpath).stem]["cells"])
        assert shown == count, relpath


def test_plain_include_reader_agrees_with_sphinx():
    # Without Sphinx (a Binder without myst-nb), the notebooks still show the same code.
    pattern = re.compile(r"^ *(`{3,})\{literalinclude\}\s+(\S+)\n(.*?)^ *\1$", re.M | re.S)
    checked = 0
    for relpath, _ in binder_notebooks.toc_chapters(ROOT):
        chapter = ROOT / relpath
        for _, target, body in pattern.findall(chapter.read_text()):
            options = binder_notebooks.parse_options(
                [line.strip() for line in body.splitlines()])
            assert binder_notebooks.read_include_plain(chapter.parent / target, options) == (
                binder_notebooks.read_include(chapter.parent, target, options)), (relpath, options)
            checked += 1
    assert checked >= 30


def test_solutions_are_collapsed_and_not_run(student_notebooks):
    for relpath, _ in binder_notebooks.toc_chapters(ROOT):
        text = (ROOT / relpath).read_text()
        expected = len(re.findall(r"^`{3,}\{solution-start\}", text, re.M))
        cells = student_notebooks[Path(relpath).stem]["cells"]
        headings = [i for i, cell in enumerate(cells)
                    if "".join(cell["source"]).startswith("#### Solution")]
        assert len(headings) == expected, relpath
        for start in headings:
            assert cells[start]["metadata"].get(binder_notebooks.COLLAPSED) is True
            end = next((i for i in range(start + 1, len(cells))
                        if re.match(r"#{1,3} ", "".join(cells[i]["source"]))), len(cells))
            assert all(cell["cell_type"] != "code" for cell in cells[start + 1:end]), (
                f"{relpath}: a solution's code would run with Run All")


def test_the_book_opens_the_student_notebook_on_binder():
    url = "https://mybinder.org/v2/gh/o/r/main?urlpath=lab/tree/chapters/ch04_backward.md"
    assert binder_launch.binder_url(url) == (
        "https://mybinder.org/v2/gh/o/r/main?urlpath=lab/tree/notebooks/ch04_backward.ipynb")
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert "binder_launch" in config["sphinx"]["local_extensions"]
    assert "notebooks" in config["exclude_patterns"]


# --- One place for the repository's address --------------------------------------------

def test_repository_address_is_only_in_config():
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    url = config["repository"]["url"]
    assert re.fullmatch(r"https://github\.com/[\w.-]+/[\w.-]+", url)
    # Everything else derives it: no other file names a GitHub repository or a Binder
    # launch address of its own.
    for path in [ROOT / "README.md", ROOT / "CONTRIBUTING.md", ROOT / "intro.md",
                 *sorted((ROOT / "chapters").glob("*.md")), *sorted(BINDER.iterdir())]:
        text = path.read_text()
        assert not re.search(r"mybinder\.org/v2/gh/[\w.-]+/", text), path.name
        assert url not in text, path.name


def test_pages_workflow_runs_make_test_and_deploys_the_site():
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "book.yml").read_text())
    steps = workflow["jobs"]["deploy-book"]["steps"]
    runs = [step.get("run", "") for step in steps]
    uses = [step.get("uses", "").split("@")[0] for step in steps]
    assert "make test" in runs
    # A release build: it refuses repository.url's placeholder (_ext/footer_links.py).
    assert steps[runs.index("make test")].get("env", {}).get("RELEASE") == "1"
    assert "actions/upload-pages-artifact" in uses and "actions/deploy-pages" in uses
    upload = steps[uses.index("actions/upload-pages-artifact")]
    assert upload["with"]["path"] == "_build/html"
    assert workflow["jobs"]["deploy-book"]["permissions"] == {"pages": "write", "id-token": "write"}


# --- Every chapter, run as on Binder ---------------------------------------------------

def test_local_requirements_only_map_the_cpu_index():
    text = (BINDER / "requirements.txt").read_text()
    local = binder_sim.local_requirements(text)
    assert "download.pytorch.org" not in local
    assert pins_text(local) == {name: version.removesuffix("+cpu")
                                for name, version in pins(BINDER / "requirements.txt").items()}


def pins_text(text):
    found = {}
    for line in text.splitlines():
        match = re.fullmatch(r"([A-Za-z0-9_.\-]+)==(\S+)", line.strip())
        if match:
            found[match[1].lower().replace("_", "-")] = match[2]
    return found


CHAPTERS = [Path(relpath).stem for relpath, _ in binder_notebooks.toc_chapters(ROOT)]


@pytest.fixture(scope="module")
def binder_run():
    report = binder_sim.run_all()
    print()
    print(binder_sim.table(report))
    return report


@pytest.fixture(scope="module")
def binder_report(binder_run):
    return {result["chapter"]: result for result in binder_run["chapters"]}


@pytest.mark.binder
def test_chapter_tests_run_in_a_binder_terminal(binder_run):
    # selenium is not on Binder: the site check must skip, not stop the collection.
    assert binder_run["pytest"]["exit"] == 0, binder_run["pytest"]["tail"]
    assert " passed" in binder_run["pytest"]["tail"]


@pytest.mark.binder
@pytest.mark.parametrize("chapter", CHAPTERS)
def test_chapter_runs_on_binder(binder_report, chapter):
    result = binder_report[chapter]
    assert result["ok"], result["error"]
    assert result["cpu_seconds"] < binder_sim.SECONDS_BUDGET, "over the time budget on one CPU"
    assert result["seconds"] < binder_sim.WALL_CEILING_SECONDS, "waits instead of computing"
    assert result["peak_mb"] < binder_sim.MEMORY_BUDGET_MB, "over the memory budget"


@pytest.mark.binder
def test_each_chapter_runs_in_a_fresh_kernel_and_is_measured_alone(binder_run, tmp_path,
                                                                   monkeypatch):
    # One runner executes the chapters one after another (issue 25): each in its own kernel,
    # with its own clock and peak, a failure reported and the next chapter still run.
    monkeypatch.setattr(binder_sim, "REPO", tmp_path)
    (tmp_path / "notebooks").mkdir()
    cells = {"big": "import numpy\nkept = numpy.ones(300 * 2**20 // 8)\nkept[::512] = 2",
             "broken": "raise ValueError('on purpose')",
             "small": "import os\nprint(os.getcwd())",
             # CPU time in a process the kernel starts and joins, then a wait
             "busy": ("import subprocess, sys, time\n"
                      "subprocess.run([sys.executable, '-c', 'import time\\n"
                      "end = time.process_time() + 1.5\\n"
                      "while time.process_time() < end: pass'], check=True)\n"
                      "time.sleep(1)")}
    for name, code in cells.items():
        (tmp_path / "notebooks" / f"{name}.ipynb").write_text(json.dumps({
            "cells": [{"cell_type": "code", "source": code, "metadata": {}, "outputs": [],
                       "execution_count": None}],
            "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    results = binder_sim.run_chapters(["big", "broken", "small", "busy", "absent"])
    assert results["big"]["ok"] and results["big"]["peak_mb"] > 300
    assert not results["broken"]["ok"] and "on purpose" in results["broken"]["error"]
    assert results["small"]["ok"], results["small"]["error"]
    assert results["small"]["peak_mb"] < results["big"]["peak_mb"] - 250  # its kernel alone
    assert results["absent"] == {"chapter": "absent", "ok": False, "seconds": 0.0,
                                 "cpu_seconds": 0.0, "peak_mb": 0.0,
                                 "error": "postBuild wrote no absent.ipynb"}
    # The budget's clock: the child's 1.5 s of CPU are counted, the 1 s of sleep is not
    # (but is in the wall time), and a small chapter costs far less.
    busy = results["busy"]
    assert busy["ok"], busy["error"]
    assert busy["cpu_seconds"] >= 1.5 and busy["seconds"] >= busy["cpu_seconds"] + 0.9
    assert results["small"]["cpu_seconds"] < busy["cpu_seconds"] - 1.4
    assert binder_sim.within_budget(busy)
    assert not binder_sim.within_budget({**busy, "cpu_seconds": 61.0})
    assert not binder_sim.within_budget({**busy, "seconds": 181.0})


def _notebook(code):
    return json.dumps({"cells": [{"cell_type": "code", "source": code}]})


def test_a_chapter_is_run_again_when_what_it_reads_changes(tmp_path, monkeypatch):
    # Issue 25: the Binder simulation reuses a chapter's passing run while its key holds.
    monkeypatch.setattr(binder_sim, "REPO", tmp_path)
    files = {"code/toygrad/ops.py": "x = 1\n", "chapters/a.md": "# A\n", "chapters/b.md": "# B\n",
             "notebooks/a.ipynb": _notebook("import toygrad"),
             "notebooks/b.ipynb": _notebook("print(1)"),
             "notebooks/toc.ipynb": _notebook("open('../_toc.yml')"),
             "notebooks/figure.txt": "data a notebook may read\n"}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    names = ["a", "b", "toc"]
    before = binder_sim.chapter_keys(names)
    assert len(set(before.values())) == 3

    def keys():
        passcache._file_digests.clear()  # memoised for one run; here files change
        return binder_sim.chapter_keys(names)

    def changed(name, text):
        (tmp_path / name).write_text(text)
        after = keys()
        (tmp_path / name).write_text(files[name])
        assert keys() == before  # contents, not times
        return {chapter for chapter in names if after[chapter] != before[chapter]}

    assert changed("notebooks/a.ipynb", _notebook("import toygrad  # edited")) == {"a", "toc"}
    assert changed("chapters/b.md", "# B, edited\n") == {"toc"}  # b runs its notebook
    assert changed("code/toygrad/ops.py", "x = 2\n") == {"a", "b", "toc"}
    assert changed("notebooks/figure.txt", "other data\n") == {"a", "b", "toc"}


def test_notebooks_are_the_same_each_time_they_are_made(student_notebooks):
    # nbformat gives each new cell a random id; the Binder simulation keys a chapter's run
    # on its notebook's bytes, so the ids are the cells' positions.
    for name, notebook in student_notebooks.items():
        assert [cell["id"] for cell in notebook["cells"]] == [
            f"cell-{index}" for index in range(len(notebook["cells"]))], name


def test_no_button_or_link_is_made_from_the_placeholder_address(monkeypatch):
    # _ext/footer_links.py: with the placeholder, no repository or launch button and no
    # linked licence; with a real address, all of them; a release build refuses the
    # placeholder.
    sys.path.insert(0, str(ROOT / "_ext"))
    import footer_links
    from sphinx.errors import ConfigError

    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    footer = config["html"]["extra_footer"]

    def options(url):
        made = SimpleNamespace(html_theme_options={
            "repository_url": url, "repository_branch": "main", "extra_footer": footer,
            "use_repository_button": True, "use_issues_button": True,
            "launch_buttons": dict(config["launch_buttons"], jupyterhub_url="https://hub")})
        footer_links.fill_footer(None, made)
        return made.html_theme_options

    monkeypatch.delenv("RELEASE", raising=False)
    placeholder = options(config["repository"]["url"])
    assert footer_links.PLACEHOLDER in config["repository"]["url"]  # the test's premise
    assert not placeholder["use_repository_button"] and not placeholder["use_issues_button"]
    assert placeholder["launch_buttons"]["binderhub_url"] == ""
    assert placeholder["launch_buttons"]["jupyterhub_url"] == ""
    assert "href" not in placeholder["extra_footer"].replace(
        'href="https://creativecommons.org', "")
    assert "LICENSE-TEXT.md" in placeholder["extra_footer"]
    real = options("https://github.com/someone/who-calls-backward")
    assert real["use_repository_button"] and real["launch_buttons"]["binderhub_url"]
    assert ('href="https://github.com/someone/who-calls-backward/blob/main/LICENSE"'
            in real["extra_footer"])
    monkeypatch.setenv("RELEASE", "1")
    with pytest.raises(ConfigError, match="placeholder"):
        options(config["repository"]["url"])
