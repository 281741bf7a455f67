"""Converted standard texts in the ArtifactBucket, beside the catalogue: ``standards/text/<id>.<converter>.md``.

Only complete conversions are stored (a failed download or conversion leaves nothing behind), so a stored
text is always served as is. W3C records name a specification, not an edition, so their key also carries
the version date: a new edition gets a new key instead of the old text.
"""

from __future__ import annotations

import re

from scholar.families.standards.records import StandardRecord
from scholar.store.blobs import BlobStore

PREFIX = "standards/text"
CONTENT_TYPE = "text/markdown; charset=utf-8"
_NOT_ALNUM = re.compile(r"[^a-z0-9]+")


def normalised_id(record: StandardRecord) -> str:
    """A key-safe form of the record id (``NIST SP 800-53 Rev. 5`` → ``nist-sp-800-53-rev-5``)."""
    raw = record.id if record.body != "W3C" or not record.version else f"{record.id} {record.version}"
    return _NOT_ALNUM.sub("-", raw.lower()).strip("-")


def text_key(record: StandardRecord, converter: str) -> str:
    """The S3 key of ``record``'s text as produced by ``converter``."""
    return f"{PREFIX}/{normalised_id(record)}.{converter}.md"


def load_text(key: str) -> str | None:
    """The stored text, or None when it has not been converted yet.

    Raises:
        UnavailableError: no artifact bucket is configured.
    """
    data = BlobStore().get(key)
    return data.decode("utf-8") if data is not None else None


def has_text(key: str) -> bool:
    """Whether the text is stored (a HEAD request; the text itself is not read)."""
    return BlobStore().exists(key)


def save_text(key: str, text: str) -> None:
    """Store a complete conversion."""
    BlobStore().put(key, text.encode("utf-8"), CONTENT_TYPE)
