"""Figures and tables by label: find the caption line on its page, cut the region it describes, render it as PNG.

A caption is a line that starts with its label and a separator ("Figure 3:", "Fig. 3.", "Table 2 |"); a line
such as "Table 12 shows ..." is a reference, used only when no caption line exists. The region is grown from
the caption: a figure upwards through the page's graphics (images, paths, forms) that touch each other, a table
downwards through its rows and rules until a gap or a paragraph line (a table whose caption sits below it is
grown upwards the same way). When nothing can be grown the whole page is rendered and the answer says
``region: "page"``. Coordinates are PDF points (origin bottom left, y up). Every pdfium call holds ``PDFIUM``.
"""

from __future__ import annotations

import io
import os
import re
from dataclasses import dataclass
from typing import Literal

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from scholar.services.pdftext.convert import open_document, page_text
from scholar.services.pdftext.labels import Label, line_label
from scholar.services.pdftext.lines import TextLine
from scholar.services.pdftext.lock import PDFIUM

Region = Literal["figure", "table", "page"]

_GRAPHICS = frozenset({pdfium_c.FPDF_PAGEOBJ_PATH, pdfium_c.FPDF_PAGEOBJ_IMAGE, pdfium_c.FPDF_PAGEOBJ_SHADING,
                       pdfium_c.FPDF_PAGEOBJ_FORM})
GRAPHIC_GAP = 14.0  # points between two pieces of one figure (a figure and the text above are further apart)
ROW_GAP = 1.6  # line heights between two rows of one table
PAD = 4.0  # points around the region
MAX_SIDE_PX = 1600  # longest side of a rendered picture
SCALE = 2.0  # 144 dpi: small print stays legible
MAX_CAPTION_CHARS = 1200

Box = tuple[float, float, float, float]  # left, bottom, right, top


@dataclass(frozen=True)
class FigureImage:
    """A rendered figure or table region and what was found about it."""

    label: Label
    page: int  # 1-based
    caption: str
    region: Region
    box: Box
    png: bytes
    width_px: int
    height_px: int
    above_caption: bool = True  # the region lies above its caption (a figure; a table captioned below it)


def find_figure(source: str | os.PathLike[str] | bytes, label: Label) -> FigureImage | None:
    """Find ``label``'s caption in the PDF and render its region (or its whole page) as PNG.

    Returns:
        The picture and its facts; None when no line of the PDF starts with the label.

    Raises:
        PdfExtractionError: the PDF cannot be opened (encrypted, damaged).
    """
    with PDFIUM:
        document = open_document(source)
        try:
            found = _caption_line(document, label)
            if found is None:
                return None
            index, line, lines = found
            page = document[index]
            try:
                return _render_found(page, index, label, line, lines)
            finally:
                page.close()
        finally:
            document.close()


def _caption_line(document: pdfium.PdfDocument, label: Label) -> tuple[int, TextLine, list[TextLine]] | None:
    reference: tuple[int, TextLine, list[TextLine]] | None = None
    for index in range(len(document)):
        lines = [ln for ln in page_text(document, index).lines if not ln.rotated]
        for line in lines:
            hit = line_label(line)
            if hit is None or hit[0] != label:
                continue
            if hit[1]:
                return index, line, lines
            reference = reference or (index, line, lines)
    return reference


def _render_found(page: pdfium.PdfPage, index: int, label: Label, line: TextLine,
                  lines: list[TextLine]) -> FigureImage:
    width, height = page.get_size()
    caption_lines = _caption_block(line, lines)
    caption = " ".join(ln.text.strip() for ln in caption_lines)[:MAX_CAPTION_CHARS]
    low = min(ln.y0 for ln in caption_lines)
    span = _span(line, width)
    graphics = [] if page.get_rotation() else _graphic_boxes(page, width * height)
    captions = [c for c in lines if c is not line and (hit := line_label(c)) is not None and hit[1]]
    stops = [ln for c in captions for ln in _caption_block(c, lines)]
    others = [ln for ln in lines if not any(ln is c for c in caption_lines) and not any(ln is s for s in stops)]
    above = True
    if label.kind == "figure":
        box = _grow(line.y1, True, span, graphics, [], stops)
    else:  # a table's caption is usually above it; some styles put it below
        box = _grow(low, False, span, graphics, others, stops)
        above = box is None
        box = box or _grow(line.y1, True, span, graphics, others, stops)
    region: Region = label.kind if box is not None else "page"
    if box is None:
        box = (0.0, 0.0, width, height)
    else:
        box = (max(box[0] - PAD, 0.0), max(box[1] - PAD, 0.0), min(box[2] + PAD, width), min(box[3] + PAD, height))
    png, w_px, h_px = _render(page, box, width, height)
    return FigureImage(label=label, page=index + 1, caption=caption, region=region, box=box, png=png,
                       width_px=w_px, height_px=h_px, above_caption=above)


def _caption_block(line: TextLine, lines: list[TextLine]) -> list[TextLine]:
    """The caption line and the lines of its paragraph below it (same column, tight spacing)."""
    block = [line]
    current = line
    for candidate in sorted((ln for ln in lines if ln.y1 <= line.y1 and ln is not line), key=lambda ln: -ln.y1):
        if candidate.x1 < line.x0 - 2 or candidate.x0 > max(line.x1, current.x1) + 2:
            continue  # another column
        if abs(candidate.y0 - current.y0) < 0.5 * current.height:
            block.append(candidate)  # the rest of the caption's first line (a fragment on the same baseline)
            continue
        if current.y0 - candidate.y1 > 0.8 * current.height:
            break
        block.append(candidate)
        current = candidate
    return block


def _span(line: TextLine, width: float) -> tuple[float, float]:
    """The horizontal band the region may take: the caption's column, or the page width for a centred one."""
    centre = (line.x0 + line.x1) / 2
    if line.x1 - line.x0 > 0.55 * width or abs(centre - width / 2) < 0.12 * width:
        return 0.0, width
    return (0.0, width / 2) if centre < width / 2 else (width / 2, width)


def _graphic_boxes(page: pdfium.PdfPage, page_area: float) -> list[Box]:
    boxes = []
    for obj in page.get_objects(max_depth=0):
        if obj.type not in _GRAPHICS:
            continue
        left, bottom, right, top = obj.get_bounds()
        if (right - left) * (top - bottom) > 0.9 * page_area:
            continue  # a page background or frame, not a figure
        boxes.append((left, bottom, right, top))
    return boxes


def _overlaps(box: Box, span: tuple[float, float]) -> bool:
    return box[2] > span[0] + 1 and box[0] < span[1] - 1


def _grow(start: float, up: bool, span: tuple[float, float], graphics: list[Box], texts: list[TextLine],
          stops: list[TextLine]) -> Box | None:
    """The pieces beyond ``start`` (above it when ``up``) that follow one another without a gap, nearest first.

    Graphics join within ``GRAPHIC_GAP`` points, text rows within ``ROW_GAP`` line heights; a paragraph line
    (one fragment from the column's left edge to its right edge, alone on its baseline) or another caption ends
    the region.
    Returns None when no piece joins (for text: no row joins).
    """
    left, right = _column(texts, span)
    beyond = (lambda b: b[1] >= start - 2) if up else (lambda b: b[3] <= start + 2)
    items: list[tuple[Box, TextLine | None]] = [(b, None) for b in graphics if beyond(b) and _overlaps(b, span)]
    items += [(_box(t), t) for t in (*texts, *stops) if beyond(_box(t)) and _overlaps(_box(t), span)]
    items.sort(key=lambda item: item[0][1] if up else -item[0][3])
    box: Box | None = None
    edge = start
    for item, text in items:
        near = item[1] if up else item[3]
        gap = near - edge if up else edge - near
        if text is None:
            if gap > GRAPHIC_GAP:
                break
        else:
            if gap > ROW_GAP * max(text.height, 6.0) or any(text is s for s in stops):
                break
            alone = not any(o is not text and abs(o.y0 - text.y0) < 0.5 * text.height for o in texts)
            full = abs(text.x0 - left) < 3 and abs(text.x1 - right) < 3
            if alone and full and len(text.text) >= 30:
                break  # a (justified) paragraph line: the region has ended
        edge = max(edge, item[3]) if up else min(edge, item[1])
        box = item if box is None else (min(box[0], item[0]), min(box[1], item[1]), max(box[2], item[2]),
                                        max(box[3], item[3]))
    return box


def _column(texts: list[TextLine], span: tuple[float, float]) -> tuple[float, float]:
    """The left and right edges of the body text in ``span`` (where justified paragraph lines start and end)."""
    long = [t for t in texts if len(t.text) >= 30 and _overlaps(_box(t), span)]
    if not long:
        return span
    lefts, rights = sorted(t.x0 for t in long), sorted(t.x1 for t in long)
    return lefts[int(0.1 * (len(lefts) - 1))], rights[int(0.9 * (len(rights) - 1))]


def _box(line: TextLine) -> Box:
    return line.x0, line.y0, line.x1, line.y1


def _render(page: pdfium.PdfPage, box: Box, width: float, height: float) -> tuple[bytes, int, int]:
    """PNG of ``box`` (PDF points) at ``SCALE``, reduced so the longest side is at most ``MAX_SIDE_PX``.

    ``to_pil`` imports Pillow on first use, so Pillow costs nothing until a picture is asked for.
    """
    left, bottom, right, top = box
    scale = min(SCALE, MAX_SIDE_PX / max(right - left, top - bottom, 1.0))
    bitmap = page.render(scale=scale, crop=(left, bottom, width - right, height - top))
    try:
        picture = bitmap.to_pil()
    finally:
        bitmap.close()
    out = io.BytesIO()
    picture.save(out, format="PNG", optimize=True)
    return out.getvalue(), picture.width, picture.height


def markdown_table(page_markdown: str, caption: str, *, above: bool = False) -> str | None:
    """The Markdown table the converter wrote next to ``caption`` on its page, when it recognised one.

    It is looked for on the side where the table's picture was found (``above`` the caption, or below it), never
    past another caption: the rows after a caption that sits below its own table belong to the next table.
    """
    blocks = [b.strip() for b in page_markdown.split("\n\n") if b.strip()]
    head = re.sub(r"\s+", " ", caption)[:40].lower()
    for i, block in enumerate(blocks):
        if not re.sub(r"\s+", " ", block).lower().startswith(head[:20]):
            continue
        for near in (blocks[max(i - 2, 0): i][::-1] if above else blocks[i + 1: i + 3]):
            if near.startswith("|") and "\n|" in near:
                return near
            if _CAPTION_START.match(near):
                return None
        return None
    return None


_CAPTION_START = re.compile(r"(?:\*\*)?(?:Table|Tab\.|Figure|Fig\.)\s*[0-9IVXivx]+[.:]", re.IGNORECASE)
