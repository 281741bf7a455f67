"""Where a caller's derived library objects live in the artifact bucket: keyed by a digest, never the principal.

``library/<digest>/index.sqlite`` is the full-text index (scholar.services.library.index);
``exports/<digest>/<uuid>.<ext>``
holds exports too large to answer inline (scholar.services.library.export). An ``exports/`` reference under another
caller's digest is refused as if it did not exist.
"""

from __future__ import annotations

import hashlib
import re
import uuid

from scholar.core.errors import InvalidArgumentError, NotFoundError

_EXPORT_KEY = re.compile(r"^exports/([0-9a-f]{32})/([0-9a-f]{32})\.(bib|json|ris|jsonl)$")


def caller_digest(principal: str) -> str:
    """The first 32 hex digits of SHA-256(principal): names a caller's objects without revealing who it is."""
    return hashlib.sha256(principal.encode()).hexdigest()[:32]


def index_key(principal: str) -> str:
    return f"library/{caller_digest(principal)}/index.sqlite"


def new_export_key(principal: str, ext: str) -> str:
    return f"exports/{caller_digest(principal)}/{uuid.uuid4().hex}.{ext}"


def own_export_key(reference: str, principal: str, *, field: str) -> str:
    """``reference`` when it is an export of this caller.

    Raises:
        InvalidArgumentError: (``field``) not an ``exports/<digest>/<id>.<ext>`` reference.
        NotFoundError: an export reference of another caller (never distinguishable from a missing one).
    """
    match = _EXPORT_KEY.match(reference)
    if not match:
        raise InvalidArgumentError(
            f"{field} must be an export reference returned by library_export (exports/<id>/<id>.<ext>)", field=field
        )
    if match.group(1) != caller_digest(principal):
        raise NotFoundError(f"no export {reference} exists", hint="Export again with library_export.")
    return reference
