"""The standards family's tools (seed 001, seed 000 "Standards"): inputs, outputs, annotations."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from scholar.core.catalogue import MAX_RESULT_CHARS, READ_ONLY_LOCAL, Annotations, ToolInput, ToolSpec
from scholar.families.standards.records import BODIES, StandardRecord
from scholar.families.standards.runs import SyncRun

MAX_TEXT_CHARS = 20_000
# max_chars null: the rest of the text at once, up to this much (a longer text goes on at next_offset).
WHOLE_TEXT_CHARS = 400_000
# The most characters of one get_standard answer as sent: the text, its escaping in JSON (newlines, quotes) and the
# record (dates, URLs, other versions). Advertised as the tool's result size.
RESULT_CHARS = WHOLE_TEXT_CHARS + 40_000
BodyFilter = Annotated[
    str,
    Field(
        min_length=2,
        max_length=20,
        pattern=r"^[A-Za-z0-9]+(/[A-Za-z0-9]+)*$",
        description="IETF, NIST, W3C, ETSI, ISO, IEC or IEEE; a joint standard counts for each of its bodies (IEC "
        "finds ISO/IEC 27001), ISO/IEC needs both",
    ),
]


class ResolveInput(ToolInput):
    raw: Annotated[
        str,
        Field(
            min_length=1,
            max_length=300,
            description="The standard as cited, e.g. 'rfc9000', 'NIST SP 800-53', 'ISO 27001', 'IEEE 754-2008', "
            "'ETSI EN 303 645', 'WCAG 2.1' or a title.",
        ),
    ]


class SearchInput(ToolInput):
    query: Annotated[str, Field(min_length=1, max_length=300)]
    body: BodyFilter | None = None
    status: Literal["current", "withdrawn", "superseded", "draft", "all"] = Field(
        default="all", description="current: in force; withdrawn: no longer in force (withdrawn or superseded)"
    )
    limit: Annotated[int, Field(ge=1, le=50)] = 10


class GetStandardInput(ToolInput):
    identifier: Annotated[
        str,
        Field(min_length=1, max_length=300, description="Canonical or fuzzy identifier"),
    ]
    fetch_full_text: bool = Field(
        default=False, description="Also a page of the text of an open standard (RFCs; NIST and ETSI PDFs and W3C "
        "pages as Markdown); a PDF's first conversion answers queued"
    )
    text_offset: Annotated[int, Field(ge=0, le=50_000_000, description="Pass next_offset")] = 0
    max_chars: Annotated[int, Field(ge=1, le=MAX_TEXT_CHARS)] | None = Field(
        default=MAX_TEXT_CHARS,
        description=f"Text characters per page; null: the rest, up to {WHOLE_TEXT_CHARS:,} (for a client that "
        "takes a whole document)",
    )


class SyncStatusInput(ToolInput):
    pass  # no arguments


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
    truncated: bool = Field(default=False, description="candidates were cut to stay under the size budget.")
    other_versions: list[VersionRef] = Field(
        default_factory=list, description="Other editions / revisions / drafts of the resolved standard."
    )
    matched_by: Literal["identifier", "title", "source"] | None = Field(
        default=None, description="source: not in the synced catalogue, read from the body's source just now"
    )
    warning: str | None = Field(default=None, description="Why the answer may be incomplete (a body not synced, a "
                                "source that did not answer)")


class SearchResult(BaseModel):
    results: list[StandardRecord]
    truncated: bool = Field(default=False, description="The list was cut to stay under the size budget.")
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
        description="A messy standard citation to its canonical identifier and body, from a synced catalogue of "
        "IETF (RFC, BCP, STD, FYI), NIST (SP, FIPS, IR), W3C, ETSI, ISO, IEC and IEEE. Padding and spacing do not "
        "matter; without a year or revision it resolves to the edition in force (the others in other_versions). "
        "Ambiguous → {ambiguous: true, candidates}; nothing found → canonical, body and record null.",
        input_model=ResolveInput,
        output_model=ResolveResult,
        annotations=_CATALOGUE_READ,
        task_support="optional",
        max_result_chars=MAX_RESULT_CHARS,  # handlers: core.budget.fit_field on the candidates
    ),
    ToolSpec(
        name="search_standards",
        family="standards",
        title="Search standards",
        description="Technical standards by identifier, title or free text: identifier matches first, then BM25 "
        "over identifiers, titles and abstracts. partial, failed_bodies and warning name bodies with no data in the "
        "catalogue.",
        input_model=SearchInput,
        output_model=SearchResult,
        annotations=_CATALOGUE_READ,
        task_support="optional",
        max_result_chars=MAX_RESULT_CHARS,  # core.budget.fit_field
        completions={"body": lambda: BODIES},
    ),
    ToolSpec(
        name="get_standard",
        family="standards",
        title="Get standard",
        description="One standard's record (status, dates, supersedes / superseded_by, amendments, URLs), and a "
        "page of its text on request. A failed text fetch still returns the record, with full_text_error; not_found "
        "means the catalogue has no such standard.",
        input_model=GetStandardInput,
        output_model=StandardResult,
        annotations=Annotations(open_world=True),  # full text is fetched from the body on request
        task_support="optional",
        max_result_chars=RESULT_CHARS,  # fulltext.page keeps the text within WHOLE_TEXT_CHARS
    ),
    ToolSpec(
        name="get_sync_status",
        family="standards",
        title="Get standards sync status",
        description="The latest standards catalogue sync per body: upstream_ref, added, updated, unchanged, "
        "withdrawn, errors, started_at and finished_at (Unix seconds). runs is empty before the first sync, which "
        "the first standards call starts (it answers queued until the sync is done).",
        input_model=SyncStatusInput,
        output_model=SyncStatusResult,
        annotations=READ_ONLY_LOCAL,
    ),
)
