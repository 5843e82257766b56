"""Static export through kaleido: real images from one persistent server, and a sentence where it cannot work."""
from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import zipfile

import numpy as np
import pytest

import llrcore as lc
from llrcore import export

HAVE_BROWSER = shutil.which("chromium") is not None or bool(os.environ.get("BROWSER_PATH"))
needs_browser = pytest.mark.skipif(not HAVE_BROWSER, reason="no Chromium to draw with (apt-get install chromium)")


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
    script = ("import plotly.graph_objects as go\nfrom llrcore import export\n"
              "try:\n    export.figure_to_image(go.Figure(), 'png')\n"
              "except export.ExportUnavailable as error:\n    print(error)\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                            env={**os.environ, "BROWSER_PATH": shutil.which("false") or "/bin/false"})
    assert "did not start" in result.stdout and "install Chromium" in result.stdout
    assert "Traceback" not in result.stderr
