#!/bin/sh
# jupyter-book build . ARGS..., then, on a first build, once more from the execution cache.
#
# On a first build into an empty _build/html, the pages link the stylesheets and scripts that
# extensions copy at the end of the build (MyST-NB's, sphinx-exercise's, MathJax) without the
# "?v=checksum" Sphinx adds to a file already there; every later build adds it. Every page
# would then change once, at the first build after a fresh one, and the site and PDF checks,
# keyed on the pages' bytes, would redo every visit and print. The second pass renders from
# the execution cache (no notebook runs again) as every later build will.
#
#     scripts/build_book.sh JUPYTER_BOOK [--all] [sphinx options...]
set -e
jupyter_book=$1
shift
fresh=
[ -d _build/html/_static ] || fresh=yes
"$jupyter_book" build . "$@"
if [ -n "$fresh" ]; then
    echo "[build_book] first build: rendering every page again, from the execution cache"
    "$jupyter_book" build . --all "$@"
fi
