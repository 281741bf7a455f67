"""The LibraryTable's records: one item per paper of a caller, the PDF versions kept for it, collections.

The store owns its row models (scholar.store.library.table reads and writes them); they are also the contract of
the library's index (scholar.services.library.index), its tools (scholar.families.research.library_*) and the PDF
pipeline's
download_paper step (scholar.services.fulltext). Pydantic only.
"""

from __future__ import annotations

import hashlib
import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

DEFAULT_COLLECTION = "inbox"
COLLECTION_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9 ._\-/]{0,79}$"
TAG_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:\-/]{0,49}$"
ITEM_ID_PATTERN = r"^lib_[0-9a-f]{20}$"
MAX_NOTES_CHARS = 20_000
MAX_TAGS = 50
Tag = Annotated[str, Field(pattern=TAG_PATTERN)]

PdfVersionKind = Literal["published", "accepted", "submitted", "preprint", "unknown"]


class PdfVersion(BaseModel):
    """One PDF kept for an item: content-addressed in the artifact bucket, never overwritten."""

    model_config = ConfigDict(extra="forbid")

    pdf_path: str = Field(description="Artifact reference: pdfs/<sha256>.pdf")
    sha256: str
    size_bytes: int
    version: PdfVersionKind = Field(description="published (version of record), accepted, submitted, preprint")
    pdf_source: str = Field(description="Where it came from: s2_oa, arxiv, pmc, unpaywall, openalex, publisher, url")
    source_url: str
    kept_at: str = Field(description="ISO 8601 UTC time it was kept")


class LibraryItem(BaseModel):
    """A saved paper. ``item_id`` is derived from the paper's identity, so adding it twice is one item."""

    model_config = ConfigDict(extra="forbid")

    item_id: str = Field(pattern=ITEM_ID_PATTERN)
    collection: str = Field(default=DEFAULT_COLLECTION, pattern=COLLECTION_PATTERN)
    ids: list[str] = Field(default_factory=list, description="Identifiers every tool accepts (DOI, arXiv:…, S2 id …)")
    paper: dict[str, Any] = Field(
        description="The full paper record (scholar.core.records.Paper, every author, abstract)")
    # Counted and measured by scholar.store.library.bounds (too_large naming the field), with every other field.
    tags: list[Tag] = Field(default_factory=list)
    notes: str | None = None
    pdfs: list[PdfVersion] = Field(default_factory=list, description="PDF versions kept, oldest first")
    md_path: str | None = Field(default=None, description="Markdown of the preferred PDF, when converted")
    added_at: str
    updated_at: str
    rev: int = Field(default=0, description="The library revision of the last write to this item")


class Collection(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=COLLECTION_PATTERN)
    created_at: str
    items: int = Field(default=0, ge=0, description="Items in the collection")


def item_id_for(identity: str) -> str:
    """The item id of a paper, from its canonical identity (``kind:value`` of scholar.core.ids, DOI preferred).

    Per caller: the same paper in two libraries has the same id, but each lives in its owner's partition,
    so another caller's id is simply ``not_found``.
    """
    return "lib_" + hashlib.sha256(identity.encode()).hexdigest()[:20]


_ITEM_ID = re.compile(ITEM_ID_PATTERN)


def is_item_id(identifier: str) -> bool:
    """Whether ``identifier`` is a library item id (``lib_`` and 20 hex digits) rather than a paper identifier."""
    return _ITEM_ID.fullmatch(identifier.strip()) is not None
