"""The LibraryTable's rows: sort keys, the encoded item, counters, cursors, the list query (for
scholar.store.library.table).

Pure functions, no I/O: an item is the zlib-compressed JSON of a ``LibraryItem`` (``doc``) beside the plain
attributes a list filters on (``collection``, ``tags``, ``year``) and the ``rev`` its writes are conditioned on.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from pydantic import ValidationError

from scholar.core.errors import InvalidArgumentError, TooLargeError
from scholar.store.library.bounds import check_bounds
from scholar.store.library.models import Collection, LibraryItem

META = "meta"
ITEM = "item#"
COLLECTION = "collection#"
CHANGE = "change#"
_REV_DIGITS = 12
# DynamoDB's limits: 100 actions and 4 MB per transaction, 400 KB per item.
TX_ITEMS = 30  # items per transaction: each may also touch two collection counters (30 * 3 + meta + change)
TX_BYTES = 3 * 1024 * 1024
MAX_DOC_BYTES = 350 * 1024


@dataclass(frozen=True)
class Meta:
    """The caller's ``meta`` row: the library revision and what the limits count."""

    exists: bool = False
    revision: int = 0
    items: int = 0
    bytes: int = 0


@dataclass(frozen=True)
class Stored:
    """A stored item and the size the byte limit counts for it (its JSON)."""

    item: LibraryItem
    size: int


def now_iso() -> str:
    """The current UTC time, ISO 8601 with seconds (the library's timestamps)."""
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def rev_key(revision: int) -> str:
    return f"{CHANGE}{revision:0{_REV_DIGITS}d}"


def encode(item: LibraryItem) -> tuple[bytes, int]:
    raw = item.model_dump_json(exclude_none=True).encode()
    doc = zlib.compress(raw, 6)
    if len(doc) > MAX_DOC_BYTES:
        raise TooLargeError(
            f"the library record of {item.item_id} is {len(doc)} bytes compressed; one record holds at most "
            f"{MAX_DOC_BYTES}", reason="library_record_too_large",
            hint="Shorten the notes or the tags and try again.",
        )
    return doc, len(raw)


def decode(row: dict[str, Any]) -> Stored:
    raw = zlib.decompress(row["doc"]["B"])
    return Stored(LibraryItem.model_validate_json(raw), len(raw))


def meta_of(row: dict[str, Any] | None) -> Meta:
    if not row:
        return Meta()
    # A row without a revision is one being created (moto shows it half-written): a write on it loses the
    # condition and re-reads, as for any race.
    return Meta(True, int(row.get("revision", {}).get("N", 0)), int(row.get("items", {}).get("N", 0)),
                 int(row.get("bytes", {}).get("N", 0)))


def year_of(item: LibraryItem) -> int | None:
    year = item.paper.get("year")
    return year if isinstance(year, int) and not isinstance(year, bool) else None


def validated(item: LibraryItem) -> LibraryItem:
    """``item`` checked against the bounds and the model (``model_copy`` skips validation); a broken rule is named.

    Raises:
        InvalidArgumentError: a model rule (pattern, type) is broken.
        TooLargeError: a field is past its bound (scholar.store.library.bounds).
    """
    check_bounds(item)
    try:
        return LibraryItem.model_validate(item.model_dump())
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        field = str(first["loc"][0]) if first["loc"] else "item"
        raise InvalidArgumentError(f"the library item's {field} {first['msg']}", field=field) from exc


def collection_of(row: dict[str, Any]) -> Collection:
    return Collection(name=row["name"]["S"], created_at=row.get("created_at", {}).get("S", ""),
                      items=max(0, int(row.get("items", {}).get("N", 0))))


def check_collection_name(name: str) -> None:
    try:
        Collection(name=name, created_at="")
    except ValidationError as exc:
        raise InvalidArgumentError(f"{name!r} is not a collection name: letters, digits, space and ._-/ "
                                   "up to 80 characters, starting with a letter or digit", field="name") from exc


def chunks(items: Sequence[LibraryItem], most_items: int = TX_ITEMS,
           most_chars: int = TX_BYTES) -> Iterator[list[LibraryItem]]:
    """``items`` in order, in runs of at most ``most_items`` and about ``most_chars`` of JSON each (by default one
    write transaction's: a rough size keeps it under DynamoDB's 4 MB; compression only helps)."""
    chunk: list[LibraryItem] = []
    size = 0
    for item in items:
        weight = len(item.model_dump_json())
        if chunk and (len(chunk) == most_items or size + weight > most_chars):
            yield chunk
            chunk, size = [], 0
        chunk.append(item)
        size += weight
    if chunk:
        yield chunk


def list_query(principal: str, *, collection: str | None, tag: str | None, year_start: int | None,
               year_end: int | None) -> dict[str, Any]:
    """The Query of a caller's items, with a FilterExpression for each filter given (names and values apart)."""
    names: dict[str, str] = {}
    values: dict[str, Any] = {":p": {"S": principal}, ":item": {"S": ITEM}}
    parts: list[str] = []
    if collection is not None:
        names["#c"] = "collection"
        values[":c"] = {"S": collection}
        parts.append("#c = :c")
    if tag is not None:
        names["#t"] = "tags"
        values[":t"] = {"S": tag}
        parts.append("contains(#t, :t)")
    if year_start is not None or year_end is not None:
        names["#y"] = "year"
        if year_start is not None:
            values[":y0"] = {"N": str(year_start)}
            parts.append("#y >= :y0")
        if year_end is not None:
            values[":y1"] = {"N": str(year_end)}
            parts.append("#y <= :y1")
    query: dict[str, Any] = {"KeyConditionExpression": "pk = :p AND begins_with(sk, :item)",
                             "ExpressionAttributeValues": values}
    if parts:
        query["FilterExpression"] = " AND ".join(parts)
        query["ExpressionAttributeNames"] = names
    return query


def fingerprint(collection: str | None, tag: str | None, year_start: int | None, year_end: int | None) -> str:
    filters = {"collection": collection, "tag": tag, "year_start": year_start, "year_end": year_end}
    return hashlib.sha256(json.dumps(filters, sort_keys=True).encode()).hexdigest()[:12]


def make_cursor(after: str, fingerprint: str) -> str:
    return base64.urlsafe_b64encode(json.dumps({"a": after, "f": fingerprint}).encode()).decode().rstrip("=")


def read_cursor(cursor: str, fingerprint: str) -> str:
    try:
        data = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        after, seen = data["a"], data["f"]
    except (binascii.Error, ValueError, KeyError, TypeError) as exc:
        raise InvalidArgumentError("cursor is not one this tool returned", field="cursor",
                                   reason="bad_cursor") from exc
    if not isinstance(after, str) or seen != fingerprint:
        raise InvalidArgumentError("cursor belongs to a listing with other filters; pass the same filters",
                                   field="cursor", reason="bad_cursor")
    return after
