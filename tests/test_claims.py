"""The claims ledger: the book's links into PyTorch's source stay true.

Every statement the book makes about PyTorch's behaviour is either asserted by
a cell or linked to a file of PyTorch's repository, with the function named.
These tests keep the links honest:

(a) every link into github.com/pytorch/pytorch's source is pinned to the
    commit the installed torch was built from, or to one of the few older
    commits listed in HISTORICAL, each with the reason it is linked;
(b) every path pinned to the installed commit exists in what the wheel ships
    of that commit: its Python sources, its C++ headers, the copy of
    tools/autograd packaged with torchgen, or, for a C++ source file, the file
    name the compiler wrote into the libraries;
(c) every pull-request number in chapter 9's history table links to that pull
    request, and every link written as "#N" goes to number N.
"""

import mmap
import re
from functools import cache
from pathlib import Path

import pytest
import torch

import wheel_source

pytestmark = pytest.mark.ch09

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "intro.md", *sorted((ROOT / "chapters").glob("*.md"))]
INSTALLED = torch.version.git_version
SITE = Path(torch.__file__).resolve().parent.parent  # site-packages
INCLUDE = SITE / "torch" / "include"
LIBRARIES = [SITE / "torch" / "lib" / name
             for name in ("libtorch_cpu.so", "libtorch_python.so")]

HISTORICAL = {
    "7d32f6fdc3c97522010dd1eb5d87abd2cdd249a1":
        "master on 2018-04-24, days before 0.4.0: the C++ that Answer 1 "
        "quoted, and the engine that called it (chapter 9)",
    "e1253a956f6866469eafd88cc3bfb4627f4b1efc":
        "the only copy of torch/csrc/autograd/engine.cpp the search tools "
        "held when chapter 9 quoted Engine::evaluate_function; the chapter "
        "and tests/test_ch09_source.py tie it to the installed commit",
}

# C++ sources that hold no assert, so their names are not in the libraries;
# the header that declares what they define stands in for them.
HEADER_INSTEAD = {
    "aten/src/ATen/SequenceNumber.cpp": "aten/src/ATen/SequenceNumber.h",
}

LINK = re.compile(
    r"\[([^\]]*)\]\((https://github\.com/pytorch/pytorch(?:/[^)\s]*)?)\)")
SOURCE = re.compile(r"/(?:blob|tree)/([^/]+)/(.+)$")
PULL = re.compile(r"/pull/(\d+)$")


def links():
    """(page, text, url) for every Markdown link into pytorch/pytorch."""
    return [(page.name, text, url) for page in PAGES
            for text, url in LINK.findall(page.read_text())]


def source_links():
    """(page, ref, path) for every link to a file of the repository."""
    found = []
    for page, _, url in links():
        match = SOURCE.search(url.split("#")[0])
        if match:
            found.append((page, *match.groups()))
    return found


def link_id(link):
    return f"{link[0]}:{link[-1]}"


def test_every_link_is_a_file_or_a_pull_request():
    kinds = [url for _, _, url in links()
             if not SOURCE.search(url.split("#")[0]) and not PULL.search(url)]
    assert kinds == [], "links into pytorch/pytorch of an unchecked kind"


@pytest.mark.parametrize("link", source_links(), ids=link_id)
def test_source_link_is_pinned(link):
    page, ref, path = link
    assert re.fullmatch(r"[0-9a-f]{40}", ref), f"{path} is not pinned: {ref}"
    assert ref == INSTALLED or ref in HISTORICAL, (
        f"{page} links {path} at {ref}, neither the installed torch's commit "
        f"{INSTALLED} nor a listed historical commit")


def test_historical_commits_are_all_used():
    used = {ref for _, ref, _ in source_links()}
    assert set(HISTORICAL) <= used


@cache
def library_contents(library):
    with open(library, "rb") as file:
        return mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)


def header(path):
    """Where the wheel keeps the header `path` of the repository."""
    return INCLUDE / path.removeprefix("aten/src/")


def in_the_wheel(path):
    """True if the installed wheel holds `path`, or a trace of it."""
    if path.startswith("tools/autograd/"):
        packaged = SITE / "torchgen" / "packaged" / "autograd"
        return (packaged / path.removeprefix("tools/autograd/")).exists()
    if path.endswith(".py"):
        return (SITE / path).exists()
    if path.endswith((".h", ".hpp")):
        return header(path).exists()
    if path.endswith((".cpp", ".cc")):
        if path in HEADER_INSTEAD:
            return header(HEADER_INSTEAD[path]).exists()
        name = f"/{path}".encode()
        return any(library_contents(library).find(name) >= 0
                   for library in LIBRARIES)
    return False


@pytest.mark.parametrize(
    "link", [link for link in source_links() if link[1] == INSTALLED],
    ids=link_id)
def test_pinned_path_exists_in_the_installed_wheel(link):
    page, _, path = link
    assert in_the_wheel(path), f"{page}: {path} is not in torch {INSTALLED}"


def history_table():
    text = (ROOT / "chapters" / "ch09_inside_pytorch.md").read_text()
    start = text.index("(ch09-history)=")
    return text[start:text.index("\n(ch09-", start + 1)]


def test_history_table_links_each_pull_request():
    table = history_table()
    numbers = re.findall(r"#(\d+)", table)
    linked = re.findall(
        r"\[#(\d+)\]\(https://github\.com/pytorch/pytorch/pull/(\d+)\)", table)
    assert numbers, "the history table names no pull request"
    assert [text for text, _ in linked] == numbers, "a number without its link"
    assert all(text == number for text, number in linked)


def test_pull_request_link_text_matches_its_number():
    wrong = []
    for page, text, url in links():
        pull = PULL.search(url)
        shown = re.fullmatch(r"#(\d+)", text)
        if pull and shown and shown.group(1) != pull.group(1):
            wrong.append((page, text, url))
    assert wrong == []


ANCHORED = re.compile(r"https://github\.com/pytorch/pytorch/blob/" + INSTALLED
                      + r"/([^)#\s]+)#L(\d+)(?:-L(\d+))?")


def shipped_anchors():
    """(page, path, first, last) of every anchored link into a file the wheel ships."""
    found = []
    for page in PAGES:
        for path, first, last in ANCHORED.findall(page.read_text()):
            if wheel_source.wheel_file(path) and wheel_source.wheel_file(path).exists():
                found.append((page.name, path, int(first), int(last or first)))
    return found


@pytest.mark.parametrize("anchor", shipped_anchors(),
                         ids=lambda a: f"{a[0]}:{a[1]}#L{a[2]}-L{a[3]}")
def test_anchor_in_a_shipped_file_starts_on_code_in_the_repository_s_numbering(anchor):
    # GitHub numbers a header's lines as the repository has them, one less than the
    # wheel's copy (tests/wheel_source.py); an anchor taken from the wheel as it is
    # starts one line late, often on a blank line or the line after what it names.
    page, path, first, last = anchor
    lines = wheel_source.repo_lines(path)
    assert 1 <= first <= last <= len(lines)
    assert lines[first - 1].strip(), f"{page}: {path}#L{first} starts on a blank line"
