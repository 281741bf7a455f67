"""A PDF the caller brings, in any of its forms, made the caller's own: the one entry every PDF-taking tool uses.

Forms: a path on this machine (``/…``, ``~/…``, ``file://…``: the local backend only, through the guard in
``scholar.web.local_pdf``), ``upload/<token>`` (claimed on first use, ``scholar.store.pdf_uploads``) and
``mine/<sha256>.pdf`` (already owned). Each ends as ``mine/<sha256>.pdf`` of this caller, and the bucket key the
pipeline reads (``owned/<principal-hash>/<sha256>.pdf``). On a deployment a path is not a form at all: it is refused
as any unrecognised identifier is (a deployment never reads a server path). Blocking (files, S3): off the loop.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from scholar.core.config import Settings
from scholar.core.errors import NotFoundError
from scholar.core.ids import OWNED_PDF_RE
from scholar.store.blobs import BlobStore
from scholar.store.owned_pdfs import OWNED_REF, owned_info, owned_key, put_owned_pdf, sha_of_ref
from scholar.store.pdf_uploads import claim_upload
from scholar.web.local_pdf import check_pdf, is_local_path, paths_allowed, read_local_pdf

__all__ = ["Brought", "bring", "is_brought"]


@dataclass(frozen=True, slots=True)
class Brought:
    """The caller's own PDF: its reference, the bucket key, its size, and where it came from."""

    ref: str
    key: str
    sha256: str
    size_bytes: int
    source: str
    filename: str | None


def is_brought(raw: str, settings: Settings) -> bool:
    """Whether ``raw`` names a PDF the caller brings (a path counts only where paths are read)."""
    text = raw.strip()
    return bool(OWNED_PDF_RE.match(text)) or (paths_allowed(settings) and is_local_path(text))


def bring(raw: str, principal: str, settings: Settings, *, field: str = "identifier") -> Brought:
    """Make the PDF ``raw`` names the caller's own and say where it is.

    Raises:
        ForbiddenError / InvalidArgumentError / TooLargeError: a path the guard refuses, or an upload that is
            no PDF or over the cap.
        NotFoundError: no such file, nothing uploaded yet, or no such PDF of this caller.
    """
    text = raw.strip()
    blobs = BlobStore()
    if OWNED_REF.match(text):
        ref = text
    elif OWNED_PDF_RE.match(text):
        cap = settings.pdf_max_bytes
        ref = claim_upload(principal, text, check=lambda data: check_pdf(data, cap, field=field), blobs=blobs)
    else:
        local = read_local_pdf(text, settings, field=field)
        ref = put_owned_pdf(principal, local.data, source="local", filename=local.path.name, blobs=blobs)
    sha = sha_of_ref(ref)
    key = owned_key(principal, sha)
    size = blobs.size(key)
    if size is None:
        raise NotFoundError(f"you have no PDF {ref}", hint="Upload it with upload_pdf or give its path again.")
    info = owned_info(principal, ref, blobs)
    filename = info.get("filename")
    return Brought(
        ref=ref,
        key=key,
        sha256=sha,
        size_bytes=size,
        source=info.get("source") or "upload",
        filename=Path(filename).name if filename else None,
    )
