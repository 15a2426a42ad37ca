#!/usr/bin/env python3
"""Chapter 4 as a student sees it on Binder: JupyterLab in headless Chromium.

    .venv/bin/python scripts/binder_lab_check.py      (make binder-check)

Uses the Binder simulation's environment and repository copy (scripts/binder_sim.py, set
up if needed), whose JupyterLab is the version repo2docker installs for Python 3.11
(scripts/binder-base-env.txt). Starts it on 127.0.0.1 with a token, then checks:

- the JupyterLab version is repo2docker's;
- chapters/*.md and README.md are files, not notebooks, for the server (jupytext), and
  saving a chapter through the contents API leaves its bytes unchanged;
- notebooks/ch04_backward.ipynb opens; the engine's code (``def execute``) is on screen as
  code; every solution is collapsed (its code not displayed) and opens when clicked.

Screenshots: .binder-sim/lab-ch04-engine.png, .binder-sim/lab-ch04-solution.png.
Needs selenium (the main .venv) and Debian's chromium and chromium-driver.
"""

import fcntl
import json
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import binder_sim  # noqa: E402
import chromium as headless  # noqa: E402  (scripts/chromium.py)



def expected_lab_version():
    for line in binder_sim.BASE_ENV.read_text().splitlines():
        if line.startswith("jupyterlab=="):
            return line.split("==")[1].strip()
    raise SystemExit("no jupyterlab pin in scripts/binder-base-env.txt")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def api(base, token, path, method="GET", body=None):
    request = urllib.request.Request(
        f"{base}/api/{path}", method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"token {token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read() or b"null")


def check_contents(base, token):
    chapter = api(base, token, "contents/chapters/ch04_backward.md?content=1")
    assert chapter["type"] == "file", f"a chapter opens as {chapter['type']}, not as a file"
    before = (binder_sim.REPO / "chapters" / "ch04_backward.md").read_bytes()
    api(base, token, "contents/chapters/ch04_backward.md", "PUT",
        {"type": "file", "format": "text", "content": chapter["content"]})
    after = (binder_sim.REPO / "chapters" / "ch04_backward.md").read_bytes()
    assert after == before, "saving a chapter changed its .md"
    readme = api(base, token, "contents/README.md?content=0")
    assert readme["type"] == "file", "README.md opens as a notebook"
    notebook = api(base, token, "contents/notebooks/ch04_backward.ipynb?content=0")
    assert notebook["type"] == "notebook"
    print("contents: chapters and README are text files; saving ch04 keeps its bytes")


def check_browser(base, token):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver = headless.start(binder_sim.SIM / "chromium-profile", window="1400,1000")
    try:
        driver.get(f"{base}/lab/tree/notebooks/ch04_backward.ipynb?token={token}")
        wait = WebDriverWait(driver, 120)
        notebook = "window.jupyterapp.shell.currentWidget.content"
        wait.until(lambda d: d.execute_script(
            f"try {{ return {notebook}.widgets.length > 40; }} catch (e) {{ return false; }}"))

        def show(text, block="start"):
            """Scroll JupyterLab's (windowed) notebook to the first cell containing text."""
            index = driver.execute_script(
                f"return {notebook}.widgets.findIndex("
                "c => c.model.sharedModel.getSource().includes(arguments[0]));", text)
            assert index >= 0, f"no cell contains {text!r}"
            driver.execute_async_script(
                f"const done = arguments[arguments.length - 1];"
                f"{notebook}.scrollToItem(arguments[0], arguments[1]).then(done, done);",
                index, block)
            time.sleep(1.5)
            return index

        show("def execute(")
        engine = [block for block in driver.find_elements(By.CSS_SELECTOR, ".jp-RenderedMarkdown pre")
                  if "def execute(" in block.get_attribute("textContent")]
        assert engine and engine[0].is_displayed(), "the engine's code is not on screen"
        driver.save_screenshot(str(binder_sim.SIM / "lab-ch04-engine.png"))
        print("engine: `def execute` shown as code in a rendered Markdown cell")

        state = driver.execute_script(
            f"const cells = {notebook}.widgets;"
            "return cells.map((c, i) => [i, c.model.sharedModel.getSource().startsWith('#### Solution'),"
            " c.model.sharedModel.getSource().includes('def backward_oldest_first'), c.isHidden]);")
        headings = [i for i, is_heading, _, _ in state if is_heading]
        assert len(headings) == 3, f"{len(headings)} solution headings in ch04, not 3"
        solution = [(i, hidden) for i, _, has_code, hidden in state if has_code]
        assert solution and all(hidden for _, hidden in solution), (
            "a solution's code is shown before it is opened")
        show("#### Solution", "center")
        heading = [cell for cell in driver.find_elements(By.CSS_SELECTOR, ".jp-MarkdownCell")
                   if cell.find_elements(By.XPATH, ".//h4[starts-with(normalize-space(), 'Solution')]")][0]
        assert not [el for el in driver.find_elements(By.CSS_SELECTOR, ".jp-Cell")
                    if "def backward_oldest_first" in el.text], "solution code on screen"
        driver.save_screenshot(str(binder_sim.SIM / "lab-ch04-solution.png"))
        button = heading.find_element(By.CSS_SELECTOR, ".jp-collapseHeadingButton")
        driver.execute_script("arguments[0].click();", button)
        WebDriverWait(driver, 10).until(lambda d: d.execute_script(
            f"return {notebook}.widgets.filter(c => c.model.sharedModel.getSource()"
            ".includes('def backward_oldest_first')).every(c => !c.isHidden);"))
        print("solutions: 3 collapsed headings, their code hidden; the first opens when clicked")
    finally:
        driver.quit()


def main():
    binder_sim.SIM.mkdir(exist_ok=True)
    with open(binder_sim.SIM / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        binder_sim.prepare()  # cached environment; a fresh copy of the repository
        jupyter = binder_sim.VENV / "bin" / "jupyter"
        version = subprocess.run([str(jupyter), "lab", "--version"], capture_output=True,
                                 text=True, env=binder_sim.clean_env()).stdout.strip()
        assert version == expected_lab_version(), (version, expected_lab_version())
        print(f"JupyterLab {version} (repo2docker's pin for Python 3.11)")
        port, token = free_port(), secrets.token_hex(16)
        log = open(binder_sim.SIM / "jupyterlab.log", "w")
        server = subprocess.Popen(
            [str(jupyter), "lab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
             f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={binder_sim.REPO}",
             "--allow-root", "--LabApp.expose_app_in_browser=True"],
            cwd=binder_sim.REPO, env=binder_sim.clean_env(), stdout=log,
            stderr=subprocess.STDOUT)
        base = f"http://127.0.0.1:{port}"
        try:
            for _ in range(120):
                try:
                    api(base, token, "status")
                    break
                except OSError:
                    time.sleep(0.5)
            else:
                raise SystemExit("JupyterLab did not start: see .binder-sim/jupyterlab.log")
            check_contents(base, token)
            check_browser(base, token)
        finally:
            server.terminate()
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()
    print(f"screenshots: {binder_sim.SIM / 'lab-ch04-engine.png'}, "
          f"{binder_sim.SIM / 'lab-ch04-solution.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
