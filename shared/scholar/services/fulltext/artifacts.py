"""PDF and Markdown artifacts in the ArtifactBucket, and the cache records that find them again.

Keys are content-addressed (DESIGN §5): ``pdfs/<sha256>.pdf`` and ``md/<sha256>[.<converter>].md`` (the
built-in converter has no suffix; docling and docling with VLM have their own, so they never overwrite each
other). PDFs move between /tmp and S3 as files (``upload_file`` / ``download_file``, multipart and streamed),
never whole in memory. Cache records (namespace ``result``) map a paper or a URL to its stored PDF; only
complete answers are cached, never a run that found no PDF.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from scholar.core.errors import InvalidArgumentError, NotFoundError
from scholar.core.ids import InvalidIdError, parse_paper_id
from scholar.services.fulltext.models import Converter, PaperSummary, StoredPdf
from scholar.store.base import token_hash
from scholar.store.blobs import BlobStore
from scholar.store.cache import Cache
from scholar.store.owned_pdfs import OWNED_REF, get_owned_pdf, owned_folder

PDF_KEY = re.compile(r"^pdfs/([0-9a-f]{64})\.pdf$")
# A caller's own PDF (scholar.store.owned_pdfs): its Markdown stays in the caller's folder, never in the shared md/.
OWNED_KEY = re.compile(r"^(owned/[0-9a-f]{32})/([0-9a-f]{64})\.pdf$")
PRESIGN_S = 900
_NAMESPACE = "result"


def pdf_key(sha256: str) -> str:
    return f"pdfs/{sha256}.pdf"


def md_key(sha256: str, converter: Converter) -> str:
    """``md/<sha256>.md`` for the built-in converter, ``md/<sha256>.<converter>.md`` otherwise."""
    return f"md/{sha256}.md" if converter == "builtin" else f"md/{sha256}.{converter}.md"


def md_key_of(pdf_path: str, converter: Converter, principal: str = "") -> str:
    """Where the Markdown of a stored PDF goes: the shared ``md/`` key, or the owner's folder for a caller's own PDF
    (its stored key ``owned/<hash>/…``, or ``mine/<sha256>.pdf`` read as ``principal``'s), never the shared ``md/``."""
    if owned := OWNED_KEY.match(pdf_path):
        return f"{owned.group(1)}/md/{md_key(owned.group(2), converter).removeprefix('md/')}"
    if mine := OWNED_REF.match(pdf_path):
        return f"{owned_folder(principal)}/md/{md_key(mine.group(1), converter).removeprefix('md/')}"
    return md_key(sha_of(pdf_path), converter)


def public_ref(pdf_path: str) -> str:
    """What a caller is shown for a PDF key: ``mine/<sha256>.pdf`` for their own, the key itself otherwise."""
    owned = OWNED_KEY.match(pdf_path)
    return f"mine/{owned.group(2)}.pdf" if owned else pdf_path


def sha_of(pdf_path: str) -> str:
    """The SHA-256 inside an artifact reference (or a caller's owned PDF key, which only our code builds).

    Raises:
        InvalidArgumentError: not a ``pdfs/<sha256>.pdf`` reference (server paths are never accepted).
    """
    if owned := OWNED_KEY.match(pdf_path):
        return owned.group(2)
    match = PDF_KEY.match(pdf_path)
    if not match:
        raise InvalidArgumentError(
            "file_path must be an artifact reference returned by a PDF tool (pdfs/<sha256>.pdf)",
            field="file_path",
            hint="Call fetch_paper_pdf or fetch_pdf_by_url first and pass its pdf_path.",
        )
    return match.group(1)


def store_pdf(path: Path, sha256: str, blobs: BlobStore | None = None) -> str:
    """Upload a downloaded PDF under its hash (skipped when the object exists); return the key."""
    blobs = blobs or BlobStore()
    key = pdf_key(sha256)
    if not blobs.exists(key):
        blobs.put_file(str(path), key, "application/pdf")
    return key


def pdf_to_file(key: str, dest_dir: str | os.PathLike[str], blobs: BlobStore | None = None, *,
                principal: str = "") -> Path:
    """Download a stored PDF to a file in ``dest_dir`` (a ``mine/`` PDF only as ``principal``'s own).

    Raises:
        NotFoundError: no such artifact (expired, or never stored), or a ``mine/`` PDF that is not ``principal``'s.
    """
    if OWNED_REF.match(key):
        target = Path(dest_dir) / key.replace("/", "_")
        target.write_bytes(get_owned_pdf(principal, key))
        return target
    blobs = blobs or BlobStore()
    if not blobs.exists(key):
        raise NotFoundError(
            f"the artifact {key} does not exist (it may have expired)",
            hint="Fetch the PDF again with fetch_paper_pdf or fetch_pdf_by_url.",
        )
    target = Path(dest_dir) / key.replace("/", "_")
    blobs.get_file(key, str(target))
    return target


def put_markdown(key: str, markdown: str, blobs: BlobStore | None = None) -> None:
    (blobs or BlobStore()).put(key, markdown.encode("utf-8"), "text/markdown; charset=utf-8")


def get_markdown(key: str, blobs: BlobStore | None = None) -> str | None:
    data = (blobs or BlobStore()).get(key)
    return None if data is None else data.decode("utf-8")


def exists(key: str) -> bool:
    return BlobStore().exists(key)


def stored_md(sha256: str, converter: Converter) -> str | None:
    """The key of the Markdown ``converter`` made of the PDF ``sha256``, when it is stored; else None."""
    key = md_key(sha256, converter)
    return key if exists(key) else None


def presign(key: str) -> str:
    return BlobStore().presign(key, PRESIGN_S)


def page(markdown: str, offset: int, max_chars: int) -> tuple[str, int | None]:
    """The slice ``[offset, offset + max_chars)`` and the next offset (None at the end)."""
    end = offset + max_chars
    return markdown[offset:end], end if end < len(markdown) else None


# -- cache records ---------------------------------------------------------------------------------------------


def paper_cache_key(identifier: str) -> str:
    return f"pdf:paper:{identifier}"


def url_cache_key(url: str) -> str:
    return f"pdf:url:{url}"


def paper_aliases(identifier: str, metadata: PaperSummary) -> list[str]:
    """The normalised identifier and every other id the paper's metadata names (S2 id, DOI, arXiv id, PMID, PMCID).

    A PDF fetched for one spelling of a paper is then found by any other (read_paper by DOI after download_paper by
    the S2 id a search hit carried).
    """
    written = [f"{prefix}{value}" for prefix, value in (
        ("", metadata.paper_id), ("DOI:", metadata.doi), ("arXiv:", metadata.arxiv_id), ("PMID:", metadata.pmid),
        ("PMCID:", metadata.pmcid)) if value]
    keys = [identifier] if identifier else []
    for form in written:
        try:
            keys.append(parse_paper_id(form).cache_key())
        except InvalidIdError:
            continue  # a garbled upstream id is not an alias
    return list(dict.fromkeys(keys))


def remember_paper(identifier: str, metadata: PaperSummary, pdf: StoredPdf) -> None:
    cache = Cache()
    record = {"metadata": metadata.model_dump(), "pdf": pdf.model_dump()}
    for key in paper_aliases(identifier, metadata):
        cache.put(_NAMESPACE, paper_cache_key(key), record)


def owned_cache_key(principal: str, identifier: str) -> str:
    return f"pdf:mine:{token_hash(principal)[:32]}:{identifier}"


def remember_owned(principal: str, identifier: str, metadata: PaperSummary, pdf: StoredPdf) -> None:
    """File a caller's licensed PDF under their own record, by every id of the paper (never the shared record)."""
    cache = Cache()
    record = {"metadata": metadata.model_dump(), "pdf": pdf.model_dump()}
    for key in paper_aliases(identifier, metadata):
        cache.put(_NAMESPACE, owned_cache_key(principal, key), record)


def recall_owned(principal: str, identifier: str) -> tuple[PaperSummary | None, StoredPdf] | None:
    """The caller's own record of a paper (a PDF licensed to them), or None."""
    value = Cache().get(_NAMESPACE, owned_cache_key(principal, identifier))
    if not isinstance(value, dict) or "pdf" not in value:
        return None
    metadata = PaperSummary.model_validate(value["metadata"]) if value.get("metadata") else None
    return metadata, StoredPdf.model_validate(value["pdf"])


def remember_url(url: str, pdf: StoredPdf) -> None:
    Cache().put(_NAMESPACE, url_cache_key(url), {"pdf": pdf.model_dump()})


def recall(cache_key: str) -> tuple[PaperSummary | None, StoredPdf] | None:
    """The cached paper/URL record, if its PDF is still stored."""
    value = Cache().get(_NAMESPACE, cache_key)
    if not isinstance(value, dict) or "pdf" not in value:
        return None
    pdf = StoredPdf.model_validate(value["pdf"])
    if not exists(pdf.pdf_path):
        return None
    metadata = PaperSummary.model_validate(value["metadata"]) if value.get("metadata") else None
    return metadata, pdf
