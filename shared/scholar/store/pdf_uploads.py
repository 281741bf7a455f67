"""One-time PDF uploads (issue 38): a pending object per caller and token, claimed into owned storage on first use.

The caller gets ``upload/<token>`` before any byte is sent. The bytes land at ``pending/<principal-hash>/<token>.pdf``:
hosted through an S3 presigned POST (``BlobStore.presign_upload``: S3 enforces the size cap), locally through
``scholar serve``'s upload endpoint, which first redeems a one-time ticket (``tickets/<token>.json``: whose, until
when). The first tool that uses the reference claims it (``claim_upload``): size and PDF magic checked, the bytes
moved to the caller's owned PDFs, a marker left so the same reference keeps naming them. Another caller's claim looks
under its own hash and finds nothing (``not_found``).
"""

from __future__ import annotations

import json
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass

from scholar.core.backend import state
from scholar.core.errors import InvalidArgumentError, NotFoundError, TooLargeError
from scholar.store.blobs import BlobStore
from scholar.store.owned_pdfs import owned_folder, put_owned_pdf

__all__ = [
    "UPLOAD_REF",
    "PendingUpload",
    "accept_upload",
    "claim_upload",
    "new_upload",
    "serve_uploads_at",
    "upload_base",
]

UPLOAD_REF = re.compile(r"^upload/([A-Za-z0-9_-]{32})$")
# Checks the bytes (size cap, PDF magic) or raises; the web floor's ``scholar.web.local_pdf.check_pdf`` in the tools.
Check = Callable[[bytes], None]
SERVED_AT = "pdf_uploads.served_at"


@dataclass(frozen=True, slots=True)
class PendingUpload:
    token: str
    ref: str
    key: str


def _served_at() -> dict[str, str]:
    return state(SERVED_AT, dict[str, str])


def serve_uploads_at(base: str) -> None:
    """Say that this backend's HTTP server (``scholar serve``) takes uploads at ``<base>/uploads/<token>``."""
    _served_at()["base"] = base


def upload_base() -> str | None:
    """Where this backend's HTTP server takes uploads; None when no server runs (``scholar mcp`` over stdio)."""
    return _served_at().get("base")


def _pending_key(principal: str, token: str) -> str:
    return f"pending/{owned_folder(principal).removeprefix('owned/')}/{token}.pdf"


def new_upload(principal: str, *, expires_s: int, ticket: bool, blobs: BlobStore | None = None) -> PendingUpload:
    """A fresh token and the caller's pending key; with ``ticket``, the one-time ticket the local endpoint redeems."""
    token = secrets.token_urlsafe(24)
    key = _pending_key(principal, token)
    if ticket:
        body = json.dumps({"key": key, "expires_at": int(time.time()) + expires_s}).encode()
        (blobs or BlobStore()).put(f"tickets/{token}.json", body, "application/json")
    return PendingUpload(token=token, ref=f"upload/{token}", key=key)


def accept_upload(token: str, data: bytes, *, check: Check, blobs: BlobStore | None = None) -> str:
    """Store the body of a local upload under its ticket's pending key; the ticket is spent first (one-time).

    Returns:
        the ``upload/<token>`` reference.

    Raises:
        NotFoundError: no such ticket, already used, or expired.
        TooLargeError / InvalidArgumentError: over the cap, or not a PDF (the ticket is spent all the same).
    """
    blobs = blobs or BlobStore()
    if not re.fullmatch(r"[A-Za-z0-9_-]{32}", token):
        raise NotFoundError("no such upload link")
    ticket_key = f"tickets/{token}.json"
    raw = blobs.get(ticket_key)
    if raw is None:
        raise NotFoundError("no such upload link (it may have been used already)")
    blobs.delete(ticket_key)
    ticket = json.loads(raw)
    if ticket["expires_at"] < time.time():
        raise NotFoundError("the upload link has expired; ask upload_pdf for a new one")
    check(data)
    blobs.put(ticket["key"], data, "application/pdf")
    return f"upload/{token}"


def claim_upload(principal: str, ref: str, *, check: Check, blobs: BlobStore | None = None) -> str:
    """The caller's ``mine/<sha256>.pdf`` for an ``upload/<token>`` they were given, claiming it on first use.

    Raises:
        NotFoundError: nothing uploaded under this reference by this caller.
        TooLargeError / InvalidArgumentError: the upload is over the cap or not a PDF (it is removed).
    """
    blobs = blobs or BlobStore()
    match = UPLOAD_REF.match(ref.strip())
    if match is None:
        raise NotFoundError(f"{ref[:100]!r} is not an upload reference (upload/<token>)")
    key = _pending_key(principal, match.group(1))
    marker = key.removesuffix(".pdf") + ".claimed"
    if (claimed := blobs.get(marker)) is not None:
        return claimed.decode()
    data = blobs.get(key)
    if data is None:
        raise NotFoundError(
            f"nothing has been uploaded to {ref} yet",
            hint="Send the PDF to the upload_url upload_pdf gave, then call again.",
        )
    try:
        check(data)
    except (TooLargeError, InvalidArgumentError):
        blobs.delete(key)
        raise
    owned = put_owned_pdf(principal, data, source="upload", blobs=blobs)
    blobs.put(marker, owned.encode(), "text/plain")
    blobs.delete(key)
    return owned
