"""What a first visit of a page downloads, made lighter (the website review's P17).

- Font Awesome's script (``fontawesome.js``, 1.5 MB), which pydata-sphinx-theme loads on every
  page to turn its icons into SVGs, is left out (``templates/layout.html``): the theme's
  stylesheet already draws the same icons with its webfont.
- The search index is loaded only by ``search.html``: the theme's search box sends its query
  there (search-as-you-type is off), so no other page reads it.
- MathJax only where the page itself has math. Sphinx asks whether a page *or the pages its
  table of contents lists* have equations, so the root page, which lists every chapter,
  loaded MathJax with no formula of its own.
- MathJax is its loader and the components the book's TeX needs, not the ``tex-chtml.js``
  bundle, whose context menu (ui/menu, 0.4 MB of its 1.2 MB) the book does not use; the
  hidden MathML for screen readers (a11y/assistive-mml) is kept. What the menu also did for
  the keyboard, a formula in the tab order, is done for displayed formulas (those that can
  be wider than a phone and scroll sideways) by a render action. The copy of MathJax in the
  built site keeps only those files and their fonts (sphinx-mathjax-offline copies all 24 MB).
- Font Awesome: its stylesheet (part of the theme's) keeps the rules of the icons the site
  names (in a page or a script), and its webfonts only those icons' glyphs, and the glyphs
  the stylesheets draw by code point (admonition and link icons): 156 KB of woff2 to a few.
  The unused script is removed from the site.
- Source maps (``*.map``), which only a browser's developer tools ask for, are removed.
- The page's second and third viewport tags (docutils' and the theme's) are dropped.
"""

import re
from pathlib import Path

# MathJax's own files the book serves (relative to _static/mathjax): the loader, and what
# mathjax3_config's loader.load names (with what they load in turn: the TeX font data and its
# fonts; the TeX extensions that \require or an autoloaded macro would fetch).
MATHJAX_PATH = "mathjax/startup.js"
MATHJAX_COMPONENTS = ["input/tex", "output/chtml", "a11y/assistive-mml"]
MATHJAX_KEEP = ("startup.js", "core.js", "input/tex.js", "input/tex/extensions/",
                "output/chtml.js", "output/chtml/fonts/", "a11y/assistive-mml.js")

# MathJax's render action that puts each displayed formula in the tab order, so that one wider
# than the screen can be scrolled from the keyboard (axe's scrollable-region-focusable); the
# context menu, which the bundle had, did it for every formula.
MATHJAX_TAB_ORDER = """
(() => {
  const reachable = (math) => {
    if (math.display && math.typesetRoot) math.typesetRoot.setAttribute("tabindex", "0");
  };
  window.MathJax.options = Object.assign({}, window.MathJax.options, {renderActions: {
    reachable: [200, (doc) => { for (const math of doc.math) reachable(math); }, reachable],
  }});
})();"""

# Tags the page template drops from the theme's <head> (templates/layout.html).
DROPPED_HEAD_TAGS = [
    r'<script[^>]*src="[^"]*_static/scripts/fontawesome\.js[^"]*"[^>]*></script>',
    r'<script[^>]*src="[^"]*searchindex\.js[^"]*"[^>]*></script>',
    r'<meta name="viewport"[^>]*>',
]
VIEWPORT = re.compile(r'<meta name="viewport"[^>]*>\s*')


def without_tags(markup, patterns):
    """The template's text without the tags matched by any of the patterns."""
    from markupsafe import Markup

    for pattern in patterns:
        markup = re.sub(pattern, "", str(markup))
    return Markup(markup)


def use_mathjax_components(app, config):
    config.mathjax_path = MATHJAX_PATH
    mathjax = dict(config.mathjax3_config or {})
    loader = dict(mathjax.get("loader") or {})
    loader["load"] = MATHJAX_COMPONENTS
    mathjax["loader"] = loader
    config.mathjax3_config = mathjax
    config.templates_path.insert(0, str(Path(__file__).with_name("templates")))


def add_filter(app):
    if hasattr(app.builder, "templates"):
        app.builder.templates.environment.filters["without_tags"] = without_tags


def is_mathjax_config(script):
    return str(getattr(script, "attributes", {}).get("body", "")).startswith("window.MathJax")


def trim_page(app, pagename, templatename, context, doctree):
    # (search.html loads the index in its own part of the template, which stays.)
    context["dropped_head_tags"] = DROPPED_HEAD_TAGS
    # docutils' viewport tag; Sphinx's page template writes its own just before it.
    context["metatags"] = VIEWPORT.sub("", context.get("metatags") or "")
    math = app.env.get_domain("math")
    if math.data["has_equations"].get(pagename, False):
        context["script_files"] = [
            type(script)(script.filename, priority=script.priority, **{
                **script.attributes, "body": script.attributes["body"] + ";" + MATHJAX_TAB_ORDER})
            if is_mathjax_config(script) else script
            for script in context.get("script_files", [])]
    else:
        context["script_files"] = [
            script for script in context.get("script_files", [])
            if str(getattr(script, "filename", script) or "") != f"_static/{app.config.mathjax_path}"
            and not is_mathjax_config(script)]


# An icon's rule in Font Awesome's stylesheet: `.fa-name:before,.fa-alias:before{content:"\\f002"}`.
ICON_RULE = re.compile(r'((?:\.fa-[a-z0-9-]+:before,?)+)\{content:"\\([0-9a-f]{2,5})"\}')
ICON_NAME = re.compile(r"fa-[a-z0-9-]+")
# A glyph a stylesheet draws by code point (Font Awesome's are in the private use area), as an
# escape ("\f35d") or as the character itself (the theme's admonition and link icons).
CODE_POINT = re.compile(r'"\\([ef][0-9a-f]{3})"|([\ue000-\uf8ff])')
THEME_CSS = "_static/styles/pydata-sphinx-theme.css"
FONTS = "_static/vendor/fontawesome/webfonts"
FONTAWESOME_JS = "_static/scripts/fontawesome.js"


def icons_named(out):
    """The fa-* names the site's pages and scripts use."""
    names = set()
    for path in [*out.rglob("*.html"), *(out / "_static").rglob("*.js")]:
        names.update(ICON_NAME.findall(path.read_text(errors="replace")))
    return names


def slim_font_awesome(out):
    """Keep the icons the site names: their rules in the theme's stylesheet, their glyphs (and
    those the stylesheets ask for by code point) in the webfonts."""
    from fontTools import subset
    from fontTools.ttLib import TTFont

    (out / FONTAWESOME_JS).unlink(missing_ok=True)
    names = icons_named(out)
    css_path = out / THEME_CSS
    css = css_path.read_text()
    used = set()

    def keep_if_named(rule):
        selectors = set(ICON_NAME.findall(rule.group(1)))
        if selectors & names:
            used.add(int(rule.group(2), 16))
            return rule.group(0)
        return ""

    css = ICON_RULE.sub(keep_if_named, css)
    css_path.write_text(css)
    for sheet in (out / "_static").rglob("*.css"):
        for escape, character in CODE_POINT.findall(sheet.read_text(errors="replace")):
            used.add(int(escape, 16) if escape else ord(character))
    for font_path in sorted((out / FONTS).glob("*")):
        if font_path.suffix not in (".woff2", ".ttf"):
            continue
        font = TTFont(font_path)
        options = subset.Options()
        options.flavor = "woff2" if font_path.suffix == ".woff2" else None
        options.layout_features = ["*"]
        subsetter = subset.Subsetter(options)
        subsetter.populate(unicodes=used & set(font.getBestCmap()))
        subsetter.subset(font)
        font.flavor = options.flavor
        font.save(font_path)


def prune_output(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    for source_map in out.rglob("*.map"):
        source_map.unlink()
    slim_font_awesome(out)
    mathjax = out / "_static" / "mathjax"
    for path in sorted(mathjax.rglob("*"), reverse=True):
        name = path.relative_to(mathjax).as_posix()
        if path.is_dir():
            if not any(path.iterdir()):
                path.rmdir()
        elif not any(name == keep or name.startswith(keep) for keep in MATHJAX_KEEP):
            path.unlink()


def setup(app):
    app.connect("config-inited", use_mathjax_components, priority=900)
    app.connect("builder-inited", add_filter)
    # After sphinx.ext.mathjax has added its scripts to the page (priority 500).
    app.connect("html-page-context", trim_page, priority=800)
    # After sphinx-mathjax-offline has copied MathJax into the site (priority 500).
    app.connect("build-finished", prune_output, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
