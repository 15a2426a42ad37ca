"""Every picture a cell draws, in a light and a dark version.

The chapters' figures are SVGs drawn for a white page: matplotlib's plots and Graphviz's graphs
(toygrad.viz, torchviz). In dark mode pydata-sphinx-theme put each one on a light slab and dimmed
it with a filter (the website review's P3). Here each such picture is drawn a second time for
the dark page, and the page shows the version of its colour mode (the theme's ``only-light`` and
``only-dark`` classes; printing is always light).

The dark version keeps every colour's hue and chroma and mirrors its lightness, measured as
perceived lightness (OKLab's L, https://bottosson.github.io/posts/oklab/): the white background
becomes the dark page's near-black, black text and lines become near-white, a pale node fill a
deep one, and a gold or green node stays gold or green, dark enough that its (now light) label
still reads.

The dark version is loaded lazily: a reader in light mode never downloads it. Pictures given
as ``data:`` URIs (toygrad.viz's graphs) are written out as files too, so a page
does not carry both versions inline.
"""

import base64
import hashlib
import re
from pathlib import Path

from matplotlib import colors as mcolors

# Graphviz's X11 names that CSS (and so matplotlib's table) does not know.
X11_EXTRA = {
    "darkolivegreen1": "#caff70",
    "lightgoldenrod1": "#ffec8b",
    "gray": "#c0c0c0", "grey": "#c0c0c0",  # X11's gray, not CSS's #808080 (Graphviz uses X11)
}
# Perceived lightness of the white page and of the text on the dark page.
DARK_BACKGROUND_L = 0.20
DARK_TEXT_L = 0.93
# Below this chroma (OKLab), a colour counts as a grey; above this lightness, as pale (a box
# behind black text: a pale green node, a cream box of a matplotlib diagram), deepened in the
# dark version so its label, turned light, still reads.
GREY_CHROMA = 0.04
PALE = 0.8

ROOT = re.compile(r"<svg\b(?![^>]*\sfill=)")
GRAPHVIZ_NODE = re.compile(r'<g id="[^"]*" class="node">.*?</g>', re.S)
GRAPHVIZ_BACKGROUND = re.compile(r'(<g id="graph0" class="graph"[^>]*>\s*<title>[^<]*</title>\s*'
                                 r'<polygon )fill="[^"]*"')
MATPLOTLIB_BACKGROUND = re.compile(r'(<g id="patch_1">\s*<path [^>]*?style=")fill: #[0-9a-f]{6}')
LEGEND = re.compile(r'<ul class="stepper-legend".*?</ul>', re.S)
SWATCH = re.compile(r'<span style="[^"]*"></span>')
SPAN_STYLE = re.compile(r'(style=")([^"]*)(")')
STYLE_COLOUR = re.compile(r"(?<=[:\s])(#[0-9a-fA-F]{6}\b|#[0-9a-fA-F]{3}\b|[a-z]+\b)(?![-(])")
THIS_FILE = Path(__file__).read_bytes()
IMG = re.compile(r"<img\b[^>]*>")
SRC = re.compile(r'\bsrc="([^"]*)"')
COLOUR = re.compile(
    r'(?P<key>(?:fill|stroke|color|stop-color|flood-color)\s*(?:=\s*"|:\s*))'
    r'(?P<value>#[0-9a-fA-F]{6}\b|#[0-9a-fA-F]{3}\b|[a-zA-Z]+[0-9]*)')


def _linear(c):
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def _gamma(c):
    c = min(max(c, 0.0), 1.0)
    return 12.92 * c if c <= 0.0031308 else 1.055 * c ** (1 / 2.4) - 0.055


def to_oklab(rgb):
    r, g, b = (_linear(c) for c in rgb)
    l = (0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b) ** (1 / 3)
    m = (0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b) ** (1 / 3)
    s = (0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b) ** (1 / 3)
    return (0.2104542553 * l + 0.7936177850 * m - 0.0040720468 * s,
            1.9779984951 * l - 2.4285922050 * m + 0.4505937099 * s,
            0.0259040371 * l + 0.7827717662 * m - 0.8086757660 * s)


def from_oklab(lab):
    L, a, b = lab
    l = (L + 0.3963377774 * a + 0.2158037573 * b) ** 3
    m = (L - 0.1055613458 * a - 0.0638541728 * b) ** 3
    s = (L - 0.0894841775 * a - 1.2914855480 * b) ** 3
    return (4.0767416621 * l - 3.3077115913 * m + 0.2309699292 * s,
            -1.2684380046 * l + 2.6097574011 * m - 0.3413193965 * s,
            -0.0041960863 * l - 0.7034186147 * m + 1.7076147010 * s)


def _in_gamut(linear):
    return all(-1e-4 <= c <= 1 + 1e-4 for c in linear)


def _rgb_of(L, a, b):
    scale = 1.0
    while scale > 0 and not _in_gamut(from_oklab((L, a * scale, b * scale))):
        scale -= 0.02
    return mcolors.to_hex([_gamma(c) for c in from_oklab((L, a * max(scale, 0),
                                                              b * max(scale, 0)))])


def dark_version(colour):
    """The colour for the dark page. A grey (white and black included) mirrors its
    lightness: white becomes the page's near-black, black near-white. A colour keeps its hue
    and chroma, and its lightness too when it shows on the dark page and is not pale; a pale
    one (a box behind black text) is deepened and a dark one (dark red text, navy) lightened,
    as a grey would be."""
    L, a, b = to_oklab(mcolors.to_rgb(colour))
    mirrored = DARK_TEXT_L - (DARK_TEXT_L - DARK_BACKGROUND_L) * L
    if (a * a + b * b) ** 0.5 < GREY_CHROMA or L > PALE or L < mirrored:
        L = mirrored
    return _rgb_of(L, a, b)


def keeps_dark_text(colour):
    """Whether a node filled with ``colour`` stays light in the dark version (a pale green
    or gold node does; a white or grey one turns dark): its black label then stays black."""
    return to_oklab(mcolors.to_rgb(dark_version(colour)))[0] > 0.6


def _named(value):
    name = value.lower()
    if name in ("none", "transparent", "currentcolor", "inherit", "url"):
        return None
    if name in X11_EXTRA:
        return X11_EXTRA[name]
    try:
        return mcolors.to_hex(name)
    except ValueError:
        return None


def _swap_colours(svg):
    def swap(match):
        value = match["value"]
        colour = value if value.startswith("#") else _named(value)
        if colour is None:
            return match[0]
        return match["key"] + dark_version(colour)
    return COLOUR.sub(swap, svg)


def _node(group):
    """One Graphviz node in the dark version: a node whose fill stays light keeps its black
    label (SVG's default fill, written out, since the root's fill turns light)."""
    fill = re.search(r'<(?:polygon|ellipse|path)\b[^>]*\bfill="([^"]+)"', group)
    colour = fill and (fill[1] if fill[1].startswith("#") else _named(fill[1]))
    if colour is None or not keeps_dark_text(colour):
        return _swap_colours(group)
    shapes = re.sub(r"<text\b[^>]*>.*?</text>", lambda text: "\0" + text[0] + "\0", group,
                    flags=re.S).split("\0")
    # Shapes' colours change; labels keep theirs (black where they name none).
    return "".join(part if part.startswith("<text") and "fill=" in part.split(">", 1)[0]
                   else part.replace("<text", '<text fill="#000000"', 1)
                   if part.startswith("<text") else _swap_colours(part) for part in shapes)


def dark_svg(svg):
    """The SVG's text with every colour replaced by its dark version (see dark_version).
    Text that names no colour is black (SVG's default fill; Graphviz and matplotlib leave
    black text so): the root element gets the dark version of black as the fill its elements
    inherit, and a Graphviz node that stays light keeps black text."""
    between = GRAPHVIZ_NODE.split(svg)
    nodes = [_node(group) for group in GRAPHVIZ_NODE.findall(svg)] + [""]
    svg = "".join(_swap_colours(part) + node for part, node in zip(between, nodes))
    # The picture's own background goes: the dark page shows through (Graphviz's first
    # polygon of the graph, matplotlib's figure patch).
    svg = GRAPHVIZ_BACKGROUND.sub(r'\1fill="none"', svg, count=1)
    svg = MATPLOTLIB_BACKGROUND.sub(r"\1fill: none", svg, count=1)
    return ROOT.sub(lambda m: m[0] + f' fill="{dark_version("#000000")}"', svg, count=1)


def _class_added(tag, name):
    if ' class="' in tag:
        return tag.replace(' class="', f' class="{name} ', 1)
    return tag.replace("<img", f'<img class="{name}"', 1)


def themed(body, source_of, images_dir, prefix):
    """``body`` with each SVG picture shown in both versions. ``source_of(src)`` gives the
    SVG text of a picture's ``src`` (None: leave the picture as it is); the new files go to
    ``images_dir``, named as the page links them (``prefix`` + file name)."""
    def pair(match):
        tag = match[0]
        if "only-light" in tag or "only-dark" in tag:
            return tag
        src = SRC.search(tag)
        if src is None:
            return tag
        svg = source_of(src[1])
        if svg is None:
            return tag
        # Named by content and by this file (a changed dark version gets a new name).
        digest = hashlib.sha256(svg.encode() + THIS_FILE).hexdigest()[:16]
        images_dir.mkdir(parents=True, exist_ok=True)
        light_name, dark_name = f"themed-{digest}.svg", f"themed-{digest}-dark.svg"
        for name, text in ((light_name, svg), (dark_name, dark_svg(svg))):
            path = images_dir / name
            if not path.exists():
                path.write_text(text)
        light = _class_added(tag.replace(src[0], f'src="{prefix}{light_name}"'), "only-light")
        dark = _class_added(tag.replace(src[0], f'src="{prefix}{dark_name}"'), "only-dark")
        # Loaded only when dark mode shows it: a light page does not fetch it at all (a
        # hidden lazy picture is never near the screen). Printing is always light.
        if "loading=" not in dark:
            dark = dark.replace("<img", '<img loading="lazy"', 1)
        return f'<span class="themed-figure">{light}{dark}</span>'
    return IMG.sub(pair, body)


def _dark_style(style):
    """An inline style with each colour it names in its dark version."""
    def swap(match):
        colour = match[0] if match[0].startswith("#") else _named(match[0])
        return match[0] if colour is None else dark_version(colour)
    return STYLE_COLOUR.sub(swap, style)


def themed_legends(body):
    """The stepper's legend (toygrad.viz.stepper) names its nodes' colours with swatches:
    each swatch in the light and the dark version, as the frames beside it."""
    def legend(match):
        def swatch(span):
            light = span[0].replace("<span ", '<span class="only-light" ', 1)
            dark = SPAN_STYLE.sub(lambda m: m[1] + _dark_style(m[2]) + m[3],
                                  span[0].replace("<span ", '<span class="only-dark" ', 1))
            return light + dark
        return SWATCH.sub(swatch, match[0])
    return LEGEND.sub(legend, body)


def _svg_source(app, pagename):
    images = {name: Path(source) for source, name in app.builder.images.items()}

    def source_of(src):
        if src.startswith("data:image/svg+xml;base64,"):
            return base64.b64decode(src.split(",", 1)[1]).decode()
        if src.startswith("data:image/svg+xml"):
            from urllib.parse import unquote
            return unquote(src.split(",", 1)[1])
        name = src.rsplit("/", 1)[-1]
        if "_images/" not in src or not name.endswith(".svg") or name not in images:
            return None
        path = images[name]
        if not path.is_absolute():
            path = Path(app.srcdir) / path
        return path.read_text()
    return source_of


def on_page(app, pagename, templatename, context, doctree):
    if doctree is None or "body" not in context:
        return
    depth = pagename.count("/")
    prefix = "../" * depth + "_images/"
    context["body"] = themed_legends(themed(context["body"], _svg_source(app, pagename),
                                            Path(app.outdir) / "_images", prefix))


def setup(app):
    app.connect("html-page-context", on_page)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
