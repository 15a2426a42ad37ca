"""Drop duplicated <script> entries from every page, and sphinx-thebe's files when thebe is off.

Why: sphinx-thebe adds its configuration as an inline script (``add_js_file(None,
body=...)``) after the HTML builder has started. Sphinx 7.2+ then registers that script
twice, once with filename ``None`` and once with ``''``, and its de-duplication treats
the two as different. The page declares ``const THEBE_JS_URL`` twice and the browser
reports a SyntaxError. Jupyter Book always loads sphinx-thebe, so we remove the copy here.

Jupyter Book loads sphinx-thebe even when ``launch_buttons.thebe`` is false: then no page has
a thebe button, and its script, its configuration and its stylesheet are left out.
"""


def _key(script):
    attributes = tuple(sorted((k, str(v)) for k, v in getattr(script, "attributes", {}).items()))
    return (getattr(script, "filename", script) or "", attributes)


def _is_thebe(asset):
    name = str(getattr(asset, "filename", asset) or "")
    body = str(getattr(asset, "attributes", {}).get("body", ""))
    return name.rpartition("/")[2].startswith("sphinx-thebe.") or body.startswith("const THEBE_JS_URL")


def thebe_on(app):
    launch = app.config.html_theme_options.get("launch_buttons") or {}
    return bool(launch.get("thebe"))


def dedupe_script_files(app, pagename, templatename, context, doctree):
    scripts = context.get("script_files")
    if not scripts:
        return
    seen, unique = set(), []
    for script in scripts:
        key = _key(script)
        if key not in seen and (thebe_on(app) or not _is_thebe(script)):
            seen.add(key)
            unique.append(script)
    context["script_files"] = unique
    if not thebe_on(app):
        context["css_files"] = [css for css in context.get("css_files", []) if not _is_thebe(css)]


def setup(app):
    # Late priority: run after every extension has added its scripts to the page.
    app.connect("html-page-context", dedupe_script_files, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
