"""The gallery's plotly figures drawn by the plotly.js that ships with plotly, not from its CDN (docs/conf.py).

plotly's sphinx-gallery scraper embeds each figure with a ``<script>`` that loads plotly.js from cdn.plot.ly: a site
opened from disk with no network drew empty boxes. :func:`scrape` leaves that tag out, and :func:`add_plotly_js`
gives the gallery's pages the copy of plotly.js in plotly's package instead, loaded before the figures.
"""
from __future__ import annotations

import logging
import re
import shutil
from pathlib import Path

import plotly
from plotly.io._sg_scraper import plotly_sg_scraper  # importing it selects its renderer for fig.show()

#: plotly.js as plotly ships it, the version its figures are written for.
PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
# kaleido and its browser driver log every step of their shutdown at exit, after the build has said all it has to.
for _logger in ("kaleido", "choreographer"):
    logging.getLogger(_logger).setLevel(logging.WARNING)
CDN_SCRIPT = re.compile(r'<script[^>]*src="https://cdn\.plot\.ly/[^"]*"[^>]*></script>')


def scrape(block, block_vars, gallery_conf, **kwargs) -> str:
    """plotly's scraper, without the tag that loads plotly.js from the network."""
    return CDN_SCRIPT.sub("", plotly_sg_scraper(block, block_vars, gallery_conf, **kwargs))


def add_plotly_js(app, pagename: str, templatename, context, doctree) -> None:
    """A gallery page loads plotly.js from the site's own files (Sphinx adds a file given here to this page only)."""
    if pagename.startswith(f"{app.config.sphinx_gallery_conf['gallery_dirs']}/"):
        app.add_js_file(PLOTLY_JS.name)


def copy_plotly_js(app, exception) -> None:
    """Put plotly.js among the site's static files."""
    if exception is None and app.builder.format == "html":
        shutil.copy(PLOTLY_JS, Path(app.outdir) / "_static" / PLOTLY_JS.name)
