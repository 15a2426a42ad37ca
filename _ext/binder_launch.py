"""Point the Binder launch button at the student notebook, not at the chapter's source.

sphinx-book-theme links Binder to ``chapters/<page>.md``. On Binder, ``binder/postBuild``
writes ``notebooks/<page>.ipynb`` (scripts/binder_notebooks.py): the same chapter with
toygrad's code written in, plain Markdown instead of MyST, and solutions collapsed. That is
the file a student should open, so the button's ``urlpath`` is rewritten to it. Other
launchers (a JupyterHub's git-pull) do not run postBuild and keep the source.
"""

import re

SOURCE = re.compile(r"(\?urlpath=[^/]+/tree/)(?:[^?#]*/)?([^/?#]+)\.(?:md|ipynb)$")


def binder_url(url):
    return SOURCE.sub(r"\1notebooks/\2.ipynb", url)


def rewrite_binder_button(app, pagename, templatename, context, doctree):
    for group in context.get("header_buttons", []):
        if group.get("label") != "launch-buttons":
            continue
        for button in group.get("buttons", []):
            if button.get("text") == "Binder" and "url" in button:
                button["url"] = binder_url(button["url"])


def setup(app):
    # After sphinx-book-theme's add_launch_buttons (priority 501).
    app.connect("html-page-context", rewrite_binder_button, priority=502)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
