"""Synthetic artifacts under their content address, as the download step names them (``pdfs/<sha256>.pdf``)."""

from __future__ import annotations

import hashlib

from scholar.store.blobs import BlobStore


def put_pdf(data: bytes) -> str:
    """Store ``data`` as a PDF under its SHA-256; its key."""
    return BlobStore().put(f"pdfs/{hashlib.sha256(data).hexdigest()}.pdf", data, "application/pdf")
