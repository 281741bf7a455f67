"""OCR of scanned pages (scholar.services.pdftext.ocr): character error rate and pages per second per core.

Run: ``python -m benchmarks ocr`` (``make bench`` runs it). Scans with known text are made from the fixture text
PDFs: each page is rendered to a grayscale image at 200 dpi (an ordinary office scan), saved as an image-only PDF,
and converted like any scanned paper; its known text is what the converter reads from the original page's text
layer. Both go through the same layout steps, so the error rate is the recognition's (and any reading-order
difference), as a fraction of the known text's characters after whitespace and Markdown marks are normalised. The
scanned fixture (a brochure) is converted too, for its time. Skipped with a message where tesseract is absent.
"""

from __future__ import annotations

import io
import re
import resource
import statistics
from pathlib import Path

SCAN_DPI = 200
# (fixture, 0-based page): six pages of four papers, single- and two-column.
PAGES = (
    ("arxiv_2202.00535v1_novelty_controlled_paraphrase.pdf", 0),
    ("arxiv_2202.00535v1_novelty_controlled_paraphrase.pdf", 1),
    ("arxiv_2304.02623v1_beyond_summarization.pdf", 0),
    ("arxiv_2304.02623v1_beyond_summarization.pdf", 1),
    ("arxiv_2305.03393v1_page9_only.pdf", 0),
    ("arxiv_2501.10120v1_pasa.pdf", 0),
)
_MARKS = re.compile(r"<!--[^>]*-->|^#+ |\*\*|\|", re.MULTILINE)


def normalised(markdown: str) -> str:
    return " ".join(_MARKS.sub(" ", markdown).split())


def scanned(pdf: Path, index: int) -> tuple[bytes, bytes]:
    """(the page alone as a text PDF, the same page as an image-only PDF at SCAN_DPI)."""
    import pypdfium2 as pdfium  # the bench's own imports stay out of `python -m benchmarks` start

    document = pdfium.PdfDocument(pdf)
    try:
        alone = pdfium.PdfDocument.new()
        alone.import_pages(document, [index])
        text_pdf = io.BytesIO()
        alone.save(text_pdf)
        image = document[index].render(scale=SCAN_DPI / 72, grayscale=True).to_pil()
    finally:
        document.close()
    image_pdf = io.BytesIO()
    image.save(image_pdf, format="PDF", resolution=SCAN_DPI)
    return text_pdf.getvalue(), image_pdf.getvalue()


def cpu_seconds() -> float:
    """CPU time of this process and its finished children (each page's tesseract run is a child process)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main(fixtures: Path) -> None:
    from rapidfuzz.distance import Levenshtein  # dev dependency, the bench only

    from scholar.services.pdftext.convert import convert_pdf
    from scholar.services.pdftext.ocr import engine

    print("\n== OCR of scanned pages (tesseract, one thread) ==")
    if engine() is None:
        print("tesseract is not installed (apt install tesseract-ocr): nothing to measure")
        return
    rates, seconds = [], []
    for name, index in PAGES:
        text_pdf, image_pdf = scanned(fixtures / "pdfs" / name, index)
        known = normalised(convert_pdf(text_pdf, ocr_languages=None).markdown)
        began = cpu_seconds()
        read = convert_pdf(image_pdf)
        seconds.append(cpu_seconds() - began)
        assert read.ocr_pages == [1], name
        rate = Levenshtein.distance(normalised(read.markdown), known) / max(len(known), 1)
        rates.append(rate)
        print(f"  {name} page {index + 1:<3} {len(known):6,} chars known   CER {rate:6.2%}   {seconds[-1]:5.2f} s CPU")
    print(f"OCR character error rate over {len(rates)} scanned pages           median {statistics.median(rates):6.2%}"
          f"   mean {statistics.fmean(rates):6.2%}   worst {max(rates):6.2%}")
    scan = fixtures / "pdfs" / "scanned_image_only_two_column_page.pdf"  # rendered by pdfium at 300 dpi
    began = cpu_seconds()
    document = convert_pdf(scan)
    spent = cpu_seconds() - began
    print(f"scanned fixture (two-column brochure): {document.char_count:,} characters read in {spent:.2f} s CPU")
    per_page = statistics.median([*seconds, spent])
    print(f"OCR pages per second per core {1 / per_page:8.3f}   ({per_page:.2f} s/page)")
