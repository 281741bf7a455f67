"""The library tools of the research family (seed 003, issue 12): a caller's own saved papers.

A few ``library_*`` tools rather than one ``library`` tool with an ``action``: each has only the parameters
it uses (a schema an agent reads at a glance), its own output schema and honest annotations (only remove
and collection deletes are destructive). The caller's own data: none is tagged ``write``, so they stay
available in read-only mode. ``library_search``, ``library_export`` and ``library_import`` live in their own
spec module.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from scholar.core.catalogue import MAX_RESULT_CHARS, Annotations, ToolInput, spec_maker
from scholar.core.records import Paper
from scholar.store.library.models import (
    COLLECTION_PATTERN,
    DEFAULT_COLLECTION,
    MAX_NOTES_CHARS,
    TAG_PATTERN,
    PdfVersion,
)

MAX_IDS = 50
MAX_TAGS_PER_CALL = 20
LIST_LIMIT = 100

Identifier = Annotated[
    str, Field(min_length=1, max_length=300, description="A library item id (lib_...) or any paper identifier")
]
CollectionName = Annotated[str, Field(pattern=COLLECTION_PATTERN)]
TagName = Annotated[str, Field(pattern=TAG_PATTERN)]
Tags = Annotated[list[TagName], Field(max_length=MAX_TAGS_PER_CALL)]
Identifiers = Annotated[list[Identifier], Field(min_length=1, max_length=MAX_IDS)]
Notes = Annotated[str, Field(max_length=MAX_NOTES_CHARS, description="Your notes (Markdown)")]

# The caller's own records: nothing outside the library changes, so no write tag (read-only mode keeps them).
_ADD = Annotations(read_only=False, destructive=False, idempotent=True, open_world=True)
_GET = Annotations(read_only=True, destructive=False, idempotent=True, open_world=True)
_LIST = Annotations(read_only=True, destructive=False, idempotent=True, open_world=False)
_UPDATE = Annotations(read_only=False, destructive=False, idempotent=True, open_world=True)
_REMOVE = Annotations(read_only=False, destructive=True, idempotent=True, open_world=True)
_COLLECTIONS = Annotations(read_only=False, destructive=True, idempotent=False, open_world=False)


class LibraryRecord(BaseModel):
    """A saved paper, in full: the paper record (every author, abstract, ids), your tags and notes, kept PDFs."""

    item_id: str = Field(description="The item's id in your library (lib_…); every library tool accepts it")
    collection: str
    ids: list[str] = Field(description="The paper's identifiers, in forms every tool accepts")
    paper: Paper
    tags: list[str] = Field(default_factory=list)
    notes: str | None = None
    pdfs: list[PdfVersion] = Field(default_factory=list, description="PDF versions kept, oldest first")
    md_path: str | None = Field(default=None, description="Markdown of the preferred PDF, when converted")
    added_at: str
    updated_at: str
    shortened: bool | None = Field(default=None, description="Shortened to fit the size budget (library_export "
                                   "gives it whole)")


class LibraryEntry(BaseModel):
    """A saved paper in a list: compact (first authors, no abstract); library_get gives the whole record."""

    item_id: str
    title: str | None = None
    authors: list[str] | None = Field(default=None, description="The first authors")
    author_count: int | None = Field(default=None, description="All authors, when more than shown")
    year: int | None = None
    venue: str | None = None
    ids: list[str]
    collection: str
    tags: list[str] = Field(default_factory=list)
    has_notes: bool = False
    pdfs: int = Field(default=0, description="PDF versions kept")
    added_at: str


class LibraryAddInput(ToolInput):
    identifier: Identifier
    collection: CollectionName = DEFAULT_COLLECTION
    tags: Tags = Field(default_factory=list, description="Added to any it has")
    notes: Notes | None = None


class LibraryAddResult(BaseModel):
    item: LibraryRecord
    created: bool = Field(description="False when the paper was in your library already (one item per paper)")


class _IdsInput(BaseModel):
    # The arguments of library_get and library_remove: only the items' ids (no docstring: it would be schema text).
    model_config = ConfigDict(extra="forbid")
    ids: Identifiers


class LibraryGetInput(_IdsInput):
    pass


class LibraryRemoveInput(_IdsInput):
    pass


class _IdOutcome(BaseModel):
    # What library_get and library_remove answer for each id asked, first of all the id itself.
    id: str = Field(description="The identifier as asked")


class LibraryGetEntry(_IdOutcome):
    status: Literal["ok", "not_found", "invalid_id", "upstream_error", "rate_limited"]
    item: LibraryRecord | None = None
    message: str | None = Field(default=None, description="Why there is no item, when there is none")


class LibraryGetResult(BaseModel):
    items: list[LibraryGetEntry]
    truncated: bool | None = Field(default=None, description="Some records were left out to fit the size budget")
    omitted: list[str] | None = Field(default=None, description="Identifiers whose records were left out")


class LibraryListInput(ToolInput):
    collection: CollectionName | None = None
    tag: TagName | None = None
    year_start: Annotated[int | None, Field(default=None, ge=1000, le=2100)] = None
    year_end: Annotated[int | None, Field(default=None, ge=1000, le=2100)] = None
    limit: Annotated[int, Field(ge=1, le=LIST_LIMIT)] = 20
    cursor: Annotated[str | None, Field(default=None, min_length=1, max_length=500,
                                        description="next_cursor of the previous answer (same filters)")] = None


class LibraryListResult(BaseModel):
    items: list[LibraryEntry]
    next_cursor: str | None = Field(default=None, description="Pass as cursor for the next page")
    library_items: int = Field(description="Items in your whole library")
    truncated: bool | None = Field(default=None, description="The page was cut to fit the size budget")


class LibraryUpdateInput(ToolInput):
    id: Identifier
    add_tags: Tags = Field(default_factory=list)
    remove_tags: Tags = Field(default_factory=list)
    notes: Annotated[str | None, Field(default=None, max_length=MAX_NOTES_CHARS,
                                       description="Replaces the notes; an empty string clears them")] = None
    collection: CollectionName | None = Field(default=None, description="Move the item here (created if needed)")


class LibraryUpdateResult(BaseModel):
    item: LibraryRecord
    changed: bool = Field(description="False when the item already was as asked")


class LibraryRemoveEntry(_IdOutcome):
    status: Literal["removed", "not_found", "invalid_id", "upstream_error", "rate_limited"]
    item_id: str | None = None
    message: str | None = None


class LibraryRemoveResult(BaseModel):
    results: list[LibraryRemoveEntry]
    removed: int


class LibraryCollectionsInput(ToolInput):
    action: Literal["list", "create", "rename", "delete"] = "list"
    name: CollectionName | None = None
    new_name: CollectionName | None = Field(default=None, description="rename only")


class CollectionEntry(BaseModel):
    name: str
    items: int
    created_at: str


class LibraryCollectionsResult(BaseModel):
    action: str
    collections: list[CollectionEntry] = Field(description="Your collections after the action, by name")
    truncated: bool = Field(default=False, description="collections was cut to fit the size budget")
    moved: int | None = Field(default=None, description="Items moved by a rename")
    library_items: int = Field(description="Items in your whole library")


_spec = spec_maker("research")


TOOLS = (
    _spec("library_add", "Add to library",
          "Save a paper in your library with its full record (every author, the abstract, all ids). Adding it "
          "again, by any of its ids, is the same item: tags are added, notes replaced, collection kept. Your PDF "
          "(local path, mine/…, upload/…) goes on its paper's item (DOI/arXiv id in the file), else an untitled "
          "document.",
          LibraryAddInput, LibraryAddResult, _ADD, max_result_chars=MAX_RESULT_CHARS),  # handlers.record_of
    _spec("library_get", "Get from library",
          "Your saved papers in full (record, tags, notes, kept PDFs), each with a status; cut to the size budget "
          "with truncated and omitted. Only your own library is visible.",
          LibraryGetInput, LibraryGetResult, _GET, max_result_chars=MAX_RESULT_CHARS),  # record_of, fit
    _spec("library_list", "List library",
          "Your saved papers as compact entries, filtered by collection, tag and years; page with next_cursor. "
          "library_get gives the full records.",
          LibraryListInput, LibraryListResult, _LIST, max_result_chars=MAX_RESULT_CHARS),  # core.budget.fit
    _spec("library_update", "Update library item",
          "Change one saved paper's tags, notes or collection. Concurrent updates never lose one another.",
          LibraryUpdateInput, LibraryUpdateResult, _UPDATE,
          max_result_chars=MAX_RESULT_CHARS),  # handlers.record_of
    _spec("library_remove", "Remove from library",
          "Remove saved papers with their tags and notes (kept PDF files stay in the artifact store); each id gets "
          "a status.",
          LibraryRemoveInput, LibraryRemoveResult, _REMOVE),
    _spec("library_collections", "Library collections",
          "Your collections with their item counts; or create one, rename one (moving its items; new_name must not "
          "exist) or delete one (only when empty).",
          LibraryCollectionsInput, LibraryCollectionsResult, _COLLECTIONS,
          max_result_chars=MAX_RESULT_CHARS),  # handlers: core.budget.fit_field (collections are not counted)
)
