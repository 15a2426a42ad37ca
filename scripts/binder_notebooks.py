#!/usr/bin/env python3
"""Write the notebooks a student opens on Binder: notebooks/<chapter>.ipynb.

Run by binder/postBuild at launch time, from the repository's root:

    python scripts/binder_notebooks.py [--out notebooks]

Each chapter of _toc.yml is read as JupyterLab's jupytext viewer reads it, then made
readable outside the website:

- ``{literalinclude}`` becomes fenced code, read now with Sphinx's own reader (the one the
  website uses) from toygrad as the chapter leaves it (``_build/snapshots``, written here
  from ``code/toygrad``), so it is always the tested code;
- admonitions and exercises become plain Markdown (a quote, a ``###`` heading);
- each solution sits under a ``#### Solution`` heading that is collapsed when the notebook
  opens, and its code cells are raw cells, so "Run All" does not run them (select one and
  press ``Y`` to make it runnable);
- ``{glue:text}`` becomes the expression that computes the number, ``{ref}`` the title of
  the section (and a link to the other chapter's notebook);
- the book's MathJax macros (from _config.yml) are defined in the first cell.

Needs only jupytext (with nbformat and PyYAML); Sphinx's literalinclude reader is used
when installed (myst-nb brings it), else an equivalent one here.
"""

import argparse
import ast
import importlib.util
import re
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import jupytext
import nbformat
import yaml

ROOT = Path(__file__).resolve().parents[1]

SOLUTION_START = re.compile(r"^(`{3,})\{solution-start\}\s*(\S*)\s*$")
SOLUTION_END = re.compile(r"^(`{3,})\{solution-end\}\s*$")
COLON_DIRECTIVE = re.compile(r"^(:{3,})\{([\w-]+)\}\s*(.*)$")
LITERALINCLUDE = re.compile(r"^( *)(`{3,})\{literalinclude\}\s+(\S+)\s*$")
TARGET = re.compile(r"^\(([\w-]+)\)=\s*$")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*$")
GLUE_ROLE = re.compile(r"\{glue:text\}`([^`]+)`")
REF_ROLE = re.compile(r"\{ref\}`([^`]+)`")
OPTION = re.compile(r"^:([\w-]+):\s*(.*)$")

# JupyterLab keeps a heading's "collapsed" state in this cell metadata key.
COLLAPSED = "jp-MarkdownHeadingCollapsed"


def toc_chapters(root):
    """[(path relative to root, chapter number, or the caption of an unnumbered part)]."""
    toc = yaml.safe_load((root / "_toc.yml").read_text())
    chapters, number = [], 0
    for part in toc.get("parts", []):
        for entry in part.get("chapters", []):
            if part.get("numbered"):
                number += 1
                chapters.append((entry["file"] + ".md", number))
            else:
                chapters.append((entry["file"] + ".md", part.get("caption", "Appendix")))
    return chapters


def mathjax_macros(root):
    config = yaml.safe_load((root / "_config.yml").read_text())
    macros = (config.get("sphinx", {}).get("config", {}).get("mathjax3_config", {})
              .get("tex", {}).get("macros", {}))
    commands = []
    for name, body in macros.items():
        if isinstance(body, list):
            commands.append(f"\\newcommand{{\\{name}}}[{body[1]}]{{{body[0]}}}")
        else:
            commands.append(f"\\newcommand{{\\{name}}}{{{body}}}")
    return commands


def parse_options(lines):
    """MyST directive options (``:key: value`` lines), values read as YAML like MyST does."""
    options = {}
    for line in lines:
        match = OPTION.match(line)
        if match:
            value = match[2].strip()
            options[match[1]] = yaml.safe_load(value) if value else None
    return options


# The options that select or format the text; "emphasize-lines" and "caption" only style
# the website's listing, so a notebook shows the same code without them.
INCLUDE_OPTIONS = {"pyobject", "start-after", "start-at", "end-before", "end-at", "dedent",
                   "language", "linenos", "emphasize-lines", "caption"}


def read_include(chapter_dir, target, options):
    """The text Sphinx's literalinclude shows: Sphinx's own reader when it is installed
    (myst-nb brings it), else the same selection done here (tests compare the two)."""
    try:
        from sphinx.directives.code import LiteralIncludeReader
    except ImportError:
        return read_include_plain(chapter_dir / target, options)
    keep = {key: value for key, value in options.items() if key in INCLUDE_OPTIONS}
    config = SimpleNamespace(source_encoding="utf-8-sig")
    text, _ = LiteralIncludeReader(str(chapter_dir / target), keep, config).read()
    return text.rstrip("\n")


def read_include_plain(path, options):
    unknown = set(options) - INCLUDE_OPTIONS
    if unknown:
        raise ValueError(f"literalinclude options not supported without Sphinx: {unknown}")
    lines = path.read_text(encoding="utf-8-sig").splitlines(True)
    if options.get("pyobject"):
        tree, node = ast.parse("".join(lines)), None
        scope = tree
        for part in options["pyobject"].split("."):
            node = next(child for child in scope.body
                        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                              ast.ClassDef)) and child.name == part)
            scope = node
        first = min([node.lineno] + [d.lineno for d in node.decorator_list])
        lines = lines[first - 1:node.end_lineno]
    if options.get("start-after"):
        index = next(i for i, line in enumerate(lines) if options["start-after"] in line)
        lines = lines[index + 1:]
    if options.get("start-at"):
        index = next(i for i, line in enumerate(lines) if options["start-at"] in line)
        lines = lines[index:]
    if options.get("end-before"):
        index = next(i for i, line in enumerate(lines) if options["end-before"] in line)
        lines = lines[:index]
    if options.get("end-at"):
        index = next(i for i, line in enumerate(lines) if options["end-at"] in line)
        lines = lines[:index + 1]
    text = "".join(lines)
    if "dedent" in options:
        text = textwrap.dedent(text)
    return text.rstrip("\n")


class Labels:
    """Every ``(label)=`` target and exercise label of the book: what {ref} shows."""

    def __init__(self, root, chapters):
        self.entries = {}
        for relpath, number in chapters:
            lines = (root / relpath).read_text().splitlines()
            stem = Path(relpath).stem
            exercise = 0
            for i, line in enumerate(lines):
                target = TARGET.match(line)
                if target and i + 1 < len(lines) and HEADING.match(lines[i + 1]):
                    level, title = HEADING.match(lines[i + 1]).groups()
                    self.entries[target[1]] = (stem, number, title, len(level) == 1)
                elif target and i + 1 < len(lines) and COLON_DIRECTIVE.match(lines[i + 1]):
                    # a label on a dropdown: Sphinx links it when the {ref} gives its words
                    title = COLON_DIRECTIVE.match(lines[i + 1])[3]
                    self.entries[target[1]] = (stem, number, title, False)
                directive = COLON_DIRECTIVE.match(line)
                if directive and directive[2] == "exercise":
                    exercise += 1
                    options = parse_options(lines[i + 1:i + 6])
                    if "label" in options:
                        self.entries[options["label"]] = (
                            stem, number, f"Exercise {exercise}", False)

    def text(self, role_text, current_stem, unresolved):
        match = re.fullmatch(r"(.*?)\s*<([\w-]+)>", role_text, re.S)
        explicit, label = (match[1], match[2]) if match else (None, role_text.strip())
        if label not in self.entries:
            unresolved.append(label)
            return explicit or label
        stem, number, title, is_chapter = self.entries[label]
        shown = explicit or title
        if stem == current_stem:
            return f"*{shown}*"
        where = f"chapter {number}" if isinstance(number, int) else number
        if is_chapter and not explicit:
            return f"[{where}, *{title}*]({stem}.ipynb)"
        return f"*{shown}* ([{where}]({stem}.ipynb))"


def glue_expressions(cells):
    """{glue name: (index of the code cell, source of the value it glues)}."""
    found = {}
    for index, cell in enumerate(cells):
        if cell.cell_type != "code":
            continue
        try:
            tree = ast.parse(cell.source)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "glue"
                    and len(node.args) >= 2 and isinstance(node.args[0], ast.Constant)):
                value = node.args[1]
                if (isinstance(value, ast.JoinedStr) and len(value.values) == 1
                        and isinstance(value.values[0], ast.FormattedValue)):
                    value = value.values[0].value
                found[node.args[0].value] = (index, ast.unparse(value))
    return found


def markdown_cell(source, **metadata):
    cell = nbformat.v4.new_markdown_cell(source.strip("\n"))
    cell.metadata.update(metadata)
    return cell


class Converter:
    def __init__(self, root, relpath, number, labels):
        self.root, self.relpath, self.number, self.labels = root, relpath, number, labels
        self.stem = Path(relpath).stem
        self.chapter_dir = (root / relpath).parent
        self.unresolved = []
        self.in_solution = False
        self.exercise = 0

    def convert(self):
        notebook = jupytext.read(self.root / self.relpath)
        glued = glue_expressions(notebook.cells)
        cells = [markdown_cell(self.preamble(), tags=["binder-note"])]
        for index, cell in enumerate(notebook.cells):
            if cell.cell_type == "code":
                cells.append(self.code(cell))
            elif cell.cell_type == "markdown":
                text = GLUE_ROLE.sub(lambda m: self.glue(m[1], index, glued), cell.source)
                text = REF_ROLE.sub(
                    lambda m: self.labels.text(m[1], self.stem, self.unresolved), text)
                cells.extend(self.markdown(text))
            else:
                cells.append(cell)
        if self.in_solution:
            raise ValueError(f"{self.relpath}: a solution-start without its solution-end")
        out = nbformat.v4.new_notebook(cells=cells)
        out.metadata = {
            "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python",
                           "name": "python3"},
            "language_info": {"name": "python"},
            "toygrad_book": {"source": self.relpath},
        }
        return out

    def preamble(self):
        macros = "".join(mathjax_macros(self.root))
        where = (f"Chapter {self.number}" if isinstance(self.number, int)
                 else f"{self.number}: a page")
        return (
            (f"${macros}$\n\n" if macros else "")
            + f"> **{where} of the book, as a live notebook.** Made from `{self.relpath}` "
            "when this Binder started: the code it shows from `code/toygrad` is the code "
            "you run. Each exercise's **Solution** is collapsed (click \"cells hidden\" to "
            "open it) and *Run All* does not run it: to run a solution's code, select its "
            "cell, press `Y` to make it a code cell, then `Shift+Enter`."
        )

    def glue(self, name, index, glued):
        if name not in glued:
            self.unresolved.append(f"glue:{name}")
            return f"`{name}`"
        where = "above" if glued[name][0] < index else "below"
        return f"`{glued[name][1]}` (computed in the code {where})"

    def code(self, cell):
        if not self.in_solution:
            return cell
        raw = nbformat.v4.new_raw_cell(cell.source)
        raw.metadata.update({"tags": ["solution"]})
        return raw

    def markdown(self, text):
        """Plain Markdown cells for one MyST Markdown cell (split at solution markers)."""
        cells, buffer = [], []
        lines = text.splitlines()
        i = 0

        def flush():
            chunk = "\n".join(buffer).strip("\n")
            if chunk:
                cells.append(markdown_cell(chunk))
            buffer.clear()

        while i < len(lines):
            line = lines[i]
            start, end = SOLUTION_START.match(line), SOLUTION_END.match(line)
            include = LITERALINCLUDE.match(line)
            directive = COLON_DIRECTIVE.match(line)
            if start or end:
                fence = (start or end)[1]
                j = i + 1
                while j < len(lines) and lines[j].strip() != fence:
                    j += 1
                flush()
                if start:
                    self.in_solution = True
                    cells.append(markdown_cell(
                        "#### Solution\n\n*(Collapsed: click \"cells hidden\" below, or the ▸ beside "
                        "this heading, to open it. Its code cells are raw: select one and "
                        "press `Y` to make it runnable.)*",
                        **{COLLAPSED: True, "tags": ["solution"]}))
                else:
                    self.in_solution = False
                i = j + 1
            elif include:  # indented, inside a list item: the code is indented as much
                indent, fence = include[1], include[2]
                j = i + 1
                while j < len(lines) and lines[j].strip() != fence:
                    j += 1
                options = parse_options([line.strip() for line in lines[i + 1:j]])
                language = options.get("language", "python")
                code = read_include(self.chapter_dir, include[3], options)
                shown = Path(include[3]).as_posix().replace("../", "", 1)
                what = f", `{options['pyobject']}`" if options.get("pyobject") else ""
                snapshot = SNAPSHOT_PATH.match(shown)
                if snapshot:
                    shown = snapshot[2]
                    what += f" (as chapter {int(snapshot[1])} leaves it)"
                block = f"*From `{shown}`{what}:*\n\n```{language}\n{code}\n```"
                buffer.append("\n".join(indent + line if line else line
                                        for line in block.splitlines()))
                i = j + 1
            elif directive and directive[2] in {"admonition", "exercise", "note", "tip",
                                                "important", "warning", "hint", "seealso"}:
                fence, name, title = directive[1], directive[2], directive[3].strip()
                j = i + 1
                while j < len(lines) and lines[j].strip() != fence:
                    j += 1
                body = lines[i + 1:j]
                while body and OPTION.match(body[0]):
                    body.pop(0)
                body_text = "\n".join(self.markdown_lines(body)).strip("\n")
                if name == "exercise":
                    self.exercise += 1
                    heading = f"Exercise {self.exercise}" + (f": {title}" if title else "")
                    flush()
                    cells.append(markdown_cell(f"### {heading}\n\n{body_text}"))
                else:
                    title = title or name.capitalize()
                    quoted = "\n".join(f"> {row}".rstrip() for row in body_text.splitlines())
                    buffer.append(f"> **{title}**\n>\n{quoted}")
                i = j + 1
            elif TARGET.match(line):
                i += 1
            else:
                buffer.append(line)
                i += 1
        flush()
        return cells

    def markdown_lines(self, lines):
        """Directives nested in an admonition or exercise (rare): converted the same way."""
        nested = self.markdown("\n".join(lines))
        return "\n\n".join(cell.source for cell in nested).splitlines()


def write_snapshots(root):
    """toygrad as each chapter leaves it, where that chapter's listings read it
    (``_build/snapshots/chNN``; tests/chapters.py writes them, as the website's build
    does)."""
    spec = importlib.util.spec_from_file_location("chapters", root / "tests" / "chapters.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.write_all_snapshots(root)
    module.write_task_stubs(root)


# A listing's file in a snapshot, shown as the package's own path.
SNAPSHOT_PATH = re.compile(r"^_build/snapshots/ch(\d\d)/(.*)$")


def build(root, out_dir):
    write_snapshots(root)
    chapters = toc_chapters(root)
    labels = Labels(root, chapters)
    out_dir.mkdir(parents=True, exist_ok=True)
    problems, written = [], []
    for relpath, number in chapters:
        converter = Converter(root, relpath, number, labels)
        notebook = converter.convert()
        path = out_dir / (Path(relpath).stem + ".ipynb")
        # Cell ids by position, not nbformat's random ones: the same chapter gives the same
        # notebook, byte for byte (the Binder simulation reuses a run by its content hash).
        for index, cell in enumerate(notebook.cells):
            cell["id"] = f"cell-{index}"
        nbformat.validate(notebook)
        nbformat.write(notebook, path)
        written.append(path)
        problems += [f"{relpath}: unresolved {label}" for label in converter.unresolved]
    return written, problems


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT)
    parser.add_argument("--out", type=Path, default=None,
                        help="output folder (default: <root>/notebooks)")
    parser.add_argument("--strict", action="store_true",
                        help="fail on a {ref} or {glue:text} that cannot be resolved")
    args = parser.parse_args(argv)
    out = args.out or args.root / "notebooks"
    written, problems = build(args.root, out)
    for problem in problems:
        print("warning:", problem, file=sys.stderr)
    print(f"wrote {len(written)} notebooks to {out}")
    return 1 if problems and args.strict else 0


if __name__ == "__main__":
    sys.exit(main())
