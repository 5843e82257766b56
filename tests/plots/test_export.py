"""Static export through kaleido: real images from one persistent server, and a sentence where it cannot work.

Independent references: the white borders are counted on the pixels Pillow decodes; poppler's ``pdftoppm`` draws
the PDFs (it is skipped where poppler is not installed; CI installs it).
"""
from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys
import zipfile

import numpy as np
import pytest
from PIL import Image

import llrcore as lc
from llrcore.plots import export
from paths import DATA

HAVE_BROWSER = shutil.which("chromium") is not None or bool(os.environ.get("BROWSER_PATH"))
needs_browser = pytest.mark.skipif(not HAVE_BROWSER, reason="no Chromium to draw with (apt-get install chromium)")
ASV_EVAL = DATA / "asvspoof2019_la" / "ASVspoof2019.LA.asv.eval.gi.trl.scores.txt"
# The blank border allowed around a trimmed figure, in CSS pixels: small (about 1 % of the 1100 pixels a figure is
# drawn across) yet clear of the figure's frame lines and legend border; the four sides may differ by the one
# pixel a line's antialiasing takes, at the image's scale.
SMALL_BORDER = 12


@pytest.fixture(scope="module")
def det():
    rng = np.random.default_rng(0)
    return lc.plots.det_figure(lc.Trials(rng.normal(2, 1, 300), rng.normal(-2, 1, 3000), name="toy"))


@needs_browser
def test_png_svg_pdf_from_one_persistent_server(det):
    import kaleido

    assert export.export_problem() is None
    png = export.figure_to_image(det, "png", width=800, height=600, scale=1)
    server = kaleido._global_server._thread
    svg = export.figure_to_image(det, "svg")
    pdf = export.figure_to_image(det, "pdf")
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")  # IHDR
    assert (width, height) == (800, 600)
    assert svg.lstrip().startswith(b"<svg") and b"False-alarm rate" in svg  # text stays text in SVG
    assert pdf[:5] == b"%PDF-"
    assert kaleido._global_server._thread is server and server.is_alive()  # the same browser served all three


@needs_browser
def test_write_figure_by_suffix_and_zip_of_figures(det, tmp_path):
    path = export.write_figure(det, tmp_path / "det.svg")
    assert path.read_bytes().lstrip().startswith(b"<svg")
    archive = zipfile.ZipFile(io.BytesIO(export.figures_zip({"DET": det, "Bayes error": det}, "png", scale=1)))
    assert archive.namelist() == ["det.png", "bayes_error.png"]
    assert archive.read("det.png")[:4] == b"\x89PNG"


def test_unknown_format_is_refused(det):
    with pytest.raises(ValueError, match="png, svg, pdf"):
        export.figure_to_image(det, "bmp")


def test_a_browser_path_that_is_not_a_browser_is_named(monkeypatch, det):
    monkeypatch.setenv("BROWSER_PATH", "/nonexistent/chrome")
    assert "BROWSER_PATH='/nonexistent/chrome'" in export.export_problem()
    with pytest.raises(export.ExportUnavailable, match="not an executable file"):
        export.figure_to_image(det, "png")


def test_no_browser_at_all_says_what_to_install(monkeypatch, det):
    monkeypatch.delenv("BROWSER_PATH", raising=False)
    monkeypatch.setattr(export, "find_browser", lambda: None)
    problem = export.export_problem()
    assert "Chromium" in problem and "apt-get install chromium" in problem
    with pytest.raises(export.ExportUnavailable):
        export.figure_to_image(det, "png")


def test_without_kaleido_the_package_is_named(monkeypatch):
    monkeypatch.setitem(sys.modules, "kaleido", None)  # import kaleido now raises ImportError
    assert "pip install kaleido" in export.export_problem()


def test_a_browser_that_dies_on_start_is_reported_not_waited_for(tmp_path):
    """kaleido's server waits forever when its browser dies; the export must say so instead, without a traceback.

    Run in a fresh interpreter: the failure leaves this process's export server stopped for good.
    """
    script = ("import plotly.graph_objects as go\nfrom llrcore.plots import export\n"
              "try:\n    export.figure_to_image(go.Figure(), 'png')\n"
              "except export.ExportUnavailable as error:\n    print(error)\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                            env={**os.environ, "BROWSER_PATH": shutil.which("false") or "/bin/false"})
    assert "did not start" in result.stdout and "install Chromium" in result.stdout
    assert "Traceback" not in result.stderr


# ----- trimmed to what is drawn ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def asv_figures():
    trials = lc.read_trials(ASV_EVAL)
    return {"DET": lc.plots.det_figure(trials, p_target=0.01), "APE": lc.plots.ape_figure(trials)}


def _pixels(png: bytes) -> np.ndarray:
    image = Image.open(io.BytesIO(png))
    return np.asarray(image.convert("RGB"))


def _white_borders(pixels: np.ndarray) -> tuple[int, int, int, int]:
    """How many all-white columns and rows the image has on its left, top, right and bottom."""
    blank = np.all(pixels == 255, axis=2)
    rows, columns = np.flatnonzero(~blank.all(axis=1)), np.flatnonzero(~blank.all(axis=0))
    height, width = blank.shape
    return int(columns[0]), int(rows[0]), int(width - 1 - columns[-1]), int(height - 1 - rows[-1])


@needs_browser
@pytest.mark.parametrize("name", ["DET", "APE"])
def test_exported_png_has_a_small_even_white_border(asv_figures, name):
    borders = _white_borders(_pixels(export.figure_to_image(asv_figures[name], "png")))  # scale 2
    assert max(borders) <= 2 * SMALL_BORDER, borders
    assert max(borders) - min(borders) <= 2, borders


@needs_browser
def test_every_report_figure_is_exported_with_a_small_even_border():
    rng = np.random.default_rng(3)
    report = lc.build_report({"toy": lc.Trials(rng.normal(2, 1, 200), rng.normal(-2, 1, 2000))}, p_target=0.01)
    for key, item in report.figures.items():
        borders = _white_borders(_pixels(export.figure_to_image(item.figure, "png", scale=1)))
        assert max(borders) <= SMALL_BORDER and max(borders) - min(borders) <= 1, (key, borders)


@needs_browser
def test_svg_shows_the_region_of_the_png(asv_figures):
    png = _pixels(export.figure_to_image(asv_figures["DET"], "png", scale=1))
    svg = export.figure_to_image(asv_figures["DET"], "svg", scale=1).decode()
    root = re.search(r"<svg\b[^>]*>", svg).group()
    size = [float(re.search(rf'\s{attribute}="([^"]*)"', root).group(1)) for attribute in ("width", "height")]
    view = [float(v) for v in re.search(r'viewBox="([^"]*)"', root).group(1).split()]
    assert size == view[2:] and abs(size[0] - png.shape[1]) <= 1 and abs(size[1] - png.shape[0]) <= 1
    assert size[0] < 0.75 * export.DEFAULT_WIDTH  # the square DET's blank sides are cut away, as in the PNG


@needs_browser
@pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="draws PDFs with poppler: apt-get install poppler-utils")
@pytest.mark.parametrize("name", ["DET", "APE"])
def test_pdf_page_is_the_png_with_nothing_cut_off(asv_figures, name, tmp_path):
    """Chromium prints a wide figure shrunk to the page's width and cuts off its bottom; the PDF must not."""
    png = _pixels(export.figure_to_image(asv_figures[name], "png", scale=1))
    (tmp_path / "figure.pdf").write_bytes(export.figure_to_image(asv_figures[name], "pdf", scale=1))
    subprocess.run(["pdftoppm", "-png", "-singlefile", "-scale-to-x", str(png.shape[1]), "-scale-to-y", "-1",
                    str(tmp_path / "figure.pdf"), str(tmp_path / "page")], check=True)
    page = _pixels((tmp_path / "page.png").read_bytes())
    assert abs(page.shape[0] - png.shape[0]) <= 2  # the same proportions
    borders = _white_borders(page)
    assert max(borders) <= SMALL_BORDER and max(borders) - min(borders) <= 2, borders


def test_crop_leaves_a_page_without_drawing_unchanged():
    """A PDF page with no content stream draws no canvas, so cropping leaves the PDF as it is (as for a page whose
    drawing never fills the canvas's rectangle); it was an AttributeError (mypy found it: pypdf's contents may be
    None). Reference: pypdf's own blank page."""
    from pypdf import PdfWriter

    from llrcore.plots import _trim

    writer, out = PdfWriter(), io.BytesIO()
    writer.add_blank_page(width=200, height=100)
    writer.write(out)
    blank = out.getvalue()
    assert _trim.crop_pdf(blank, (200.0, 100.0), (10.0, 10.0, 50.0, 50.0)) == blank
