"""library_sync and library_connections: a caller's library sent out (Zotero, Notion, files) and brought back.

Two tools rather than one per target: the target is an argument, so the listing grows by two schemas whatever
connectors arrive (the targets are the connector registry's). Neither is tagged ``write``: like the library tools
they change only the caller's own data (their library, their Zotero or Notion). Neither is in the default profile
(its listing budget is for find → read → cite → keep); both are in ``all`` and the research toolset. A key never
travels through them: it is connected on the server's page (hosted) or set on the machine (environment or OS
keyring).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from scholar.core.catalogue import MAX_RESULT_CHARS, Annotations, ToolSpec
from scholar.services.connectors.outcome import SyncReport
from scholar.services.connectors.registry import REGISTRATIONS, TARGETS
from scholar.store.connections import Connection
from scholar.store.library.models import COLLECTION_PATTERN

SYNC_TOOL = "library_sync"
CONNECTIONS_TOOL = "library_connections"
# The most per-item results an answer lists (the counts always cover every item).
MAX_RESULTS = 200

# The registry's targets, in its order; those a hosted caller connects on the server's page can be removed.
# A Literal of the registry's names, read at import: to the type checker (which cannot evaluate it), a name.
if TYPE_CHECKING:
    Target = str
    Connectable = str
else:
    Target = Literal[TARGETS]
    # ... and the library proxy (licensed full text, scholar.gateway.auth.connect_proxy): connected the same way.
    Connectable = Literal[(*(r.name for r in REGISTRATIONS if r.abilities.connect_page), "proxy")]

_COLLECTION = re.compile(COLLECTION_PATTERN)
_SYNC = Annotations(read_only=False, destructive=False, idempotent=True, open_world=True)
_CONNECTIONS = Annotations(read_only=False, destructive=True, idempotent=True, open_world=False)


def _collection_name(value: str) -> str:
    # Checked here rather than as a schema pattern: the listing of every tool has a budget (DESIGN §3).
    if not _COLLECTION.fullmatch(value):
        raise ValueError("a collection name: letters, digits, space and ._-/ up to 80 characters, starting with a "
                         "letter or digit")
    return value


CollectionName = Annotated[str, AfterValidator(_collection_name)]


class LibrarySyncInput(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)
    target: Target
    direction: Literal["push", "pull"] = "push"
    collection: CollectionName | None = None
    dry_run: bool = False


class LibrarySyncResult(SyncReport):
    truncated: bool | None = Field(default=None, description="results lists the first items that changed: at most "
                                   "200, fewer past the size budget")


class LibraryConnectionsInput(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)
    remove: Connectable | None = None
    connect: Connectable | None = None


class LibraryConnectionsResult(BaseModel):
    connections: list[Connection] = Field(description="Your connections (never their keys)")
    machine: str | None = Field(default=None, description=(
        "On one machine: where its Zotero key comes from (environment or keyring), when set"))
    removed: bool | None = None
    connect_url: str | None = Field(default=None, description=(
        "Hosted: open it in a browser to connect the target named by connect (without connect: Zotero, when nothing "
        "is connected); it works once, within 10 minutes"))


SYNC_SPEC = ToolSpec(
    name=SYNC_TOOL, family="research", title="Sync library with Zotero",
    description="Push a collection to Zotero (items, notes, PDFs), Notion, a .bib or Obsidian: changes only, edits "
    "kept as conflicts; pull from Zotero, Notion (none: all) or a .bib. Per-item outcome.",
    input_model=LibrarySyncInput, output_model=LibrarySyncResult, annotations=_SYNC, task_support="optional",
    max_result_chars=MAX_RESULT_CHARS,  # handlers._answer: core.budget.fit_field
)
TOOLS = (
    SYNC_SPEC,
    ToolSpec(
        name=CONNECTIONS_TOOL, family="research", title="Library connections",
        description="Your connections (never keys); connect: a one-time link to connect one; remove revokes one.",
        input_model=LibraryConnectionsInput, output_model=LibraryConnectionsResult, annotations=_CONNECTIONS),
)
