"""The book's two PDFs (scripts/book_pdf.py, ``make pdf``), read back with pypdf.

Builds them first unless they are newer than the built site and the script (never checks
stale PDFs), then checks both editions: every page of ``_toc.yml`` starts a page of the PDF
with its H1 title, in toc order, with one bookmark each; every exercise is there; every
exercise's and task's solution of the website is in the instructor edition and in no way in
the student edition (a distinctive line of each, taken from the built HTML); no link points at the
temporary local server the pages were printed from.

Needs a built site (``make book``), selenium and Debian's ``chromium``, ``chromium-driver`` and
``poppler-utils`` (``make test`` installs them).
"""

import copy
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

# Browser-only, like the site check: where selenium or Chromium is absent (a Binder terminal),
# this module skips instead of failing at collection.
pytest.importorskip("selenium", reason="the PDFs need selenium (make test installs it)")
from bs4 import BeautifulSoup  # noqa: E402
from pypdf import PdfReader  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import book_pdf  # noqa: E402

pytestmark = [
    pytest.mark.pdf,
    pytest.mark.skipif(
        not book_pdf.headless.available(),
        reason="the PDFs need Debian's chromium and chromium-driver"),
]

PAGES = book_pdf.toc_pages()
# A snippet of each solution this long (in characters other than whitespace) must be found.
SNIPPET = 40


def squeeze(text):
    """Text as compared here: Unicode-normalised (ligatures such as "ﬀ" split), soft hyphens and
    every whitespace removed, so that where the PDF breaks lines does not matter."""
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text).replace("\u00ad", ""))


def built_page(page):
    """The article of a page of the built site, parsed."""
    soup = BeautifulSoup((book_pdf.HTML / f"{page}.html").read_text(), "html.parser")
    return soup.select_one("article.bd-article")


def h1_title(article):
    """A page's H1 as printed ("4. Running backward"), without the headerlink's "#"."""
    h1 = copy.copy(article.find("h1"))
    for link in h1.select("a.headerlink"):
        link.decompose()
    return " ".join(h1.get_text().split())


def solutions_of(article):
    """A page's solutions: the exercises' (``div.solution``) and the tasks' (a dropdown
    titled "Solution to Task N.K"), as book_pdf.REMOVE_SOLUTIONS_JS finds them."""
    tasks = [d for d in article.select("details.sd-dropdown")
             if (title := d.select_one(".sd-summary-text"))
             and title.get_text().strip().startswith("Solution to Task")]
    return article.select("div.solution") + tasks


def solution_candidates(solution):
    """Lines of a solution, in order, that the PDF prints as text: paragraphs split where
    inline math (typeset by MathJax, not extractable) interrupts them, lines of code, and each
    listing whole (compared squeezed, its lines run together)."""
    body = copy.copy(solution.select_one("section#solution-content") or solution)
    for element in body.find_all(["p", "pre"]):
        if element.name == "pre":
            yield from element.get_text().splitlines()
            yield element.get_text()  # a listing of short lines: the lines run together
        else:
            for math in element.select("span.math"):
                math.replace_with("\n")
            yield from element.get_text().split("\n")


@pytest.fixture(scope="module")
def pdfs():
    """{edition: (PdfReader, [squeezed text of each page])}, built if not up to date."""
    if not (book_pdf.HTML / "index.html").exists():
        pytest.fail("no built site in _build/html: run `make book` first")
    if not book_pdf.up_to_date():
        book_pdf.build()
    pdfs = {}
    for edition, path in book_pdf.outputs().items():
        reader, texts = PdfReader(path), page_texts(path)
        assert len(texts) == len(reader.pages), (edition, len(texts), len(reader.pages))
        pdfs[edition] = reader, texts
    return pdfs


def page_texts(path):
    """The squeezed text of each page of the PDF at ``path``, by poppler's pdftotext
    (Debian's poppler-utils, which make test installs), which parts pages with a form feed:
    a second for the two editions, where pypdf's extract_text took 40."""
    text = subprocess.run(["pdftotext", "-enc", "UTF-8", str(path), "-"], check=True,
                          capture_output=True, text=True).stdout
    return [squeeze(page) for page in text.split("\f")[:-1]]  # the last feed ends the file


@pytest.fixture(scope="module")
def site():
    """{page: its article in the built site}, in toc order."""
    return {page: built_page(page) for page in PAGES}


@pytest.fixture(scope="module")
def titles(site):
    return [h1_title(article) for article in site.values()]


def chapter_starts(texts, titles):
    """The index of the PDF page each toc page starts on: the first page, after the previous
    one's start, whose text begins with the title (a chapter's H1 is the first thing printed)."""
    starts, after = [], 0
    for title in titles:
        start = next((index for index in range(after, len(texts))
                      if texts[index].startswith(squeeze(title))), None)
        assert start is not None, f"no page starts with {title!r} (after page {after + 1})"
        starts.append(start)
        after = start + 1
    return starts


def page_ranges(texts, titles):
    """{toc page: the squeezed text of its PDF pages}."""
    starts = chapter_starts(texts, titles) + [len(texts)]
    return {page: "".join(texts[starts[i]:starts[i + 1]]) for i, page in enumerate(PAGES)}


@pytest.mark.parametrize("edition", book_pdf.EDITIONS)
def test_every_page_starts_with_its_title_in_toc_order(pdfs, titles, edition):
    reader, texts = pdfs[edition]
    starts = chapter_starts(texts, titles)
    assert starts[0] == 0 and starts == sorted(set(starts))
    assert len(reader.pages) > len(PAGES)


@pytest.mark.parametrize("edition", book_pdf.EDITIONS)
def test_one_bookmark_per_toc_page_on_its_first_page(pdfs, titles, edition):
    reader, texts = pdfs[edition]
    outline = [(item.title, reader.get_destination_page_number(item)) for item in reader.outline]
    assert outline == list(zip(titles, chapter_starts(texts, titles)))


def test_the_student_edition_is_the_shorter(pdfs):
    instructor, student = (pdfs[edition] for edition in ("instructor", "student"))
    assert len(student[0].pages) < len(instructor[0].pages)
    assert sum(map(len, student[1])) < sum(map(len, instructor[1]))


@pytest.mark.parametrize("edition", book_pdf.EDITIONS)
def test_every_exercise_is_in_its_chapter(pdfs, site, titles, edition):
    chapters = page_ranges(pdfs[edition][1], titles)
    exercises = 0
    for page, article in site.items():
        for title in article.select("div.exercise > p.admonition-title"):
            assert squeeze(title.get_text()) in chapters[page], (page, title.get_text())
            exercises += 1
    assert exercises >= len(PAGES) - 1  # every chapter has exercises


def test_solutions_only_in_the_instructor_edition(pdfs, site, titles):
    # The book's text outside the solutions: a snippet found there would prove nothing.
    solutions = {page: solutions_of(article) for page, article in site.items()}
    elsewhere = ""
    for page in PAGES:
        article = built_page(page)
        for solution in solutions_of(article):
            solution.decompose()
        elsewhere += squeeze(article.get_text())

    instructor = page_ranges(pdfs["instructor"][1], titles)
    student = "".join(pdfs["student"][1])
    checked = 0
    for page, found in solutions.items():
        for solution in found:
            snippet = next((line[:SNIPPET] for line in map(squeeze, solution_candidates(solution))
                            if len(line) >= SNIPPET and line[:SNIPPET] not in elsewhere), None)
            assert snippet, f"{page}: no distinctive line in solution {solution.get('id')}"
            assert snippet in instructor[page], f"{page}: solution missing: {snippet}"
            assert snippet not in student, f"{page}: solution in the student edition: {snippet}"
            checked += 1
    assert checked == sum(map(len, solutions.values())) >= len(PAGES) - 1
    print(f"{checked} solutions: in the instructor edition, not in the student one")


@pytest.mark.parametrize("edition", book_pdf.EDITIONS)
def test_no_link_to_the_local_server(pdfs, edition):
    reader, _ = pdfs[edition]
    local = []
    for number, page in enumerate(reader.pages, 1):
        for link in page.get("/Annots") or []:
            uri = (link.get_object().get("/A") or {}).get("/URI", "")
            if "127.0.0.1" in uri or "localhost" in uri:
                local.append((number, uri))
    assert local == []
