"""Sphinx configuration of llrcore's documentation site.

Build it from the repository's folder (``pip install -e ".[docs]"`` first):

    sphinx-build -W -b html docs docs/_build/html

The user guide is the Markdown pages of docs/ (MyST reads them as they are; tests/project/test_readme.py runs their
examples and checks their links), the API reference is written from ``llrcore.__all__`` (docs/apigen.py), the
command-line reference from ``llrcore.cli.build_parser()`` (sphinx-argparse), and the gallery runs the scripts of
examples/ at build time, their plotly figures embedded by plotly's own sphinx-gallery scraper (its PNGs, the
thumbnails, come from kaleido through the system's Chromium) with the plotly.js of plotly's package
(docs/plotly_offline.py: the site draws them opened from disk, offline).
"""
from __future__ import annotations

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path[:0] = [str(DOCS.parent), str(DOCS)]  # this checkout's llrcore, and apigen

import llrcore  # noqa: E402
from apigen import write_api_reference  # noqa: E402
from plotly_offline import add_plotly_js, copy_plotly_js  # noqa: E402

write_api_reference(DOCS)

project = "llrcore"
author = "the llrcore authors"
copyright = "the llrcore authors, MIT licence"
version = release = llrcore.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinxarg.ext",
    "sphinx_gallery.gen_gallery",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build"]

# The pages link to each other's headings by GitHub's anchors, which MyST makes for every heading level.
myst_heading_anchors = 6
myst_enable_extensions = ["colon_fence"]

autosummary_generate = False  # docs/apigen.py writes the pages; autosummary only draws the tables
autodoc_default_options = {"member-order": "bysource"}
numpydoc_show_class_members = False  # autodoc's :members: lists them, once

sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"\.py$",  # every example runs: the gallery shows what llrcore draws today
    "image_scrapers": ("plotly_offline.scrape",),
    "download_all_examples": False,
    "within_subsection_order": "FileNameSortKey",
}

html_theme = "pydata_sphinx_theme"
html_title = f"llrcore {release}"
html_logo = "../assets/logo.svg"
html_favicon = "../assets/icon.svg"
# The header shows the first toctree's entries: the front door, the gallery and the two references; "More" the rest.
html_theme_options = {"show_toc_level": 2, "navigation_with_keys": False, "header_links_before_dropdown": 4}
html_show_sourcelink = False

#: Pages of the repository outside docs/ that the guide links to (``../README.md`` is right on GitHub), and the page
#: of the site that includes each (docs/repository/).
REPOSITORY_PAGES = {"../README.md": "repository/readme.md", "../bench/RESULTS.md": "repository/bench-results.md"}


def link_into_the_site(app, docname: str, source: list[str]) -> None:
    """Point the guide's links to README.md and bench/RESULTS.md at the site's pages that include them."""
    if "/" not in docname:
        for path, page in REPOSITORY_PAGES.items():
            source[0] = source[0].replace(f"]({path}", f"]({page}")


def setup(app) -> None:
    app.connect("source-read", link_into_the_site)
    app.connect("html-page-context", add_plotly_js)
    app.connect("build-finished", copy_plotly_js)
