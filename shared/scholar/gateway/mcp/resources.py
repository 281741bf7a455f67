"""resources/list, resources/templates/list and resources/read: the caller's library and stored conversions.

The templates are the catalogue's (``scholar.core.resource_uris``) and answered here; listing and reading happen in
the research function, where the library lives (``scholar.families.research.resources``), invoked like a tool call with
the caller's principal, so the gateway keeps to its rule of touching no table or bucket for a caller's data. A
URI that is none of ours is refused here without an invocation; one of another caller's items is refused there,
in the same words as an item that never existed: -32602 with the URI in ``data`` (SEP-2164, both eras).

Caching hints (2026-07-28), on purpose: the templates are catalogue data (``public``, an hour: they change only
with a deployment); a caller's list is ``private`` and fresh for a minute (its own writes change it); a read
carries its template's freshness (``scholar.core.resource_uris``), always ``private``.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from mcp import types
from mcp.shared.exceptions import MCPError

from scholar.core.resource_actions import LIST_ACTION, READ_ACTION, ResourceListing, ResourceRead
from scholar.core.resource_uris import TEMPLATES, parse_uri
from scholar.gateway.mcp.actions import research_action
from scholar.gateway.mcp.tools import CATALOGUE_TTL_MS

LIST_TTL_MS = 60_000
PUBLIC = "public"
PRIVATE = "private"


def not_found(uri: str) -> MCPError:
    """The protocol error for a URI that names nothing this caller has (never says whether it is someone else's)."""
    return MCPError(code=types.INVALID_PARAMS, message=f"Resource not found: {uri}", data={"uri": uri})


@cache
def _templates() -> tuple[types.ResourceTemplate, ...]:
    return tuple(
        types.ResourceTemplate(name=t.name, title=t.title, uri_template=t.uri_template, description=t.description,
                               mime_type=t.mime_type)
        for t in TEMPLATES
    )


def list_templates() -> types.ListResourceTemplatesResult:
    """Every resource template, sorted by name."""
    return types.ListResourceTemplatesResult(resource_templates=list(_templates()), ttl_ms=CATALOGUE_TTL_MS,
                                             cache_scope=PUBLIC)


async def list_resources(ctx: Any, principal: str, cursor: str | None) -> types.ListResourcesResult:
    """A page of the caller's resources (library items, in item id order) and the next cursor.

    Raises:
        MCPError: -32602 for a cursor this listing did not hand out.
    """
    page = ResourceListing.model_validate(await research_action(ctx, principal, LIST_ACTION, cursor=cursor))
    resources = [
        types.Resource(uri=r.uri, name=r.name, title=r.title, description=r.description, mime_type=r.mime_type,
                       annotations=types.Annotations(last_modified=r.last_modified) if r.last_modified else None)
        for r in page.resources
    ]
    return types.ListResourcesResult(resources=resources, next_cursor=page.next_cursor, ttl_ms=LIST_TTL_MS,
                                     cache_scope=PRIVATE)


async def read_resource(ctx: Any, principal: str, uri: str) -> types.ReadResourceResult:
    """What ``uri`` names, for this caller.

    Raises:
        MCPError: -32602 with ``data.uri`` when it names nothing this caller has.
    """
    if parse_uri(uri) is None:
        raise not_found(uri)
    read = ResourceRead.model_validate(await research_action(ctx, principal, READ_ACTION, uri=uri,
                                                             error_data={"uri": uri}))
    contents: list[types.TextResourceContents | types.BlobResourceContents] = [
        types.BlobResourceContents(uri=c.uri, mime_type=c.mime_type, blob=c.blob) if c.blob is not None
        else types.TextResourceContents(uri=c.uri, mime_type=c.mime_type, text=c.text or "")
        for c in read.contents
    ]
    return types.ReadResourceResult(contents=contents, ttl_ms=read.ttl_ms, cache_scope=PRIVATE)
