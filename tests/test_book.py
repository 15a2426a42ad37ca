"""The book's sources keep the promises in CONTRIBUTING.md: every chapter is a MyST notebook
in the table of contents, with one title, chapter-prefixed labels and the page anatomy
instructors rely on (objectives, prerequisites, time, exercises with solutions, summary)."""

import re
import sys
from pathlib import Path

import pytest
import yaml

import toygrad

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "chapters").glob("ch*.md"))
# Appendix pages (chapters/appendix_*.md) are reference, not lessons: a lighter anatomy.
APPENDICES = sorted((ROOT / "chapters").glob("appendix_*.md"))


def toc_files():
    """The pages _toc.yml lists after the front page (the walk of scripts/book_pdf.py)."""
    sys.path.insert(0, str(ROOT / "scripts"))
    from book_pdf import toc_pages

    return toc_pages()[1:]


def test_toygrad_is_the_package_in_code():
    # `code/` is a folder, never an import name; the package comes from code/toygrad.
    assert Path(toygrad.__file__).resolve().parent == ROOT / "code" / "toygrad"


def test_every_chapter_is_in_the_toc_and_every_toc_entry_exists():
    listed = toc_files()
    assert sorted(listed) == sorted(f"chapters/{path.stem}" for path in CHAPTERS + APPENDICES)
    for entry in listed:
        assert (ROOT / f"{entry}.md").exists()
        assert not (ROOT / f"{entry}.ipynb").exists(), "a .md and an .ipynb of one name break the build"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_chapter_anatomy(path):
    text = path.read_text()
    front = yaml.safe_load(text.split("---\n")[1])
    assert front["kernelspec"]["name"] == "python3"
    assert front["jupytext"]["text_representation"]["format_name"] == "myst"

    body = re.sub(r"```.*?```", "", text, flags=re.S)  # headings inside code do not count
    assert len(re.findall(r"^# ", body, flags=re.M)) == 1, "one H1 per page"

    prefix = path.stem.split("_")[0]  # ch01
    labels = re.findall(r"^\((.+?)\)=$", text, flags=re.M) + re.findall(r"^:label: (\S+)", text, flags=re.M)
    assert labels and all(label.startswith(f"{prefix}-") for label in labels), labels

    assert "Learning objectives" in text
    assert "**Prerequisites**" in text
    assert "**Time to learn:**" in text
    assert re.search(r"^## Summary", text, flags=re.M)
    exercises = re.findall(r"^:::\{exercise\}", text, flags=re.M)
    solutions = re.findall(r"^````\{solution-start\} (\S+)\n:class: dropdown", text, flags=re.M)
    assert len(exercises) >= 2 and len(solutions) == len(exercises)


@pytest.mark.parametrize("path", APPENDICES, ids=lambda p: p.stem)
def test_appendix_anatomy(path):
    text = path.read_text()
    front = yaml.safe_load(text.split("---\n")[1])
    assert front["kernelspec"]["name"] == "python3"
    assert front["jupytext"]["text_representation"]["format_name"] == "myst"

    body = re.sub(r"```.*?```", "", text, flags=re.S)
    assert len(re.findall(r"^# ", body, flags=re.M)) == 1, "one H1 per page"

    prefix = path.stem.replace("_", "-")  # appendix-support
    labels = re.findall(r"^\((.+?)\)=$", text, flags=re.M) + re.findall(r"^:label: (\S+)", text, flags=re.M)
    assert labels and all(label == prefix or label.startswith(f"{prefix}-") for label in labels), labels
    if path.stem != "appendix_glossary":  # a list of definitions, not a text to sum up
        assert re.search(r"^## Summary", text, flags=re.M)


GLOSSARY = ROOT / "chapters" / "appendix_glossary.md"


def glossary_terms():
    block = re.search(r"^```\{glossary\}\n(.*?)^```", GLOSSARY.read_text(), flags=re.M | re.S)[1]
    return re.findall(r"^(\S.*)$", block, flags=re.M)


def test_every_glossary_term_is_linked_from_a_chapter():
    terms = glossary_terms()
    assert len(terms) >= 25
    linked = set()
    for path in CHAPTERS:
        for role in re.findall(r"\{term\}`([^`]+)`", path.read_text()):
            target = re.search(r"<([^>]+)>$", role)
            linked.add((target[1] if target else role).strip().lower())
    assert [term for term in terms if term.lower() not in linked] == []


PAGE_WIDTH = 79  # characters a code box on the website shows without scrolling


def test_code_fits_the_page():
    too_wide = []
    for path in CHAPTERS + APPENDICES:
        for cell in re.findall(r"```\{code-cell\}[^\n]*\n(.*?)```", path.read_text(), flags=re.S):
            too_wide += [(path.name, line) for line in cell.splitlines()
                         if len(line) > PAGE_WIDTH and not line.lstrip().startswith(("alt:", "caption:"))]
    for path in sorted((ROOT / "code" / "toygrad").rglob("*.py")):
        too_wide += [(path.name, line) for line in path.read_text().splitlines() if len(line) > PAGE_WIDTH]
    assert too_wide == []


def test_each_building_chapter_names_its_tasks():
    # The book's pages and the table of tasks (tests/tasks.py) say the same.
    from tasks import TASKS

    for page in CHAPTERS:
        text = page.read_text()
        number = int(page.name[2:4])
        named = set(re.findall(r"\*\*Task (\d+\.\d+)\*\*", text))
        assert named == {task.id for task in TASKS if task.chapter == number}, page.name
        for task in (task for task in TASKS if task.chapter == number):
            assert f"**Task {task.id}**, {task.title}: `{task.qualname}`" in text
            assert f"`pytest -m {task.marker}`" in text and f"{{ref}}`{task.section}`" in text


def test_time_to_learn_comes_from_the_stated_model():
    # Three figures per chapter (read, exercises, tasks) from scripts/study_time.py's
    # model; the intro's total agrees (`python scripts/study_time.py --write` writes them).
    sys.path.insert(0, str(ROOT / "scripts"))
    import study_time

    for path in CHAPTERS:
        assert study_time.time_line(path) in path.read_text().splitlines(), (
            f"{path.name}: run python scripts/study_time.py --write")
    hours = re.search(r"about (\d+) hours", (ROOT / "intro.md").read_text())
    assert hours and int(hours[1]) == round(study_time.total_minutes() / 60)


def test_no_cross_reference_inside_an_exercise_statement():
    """The theme draws an exercise's statement on a tinted box whose link colour fails
    WCAG AA contrast in light mode (the site check's axe finds it); name the section in
    words there instead. Solutions, outside the box, may link."""
    found = []
    for page in CHAPTERS:
        text = page.read_text()
        for statement in re.findall(r":::\{exercise\}.*?\n:::\n", text, re.S):
            if "{ref}" in statement:
                found.append((page.name, statement.splitlines()[0]))
    assert found == []


# Navigation that cannot go stale (issue 28, point 7).

NUMBER_WORDS = {12: "twelve", 13: "thirteen", 14: "fourteen", 15: "fifteen", 16: "sixteen",
                17: "seventeen", 18: "eighteen"}


def toc_parts():
    """[(caption, numbered, [page, ...])] as _toc.yml lists them."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    return [(part["caption"], part.get("numbered", False),
             [entry["file"] for entry in part["chapters"]]) for part in toc["parts"]]


def first_label(page):
    return re.search(r"^\((.+?)\)=$", (ROOT / f"{page}.md").read_text(), flags=re.M)[1]


def test_each_chapter_s_next_names_the_page_after_it_in_the_toc():
    pages = [page for _, _, part in toc_parts() for page in part]
    numbered = [page for _, is_numbered, part in toc_parts() if is_numbered for page in part]
    for page in numbered:
        text = (ROOT / f"{page}.md").read_text()
        summary = text[text.index("\n## Summary"):]
        nexts = re.findall(r"^\*\*Next:\*\*(.*?)(?:\n\n|\Z)", summary, flags=re.M | re.S)
        assert len(nexts) == 1, f"{page}: one **Next:** paragraph after its summary"
        following = pages[pages.index(page) + 1]
        first_ref = re.search(r"\{ref\}`([^`<]+?)`", nexts[0])
        assert first_ref and first_ref[1] == first_label(following), (
            f"{page}: **Next:** must name {following} first ({{ref}}`{first_label(following)}`)")


def chapter_ranges(numbers):
    """[2, 3, 4, 10, 11, 15] -> '2 to 4, 10 to 11 and 15'."""
    runs, numbers = [], sorted(numbers)
    for number in numbers:
        if runs and number == runs[-1][1] + 1:
            runs[-1][1] = number
        else:
            runs.append([number, number])
    words = [f"{a} to {b}" if a != b else f"{a}" for a, b in runs]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def test_the_readme_and_the_intro_count_what_the_book_has():
    from tasks import TASKS

    readme = re.sub(r"\s+", " ", (ROOT / "README.md").read_text())
    intro = re.sub(r"\s+", " ", (ROOT / "intro.md").read_text())
    tasks = f"Chapters {chapter_ranges({task.chapter for task in TASKS})}"
    assert f"{tasks} name {len(TASKS)} **tasks**" in readme
    assert f"{tasks} also name {len(TASKS)} **tasks**" in intro
    numbered = [page for _, is_numbered, part in toc_parts() if is_numbered for page in part]
    assert f"for the {NUMBER_WORDS[len(numbered)]} chapters" in intro
    # The README's "What is inside" names every part, and every appendix by its title.
    inside = readme[readme.index("## What is inside"):readme.index("## ", readme.index(
        "## What is inside") + 3)]
    romans = ["I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X"]
    captions = [caption for caption, is_numbered, _ in toc_parts() if is_numbered]
    for number, caption in enumerate(captions):
        name = caption.split(": ", 1)[1]
        assert f"**Part {romans[number]}, {name}**" in inside, caption
    for caption, is_numbered, part in toc_parts():
        if caption == "Appendix":
            for page in part:
                title = re.search(r"^# (.+)$", (ROOT / f"{page}.md").read_text(), flags=re.M)[1]
                assert f"**{title}**" in inside or f"**Appendix, {title}**" in inside, title


CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(.*?)^```$", flags=re.M | re.S)
HIDDEN = re.compile(r"remove-input|remove-cell|hide-input|hide-cell")


def test_no_visible_cell_holds_build_plumbing():
    # The lesson's code, not the book's machinery (issue 28, point 2): the glue that puts a
    # cell's numbers into the text, and its import, sit in cells whose input is hidden.
    shown = []
    for page in sorted((ROOT / "chapters").glob("*.md")) + [ROOT / "intro.md"]:
        for cell in CELL.findall(page.read_text()):
            tags = re.search(r"^tags: \[(.*?)\]", cell, flags=re.M) if cell.startswith(
                "---\n") else None
            if not (tags and HIDDEN.search(tags[1])) and re.search(r"\bglue\(|myst_nb", cell):
                shown.append((page.name, cell.strip().splitlines()[-1][:60]))
    assert shown == []


def test_a_visible_cell_makes_at_most_one_check():
    # Lesson code, not build plumbing (issue 28, point 2): a cell the reader sees asserts
    # at most one thing (an assert in a loop counts once); the page's other checks run in
    # the cells after it, whose input is hidden.
    shown = []
    for page in sorted((ROOT / "chapters").glob("*.md")):
        for cell in CELL.findall(page.read_text()):
            tags = re.search(r"^tags: \[(.*?)\]", cell, flags=re.M) if cell.startswith(
                "---\n") else None
            if tags and HIDDEN.search(tags[1]):
                continue
            if len(re.findall(r"^\s*assert\b", cell, flags=re.M)) > 1:
                shown.append((page.name, cell.strip().splitlines()[-1][:60]))
    assert shown == []


def test_every_method_listing_is_dedented():
    # A method shown on its own starts at the page's left margin (issue 28, point 2).
    undented = []
    for page in sorted((ROOT / "chapters").glob("*.md")):
        for options in re.findall(r"```\{literalinclude\}[^\n]*\n((?::[^\n]*\n)*)",
                                  page.read_text()):
            method = re.search(r"^:pyobject: \w+\.\w+", options, flags=re.M)
            if method and ":dedent:" not in options:
                undented.append((page.name, method[0]))
    assert undented == []


def test_no_code_cell_inside_a_dropdown():
    # MyST-NB runs only top-level cells: one nested in a dropdown would never run (and the
    # strict build fails on it). Optional code goes in a cell tagged hide-input instead.
    nested = []
    for page in sorted((ROOT / "chapters").glob("*.md")):
        text = page.read_text()
        for match in re.finditer(r"^(:{3,})\{dropdown\}.*?^\1$", text, flags=re.M | re.S):
            if "{code-cell}" in match[0]:
                nested.append((page.name, text[:match.start()].count("\n") + 1))
    assert nested == []


def test_the_front_page_cards_follow_the_toc():
    # The front page's chapter cards (issue 29, item 7): one per page of _toc.yml, in its
    # order, under its part's heading, titled as the page is, numbered as the toc numbers it.
    intro = (ROOT / "intro.md").read_text()
    listed = intro[intro.index("(intro-chapters)="):]
    found = re.findall(r"^### (.+)$|^:::\{grid-item-card\} (.+)\n:link: ([\w-]+)\n", listed,
                       flags=re.M)
    expected, number = [], 0
    for caption, is_numbered, pages in toc_parts():
        expected.append((caption, "", ""))
        for page in pages:
            title = re.search(r"^# (.+)$", (ROOT / f"{page}.md").read_text(), flags=re.M)[1]
            number += is_numbered
            expected.append(("", f"{number}. {title}" if is_numbered else title,
                             first_label(page)))
    assert found[:len(expected)] == expected
