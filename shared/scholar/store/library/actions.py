"""What one library write sends: the TransactWriteItems actions and the limits they are checked against.

Pure (no I/O): scholar.store.library.table reads ``meta`` and the items, asks for the actions here and commits them.
Each action's table name is filled in there.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from scholar.core.config import get_settings
from scholar.core.errors import TooLargeError
from scholar.store.library.models import LibraryItem
from scholar.store.library.rows import (
    COLLECTION,
    ITEM,
    META,
    Meta,
    Stored,
    encode,
    now_iso,
    rev_key,
    validated,
    year_of,
)

# A full library is ``too_large`` with one of these reasons; ``details`` name the setting, its value and the usage.
FULL_ITEMS = "library_max_items"
FULL_BYTES = "library_max_bytes"
_FULL_HINT = "Remove items you no longer need (library_remove), or ask the operator to raise the limit."


def key(principal: str, sk: str) -> dict[str, Any]:
    """The primary key of a row of the caller's partition."""
    return {"pk": {"S": principal}, "sk": {"S": sk}}


def delete_actions(principal: str, meta: Meta, old: Stored) -> list[dict[str, Any]]:
    """The actions that remove ``old`` at revision ``meta.revision + 1``."""
    revision = meta.revision + 1
    return [
        {"Delete": {"Key": key(principal, ITEM + old.item.item_id), "ConditionExpression": "rev = :old",
                    "ExpressionAttributeValues": {":old": {"N": str(old.item.rev)}}}},
        collection_action(principal, old.item.collection, -1),
        meta_action(principal, meta, revision, -1, -old.size),
        change_action(principal, revision, [old.item.item_id]),
    ]


def meta_action(principal: str, meta: Meta, revision: int, items: int, size: int) -> dict[str, Any]:
    # Timeline guarded: two writers both read revision R; only the first commit may move it to R + 1,
    # the second finds revision != R, re-reads and writes R + 2. Counts stay exact for the limits.
    values = {":rev": {"N": str(revision)}, ":items": {"N": str(meta.items + items)},
              ":bytes": {"N": str(meta.bytes + size)}}
    if meta.exists:
        condition = "revision = :seen"
        values[":seen"] = {"N": str(meta.revision)}
    else:
        condition = "attribute_not_exists(sk)"
    return {"Update": {"Key": key(principal, META), "UpdateExpression": "SET revision = :rev, #i = :items, #b = :bytes",
                       "ConditionExpression": condition, "ExpressionAttributeNames": {"#i": "items", "#b": "bytes"},
                       "ExpressionAttributeValues": values}}


def change_action(principal: str, revision: int, item_ids: Sequence[str]) -> dict[str, Any]:
    return {"Put": {"Item": {**key(principal, rev_key(revision)), "rev": {"N": str(revision)},
                             "ids": {"L": [{"S": i} for i in item_ids]}, "at": {"S": now_iso()}},
                    "ConditionExpression": "attribute_not_exists(sk)"}}


def collection_action(principal: str, name: str, delta: int) -> dict[str, Any]:
    # Writing an item into a collection creates the collection (download_paper's "inbox" needs no setup).
    return {"Update": {"Key": key(principal, COLLECTION + name),
                       "UpdateExpression": "SET #n = :name, created_at = if_not_exists(created_at, :now) "
                       "ADD #c :delta",
                       "ExpressionAttributeNames": {"#n": "name", "#c": "items"},
                       "ExpressionAttributeValues": {":name": {"S": name}, ":now": {"S": now_iso()},
                                                     ":delta": {"N": str(delta)}}}}


def check_limits(meta: Meta, items: int, size: int) -> None:
    settings = get_settings()
    for adding, current, limit, reason, setting, what in (
        (items, meta.items, settings.library_max_items, FULL_ITEMS, "SCHOLAR_LIBRARY_MAX_ITEMS",
         "your library holds {current} items; its limit is {limit} items"),
        (size, meta.bytes, settings.library_max_bytes, FULL_BYTES, "SCHOLAR_LIBRARY_MAX_BYTES",
         "your library's records take {current} bytes; its limit is {limit} bytes"),
    ):
        if adding > 0 and current + adding > limit:
            raise TooLargeError(what.format(current=current, limit=limit), reason=reason, hint=_FULL_HINT,
                                details={"limit": setting, "max": limit, "current": current})


def plan_writes(principal: str, meta: Meta, items: Sequence[LibraryItem], existing: dict[str, Stored], *,
                keep_times: bool = False) -> tuple[list[dict[str, Any]], list[LibraryItem]]:
    """The actions that store ``items`` at revision ``meta.revision + 1``, replacing ``existing`` ones.

    ``updated_at`` becomes now and a replaced item keeps its ``added_at``, unless ``keep_times`` (an import
    restoring a snapshot keeps both as the snapshot has them).
    """
    revision = meta.revision + 1
    now = now_iso()
    actions: list[dict[str, Any]] = []
    stored: list[LibraryItem] = []
    counts: dict[str, int] = {}
    added = size_delta = 0
    for item in items:
        old = existing.get(item.item_id)
        times = {} if keep_times else {"updated_at": now, **({"added_at": old.item.added_at} if old else {})}
        new = item.model_copy(update={"rev": revision, **times})
        new = validated(new)
        doc, size = encode(new)
        row = {**key(principal, ITEM + new.item_id), "doc": {"B": doc}, "rev": {"N": str(revision)},
               "collection": {"S": new.collection}, "tags": {"L": [{"S": t} for t in new.tags]}}
        if (year := year_of(new)) is not None:
            row["year"] = {"N": str(year)}
        if old:
            # Timeline guarded: a writer that read this item at rev r may replace it only while it is still r.
            condition = {"ConditionExpression": "rev = :old",
                         "ExpressionAttributeValues": {":old": {"N": str(old.item.rev)}}}
            size_delta += size - old.size
            if old.item.collection != new.collection:
                counts[old.item.collection] = counts.get(old.item.collection, 0) - 1
                counts[new.collection] = counts.get(new.collection, 0) + 1
        else:
            condition = {"ConditionExpression": "attribute_not_exists(sk)"}
            added += 1
            size_delta += size
            counts[new.collection] = counts.get(new.collection, 0) + 1
        actions.append({"Put": {"Item": row, **condition}})
        stored.append(new)
    check_limits(meta, added, size_delta)
    actions += [collection_action(principal, name, delta) for name, delta in counts.items() if delta]
    actions.append(meta_action(principal, meta, revision, added, size_delta))
    actions.append(change_action(principal, revision, [i.item_id for i in stored]))
    return actions, stored
