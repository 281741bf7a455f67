"""Scanned pages read by OCR (Debian's tesseract-ocr, installed on first use where missing), and text pdfium hands
back in UTF-16 halves.

The scan is the real fixture ``scanned_image_only_two_column_page.pdf`` (OCRmyPDF's test page: a two-column
brochure with no text layer); the Korean report ``docling_normal_4pages_ko.pdf`` has glyphs outside the BMP.
"""

from __future__ import annotations

import pytest

from scholar.services.pdftext import convert as converter
from scholar.services.pdftext import ocr
from scholar.services.pdftext.convert import PDF_EXTRACTION_FAILED, PdfExtractionError, convert_pdf
from scholar.services.pdftext.outline import OCR_MARK
from tests.fixtures_dir import fixtures_dir
from tests.people.installs import debian_binary

SCAN = "scanned_image_only_two_column_page.pdf"


def pdf(name: str):
    path = fixtures_dir() / "pdfs" / name
    if not path.exists():
        pytest.skip(f"{path} is absent (the shared fixtures are not beside this clone)")
    return path


@pytest.fixture(scope="module")
def scan_markdown() -> str:
    if debian_binary("tesseract", "tesseract-ocr") is None:
        pytest.skip("tesseract is not installed and `apt-get install -y tesseract-ocr` failed here")
    ocr.engine.cache_clear()
    document = convert_pdf(pdf(SCAN))
    assert document.ocr_pages == [1] and document.pages_without_text == []
    return document.markdown


def test_a_scanned_page_reads_as_text_marked_as_read_by_ocr(scan_markdown: str) -> None:
    assert scan_markdown.startswith(f"<!-- page 1 -->\n\n{OCR_MARK}\n\n")
    text = " ".join(scan_markdown.split())
    for sentence in ("The LinnSequencer is a state-of-the-art composition and performance tool for the professional "
                     "musician.", "Each of the 100 sequences contains 32 simultaneous, polyphonic tracks.",
                     "To record a sequence, simply press RECORD and PLAY"):
        assert sentence in text


def test_a_scanned_two_column_page_is_read_left_column_then_right_column(scan_markdown: str) -> None:
    text = " ".join(scan_markdown.split())
    # The left column ends with "Recording a Sequence"; the right column's last section is about sync.
    left, right = text.index("Each of the 100 sequences"), text.index("record, the first track will play")
    assert left < right


def test_without_an_ocr_engine_a_scan_is_a_typed_error_naming_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(converter, "ocr_engine", lambda: None)
    with pytest.raises(PdfExtractionError) as caught:
        convert_pdf(pdf(SCAN))
    assert caught.value.cause == "no_text_layer" and caught.value.reason == PDF_EXTRACTION_FAILED
    assert caught.value.message == "no text layer (scanned image); OCR needed"
    assert "tesseract" in caught.value.envelope_body()["recovery"]["hint"].lower()


def test_ocr_can_be_turned_off() -> None:
    with pytest.raises(PdfExtractionError) as caught:
        convert_pdf(pdf(SCAN), ocr_languages=None)
    assert caught.value.cause == "no_text_layer"


def test_tesseract_rows_become_lines_in_pdf_points() -> None:
    # Tesseract's TSV columns (level 4 = a line row, conf -1; level 5 = words), 300 dpi over a 792 pt page.
    rows = {
        "level": ["4", "5", "5", "5"], "block_num": ["1", "1", "1", "1"], "par_num": ["1", "1", "1", "1"],
        "line_num": ["1", "1", "1", "2"], "left": ["300", "300", "600", "300"], "top": ["300", "300", "310", "400"],
        "width": ["600", "250", "300", "200"], "height": ["50", "50", "40", "50"],
        "conf": ["-1", "96.5", "0.0", "91"], "text": ["", "Scanned", "compo-", "words"],
    }

    first, second = ocr.lines_of(rows, page_height=792.0)

    assert first.text == "Scanned compo" and first.hyphenated  # a clear word scored 0 is kept
    assert (first.x0, first.x1) == pytest.approx((72.0, 216.0))
    assert first.y1 == pytest.approx(792.0 - 72.0) and first.y0 == pytest.approx(792.0 - 350 / ocr.DPI * 72)
    assert second.text == "words" and not second.hyphenated


def test_characters_beyond_the_bmp_are_joined_from_their_utf16_halves_not_fatal() -> None:
    document = convert_pdf(pdf("docling_normal_4pages_ko.pdf"), ocr_languages=None)

    document.markdown.encode("utf-8")  # a lone surrogate cannot be encoded: it failed the whole pipeline
    assert not any("\ud800" <= ch <= "\udfff" for ch in document.markdown)
    assert "\U000f0854이슈와 논점\U000f0855" in document.markdown  # the pair pdfium split, joined again
    assert converter._well_formed("a\udc00b\ud800") == "a\ufffdb\ufffd"  # a lone half becomes U+FFFD
