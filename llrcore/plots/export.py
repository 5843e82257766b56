"""Static export of figures (PNG, SVG, PDF) through kaleido and the installed Chromium.

Kaleido draws a plotly figure in a headless Chromium. Starting a browser costs seconds, so one export server is
started on first use (``kaleido.start_sync_server()``) and serves every later figure of the process in a fraction
of a second. Where no Chromium-family browser is installed, or it cannot start, :class:`ExportUnavailable` says so
in a sentence; nothing else in llrcore needs a browser (the HTML report draws its figures in the reader's browser).

An exported image is trimmed to what is drawn, with :data:`MARGIN` CSS pixels of background on every side. Plotly
lays a figure out on a fixed canvas (the figure's height and :data:`DEFAULT_WIDTH`) and leaves the rest blank: a
square DET is centred in that width with hundreds of blank pixels on either side, and a legend anchored to the
canvas's bottom edge touches it. The blank is measured on the drawn pixels, the one thing every family of figure
has in common, and cut away: from the PNG itself; for SVG and PDF, from a PNG of the same canvas, whose box becomes
the SVG's ``viewBox``, and the PDF is that SVG printed on a page of its size (Chromium's own print of a wide figure
would also cut off its bottom few pixels). The three formats show the same region. Give both ``width`` and
``height`` for an image of exactly that size instead.

Examples
--------
>>> from llrcore.plots import export
>>> export.export_problem() is None               # doctest: +SKIP
True
>>> png = export.figure_to_image(fig, "png")       # doctest: +SKIP
>>> export.write_figure(fig, "det.svg")            # doctest: +SKIP
"""
from __future__ import annotations

import base64
import io
import os
import re
import threading
import time
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypedDict

import plotly.graph_objects as go

from . import _trim

__all__ = [
    "ExportUnavailable",
    "EXPORT_FORMATS",
    "MARGIN",
    "find_browser",
    "export_problem",
    "figure_to_image",
    "write_figure",
    "figures_zip",
    "close_export_server",
]

#: The static formats offered (kaleido also writes jpeg and webp; these are the ones for papers and slides).
EXPORT_FORMATS = ("png", "svg", "pdf")
DEFAULT_WIDTH = 1100  # pixels; figures set their own height (style_figure), kaleido's default width is 700
#: Background left around the drawing of a trimmed image, in CSS pixels (times ``scale`` in a PNG): clear of the
#: figure's frame lines and legend border, and under 1 % of the width a figure is drawn at.
MARGIN = 10
_TIMEOUT = 120.0  # seconds for one figure, browser start included
_INSTALL_HINT = ("install Chromium (Debian/Ubuntu: apt-get install chromium) or Google Chrome, or point the "
                 "BROWSER_PATH environment variable at one")


class ExportUnavailable(RuntimeError):
    """Static export cannot run on this machine; the message says why and what to do about it."""


_lock = threading.Lock()  # the kaleido server answers one request at a time (its queues are not per caller)


class _ServerState(TypedDict):
    """The export server of this process, shared by every export."""

    started: bool  # the kaleido server is up
    broken: str | None  # why export cannot work here, once known
    failure: str | None  # what the browser's thread said when it died
    hook: bool  # the thread hook that hears it is installed


_state: _ServerState = {"started": False, "broken": None, "failure": None, "hook": False}


def find_browser() -> str | None:
    """Path of the Chromium-family browser kaleido would use (``BROWSER_PATH`` first), or None if there is none."""
    override = os.environ.get("BROWSER_PATH")
    if override:
        return override if os.path.isfile(override) and os.access(override, os.X_OK) else None
    try:
        from choreographer.browsers.chromium import Chromium
    except ImportError:  # kaleido (and so choreographer) not installed
        return None
    try:
        return Chromium.find_browser(skip_local=False)
    except Exception:  # best-effort search: any failure means "not found"
        return None


def export_problem() -> str | None:
    """Why static export cannot work here, as a sentence; None when kaleido and a browser are present.

    The check is cheap (no browser is started); a browser that is present but fails to start is reported by
    :func:`figure_to_image` instead.

    Returns
    -------
    str or None
        The reason, e.g. ``"Static export needs a Chromium-family browser."``, or None.
    """
    if _state["broken"]:
        return _state["broken"]
    try:
        import kaleido  # noqa: F401 - only whether it is installed
    except ImportError:
        return "Static export needs the Python package kaleido (pip install kaleido)."
    if os.environ.get("BROWSER_PATH") and find_browser() is None:
        return (f"Static export needs a browser, but BROWSER_PATH={os.environ['BROWSER_PATH']!r} is not an "
                "executable file.")
    if find_browser() is None:
        return f"Static export needs a Chromium-family browser and none was found: {_INSTALL_HINT}."
    return None


def _server_thread():
    """The thread of kaleido's export server, if kaleido exposes it (it dies when the browser cannot start)."""
    import kaleido

    return getattr(getattr(kaleido, "_global_server", None), "_thread", None)


def _record_server_failure() -> None:
    """Keep what killed kaleido's server thread (its browser did not start) for the user's message, instead of a
    traceback on stderr; exceptions of every other thread still go to the previous hook."""
    if _state["hook"]:
        return
    previous = threading.excepthook

    def hook(args):
        if args.thread is not None and args.thread is _server_thread():
            reason = args.exc_value.args[0] if args.exc_value is not None and args.exc_value.args else ""
            _state["failure"] = str(reason) or args.exc_type.__name__
            return
        previous(args)

    threading.excepthook = hook
    _state["hook"] = True


def _call_server(fig: go.Figure, opts: dict) -> bytes:
    """One request to the persistent server, watched: kaleido waits forever if its browser died on start."""
    import kaleido

    if not _state["started"]:
        _record_server_failure()
        kaleido.start_sync_server(silence_warnings=True)
        _state["started"] = True
    outcome = {}

    def request():
        try:
            outcome["image"] = kaleido.calc_fig_sync(fig, opts=opts)
        except BaseException as error:  # noqa: BLE001 - handed back to the caller's thread
            outcome["error"] = error

    worker = threading.Thread(target=request, daemon=True)
    worker.start()
    deadline = time.monotonic() + _TIMEOUT
    while worker.is_alive():
        worker.join(0.05)
        server = _server_thread()
        if worker.is_alive() and (server is not None and not server.is_alive() or time.monotonic() > deadline):
            reason = "did not start" if server is not None and not server.is_alive() else "did not answer"
            detail = f" ({_state['failure']})" if _state["failure"] else ""
            _state["broken"] = (f"Static export is unavailable: the browser {find_browser()} {reason}{detail}; "
                                f"{_INSTALL_HINT}.")
            _state["started"] = False
            kaleido.stop_sync_server(silence_warnings=True)
            raise ExportUnavailable(_state["broken"])
    if "error" in outcome:
        error = outcome["error"]
        raise ExportUnavailable(f"The figure could not be exported: {type(error).__name__}: {error}") from error
    return outcome["image"]


def figure_to_image(fig: go.Figure, format: str = "png", *, width: int | None = None, height: int | None = None,
                    scale: float = 2.0) -> bytes:
    """The figure as PNG, SVG or PDF bytes, drawn by kaleido in the persistent export server.

    The image is trimmed to what is drawn, with :data:`MARGIN` CSS pixels of background on every side (see the
    module documentation), unless both `width` and `height` are given.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
    format : {"png", "svg", "pdf"}
    width, height : int, optional
        Size in CSS pixels of the canvas the figure is drawn on; default the figure's own (``layout.width`` and
        ``height``), else 1100 x 600. Given both, the image has exactly that size and is not trimmed.
    scale : float
        Pixel density of PNG images (2 = sharp on a projector and in print); vector formats keep it as their
        nominal size, as kaleido does.

    Returns
    -------
    bytes
        The image file's bytes.

    Raises
    ------
    ExportUnavailable
        When kaleido or a browser is missing or the browser cannot start, with the reason.
    ValueError
        For an unknown format.
    """
    format = str(format).lower()
    if format not in EXPORT_FORMATS:
        raise ValueError(f"Figures are exported as {', '.join(EXPORT_FORMATS)}, not {format!r}.")
    problem = export_problem()
    if problem:
        raise ExportUnavailable(problem)
    opts: dict[str, Any] = dict(format=format, scale=scale,
                width=width or fig.layout.width or DEFAULT_WIDTH, height=height or fig.layout.height or 600)
    exact = width is not None and height is not None
    with _lock:
        if format == "png":
            png = _call_server(fig, opts)
            return png if exact else _trim.trim_png(png, round(MARGIN * scale))
        view = (0, 0, opts["width"], opts["height"]) if exact else _drawn_view(fig, opts)
        svg = _trim.svg_view(_call_server(fig, {**opts, "format": "svg"}), view, scale)
        return svg if format == "svg" else _svg_to_pdf(svg, view[2:], scale)


# ----- trimming: the drawn region of a PNG, and the same region of an SVG or a PDF -----------------------------------


def _drawn_view(fig: go.Figure, opts: dict) -> tuple[int, int, int, int]:
    """``(x, y, width, height)`` in CSS pixels of what the figure draws on its canvas, with :data:`MARGIN` pixels
    around it (measured on a PNG of the canvas at scale 1); the whole canvas if nothing is drawn."""
    found = _trim.drawn_box(_call_server(fig, {**opts, "format": "png", "scale": 1}))
    if found is None:
        return 0, 0, opts["width"], opts["height"]
    left, top, right, bottom = found[1]
    return left - MARGIN, top - MARGIN, right - left + 2 * MARGIN, bottom - top + 2 * MARGIN


def _svg_to_pdf(svg: bytes, size: tuple[int, int], scale: float) -> bytes:
    """A one-page PDF of `svg` (`size` CSS pixels), drawn by Chromium as vectors, on a page of exactly that size.

    Chromium prints a canvas shrunk to the width of the page's printable area (inside margins of its own) and cuts
    off what then overflows at the bottom: a wide figure printed as it is loses its bottom few pixels, a legend's
    frame for one. So the SVG is placed at the top of a canvas at least as tall as it is wide, which never
    overflows, and the page is then cut to the SVG's rectangle.
    """
    width, height = size
    page_height = max(height, width)
    holder = go.Figure(layout=dict(
        width=width, height=page_height, margin=dict(l=0, r=0, t=0, b=0, pad=0), template="none",
        paper_bgcolor="white", plot_bgcolor="white", xaxis=dict(visible=False), yaxis=dict(visible=False),
        images=[dict(source="data:image/svg+xml;base64," + base64.b64encode(svg).decode("ascii"), xref="paper",
                     yref="paper", x=0, y=1, sizex=1, sizey=height / page_height, xanchor="left", yanchor="top",
                     sizing="stretch", layer="above")],
    ))
    pdf = _call_server(holder, dict(format="pdf", scale=scale, width=width, height=page_height))
    return _trim.crop_pdf(pdf, (width, page_height), (0, 0, width, height))


def write_figure(fig: go.Figure, path, *, format: str | None = None, **options) -> Path:
    """Write the figure to `path`, in the format its suffix names (``.png``, ``.svg``, ``.pdf``) unless given."""
    path = Path(path)
    format = format or path.suffix.lstrip(".").lower() or "png"
    path.write_bytes(figure_to_image(fig, format, **options))
    return path


def _file_stem(title: str) -> str:
    stem = re.sub(r"[^0-9A-Za-z]+", "_", title).strip("_").lower()
    return stem or "figure"


def figures_zip(figures: Mapping[str, go.Figure], format: str = "png", **options: Any) -> bytes:
    """A zip archive of several figures, one file each, named after the mapping's keys (``"DET"`` -> det.png).

    Parameters
    ----------
    figures : mapping of str to plotly.graph_objects.Figure
        The figures by title; titles that give the same file name are numbered (``det_2.png``).
    format : {"png", "svg", "pdf"}
        The format of every file.
    **options
        Passed to :func:`figure_to_image` (``width``, ``height``, ``scale``).

    Returns
    -------
    bytes
        The zip archive.
    """
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        used = set()
        for title, fig in figures.items():
            stem, k = _file_stem(str(title)), 2
            while stem in used:
                stem, k = f"{_file_stem(str(title))}_{k}", k + 1
            used.add(stem)
            archive.writestr(f"{stem}.{format}", figure_to_image(fig, format, **options))
    return buffer.getvalue()


def close_export_server() -> None:
    """Stop the export server (it is also stopped when Python exits); the next export starts it again."""
    with _lock:
        if _state["started"]:
            import kaleido

            kaleido.stop_sync_server(silence_warnings=True)
            _state["started"] = False
