"""The field sets of seed 000 and the Semantic Scholar fields each one asks for; what every papers tool shares."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from scholar.core.catalogue import READ_ONLY_OPEN, spec_maker
from scholar.core.paper_mapping import S2_RECORD_FIELDS
from scholar.core.records import FailedSources

FieldSet = Literal["compact", "standard", "full"]

# Every papers tool only reads open sources and queues when an upstream still throttles after its retries.
papers_tool = spec_maker("papers", annotations=READ_ONLY_OPEN, queue_on_rate_limit=True)

# Argument types every papers tool shares (their descriptions become the tool schemas' text). The identifier
# forms are spelled out once, on get_paper (PAPER_ID_FORMS); every other tool says "any paper identifier"
# (scholar.core.ids.PaperIdentifier, shared with the other families).
PAPER_ID_FORMS = (
    "DOI (bare, doi:, doi.org or publisher URL), S2 id, arXiv id or URL, PMID:, PMCID:, CorpusId:, ACM:, ACL: or "
    "MAG:, any id a tool returned, or an exact title or citation"
)
Year = Annotated[int, Field(ge=1000, le=2100)]
FieldOfStudy = Annotated[str, Field(min_length=1, max_length=60)]


def s2_only() -> list[str]:
    """Which sources answered, on the results of the tools Semantic Scholar alone serves.

    ``sources: list[str] = Field(default_factory=s2_only)``: the default is assigned, not put in an ``Annotated``
    alias, so that the type checker's pydantic plugin sees the field is optional.
    """
    return ["s2"]


COMPACT = ("paperId", "title", "year", "venue", "citationCount")
STANDARD = (*COMPACT, "authors", "externalIds", "abstract")
FULL = S2_RECORD_FIELDS  # a full record (scholar.core.paper_mapping): the library stores the same fields
FIELDS: dict[str, tuple[str, ...]] = {"compact": COMPACT, "standard": STANDARD, "full": FULL}
# Bulk search cannot return tldr (S2 rejects it there).
BULK_UNSUPPORTED = frozenset({"tldr"})


class PerItemAnswer(BaseModel):
    """An answer with one entry per item asked (batch_resolve, check_references): whether a source failed."""

    model_config = ConfigDict(defer_build=True)
    partial: bool = False
    failed_sources: FailedSources
