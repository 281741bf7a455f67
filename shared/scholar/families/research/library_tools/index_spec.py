"""The library's full-text search, export and import tools (issue 12, item 3): library_search, library_export,
library_import. The caller's own data: available in read-only mode, never tagged ``write``.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from scholar.core.catalogue import MAX_RESULT_CHARS, READ_ONLY_LOCAL, Annotations, ToolSpec
from scholar.store.library.models import COLLECTION_PATTERN, TAG_PATTERN

MAX_QUERY = 500
# Inline snapshots stay well under the gateway's request cap (4 MiB); larger ones go by export reference.
MAX_INLINE_JSONL = 3_000_000
ExportFormat = Literal["bibtex", "csl-json", "ris", "jsonl"]
Collection = Annotated[str, Field(pattern=COLLECTION_PATTERN)]
# Imports add and update the caller's own items; they never delete, and a second import of the same file is a no-op.
# Open world: a reference list's entries are looked up in the scholarly sources.
IMPORT = Annotations(read_only=False, destructive=False, idempotent=True, open_world=True)


class LibrarySearchInput(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)
    query: Annotated[
        str | None,
        Field(default=None, min_length=1, max_length=MAX_QUERY,
              description="Words, or FTS5 syntax: \"phrase\", OR, NOT, prefix*, notes:"),
    ] = None
    like: Annotated[
        str | None,
        Field(default=None, min_length=1, max_length=200, description="An item_id: papers like it"),
    ] = None
    collection: Collection | None = None
    tag: Annotated[str | None, Field(default=None, pattern=TAG_PATTERN)] = None
    year_start: Annotated[int | None, Field(default=None, ge=1600, le=2100)] = None
    year_end: Annotated[int | None, Field(default=None, ge=1600, le=2100)] = None
    limit: Annotated[int, Field(ge=1, le=50)] = 10
    cursor: Annotated[
        str | None,
        Field(default=None, min_length=1, max_length=200,
              description="next_cursor of the previous answer (same query and filters)"),
    ] = None

    @field_validator("query")
    @classmethod
    def _not_blank(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("must not be blank")
        return value

    @model_validator(mode="after")
    def _query_or_like(self) -> LibrarySearchInput:
        if (self.query is None) == (self.like is None):
            raise ValueError("pass either query or like (an item_id), not both")
        return self


class LibraryHit(BaseModel):
    model_config = ConfigDict(defer_build=True)
    item_id: str = Field(description="Pass to the library tools (get, tag, move, remove)")
    title: str | None = None
    year: int | None = None
    collection: str
    score: float = Field(description="Relevance, higher is better: words and meaning fused (0-1), BM25 for FTS5 "
                         "syntax, cosine for like")
    snippet: str = Field(description="The best matching passage, matched words in **bold**")
    matched_fields: list[str] = Field(description="Fields holding a match: title, authors, abstract, notes, tags, body")


class LibrarySearchResult(BaseModel):
    model_config = ConfigDict(defer_build=True)
    query: str | None = None
    like: str | None = None
    hits: list[LibraryHit]
    total: int = Field(description="Hits in the whole ranked set")
    offset: int
    next_cursor: str | None = Field(default=None, description="Pass as cursor (with the same query) for the next page")
    match: Literal["hybrid", "as_written", "all", "any", "like"] = Field(
        description="hybrid: plain words, by words and meaning; as_written: FTS5 syntax; all/any: every/some word "
        "(invalid syntax); like: by meaning"
    )
    index_revision: int = Field(description="The library revision the index reflected when it answered")


class LibraryExportInput(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)
    format: ExportFormat = Field(
        default="bibtex", description="jsonl: a lossless snapshot library_import reads back"
    )
    collection: Collection | None = Field(default=None, description="Only this collection")


class LibraryExportResult(BaseModel):
    model_config = ConfigDict(defer_build=True)
    format: ExportFormat
    collection: str | None = None
    count: int = Field(description="Items exported")
    chars: int = Field(description="Length of the export text")
    content: str | None = Field(default=None, description="The export itself, when it fits the size budget")
    reference: str | None = Field(
        default=None, description="Where a large export is stored (exports/…); library_import accepts it"
    )
    url: str | None = Field(default=None, description="A short-lived download link of the stored export")
    url_expires_s: int | None = None


ImportFormat = Literal["jsonl", "bibtex", "ris", "csl-json"]
# A reference list's entries are each looked up: at most this many per call (the library's own bound is higher).
MAX_IMPORT_ENTRIES = 2_000
MAX_ENTRY_OUTCOMES = 200


class LibraryImportInput(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)
    jsonl: Annotated[
        str | None,
        Field(default=None, min_length=1, max_length=MAX_INLINE_JSONL, description="A library_export jsonl snapshot"),
    ] = None
    text: Annotated[
        str | None,
        Field(default=None, min_length=1, max_length=MAX_INLINE_JSONL),  # the tool's description says what
    ] = None
    format: ImportFormat | None = Field(default=None, description="Of text; detected when omitted")
    reference: Annotated[
        str | None,
        Field(default=None, min_length=1, max_length=200, description="exports/... of a jsonl export of yours"),
    ] = None
    collection: Collection | None = Field(default=None, description="Put every item in this collection")

    @model_validator(mode="after")
    def _one_source(self) -> LibraryImportInput:
        if sum(x is not None for x in (self.jsonl, self.text, self.reference)) != 1:
            raise ValueError("give exactly one of jsonl, text or reference")
        return self


class ImportedEntry(BaseModel):
    model_config = ConfigDict(defer_build=True)
    index: int = Field(description="The entry's place in the text, from 0")
    key: str | None = Field(default=None, description="Its citation key or id as written")
    title: str | None = None
    status: Literal["matched", "unmatched", "failed"] = Field(
        description="matched: a record; unmatched: kept as written, tagged unmatched; failed: a source failed, kept "
        "as written (import again)"
    )
    item_id: str
    written: Literal["added", "updated", "skipped"]
    message: str | None = None


class LibraryImportResult(BaseModel):
    model_config = ConfigDict(defer_build=True)
    items: int = Field(description="Items (entries) in the text")
    added: int = Field(description="Items that were not in the library")
    updated: int = Field(description="Items replaced because the snapshot's copy is newer (or now matched)")
    skipped: int = Field(description="Items already in the library and not older than the snapshot's copy")
    exported_at: str | None = Field(default=None, description="When the snapshot was written")
    collection: str | None = Field(default=None, description="The collection every item was put in, if overridden")
    format: ImportFormat | None = None
    matched: int | None = Field(default=None, description="Entries matched to a record")
    unmatched: int | None = Field(default=None, description="Entries kept as written, tagged unmatched")
    failed: int | None = Field(default=None, description="Entries whose lookup failed, kept as written (import again)")
    entries: list[ImportedEntry] | None = Field(default=None, description="Each entry's outcome (first 200)")
    truncated: bool | None = None


TOOLS = (
    ToolSpec(
        name="library_search",
        family="research",
        title="Search your library",
        description="Search your saved papers (titles, authors, abstracts, notes, tags, converted text) by words and "
        "meaning, or like=item_id for papers like one. Snippets; page with next_cursor.",
        input_model=LibrarySearchInput,
        output_model=LibrarySearchResult,
        annotations=READ_ONLY_LOCAL,
        max_result_chars=MAX_RESULT_CHARS,  # core.budget.fit, the cursor goes on from the last hit
    ),
    ToolSpec(
        name="library_export",
        family="research",
        title="Export your library",
        description="A collection or your whole library as BibTeX, CSL-JSON, RIS or a JSONL snapshot; a large "
        "export is stored and answered with a reference and a 15-minute download link.",
        input_model=LibraryExportInput,
        output_model=LibraryExportResult,
        annotations=READ_ONLY_LOCAL,
        max_result_chars=MAX_RESULT_CHARS,  # library.export.INLINE_BUDGET, else a stored reference
    ),
    ToolSpec(
        name="library_import",
        family="research",
        title="Import into your library",
        description="Import BibTeX, RIS or CSL-JSON text (each reference matched by its DOI, arXiv id or PMID; the "
        "rest kept as written, tagged unmatched) or a library_export JSONL snapshot (newer copies win).",
        input_model=LibraryImportInput,
        output_model=LibraryImportResult,
        annotations=IMPORT,
    ),
)
