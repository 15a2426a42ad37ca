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
into one file with a bookmark per page.

Each page's two prints are kept in ``_build/pdf/pages`` under a content hash of what the
print reads (``page_key``: the page's HTML, every file of the site it can load, this script,
scripts/chromium.py and the environment); a page whose key did not change is not printed
again, and the merge (always redone) uses its kept prints. ``up_to_date`` compares the
same hashes (never modification times): the PDFs are rebuilt only when a page's key, or the
whole site's, changed since they were made (or with ``--force``, which reprints every page).
"""

import argparse
import base64
import contextlib
import functools
import html
import http.server
import io
import json
import re
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import unquote

import yaml
from pypdf import PdfReader, PdfWriter
from pypdf.generic import ArrayObject, DictionaryObject, NameObject, TextStringObject

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
FOOTER = """<div style="font-size:8px;color:#555;width:100%;margin:0 0.6in;
display:flex;justify-content:space-between;font-family:sans-serif">
<span>{title}</span><span>{edition} \u00b7 <span class="pageNumber"></span> /
<span class="totalPages"></span></span></div>"""

# How a page looks on paper is the website's own print stylesheet (_static/book.css,
# "@media print"), so printing a page from a browser gives the same result.

# Run in the page: light mode, every dropdown and <details> open. The
# article's ids get the page's prefix, so that the PDF's named destinations (Chromium makes one
# for each id a link of the page points to) stay unique once the pages are merged; links
# within the page follow. Links to other pages stay absolute: merge() points them into the
# PDF. Returns the page's title: its H1 as the reader sees it ("4. Running backward").
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
const h1 = article.querySelector('h1');
return h1.textContent.replace(/#$/, '').replace(/\\s+/g, ' ').trim();
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
const images = Array.from(document.images).map(img => img.decode().catch(() => null));
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
        repr((PAPER, FOOTER, PREPARE_JS, REMOVE_SOLUTIONS_JS, SETTLED_JS)))


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
    """The current page as PDF bytes, with a footer naming the page and the edition."""
    footer = FOOTER.format(title=html.escape(title), edition=f"{edition.capitalize()} edition")
    result = driver.execute_cdp_cmd("Page.printToPDF", {
        **PAPER,
        "printBackground": True,
        "displayHeaderFooter": True,
        "headerTemplate": "<span></span>",
        "footerTemplate": footer,
    })
    return base64.b64decode(result["data"])


def anchor_prefix(page):
    """The prefix of a page's ids in the PDF: chapters/ch04_backward -> chapters_ch04_backward--."""
    return page.replace("/", "_") + "--"


def build(out=OUT, log=print, force=False):
    """Print every toc page once per edition (a page printed before with the same key is
    taken from _build/pdf/pages) and merge them; return {edition: path}."""
    book_title = yaml.safe_load((ROOT / "_config.yml").read_text())["title"]
    parts = {edition: [] for edition in EDITIONS}  # edition -> [(page, title, PDF, base)]
    shared = inputs_key()
    keys = {page: page_key(page, shared) for page in toc_pages()}
    kept = out / PAGES_DIR
    kept.mkdir(parents=True, exist_ok=True)
    reused = 0
    with serve(HTML) as base, contextlib.ExitStack() as stack:
        driver = None
        for page in toc_pages():
            meta = kept / f"{anchor_prefix(page)}{keys[page]}.json"
            if meta.exists() and not force:
                info = json.loads(meta.read_text())
                for edition in EDITIONS:
                    data = (kept / info[edition]).read_bytes()
                    parts[edition].append((page, info["title"], data, info["base"]))
                reused += 1
                log(f"{page}: printed before with the same key, reused")
                continue
            if driver is None:
                driver = stack.enter_context(chromium())
            started = time.monotonic()
            open_page(driver, f"{base}/{page}.html")
            title = driver.execute_script(PREPARE_JS, anchor_prefix(page))
            background = driver.execute_script(
                "return getComputedStyle(document.body).backgroundColor")
            if min(map(int, re.findall(r"\d+", background)[:3])) < 230:
                raise RuntimeError(f"{page}: not in light mode (background {background})")
            # One load, two prints: the solutions are open for the instructors, then removed.
            printed = {"instructor": print_pdf(driver, title, "instructor")}
            removed = driver.execute_script(REMOVE_SOLUTIONS_JS)
            printed["student"] = print_pdf(driver, title, "student")
            info = {"title": title, "base": base, "page": page}
            for edition in EDITIONS:
                parts[edition].append((page, title, printed[edition], base))
                info[edition] = f"{anchor_prefix(page)}{keys[page]}-{edition}.pdf"
                (kept / info[edition]).write_bytes(printed[edition])
            meta.write_text(json.dumps(info))  # last: the prints are complete
            log(f"{page}: {removed} solutions, {time.monotonic() - started:.1f} s")
    # Prints of keys no page has any more are removed.
    current = {f"{anchor_prefix(page)}{key}" for page, key in keys.items()}
    for stale in kept.iterdir():
        if stale.name.split(".")[0].removesuffix("-instructor").removesuffix(
                "-student") not in current:
            stale.unlink()

    paths = outputs(out)
    for edition, pages in parts.items():
        writer = merge(pages)
        writer.add_metadata({"/Title": f"{book_title} ({edition} edition)"})
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


def merge(pages):
    """One PDF from [(page, title, PDF bytes, base)]: a bookmark per page, links into the PDF.

    Chromium printed links to other pages of the book as links to the local server (``base``,
    where that page was printed from),
    gone by now: each becomes a link to its target's named destination when the target page
    has one (a place that page links to itself), else to the target page's first page. Links
    to pages outside the book's toc (the index, the search page) are dropped.
    """
    writer = PdfWriter()
    first_page = {}  # page -> its first page (a reference) in the merged PDF
    bases = []  # (base, index of its page's first page, one past its last)
    for page, title, data, base in pages:
        first_page[page] = len(writer.pages)
        writer.append(PdfReader(io.BytesIO(data)), outline_item=title)
        bases.append((base, first_page[page], len(writer.pages)))
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
