"""The answer of a checked bibliographic match (scholar.services.paper_lookup.match): shared by the tools that match
free text (get_paper and every identifier-taking tool, batch_resolve, check_references, library_import).

Pydantic only, so a family's spec can use these shapes without importing the sources.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from scholar.core.records import FailedSource, Paper

MatchStatus = Literal["matched", "ambiguous", "not_found"]


class MatchedBy(BaseModel):
    """Which source supplied the accepted record and which check accepted it."""

    source: str
    check: str = Field(description="title, venue+volume+page+year or identifier_in_text")


class Candidate(BaseModel):
    """A record a source offered, with how well it fits."""

    title: str | None = None
    year: int | None = None
    first_author: str | None = None
    venue: str | None = None
    identifiers: list[str] = Field(default_factory=list)
    source: str
    confidence: float
    accepted: bool = False


class MatchOutcome(BaseModel):
    """What a reference matched: the record, or ranked candidates, and what was asked."""

    status: MatchStatus
    paper: Paper | None = None
    matched_by: MatchedBy | None = None
    confidence: float = 0.0
    candidates: list[Candidate] = Field(default_factory=list)
    disagreements: dict[str, str] = Field(default_factory=dict, description="year, authors, venue or title")
    tried: list[str] = Field(default_factory=list)
    failed_sources: list[FailedSource] = Field(default_factory=list)
