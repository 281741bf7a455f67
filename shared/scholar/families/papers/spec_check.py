"""check_references: a reference list checked against the bibliographic sources in one call (issue 37).

Cheap to import (pydantic only; the match's shapes come from scholar.core.matching).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from scholar.core.catalogue import MAX_RESULT_CHARS
from scholar.core.matching import Candidate, MatchedBy
from scholar.families.papers.fields import PerItemAnswer, papers_tool

MAX_REFERENCES = 100
MAX_REFERENCE_CHARS = 2000
CheckStatus = Literal["matched", "ambiguous", "unmatched", "rate_limited", "upstream_error"]


class CheckReferencesInput(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)
    references: list[Annotated[str, Field(min_length=1, max_length=MAX_REFERENCE_CHARS)]] = Field(
        min_length=1, max_length=MAX_REFERENCES, description="Citations or BibTeX entries")
    bibtex: bool = Field(default=False, description="Add the matches as BibTeX")


class CheckedReference(BaseModel):
    model_config = ConfigDict(defer_build=True)
    input: str = Field(description="The reference as given (shortened past 300 characters)")
    status: CheckStatus
    identifiers: list[str] | None = None
    title: str | None = None
    year: int | None = None
    authors: list[str] | None = Field(default=None, description="The first three")
    venue: str | None = None
    matched_by: MatchedBy | None = None
    confidence: float | None = None
    disagreements: dict[str, str] | None = Field(default=None, description="year, authors, venue or title")
    candidates: list[Candidate] | None = Field(default=None, description="Ranked, when ambiguous")
    error: str | None = None


class CheckReferencesResult(PerItemAnswer):
    items: list[CheckedReference]
    summary: dict[str, int] = Field(description="Items per status")
    truncated: bool = Field(default=False, description="Candidates were left out to stay under the size budget")
    bibtex: str | None = Field(default=None, description="The matched papers as BibTeX, when asked")


TOOLS = (
    papers_tool("check_references", "Check references",
                "Check up to 100 citations or BibTeX entries against Crossref, OpenAlex, Europe PMC and S2: "
                "each gets its paper's ids, confidence, the check that accepted it and what disagrees, else "
                "ambiguous (candidates) or unmatched.",
                CheckReferencesInput, CheckReferencesResult, max_result_chars=MAX_RESULT_CHARS),  # papers.check._fit
)
