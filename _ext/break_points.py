"""Where a long name in inline code may break across lines.

On a phone, a table cell or a line of text is often narrower than a name such as
``torch/csrc/autograd/python_function.cpp`` or ``BackwardFunction``. Breaking it anywhere
split it letter by letter ("python_functi|on.cpp": the website review's P8). Here each piece
of inline code gets a ``<wbr>`` (a place the line may break, invisible and not copied) after a
``/``, ``.``, ``_``, ``:``, ``(``, ``=`` or ``,`` that has more name after it, and between the words of a CamelCase name
(a command-line option such as ``--json`` is kept whole);
_static/book.css then lets the browser break only there (and inside a piece only when the
piece alone is wider than the line).
"""

import html
import re

INLINE_CODE = re.compile(r'(<code class="docutils literal notranslate">)(.*?)(</code>)', re.S)
TAG_OR_TEXT = re.compile(r"(<[^>]*>)")
# After a separator followed by a name's character (or a quote or bracket), or between a
# lower-case letter (or a digit) and an upper-case one: "python_|function", "autograd.|grad",
# "Backward|Function", "torch::|autograd", "compile(|backend=|\"aot_|eager\")".
BREAK = re.compile(r"(?<=[/._:(=,])(?=[A-Za-z0-9\"'(\[])|(?<=[a-z0-9])(?=[A-Z])")
OPTION = re.compile(r"(?<![\w-])(--?\w[\w-]*)")
# Short names are left whole.
SHORTEST = 12


def _text(text):
    # An option ("-m", "--json") stays whole: a line broke it after its first "-".
    text = OPTION.sub(r'<span class="nowrap">\1</span>', text)
    if len(html.unescape(text)) < SHORTEST:
        return text
    # (Characters written as entities, such as &quot;, are read as the characters.)
    return "".join(part if part.startswith("<") else
                   "<wbr>".join(html.escape(piece) for piece in
                                BREAK.split(html.unescape(part)))
                   for part in TAG_OR_TEXT.split(text))


def with_break_points(body):
    def code(match):
        inner = "".join(part if part.startswith("<") else _text(part)
                        for part in TAG_OR_TEXT.split(match[2]))
        return match[1] + inner + match[3]
    return INLINE_CODE.sub(code, body)


def on_page(app, pagename, templatename, context, doctree):
    if doctree is not None and "body" in context:
        context["body"] = with_break_points(context["body"])


def setup(app):
    app.connect("html-page-context", on_page)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
