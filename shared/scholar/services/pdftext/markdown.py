"""Positioned text lines → Markdown: reading order, headings, paragraphs and tables, de-hyphenation.

Pure layout logic over ``scholar.services.pdftext.lines`` values; ``scholar.services.pdftext.convert`` produces the
lines with
pypdfium2. The steps: running heads dropped and the document's style read (``lines``), each page placed in
reading order (``reading_order``), headings marked (``headings``), then paragraphs, tables and joined,
de-hyphenated text here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from scholar.services.pdftext.headings import mark_headings, same_style
from scholar.services.pdftext.lines import (
    BULLET,
    WORD,
    DocumentStyle,
    PageText,
    Placed,
    TextLine,
    document_style,
    drop_running_lines,
)
from scholar.services.pdftext.outline import OCR_MARK
from scholar.services.pdftext.reading_order import place_page

_KEEP_HYPHEN_PREFIXES = frozenset({"non", "self", "cross", "well", "semi", "quasi"})
_TABLE = -1  # block kind of a run of table rows
_TERMINAL = (".", "!", "?", ":", ".)", '."', ".”")


def render_markdown(pages: Sequence[PageText]) -> tuple[str, str | None]:
    """Render pages as Markdown with a ``<!-- page N -->`` marker before each page.

    Args:
        pages: the pages with their positioned lines.

    Returns:
        The Markdown text and the detected title (the level-1 heading), if any.
    """
    cleaned = drop_running_lines(pages)
    style = document_style(cleaned)
    placed_pages = [place_page(page, lines) for page, lines in zip(pages, cleaned, strict=True)]
    mark_headings(placed_pages, style)
    title: str | None = None
    out: list[str] = []
    for page, placed in zip(pages, placed_pages, strict=True):
        out.append(f"<!-- page {page.number} -->")
        if page.ocr:
            out.append(OCR_MARK)
        blocks = _blocks(placed, style)
        for level, text in blocks:
            if level:
                if level == 1 and title is None:
                    title = text
                out.append(f"{'#' * level} {text}")
            else:
                out.append(text)
        rotated = [ln.text.strip() for ln in page.lines if ln.rotated and ln.text.strip()]
        if rotated:
            out.append(_escape(" ".join(rotated)))
    return "\n\n".join(out) + "\n", title



def _blocks(placed: list[Placed], style: DocumentStyle) -> list[tuple[int, str]]:
    """Group placed lines into (heading level, text) blocks in reading order (level 0: body text)."""
    blocks: list[tuple[int, list[TextLine]]] = []
    for i, item in enumerate(placed):
        ln = item.line
        prev = placed[i - 1] if i > 0 else None
        nxt = placed[i + 1] if i + 1 < len(placed) else None
        if _is_table_row(item, prev, nxt):
            if blocks and blocks[-1][0] == _TABLE and prev is not None and prev.segment == item.segment:
                blocks[-1][1].append(ln)
            else:
                blocks.append((_TABLE, [ln]))
            continue
        if item.heading:
            if (
                blocks
                and blocks[-1][0] == item.heading
                and prev is not None
                and prev.heading == item.heading
                and same_style(prev.line, ln)
                and prev.line.y0 - ln.y1 < 1.2 * ln.size
            ):
                blocks[-1][1].append(ln)
                continue
            blocks.append((item.heading, [ln]))
            continue
        if (
            prev is None
            or prev.heading
            or not blocks
            or blocks[-1][0] == _TABLE
            or _starts_paragraph(item, prev, nxt, style)
        ):
            blocks.append((0, [ln]))
        else:
            blocks[-1][1].append(ln)
    result = []
    for level, lines in blocks:
        if level == _TABLE:
            result.append((0, _table(lines)))
            continue
        text = _join_lines(lines, style.vocabulary)
        if text:
            if level == 0 and text.startswith(BULLET):
                text = "- " + text[1:].lstrip()
            result.append((level, _escape(text) if level == 0 else text))
    return result


def _is_table_row(item: Placed, prev: Placed | None, nxt: Placed | None) -> bool:
    """A line of several cells next to another such line in the same column run."""
    if item.line.cells < 2 or item.heading:
        return False
    return any(o is not None and o.segment == item.segment and o.line.cells >= 2 for o in (prev, nxt))


def _table(lines: Sequence[TextLine]) -> str:
    """Rows of cells as a Markdown table (cells are not aligned to columns: PDF tables have no grid)."""
    rows = [[_cell(c) for c in ln.text.split("\t")] for ln in lines]
    width = max(len(r) for r in rows)
    out = []
    for i, row in enumerate(rows):
        out.append("| " + " | ".join(row + [""] * (width - len(row))) + " |")
        if i == 0:
            out.append("|" + " --- |" * width)
    return "\n".join(out)


def _cell(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().replace("|", "\\|")


def _starts_paragraph(item: Placed, prev: Placed, nxt: Placed | None, style: DocumentStyle) -> bool:
    ln, pl = item.line, prev.line
    size = max(ln.size, 1.0)
    if ln.text.lstrip().startswith(BULLET):
        return True
    if abs(ln.size - pl.size) > 0.15 * max(ln.size, pl.size):
        return True
    prev_short = pl.x1 < prev.col_right - 2.0 * size
    prev_ends = pl.text.rstrip().endswith(_TERMINAL)
    if item.segment != prev.segment:
        # A column or band change: the paragraph goes on unless the last line ended it.
        if prev_short and prev_ends:
            return True
        return _indented(ln, item, size) and prev_ends
    gap = pl.y0 - ln.y1
    if gap > 0.9 * size:
        return True
    if prev_short and prev_ends:
        return True
    # Indentation differs from both neighbours: a first-line indent, or an outdented hanging item.
    if nxt is not None and nxt.segment == item.segment and not nxt.heading:
        differs_next = abs(ln.x0 - nxt.line.x0) > 0.6 * size
        differs_prev = abs(ln.x0 - pl.x0) > 0.6 * size
        if differs_next and differs_prev and ln.x0 < item.col_left + 4 * size:
            return prev_ends or ln.x0 > nxt.line.x0 or ln.x0 < pl.x0
    return False


def _indented(ln: TextLine, item: Placed, size: float) -> bool:
    return item.col_left + 0.6 * size < ln.x0 < item.col_left + 4 * size


def _join_lines(lines: Sequence[TextLine], vocabulary: frozenset[str]) -> str:
    text = ""
    hyphen_pending = False
    for ln in lines:
        part = re.sub(r"\s+", " ", ln.text).strip()
        if not part:
            continue
        if not text:
            text = part
        elif hyphen_pending:
            text = _dehyphenate(text, part, vocabulary)
        elif text.endswith(("-", "\u2010")) and len(text) > 1 and text[-2].isalpha():
            text = _dehyphenate(text[:-1], part, vocabulary)
        else:
            text = f"{text} {part}"
        hyphen_pending = ln.hyphenated
    if hyphen_pending:
        text += "-"
    return text


def _dehyphenate(left_text: str, right_text: str, vocabulary: frozenset[str]) -> str:
    """Join a word broken at a line end: drop the hyphen unless it is a real one."""
    left_token = left_text.rsplit(" ", 1)[-1]
    right_token = right_text.split(" ", 1)[0]
    if _keep_hyphen(left_token, right_token, vocabulary):
        return f"{left_text}-{right_text}"
    return f"{left_text}{right_text}"


def _keep_hyphen(left: str, right: str, vocabulary: frozenset[str]) -> bool:
    lw = "".join(WORD.findall(left.lower()))
    rw_match = WORD.match(right.lower())
    if not lw or not rw_match or not left[-1:].isalpha():
        return True
    rw = rw_match.group(0)
    joined, hyphenated = lw + rw, f"{lw}-{rw}"
    if joined in vocabulary and hyphenated not in vocabulary:
        return False
    if hyphenated in vocabulary and joined not in vocabulary:
        return True
    if "-" in left or right[:1].isupper() or right[:1].isdigit():
        return True
    if any(c.isupper() or c.isdigit() for c in left.lstrip("([{\"'“")[1:]):
        return True
    return lw.lstrip("([{\"'“") in _KEEP_HYPHEN_PREFIXES


def _escape(text: str) -> str:
    """Keep body text from turning into Markdown structure by accident."""
    if text.startswith(("#", ">", "<!--")):
        return "\\" + text
    return text
