"""The caches of ``make test`` (issue 25): each key changes with every input that can change a
result, and with nothing else; only passes are kept; a kept pass is reused, never a failure.

Runs in the fast suite: no browser, no Binder environment (the stages' keys are computed on
small sites and repositories made here).
"""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
# The PDF script needs pypdf, which `make test` installs and a Binder terminal lacks.
pytest.importorskip("pypdf", reason="the PDF cache needs pypdf (make test installs it)")
import binder_sim  # noqa: E402
import book_pdf  # noqa: E402
import passcache  # noqa: E402


@pytest.fixture(autouse=True)
def fresh_digests(monkeypatch):
    # Files change within these tests: no digest remembered from before.
    monkeypatch.setattr(passcache, "_file_digests", {})
    # Run inside a stage of `make test` (unit): what these tests' caches
    # report is not that stage's, so it must not reach its row of the table.
    monkeypatch.delenv("STAGE_NOTE", raising=False)
    # The caches are under test, also in a run with them switched off (PASS_CACHE=0 make test).
    monkeypatch.setattr(passcache, "ENABLED", True)
    monkeypatch.delenv("PASS_CACHE", raising=False)


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    passcache._file_digests.clear()


# --- passcache --------------------------------------------------------------------------------

def test_a_digest_changes_with_any_file_s_content_or_name(tmp_path):
    write(tmp_path / "a.txt", "one")
    write(tmp_path / "sub" / "b.txt", "two")
    key = passcache.digest(passcache.files(tmp_path, root=tmp_path))
    assert passcache.digest(passcache.files(tmp_path, root=tmp_path)) == key
    write(tmp_path / "sub" / "b.txt", "two!")
    changed = passcache.digest(passcache.files(tmp_path, root=tmp_path))
    assert changed != key
    (tmp_path / "sub" / "b.txt").rename(tmp_path / "sub" / "c.txt")
    assert passcache.digest(passcache.files(tmp_path, root=tmp_path)) not in (key, changed)
    os.utime(tmp_path / "a.txt", (0, 0))  # a modification time is not content
    passcache._file_digests.clear()
    assert passcache.digest(passcache.files(tmp_path, root=tmp_path)) == passcache.digest(
        passcache.files(tmp_path, root=tmp_path))


def test_a_store_keeps_what_was_put_under_its_key_and_merges_two_writers(tmp_path):
    first, second = passcache.Store("s", tmp_path), passcache.Store("s", tmp_path)
    first.put("a", "k1", {"seconds": 1})
    second.put("b", "k2")
    first.save()
    second.save()  # does not lose first's entry
    again = passcache.Store("s", tmp_path)
    assert again.get("a", "k1") == {"seconds": 1}
    assert again.get("a", "other key") is None
    assert again.get("b", "k2") is True
    again.drop("a")
    again.save()
    assert passcache.Store("s", tmp_path).get("a", "k1") is None


def test_pass_cache_0_reuses_nothing(tmp_path, monkeypatch):
    store = passcache.Store("s", tmp_path)
    store.put("a", "k")
    store.save()
    monkeypatch.setattr(passcache, "ENABLED", False)
    assert passcache.Store("s", tmp_path).get("a", "k") is None


# --- stages.py --pass-key ---------------------------------------------------------------------

def stage(tmp_path, key, command):
    env = {**os.environ, "STAGES_FILE": str(tmp_path / "stages.tsv"),
           "PASS_CACHE_DIR": str(tmp_path / "cache")}
    return subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "stages.py"), "run", "unit",
         "--pass-key", f"echo {key}", "--", "sh", "-c", command],
        env=env, capture_output=True, text=True)


def test_a_stage_that_passed_is_not_run_again_with_the_same_key(tmp_path):
    ran = tmp_path / "ran"
    command = f"echo x >> {ran}"
    assert stage(tmp_path, "k1", command).returncode == 0
    assert stage(tmp_path, "k1", command).returncode == 0
    assert ran.read_text().count("x") == 1
    rows = (tmp_path / "stages.tsv").read_text().splitlines()
    assert rows[-1].split("\t")[2] == "passed before, same inputs"
    assert stage(tmp_path, "k2", command).returncode == 0  # a changed input: run again
    assert ran.read_text().count("x") == 2


def test_a_pass_is_kept_under_the_key_as_the_stage_left_its_inputs(tmp_path):
    """A build writes the site that its key reads: the key is taken again after the stage
    ran, so the next run, with nothing changed since, finds the pass."""
    site, ran = tmp_path / "site", tmp_path / "ran"
    env = {**os.environ, "STAGES_FILE": str(tmp_path / "stages.tsv"),
           "PASS_CACHE_DIR": str(tmp_path / "cache")}

    def build():
        return subprocess.run(
            [sys.executable, str(ROOT / "scripts" / "stages.py"), "run", "build-all",
             "--pass-key", f"cat {site} 2>/dev/null || echo absent", "--", "sh", "-c",
             f"echo built > {site}; echo x >> {ran}"],
            env=env, capture_output=True, text=True)

    assert build().returncode == 0 and build().returncode == 0
    assert ran.read_text().count("x") == 1  # the second run found the first's pass
    site.write_text("changed")
    assert build().returncode == 0 and ran.read_text().count("x") == 2


def test_a_stage_that_failed_is_run_again(tmp_path):
    ran = tmp_path / "ran"
    command = f"echo x >> {ran}; exit 3"
    assert stage(tmp_path, "k1", command).returncode == 3
    assert stage(tmp_path, "k1", command).returncode == 3
    assert ran.read_text().count("x") == 2


def test_a_stage_s_own_note_fills_the_cached_column(tmp_path):
    command = 'echo "3/5 pages cached" >> "$STAGE_NOTE"'
    assert stage(tmp_path, "k1", command).returncode == 0
    assert (tmp_path / "stages.tsv").read_text().split("\t")[2] == "3/5 pages cached"


def test_a_stage_s_cpu_seconds_count_the_processes_below_it(tmp_path):
    # Two processes side by side under the stage's shell, each busy for about 0.3 s of CPU.
    busy = f"{sys.executable} -c 'import time; t = time.process_time(); "
    busy += "exec(\"while time.process_time() - t < 0.3: pass\")'"
    assert stage(tmp_path, "k1", f"{busy} & {busy}; wait").returncode == 0
    row = (tmp_path / "stages.tsv").read_text().split("\t")
    assert 0.55 <= float(row[5]) <= 2.0, row
    table = subprocess.run([sys.executable, str(ROOT / "scripts" / "stages.py"), "table"],
                           env={**os.environ, "STAGES_FILE": str(tmp_path / "stages.tsv")},
                           capture_output=True, text=True).stdout
    assert " cpu " in table.splitlines()[1]


# --- the site's keys (pdf-check and site-check) -----------------------------------------------

def site(tmp_path):
    html = tmp_path / "html"
    for page in ("index", "chapters/a", "chapters/b"):
        write(html / f"{page}.html", f"<p>{page}</p>")
    write(html / "chapters" / "b.html", '<p>b</p><img src="../_images/fig.svg">')
    write(html / "_static" / "book.css", "p {}")
    write(html / "_images" / "fig.svg", "<svg/>")
    write(html / "searchindex.js", "index")
    write(html / "_sources" / "chapters" / "a.md", "source")
    return html


def pdf_keys(html):
    shared = book_pdf.inputs_key(html)
    return {page: book_pdf.page_key(page, shared, html)
            for page in ("index", "chapters/a", "chapters/b")}


def test_a_page_s_print_key_changes_with_its_html_its_figures_and_what_every_page_loads(
        tmp_path):
    html = site(tmp_path)
    before = pdf_keys(html)
    write(html / "chapters" / "a.html", "<p>changed</p>")
    after = pdf_keys(html)
    assert [page for page in before if before[page] != after[page]] == ["chapters/a"]
    write(html / "_static/book.css", "changed")  # every page loads it
    changed = pdf_keys(html)
    assert all(changed[page] != after[page] for page in after)
    write(html / "_images/fig.svg", "<svg>changed</svg>")  # only b shows it
    again = pdf_keys(html)
    assert [page for page in again if again[page] != changed[page]] == ["chapters/b"]


def test_files_no_page_loads_are_not_in_any_key(tmp_path):
    html = site(tmp_path)
    before = pdf_keys(html)
    write(html / "searchindex.js", "another index")
    write(html / "_sources" / "chapters" / "a.md", "another source")
    assert pdf_keys(html) == before


def test_kept_prints_are_merged_without_a_browser_and_a_changed_page_is_printed(
        tmp_path, monkeypatch):
    from pypdf import PdfReader, PdfWriter

    html = site(tmp_path)
    pages = ["index", "chapters/a", "chapters/b"]
    monkeypatch.setattr(book_pdf, "HTML", html)
    monkeypatch.setattr(book_pdf, "toc_pages", lambda root=None: pages)
    monkeypatch.setattr(book_pdf, "ROOT", tmp_path)
    write(tmp_path / "_config.yml", "title: A book\n")
    monkeypatch.setattr(book_pdf, "toc_parts",
                        lambda root=None: [(None, pages[:1]), ("Part one", pages[1:])])
    # The cover and contents (their own print, kept under their HTML's hash) made constant.
    monkeypatch.setattr(book_pdf, "version", lambda root=None: ("abc1234", "2026-12-06"))
    monkeypatch.setattr(book_pdf, "licence_lines", lambda html=None: "A licence.")
    monkeypatch.setattr(book_pdf, "front_html", lambda *args: "FRONT")
    printed = []

    def no_browser():
        raise AssertionError("a page was printed again")

    monkeypatch.setattr(book_pdf, "chromium", no_browser)
    out = tmp_path / "pdf"
    kept = out / book_pdf.PAGES_DIR
    kept.mkdir(parents=True)
    shared = book_pdf.inputs_key(html)
    for page in pages:
        key = book_pdf.page_key(page, shared, html)
        name = f"{book_pdf.anchor_prefix(page)}{key}"
        info = {"title": page, "base": "http://127.0.0.1:1", "page": page, "sections": []}
        for edition in book_pdf.EDITIONS:
            writer = PdfWriter()
            writer.add_blank_page(100, 100)
            info[edition] = f"{name}-{edition}.pdf"
            with open(kept / info[edition], "wb") as stream:
                writer.write(stream)
        (kept / f"{name}.json").write_text(json.dumps(info))
    writer = PdfWriter()  # a cover and a page of contents
    writer.add_blank_page(100, 100)
    writer.add_blank_page(100, 100)
    with open(kept / f"front--{passcache.digest(shared, 'FRONT')}.pdf", "wb") as stream:
        writer.write(stream)
    paths = book_pdf.build(out=out, log=printed.append)
    assert printed[-1] == "3/3 pages' prints reused"

    def titles(outline):
        return [titles(item) if isinstance(item, list) else item.title for item in outline]

    for path in paths.values():
        reader = PdfReader(path)
        assert len(reader.pages) == 5  # the front's two, then the three pages'
        assert titles(reader.outline) == ["Contents", "index", "Part one",
                                          ["chapters/a", "chapters/b"]]
    write(html / "chapters" / "b.html", "<p>changed</p>")
    with pytest.raises(AssertionError, match="printed again"):
        book_pdf.build(out=out, log=printed.append)


# --- the stages' keys (make test) -------------------------------------------------------------

def test_a_stage_key_changes_with_the_repository_the_settings_and_its_site(
        tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    write(repo / "code" / "a.py", "x = 1\n")
    write(repo / ".gitignore", "_build/\n")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    write(repo / "_build" / "html" / "index.html", "<p>one</p>")
    monkeypatch.delenv("TOYGRAD_STATEFUL_EXAMPLES", raising=False)

    def keys():
        passcache._file_digests.clear()
        return {stage: passcache.stage_key(stage, repo) for stage in passcache.STAGES}

    before = keys()
    assert keys() == before  # nothing changed: the same keys
    assert len(set(before.values())) == len(before)  # one key a stage
    write(repo / "code" / "a.py", "x = 2\n")  # a file of the repository
    changed = keys()
    assert all(changed[s] != before[s] for s in passcache.STAGES)
    write(repo / "_build" / "html" / "index.html", "<p>two</p>")  # the site's content
    site = keys()
    assert site["site-check"] != changed["site-check"]
    assert {s: k for s, k in site.items() if s != "site-check"} == {
        s: k for s, k in changed.items() if s != "site-check"}
    write(repo / "_build" / "html" / "page.html", "<p>new</p>")  # a page more
    assert keys()["build-all"] != site["build-all"]
    site = keys()
    for page in ("chapters/ch01_a.md", "intro.md", "_toc.yml"):  # a page of the book
        write(repo / page, f"# {page}\n")
        text = keys()
        assert text["unit"] == site["unit"]  # the tests that do not read pages
        assert all(text[s] != site[s] for s in passcache.STAGES if s != "unit"), page
        site = text
    monkeypatch.setenv("TOYGRAD_STATEFUL_EXAMPLES", "600")  # a setting of the tests
    with_setting = keys()
    monkeypatch.delenv("TOYGRAD_STATEFUL_EXAMPLES")
    assert keys()["unit"] != with_setting["unit"]


def test_the_lab_check_runs_again_for_chapter_4_and_what_its_notebook_shows_of_others(
        tmp_path):
    # binder-check opens chapter 4 in JupyterLab: its notebook is made from ch04, the code,
    # the table of contents and the titles of the sections it refers to ({ref}), not from
    # the other chapters' prose.
    repo = tmp_path / "repo"
    write(repo / "code" / "a.py", "x = 1\n")
    write(repo / "_toc.yml", "format: jb-book\nroot: intro\nparts:\n  - numbered: true\n"
          "    chapters:\n      - file: chapters/ch03_recording\n"
          "      - file: chapters/ch04_backward\n")
    write(repo / "intro.md", "# The book\n")
    write(repo / "chapters" / "ch03_recording.md", "# Recording\n\n(ch03-tape)=\n## The tape\n\nProse.\n")
    write(repo / "chapters" / "ch04_backward.md", "# Backward\n\nSee {ref}`ch03-tape`.\n")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)

    def key():
        passcache._file_digests.clear()
        return passcache.stage_key("binder-check", repo)

    def runs_again(name, text):
        before = key()
        old = (repo / name).read_text()
        write(repo / name, text)
        changed = key() != before
        write(repo / name, old)
        assert key() == before
        return changed

    ch03 = (repo / "chapters" / "ch03_recording.md").read_text()
    assert not runs_again("chapters/ch03_recording.md", ch03.replace("Prose.", "Other prose."))
    assert not runs_again("intro.md", "# The book, again\n")
    assert runs_again("chapters/ch03_recording.md", ch03.replace("The tape", "The record"))
    assert runs_again("chapters/ch04_backward.md", "# Backward\n\nSee it.\n")
    assert runs_again("_toc.yml", "format: jb-book\nroot: intro\n")
    assert runs_again("code/a.py", "x = 2\n")


def test_every_stage_of_make_test_but_setup_has_a_pass_key():
    makefile = (ROOT / "Makefile").read_text()
    for stage in passcache.STAGES:
        assert f"$(STAGE) {stage} " in makefile
        line = next(line for line in makefile.splitlines()
                    if f"$(STAGE) {stage} " in line)
        assert f"$(call passkey,{stage})" in line, stage


def test_a_tool_s_version_is_what_it_prints_not_the_noise_on_its_error_stream():
    # Debian's chromium launcher prints the free space of /dev/shm on stderr (a shell error);
    # when that number was part of every visit's key, a run after a busy one re-made them all.
    noisy = [sys.executable, "-c", "import sys, time; print('Tool 1.2.3'); "
             "print(time.perf_counter_ns(), file=sys.stderr)"]
    first, second = passcache._tool_version(*noisy), passcache._tool_version(*noisy)
    assert first == second == "Tool 1.2.3"
    other = [sys.executable, "-c", "print('Tool 1.2.4')"]
    assert passcache._tool_version(*other) != first
    assert passcache._tool_version("/nonexistent/tool", "--version") == "no /nonexistent/tool"


def test_the_tests_that_read_pages_are_run_apart_and_the_others_cannot_read_them(tmp_path):
    readers = passcache.page_readers()
    assert {"tests/test_snapshots.py", "tests/test_book.py"} <= set(readers)
    assert "tests/test_tensor.py" not in readers
    # A test that opens a page without naming the pages (the path is built from pieces)
    # fails in the unit stage's run, with the reason; elsewhere it passes.
    (tmp_path / "conftest.py").write_text(textwrap.dedent(f"""\
        import importlib.util, sys
        sys.path.insert(0, {str(ROOT / "tests")!r})
        spec = importlib.util.spec_from_file_location("book_conftest", {str(ROOT / "tests" / "conftest.py")!r})
        spec.loader.exec_module(importlib.util.module_from_spec(spec))
        """))
    (tmp_path / "test_sly.py").write_text(textwrap.dedent(f"""\
        from pathlib import Path

        def test_reads_a_page():
            assert Path({str(ROOT)!r}, "chap" + "ters", "ch01_question.md").read_text()
        """))
    env = {key: value for key, value in os.environ.items() if key != "UNIT_WITHOUT_PAGES"}
    run = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    free = subprocess.run(run, cwd=tmp_path, env=env, capture_output=True, text=True)
    assert free.returncode == 0, free.stdout + free.stderr
    pages = " ".join(passcache.PAGES)
    guarded = subprocess.run(run, cwd=tmp_path, env={**env, "UNIT_WITHOUT_PAGES": pages},
                             capture_output=True, text=True)
    assert guarded.returncode == 1
    assert "a page of the book, but its module does not name the pages" in guarded.stdout
