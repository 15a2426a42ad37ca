"""Link each glossary term at its first use in a chapter (a one-off editing aid).

    .venv/bin/python scripts/link_terms.py chapters/ch04_backward.md [...]

For every term of chapters/appendix_glossary.md, the first time a chapter's prose uses it
(outside code, formulas, links, headings and roles), the word becomes a ``{term}`` link; a
term written as inline code (`grad_fn`) is linked where it is first written so. A chapter
that links a term already is left alone for that term. tests/test_book.py checks that every
term is linked from some chapter; this script only saves typing, and its edits are reviewed
like any other.
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Other spellings under which a term appears in prose; matched case-insensitively unless the
# term is a name (capitalised, or code).
FORMS = {
    "node": ["nodes", "node"], "edge": ["edges", "edge"], "leaf": ["leaves", "leaf"],
    "engine": ["engine"], "graph": ["graph"], "backward pass": ["backward pass"],
    "broadcasting": ["broadcasting"], "grad mode": ["grad mode"],
    "saved tensor": ["saved tensors", "saved tensor"],
    "version counter": ["version counter"], "sequence number": ["sequence numbers",
                                                                 "sequence number"],
    "in-place operation": ["in-place operations", "in-place operation"],
    "finite difference": ["finite differences", "finite difference"],
    "gradient check": ["gradient check"], "reverse mode": ["reverse mode"],
    "vector-Jacobian product": ["vector-Jacobian products", "vector-Jacobian product"],
    "dispatch key": ["dispatch keys", "dispatch key"], "dispatcher": ["dispatcher"],
    "Jacobian": ["Jacobians", "Jacobian"], "view": ["views", "view"],
    "autograd": ["autograd"],
}
CODE_TERMS = ["grad_fn", "requires_grad", "ctx", "create_graph", "retain_graph",
              "AccumulateGrad", "Function"]
PROTECTED = re.compile(r"\{[a-z:-]+\}`[^`]*`|``[^`]*``|`[^`]*`|\$\$?[^$]*\$\$?"
                       r"|\[[^\]]*\]\([^)]*\)|<[^>]+>")


def terms():
    text = (ROOT / "chapters" / "appendix_glossary.md").read_text()
    block = re.search(r"^```\{glossary\}\n(.*?)^```", text, flags=re.M | re.S)[1]
    return re.findall(r"^(\S.*)$", block, flags=re.M)


def prose_lines(lines):
    """Indices of the lines that are prose: not front matter, code, labels or headings."""
    fence, front = None, 0
    for index, line in enumerate(lines):
        if index == 0 and line == "---":
            front = 1
            continue
        if front == 1:
            front = 2 if line == "---" else 1
            continue
        marker = re.match(r"^(`{3,}|:{3,})", line)
        if marker:
            if fence is None and not line.startswith(":::"):
                fence = marker[1]
            elif fence is not None and line.strip() == fence:
                fence = None
            continue
        if fence is not None:
            continue
        if re.match(r"^(#|\(|:[a-z]+:|\||<)", line) and not line.startswith("|"):
            continue
        yield index


def link(path):
    lines = path.read_text().split("\n")
    text = "\n".join(lines)
    changed = []
    for term in terms():
        if re.search(r"\{term\}`[^`]*<?" + re.escape(term) + r">?`", text, flags=re.I):
            continue
        done = False
        for index in prose_lines(lines):
            line = lines[index]
            if term in CODE_TERMS:
                match = re.search(r"(?<![}`])`" + re.escape(term) + r"`(?!`)", line)
                if match:
                    lines[index] = line[:match.start()] + f"{{term}}`{term}`" + line[match.end():]
                    done = True
            else:
                spans = [(m.start(), m.end()) for m in PROTECTED.finditer(line)]
                flags = 0 if term[0].isupper() else re.I
                for form in FORMS.get(term, [term]):
                    for match in re.finditer(r"(?<![\w-])" + re.escape(form) + r"(?![\w-])",
                                             line, flags=flags):
                        if any(a <= match.start() < b for a, b in spans):
                            continue
                        word = match[0]
                        role = (f"{{term}}`{word}`" if word.lower() == term.lower()
                                else f"{{term}}`{word} <{term}>`")
                        lines[index] = line[:match.start()] + role + line[match.end():]
                        done = True
                        break
                    if done:
                        break
            if done:
                changed.append(term)
                break
    path.write_text("\n".join(lines))
    return changed


if __name__ == "__main__":
    for name in sys.argv[1:]:
        print(name, link(Path(name)))
