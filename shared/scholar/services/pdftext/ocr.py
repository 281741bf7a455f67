"""Text for a page without a text layer (a scan): render it with pdfium, read it with Tesseract.

The engine is Debian's ``tesseract-ocr`` (its English model ships inside the package: nothing is downloaded at run
time), run as a process per page (TSV out). It runs on one machine; the Lambda layer does not carry it, so there a
scanned page stays ``pages_without_text`` and the hint names the docling converter, which reads scans with OCR.

Each recognised line becomes a ``TextLine`` in PDF points, so the layout steps (columns, reading order, headings,
page markers) treat a scanned page as they treat a text page.
"""

from __future__ import annotations

import csv
import io
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

import pypdfium2 as pdfium

from scholar.core.config import get_environ
from scholar.services.pdftext.lines import TextLine

# Tesseract's models are trained at about 300 dpi; PDF user space is 72 units per inch.
DPI = 300
_SCALE = DPI / 72
# A line box spans ascenders to descenders: about 1.25 times the font size.
_BOX_PER_SIZE = 1.25
# Tesseract scores some clear words 0 (`you’ll` split at a curly apostrophe): keep every word it found; -1 marks rows
# that are not words (blocks, lines).
_MIN_CONFIDENCE = 0.0
_TIMEOUT_S = 120


@cache
def engine() -> str | None:
    """The tesseract binary, or None where it is not installed (then scanned pages stay without text)."""
    return shutil.which("tesseract")


def ocr_page(document: pdfium.PdfDocument, index: int, languages: str = "eng") -> list[TextLine]:
    """The lines Tesseract reads on page ``index`` (0-based), in PDF points; the caller holds ``PDFIUM``.

    Raises:
        RuntimeError: the engine is missing, failed or timed out on the page (the page then stays without text).
    """
    binary = engine()
    if binary is None:
        raise RuntimeError("tesseract is not installed")
    page = document[index]
    try:
        height = page.get_height()
        image = page.render(scale=_SCALE, grayscale=True).to_pil()
    finally:
        page.close()
    png = io.BytesIO()
    image.save(png, format="PNG")
    del image
    try:
        done = subprocess.run(  # a fixed binary and arguments; the page image goes in on stdin
            [binary, "stdin", "stdout", "-l", languages, "--dpi", str(DPI), "tsv"],
            input=png.getvalue(), capture_output=True, timeout=_TIMEOUT_S, check=False, env=_engine_environment(),
        )
    except subprocess.TimeoutExpired as exc:
        raise RuntimeError(f"tesseract took over {_TIMEOUT_S} s") from exc
    if done.returncode != 0:
        raise RuntimeError(done.stderr.decode("utf-8", "replace").strip()[-300:] or f"exit {done.returncode}")
    return lines_of(_table(done.stdout.decode("utf-8", "replace")), page_height=height)


def _engine_environment() -> dict[str, str]:
    """One OpenMP thread (a conversion is one page at a time, and Tesseract's threads fight a busy machine: measured
    2-3x slower wall time under load), the C locale Tesseract asks for, and a user's own model folder if set."""
    environment = {"OMP_THREAD_LIMIT": "1", "LC_ALL": "C"}
    if models := get_environ("TESSDATA_PREFIX"):
        environment["TESSDATA_PREFIX"] = models
    return environment


def _table(tsv: str) -> dict[str, list[str]]:
    """Tesseract's TSV output as columns (``level page_num block_num par_num line_num word_num left top … text``)."""
    rows = list(csv.reader(io.StringIO(tsv), delimiter="\t", quoting=csv.QUOTE_NONE))
    if not rows:
        return {"text": []}
    header, body = rows[0], [row for row in rows[1:] if len(row) == len(rows[0])]
    return {name: [row[i] for row in body] for i, name in enumerate(header)}


def lines_of(data: Mapping[str, Sequence[Any]], *, page_height: float) -> list[TextLine]:
    """Tesseract's word table (its TSV as columns) as lines in PDF points, in Tesseract's order.

    Words are grouped by (block, paragraph, line); a line's box is the union of its words' boxes; a line ending
    in a letter and a hyphen is marked hyphenated (the hyphen removed), as the text-layer reader does.
    """
    grouped: dict[tuple[int, int, int], list[int]] = {}
    for i, text in enumerate(data["text"]):
        if str(text).strip() and float(data["conf"][i]) >= _MIN_CONFIDENCE:
            key = (int(data["block_num"][i]), int(data["par_num"][i]), int(data["line_num"][i]))
            grouped.setdefault(key, []).append(i)
    lines = []
    for words in grouped.values():
        left = min(int(data["left"][i]) for i in words)
        top = min(int(data["top"][i]) for i in words)
        right = max(int(data["left"][i]) + int(data["width"][i]) for i in words)
        bottom = max(int(data["top"][i]) + int(data["height"][i]) for i in words)
        text = " ".join(str(data["text"][i]).strip() for i in words)
        hyphenated = len(text) > 2 and text.endswith("-") and text[-2].isalpha()
        box_height = (bottom - top) / _SCALE
        lines.append(TextLine(
            text=text[:-1] if hyphenated else text,
            x0=left / _SCALE,
            y0=page_height - bottom / _SCALE,
            x1=right / _SCALE,
            y1=page_height - top / _SCALE,
            size=round(box_height / _BOX_PER_SIZE, 1),
            hyphenated=hyphenated,
        ))
    return lines
