"""The one record every standards body is loaded into, whatever its upstream shape.

``id`` is unique in the catalogue (RFC9000, a NIST CSRC path, a Relaton primary docid, a W3C short name);
``identifier`` is the citation form people write. Several records may share an identifier (NIST updates
and drafts of one revision): lookups pick the best by status, the others stay reachable by ``id``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

Status = Literal["current", "superseded", "withdrawn", "draft"]

# Bodies the catalogue is synced from (sync unit); joint publishers appear in ``bodies``.
BODIES: tuple[str, ...] = ("IETF", "NIST", "W3C", "ETSI", "ISO", "IEC", "IEEE")

# Order used to pick the best of several records for one identifier (lower is better).
STATUS_RANK: dict[str, int] = {"current": 0, "superseded": 1, "withdrawn": 2, "draft": 3}


class StandardRecord(BaseModel):
    """A standard, an edition, an amendment or a draft, as catalogued."""

    id: str = Field(description="Unique catalogue id; accepted by get_standard.")
    identifier: str = Field(description="Canonical citation form, e.g. 'RFC 9000', 'ISO/IEC 27001:2022'.")
    title: str = ""
    body: str = Field(description="The body whose catalogue holds the record (IETF, NIST, W3C, ETSI, ISO, IEC, IEEE).")
    bodies: list[str] = Field(default_factory=list, description="Every publishing body (joint standards list several).")
    status: Status = "current"
    upstream_status: str | None = Field(default=None, description="The status as the body states it.")
    doc_type: str | None = Field(default=None, description="Kind of document: RFC, BCP, SP, FIPS, EN, amendment …")
    version: str | None = Field(default=None, description="Revision, edition, version or draft iteration.")
    published: str | None = Field(default=None, description="Publication date (YYYY, YYYY-MM or YYYY-MM-DD).")
    withdrawn_on: str | None = None
    abstract: str | None = None
    authors: list[str] = Field(default_factory=list)
    keywords: list[str] = Field(default_factory=list)
    supersedes: list[str] = Field(default_factory=list)
    superseded_by: list[str] = Field(default_factory=list)
    amends: list[str] = Field(default_factory=list, description="Base standard(s) this amendment/corrigendum changes.")
    amendments: list[str] = Field(
        default_factory=list, description="Amendments, corrigenda and the like of this record."
    )
    updates: list[str] = Field(default_factory=list)
    updated_by: list[str] = Field(default_factory=list)
    related: list[str] = Field(
        default_factory=list, description="Other identifiers of the same work (BCP/STD/FYI ↔ RFC)."
    )
    urls: list[str] = Field(default_factory=list)
    full_text_url: str | None = None
    doi: str | None = None
    aliases: list[str] = Field(default_factory=list, description="Other identifiers this record answers to.")
    source: str = Field(description="Upstream the record was loaded from (rfc_editor, nist, w3c, relaton).")
