"""The contract of the research function's resource actions: what the gateway asks and what it gets back.

The gateway serves ``resources/list``, ``resources/read`` and the caller's part of ``completion/complete`` by
invoking the research function (the library lives there) with an action of this module, the principal bound as
for a tool call. Core, like the tool catalogue: these models are the two sides' shared words, and the gateway
imports no family (pydantic only). The answer travels inside the usual ``{"ok", "result" | "error"}`` outcome.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

LIST_ACTION = "resources_list"
READ_ACTION = "resource_read"
COMPLETE_ACTION = "library_completions"
# A page of resources/list; the SDK's clients read page after page, so a page need not be the whole library.
PAGE_SIZE = 100
# MCP caps a completion at 100 values.
MAX_COMPLETIONS = 100

Principal = Annotated[str, Field(min_length=1, max_length=200)]
# The completions that need the caller's library (the others come from the catalogue, in the gateway).
LibraryArgument = Literal["collection", "tag", "item_id"]


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")
    action: str
    principal: Principal


class ListRequest(_Request):
    cursor: Annotated[str | None, Field(default=None, max_length=500)] = None


class ReadRequest(_Request):
    uri: Annotated[str, Field(min_length=1, max_length=2_000)]


class CompleteRequest(_Request):
    argument: LibraryArgument
    value: Annotated[str, Field(max_length=300)] = ""


class ListedResource(BaseModel):
    """One entry of resources/list."""

    uri: str
    name: str
    title: str | None = None
    description: str | None = None
    mime_type: str
    last_modified: str | None = None


class ResourceListing(BaseModel):
    resources: list[ListedResource]
    next_cursor: str | None = None


class ResourceBody(BaseModel):
    """One content of a read: text, or a base64 ``blob``."""

    uri: str
    mime_type: str
    text: str | None = None
    blob: str | None = None


class ResourceRead(BaseModel):
    contents: list[ResourceBody]
    ttl_ms: int = Field(ge=0, description="How long a client may consider it fresh (2026-07-28 caching hint)")


class Completions(BaseModel):
    values: list[str] = Field(max_length=MAX_COMPLETIONS)
    total: int
    has_more: bool


def complete_from(candidates: Iterable[str], value: str) -> Completions:
    """The candidates that complete ``value``: those starting with it first, then those containing it (any case).

    Each group keeps the candidates' own order; at most ``MAX_COMPLETIONS`` values, ``total`` counts them all.
    """
    typed = value.casefold()
    starting: list[str] = []
    containing: list[str] = []
    for candidate in dict.fromkeys(candidates):
        folded = candidate.casefold()
        if folded.startswith(typed):
            starting.append(candidate)
        elif typed in folded:
            containing.append(candidate)
    matches = starting + containing
    return Completions(values=matches[:MAX_COMPLETIONS], total=len(matches), has_more=len(matches) > MAX_COMPLETIONS)
