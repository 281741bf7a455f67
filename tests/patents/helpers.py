"""Helpers of the patents tests: the recorded OPS answers, served by respx under /epo_ops/3.2/…"""

from __future__ import annotations

import io
from functools import cache

import anyio
import pypdfium2 as pdfium

from tests.fixtures_dir import fixtures_dir, read_fixture

OPS = "/epo_ops/3.2/rest-services"
TOKEN = "/epo_ops/3.2/auth/accesstoken"
XML = {"Content-Type": "application/xml"}
EP = "upstream/epo_ops/"
# The throttling header recorded with the 404 fault (FHG-IMW/epo-ops all_queries.yml, PROVENANCE).
RECORDED_THROTTLING = (
    "idle (images=green:200, inpadoc=green:60, other=green:1000, retrieval=green:200, search=green:30)"
)
KEY, SECRET = "test-consumer-key", "test-consumer-secret"


def ops_fixture(name: str) -> bytes:
    return read_fixture(EP + name)


def run(coro_fn, *args):  # a thin test shortcut around anyio.run
    return anyio.run(coro_fn, *args)


@cache
def synthetic_pages(count: int = 3) -> tuple[bytes, ...]:
    """One-page PDFs as OPS's ``fullimage.pdf?Range=N`` serves them, cut from a real recorded PDF.

    No OPS page image was recorded (only a TIFF thumbnail); OPS answers one page per request as a
    one-page PDF, so each page of ../shared/fixtures/pdfs/arxiv_2202.00535v1_… stands in for one.
    """
    source = pdfium.PdfDocument((fixtures_dir() / "pdfs" / "arxiv_2202.00535v1_novelty_controlled_paraphrase.pdf")
                                .read_bytes())
    pages = []
    for index in range(min(count, len(source))):
        single = pdfium.PdfDocument.new()
        single.import_pages(source, [index])
        buffer = io.BytesIO()
        single.save(buffer)
        single.close()
        pages.append(buffer.getvalue())
    source.close()
    return tuple(pages)
