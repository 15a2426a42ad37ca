"""The built website, checked the way a reader sees it: in headless Chromium.

Serves ``_build/html`` on localhost, opens every page listed in ``_toc.yml`` and fails on a
JavaScript console error, an image that did not load (natural width 0), a chapter without a
launch button, or an exercise solution that is visible before the reader opens it.

Needs a built site (``make book``) and Debian's ``chromium`` and ``chromium-driver``
(``make test`` installs them).
"""

import functools
import http.server
import os
import sys
import threading
from pathlib import Path

import pytest

# Browser-only tests: where selenium or Chromium is absent (a Binder terminal, where
# students run `pytest -m chNN`), this module skips instead of failing at collection.
pytest.importorskip("selenium", reason="the site check needs selenium (make test installs it)")
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import chromium as headless  # noqa: E402  (scripts/chromium.py)
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


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    driver = chromium(tmp_path_factory.mktemp("chromium-profile"))
    yield driver
    driver.quit()


def chromium(profile):
    """Headless Chromium with its own profile, keeping the console log."""
    return headless.start(profile, console_log=True)


@pytest.fixture
def page(request, browser, site_url):
    """Open one page, wait until its scripts have settled, and return the console log."""
    browser.get_log("browser")  # drop what earlier pages left behind
    browser.get(f"{site_url}/{request.param}.html")
    WebDriverWait(browser, 30).until(lambda d: d.execute_script("return document.readyState") == "complete")
    # MathJax typesets after load; wait for it (and a moment for late console messages).
    browser.execute_async_script(
        """
        const done = arguments[arguments.length - 1];
        const typeset = (window.MathJax && MathJax.startup && MathJax.startup.promise) || Promise.resolve();
        typeset.then(() => setTimeout(done, 300), () => setTimeout(done, 300));
        """
    )
    return browser


def severe_messages(browser):
    return [entry["message"] for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]


@pytest.mark.parametrize("page", PAGES, indirect=True)
def test_no_console_errors(page):
    assert severe_messages(page) == []


@pytest.mark.parametrize("page", PAGES, indirect=True)
def test_every_image_loaded(page):
    images = page.execute_script(
        "return Array.from(document.images).map(img => [img.getAttribute('src'), img.complete, img.naturalWidth]);"
    )
    assert images, "no images on the page at all (the logo should be there)"
    broken = [src for src, complete, width in images if not complete or width == 0]
    assert broken == []


@pytest.mark.parametrize("page", CHAPTERS, indirect=True)
def test_chapter_has_launch_buttons(page):
    # Binder opens the student notebook that binder/postBuild writes (_ext/binder_launch.py).
    source = "notebooks/" + page.current_url.rsplit("/", 1)[1].removesuffix(".html") + ".ipynb"
    links = [a.get_attribute("href") for a in page.find_elements(By.CSS_SELECTOR, ".dropdown-launch-buttons a")]
    binder = [href for href in links if href.startswith("https://mybinder.org/v2/gh/")]
    assert binder, f"no Binder launch button among {links}"
    assert all(href.endswith(source) for href in binder), binder


@pytest.mark.parametrize("page", WITH_SOLUTIONS, indirect=True)
def test_solutions_hidden_until_opened(page):
    solutions = page.find_elements(By.CSS_SELECTOR, "div.solution")
    assert solutions, "a chapter has exercises with solutions"
    for solution in solutions:
        body = solution.find_elements(By.XPATH, "./*[not(contains(@class, 'admonition-title'))]")
        assert body, "solution without content"
        assert not any(part.is_displayed() for part in body), "solution visible before it is opened"
        # A reader clicks the title ("Solution to Exercise 7.2 (...)"), whose middle is a
        # link back to the exercise: the click must open the solution, not jump away.
        title = solution.find_element(By.CSS_SELECTOR, ".admonition-title")
        target = (title.find_elements(By.CSS_SELECTOR, "a") or [title])[0]
        page.execute_script("arguments[0].scrollIntoView({block: 'center'});", target)
        url = page.current_url
        ActionChains(page).move_to_element(target).click().perform()
        WebDriverWait(page, 5).until(lambda _: all(part.is_displayed() for part in body))
        assert page.current_url == url


@pytest.mark.parametrize("page", ["chapters/ch07_graphs"], indirect=True)
def test_backward_stepper_works_without_a_kernel(page):
    stepper = page.find_element(By.CSS_SELECTOR, ".toygrad-stepper")
    frames = stepper.find_elements(By.CSS_SELECTOR, ".stepper-frame")
    slider = stepper.find_element(By.CSS_SELECTOR, ".stepper-slider")
    last = len(frames) - 1
    assert last >= 3

    def visible():
        return [i for i, frame in enumerate(frames) if frame.is_displayed()]

    page.execute_script("arguments[0].scrollIntoView({block: 'center'});", stepper)
    assert visible() == [0]
    stepper.find_element(By.CSS_SELECTOR, ".stepper-next").click()
    assert visible() == [1] and slider.get_attribute("value") == "1"
    stepper.find_element(By.CSS_SELECTOR, ".stepper-previous").click()
    assert visible() == [0]
    page.execute_script(
        "arguments[0].value = arguments[1];"
        "arguments[0].dispatchEvent(new Event('input'));", slider, last)
    assert visible() == [last]
    next_button = stepper.find_element(By.CSS_SELECTOR, ".stepper-next")
    assert not next_button.is_enabled()  # the last step: "next" says it does nothing
    assert visible() == [last]
    position = stepper.find_element(By.CSS_SELECTOR, ".stepper-position")
    assert position.text == f"step {last} of {last}"
    assert position.get_attribute("aria-live") == "polite"  # a screen reader hears the step
    caption = frames[last].find_element(By.CSS_SELECTOR, "figcaption").text
    assert slider.get_attribute("aria-valuetext") == caption
    assert slider.size["height"] >= 24  # a touch target
    page.execute_script(
        "arguments[0].value = 0; arguments[0].dispatchEvent(new Event('input'));", slider)
    assert not stepper.find_element(By.CSS_SELECTOR, ".stepper-previous").is_enabled()
    # On paper every step is shown, without the controls.
    page.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    try:
        assert visible() == list(range(last + 1))
        assert not stepper.find_element(By.CSS_SELECTOR, ".stepper-controls").is_displayed()
    finally:
        page.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})


# ---------------------------------------------------------------------------------------------
# Every page as a phone and a desktop show it, in light and in dark mode.
#
# Each (page, view) is opened once, in its own Chromium, and surveyed by one script; the tests
# below each assert one part of the survey, so a failure names what a reader would meet.

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
        (".search-button", ".theme-switch-button", "summary"),
        "pydata-sphinx-theme labels its search button 'Search' beside the visible text "
        "'Search Ctrl+K', its colour switch by the mode, and MyST-NB's 'Show code cell' "
        "summaries 'Toggle hidden content'",
    ),
}

SURVEY_SCRIPT = (Path(__file__).with_name("site_survey.js")).read_text()


@pytest.fixture(scope="module")
def survey_browser(tmp_path_factory):
    driver = chromium(tmp_path_factory.mktemp("chromium-survey"))
    driver.set_script_timeout(120)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def surveys():
    return {}


def _axe_source():
    import selenium_axe_python

    return (Path(selenium_axe_python.__file__).parent / "axe-core" / "axe.min.js").read_text()


@pytest.fixture
def survey(request, survey_browser, site_url, surveys):
    """What a reader meets on one page in one view (see tests/site_survey.js)."""
    page, view = request.param
    if (page, view) not in surveys:
        width, height, mobile, mode = VIEWS[view]
        driver = survey_browser
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
        surveys[page, view] = driver.execute_async_script(
            SURVEY_SCRIPT + "\nsurvey(arguments[0]).then(arguments[arguments.length - 1]);",
            {"mobile": mobile, "width": width})
    return surveys[page, view]


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
def test_captions_are_legible(survey):
    faint = [(c["text"][:50], round(c["contrast"], 2)) for c in survey["captions"]
             if c["contrast"] < MIN_CONTRAST]
    assert faint == []


@_parametrize_surveys
def test_no_serious_accessibility_violation_of_our_own(survey):
    ours = []
    for violation in survey["axe"]:
        accepted = THEME_FINDINGS.get(violation["id"], ((), ""))[0]
        nodes = [target for target in violation["targets"]
                 if not any(selector in target for selector in accepted)]
        if nodes:
            ours.append((violation["id"], violation["impact"], nodes[:5]))
    assert ours == []
