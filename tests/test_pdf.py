"""The book's two PDFs (scripts/book_pdf.py, ``make pdf``), read back with pypdf.

Builds them first unless they are newer than the built site and the script (never checks
stale PDFs), then checks both editions: the first page is a cover (title, edition, version, date, PyTorch's
version, licence) and a contents follows, which lists every page of ``_toc.yml`` with the number
of the page it really starts on; every page of ``_toc.yml`` starts a page of the PDF with its H1
title, in toc order; every page after the cover carries its number in its footer, one sequence
over the book; the bookmarks are parts, then pages, then their sections; every exercise is there; every
exercise's and task's solution of the website is in the instructor edition and in no way in
the student edition (a distinctive line of each, taken from the built HTML); no link points at the
temporary local server the pages were printed from.

Needs a built site (``make book``), selenium and Debian's ``chromium``, ``chromium-driver`` and
``poppler-utils`` (``make test`` installs them).
"""

import copy
import datetime
import importlib.metadata
import os
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
# BOOK_PDF_DIR=folder: check the PDFs there as they are (e.g. an older build's), not build them.
GIVEN = os.environ.get("BOOK_PDF_DIR")
PDFS = book_pdf.outputs(Path(GIVEN)) if GIVEN else book_pdf.outputs()
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
    if not GIVEN and not book_pdf.up_to_date():
        book_pdf.build()
    pdfs = {}
    for edition, path in PDFS.items():
        reader, texts = PdfReader(path), page_texts(path)
        assert len(texts) == len(reader.pages), (edition, len(texts), len(reader.pages))
        pdfs[edition] = reader, texts
    return pdfs


def page_texts(path):
    """The squeezed text of each page of the PDF at ``path``, by poppler's pdftotext
    (Debian's poppler-utils, which make test installs), which parts pages with a form feed:
    a second for the two editions, where pypdf's extract_text took 40. Without the footer's
    band (read by itself where its text is tested): a passage that runs on to the next page
    then reads as one, as the reader reads it."""
    text = subprocess.run(["pdftotext", "-enc", "UTF-8", "-x", "0", "-y", "0", "-W", "596",
                           "-H", str(842 - 54), str(path), "-"], check=True,
                          capture_output=True, text=True).stdout
    return [squeeze(page) for page in text.split("\f")[:-1]]  # the last feed ends the file


@pytest.fixture(scope="module")
def site():
    """{page: its article in the built site}, in toc order."""
    return {page: built_page(page) for page in PAGES}


@pytest.fixture(scope="module")
def titles(site):
    return [h1_title(article) for article in site.values()]


def chapter_starts(texts, titles, after=None):
    """The index of the PDF page each toc page starts on: the first page, after the previous
    one's start, whose text begins with the title (a chapter's H1 is the first thing printed).
    The search begins after the cover and the contents (``after``: their length), where the
    book's title, and every chapter's, are printed too."""
    after = front_length(texts) if after is None else after
    starts = []
    for title in titles:
        start = next((index for index in range(after, len(texts))
                      if texts[index].startswith(squeeze(title))), None)
        assert start is not None, f"no page starts with {title!r} (after page {after + 1})"
        starts.append(start)
        after = start + 1
    return starts


def front_length(texts):
    """How many pages the cover and the contents take: the pages up to the contents' last
    (a page that begins with "Contents", and those after it that the contents continue on)."""
    contents = [index for index, text in enumerate(texts[:5]) if text.startswith("Contents")]
    return contents[-1] + 1 if contents else 0


def page_ranges(texts, titles):
    """{toc page: the squeezed text of its PDF pages}."""
    starts = chapter_starts(texts, titles) + [len(texts)]
    return {page: "".join(texts[starts[i]:starts[i + 1]]) for i, page in enumerate(PAGES)}


@pytest.mark.parametrize("edition", book_pdf.EDITIONS)
def test_every_page_starts_with_its_title_in_toc_order(pdfs, titles, edition):
    reader, texts = pdfs[edition]
    starts = chapter_starts(texts, titles)
    assert starts[0] == front_length(texts) and starts == sorted(set(starts))
    assert len(reader.pages) > len(PAGES)


def layout_text(path, first, last, crop=None):
    """pdftotext's text of pages first..last (1-based), laid out as printed, split per page;
    ``crop``: (x, y, width, height) in points from the page's top left, on every page."""
    area = [] if crop is None else [arg for flag, value in zip(("-x", "-y", "-W", "-H"), crop)
                                    for arg in (flag, str(value))]
    text = subprocess.run(["pdftotext", "-layout", "-enc", "UTF-8", "-f", str(first),
                           "-l", str(last), *area, str(path), "-"], check=True,
                          capture_output=True, text=True).stdout
    return text.split("\f")[:-1]


@pytest.mark.parametrize("edition", book_pdf.EDITIONS)
def test_the_first_page_is_the_cover(pdfs, edition):
    reader, texts = pdfs[edition]
    cover = layout_text(PDFS[edition], 1, 1)[0]
    flat = " ".join(cover.split())
    config = book_pdf.yaml.safe_load((ROOT / "_config.yml").read_text())
    assert texts[0].startswith(squeeze(config["title"]))
    assert f"{edition.capitalize()} edition" in flat
    # The version: a commit of this repository's history, with its date; the day printed.
    commit, date, printed = re.search(
        r"Version ([0-9a-f]{7,}) \(commit of (\d{4}-\d\d-\d\d)\), printed on (\d+ \w+ \d{4})",
        flat).groups()
    assert subprocess.run(["git", "merge-base", "--is-ancestor", commit, "HEAD"],
                          cwd=ROOT).returncode == 0, f"{commit} is not a commit of HEAD's history"
    assert subprocess.run(["git", "log", "-1", "--format=%cs", commit], cwd=ROOT,
                          capture_output=True, text=True).stdout.strip() == date
    printed = datetime.datetime.strptime(printed, "%d %B %Y").date()
    assert datetime.date.fromisoformat(date) <= printed <= datetime.date.today()
    torch = importlib.metadata.version("torch").split("+")[0]
    assert f"Built with PyTorch {torch}" in flat
    # The licence lines of the site's footer, word for word.
    footer = built_page(PAGES[0]).find_parent("html").select_one("div.extra_footer")
    assert squeeze(footer.get_text()) in texts[0]
    assert "CC BY 4.0" in flat and "MIT" in flat


def contents_entries(path, texts):
    """[(squeezed text, number)] of the contents: each line that ends in a number, with the
    lines before it since the previous such line (a part's caption, a title's first line)."""
    length = front_length(texts)
    assert length >= 2, "no page begins with Contents after the cover"
    entries, text = [], ""
    for page in layout_text(path, 2, length):
        for line in page.splitlines():
            found = re.fullmatch(r"(.*?)\s+(\d+)\s*", line)
            if found and found.group(1).strip():
                entries.append((squeeze(text + found.group(1)), int(found.group(2))))
                text = ""
            else:
                text += line
    return entries


@pytest.mark.parametrize("edition", book_pdf.EDITIONS)
def test_the_contents_give_each_page_its_real_first_page(pdfs, titles, edition):
    reader, texts = pdfs[edition]
    entries = contents_entries(PDFS[edition], texts)
    body = front_length(texts)
    listed, after = [], 0
    for title in titles:
        index = next((i for i in range(after, len(entries))
                      if entries[i][0].endswith(squeeze(title))), None)
        assert index is not None, f"the contents do not list {title!r}"
        number = entries[index][1]
        # Page `number` of the book is the PDF's page body + number (1-based) and begins
        # with the title.
        assert texts[body + number - 1].startswith(squeeze(title)), (title, number)
        listed.append(number)
        after = index + 1
    assert listed == sorted(listed) and listed[0] == 1
    # The parts' captions are there, before their pages.
    contents = "".join(text for text, _ in entries)
    for caption, _ in book_pdf.toc_parts()[1:]:
        assert squeeze(caption) in contents, caption


# The footer's band: the bottom margin (0.75 in), where nothing else is printed.
FOOTER_BAND = (0, 842 - 54, 596, 54)


@pytest.mark.parametrize("edition", book_pdf.EDITIONS)
def test_every_page_carries_the_books_page_number(pdfs, titles, edition):
    reader, texts = pdfs[edition]
    path = PDFS[edition]
    footers = [" ".join(f.split()) for f in layout_text(path, 1, len(texts), FOOTER_BAND)]
    assert len(footers) == len(texts)
    body = front_length(texts)
    assert footers[0] == "", f"the cover has a footer: {footers[0]!r}"
    starts = chapter_starts(texts, titles) + [len(texts)]
    numbers = []
    for index in range(body, len(texts)):
        chapter = max(i for i, start in enumerate(starts) if start <= index)
        footer = footers[index]
        # "<the chapter's title> <Edition> edition <number>", the number last.
        assert squeeze(footer).startswith(squeeze(titles[chapter])[:25]), (index + 1, footer)
        assert f"{edition.capitalize()} edition" in footer, (index + 1, footer)
        numbers.append(int(footer.rsplit(" ", 1)[1]))
    # One sequence over the whole book, from its first page after the front to its last.
    assert numbers == list(range(1, len(texts) - body + 1))
    # The PDF's page labels (what a viewer shows and "go to page" takes) say the same.
    assert reader.page_labels[body:] == [str(n) for n in numbers]
    assert reader.page_labels[:body] == ["i", "ii", "iii", "iv"][:body]


def outline_tree(reader, items):
    """[(title, page index, [children...])] of an outline."""
    tree = []
    for item in items:
        if isinstance(item, list):
            tree[-1][2].extend(outline_tree(reader, item))
        else:
            tree.append((item.title, reader.get_destination_page_number(item), []))
    return tree


def h2_titles(article):
    titles = []
    for h2 in article.find_all("h2"):
        h2 = copy.copy(h2)
        for link in h2.select("a.headerlink"):
            link.decompose()
        titles.append(" ".join(h2.get_text().split()))
    return titles


@pytest.mark.parametrize("edition", book_pdf.EDITIONS)
def test_bookmarks_are_parts_chapters_and_sections(pdfs, site, titles, edition):
    reader, texts = pdfs[edition]
    starts = dict(zip(PAGES, chapter_starts(texts, titles)))
    title_of = dict(zip(PAGES, titles))
    tree = [entry for entry in outline_tree(reader, reader.outline) if entry[0] != "Contents"]
    chapters = []  # (page, its bookmark)
    for caption, pages in book_pdf.toc_parts():
        if caption is None:  # the root page, at the top level
            chapters += [(page, tree.pop(0)) for page in pages]
            continue
        part = tree.pop(0)
        assert part[0] == caption and part[1] == starts[pages[0]], (part[:2], caption)
        assert [child[0] for child in part[2]] == [title_of[page] for page in pages]
        chapters += list(zip(pages, part[2]))
    assert tree == [], f"bookmarks beyond the toc's parts: {[t[0] for t in tree]}"
    sections = 0
    for page, (title, index, children) in chapters:
        assert (title, index) == (title_of[page], starts[page])
        expected_h2 = h2_titles(site[page])
        assert [child[0] for child in children] == expected_h2, page
        end = min([s for s in starts.values() if s > starts[page]] + [len(texts)])
        for name, where, grandchildren in children:
            assert starts[page] <= where < end and grandchildren == [], (page, name, where)
            # The section's heading is printed on the page its bookmark opens.
            assert squeeze(name) in texts[where], (page, name, where + 1)
            sections += 1
    assert sections >= 5 * len(PAGES)


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
            # Every line of the solution found nowhere else on the pages: one of them at least
            # is printed in the instructor edition (a line broken where a formula's glyph on
            # the line below is read in between, "this ⊤ gradient", is not found whole), and
            # none in the student edition.
            snippets = [line[:SNIPPET] for line in map(squeeze, solution_candidates(solution))
                        if len(line) >= SNIPPET and line[:SNIPPET] not in elsewhere]
            assert snippets, f"{page}: no distinctive line in solution {solution.get('id')}"
            assert any(snippet in instructor[page] for snippet in snippets), \
                f"{page}: solution missing: {snippets[0]}"
            printed = [snippet for snippet in snippets if snippet in student]
            assert printed == [], f"{page}: solution in the student edition: {printed}"
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
