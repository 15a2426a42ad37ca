"""What a page says about itself, and the page for an address that has none (review P16).

- Each page's description and social preview tags come from sphinxext-opengraph: the title,
  the first paragraph as ``og:description`` and ``<meta name="description">``, and a
  picture, ``_static/og-image.png``, which this extension draws at each build: the book's
  title beside chapter 7's one-neuron loss, as toygrad's ``viz.make_dot`` draws its graph.
- The site's address, which those tags need absolute, is the GitHub Pages address of
  ``repository.url`` (``https://USER.github.io/REPO/``), or ``html_baseurl`` where
  _config.yml sets one. While ``repository.url`` is the placeholder (see
  _ext/footer_links.py), the address is unknown: then the tags that would hold it (the page's
  and the picture's address) are left out, and the others stay.
- sphinx-notfound-page writes ``404.html``, which GitHub Pages serves for any missing address
  of the site, at any depth: its links start from the site's path (``/REPO/``, from
  ``repository.url``; ``notfound_urls_prefix`` in _config.yml overrides it), and its body
  lists the book's pages.
"""

import html
import io
import re
from pathlib import Path
from urllib.parse import urlsplit

from footer_links import published

OG_IMAGE = "_static/og-image.png"
OG_IMAGE_SIZE = (1200, 630)  # the size social sites show a large preview at
OG_IMAGE_ALT = ("The book's title beside the backward graph of chapter 7's one-neuron loss, "
                "drawn by toygrad: the leaves w and b, their AccumulateGrad nodes, then "
                "DotBackward0, AddBackward0, TanhBackward0, SubBackward0 and PowBackward0.")
ADDRESS_TAGS = re.compile(r'<meta property="og:(?:url|image(?::[a-z]+)?)" content="[^"]*" />\n?')


def pages_address(repository_url):
    """GitHub Pages' address for a project site, from its repository's address."""
    parts = urlsplit(repository_url)
    user, repo = parts.path.strip("/").split("/")[:2]
    return f"https://{user.lower()}.github.io/{repo}/"


def configure(app, config):
    options = config.html_theme_options
    repository = options.get("repository_url") or ""
    config.ogp_site_url = config.html_baseurl or (
        pages_address(repository) if published(options) else "")
    # Jupyter Book names the book in html_title (_config.yml's title), not in project.
    config.ogp_site_name = config.html_title or config.project
    config.ogp_image = OG_IMAGE
    config.ogp_image_alt = OG_IMAGE_ALT
    config.ogp_social_cards = {"enable": False}
    if published(options):
        config.ogp_custom_meta_tags = ['<meta name="twitter:card" content="summary_large_image" />']
    if "notfound_urls_prefix" not in config.overrides:
        site_path = urlsplit(config.html_baseurl).path if config.html_baseurl else (
            "/" + urlsplit(repository).path.strip("/").split("/")[1] + "/")
        config.notfound_urls_prefix = site_path if site_path.endswith("/") else site_path + "/"


def drop_unknown_addresses(app, pagename, templatename, context, doctree):
    if not app.config.ogp_site_url:
        context["metatags"] = ADDRESS_TAGS.sub("", context.get("metatags") or "")


def toc_order(env, doc, seen=None):
    """The documents of the table of contents under doc, in reading order."""
    seen = [] if seen is None else seen
    for child in env.toctree_includes.get(doc, []):
        if child not in seen:
            seen.append(child)
            toc_order(env, child, seen)
    return seen


def not_found_page(app):
    """The 404 page's body: what happened, and every page of the book, linked from the site's
    path (the page is served at whatever address was asked for)."""
    prefix = app.config.notfound_urls_prefix
    docs = [app.config.root_doc, *toc_order(app.env, app.config.root_doc)]

    def numbered_title(doc):  # as the sidebar names it: "7. Predict the graph..."
        number = app.env.toc_secnumbers.get(doc, {}).get("")
        prefix_number = ".".join(map(str, number)) + ". " if number else ""
        return prefix_number + app.env.titles[doc].astext()

    items = "\n".join(
        f'<li><a href="{prefix}{app.builder.get_target_uri(doc)}">'
        f"{html.escape(numbered_title(doc))}</a></li>" for doc in docs)
    app.config.notfound_context = {
        "title": "Page not found",
        "pagetitle": "Page not found",  # the theme's heading for print
        "body": ("<h1>Page not found</h1>\n<p>No page of the book has this address. It may "
                 "have moved, or the address may be mistyped. The book's pages:</p>\n"
                 f'<ul class="not-found-pages">\n{items}\n</ul>\n'),
    }
    return []


def draw_preview(app, exception):
    """_static/og-image.png, 1200 x 630: the book's title on the left; on the right, chapter 7's
    graph of the one-neuron loss, as toygrad's viz.make_dot draws it."""
    if exception is not None or app.builder.format != "html":
        return
    import textwrap

    import matplotlib
    from PIL import Image, ImageDraw, ImageFont

    import toygrad
    from toygrad import viz

    w = toygrad.tensor([0.5, -1.0], requires_grad=True)
    b = toygrad.tensor(0.1, requires_grad=True)
    x, y = toygrad.tensor([2.0, 1.0]), toygrad.tensor(0.3)
    loss = ((w @ x + b).tanh() - y) ** 2
    dot = viz.make_dot(loss, params={"w": w, "b": b})
    dot.graph_attr.update(dpi="150", size="", pad="0.1")
    graph = Image.open(io.BytesIO(dot.pipe(format="png")))
    width, height = OG_IMAGE_SIZE
    margin = 40
    graph.thumbnail((width // 2 - margin, height - 2 * margin))
    picture = Image.new("RGB", OG_IMAGE_SIZE, "white")
    picture.paste(graph, (width - margin - graph.width, (height - graph.height) // 2))
    # DejaVu Sans, which matplotlib ships: the picture needs no font of the system's.
    fonts = Path(matplotlib.get_data_path()) / "fonts" / "ttf"
    bold = ImageFont.truetype(str(fonts / "DejaVuSans-Bold.ttf"), 52)
    regular = ImageFont.truetype(str(fonts / "DejaVuSans.ttf"), 34)
    title, _, subtitle = (app.config.html_title or app.config.project).partition("? ")
    lines = [(line, bold) for line in textwrap.wrap(title + ("?" if subtitle else ""), 18)]
    lines += [(line, regular) for line in textwrap.wrap(subtitle, 28)]
    draw = ImageDraw.Draw(picture)
    top = (height - sum(font.size * 1.3 for _, font in lines)) / 2
    for line, font in lines:
        draw.text((margin + 20, top), line, font=font, fill="#1f2937")
        top += font.size * 1.3
    picture.save(Path(app.outdir) / OG_IMAGE, optimize=True)


def setup(app):
    # After footer_links, which decides whether repository.url is the placeholder.
    app.connect("config-inited", configure, priority=600)
    app.connect("html-page-context", drop_unknown_addresses, priority=600)
    # Before sphinx-notfound-page reads its context (priority 500).
    app.connect("html-collect-pages", not_found_page, priority=400)
    app.connect("build-finished", draw_preview)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
