"""Headless Chromium for the book's browser checks (the site check, the PDFs, JupyterLab).

Debian's ``chromium`` and ``chromium-driver``; without the background-networking flags
Chromium tries to reach Google's hosts, which this machine's closed network refuses.
"""

from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def available():
    return Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()


def start(profile, window="1280,900", console_log=False):
    """A Selenium driver for a fresh Chromium whose profile lives in ``profile``."""
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = CHROMIUM
    for flag in FLAGS + [f"--window-size={window}", f"--user-data-dir={profile}"]:
        options.add_argument(flag)
    if console_log:
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
