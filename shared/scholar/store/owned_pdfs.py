"""PDFs that belong to one caller (uploaded by them, or licensed to them through their library proxy).

Minimal stand-in of the module helper ``localpdf`` writes (same API; the integrator keeps theirs): a caller's PDF is
stored under a key derived from a hash of the principal, and a reference (``mine/<sha256>.pdf``) is read back only
by the principal that stored it. The non-obvious constraint: these bytes never enter the shared content-addressed
``pdfs/`` space, so no other caller can be handed them by hash.
"""

from __future__ import annotations

import hashlib
import re

from scholar.core.errors import NotFoundError
from scholar.store.base import token_hash
from scholar.store.blobs import BlobStore

__all__ = ["OWNED_REF", "get_owned_pdf", "put_owned_pdf"]

OWNED_REF = re.compile(r"^mine/([0-9a-f]{64})\.pdf$")


def _blob_key(principal: str, sha: str) -> str:
    return f"owned/{token_hash(principal)[:32]}/{sha}.pdf"


def put_owned_pdf(principal: str, data: bytes, *, source: str, filename: str | None = None) -> str:
    """Store ``data`` as ``principal``'s own PDF; its reference ``mine/<sha256>.pdf``."""
    sha = hashlib.sha256(data).hexdigest()
    blobs = BlobStore()
    key = _blob_key(principal, sha)
    if not blobs.exists(key):
        blobs.put(key, data, "application/pdf")
    return f"mine/{sha}.pdf"


def get_owned_pdf(principal: str, ref: str) -> bytes:
    """The bytes of ``principal``'s PDF ``ref``.

    Raises:
        NotFoundError: not a ``mine/<sha256>.pdf`` reference, or not one this caller stored.
    """
    match = OWNED_REF.match(ref)
    data = BlobStore().get(_blob_key(principal, match.group(1))) if match else None
    if data is None:
        raise NotFoundError(f"no PDF {ref[:80]} of this caller", hint="Fetch or upload the PDF again.")
    return data
