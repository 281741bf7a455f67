"""A patent's full document as one PDF: images inquiry → every page from OPS → one content-addressed PDF.

OPS serves a document image one page per request (``…/fullimage.pdf?Range=<page>``), never the whole file:
the inquiry names the ``FullDocument`` instance, its link and page count, and each page is fetched once,
in order, then merged with pdfium. The PDF is stored as ``pdfs/<sha256>.pdf`` like every other PDF, so the
same document fetched twice is stored once. Markdown comes from OPS full text (claims + description)
where OPS has it, else from the built-in converter on the assembled PDF.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Callable
from dataclasses import dataclass

import pypdfium2 as pdfium

from scholar.core.errors import NotFoundError, UpstreamError
from scholar.core.patent_numbers import PatentNumber
from scholar.families.patents import sections
from scholar.services.pdftext.lock import PDFIUM
from scholar.sources import epo_ops
from scholar.sources.epo_ops_biblio import NS, parse_xml
from scholar.store.blobs import BlobStore

PDF_NOT_AVAILABLE = "pdf_not_available"
FULL_DOCUMENT = "FullDocument"


@dataclass(frozen=True)
class ImageInstance:
    link: str
    pages: int
    formats: tuple[str, ...]


def pdf_key(sha256: str) -> str:
    return f"pdfs/{sha256}.pdf"


def md_key(sha256: str, source: str) -> str:
    return f"md/{sha256}.md" if source == "builtin" else f"md/{sha256}.{source}.md"


def not_available(number: PatentNumber, why: str) -> NotFoundError:
    return NotFoundError(
        f"EPO OPS has no full document image for {number.docdb}: {why}",
        source="epo_ops", reason=PDF_NOT_AVAILABLE,
        hint="Try another publication of the family (get_patent sections=['family']), e.g. the B1 or a US/EP "
        "member; get_patent sections=['claims','description'] gives the text where OPS has it.",
    )


def parse_inquiry(body: bytes) -> ImageInstance | None:
    """The FullDocument instance of an images inquiry (None when the document has none)."""
    root = parse_xml(body, what="the images inquiry")
    for node in root.xpath("//ops:document-instance", namespaces=NS):
        if node.get("desc") == FULL_DOCUMENT and node.get("link"):
            formats = tuple(f.strip() for f in node.xpath(".//ops:document-format/text()", namespaces=NS))
            return ImageInstance(node.get("link") or "", int(node.get("number-of-pages") or 0), formats)
    return None


async def inquire(number: PatentNumber) -> ImageInstance:
    """The FullDocument instance of a publication.

    Raises:
        NotFoundError: reason ``pdf_not_available`` when OPS has no full document as PDF.
    """
    ref_format, reference = number.ops_reference()
    try:
        response = await epo_ops.call("GET", epo_ops.publication(ref_format, reference, "images"), service="images",
                                      what=f"images of {number.docdb}")
    except NotFoundError as exc:
        raise not_available(number, "no images at all") from exc
    instance = parse_inquiry(response.content)
    if instance is None or instance.pages < 1:
        raise not_available(number, "no FullDocument instance")
    if "application/pdf" not in instance.formats:
        raise not_available(number, "the full document is not offered as PDF")
    return instance


def page_path(link: str) -> str:
    """The request path of one page: the inquiry's link, each segment encoded, with ``.pdf`` on the last."""
    parts = [p for p in link.split("/") if p]
    if not parts or any(p in (".", "..") for p in parts):
        raise UpstreamError(f"EPO OPS named an image link that is not a plain path: {link[:80]!r}", source="epo_ops")
    return epo_ops.path(*parts[:-1], parts[-1] + ".pdf")


async def fetch_pages(instance: ImageInstance, on_page: Callable[[int, int], None]) -> list[bytes]:
    """Every page of the instance, in order (one request each); ``on_page(done, total)`` after each."""
    pages: list[bytes] = []
    for number in range(1, instance.pages + 1):
        response = await epo_ops.call("GET", page_path(instance.link), service="images",
                                      what=f"page {number} of {instance.link}", params={"Range": str(number)},
                                      accept="application/pdf")
        if not response.content.startswith(b"%PDF"):
            raise UpstreamError(f"EPO OPS answered page {number} with something that is not a PDF",
                                source="epo_ops")
        pages.append(response.content)
        on_page(number, instance.pages)
    return pages


def assemble(pages: list[bytes]) -> bytes:
    """One PDF of all pages, in order.

    Raises:
        UpstreamError: a page is not a readable PDF.
    """
    with PDFIUM:
        merged = pdfium.PdfDocument.new()
        try:
            for index, page in enumerate(pages, start=1):
                try:
                    source = pdfium.PdfDocument(page)
                except pdfium.PdfiumError as exc:
                    raise UpstreamError(f"EPO OPS page {index} is not a readable PDF", source="epo_ops") from exc
                try:
                    merged.import_pages(source)
                finally:
                    source.close()
            out = _save(merged)
        finally:
            merged.close()
    return out


def _save(document: pdfium.PdfDocument) -> bytes:
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def store_pdf(data: bytes, blobs: BlobStore | None = None) -> tuple[str, str]:
    """Store the PDF under its hash (once); returns (key, sha256)."""
    blobs = blobs or BlobStore()
    sha = hashlib.sha256(data).hexdigest()
    key = pdf_key(sha)
    if not blobs.exists(key):
        blobs.put(key, data, "application/pdf")
    return key, sha


async def fulltext_markdown(number: PatentNumber, title: str | None) -> str | None:
    """Markdown from OPS claims + description, or None when OPS holds neither as text."""
    claims = await sections.load(number, "claims")
    description = await sections.load(number, "description")
    parts: list[str] = [f"# {title or number.compact}", ""]
    found = False
    for name, value in (("Claims", claims), ("Description", description)):
        if sections.ABSENT not in value and value.get("text"):
            parts += [f"## {name}", "", str(value["text"]), ""]
            found = True
    return "\n".join(parts).strip() + "\n" if found else None

