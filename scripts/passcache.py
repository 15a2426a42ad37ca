"""Passing results of ``make test``'s stages, kept under content hashes (issue 25).

A check that passed is not run again while nothing it reads has changed: each result is stored
under a key, the SHA-256 of every input that can change it (the files it checks, the test
and script files that check them, the locked environment), and reused only when the key is
the same. Only passes are recorded, so a failure is always run again. Keys are of contents,
never of modification times: rebuilding a file with the same bytes keeps its results.

    store = Store("site")          # _build/.pass-cache/site.json
    key = digest(files(...), environment(), b"anything else")
    if (cached := store.get(name, key)) is not None: ...   # reuse
    else: run; if passed: store.put(name, key, result)
    store.save()

``note(text)`` tells ``stages.py`` what came from a cache ("12/14 pages cached"), for the
"cached" column of the stage table. Only the standard library.
"""

import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DIR = Path(os.environ.get("PASS_CACHE_DIR", ROOT / "_build" / ".pass-cache"))
# Off (every check runs, nothing is recorded): PASS_CACHE=0.
ENABLED = os.environ.get("PASS_CACHE", "1") != "0"

_file_digests = {}


def file_digest(path):
    """SHA-256 of one file's bytes (memoised per process: files do not change during a run)."""
    path = Path(path)
    key = str(path.resolve())
    if key not in _file_digests:
        _file_digests[key] = hashlib.sha256(path.read_bytes()).hexdigest()
    return _file_digests[key]


def files(*paths, root=ROOT):
    """[(name relative to root, path)] for each file, and each file under each folder, sorted.

    A path that does not exist is named with no content (its absence is part of the key)."""
    found = []
    for path in map(Path, paths):
        path = path if path.is_absolute() else root / path
        if path.is_dir():
            found.extend(p for p in path.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
        else:
            found.append(path)
    return sorted({(_name(p, root), p) for p in found})


def _name(path, root):
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def digest(*parts):
    """One key from parts: lists of files (from ``files``), bytes, or strings."""
    hasher = hashlib.sha256()
    for part in parts:
        if isinstance(part, (bytes, str)):
            data = part.encode() if isinstance(part, str) else part
            hasher.update(b"D%d:" % len(data) + data)
            continue
        for name, path in part:
            content = file_digest(path) if path.is_file() else "absent"
            hasher.update(f"F{name}\0{content}\n".encode())
    return hasher.hexdigest()


def environment():
    """What the checks run on: Python's version, the lock .venv is installed from, the
    packages installed in it (their names and versions), and Graphviz's version."""
    site = sorted(p.name for p in (ROOT / ".venv").glob("lib/python*/site-packages/*.dist-info"))
    try:
        dot = subprocess.run(["dot", "-V"], capture_output=True, text=True).stderr
    except OSError:
        dot = "no dot"
    return [f"python {sys.version}", files("requirements.txt", "pyproject.toml"),
            "\n".join(site), dot]


def tracked(root=ROOT):
    """Every file git tracks or would track (not ignored), as [(name, path)], sorted."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=root, check=True, capture_output=True).stdout.decode().split("\0")
    return sorted({(name, root / name) for name in filter(None, listed)})


class Store:
    """{name: [key, result]} for one stage, in DIR/<stage>.json."""

    def __init__(self, stage, directory=None):
        self.path = Path(directory or DIR) / f"{stage}.json"
        try:
            self.entries = json.loads(self.path.read_text()) if ENABLED else {}
        except (OSError, ValueError):
            self.entries = {}
        self.hits = set()
        self.changes = {}  # name -> [key, result], or None (dropped)

    def get(self, name, key):
        """The result stored for name under key, or None."""
        entry = self.entries.get(name)
        if ENABLED and entry is not None and entry[0] == key:
            self.hits.add(name)
            return entry[1]
        return None

    def put(self, name, key, result=True):
        """Record a PASSING result (never call this for a failure)."""
        self.entries[name] = self.changes[name] = [key, result]

    def drop(self, name):
        self.entries.pop(name, None)
        self.changes[name] = None

    def save(self):
        """Write this process's changes over what is stored now (other processes, such as
        pytest-xdist's workers or a stage running beside, may have saved meanwhile)."""
        if not ENABLED or not self.changes:
            return
        import fcntl

        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path.with_suffix(".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                entries = json.loads(self.path.read_text())
            except (OSError, ValueError):
                entries = {}
            for name, entry in self.changes.items():
                if entry is None:
                    entries.pop(name, None)
                else:
                    entries[name] = entry
            partial = self.path.with_suffix(f".json.{os.getpid()}")
            partial.write_text(json.dumps(entries, indent=1, sort_keys=True))
            partial.replace(self.path)
        self.entries = entries
        self.changes = {}


def note(text):
    """Say what came from a cache, for the stage table (stages.py sets STAGE_NOTE)."""
    target = os.environ.get("STAGE_NOTE")
    if target:
        with open(target, "a") as out:
            out.write(text.strip() + "\n")


def _settings():
    """The environment variables that change what the tests do (TOYGRAD_STATEFUL_*, ...)."""
    return "\n".join(f"{name}={value}" for name, value in sorted(os.environ.items())
                     if name.startswith(("TOYGRAD_", "PYTEST_ADDOPTS", "PASS_CACHE")))


def _tool_version(*command):
    """What ``command`` (e.g. ``chromium --version``) prints on its standard output. Not its
    standard error: Debian's Chromium launcher writes there a shell error that quotes the
    free space of /dev/shm, a number that changes from run to run, and so changed every
    visit's key after each run in which /dev/shm was busy (issue 25)."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=60)
        return done.stdout.strip() or f"{command[0]}: no version (exit {done.returncode})"
    except (OSError, subprocess.TimeoutExpired):
        return f"no {command[0]}"


def _names(folder, root):
    """The names of the files under folder (not their contents), as one string."""
    return "\n".join(name for name, _ in files(folder, root=root))


# The book's pages: what a change of text touches. The unit tests that read them are run by a
# stage of their own (unit-pages); the others (unit) do not run again when only pages change.
PAGES = ("chapters/", "intro.md", "_toc.yml")


def is_page(name):
    """Whether ``name`` (a path from the repository's root) is one of the book's pages."""
    return name.startswith(PAGES)


# A string in a test module that is a path to the book's pages (the chapters/ folder, a .md
# file, _toc.yml, or a part of one in an f-string): the module may read them. Prose in
# docstrings and messages does not count.
_NAMES_PAGES = re.compile(r"[\w./-]*(?:(?:^|/)chapters(?:/[\w./-]*)?|\.md|_toc\.yml)")


def names_pages(path):
    """Whether the Python module at ``path`` names the book's pages (see _NAMES_PAGES)."""
    import ast

    tree = ast.parse(Path(path).read_text())
    docstrings = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
    return any(isinstance(node, ast.Constant) and isinstance(node.value, str)
               and id(node) not in docstrings and _NAMES_PAGES.fullmatch(node.value)
               for node in ast.walk(tree))


def _imports(path):
    import ast

    names = set()
    for node in ast.walk(ast.parse(Path(path).read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


def page_readers(root=None):
    """The test modules that read the book's pages: they name them, or import a module of
    scripts/ or tests/ that does. As paths from the root. The others run with a guard that
    fails a test opening a page (tests/conftest.py, UNIT_WITHOUT_PAGES), so a module that
    reads pages another way is found out."""
    root = Path(root or ROOT)
    helpers = {path.stem for folder in ("scripts", "tests") for path in (root / folder).glob("*.py")
               if not path.name.startswith("test_") and names_pages(path)}
    return [f"tests/{path.name}" for path in sorted((root / "tests").glob("test_*.py"))
            if names_pages(path) or _imports(path) & helpers]


def stage_key(stage, root=None):
    """The key of one stage of ``make test``: everything it reads. Every stage reads the
    repository's files (any change to them runs it again: simple, and never stale) and the
    environment (the Binder environment is made from the repository's binder/); the site's
    check reads the built site too, and the browser checks Chromium."""
    root = Path(root or ROOT)
    html = root / "_build" / "html"
    files_read = tracked(root)
    labels = None
    if stage == "unit":  # the tests that do not read the pages (unit-pages runs those)
        files_read = [(name, path) for name, path in files_read if not is_page(name)]
    if stage == "binder-check" and (labels := _labels(root)) is not None:
        files_read = [(name, path) for name, path in files_read
                      if not is_page(name) or name in BINDER_CHECK_PAGES]
    parts = [files_read, *environment(), _settings(), f"stage {stage}"]
    if labels is not None:
        parts.append(labels)
    if stage == "build-all":  # the site it leaves behind must still be there
        parts.append(_names(html, root))  # (kept as the build left it: stages.py)
    if stage in ("site-check", "binder-check"):
        parts.append(_tool_version("/usr/bin/chromium", "--version"))
    if stage == "site-check":
        parts.append(files(html, root=root))
    return digest(*parts)


# What binder-check reads of the pages (scripts/binder_lab_check.py): chapter 4, which it opens
# and saves through JupyterLab, and its notebook, made (scripts/binder_notebooks.py) from it,
# the code, the table of contents that numbers the chapters, and the labels and titles of the
# sections it refers to ({ref}), which _labels gives: a change to another chapter's prose does
# not run it again.
BINDER_CHECK_PAGES = ("chapters/ch04_backward.md", "_toc.yml")


def _labels(root):
    """Every chapter's {ref} targets, as a notebook shows them (binder_notebooks.Labels), or
    None if the table of contents cannot be read (then every page is in the key)."""
    try:
        import binder_notebooks  # scripts/, beside this module
        chapters = binder_notebooks.toc_chapters(root)
        return repr(sorted(binder_notebooks.Labels(root, chapters).entries.items()))
    except Exception:  # noqa: BLE001 - no table of contents, no chapters: key on them all
        return None


STAGES = ("unit", "unit-pages", "instructor-check", "build-all", "site-check", "binder-test",
          "binder-check")


def main(argv):
    if argv == ["key-tracked"]:  # every file the repository has, and the environment
        print(digest(tracked(), *environment()))
    elif len(argv) == 2 and argv[0] == "key" and argv[1] in STAGES:
        print(stage_key(argv[1]))
    elif argv == ["pages"]:
        print(" ".join(PAGES))
    elif argv == ["page-readers"]:
        print(" ".join(page_readers()))
    else:
        sys.exit(f"usage: passcache.py key-tracked | pages | page-readers | key {{{','.join(STAGES)}}}")


if __name__ == "__main__":
    main(sys.argv[1:])
