"""What a reader's browser downloads on a first visit of each page of the built website.

Each page of ``_toc.yml`` but the first (the chapters and appendices) is opened in a fresh
headless Chromium (a new profile, the cache disabled), served from 127.0.0.1 without
compression. After the load event, MathJax's typesetting and the fonts, the page's weight
is the decoded bytes of every response: the page itself and every file it loaded (the
browser's Resource Timing entries, ``decodedBodySize``). Requests to any other host are
listed: the site must work offline.

    .venv/bin/python scripts/site_weight.py HTML_DIR [NEW_HTML_DIR] [--pages P ...] [--json]

With one folder, the weight of each page, the median and the maximum, and the files that
weigh most; with two (an older build and a newer one), both side by side and new over old.
tests/test_site.py holds each page's weight under a budget with ``first_visit``.
"""

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import chromium as headless  # noqa: E402  (scripts/chromium.py)
from book_pdf import serve, toc_pages  # noqa: E402  (scripts/book_pdf.py)

# Settled: the load event, MathJax's first typesetting (where the page loads it) and the
# fonts it asked for, then half a second for anything they started.
SETTLED_JS = """
const done = arguments[arguments.length - 1];
const typeset = (window.MathJax && MathJax.startup && MathJax.startup.promise)
    || Promise.resolve();
typeset.then(() => document.fonts.ready, () => document.fonts.ready)
    .then(() => setTimeout(done, 500));
"""

# Every response of the visit: the page (navigation) and what it loaded (resources).
RESPONSES_JS = """
return performance.getEntriesByType('navigation')
    .concat(performance.getEntriesByType('resource'))
    .map(e => [e.name, e.decodedBodySize, e.responseStatus || 0]);
"""


def first_visit(site_url, page, collect=None):
    """{"bytes": total decoded bytes, "files": {path: bytes}, "foreign": [urls of other
    hosts], "failed": [paths answered 4xx/5xx]} of one page's first visit; with ``collect``
    (a script), also "seen": what it returned once the page had settled."""
    host = urlsplit(site_url).netloc
    with tempfile.TemporaryDirectory() as profile:
        driver = headless.start(profile)
        try:
            driver.set_script_timeout(60)
            driver.execute_cdp_cmd("Network.enable", {})
            driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
            driver.execute_script("performance.setResourceTimingBufferSize(10000)")
            driver.get(f"{site_url}/{page}.html")
            driver.execute_async_script(SETTLED_JS)
            responses = driver.execute_script(RESPONSES_JS)
            seen = driver.execute_script(collect) if collect else None
        finally:
            driver.quit()
    files, foreign, failed = {}, [], []
    for url, size, status in responses:
        parts = urlsplit(url)
        if parts.scheme in ("data", "blob"):
            continue
        if parts.netloc != host:
            foreign.append(url)
            continue
        files[parts.path] = files.get(parts.path, 0) + size
        if status >= 400:
            failed.append(parts.path)
    return {"bytes": sum(files.values()), "files": files, "foreign": foreign,
            "failed": failed, "seen": seen}


def measure(html, pages):
    """{page: first_visit(...)} for a built site's folder."""
    with serve(html) as site_url:
        return {page: first_visit(site_url, page) for page in pages}


def summary(visits):
    sizes = [visit["bytes"] for visit in visits.values()]
    return {"median": statistics.median(sizes), "max": max(sizes), "min": min(sizes)}


def heaviest(visits, count=8):
    """The files that weigh most over all the visits, with how many pages loaded each."""
    totals, pages = {}, {}
    for visit in visits.values():
        for path, size in visit["files"].items():
            name = path if not path.endswith(".html") else "(the page itself)"
            totals[name] = totals.get(name, 0) + size
            pages[name] = pages.get(name, 0) + 1
    ranked = sorted(totals, key=totals.get, reverse=True)[:count]
    return [(name, totals[name] / len(visits), pages[name]) for name in ranked]


def kb(size):
    return f"{size / 1024:8.0f} KB"


def report(builds, pages):
    names = list(builds)
    print(f"First visit of each page: decoded bytes of every response, cache disabled")
    print(f"{'page':34}" + "".join(f"{name:>14}" for name in names)
          + ("   new/old" if len(names) == 2 else ""))
    for page in pages:
        sizes = [builds[name][page]["bytes"] for name in names]
        ratio = f"   {sizes[1] / sizes[0]:7.2f}" if len(sizes) == 2 else ""
        print(f"{page.split('/')[-1]:34}" + "".join(f"{kb(s):>14}" for s in sizes) + ratio)
    for key in ("median", "max", "min"):
        values = [summary(builds[name])[key] for name in names]
        ratio = f"   {values[1] / values[0]:7.2f}" if len(values) == 2 else ""
        print(f"{key:34}" + "".join(f"{kb(v):>14}" for v in values) + ratio)
    for name in names:
        visits = builds[name]
        print(f"\n{name}: the heaviest files (mean KB per visit, pages that load it)")
        for path, size, count in heaviest(visits):
            print(f"  {kb(size)}  {count:3}  {path}")
        foreign = sorted({url for v in visits.values() for url in v["foreign"]})
        failed = sorted({path for v in visits.values() for path in v["failed"]})
        print(f"  other hosts requested: {foreign or 'none'}; failed requests: {failed or 'none'}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("html", nargs="+", type=Path, help="one built site, or old then new")
    parser.add_argument("--pages", nargs="*", help="pages to visit (default: all but the first)")
    parser.add_argument("--json", action="store_true", help="print the measurements as JSON")
    args = parser.parse_args()
    if len(args.html) > 2:
        parser.error("give one folder, or two (old, then new)")
    pages = args.pages or toc_pages()[1:]
    labels = ["old", "new"] if len(args.html) == 2 else [str(args.html[0])]
    builds = {label: measure(html, pages) for label, html in zip(labels, args.html)}
    if args.json:
        print(json.dumps({label: {"pages": visits, "summary": summary(visits)}
                          for label, visits in builds.items()}, indent=1))
    else:
        report(builds, pages)


if __name__ == "__main__":
    main()
