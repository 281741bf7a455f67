"""The standards family's tools (seed 001, seed 000 "Standards"): inputs, outputs, annotations."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from scholar.catalogue import READ_ONLY_LOCAL, Annotations, ToolSpec
from scholar.standards.records import BODIES, StandardRecord
from scholar.standards.runs import SyncRun

MAX_TEXT_CHARS = 20_000
BodyFilter = Annotated[
    str,
    Field(
        min_length=2,
        max_length=20,
        pattern=r"^[A-Za-z0-9]+(/[A-Za-z0-9]+)*$",
        description="Only standards published by this body: IETF, NIST, W3C, ETSI, ISO, IEC or IEEE. Joint "
        "standards count for each of their bodies (IEC finds ISO/IEC 27001); 'ISO/IEC' requires both.",
    ),
]
_COLD = (
    " Before the first catalogue sync has finished, the call starts it and answers with a task handle "
    "(queued, task_id): poll get_task_result."
)


class ResolveInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    raw: Annotated[
        str,
        Field(
            min_length=1,
            max_length=300,
            description="The standard as cited, e.g. 'rfc9000', 'NIST SP 800-53', 'ISO 27001', 'IEEE 754-2008', "
            "'ETSI EN 303 645', 'WCAG 2.1' or a title.",
        ),
    ]


class SearchInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    query: Annotated[str, Field(min_length=1, max_length=300, description="Identifier, title words or free text.")]
    body: BodyFilter | None = None
    status: Literal["current", "withdrawn", "superseded", "draft", "all"] = Field(
        default="all",
        description="current: in force; withdrawn: no longer in force (withdrawn or superseded); superseded; "
        "draft; all (default).",
    )
    limit: Annotated[int, Field(ge=1, le=50, description="Maximum results (max 50).")] = 10


class GetStandardInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    identifier: Annotated[
        str,
        Field(
            min_length=1, max_length=300, description="Canonical or fuzzy identifier, or an id another tool returned."
        ),
    ]
    fetch_full_text: bool = Field(
        default=False, description="Also return the text of an open standard (RFCs; NIST and ETSI PDFs and W3C pages "
        "converted to Markdown), paged by text_offset. A PDF not converted yet answers with a task "
        "(queued, task_id): poll get_task_result; later pages answer directly."
    )
    text_offset: Annotated[int, Field(ge=0, le=50_000_000, description="Character offset of the text page.")] = 0
    max_chars: Annotated[int, Field(ge=1, le=MAX_TEXT_CHARS)] | None = Field(
        default=MAX_TEXT_CHARS,
        description="Maximum text characters to return (at most 20,000). Null returns the rest of the text in one "
        "response; only do that when the client can take a whole document.",
    )


class SyncStatusInput(BaseModel):
    model_config = ConfigDict(extra="forbid")


class VersionRef(BaseModel):
    """Another edition, revision, update or draft of the same standard."""

    id: str
    identifier: str
    status: str
    published: str | None = None


class ResolveResult(BaseModel):
    canonical: str | None = Field(default=None, description="Canonical identifier; null when unresolved or ambiguous.")
    body: str | None = None
    record: StandardRecord | None = None
    ambiguous: bool = False
    candidates: list[StandardRecord] = Field(default_factory=list, description="Ranked, when the input is ambiguous.")
    other_versions: list[VersionRef] = Field(
        default_factory=list, description="Other editions / revisions / drafts of the resolved standard."
    )
    matched_by: Literal["identifier", "title"] | None = None
    warning: str | None = Field(default=None, description="Set when a body the input may belong to has no data.")


class SearchResult(BaseModel):
    results: list[StandardRecord]
    partial: bool = Field(description="True when a body has no data in the catalogue (see failed_bodies).")
    failed_bodies: list[str] = Field(default_factory=list)
    warning: str | None = None
    catalogue_version: str | None = None


class StandardResult(StandardRecord):
    """get_standard's answer: the record, its other versions and, on request, a page of its text."""

    other_versions: list[VersionRef] = Field(default_factory=list)
    full_text: str | None = None
    full_text_error: str | None = None
    text_offset: int | None = None
    text_returned_chars: int | None = None
    text_total_chars: int | None = None
    text_truncated: bool | None = None
    next_offset: int | None = Field(default=None, description="Pass as text_offset for the next page; null at the end.")


class SyncStatusResult(BaseModel):
    runs: list[SyncRun] = Field(description="The latest run per body; empty before the first sync.")


_CATALOGUE_READ = Annotations(read_only=True, destructive=False, idempotent=True, open_world=False)

TOOLS = (
    ToolSpec(
        name="resolve_standard_identifier",
        family="standards",
        title="Resolve standard identifier",
        description="Normalise a messy standard citation to its canonical identifier and body, from a synced "
        "catalogue of IETF (RFC/BCP/STD/FYI), NIST (SP, FIPS, IR), W3C, ETSI, ISO, IEC and IEEE. Padding and "
        "spacing do not matter (rfc9000, RFC 0791); an identifier without year or revision ('ISO 27001', 'NIST SP "
        "800-53') resolves to the edition in force and lists the others in other_versions. Ambiguous input → "
        "{ambiguous: true, candidates}; nothing found → canonical, body and record all null." + _COLD,
        input_model=ResolveInput,
        output_model=ResolveResult,
        annotations=_CATALOGUE_READ,
        task_support="optional",
    ),
    ToolSpec(
        name="search_standards",
        family="standards",
        title="Search standards",
        description="Search technical standards by identifier, title or free text. Identifier matches come "
        "first, then BM25 relevance over identifiers, titles and abstracts. Filter by body (joint standards count "
        "for each body) and by status. Every answer states its completeness: partial, failed_bodies and "
        "warning name bodies with no data in the catalogue." + _COLD,
        input_model=SearchInput,
        output_model=SearchResult,
        annotations=_CATALOGUE_READ,
        task_support="optional",
        completions={"body": lambda: BODIES},
    ),
    ToolSpec(
        name="get_standard",
        family="standards",
        title="Get standard",
        description="Retrieve one standard's record (status, dates, supersedes / superseded_by, amendments, "
        "URLs) by canonical or fuzzy identifier. With fetch_full_text, also a page of its text (RFCs, NIST, W3C, "
        "ETSI; a PDF's first conversion answers with a task to poll; text_offset / max_chars ≤ 20,000 / next_offset); "
        "a failed text fetch still returns the record with "
        "full_text_error. not_found means the catalogue has no such standard." + _COLD,
        input_model=GetStandardInput,
        output_model=StandardResult,
        annotations=Annotations(open_world=True),  # full text is fetched from the body on request
        task_support="optional",
    ),
    ToolSpec(
        name="get_sync_status",
        family="standards",
        title="Get standards sync status",
        description="Report the latest standards catalogue sync per body: upstream_ref, added, updated, "
        "unchanged, withdrawn, errors (empty on success), started_at and finished_at (Unix seconds). runs is "
        "empty when no sync has run yet.",
        input_model=SyncStatusInput,
        output_model=SyncStatusResult,
        annotations=READ_ONLY_LOCAL,
    ),
)
