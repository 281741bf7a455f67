"""The research function's resource actions: the caller's library and stored conversions as MCP resources.

Every read opens the library for the request's principal and nothing else, so another caller's item is simply
absent: the same ``NotFoundError`` as an id that never existed (the gateway answers both -32602 with the URI).
A paper's converted Markdown (``scholar://paper/{id}/markdown``) is read as read_paper reads it: the artifacts
are content-addressed and shared, as read_paper's cached answers are.

The inline cap: a body over ``MAX_INLINE_BYTES`` (3 MiB; 4 MiB as base64) would take the answer past Lambda's
6 MB synchronous response on its way research → gateway → API Gateway, so it comes as a ``text/uri-list``
content holding a short-lived download link (``artifacts.PRESIGN_S``), fresh for less than the link lives.
"""

from __future__ import annotations

import base64
from typing import Any, TypeVar

from pydantic import BaseModel, Field, ValidationError

from scholar.core.errors import InvalidArgumentError, NotFoundError
from scholar.core.resource_actions import (
    MAX_COMPLETIONS,
    PAGE_SIZE,
    CompleteRequest,
    Completions,
    ListedResource,
    ListRequest,
    ReadRequest,
    ResourceBody,
    ResourceListing,
    ResourceRead,
    complete_from,
)
from scholar.core.resource_uris import LIBRARY_ITEM, LIBRARY_MARKDOWN, LIBRARY_PDF, PAPER_MARKDOWN, parse_uri
from scholar.families.research.library_tools.handlers import record_of
from scholar.families.research.library_tools.spec import LibraryRecord
from scholar.services.fulltext import artifacts
from scholar.services.fulltext.jobs import converted_markdown
from scholar.store.blobs import BlobStore
from scholar.store.library.models import LibraryItem, PdfVersion, is_item_id
from scholar.store.library.table import LibraryStore
from scholar.store.owned_pdfs import stored_key

MAX_INLINE_BYTES = 3 * 1024 * 1024
ITEM_ID_PREFIX = "lib_"
# A pointer stays fresh for a third of its link's life: a client that reuses it still gets a working link.
POINTER_TTL_MS = artifacts.PRESIGN_S * 1000 // 3
URI_LIST = "text/uri-list"
_AUTHORS = 3

RequestT = TypeVar("RequestT", bound=BaseModel)


class LibraryItemResource(LibraryRecord):
    """``scholar://library/{item_id}``: the item's full record and the URIs of its PDF and Markdown."""

    pdf_uri: str | None = Field(default=None, description="scholar://library/{item_id}/pdf, when a PDF is kept")
    markdown_uri: str | None = Field(default=None, description="scholar://library/{item_id}/markdown, when converted")


def _request(model: type[RequestT], event: dict[str, Any]) -> RequestT:
    try:
        return model.model_validate(event)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or None
        raise InvalidArgumentError(f"{field or 'request'}: {first['msg']}", field=field) from exc


def _not_found(uri: str, why: str) -> NotFoundError:
    return NotFoundError(f"Resource not found: {uri} ({why})", reason="resource_not_found")


# -- resources/list ------------------------------------------------------------------------------------------------


def _listed(item: LibraryItem) -> ListedResource:
    paper = item.paper
    names = [name for a in paper.get("authors") or [] if isinstance(a, dict) and (name := a.get("name"))]
    facts = [str(paper["year"]) if paper.get("year") else "", paper.get("venue") or "",
             ", ".join(names[:_AUTHORS]) + (" et al." if len(names) > _AUTHORS else "")]
    kept = [what for what, held in (("PDF kept", item.pdfs), ("Markdown", item.md_path)) if held]
    description = " · ".join(part for part in [*facts, f"collection {item.collection}", *kept] if part)
    return ListedResource(uri=LIBRARY_ITEM.uri(item_id=item.item_id), name=item.item_id,
                          title=paper.get("title") or None, description=description,
                          mime_type=LIBRARY_ITEM.mime_type, last_modified=item.updated_at)


def resources_list(event: dict[str, Any]) -> ResourceListing:
    """A page of the caller's library items as resources, in item id order, and the cursor of the next page.

    Raises:
        InvalidArgumentError: a cursor this listing did not hand out (field ``cursor``).
    """
    request = _request(ListRequest, event)
    items, cursor = LibraryStore(request.principal).list_items(limit=PAGE_SIZE, cursor=request.cursor)
    return ResourceListing(resources=[_listed(item) for item in items], next_cursor=cursor)


# -- resources/read ------------------------------------------------------------------------------------------------


def _preferred_pdf(item: LibraryItem) -> PdfVersion | None:
    """The PDF the item's Markdown was made from, else the newest kept (a better version is kept after a lesser)."""
    for pdf in item.pdfs:
        if item.md_path and pdf.sha256 in item.md_path:
            return pdf
    return item.pdfs[-1] if item.pdfs else None


def _artifact(uri: str, key: str, mime_type: str, ttl_ms: int, *, binary: bool) -> ResourceRead:
    blobs = BlobStore()
    size = blobs.size(key)
    if size is None:
        raise _not_found(uri, "its stored artifact is gone (expired)")
    if size > MAX_INLINE_BYTES:
        link = blobs.presign(key, artifacts.PRESIGN_S)
        note = (f"# {mime_type}, {size:,} bytes: over the {MAX_INLINE_BYTES:,}-byte inline cap; download it from "
                f"this link within {artifacts.PRESIGN_S // 60} minutes")
        return ResourceRead(contents=[ResourceBody(uri=uri, mime_type=URI_LIST, text=f"{note}\r\n{link}\r\n")],
                            ttl_ms=min(ttl_ms, POINTER_TTL_MS))
    data = blobs.get(key)
    if data is None:
        raise _not_found(uri, "its stored artifact is gone (expired)")
    body = (ResourceBody(uri=uri, mime_type=mime_type, blob=base64.b64encode(data).decode("ascii")) if binary
            else ResourceBody(uri=uri, mime_type=mime_type, text=data.decode("utf-8")))
    return ResourceRead(contents=[body], ttl_ms=ttl_ms)


def _item_resource(uri: str, item: LibraryItem) -> ResourceRead:
    record = record_of(item).model_dump(mode="json")
    resource = LibraryItemResource.model_validate({
        **record,
        "pdf_uri": LIBRARY_PDF.uri(item_id=item.item_id) if item.pdfs else None,
        "markdown_uri": LIBRARY_MARKDOWN.uri(item_id=item.item_id) if item.md_path else None,
    })
    text = resource.model_dump_json(exclude_none=True)
    return ResourceRead(contents=[ResourceBody(uri=uri, mime_type=LIBRARY_ITEM.mime_type, text=text)],
                        ttl_ms=LIBRARY_ITEM.ttl_ms)


def resource_read(event: dict[str, Any]) -> ResourceRead:
    """What a URI of ours names, read for the caller.

    Raises:
        NotFoundError: the URI names nothing this caller has (no such template, item, PDF or conversion).
    """
    request = _request(ReadRequest, event)
    uri = request.uri
    ref = parse_uri(uri)
    if ref is None:
        raise _not_found(uri, "not a URI of this server (see resources/templates/list)")
    if ref.template is PAPER_MARKDOWN:
        md_path = converted_markdown(ref.values["id"])
        if md_path is None:
            raise _not_found(uri, "no stored conversion of that paper; read_paper converts it")
        return _artifact(uri, md_path, PAPER_MARKDOWN.mime_type, PAPER_MARKDOWN.ttl_ms, binary=False)
    item_id = ref.values["item_id"]
    item = LibraryStore(request.principal).get(item_id) if is_item_id(item_id) else None
    if item is None:
        raise _not_found(uri, "your library has no such item")
    if ref.template is LIBRARY_ITEM:
        return _item_resource(uri, item)
    if ref.template is LIBRARY_PDF:
        pdf = _preferred_pdf(item)
        if pdf is None:
            raise _not_found(uri, "the item has no kept PDF; download_paper keeps one")
        key = stored_key(request.principal, pdf.pdf_path)  # a PDF the caller brought: their own object
        return _artifact(uri, key, LIBRARY_PDF.mime_type, LIBRARY_PDF.ttl_ms, binary=True)
    if item.md_path is None:
        raise _not_found(uri, "the item has no Markdown (no PDF kept, or a scan without text)")
    return _artifact(uri, item.md_path, LIBRARY_MARKDOWN.mime_type, LIBRARY_MARKDOWN.ttl_ms, binary=False)


# -- completion/complete (the caller's part) -----------------------------------------------------------------------


def library_completions(event: dict[str, Any]) -> Completions:
    """The caller's collections, tags or item ids that complete ``value``."""
    request = _request(CompleteRequest, event)
    store = LibraryStore(request.principal)
    if request.argument == "item_id":
        # Item ids all start with "lib_": what was typed is a start of that, or the hex digits after it.
        prefix = request.value if ITEM_ID_PREFIX.startswith(request.value) or request.value.startswith(
            ITEM_ID_PREFIX) else ITEM_ID_PREFIX + request.value
        ids, more = store.item_ids(prefix, limit=MAX_COMPLETIONS)
        return Completions(values=ids, total=len(ids), has_more=more)
    names = [c.name for c in store.collections()] if request.argument == "collection" else store.tags()
    return complete_from(names, request.value)
