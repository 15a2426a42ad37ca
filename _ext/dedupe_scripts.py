"""Drop duplicated <script> entries from every page.

Why: sphinx-thebe adds its configuration as an inline script (``add_js_file(None,
body=...)``) after the HTML builder has started. Sphinx 7.2+ then registers that script
twice, once with filename ``None`` and once with ``''``, and its de-duplication treats
the two as different. The page declares ``const THEBE_JS_URL`` twice and the browser
reports a SyntaxError. Jupyter Book always loads sphinx-thebe, so we remove the copy here.
"""


def _key(script):
    attributes = tuple(sorted((k, str(v)) for k, v in getattr(script, "attributes", {}).items()))
    return (getattr(script, "filename", script) or "", attributes)


def dedupe_script_files(app, pagename, templatename, context, doctree):
    scripts = context.get("script_files")
    if not scripts:
        return
    seen, unique = set(), []
    for script in scripts:
        key = _key(script)
        if key not in seen:
            seen.add(key)
            unique.append(script)
    context["script_files"] = unique


def setup(app):
    # Late priority: run after every extension has added its scripts to the page.
    app.connect("html-page-context", dedupe_script_files, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
