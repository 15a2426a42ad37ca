"""The front page, the site's name and the figures redrawn for a phone (issue 29, items 7
and 9; the website review's P10, P13, P14 and P16), read from the built files.

Part of the site check (``make site-check``); ``BOOK_HTML`` points it at another build, to
see what it catches there.
"""

import os
import re
import sys
from html import unescape
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from book_pdf import toc_pages  # noqa: E402  (the pages in _toc.yml, root first)

HTML = Path(os.environ.get("BOOK_HTML", ROOT / "_build" / "html"))
pytestmark = pytest.mark.site

NAME = "Who calls backward?"
DARK_BACKGROUND = (0x14, 0x18, 0x1E)  # pydata-sphinx-theme's --pst-color-background, dark
PHONE_INCHES = 5.2  # wider, a picture no longer fits a 390 px phone at 70% (book.js)
COLUMN_INCHES = 7.5  # the text column at 1400 px


def page(name):
    path = HTML / f"{name}.html"
    if not path.exists():
        pytest.fail(f"no {path}: build the book first (make build)")
    return path.read_text()


def luminance(rgb):
    def linear(c):
        c /= 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (linear(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a, b):
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def svg_inches(svg):
    """An SVG's width in inches (matplotlib and Graphviz write points)."""
    width = re.search(r'<svg[^>]*?\swidth="([\d.]+)pt"', svg, re.S)
    assert width, "an SVG without a width in points"
    return float(width[1]) / 72


def figures_of(name):
    """The SVG files of a page's figures (its cells' pictures), in order; of a picture drawn
    for both colour modes (_ext/themed_figures.py), the light version."""
    return [(HTML / Path(name).parent / src).resolve()
            for tag, src in re.findall(r'(<img[^>]*\ssrc="([^"]*_images/[^"]+\.svg)"[^>]*>)',
                                       page(name))
            if "only-dark" not in tag]


def test_titles_name_the_book_once_and_stay_short():
    # The home page's <title> said the name twice, and every page's ended in the book's
    # 60-character full title.
    found = {}
    for name in toc_pages():
        title = unescape(re.search(r"<title>(.*?)</title>", page(name), re.S)[1])
        if title.count(NAME) != 1 or not title.endswith(f" \u2014 {NAME}"):
            found[name] = title
    assert found == {}


def test_dark_mode_logo_has_light_strokes():
    # The logo's #444 arrows vanished on the dark theme (contrast 1.9 : 1).
    front = page(toc_pages()[0])
    dark = re.search(r'<img src="([^"]+)" class="logo__image only-dark', front)
    assert dark, "no logo for dark mode"
    svg = (HTML / dark[1]).read_text()
    strokes = set(re.findall(r'stroke="#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})"', svg))
    assert strokes, "a logo drawn with lines"

    def rgb(hex_colour):
        if len(hex_colour) == 3:
            hex_colour = "".join(c * 2 for c in hex_colour)
        return tuple(int(hex_colour[i:i + 2], 16) for i in (0, 2, 4))

    faint = {c for c in strokes if contrast(rgb(c), DARK_BACKGROUND) < 3}
    assert faint == set()


def test_footer_names_the_authors_in_a_sentence():
    footer = re.search(r'class="component-author">(.*?)</p>', page(toc_pages()[0]), re.S)
    assert footer and " ".join(footer[1].split()) == "By the toygrad book team"


def test_front_page_shows_the_graph_two_ways_a_way_in_and_every_chapter():
    front = page(toc_pages()[0])
    pair = re.search(r'<div class="toygrad-side-by-side">(.*?)</div></div>', front, re.S)
    # (Each graph in its light and its dark version.)
    assert pair and len(re.findall(r'<img class="only-light', pair[1])) == 2, \
        "the two engines' graphs"
    assert "same nodes, names and edges" in pair[1]
    buttons = re.findall(r'<a class="sd-sphinx-override sd-btn[^"]*" href="([^"#]*)', front)
    assert buttons == ["chapters/ch01_question.html", "chapters/appendix_instructors.html"]
    cards = re.findall(r'<a class="sd-stretched-link[^"]*" href="([^"#]*)', front)
    assert cards == [f"{name}.html" for name in toc_pages()[1:]]


def test_chapter_9_s_sequence_diagrams_fit_a_phone():
    # Fig. 9.1 and 9.2 were 5.3 inches wide: on a phone they scrolled sideways.
    wide = {path.name: round(svg_inches(path.read_text()), 2)
            for path in figures_of("chapters/ch09_inside_pytorch")}
    assert wide and all(inches <= PHONE_INCHES for inches in wide.values()), wide


def test_the_chapter_map_fits_the_column():
    # It was 9.2 inches wide (885 px in a 784 px column), and clipped.
    (chart,) = figures_of("chapters/appendix_instructors")
    assert svg_inches(chart.read_text()) <= COLUMN_INCHES

