"""Reading order of one page: two columns found by a vertical gutter, bands cut by the lines that cross it.

Two-column pages are detected by a vertical gutter that (almost) no line crosses; lines that do cross it
(titles, wide figures) cut the page into bands, and each band is read left column first, then right column.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from scholar.services.pdftext.lines import PageText, Placed, TextLine

_CELL_GAP = 1.0  # a horizontal gap wider than this many font sizes separates table cells


def _find_gutter(lines: Sequence[TextLine]) -> float | None:
    """x of a vertical gutter splitting the page into two columns, or None for a one-column page.

    Only column-like lines vote (a quarter to 60% of the text width): table cells, labels and
    full-width lines would otherwise hide the gutter of the text below or above them.
    """
    body = [ln for ln in lines if ln.x1 - ln.x0 > 1]
    if len(body) < 8:
        return None
    left = min(ln.x0 for ln in body)
    right = max(ln.x1 for ln in body)
    width = right - left
    if width <= 0:
        return None
    voters = [ln for ln in body if 0.25 * width <= ln.x1 - ln.x0 <= 0.6 * width]
    if len(voters) < 6:
        return None
    best: tuple[int, float, float] | None = None
    centre = left + width / 2
    x = left + 0.3 * width
    while x <= left + 0.7 * width:
        crossing = sum(1 for ln in voters if ln.x0 < x - 0.5 and ln.x1 > x + 0.5)
        key = (crossing, abs(x - centre), x)
        if best is None or key < best:
            best = key
        x += 1.0
    assert best is not None
    crossing, _, gutter = best
    n_left = sum(1 for ln in voters if ln.x1 <= gutter + 0.5)
    n_right = sum(1 for ln in voters if ln.x0 >= gutter - 0.5)
    if n_left < 3 or n_right < 3 or crossing > 0.2 * (n_left + n_right):
        return None
    # A one-column page whose table cells happen to leave a gap: its text lines are full width.
    wide = sum(1 for ln in body if ln.x1 - ln.x0 > 0.6 * width)
    if wide > n_left + n_right:
        return None
    return gutter


def _rows(lines: Iterable[TextLine]) -> list[TextLine]:
    """Sort top-down, merging fragments that share a baseline into one line (left to right)."""
    ordered = sorted(lines, key=lambda ln: (-ln.y1, ln.x0))
    rows: list[list[TextLine]] = []
    for ln in ordered:
        if rows:
            ref = rows[-1][0]
            overlap = min(ref.y1, ln.y1) - max(ref.y0, ln.y0)
            if overlap > 0.5 * min(ref.height, ln.height):
                rows[-1].append(ln)
                continue
        rows.append([ln])
    merged = []
    for row in rows:
        row.sort(key=lambda ln: ln.x0)
        if len(row) == 1:
            merged.append(row[0])
            continue
        main = max(row, key=lambda ln: len(ln.text))
        # Fragments far apart are table cells (joined by a tab); close ones are one cell.
        text = row[0].text.strip()
        cells = 1
        for before, after in zip(row, row[1:], strict=False):  # neighbours: one shorter on purpose
            far = after.x0 - before.x1 > _CELL_GAP * max(main.size, 1.0)
            cells += far
            text += ("\t" if far else " ") + after.text.strip()
        merged.append(
            TextLine(
                text=text,
                x0=row[0].x0,
                y0=min(ln.y0 for ln in row),
                x1=max(ln.x1 for ln in row),
                y1=max(ln.y1 for ln in row),
                size=main.size,
                bold=all(ln.bold for ln in row),
                hyphenated=row[-1].hyphenated,
                cells=cells,
            )
        )
    return merged


def place_page(page: PageText, lines: Sequence[TextLine]) -> list[Placed]:
    body = [ln for ln in lines if not ln.rotated]
    if not body:
        return []
    gutter = _find_gutter(body)
    page_left = min(ln.x0 for ln in body)
    page_right = max(ln.x1 for ln in body)
    if gutter is None:
        return [Placed(ln, page_left, page_right, 0) for ln in _rows(body)]
    left_lines = [ln for ln in body if ln.x1 <= gutter + 0.5]
    right_lines = [ln for ln in body if ln.x0 >= gutter - 0.5]
    left_edge = (page_left, max(ln.x1 for ln in left_lines))
    right_edge = (min(ln.x0 for ln in right_lines), page_right)
    placed: list[Placed] = []
    segment = 0
    band_left: list[TextLine] = []
    band_right: list[TextLine] = []

    def flush() -> None:
        nonlocal segment
        for side, edge in ((band_left, left_edge), (band_right, right_edge)):
            if side:
                segment += 1
                placed.extend(Placed(ln, edge[0], edge[1], segment) for ln in _rows(side))
            side.clear()

    for ln in sorted(body, key=lambda ln: -ln.y1):
        if ln.x1 <= gutter + 0.5:
            band_left.append(ln)
        elif ln.x0 >= gutter - 0.5:
            band_right.append(ln)
        else:
            flush()
            segment += 1
            placed.append(Placed(ln, page_left, page_right, segment))
    flush()
    # Spanning lines next to each other (a centred title block) form one run.
    return _merge_spanning_rows(placed)


def _merge_spanning_rows(placed: list[Placed]) -> list[Placed]:
    """Consecutive full-width lines (a title block, a single-column abstract) form one run."""
    for prev, item in zip(placed, placed[1:], strict=False):  # neighbours: one shorter on purpose
        if (
            (prev.col_left, prev.col_right) == (item.col_left, item.col_right)
            and prev.segment != item.segment
            and _spans(prev)
            and _spans(item)
        ):
            item.segment = prev.segment
    return placed


def _spans(item: Placed) -> bool:
    return item.line.x0 < (item.col_left + item.col_right) / 2 < item.line.x1

