#!/usr/bin/env python3
"""The whole book as two PDFs, printed from the built website by headless Chromium.

    .venv/bin/python scripts/book_pdf.py [--force]      (make pdf, after make book)

Writes, from ``_build/html`` (no LaTeX, no network):

- ``_build/pdf/book-instructor.pdf``: every page of ``_toc.yml`` in order, every exercise's
  solution printed open;
- ``_build/pdf/book-student.pdf``: the same pages with every solution removed: the
  exercises' and the tasks' ("Solution to Task N.K"); the exercises and the tasks' stubs
  stay.

Each page is served on 127.0.0.1 (as tests/test_site.py does), opened in Debian's Chromium,
left to finish MathJax, forced into light mode, prepared for paper (the theme's header,
sidebars and buttons hidden, dropdowns and the backward stepper's frames all shown, code
wrapped instead of cut off), printed with Chromium's ``Page.printToPDF`` and merged with pypdf
into one file. Each edition opens with a cover (title, edition, version: the commit and its
date, the day printed, PyTorch's version, the site's licence lines) and a contents page whose
numbers are the pages' real first pages (the front is printed twice: once to learn its length,
once with the numbers). Every page after the cover carries the book's number, one sequence,
stamped into the footer at the merge (a page is printed on its own, so Chromium's own number
would restart in every chapter); the bookmarks are the parts of _toc.yml, their pages, and each
page's sections (Chromium's outline of the page, grafted under its bookmark).

Each page's two prints are kept in ``_build/pdf/pages`` under a content hash of what the
print reads (``page_key``: the page's HTML, every file of the site it can load, this script,
scripts/chromium.py and the environment); a page whose key did not change is not printed
again, and the merge (always redone) uses its kept prints; the front is kept by a hash of its
own HTML. ``up_to_date`` compares the
same hashes (never modification times): the PDFs are rebuilt only when a page's key, or the
whole site's, changed since they were made (or with ``--force``, which reprints every page).
"""

import argparse
import base64
import contextlib
import functools
import html
import http.server
import importlib.metadata
import io
import json
import re
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import unquote

import yaml
from pypdf import PdfReader, PdfWriter
from pypdf.generic import (ArrayObject, DictionaryObject, Fit, NameObject, StreamObject,
                           TextStringObject)

import chromium as headless  # scripts/chromium.py
import passcache  # scripts/passcache.py

ROOT = Path(__file__).resolve().parents[1]
HTML = ROOT / "_build" / "html"
OUT = ROOT / "_build" / "pdf"
PAGES_DIR = "pages"  # in OUT: each page's prints, by key
# The instructor edition prints every solution open; the student edition has none.
EDITIONS = ("instructor", "student")

# A4, in inches (what printToPDF measures in); the bottom margin leaves room for the footer.
# Scaled to 80%: the website's 16 px text would print as large as 12 pt.
PAPER = {"paperWidth": 8.27, "paperHeight": 11.69, "scale": 0.8,
         "marginTop": 0.6, "marginBottom": 0.75, "marginLeft": 0.6, "marginRight": 0.6}
# The footer Chromium prints on each page: the page's title and the edition. Its number is
# the book's, not the page's (a page is printed on its own): merge() stamps it at the right
# margin, in the room the footer leaves there (NUMBER_ROOM, in the template's CSS px).
NUMBER_ROOM = 28
FRONT_PAPER = {**PAPER, "scale": 1, "marginTop": 0, "marginBottom": 0, "marginLeft": 0,
               "marginRight": 0}
FOOTER = """<div style="font-size:8px;color:#555;width:100%;margin:0 0.6in;
display:flex;justify-content:space-between;font-family:sans-serif">
<span>{title}</span><span style="padding-right:{room}px">{edition}</span></div>"""
# The stamped number: Helvetica (a PDF's standard font: nothing to embed), as grey as the
# footer, its baseline on the footer's (16 pt above the sheet's foot, as Chromium places it).
NUMBER_FONT = {"size": 7, "grey": 0.33, "baseline": 16.3}
# Helvetica's advance widths (thousandths of the size) of the characters a number uses.
HELVETICA_WIDTHS = {**dict.fromkeys("0123456789", 556), "i": 222, "v": 500, "x": 500}

# How a page looks on paper is the website's own print stylesheet (_static/book.css,
# "@media print"), so printing a page from a browser gives the same result.

# Run in the page: light mode, every dropdown and <details> open. The
# article's ids get the page's prefix, so that the PDF's named destinations (Chromium makes one
# for each id a link of the page points to) stay unique once the pages are merged; links
# within the page follow. Links to other pages stay absolute: merge() points them into the
# PDF. Returns the page's title, its H1 as the reader sees it ("4. Running backward"), and its
# sections' (its H2s'), which name the bookmarks under the page's: Chromium's outline of the page
# gives where each begins, but its own titles can run words together or repeat them.
PREPARE_JS = """
const [prefix] = arguments;
localStorage.setItem('mode', 'light');
localStorage.setItem('theme', 'light');
document.documentElement.dataset.mode = 'light';
document.documentElement.dataset.theme = 'light';
document.querySelectorAll('.toggle-hidden').forEach(e => e.classList.remove('toggle-hidden'));
document.querySelectorAll('.toggle-button-hidden')
  .forEach(e => e.classList.remove('toggle-button-hidden'));
document.querySelectorAll('details').forEach(d => d.open = true);
const article = document.querySelector('article.bd-article');
article.querySelectorAll('[id]').forEach(e => e.id = prefix + e.id);
document.querySelectorAll('a[href]').forEach(a => {
  const url = new URL(a.getAttribute('href'), location.href);
  if (url.origin === location.origin && url.pathname === location.pathname && url.hash) {
    a.setAttribute('href', '#' + prefix + decodeURIComponent(url.hash.slice(1)));
  }
});
const heading = h => h.textContent.replace(/#$/, '').replace(/\\s+/g, ' ').trim();
return [heading(article.querySelector('h1')), [...article.querySelectorAll('h2')].map(heading)];
"""
REMOVE_SOLUTIONS_JS = """
// The exercises' solutions, and the tasks' ("Solution to Task N.K", a dropdown).
const tasks = [...document.querySelectorAll('details.sd-dropdown')].filter(d => {
  const title = d.querySelector('.sd-summary-text');
  return title && title.textContent.trim().startsWith('Solution to Task');
});
const solutions = [...document.querySelectorAll('div.solution'), ...tasks];
solutions.forEach(s => s.remove());
return solutions.length;
"""
# Resolve once the page's scripts have settled: MathJax typeset, fonts and images loaded.
SETTLED_JS = """
const done = arguments[arguments.length - 1];
const typeset = (window.MathJax && MathJax.startup && MathJax.startup.promise)
  || Promise.resolve();
// (A lazy picture that is not shown, a figure's dark version on a light page, never loads:
// it is not waited for.)
const images = Array.from(document.images)
  .filter(img => img.loading !== "lazy" || img.getClientRects().length)
  .map(img => img.decode().catch(() => null));
Promise.all([typeset, document.fonts.ready, ...images])
  .then(() => done(true), () => done(true));
"""


def toc_pages(root=ROOT):
    """Every page in _toc.yml, root first, as paths without suffix (e.g. chapters/ch04_backward).

    tests/test_site.py uses it too.
    """
    toc = yaml.safe_load((root / "_toc.yml").read_text())
    pages = [toc["root"]]

    def walk(entries):
        for entry in entries:
            if "file" in entry:
                pages.append(entry["file"])
            walk(entry.get("sections", []))

    for part in toc.get("parts", []):
        walk(part.get("chapters", []))
    walk(toc.get("chapters", []))
    return pages


def outputs(out=OUT):
    """{edition: path of its PDF}."""
    return {edition: out / f"book-{edition}.pdf" for edition in EDITIONS}


# Files of the built site that no page loads: the search index (loaded by search.html only),
# the page sources and notebooks offered for download, Sphinx's own records.
NOT_LOADED = ("searchindex.js", "objects.inv", ".buildinfo", "_sources/", "_downloads/")


def assets(html=None):
    """[(name, path)] of every file of the site but the pages (.html), NOT_LOADED and the
    figures in _images/: what every page can load (stylesheets, scripts, fonts). Every page's
    key includes them all, and the figures it names itself (page_images)."""
    html = html or HTML
    return [(name, path) for name, path in passcache.files(html, root=html)
            if not name.endswith(".html") and not name.endswith(".ipynb")
            and not name.startswith("_images/")
            and not any(name == n or name.startswith(n) for n in NOT_LOADED)]


_IMAGE = re.compile(r"_images/([^\"'\s()?#<>]+)")


def page_images(page, html=None):
    """[(name, path)] of the files of _images/ that a page names (its figures; a chapter's
    figures change when its code is executed again, and only that chapter's pages change)."""
    html = html or HTML
    names = sorted(set(_IMAGE.findall((html / f"{page}.html").read_text(errors="replace"))))
    return [(f"_images/{name}", html / "_images" / name) for name in names]


def inputs_key(html=None):
    """The part of every page's key that all pages share."""
    html = html or HTML
    return passcache.digest(assets(html), passcache.files(
        Path(__file__), Path(headless.__file__), root=ROOT), *passcache.environment(),
        repr((PAPER, FOOTER, NUMBER_ROOM, PREPARE_JS, REMOVE_SOLUTIONS_JS, SETTLED_JS)))


def page_key(page, shared, html=None):
    """Content hash of what printing one page reads: its HTML and the shared inputs."""
    html = html or HTML
    return passcache.digest(shared, page, passcache.files(html / f"{page}.html", root=html),
                            page_images(page, html))


def book_key(html=None):
    """The key of the two PDFs: every page's key, in toc order."""
    html = html or HTML
    shared = inputs_key(html)
    return passcache.digest(*(page_key(page, shared, html) for page in toc_pages()))


def up_to_date(out=OUT):
    """Both PDFs exist and were made from the site and the script as they are now (by
    content hash, kept beside them in book.key)."""
    pdfs = list(outputs(out).values())
    if not all(pdf.exists() for pdf in pdfs) or not (out / "book.key").exists():
        return False
    return (out / "book.key").read_text() == book_key()


def check_key(html=None):
    """The key under which a pass of tests/test_pdf.py is kept (make pdf-check): the PDFs'
    key (which covers every page's HTML, that the test reads too) and the test's files."""
    html = html or HTML
    tests = ROOT / "tests"
    return passcache.digest(book_key(html), passcache.files(
        tests / "test_pdf.py", tests / "conftest.py", tests / "chapters.py", tests / "tasks.py"))


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@contextlib.contextmanager
def serve(directory):
    """Serve a directory on 127.0.0.1 (a free port) for as long as the block runs."""
    handler = functools.partial(QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@contextlib.contextmanager
def chromium():
    """Headless Chromium driven by selenium, with a throw-away profile."""
    with tempfile.TemporaryDirectory(prefix="book-pdf-chromium-") as profile:
        driver = headless.start(profile)
        try:
            # Light mode whatever the system prefers, from the first paint on.
            driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {
                "features": [{"name": "prefers-color-scheme", "value": "light"}]})
            yield driver
        finally:
            driver.quit()


def open_page(driver, url, attempts=5):
    """Load a page and wait until it has settled; retry while the site is being rebuilt."""
    from selenium.webdriver.support.ui import WebDriverWait

    for attempt in range(1, attempts + 1):
        driver.get(url)
        WebDriverWait(driver, 30).until(
            lambda d: d.execute_script("return document.readyState") == "complete")
        if driver.execute_script("return !!document.querySelector('article.bd-article h1')"):
            driver.set_script_timeout(60)
            driver.execute_async_script(SETTLED_JS)
            return
        if attempt < attempts:
            time.sleep(2 * attempt)  # a rebuild in progress replaces the files; wait for it
    raise RuntimeError(f"{url} did not load as a book page after {attempts} attempts")


def print_pdf(driver, title, edition):
    """The current page as PDF bytes, with a footer naming the page and the edition, and an
    outline of its headings (which merge() grafts under the page's). With no title: the
    front, which sets its own margins (FRONT_PAPER) and has no footer but the number."""
    footer = title is not None and FOOTER.format(
        title=html.escape(title), edition=f"{edition.capitalize()} edition", room=NUMBER_ROOM)
    result = driver.execute_cdp_cmd("Page.printToPDF", {
        **(PAPER if footer else FRONT_PAPER),
        "printBackground": True,
        "displayHeaderFooter": bool(footer),
        "headerTemplate": "<span></span>",
        "footerTemplate": footer or "<span></span>",
        "generateDocumentOutline": True,
    })
    return base64.b64decode(result["data"])


def anchor_prefix(page):
    """The prefix of a page's ids in the PDF: chapters/ch04_backward -> chapters_ch04_backward--."""
    return page.replace("/", "_") + "--"


def toc_parts(root=ROOT):
    """The book's parts, in order: [(caption or None, [page, ...])]; the root page (the
    book's own introduction) comes first, in no part."""
    toc = yaml.safe_load((root / "_toc.yml").read_text())
    parts = [(None, [toc["root"]])]
    for part in toc.get("parts", []):
        parts.append((part.get("caption"), [chapter["file"] for chapter in part["chapters"]]))
    assert [page for _, pages in parts for page in pages] == toc_pages(root), \
        "a page of _toc.yml sits outside the parts' chapters (a section): the contents miss it"
    return parts


def version(root=ROOT):
    """The book's version: the commit the PDFs are made at (its short hash), and its date."""
    def git(*args):
        return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True,
                              check=True).stdout.strip()
    return git("rev-parse", "--short", "HEAD"), git("log", "-1", "--format=%cs")


def licence_lines(html=None):
    """The licence paragraph of the site's footer (the root page's), as the site shows it."""
    html = html or HTML
    text = (html / "index.html").read_text()
    page = (html / f"{toc_pages()[0]}.html").read_text() if "extra_footer" not in text else text
    found = re.search(r'<div class="extra_footer">\s*(.*?)\s*</div>', page, re.S)
    if not found:
        raise RuntimeError("no licence lines in the site's footer (html: extra_footer)")
    return found.group(1)


FRONT_CSS = """
body { margin: 0; font-family: "DejaVu Serif", Georgia, serif; color: #111; }
.sheet { box-sizing: border-box; height: 11.6in; padding: 1.1in 1in 0.9in; display: flex;
  flex-direction: column; break-after: page; }
.sheet:last-child { break-after: auto; height: auto; }
.cover h1 { font-size: 34pt; line-height: 1.15; margin: 0.6in 0 0.15in; }
.cover .subtitle { font-size: 19pt; color: #333; margin: 0 0 0.5in; }
.cover .logo svg { width: 1.4in; height: auto; }
.cover .edition { font-family: "DejaVu Sans", sans-serif; font-size: 15pt; font-weight: bold;
  color: #1a4d8f; margin-bottom: 0.05in; }
.cover .facts { font-family: "DejaVu Sans", sans-serif; font-size: 10.5pt; line-height: 1.6; }
.cover .licence { margin-top: auto; font-size: 9pt; color: #333; border-top: 1px solid #999;
  padding-top: 0.12in; font-family: "DejaVu Sans", sans-serif; }
.cover a, .contents a { color: inherit; text-decoration: none; }
.contents h2 { font-size: 24pt; margin: 0 0 0.3in; }
.contents ol { list-style: none; padding: 0; margin: 0; font-size: 11.5pt; }
.contents li.part { font-family: "DejaVu Sans", sans-serif; font-weight: bold; font-size: 10.5pt;
  margin: 0.2in 0 0.05in; break-after: avoid; }
.contents li.chapter { display: flex; align-items: last baseline; margin: 0.04in 0; }
.contents .leader { flex: 1; border-bottom: 1px dotted #777; margin: 0 0.6em; min-width: 1em; }
.contents .number { min-width: 2em; text-align: right; }
"""


def front_html(book_title, edition, parts, titles, numbers, base, facts):
    """The cover and the contents of one edition, as one HTML document: the contents list the
    parts and their pages with the number of each page's first page (``numbers``; None: a
    placeholder as wide, to learn how many pages the front takes)."""
    head, _, tail = book_title.partition("? ")
    title, subtitle = (head + "?", tail) if tail else (book_title, "")
    logo = (HTML / "_static" / "logo.svg")
    logo = logo.read_text() if logo.exists() else ""
    commit, date = facts["version"]
    cover = f"""<section class="sheet cover">
<div class="logo">{logo}</div>
<h1>{html.escape(title)}</h1>
<p class="subtitle">{html.escape(subtitle)}</p>
<p class="edition">{edition.capitalize()} edition</p>
<div class="facts">
{"Every exercise's and task's solution printed in full." if edition == "instructor"
 else "The exercises and tasks without their solutions."}<br>
Version {commit} (commit of {date}), printed on {facts["printed"]}<br>
Built with PyTorch {html.escape(facts["torch"])}<br>
{html.escape(facts["author"])}, {html.escape(str(facts["copyright"]))}
</div>
<div class="licence">{facts["licence"]}</div>
</section>"""
    rows = []
    for caption, pages in parts:
        if caption:
            rows.append(f'<li class="part">{html.escape(caption)}</li>')
        for page in pages:
            number = "999" if numbers is None else numbers[page]
            rows.append(f'<li class="chapter"><a href="{base}/{page}.html">'
                        f'{html.escape(titles[page])}</a><span class="leader"></span>'
                        f'<span class="number">{number}</span></li>')
    contents = ('<section class="sheet contents"><h2>Contents</h2><ol>'
                + "\n".join(rows) + "</ol></section>")
    return (f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(book_title)}</title><style>{FRONT_CSS}</style></head>"
            f"<body>{cover}{contents}</body></html>")


def build(out=OUT, log=print, force=False):
    """Print every toc page once per edition (a page printed before with the same key is
    taken from _build/pdf/pages), print each edition's cover and contents, and merge them;
    return {edition: path}."""
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    book_title = config["title"]
    parts = {edition: [] for edition in EDITIONS}  # edition -> [(page, title, PDF, base, h2s)]
    shared = inputs_key()
    keys = {page: page_key(page, shared) for page in toc_pages()}
    kept = out / PAGES_DIR
    kept.mkdir(parents=True, exist_ok=True)
    reused = 0
    fronts_kept = set()
    with serve(HTML) as base, contextlib.ExitStack() as stack:
        driver = None

        def browser():
            nonlocal driver
            if driver is None:
                driver = stack.enter_context(chromium())
            return driver

        for page in toc_pages():
            meta = kept / f"{anchor_prefix(page)}{keys[page]}.json"
            if meta.exists() and not force:
                info = json.loads(meta.read_text())
                for edition in EDITIONS:
                    data = (kept / info[edition]).read_bytes()
                    parts[edition].append(
                        (page, info["title"], data, info["base"], info["sections"]))
                reused += 1
                log(f"{page}: printed before with the same key, reused")
                continue
            started = time.monotonic()
            open_page(browser(), f"{base}/{page}.html")
            title, sections = driver.execute_script(PREPARE_JS, anchor_prefix(page))
            background = driver.execute_script(
                "return getComputedStyle(document.body).backgroundColor")
            if min(map(int, re.findall(r"\d+", background)[:3])) < 230:
                raise RuntimeError(f"{page}: not in light mode (background {background})")
            # One load, two prints: the solutions are open for the instructors, then removed.
            printed = {"instructor": print_pdf(driver, title, "instructor")}
            removed = driver.execute_script(REMOVE_SOLUTIONS_JS)
            printed["student"] = print_pdf(driver, title, "student")
            info = {"title": title, "base": base, "page": page, "sections": sections}
            for edition in EDITIONS:
                parts[edition].append((page, title, printed[edition], base, sections))
                info[edition] = f"{anchor_prefix(page)}{keys[page]}-{edition}.pdf"
                (kept / info[edition]).write_bytes(printed[edition])
            meta.write_text(json.dumps(info))  # last: the prints are complete
            log(f"{page}: {removed} solutions, {time.monotonic() - started:.1f} s")

        # The front: printed again only when its HTML changed (a page number, the date).
        facts = {"version": version(), "printed": time.strftime("%-d %B %Y"),
                 "torch": importlib.metadata.version("torch").split("+")[0],
                 "author": config.get("author", ""), "copyright": config.get("copyright", ""),
                 "licence": licence_lines()}

        def print_front(document):
            name = f"front--{passcache.digest(shared, document)}.pdf"
            fronts_kept.add(name.removesuffix(".pdf"))
            if not (kept / name).exists() or force:
                browser().get("about:blank")
                driver.execute_script("document.open(); document.write(arguments[0]); "
                                      "document.close();", document)
                (kept / name).write_bytes(print_pdf(driver, None, None))
            return (kept / name).read_bytes()

        fronts = {}
        for edition, pages in parts.items():
            titles = {page: title for page, title, *_ in pages}
            counts = {page: len(PdfReader(io.BytesIO(data)).pages) for page, _, data, *_ in pages}
            numbers, length = None, None
            for _ in range(3):  # the numbers can lengthen the contents by a page: then again
                front = print_front(front_html(book_title, edition, toc_parts(), titles,
                                               numbers, base, facts))
                if numbers is not None and len(PdfReader(io.BytesIO(front)).pages) == length:
                    break
                length = len(PdfReader(io.BytesIO(front)).pages)
                numbers, next_number = {}, 1
                for page, *_ in pages:
                    numbers[page], next_number = next_number, next_number + counts[page]
            else:
                raise RuntimeError("the contents' length does not settle")
            fronts[edition] = front, base
    # Prints of keys no page has any more are removed.
    current = {f"{anchor_prefix(page)}{key}" for page, key in keys.items()} | fronts_kept
    for stale in kept.iterdir():
        if stale.name.split(".")[0].removesuffix("-instructor").removesuffix(
                "-student") not in current:
            stale.unlink()

    paths = outputs(out)
    for edition, pages in parts.items():
        writer = merge(pages, fronts[edition])
        writer.add_metadata({"/Title": f"{book_title} ({edition} edition)",
                             "/Author": str(config.get("author", ""))})
        # Write next to the target, then rename: a half-written PDF is never the PDF.
        partial = paths[edition].with_suffix(".pdf.part")
        with open(partial, "wb") as stream:
            writer.write(stream)
        partial.replace(paths[edition])
        log(f"{paths[edition].relative_to(ROOT)}: {len(writer.pages)} pages")
    (out / "book.key").write_text(passcache.digest(*(keys[page] for page in toc_pages())))
    log(f"{reused}/{len(keys)} pages' prints reused")
    passcache.note(f"{reused}/{len(keys)} pages' prints reused")
    return paths


def roman(number):
    """A small number in lower-case Roman numerals (the front's pages): 1 -> i, 4 -> iv."""
    numerals = ((10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i"))
    text = ""
    for value, letters in numerals:
        while number >= value:
            text, number = text + letters, number - value
    return text


def stamp_number(writer, page, text, font):
    """Write ``text`` at the right end of the page's footer, after the page's own content."""
    size = NUMBER_FONT["size"]
    width = sum(HELVETICA_WIDTHS[c] for c in text) * size / 1000
    x = float(page.mediabox.right) - PAPER["marginRight"] * 72 - width
    ours = StreamObject()
    ours.set_data(f"Q q {NUMBER_FONT['grey']} g BT /BookNumber {size} Tf "
                  f"{x:.2f} {NUMBER_FONT['baseline']} Td ({text}) Tj ET Q".encode())
    save = StreamObject()
    save.set_data(b"q")  # the page's own state is restored before ours is drawn
    contents = page.get("/Contents")
    contents = contents.get_object() if contents is not None else ArrayObject()
    contents = list(contents) if isinstance(contents, ArrayObject) else [page["/Contents"]]
    page[NameObject("/Contents")] = ArrayObject(
        [writer._add_object(save), *contents, writer._add_object(ours)])
    resources = page.setdefault(NameObject("/Resources"), DictionaryObject()).get_object()
    fonts = resources.setdefault(NameObject("/Font"), DictionaryObject()).get_object()
    fonts[NameObject("/BookNumber")] = font


def sections_of(reader, titles):
    """[(title, index of its page in the print, top)] of a page's sections: where Chromium's
    outline of the print puts its H2s (the children of its H1), named by the page's own H2s
    (``titles``): Chromium's titles can run words together or repeat them, and its outline
    also holds what only looks like a heading (a contents' caption, role="heading"), which
    matches no H2 and is left out."""
    outline = reader.outline
    found = []
    for index, item in enumerate(outline):
        if isinstance(item, list):
            continue
        children = outline[index + 1] if index + 1 < len(outline) and isinstance(
            outline[index + 1], list) else []
        found += [child for child in children if not isinstance(child, list)]
    squeezed = lambda text: "".join(text.split())  # noqa: E731
    sections, wanted = [], list(titles)
    for child in found:
        # A numbered section by its number (a heading at a page's top comes out garbled:
        # "6.3. 6.3. What What ctx offers offers"), another by its whole title.
        number = re.match(r"\d+(\.\d+)*\. ", wanted[0]) if wanted else None
        if wanted and (child.title.startswith(number.group()) if number
                       else squeezed(wanted[0]) in squeezed(child.title)):
            sections.append((wanted.pop(0), reader.get_destination_page_number(child),
                             child.get("/Top")))
    return sections


def merge(pages, front=None):
    """One PDF from the front (cover and contents: (PDF bytes, base)) and the pages
    [(page, title, PDF bytes, base, its H2s)]: one sequence of page numbers, stamped in the
    footers (the front's in Roman numerals, the cover's left out) and given as page labels;
    bookmarks in three levels, parts (_toc.yml's captions), pages, their sections; links into
    the PDF.

    Chromium printed links to other pages of the book as links to the local server (``base``,
    where that page was printed from),
    gone by now: each becomes a link to its target's named destination when the target page
    has one (a place that page links to itself), else to the target page's first page. Links
    to pages outside the book's toc (the index, the search page) are dropped.
    """
    writer = PdfWriter()
    bases = []  # (base, index of its page's first page, one past its last)
    if front is not None:
        writer.append(PdfReader(io.BytesIO(front[0])), import_outline=False)
        bases.append((front[1], 0, len(writer.pages)))
    front_length = len(writer.pages)
    first_page = {}  # page -> the index of its first page in the merged PDF
    sections = {}  # page -> [(title, index in the merged PDF, top)]
    for page, title, data, base, h2s in pages:
        first_page[page] = len(writer.pages)
        reader = PdfReader(io.BytesIO(data))
        sections[page] = [(name, first_page[page] + index, top)
                          for name, index, top in sections_of(reader, h2s)]
        writer.append(reader, import_outline=False)
        bases.append((base, first_page[page], len(writer.pages)))
    titles = {page: title for page, title, *_ in pages}

    # The numbers: the cover none (i), the rest of the front ii, iii...; the pages 1, 2...
    font = writer._add_object(DictionaryObject({
        NameObject("/Type"): NameObject("/Font"), NameObject("/Subtype"): NameObject("/Type1"),
        NameObject("/BaseFont"): NameObject("/Helvetica"),
        NameObject("/Encoding"): NameObject("/WinAnsiEncoding")}))
    for index, pdf_page in enumerate(writer.pages):
        if index >= front_length:
            stamp_number(writer, pdf_page, str(index - front_length + 1), font)
        elif index > 0:
            stamp_number(writer, pdf_page, roman(index + 1), font)
    if front_length:
        writer.set_page_label(0, front_length - 1, "/r", start=1)
    writer.set_page_label(front_length, len(writer.pages) - 1, "/D", start=1)

    # Bookmarks: the contents, then each part with its pages, each page with its sections.
    if front_length > 1:
        writer.add_outline_item(title="Contents", page_number=1)
    for caption, part_pages in toc_parts():
        part_pages = [page for page in part_pages if page in first_page]
        if not part_pages:
            continue
        parent = None if caption is None else writer.add_outline_item(
            title=caption, page_number=first_page[part_pages[0]], is_open=True)
        for page in part_pages:
            chapter = writer.add_outline_item(
                title=titles[page], page_number=first_page[page], parent=parent, is_open=False)
            for name, index, top in sections[page]:
                writer.add_outline_item(title=name, page_number=index, parent=chapter,
                                        fit=Fit.xyz(top=top))

    first_page = {page: writer.pages[index].indirect_reference
                  for page, index in first_page.items()}
    tree = writer.get_named_dest_root()
    destinations = set(tree[0::2])  # Chromium names them "/" + the element's id
    for index, pdf_page in enumerate(writer.pages):
        base = next(b for b, start, end in bases if start <= index < end)
        links = pdf_page.get("/Annots")
        if not links:
            continue
        kept = ArrayObject()
        for link in links:
            action = link.get_object().get("/A")
            uri = action.get("/URI", "") if action else ""
            if not uri.startswith(base + "/"):
                kept.append(link)
                continue
            path, _, fragment = uri[len(base) + 1:].partition("#")
            target = path.removesuffix(".html")
            if target not in first_page:
                continue
            name = "/" + anchor_prefix(target) + unquote(fragment)
            where = (TextStringObject(name) if fragment and name in destinations
                     else ArrayObject([first_page[target], NameObject("/Fit")]))
            link.get_object()[NameObject("/A")] = DictionaryObject({
                NameObject("/S"): NameObject("/GoTo"), NameObject("/D"): where})
            kept.append(link)
        pdf_page[NameObject("/Annots")] = kept
    writer.page_mode = "/UseOutlines"
    return writer


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--force", action="store_true", help="rebuild even if up to date")
    parser.add_argument("--check-key", action="store_true",
                        help="print the key of `make pdf-check`: the PDFs' and its tests'")
    args = parser.parse_args()
    if args.check_key:
        print(check_key())
        return
    if not (HTML / "index.html").exists():
        raise SystemExit("no built site in _build/html: run make book first")
    if not args.force and up_to_date():
        print("The PDFs were made from the site as it is: nothing to do (--force rebuilds them).")
    else:
        build(force=args.force)


if __name__ == "__main__":
    main()
