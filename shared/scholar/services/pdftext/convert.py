"""The built-in PDF → Markdown converter: pypdfium2 text extraction, then ``scholar.services.pdftext.markdown`` layout.

pdfium is not thread-safe: run one conversion per process at a time (the PipelineFunction does).
Encrypted and image-only PDFs raise ``PdfExtractionError`` instead of returning empty Markdown.
"""

from __future__ import annotations

import ctypes
import logging
import os
import re
from collections import Counter
from pathlib import Path
from typing import Final, Literal

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
from pydantic import BaseModel, Field

from scholar.core.errors import UnavailableError
from scholar.services.pdftext.lines import PageText, TextLine
from scholar.services.pdftext.lock import PDFIUM
from scholar.services.pdftext.markdown import render_markdown
from scholar.services.pdftext.ocr import engine as ocr_engine
from scholar.services.pdftext.ocr import ocr_page

_log = logging.getLogger(__name__)

CONVERTER_NAME: Final = "builtin"
PDF_EXTRACTION_FAILED = "pdf_extraction_failed"

_LIGATURES = str.maketrans(
    {"ﬀ": "ff", "ﬁ": "fi", "ﬂ": "fl", "ﬃ": "ffi", "ﬄ": "ffl", "ﬅ": "st", "ﬆ": "st"}
)
_BOLD_NAME = re.compile(r"bold|black|heavy|semibold|demi|-medi|medium|^(cm|sf|ec|lm|tc)bx|^cmb\d", re.IGNORECASE)
_BOLD_SUFFIX = re.compile(r"(Libertine|Biolinum)\w*TB|TeXGyre\w*-Bold")
_HYPHEN_CODES = frozenset({0x02, 0xFFFE, 0x00AD})
# Split a line where two glyphs are further apart than this many font sizes (a column gutter, a
# table cell); the layout re-joins fragments that share a baseline within one column.
_SPLIT_GAP = 1.8


class PdfExtractionError(UnavailableError):
    """The PDF cannot be turned into text (encrypted, no text layer, damaged); retrying will not help."""

    default_hint = (
        "Try another copy of the paper (another source or URL). A scanned PDF needs OCR: on one machine install "
        "Tesseract (apt install tesseract-ocr, brew install tesseract); a docling-serve converter "
        "(SCHOLAR_DOCLING_URL) reads scans too."
    )
    # The hint fits the cause: OCR helps a scanned PDF, never a password-protected one.
    HINTS = {
        "encrypted": "The PDF is password-protected, so no converter can read it; try another copy of the paper "
        "(another source or URL).",
        "invalid_pdf": "The file is not a readable PDF; try another copy of the paper (another source or URL).",
    }

    def __init__(self, message: str, *, cause: str) -> None:
        super().__init__(message, reason=PDF_EXTRACTION_FAILED, retryable=False, details={"cause": cause},
                         hint=self.HINTS.get(cause))
        self.cause = cause


class ConvertedDocument(BaseModel):
    """Markdown of a whole PDF, with a ``<!-- page N -->`` marker before each page."""

    converter: Literal["builtin"] = CONVERTER_NAME
    markdown: str
    page_count: int = Field(ge=0)
    title: str | None = None
    pages_without_text: list[int] = Field(default_factory=list, description="1-based pages with no text layer")
    ocr_pages: list[int] = Field(default_factory=list, description="1-based pages read by OCR (no text layer)")
    char_count: int = Field(ge=0, description="extracted characters (excluding whitespace)")




def convert_pdf(source: bytes | str | os.PathLike[str], *, ocr_languages: str | None = "eng") -> ConvertedDocument:
    """Convert a PDF (bytes or a file path) to Markdown with the built-in converter.

    A page without a text layer is read with OCR (``scholar.services.pdftext.ocr``) where the engine is installed.

    Args:
        source: the PDF bytes, or the path of a PDF file (read lazily by pdfium; preferred for
            large files).
        ocr_languages: Tesseract's language codes for scanned pages (``eng``, ``deu+eng``); None reads no scan.

    Returns:
        The Markdown and facts about it.

    Raises:
        PdfExtractionError: the PDF is encrypted, damaged, or has no text at all (none in a text layer, none
            that OCR could read or no OCR engine here).
    """
    ocr_pages: list[int] = []
    with PDFIUM:
        document = _open(source)
        try:
            pages = [_extract_page(document, index) for index in range(len(document))]
            for page in pages:
                if ocr_languages and not _has_text(page) and (lines := _read_scan(document, page, ocr_languages)):
                    page.lines, page.ocr = lines, True
                    ocr_pages.append(page.number)
        finally:
            document.close()
    char_count = sum(len(ln.text.replace(" ", "")) for page in pages for ln in page.lines)
    if char_count == 0:
        raise PdfExtractionError(
            "no text layer (scanned image); OCR needed" if ocr_engine() is None or not ocr_languages
            else "no text layer, and OCR found no text on any page",
            cause="no_text_layer",
        )
    markdown, title = render_markdown(pages)
    return ConvertedDocument(
        markdown=markdown,
        page_count=len(pages),
        title=title,
        pages_without_text=[p.number for p in pages if not _has_text(p)],
        ocr_pages=ocr_pages,
        char_count=char_count,
    )


def _has_text(page: PageText) -> bool:
    return any(ln.text.strip() for ln in page.lines)


def _read_scan(document: pdfium.PdfDocument, page: PageText, languages: str) -> list[TextLine]:
    """The page's lines read by OCR; none where no engine is installed or it failed (the page stays textless)."""
    if ocr_engine() is None:
        return []
    try:
        return ocr_page(document, page.number - 1, languages)
    except (RuntimeError, OSError) as exc:  # pytesseract's TesseractError is a RuntimeError
        _log.warning("OCR failed on page %d: %s", page.number, exc)
        return []


def count_pages(source: bytes | str | os.PathLike[str]) -> int | None:
    """The page count of a PDF, proving pdfium can open it (a truncated or damaged file cannot be).

    Returns:
        The number of pages; None for a password-protected PDF (a whole PDF whose pages pdfium cannot count).

    Raises:
        PdfExtractionError: cause ``invalid_pdf`` (pdfium cannot open it) or ``no_pages``.
    """
    with PDFIUM:
        try:
            document = _open(source)
        except PdfExtractionError as exc:
            if exc.cause == "encrypted":
                return None
            raise
        try:
            pages = len(document)
        finally:
            document.close()
    if pages == 0:
        raise PdfExtractionError("the PDF has no pages", cause="no_pages")
    return pages


def open_document(source: bytes | str | os.PathLike[str]) -> pdfium.PdfDocument:
    """Open a PDF for page-level work (figures, rendering); the caller holds ``PDFIUM`` and closes it.

    Raises:
        PdfExtractionError: cause ``encrypted`` or ``invalid_pdf``.
    """
    return _open(source)


def page_text(document: pdfium.PdfDocument, index: int) -> PageText:
    """The positioned text lines of one page (0-based ``index``), as the converter reads them."""
    return _extract_page(document, index)


def _open(source: bytes | str | os.PathLike[str]) -> pdfium.PdfDocument:
    if isinstance(source, (str, os.PathLike)):
        source = Path(source)
    try:
        return pdfium.PdfDocument(source)
    except pdfium.PdfiumError as exc:
        if getattr(exc, "err_code", None) == pdfium_c.FPDF_ERR_PASSWORD:
            raise PdfExtractionError(
                "encrypted: the PDF is protected by a password, so its text cannot be extracted",
                cause="encrypted",
            ) from exc
        raise PdfExtractionError(
            f"invalid PDF: pdfium could not open it ({exc})", cause="invalid_pdf"
        ) from exc


class _LineBuilder:
    """Accumulates the glyphs of one line; geometry and font are sampled per word, not per glyph."""

    __slots__ = ("chars", "x0", "y0", "x1", "y1", "sizes", "bold", "rotated", "last_x1", "last_size", "word")

    def __init__(self) -> None:
        self.chars: list[str] = []
        self.x0 = self.y0 = float("inf")
        self.x1 = self.y1 = float("-inf")
        self.sizes: Counter[float] = Counter()
        self.bold = 0
        self.rotated = False
        self.last_x1 = float("-inf")
        self.last_size = 0.0
        self.word: tuple[float, bool] = (0.0, False)  # (size, bold) of the word being read

    def empty(self) -> bool:
        return not self.chars

    def start_word(self, space: bool, box: tuple[float, float, float, float], size: float, bold: bool) -> None:
        left, bottom, right, top = box
        if space and self.chars:
            self.chars.append(" ")
        self.x0, self.y0 = min(self.x0, left), min(self.y0, bottom)
        self.x1, self.y1 = max(self.x1, right), max(self.y1, top)
        self.last_x1 = right
        self.last_size = size
        self.word = (round(size, 1), bold)

    def add(self, ch: str) -> None:
        self.chars.append(ch)
        self.sizes[self.word[0]] += 1
        self.bold += self.word[1]

    def end_word(self, right: float) -> None:
        self.x1 = max(self.x1, right)
        self.last_x1 = right

    def build(self, hyphenated: bool) -> TextLine | None:
        if self.empty():
            return None
        glyphs = sum(self.sizes.values())
        return TextLine(
            text=_well_formed("".join(self.chars)).translate(_LIGATURES),
            x0=self.x0,
            y0=self.y0,
            x1=self.x1,
            y1=self.y1,
            size=self.sizes.most_common(1)[0][0],
            bold=self.bold >= 0.9 * glyphs,
            hyphenated=hyphenated,
            rotated=self.rotated,
        )


def _well_formed(text: str) -> str:
    """The text with pdfium's UTF-16 halves joined: a surrogate pair becomes its character, a lone half U+FFFD.

    pdfium hands a character beyond the BMP back as two glyph codes; left as they are, they cannot be encoded
    (UTF-8, JSON) and fail the whole document.
    """
    if not any("\ud800" <= ch <= "\udfff" for ch in text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def _is_bold(font_name: str) -> bool:
    name = font_name.split("+", 1)[-1]
    return bool(_BOLD_NAME.search(name) or _BOLD_SUFFIX.search(name))


def _extract_page(document: pdfium.PdfDocument, index: int) -> PageText:
    page = document[index]
    try:
        width, height = page.get_size()
        textpage = page.get_textpage()
        try:
            lines = _extract_lines(textpage)
        finally:
            textpage.close()
    finally:
        page.close()
    return PageText(number=index + 1, width=width, height=height, lines=lines)


def _page_codes(raw: object, count: int) -> list[int]:
    """The code points of all glyphs, read in one call (per glyph when the bulk text does not line up)."""
    buffer = ctypes.create_string_buffer((count + 1) * 2)
    written = pdfium_c.FPDFText_GetText(raw, 0, count, ctypes.cast(buffer, ctypes.POINTER(ctypes.c_ushort)))
    text = buffer.raw[: max(written - 1, 0) * 2].decode("utf-16-le", errors="surrogatepass")
    if len(text) == count:
        return [ord(c) for c in text]
    return [pdfium_c.FPDFText_GetUnicode(raw, i) for i in range(count)]


def _extract_lines(textpage: pdfium.PdfTextPage) -> list[TextLine]:
    """Walk the glyphs of a page and cut them into lines at pdfium's line breaks and big jumps.

    ctypes calls dominate the cost, so boxes and fonts are read at the first and last glyph of each
    word (font changes inside a word are rare and only affect heading statistics).
    """
    raw = textpage.raw
    count = pdfium_c.FPDFText_CountChars(raw)
    codes = _page_codes(raw, count)
    rect = pdfium_c.FS_RECTF()
    matrix = pdfium_c.FS_MATRIX()
    name_buf = ctypes.create_string_buffer(128)
    flags = ctypes.c_int()
    bold_by_font: dict[bytes, bool] = {}
    lines: list[TextLine] = []
    cur = _LineBuilder()
    in_word = False
    space = False
    last = -1

    def right_of(index: int) -> float | None:
        if pdfium_c.FPDFText_GetLooseCharBox(raw, index, rect):
            return rect.right
        return None

    def end_word() -> None:
        nonlocal in_word
        if in_word and last >= 0:
            right = right_of(last)
            if right is not None:
                cur.end_word(right)
        in_word = False

    def flush(hyphenated: bool = False) -> None:
        nonlocal cur
        end_word()
        line = cur.build(hyphenated)
        if line is not None:
            lines.append(line)
        cur = _LineBuilder()

    for i, code in enumerate(codes):
        if code == 0x0A:
            flush()
            continue
        if code in (0x0D, 0):
            continue
        if code in _HYPHEN_CODES or (code == 0x2D and pdfium_c.FPDFText_IsHyphen(raw, i) == 1):
            last = i
            flush(hyphenated=True)
            continue
        ch = chr(code)
        if ch.isspace():
            end_word()
            space = True
            continue
        if not in_word:
            if not pdfium_c.FPDFText_GetLooseCharBox(raw, i, rect):
                continue
            box = (rect.left, rect.bottom, rect.right, rect.top)
            pdfium_c.FPDFText_GetMatrix(raw, i, matrix)
            scale = abs(matrix.a * matrix.d - matrix.b * matrix.c) ** 0.5 or 1.0
            size = pdfium_c.FPDFText_GetFontSize(raw, i) * scale
            rotated = abs(matrix.b) > 1e-3 or abs(matrix.c) > 1e-3 or matrix.a < 0
            pdfium_c.FPDFText_GetFontInfo(raw, i, name_buf, len(name_buf), flags)
            bold = bold_by_font.get(name_buf.value)
            if bold is None:
                bold = bold_by_font[name_buf.value] = _is_bold(name_buf.value.decode("latin-1"))
            if not cur.empty() and _breaks_line(cur, box, size, rotated):
                flush()
            if cur.empty():
                cur.rotated = rotated
            cur.start_word(space, box, size, bold)
            in_word = True
            space = False
        cur.add(ch)
        last = i
    flush()
    return lines


def _breaks_line(cur: _LineBuilder, box: tuple[float, float, float, float], size: float, rotated: bool) -> bool:
    """Whether a word starting at ``box`` cannot continue the current line."""
    if rotated != cur.rotated:
        return True
    if rotated:
        return False
    left, bottom, _right, top = box
    overlap = min(cur.y1, top) - max(cur.y0, bottom)
    ref = max(size, cur.last_size, 1.0)
    if overlap < 0.3 * min(cur.y1 - cur.y0, top - bottom):
        return True
    # A wide gap (a column gutter, a table cell) or a jump backwards starts a new fragment.
    return left - cur.last_x1 > _SPLIT_GAP * ref or left < cur.last_x1 - 1.5 * ref
