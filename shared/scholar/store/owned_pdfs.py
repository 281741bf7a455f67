"""PDFs a caller brought (a local path, an upload, a licensed copy): stored per caller, never shared (issue 38).

A caller sees ``mine/<sha256>.pdf``; the object is ``owned/<principal-hash>/<sha256>.pdf`` in the artifact store,
so the same bytes brought by two callers are two objects, and one caller's reference names nothing for another
(``not_found``, never ``forbidden``: whether someone else holds those bytes is not told). What is made of an owned
PDF (its Markdown) lives under the same per-caller folder (``owned_folder``), never in the shared ``md/`` cache.
Owned objects carry no ``retention=cache`` tag: they are the caller's data and never expire.
"""

from __future__ import annotations

import hashlib
import json
import re

from scholar.core.errors import NotFoundError
from scholar.store.blobs import BlobStore

__all__ = [
    "OWNED_REF",
    "get_owned_pdf",
    "owned_folder",
    "owned_info",
    "owned_key",
    "put_owned_pdf",
    "sha_of_ref",
    "stored_key",
]

OWNED_REF = re.compile(r"^mine/([0-9a-f]{64})\.pdf$")
_PDF = "application/pdf"


def owned_folder(principal: str) -> str:
    """``owned/<principal-hash>``: every object the caller owns (PDFs, their Markdown) is under it."""
    return f"owned/{hashlib.sha256(principal.encode()).hexdigest()[:32]}"


def owned_key(principal: str, sha256: str) -> str:
    return f"{owned_folder(principal)}/{sha256}.pdf"


def sha_of_ref(ref: str) -> str:
    """The SHA-256 in a ``mine/<sha256>.pdf`` reference.

    Raises:
        NotFoundError: not such a reference (a caller's typo names nothing of theirs).
    """
    match = OWNED_REF.match(ref.strip())
    if match is None:
        raise NotFoundError(f"{ref[:100]!r} is not a reference to one of your PDFs (mine/<sha256>.pdf)")
    return match.group(1)


def stored_key(principal: str, pdf_path: str) -> str:
    """The bucket key of a PDF a library item holds: the caller's own for ``mine/…``, the shared key otherwise."""
    match = OWNED_REF.match(pdf_path)
    return owned_key(principal, match.group(1)) if match else pdf_path


def put_owned_pdf(
    principal: str, data: bytes, *, source: str, filename: str | None = None, blobs: BlobStore | None = None
) -> str:
    """Store a PDF as the caller's own; the same bytes again are the same reference.

    Args:
        principal: the caller.
        data: the PDF (checked by whoever read it: the local-path guard, the upload claim, the licensed fetch).
        source: where it came from (``local``, ``upload``, a proxy's name), kept beside it.
        filename: the file's name, kept for naming an untitled document.

    Returns:
        ``mine/<sha256>.pdf``.
    """
    blobs = blobs or BlobStore()
    sha = hashlib.sha256(data).hexdigest()
    key = owned_key(principal, sha)
    if not blobs.exists(key):
        blobs.put(key, data, _PDF)
    info = json.dumps({"source": source, "filename": filename}).encode()
    blobs.put(f"{owned_folder(principal)}/{sha}.json", info, "application/json")
    return f"mine/{sha}.pdf"


def get_owned_pdf(principal: str, ref: str, blobs: BlobStore | None = None) -> bytes:
    """The bytes of the caller's PDF ``ref``.

    Raises:
        NotFoundError: not a ``mine/`` reference, or the caller owns no such PDF (whoever else does).
    """
    data = (blobs or BlobStore()).get(owned_key(principal, sha_of_ref(ref)))
    if data is None:
        raise NotFoundError(f"you have no PDF {ref[:100]}", hint="Upload it with upload_pdf or give its path again.")
    return data


def owned_info(principal: str, ref: str, blobs: BlobStore | None = None) -> dict[str, str | None]:
    """What ``put_owned_pdf`` kept beside the PDF: ``source`` and ``filename`` (empty when nothing was kept)."""
    data = (blobs or BlobStore()).get(f"{owned_folder(principal)}/{sha_of_ref(ref)}.json")
    return json.loads(data) if data else {}
