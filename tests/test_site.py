"""The built website, checked the way a reader sees it: in headless Chromium.

Serves ``_build/html`` on localhost, opens every page listed in ``_toc.yml`` and fails on a
JavaScript console error, an image that did not load (natural width 0), a chapter without a
launch button, or an exercise solution that is visible before the reader opens it.

Needs a built site (``make book``) and Debian's ``chromium`` and ``chromium-driver``
(``make test`` installs them).
"""

import functools
import http.server
import threading
from pathlib import Path

import pytest
import yaml

# Browser-only tests: where selenium or Chromium is absent (a Binder terminal, where
# students run `pytest -m chNN`), this module skips instead of failing at collection.
pytest.importorskip("selenium", reason="the site check needs selenium (make test installs it)")
from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.options import Options  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
HTML = ROOT / "_build" / "html"
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"

pytestmark = [
    pytest.mark.site,
    pytest.mark.skipif(not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()),
                       reason="the site check needs Debian's chromium and chromium-driver"),
]
# Without the background-networking flags Chromium tries to reach Google's hosts, which this
# machine's closed network refuses.
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--window-size=1280,900",
]


def toc_pages():
    """Every page in _toc.yml, root first, as paths without suffix."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
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


PAGES = toc_pages()
CHAPTERS = PAGES[1:]


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
    options = Options()
    options.binary_location = CHROMIUM
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    yield driver
    driver.quit()


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


@pytest.mark.parametrize("page", CHAPTERS, indirect=True)
def test_solutions_hidden_until_opened(page):
    solutions = page.find_elements(By.CSS_SELECTOR, "div.solution")
    assert solutions, "a chapter has exercises with solutions"
    for solution in solutions:
        body = solution.find_elements(By.XPATH, "./*[not(contains(@class, 'admonition-title'))]")
        assert body, "solution without content"
        assert not any(part.is_displayed() for part in body), "solution visible before it is opened"
        button = solution.find_element(By.CSS_SELECTOR, "button.toggle-button")
        page.execute_script("arguments[0].scrollIntoView({block: 'center'});", button)
        button.click()
        WebDriverWait(page, 5).until(lambda _: all(part.is_displayed() for part in body))


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
    stepper.find_element(By.CSS_SELECTOR, ".stepper-next").click()
    assert visible() == [last]  # stays on the last step
    assert "step" in stepper.find_element(By.CSS_SELECTOR, ".stepper-position").text
