"""The built website, checked the way a reader sees it: in headless Chromium.

Serves ``_build/html`` on localhost, opens every page listed in ``_toc.yml`` and fails on a
JavaScript console error, an image that did not load (natural width 0), a chapter without a
launch button, or an exercise solution that is visible before the reader opens it.

Each page is opened once for the tests of the default window, and once per view (phone and
desktop, light and dark) for the survey's tests, in two Chromiums at once
(``SITE_CHECK_BROWSERS=1``: one); the tests assert on what those visits collected.

Needs a built site (``make book``) and Debian's ``chromium`` and ``chromium-driver``
(``make test`` installs them).
"""

import functools
import http.server
import json
import os
import re
import sys
import tempfile
import threading
from pathlib import Path

import pytest
import yaml

# Browser-only tests: where selenium or Chromium is absent (a Binder terminal, where
# students run `pytest -m chNN`), this module skips instead of failing at collection.
pytest.importorskip("selenium", reason="the site check needs selenium (make test installs it)")
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import chromium as headless  # noqa: E402  (scripts/chromium.py)
import passcache  # noqa: E402  (scripts/passcache.py)
import book_pdf  # noqa: E402  (scripts/book_pdf.py: which files a page loads)
from book_pdf import toc_pages  # noqa: E402  (the pages in _toc.yml, root first)
# BOOK_HTML points the check at another build (an older one, to see what it catches).
HTML = Path(os.environ.get("BOOK_HTML", ROOT / "_build" / "html"))
pytestmark = [
    pytest.mark.site,
    pytest.mark.skipif(not headless.available(),
                       reason="the site check needs Debian's chromium and chromium-driver"),
]


PAGES = toc_pages()
CHAPTERS = PAGES[1:]
# Pages with exercises (the glossary has none).
WITH_SOLUTIONS = [page for page in CHAPTERS if "solution-start" in (ROOT / f"{page}.md").read_text()]


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def site_url():
    if not (HTML / "index.html").exists():
        pytest.fail("no built site in _build/html: run `make book` first")
    handler = functools.partial(QuietHandler, directory=str(HTML))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def chromium(profile):
    """Headless Chromium with its own profile, keeping the console log."""
    return headless.start(profile, console_log=True)


# ---------------------------------------------------------------------------------------------
# One visit per page (and per page and view, below) collects everything the tests of that page
# look at; the tests then assert on what was collected, each on its part. The visits run ahead
# of the tests in SITE_CHECK_BROWSERS Chromiums at once (2 unless set: this machine has 2
# cores), each visit in one Chromium from its start to its end.


class Observed(dict):
    """What one visit saw. If the visit stopped on an error, asking for what it did not
    get re-raises that error, in the test that needs it."""

    error = None

    def __missing__(self, key):
        if self.error is not None:
            raise self.error
        raise KeyError(key)


class Visits:
    """The visits the selected tests need, run in order by a pool of Chromiums; a visit
    whose page and everything it loads are byte for byte as when it was last made, by the
    same browser and the same visiting code, in a run that passed, is not made again: what
    it saw then is given to the tests (``saved``; see visit_key), which assert on it anew."""

    def __init__(self, jobs, site_url, profiles, browsers, saved=None):
        import concurrent.futures

        self.site_url = site_url
        self.saved = saved or {}
        self.futures = {}
        self.drivers = []
        self.lock = threading.Lock()
        self.local = threading.local()
        self.profiles = profiles
        to_make = [job for job in jobs if job not in self.saved]
        self.pool = concurrent.futures.ThreadPoolExecutor(
            max(1, min(browsers, len(to_make) or 1)), thread_name_prefix="chromium")
        for job in to_make:  # first come, first served: the order the tests ask in
            self.futures[job] = self.pool.submit(self._run, job)

    def driver(self):
        driver = getattr(self.local, "driver", None)
        if driver is None:
            driver = chromium(self.profiles())
            driver.set_script_timeout(120)
            with self.lock:
                self.drivers.append(driver)
            self.local.driver = driver
            self.local.surveyed = False
        return driver

    def _run(self, job):
        driver = self.driver()
        observed = Observed()
        try:
            if job[0] == "page":
                visit_page(driver, self.site_url, job[1], job[2], observed,
                           reset=self.local.surveyed)
            else:
                self.local.surveyed = True
                observed.update(survey_page(driver, self.site_url, job[1], job[2]))
        except Exception as error:  # noqa: BLE001  (raised again by the tests that need it)
            observed.error = error
        return observed

    def get(self, job):
        if job in self.saved:
            return self.saved[job]
        observed = self.futures[job].result()
        kept = plain(observed)
        # What the tests see is what a saved visit would give them (JSON's lists and
        # dicts), so a test cannot pass on a fresh visit and fail on its saved copy.
        return observed if kept is None else revive(json.loads(json.dumps(kept)))

    def close(self):
        for future in self.futures.values():
            future.cancel()
        self.pool.shutdown(wait=True)
        for driver in self.drivers:
            driver.quit()


def _jobs(items):
    """The visits the selected tests of this module need, in the order they run, and for
    each page the parts they look at (a page's solutions and stepper are clicked)."""
    parts = {}
    order = []
    for item in items:
        if item.module is None or item.module.__name__ != __name__ or not hasattr(item, "callspec"):
            continue
        params = item.callspec.params
        if "page" in params:
            job = ("page", params["page"])
            need = PAGE_PARTS.get(item.originalname, ())
        elif "survey" in params:
            job = ("survey", *params["survey"])
            need = ()
        else:
            continue
        if job not in parts:
            parts[job] = set()
            order.append(job)
        parts[job].update(need)
    return [job + (frozenset(parts[job]),) if job[0] == "page" else job for job in order]


def plain(observed):
    """What a visit saw, as JSON can keep it; None if the visit, or a part of it, stopped on
    an error (such a visit is never saved)."""
    if observed.error is not None:
        return None
    kept = {}
    for key, value in observed.items():
        if isinstance(value, Observed):
            value = plain(value)
            if value is None:
                return None
            value = {"observed": value}
        kept[key] = value
    return kept


def revive(kept):
    observed = Observed()
    for key, value in kept.items():
        if isinstance(value, dict) and set(value) == {"observed"}:
            value = revive(value["observed"])
        observed[key] = value
    return observed


@functools.lru_cache(maxsize=1)
def _visit_inputs():
    """What every visit depends on besides its page: the files every page can load
    (book_pdf.assets: stylesheets, scripts, fonts; not the figures, each page's own), the
    visiting code, the browser, the environment."""
    code = passcache.files(Path(__file__), Path(__file__).with_name("site_survey.js"),
                           ROOT / "scripts" / "chromium.py", AXE)
    return [book_pdf.assets(HTML), code, *passcache.environment(),
            passcache._tool_version("/usr/bin/chromium", "--version")]


def job_name(job):
    """A visit's name, the same in every process (a frozenset's order is not)."""
    if job[0] == "page":
        return " ".join(["page", job[1], *sorted(job[2])])
    return " ".join(job)


def visit_key(job):
    """The content hash of what one visit sees: its page's HTML, the figures it names, and
    _visit_inputs()."""
    page = HTML / f"{job[1]}.html"
    return passcache.digest(*_visit_inputs(), passcache.files(page, root=HTML),
                            book_pdf.page_images(job[1], HTML), job_name(job))


@pytest.fixture(scope="module")
def visits(request, site_url, tmp_path_factory):
    jobs = _jobs(request.session.items)
    browsers = int(os.environ.get("SITE_CHECK_BROWSERS", "2"))
    store = passcache.Store("site-visits")
    keys = {job: visit_key(job) for job in jobs}
    saved = {}
    for job in jobs:
        kept = store.get(job_name(job), keys[job])
        if kept is not None:
            saved[job] = revive(kept)
    passcache.note(f"{len(jobs) - len(saved)}/{len(jobs)} visits made")
    # The profiles' folder is made here, in this thread: tmp_path_factory is not thread-safe
    # (two Chromium threads asking it first each made a base folder, and one then refused its
    # own path: "chromium-profile is not a normalized and relative path").
    profiles = tmp_path_factory.mktemp("chromium-profiles")
    pool = Visits(jobs, site_url, lambda: Path(tempfile.mkdtemp(dir=profiles)), browsers,
                  saved)
    pool.jobs = {job[:2] if job[0] == "page" else job: job for job in jobs}
    failed_before = request.session.testsfailed
    yield pool
    pool.close()
    # Only a run in which every test of this module passed saves its visits.
    if request.session.testsfailed == failed_before and not request.session.shouldfail:
        for job, future in pool.futures.items():
            if future.done() and not future.cancelled():
                kept = plain(future.result())
                if kept is not None:
                    store.put(job_name(job), keys[job], kept)
        store.save()


@pytest.fixture
def page(request, visits):
    """What one page showed: its console, images, launch buttons, and, for the tests that
    click them, its solutions and its stepper (see visit_page)."""
    return visits.get(visits.jobs["page", request.param])


def visit_page(driver, site_url, page, parts, observed, reset=False):
    """Open one page as a reader's first visit (the default window, no colour mode chosen),
    wait until its scripts have settled, and note what the tests look at."""
    if reset:  # this Chromium surveyed a page as a phone, or in a chosen colour mode
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": False})
    driver.get_log("browser")  # drop what earlier pages left behind
    driver.get(f"{site_url}/{page}.html")
    if reset and driver.execute_script("return localStorage.getItem('mode')") is not None:
        driver.execute_script("localStorage.removeItem('mode');")
        driver.get_log("browser")
        driver.refresh()
    WebDriverWait(driver, 30).until(lambda d: d.execute_script("return document.readyState") == "complete")
    # MathJax typesets after load; wait for it (and a moment for late console messages).
    driver.execute_async_script(
        """
        const done = arguments[arguments.length - 1];
        const typeset = (window.MathJax && MathJax.startup && MathJax.startup.promise) || Promise.resolve();
        typeset.then(() => setTimeout(done, 300), () => setTimeout(done, 300));
        """
    )
    observed["severe"] = severe_messages(driver)
    # Every picture, the ones a reader's browser leaves for later included (a figure's dark
    # version loads lazily, only when dark mode shows it): asked to load now, all must.
    observed["lazy"] = driver.execute_async_script(
        """
        const done = arguments[arguments.length - 1];
        const lazy = Array.from(document.images).filter(img => img.loading === "lazy");
        lazy.forEach(img => { img.loading = "eager"; });
        const end = performance.now() + 20000;
        (function wait() {
          if (lazy.every(img => img.complete) || performance.now() > end) done(lazy.length);
          else setTimeout(wait, 50);
        })();
        """)
    observed["images"] = driver.execute_script(
        "return Array.from(document.images).map(img => [img.getAttribute('src'), img.complete, img.naturalWidth]);"
    )
    observed["url"] = driver.current_url
    observed["launch_links"] = [a.get_attribute("href") for a in driver.find_elements(
        By.CSS_SELECTOR, ".dropdown-launch-buttons a")]
    for part, collect in (("stepper", try_stepper), ("solutions", open_solutions)):
        if part in parts:
            observed[part] = Observed()
            try:
                collect(driver, observed[part])
            except Exception as error:  # noqa: BLE001  (raised by the test where it stopped)
                observed[part].error = error


PAGE_PARTS = {
    "test_solutions_hidden_until_opened": ("solutions",),
    "test_backward_stepper_works_without_a_kernel": ("stepper",),
}


def severe_messages(browser):
    return [entry["message"] for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]


@pytest.mark.parametrize("page", PAGES, indirect=True)
def test_no_console_errors(page):
    assert page["severe"] == []


@pytest.mark.parametrize("page", PAGES, indirect=True)
def test_every_image_loaded(page):
    images = page["images"]
    assert images, "no images on the page at all (the logo should be there)"
    broken = [src for src, complete, width in images if not complete or width == 0]
    assert broken == []


def test_no_link_leads_to_the_placeholder_address():
    # Read from the built files (every page, every link): a link made from repository.url
    # while it is the placeholder would be a 404 (the website review's P1).
    pages = sorted(HTML.rglob("*.html"))
    assert len(pages) >= 20
    dead = [(page.relative_to(HTML).as_posix(), href) for page in pages
            for href in re.findall(r'href="([^"]*)"', page.read_text(errors="replace"))
            if "YOUR-GITHUB-USER" in href]
    assert dead == []


def published():
    """Whether _config.yml's repository.url is a real address (not the placeholder)."""
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    return "YOUR-GITHUB-USER" not in config["repository"]["url"]


@pytest.mark.parametrize("page", CHAPTERS, indirect=True)
def test_chapter_launch_buttons(page):
    # Binder opens the student notebook that binder/postBuild writes (_ext/binder_launch.py);
    # until the repository has an address, no launch button ships (_ext/footer_links.py).
    source = "notebooks/" + page["url"].rsplit("/", 1)[1].removesuffix(".html") + ".ipynb"
    links = page["launch_links"]
    if not published():
        assert links == [], f"launch buttons that lead to the placeholder: {links}"
        return
    binder = [href for href in links if href.startswith("https://mybinder.org/v2/gh/")]
    assert binder, f"no Binder launch button among {links}"
    assert all(href.endswith(source) for href in binder), binder


def open_solutions(page, observed):
    """Each solution: its content, hidden at first, and what clicking its title does."""
    observed["solutions"] = solutions = []
    for solution in page.find_elements(By.CSS_SELECTOR, "div.solution"):
        body = solution.find_elements(By.XPATH, "./*[not(contains(@class, 'admonition-title'))]")
        seen = {"body": len(body), "hidden": not any(part.is_displayed() for part in body)}
        solutions.append(seen)
        if not seen["body"] or not seen["hidden"]:
            break  # the test stops there
        # A reader clicks the title ("Solution to Exercise 7.2 (...)"), whose middle is a
        # link back to the exercise: the click must open the solution, not jump away.
        title = solution.find_element(By.CSS_SELECTOR, ".admonition-title")
        target = (title.find_elements(By.CSS_SELECTOR, "a") or [title])[0]
        page.execute_script("arguments[0].scrollIntoView({block: 'center'});", target)
        seen["url_before"] = page.current_url
        ActionChains(page).move_to_element(target).click().perform()
        WebDriverWait(page, 5).until(lambda _: all(part.is_displayed() for part in body))
        seen["url_after"] = page.current_url


@pytest.mark.parametrize("page", WITH_SOLUTIONS, indirect=True)
def test_solutions_hidden_until_opened(page):
    observed = page["solutions"]
    solutions = observed["solutions"]
    assert solutions, "a chapter has exercises with solutions"
    for seen in solutions:
        assert seen["body"], "solution without content"
        assert seen["hidden"], "solution visible before it is opened"
        if "url_after" not in seen:  # it did not open within 5 s
            raise observed.error
        assert seen["url_after"] == seen["url_before"]
    if observed.error is not None:
        raise observed.error


def try_stepper(page, seen):
    """Step through chapter 7's stepper with its buttons and slider, and print it."""
    stepper = page.find_element(By.CSS_SELECTOR, ".toygrad-stepper")
    frames = stepper.find_elements(By.CSS_SELECTOR, ".stepper-frame")
    slider = stepper.find_element(By.CSS_SELECTOR, ".stepper-slider")
    seen["last"] = last = len(frames) - 1

    def visible():
        return [i for i, frame in enumerate(frames) if frame.is_displayed()]

    # As a reader does: the controls in the middle of the window (a stepper taller than
    # the window, centred as a whole, would put them under the page's sticky header).
    controls = stepper.find_element(By.CSS_SELECTOR, ".stepper-controls")
    page.execute_script("arguments[0].scrollIntoView({block: 'center'});", controls)
    seen["first"] = visible()
    stepper.find_element(By.CSS_SELECTOR, ".stepper-next").click()
    seen["after_next"] = (visible(), slider.get_attribute("value"))
    stepper.find_element(By.CSS_SELECTOR, ".stepper-previous").click()
    seen["after_previous"] = visible()
    page.execute_script(
        "arguments[0].value = arguments[1];"
        "arguments[0].dispatchEvent(new Event('input'));", slider, last)
    seen["at_last"] = visible()
    next_button = stepper.find_element(By.CSS_SELECTOR, ".stepper-next")
    seen["next_enabled_at_last"] = next_button.is_enabled()
    seen["at_last_again"] = visible()
    position = stepper.find_element(By.CSS_SELECTOR, ".stepper-position")
    seen["position"] = (position.text, position.get_attribute("aria-live"))
    seen["caption"] = frames[last].find_element(By.CSS_SELECTOR, "figcaption").text
    seen["valuetext"] = slider.get_attribute("aria-valuetext")
    seen["slider_height"] = slider.size["height"]
    page.execute_script(
        "arguments[0].value = 0; arguments[0].dispatchEvent(new Event('input'));", slider)
    seen["previous_enabled_at_first"] = stepper.find_element(
        By.CSS_SELECTOR, ".stepper-previous").is_enabled()
    # On paper every step is shown, without the controls.
    page.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    try:
        seen["printed"] = visible()
        seen["controls_printed"] = stepper.find_element(
            By.CSS_SELECTOR, ".stepper-controls").is_displayed()
    finally:
        page.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
    seen["nodes"] = page.execute_script(FRAME_NODES, stepper)
    seen["disabled_contrast"] = {
        mode: page.execute_script(DISABLED_CONTRAST, stepper, mode) for mode in ("light", "dark")}
    # On a phone (390 px, touch), the controls are a finger's size.
    page.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
    page.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True})
    try:
        seen["phone_heights"] = page.execute_script(
            "return Array.from(arguments[0].querySelectorAll("
            "'.stepper-controls button, .stepper-controls input'))"
            ".map(el => [el.className, el.getBoundingClientRect().height]);", stepper)
    finally:
        page.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        page.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": False})


# Each frame of a stepper: its picture's size on the page, and every node's box ({title:
# [x, y, width, height]}) as the browser lays the frame's SVG out.
FRAME_NODES = """
const host = document.createElement("div");
host.style.cssText = "position:absolute;left:-10000px;top:0";
document.body.appendChild(host);
const frames = [];
// (Each frame's light version: the dark one is the same drawing, recoloured.)
for (const img of arguments[0].querySelectorAll(".stepper-frame img:not(.only-dark)")) {
  let source;
  if (img.src.startsWith("data:")) {
    const bytes = Uint8Array.from(atob(img.src.split(",")[1]), c => c.charCodeAt(0));
    source = new TextDecoder().decode(bytes);
  } else {  // a file of the site (_ext/themed_figures.py writes each picture out)
    const request = new XMLHttpRequest();
    request.open("GET", img.src, false);
    request.send();
    source = request.responseText;
  }
  const svg = new DOMParser().parseFromString(source, "image/svg+xml").documentElement;
  host.replaceChildren(document.importNode(svg, true));
  const boxes = {};
  for (const node of host.querySelectorAll("g.node")) {
    const box = node.querySelector("polygon, ellipse, path").getBBox();
    boxes[node.querySelector("title").textContent] =
      [box.x, box.y, box.width, box.height].map(v => Math.round(v * 100) / 100);
  }
  frames.push({size: [img.getAttribute("width"), img.getAttribute("height")], boxes});
}
host.remove();
return frames;
"""

# The contrast of the disabled "previous" button's text with what is behind it, in a colour
# mode (set on the page for the measurement, then put back).
DISABLED_CONTRAST = """
const [stepper, mode] = arguments;
const root = document.documentElement, before = root.dataset.theme;
root.dataset.theme = mode;
function rgba(text) { return text.match(/[0-9.]+/g).map(Number).concat([1]).slice(0, 4); }
function over(top, below) {
  const a = top[3];
  return [0, 1, 2].map(i => top[i] * a + below[i] * (1 - a)).concat([1]);
}
function luminance(c) {
  const [r, g, b] = c.slice(0, 3).map(v => v / 255)
    .map(v => v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
const button = stepper.querySelector(".stepper-previous");
const layers = [];
for (let el = button; el; el = el.parentElement) layers.push(rgba(getComputedStyle(el).backgroundColor));
let behind = [255, 255, 255, 1];
for (const layer of layers.reverse()) behind = over(layer, behind);
const text = over(rgba(getComputedStyle(button).color), behind);
const [hi, lo] = [luminance(text), luminance(behind)].sort((a, b) => b - a);
const contrast = (hi + 0.05) / (lo + 0.05);
root.dataset.theme = before;
return [button.disabled, contrast];
"""


@pytest.mark.parametrize("page", ["chapters/ch07_graphs"], indirect=True)
def test_backward_stepper_works_without_a_kernel(page):
    seen = page["stepper"]
    last = seen["last"]
    assert last >= 3
    assert seen["first"] == [0]
    visible, value = seen["after_next"]
    assert visible == [1] and value == "1"
    assert seen["after_previous"] == [0]
    assert seen["at_last"] == [last]
    assert not seen["next_enabled_at_last"]  # the last step: "next" says it does nothing
    assert seen["at_last_again"] == [last]
    text, live = seen["position"]
    assert text == f"step {last} of {last}"
    assert live == "polite"  # a screen reader hears the step
    assert seen["valuetext"] == seen["caption"]
    assert seen["slider_height"] >= 24  # a touch target
    assert not seen["previous_enabled_at_first"]
    # On paper every step is shown, without the controls.
    assert seen["printed"] == list(range(last + 1))
    assert not seen["controls_printed"]
    # Every frame is drawn at one layout: no node moves or changes size from step to step
    # (nor does the picture), so the eye sees only what changed.
    frames = seen["nodes"]
    assert len(frames) == last + 1 and len(frames[0]["boxes"]) >= 5
    moved = sorted({title for frame in frames[1:] for title, box in frame["boxes"].items()
                    if box != frames[0]["boxes"].get(title)})
    assert moved == [], f"{len(moved)} of {len(frames[0]['boxes'])} nodes move between steps"
    assert all(frame["size"] == frames[0]["size"] for frame in frames)
    # "previous", disabled at the first step, still reads at 3:1 at least, light and dark.
    for mode, (disabled, contrast) in seen["disabled_contrast"].items():
        assert disabled and contrast >= 3, f"{mode}: disabled 'previous' at {contrast:.2f}:1"
    # On a phone, each button and the slider is at least 44 px tall.
    heights = seen["phone_heights"]
    assert len(heights) == 3
    assert all(height >= 44 for _, height in heights), heights
    if seen.error is not None:
        raise seen.error


# ---------------------------------------------------------------------------------------------
# Every page as a phone and a desktop show it, in light and in dark mode.
#
# Each (page, view) is opened once and surveyed by one script (a visit of the pool above); the
# tests below each assert one part of the survey, so a failure names what a reader would meet.

VIEWS = {  # name: (width, height, mobile, colour mode)
    "phone-light": (390, 844, True, "light"),
    "phone-dark": (390, 844, True, "dark"),
    "desktop-light": (1400, 900, False, "light"),
    "desktop-dark": (1400, 900, False, "dark"),
}
SURVEYS = [(page, view) for view in VIEWS for page in PAGES]
SURVEY_IDS = [f"{page.rsplit('/', 1)[-1]}-{view}" for page, view in SURVEYS]

MIN_TEXT_PX = 9  # the smallest text a figure may show (a 10 pt graph label at 0.7 scale)
MIN_CONTRAST = 4.5  # WCAG AA for normal text

# axe-core findings that come from the theme's own markup, not the book's: each rule, the
# elements it may flag, and why it is accepted.
THEME_FINDINGS = {
    "label-content-name-mismatch": (
        (".search-button", ".search-button-field", ".theme-switch-button", "summary"),
        "pydata-sphinx-theme labels its search button 'Search' beside the visible text "
        "'Search Ctrl+K', its colour switch by the mode, and MyST-NB's 'Show code cell' "
        "summaries 'Toggle hidden content'",
    ),
}

SURVEY_SCRIPT = (Path(__file__).with_name("site_survey.js")).read_text()


# axe-core from the npm registry, pinned by package.json and package-lock.json (make
# site-check runs npm ci): 4.14's color-contrast rule is about three times as fast as 4.9's
# (issue 25), the version selenium-axe-python bundled.
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"


def _axe_source():
    if not AXE.exists():
        pytest.fail(f"no {AXE.relative_to(ROOT)}: run `make site-check` (it runs npm ci)")
    return AXE.read_text()


def survey_page(driver, site_url, page, view):
    """What a reader meets on one page in one view (see tests/site_survey.js)."""
    width, height, mobile, mode = VIEWS[view]
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})
    driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": mobile})
    driver.get(f"{site_url}/{page}.html")
    if driver.execute_script("return localStorage.getItem('mode')") != mode:
        driver.execute_script("localStorage.setItem('mode', arguments[0]);", mode)
        driver.refresh()
    WebDriverWait(driver, 30).until(
        lambda d: d.execute_script("return document.readyState") == "complete")
    assert driver.execute_script("return document.documentElement.dataset.theme") == mode
    if not driver.execute_script("return typeof axe !== 'undefined'"):
        driver.execute_script(_axe_source())
    return driver.execute_async_script(
        SURVEY_SCRIPT + "\nsurvey(arguments[0]).then(arguments[arguments.length - 1]);",
        {"mobile": mobile, "width": width,
         "accepted": {rule: list(where) for rule, (where, _) in THEME_FINDINGS.items()}})


@pytest.fixture
def survey(request, visits):
    """The survey of one page in one view (one visit, shared by the tests below)."""
    page, view = request.param
    return visits.get(("survey", page, view))


def _parametrize_surveys(test):
    return pytest.mark.parametrize("survey", SURVEYS, ids=SURVEY_IDS, indirect=True)(test)


@_parametrize_surveys
def test_the_page_never_scrolls_sideways(survey):
    assert survey["overflow"] <= 0, f"the page is {survey['overflow']} px wider than the screen"


@_parametrize_surveys
def test_no_content_is_cut_off(survey):
    # Tables fit their column; inline formulas stay inside the text; nothing hides overflow.
    assert survey["cut"] == []


@_parametrize_surveys
def test_menus_open(survey):
    menus = survey["menus"]
    assert menus["primary_toggles"] == 1, "one sidebar button, or the script wires a hidden one"
    assert menus["primary_opens"], "the button for the chapter list does nothing"
    if menus["has_page_toc"] and survey["mobile"]:
        assert menus["secondary_opens"], "the 'On this page' button does nothing"


@_parametrize_surveys
def test_figures_are_sharp_and_their_text_legible(survey):
    figures = survey["figures"]
    assert [f["src"] for f in figures if f["bitmap"]] == [], "plots should be SVG, not bitmaps"
    textless = [f["src"] for f in figures if not f["bitmap"] and f["texts"] == 0]
    assert textless == [], "an SVG whose text is drawn as paths cannot be checked or searched"
    small = [(f["alt"][:60], round(f["min_text_px"], 1)) for f in figures
             if f["texts"] and f["min_text_px"] < MIN_TEXT_PX]
    assert small == [], f"figure text below {MIN_TEXT_PX} px as rendered"


@_parametrize_surveys
def test_a_figure_wider_than_its_box_says_so(survey):
    # A phone hides the scrollbar: a figure cut at the edge shows a fade or a hint.
    assert survey["uncued"] == []


@_parametrize_surveys
def test_captions_are_legible(survey):
    faint = [(c["text"][:50], round(c["contrast"], 2)) for c in survey["captions"]
             if c["contrast"] < MIN_CONTRAST]
    assert faint == []


@_parametrize_surveys
def test_cell_outputs_are_legible_in_both_colour_modes(survey):
    # Every text of every output, light and dark, against what is behind it (the review's
    # P2: operation names at 1.01:1 in dark mode).
    assert survey["output_contrast"] == []


@_parametrize_surveys
def test_no_faint_text_that_axe_left_undecided(survey):
    # What axe measured below the ratio the text needs but filed as "incomplete", not as a
    # violation (it did so with P2's names).
    assert survey["axe_incomplete_contrast"] == []


@_parametrize_surveys
def test_printing_gives_light_pages_in_either_mode(survey):
    # Ctrl+P in dark mode printed black pages or light grey text on white (the review's P4):
    # the page turns light for printing, and back to the reader's mode afterwards.
    printed = survey["printed"]
    assert printed["background_luminance"] > 0.9, "a dark page on paper"
    assert printed["contrast"] >= MIN_CONTRAST
    assert printed["mode_after"] == printed["mode_before"]


@_parametrize_surveys
def test_inline_code_breaks_only_between_words(survey):
    # On a phone a long name wraps at "/", "." or "_" or between CamelCase words, never
    # letter by letter (the review's P8: "Function.appl|y").
    assert survey["code_breaks"] == []


@_parametrize_surveys
def test_no_serious_accessibility_violation_of_our_own(survey):
    ours = []
    for violation in survey["axe"]:
        # (Whether an element is one the theme's findings name is asked of the element
        # itself in the page: axe's selector for it changes from page to page.)
        nodes = [target for target, accepted in zip(violation["targets"],
                                                    violation["accepted"]) if not accepted]
        if nodes:
            ours.append((violation["id"], violation["impact"], nodes[:5]))
    assert ours == []


def test_the_audit_finds_violations_and_accepts_only_the_theme_s_elements(tmp_path):
    # The audit itself, on a page made to fail it: an image without a text alternative
    # (axe's image-alt, critical), and two buttons whose label is not their visible text:
    # one the theme's (accepted), one of ours (not).
    (tmp_path / "page.html").write_text(
        '<!DOCTYPE html><html lang="en"><head><title>t</title></head><body><main>'
        '<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">'
        '<button class="search-button" aria-label="Search">Search Ctrl+K</button>'
        '<button class="ours" aria-label="Go">Stop now</button></main></body></html>')
    handler = functools.partial(QuietHandler, directory=str(tmp_path))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    driver = chromium(tmp_path / "profile")
    try:
        driver.set_script_timeout(60)
        driver.get(f"http://127.0.0.1:{server.server_address[1]}/page.html")
        driver.execute_script(_axe_source())
        found = driver.execute_async_script(
            SURVEY_SCRIPT + "\naccessibility(arguments[0]).then(arguments[arguments.length - 1]);",
            {rule: list(where) for rule, (where, _) in THEME_FINDINGS.items()})
    finally:
        driver.quit()
        server.shutdown()
        server.server_close()
    by_rule = {violation["id"]: dict(zip(violation["targets"], violation["accepted"]))
               for violation in found}
    assert by_rule["image-alt"] == {"img": False}
    assert sorted(by_rule["label-content-name-mismatch"].items()) == [
        (".ours", False), (".search-button", True)]


# ---------------------------------------------------------------------------------------------
# A reader's first visit of each page (the website review's P16 and P17): what it downloads,
# measured as scripts/site_weight.py measures it (a fresh Chromium, the cache disabled, every
# response's decoded bytes once the page, MathJax and the fonts have settled), and what the
# page shows and says about itself: its icons, its math, its description and preview tags.
# The 404 page is served as GitHub Pages serves it, for a missing address of the site.

import site_weight  # noqa: E402  (scripts/site_weight.py)

# A chapter's first visit downloaded 3.9 MB (the median; 4.1 MB at most, ch15) before the site
# stopped loading Font Awesome's script, the search index and MathJax's menu everywhere: the
# budget is about half of that, so that the weight does not creep back.
FIRST_VISIT_BUDGET = 2_000_000

FIRST_VISIT_JS = """
const meta = (key) => Array.from(document.querySelectorAll(
    `meta[name="${key}"], meta[property="${key}"]`)).map(m => m.getAttribute('content'));
const icons = Array.from(document.querySelectorAll('i[class*="fa-"], span[class*="fa-"]'))
  .filter(el => el.getClientRects().length > 0)
  .map(el => {
    const style = getComputedStyle(el, '::before');
    return {classes: el.className, content: style.content, family: style.fontFamily,
            weight: style.fontWeight};
  });
return {
  icons: icons,
  svg_icons: document.querySelectorAll('svg.svg-inline--fa').length,
  math: document.querySelectorAll('.math').length,
  typeset: document.querySelectorAll('mjx-container').length,
  math_errors: document.querySelectorAll('mjx-merror').length,
  viewport: meta('viewport').length,
  description: meta('description'),
  og: Object.fromEntries(['og:title', 'og:description', 'og:url', 'og:image', 'og:image:alt',
                          'og:site_name'].map(key => [key, meta(key)])),
  title: document.title,
};
"""


@pytest.fixture(scope="module")
def first_visits(site_url):
    import concurrent.futures

    browsers = int(os.environ.get("SITE_CHECK_BROWSERS", "2"))
    with concurrent.futures.ThreadPoolExecutor(browsers) as pool:
        visits = pool.map(lambda page: site_weight.first_visit(site_url, page, FIRST_VISIT_JS),
                          PAGES)
        return dict(zip(PAGES, visits))


@pytest.mark.parametrize("page", CHAPTERS)
def test_a_first_visit_downloads_under_the_budget_and_nothing_from_elsewhere(page, first_visits):
    visit = first_visits[page]
    heaviest = sorted(visit["files"].items(), key=lambda item: -item[1])[:3]
    assert visit["bytes"] <= FIRST_VISIT_BUDGET, f"{visit['bytes']} bytes; heaviest: {heaviest}"
    assert visit["foreign"] == [], "the site must work offline"
    assert visit["failed"] == []


def _font_awesome_glyphs():
    """{(font family, weight): code points} of the Font Awesome webfonts the site serves."""
    from fontTools.ttLib import TTFont

    fonts = HTML / "_static" / "vendor" / "fontawesome" / "webfonts"
    faces = {("Font Awesome 6 Free", "900"): "fa-solid-900.woff2",
             ("Font Awesome 6 Free", "400"): "fa-regular-400.woff2",
             ("Font Awesome 6 Brands", "400"): "fa-brands-400.woff2"}
    return {face: set(TTFont(fonts / name).getBestCmap()) for face, name in faces.items()}


@pytest.mark.parametrize("page", PAGES)
def test_icons_are_drawn_by_the_webfont_without_font_awesome_s_script(page, first_visits):
    visit = first_visits[page]
    assert not any(path.endswith("/fontawesome.js") for path in visit["files"])
    icons = visit["seen"]["icons"]
    # The header's buttons: the sidebar's, download, full screen, colour mode, search...
    assert len(icons) >= 5, f"only {len(icons)} icons shown"
    glyphs = _font_awesome_glyphs()
    missing = []
    for icon in icons:
        family = icon["family"].split(",")[0].strip().strip('"')
        if not family.startswith("Font Awesome"):
            continue
        codes = {ord(ch) for ch in icon["content"].strip('"')}
        if not codes or not codes <= glyphs.get((family, icon["weight"]), set()):
            missing.append(icon)
    drawn = [icon for icon in icons if icon["family"].startswith('"Font Awesome')]
    assert len(drawn) >= 5, "the header's icons should be Font Awesome's glyphs"
    assert missing == [], "an icon whose glyph the served font lacks shows as a blank box"


@pytest.mark.parametrize("page", PAGES)
def test_math_is_typeset_and_mathjax_loads_only_where_there_is_math(page, first_visits):
    visit = first_visits[page]
    seen = visit["seen"]
    loads_mathjax = any("/_static/mathjax/" in path for path in visit["files"])
    if seen["math"]:
        assert seen["typeset"] >= seen["math"], "a formula MathJax did not typeset"
        assert seen["math_errors"] == 0
    else:
        assert not loads_mathjax, "MathJax loaded on a page without math"


def test_only_the_search_page_loads_the_search_index_and_search_finds(first_visits, site_url,
                                                                      tmp_path):
    loading = [page for page, visit in first_visits.items()
               if any(path.endswith("/searchindex.js") for path in visit["files"])]
    assert loading == []
    driver = chromium(tmp_path / "profile")
    try:
        driver.get(f"{site_url}/search.html?q=AccumulateGrad")
        # Sphinx's search says "Search finished, found N page(s)..." once it has listed them.
        WebDriverWait(driver, 90).until(lambda d: d.execute_script(
            "const s = document.querySelector('#search-results .search-summary');"
            "return s !== null && s.innerText.startsWith('Search finished');"))
        found = driver.execute_script(
            "return document.querySelectorAll('#search-results ul.search li').length")
        errors = severe_messages(driver)
    finally:
        driver.quit()
    assert errors == []
    assert found >= 5, "AccumulateGrad is named in most chapters"


@pytest.mark.parametrize("page", PAGES)
def test_the_page_describes_itself_for_search_engines_and_link_previews(page, first_visits):
    seen = first_visits[page]["seen"]
    assert seen["viewport"] == 1
    assert len(seen["description"]) == 1 and len(seen["description"][0]) >= 40
    og = seen["og"]
    assert og["og:description"] == seen["description"]
    assert og["og:title"] and seen["title"].startswith(og["og:title"][0])
    assert og["og:site_name"] and "Project name not set" not in og["og:site_name"]
    if published():
        assert og["og:url"] and og["og:url"][0].endswith(f"{page}.html")
        assert og["og:image"] and og["og:image"][0].startswith("https://")
        assert og["og:image:alt"]
    else:  # the site's address is unknown: no tag holds a made-up one
        assert og["og:url"] == [] and og["og:image"] == []


def test_the_preview_picture_is_a_large_png():
    from PIL import Image

    with Image.open(HTML / "_static" / "og-image.png") as picture:
        assert picture.format == "PNG" and picture.size == (1200, 630)


def test_a_missing_address_gets_the_404_page_with_every_page_of_the_book(tmp_path):
    """Served as GitHub Pages serves a project site: under /REPO/, 404.html for any address
    that has no file, at any depth."""
    repository = yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]["url"]
    prefix = "/" + repository.rstrip("/").split("/")[-1]
    not_found = HTML / "404.html"
    assert not_found.exists(), "no 404.html in the built site"

    class PagesHandler(QuietHandler):
        def translate_path(self, path):
            if path.startswith(prefix + "/"):
                path = path[len(prefix):]
            return super().translate_path(path)

        def send_error(self, code, message=None, explain=None):
            if code != 404:
                return super().send_error(code, message, explain)
            body = not_found.read_bytes()
            self.send_response(404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    handler = functools.partial(PagesHandler, directory=str(HTML))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    site = f"http://127.0.0.1:{server.server_address[1]}{prefix}"
    collect = ("return {h1: Array.from(document.querySelectorAll('article h1'))"
               ".map(h => h.textContent).join(), links: Array.from(document.querySelectorAll("
               "'.not-found-pages a')).map(a => a.href), css: getComputedStyle("
               "document.querySelector('.bd-header') || document.body).display};")
    try:
        visit = site_weight.first_visit(site, "chapters/no-such-folder/no-such-page", collect)
        import urllib.request

        statuses = []
        for link in visit["seen"]["links"]:
            with urllib.request.urlopen(link) as response:
                statuses.append(response.status)
    finally:
        server.shutdown()
        server.server_close()
    page_itself = f"{prefix}/chapters/no-such-folder/no-such-page.html"
    assert visit["seen"]["h1"].startswith("Page not found")
    assert [path for path in visit["failed"] if path != page_itself] == [], \
        "the 404 page's stylesheets and scripts must load from any depth"
    assert any(path.endswith("pydata-sphinx-theme.css") for path in visit["files"])
    assert len(visit["seen"]["links"]) == len(PAGES)
    assert statuses == [200] * len(PAGES)
