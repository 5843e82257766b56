"""Cutting an exported figure to what it draws: the box of a PNG's drawn pixels, the same box of an SVG and a PDF.

Plotly lays a figure out on a fixed canvas and leaves the rest blank (a square DET in an 1100 pixel wide canvas has
hundreds of blank pixels on either side). The drawn box is measured on pixels, the one thing every family of
figure has in common, with Pillow; an SVG shows the same box through its ``viewBox``; a PDF page is cut to it by
pypdf. Used by :mod:`llrcore.plots.export`.
"""
from __future__ import annotations

import io
import re

import numpy as np
from PIL import Image, ImageChops
from pypdf import PdfReader, PdfWriter
from pypdf.generic import RectangleObject

Box = tuple[int, int, int, int]  # left, top, right, bottom in pixels; right and bottom excluded


def drawn_box(png: bytes) -> tuple[float | tuple[int, ...] | None, Box] | None:
    """The background colour (the commonest of the four corners) and the box of every pixel of another colour;
    None for a blank image."""
    image = Image.open(io.BytesIO(png))
    width, height = image.size
    corners = [image.getpixel(corner) for corner in ((0, 0), (width - 1, 0), (0, height - 1),
                                                      (width - 1, height - 1))]
    background = max(corners, key=corners.count)
    difference = ImageChops.difference(image, Image.new(image.mode, image.size, background))
    box = difference.convert("RGB").getbbox()  # RGB: an RGBA difference has zero alpha everywhere
    return None if box is None else (background, box)


def trim_png(png: bytes, margin: int) -> bytes:
    """The PNG cut to its drawn box, with `margin` pixels of its background colour on every side."""
    found = drawn_box(png)
    if found is None:
        return png
    background, (left, top, right, bottom) = found
    image = Image.open(io.BytesIO(png))
    trimmed = Image.new(image.mode, (right - left + 2 * margin, bottom - top + 2 * margin), background)
    trimmed.paste(image.crop((left, top, right, bottom)), (margin, margin))
    out = io.BytesIO()
    trimmed.save(out, format="PNG")
    return out.getvalue()


def svg_view(svg: bytes, view: tuple[float, float, float, float], scale: float) -> bytes:
    """The SVG showing only `view` (x, y, width, height in CSS pixels), its nominal size `scale` times that; its
    background rectangle (plotly's first element) is stretched over the view, where the view reaches past the
    canvas."""
    x, y, w, h = view
    text = svg.decode("utf-8")
    root = re.search(r"<svg\b[^>]*>", text)
    assert root is not None  # (plotly's SVG)
    tag = re.sub(r'\swidth="[^"]*"', f' width="{w * scale:g}"', root.group())
    tag = re.sub(r'\sheight="[^"]*"', f' height="{h * scale:g}"', tag)
    tag = re.sub(r'\sviewBox="[^"]*"', f' viewBox="{x:g} {y:g} {w:g} {h:g}"', tag)
    rest = re.sub(r'^<rect x="0" y="0" width="[^"]*" height="[^"]*"',
                  f'<rect x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}"', text[root.end():], count=1)
    return (text[:root.start()] + tag + rest).encode("utf-8")


def crop_pdf(pdf: bytes, canvas: tuple[float, float], view: tuple[float, float, float, float]) -> bytes:
    """The one-page PDF with its page cut to `view` (x, y, width, height in CSS pixels of the `canvas` it printed);
    unchanged when the page never draws the canvas's own rectangle.

    Where the canvas lies on the page is read from the page's drawing: the transformation in effect where the
    rectangle ``0 0 width height`` of the canvas is filled (PDF 1.7, section 8.3: ``cm`` multiplies the current
    transformation from the left, ``q`` and ``Q`` save and restore it).
    """
    reader = PdfReader(io.BytesIO(pdf))
    page = reader.pages[0]
    contents = page.get_contents()  # None: the page draws nothing
    placement = None if contents is None else _canvas_placement(contents.operations, canvas)
    if placement is None:
        return pdf
    x, y, w, h = view
    corners = np.array([[x, y, 1.0], [x + w, y + h, 1.0]]) @ placement
    box = RectangleObject([*corners[:, :2].min(axis=0), *corners[:, :2].max(axis=0)])
    page.mediabox = page.cropbox = box
    writer = PdfWriter()
    writer.add_page(page)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _canvas_placement(operations, canvas: tuple[float, float]) -> np.ndarray | None:
    """The matrix taking canvas pixels ``[x, y, 1]`` to page points where the drawing first draws the rectangle
    ``0 0 width height``; None if it never does."""
    matrix, saved = np.eye(3), []
    for operands, operator in operations:
        if operator == b"q":
            saved.append(matrix)
        elif operator == b"Q" and saved:
            matrix = saved.pop()
        elif operator == b"cm":
            a, b, c, d, e, f = (float(v) for v in operands)
            matrix = np.array([[a, b, 0.0], [c, d, 0.0], [e, f, 1.0]]) @ matrix
        elif operator == b"re" and [float(v) for v in operands] == [0.0, 0.0, *map(float, canvas)]:
            return matrix
    return None
